package itest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// adminClient returns an AdminClient of bootstrap, a context for its
// calls (30 s) and the function that releases both.
func adminClient(bootstrap string) (*kafka.AdminClient, context.Context, func(), error) {
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("kafka admin: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	return admin, ctx, func() { cancel(); admin.Close() }, nil
}

// CreateTopic creates a single-partition topic (if it does not exist) and
// deletes it with t.Cleanup.
func CreateTopic(t testing.TB, bootstrap, topic string) {
	t.Helper()
	CreateTopicN(t, bootstrap, topic, 1)
}

// CreateTopicN is CreateTopic for a topic of partitions partitions.
func CreateTopicN(t testing.TB, bootstrap, topic string, partitions int) {
	t.Helper()
	admin, ctx, done, err := adminClient(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	res, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1}})
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	for _, r := range res {
		if r.Error.Code() != kafka.ErrNoError && r.Error.Code() != kafka.ErrTopicAlreadyExists {
			t.Fatalf("create topic %s: %v", topic, r.Error)
		}
	}
	t.Cleanup(func() { DeleteTopics(t, bootstrap, topic) })
}

// DeleteTopics deletes topics; missing topics are ignored.
func DeleteTopics(t testing.TB, bootstrap string, topics ...string) {
	t.Helper()
	admin, ctx, done, err := adminClient(bootstrap)
	if err != nil {
		t.Error(err)
		return
	}
	defer done()
	res, err := admin.DeleteTopics(ctx, topics)
	if err != nil {
		t.Errorf("delete topics %v: %v", topics, err)
		return
	}
	for _, r := range res {
		if r.Error.Code() != kafka.ErrNoError && r.Error.Code() != kafka.ErrUnknownTopicOrPart {
			t.Errorf("delete topic %s: %v", r.Topic, r.Error)
		}
	}
}

// Reader reads a topic's partition 0 from the beginning, without a group.
type Reader struct {
	t testing.TB
	c *kafka.Consumer
}

// NewReader assigns partition 0 of topic from the earliest offset.
func NewReader(t testing.TB, bootstrap, topic string) *Reader {
	t.Helper()
	c, err := kafka.NewConsumer(&kafka.ConfigMap{
		"bootstrap.servers":  bootstrap,
		"group.id":           "itest-" + Suffix(),
		"enable.auto.commit": false,
		"auto.offset.reset":  "earliest",
	})
	if err != nil {
		t.Fatalf("kafka consumer: %v", err)
	}
	if err := c.Assign([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: kafka.OffsetBeginning}}); err != nil {
		t.Fatalf("assign %s: %v", topic, err)
	}
	t.Cleanup(func() { c.Close() })
	return &Reader{t: t, c: c}
}

// Next returns the next message, or nil when none arrives within wait.
func (r *Reader) Next(wait time.Duration) *kafka.Message {
	r.t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		ev := r.c.Poll(200)
		switch e := ev.(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				r.t.Fatalf("consume: %v", e.TopicPartition.Error)
			}
			return e
		case kafka.Error:
			if e.IsFatal() {
				r.t.Fatalf("consume: %v", e)
			}
		}
	}
	return nil
}

// NextEvent is Next without the warm-up markers WarmUp writes: records
// whose key starts with "warmup-" are skipped.
func (r *Reader) NextEvent(wait time.Duration) *kafka.Message {
	r.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		m := r.Next(left)
		if m == nil || !strings.HasPrefix(string(m.Key), "warmup-") {
			return m
		}
	}
}

// Header returns the value of the first header named key.
func Header(m *kafka.Message, key string) (string, bool) {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}

// DeleteTopicsContaining deletes every topic whose name contains part.
func DeleteTopicsContaining(t testing.TB, bootstrap, part string) {
	t.Helper()
	admin, _, done, err := adminClient(bootstrap)
	if err != nil {
		t.Error(err)
		return
	}
	md, err := admin.GetMetadata(nil, true, 10000)
	done()
	if err != nil {
		t.Errorf("list topics: %v", err)
		return
	}
	var topics []string
	for name := range md.Topics {
		if strings.Contains(name, part) {
			topics = append(topics, name)
		}
	}
	if len(topics) > 0 {
		DeleteTopics(t, bootstrap, topics...)
	}
}

// WarmUp waits until a connector streams, before a test writes the events
// it checks: with snapshot.mode=no_data Debezium routes only rows written
// after it started streaming. It calls write with a fresh marker key
// ("warmup-" and a random suffix; write inserts an outbox row with that
// aggregate id) and reads r until the record with that key arrives, writing
// a new marker every few seconds, and fails the test after timeout. Records
// read meanwhile are dropped; r is left just after the marker. Later reads
// may still see a marker (a redelivery): skip keys starting with "warmup-".
func WarmUp(t testing.TB, r *Reader, timeout time.Duration, write func(key string) error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		key := "warmup-" + Suffix()
		if err := write(key); err != nil {
			t.Fatalf("warm-up write: %v", err)
		}
		for m := r.Next(3 * time.Second); m != nil; m = r.Next(time.Second) {
			if string(m.Key) == key {
				return
			}
		}
	}
	t.Fatalf("the connector routed no warm-up event within %s", timeout)
}

// StreamingReader creates topic (single partition, deleted at cleanup) and
// returns a reader of it once the connector writing it streams: Connect
// reports a task RUNNING before Debezium has read its start position (the
// binlog position under the snapshot lock, the slot's LSN), and with
// snapshot.mode=no_data a row committed in that window is never routed. So
// it WarmUps (90 s) with write, which inserts an outbox row routed to topic
// with the given aggregate id. Read the checked records with NextEvent.
func StreamingReader(t testing.TB, bootstrap, topic string, write func(key string) error) *Reader {
	t.Helper()
	CreateTopic(t, bootstrap, topic)
	r := NewReader(t, bootstrap, topic)
	WarmUp(t, r, 90*time.Second, write)
	return r
}

// HighWatermarks returns the high watermark of partitions 0 to
// partitions-1 of topic: the offset its next record gets (its records and,
// for transactional producers, their commit markers), failing the test on
// an error.
func HighWatermarks(t testing.TB, bootstrap, topic string, partitions int) []int64 {
	t.Helper()
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": bootstrap, "group.id": "itest-hw-" + Suffix()})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	hw := make([]int64, partitions)
	for p := range hw {
		_, hi, err := cons.QueryWatermarkOffsets(topic, int32(p), 10000)
		if err != nil {
			t.Fatalf("watermarks of %s[%d]: %v", topic, p, err)
		}
		hw[p] = hi
	}
	return hw
}

// TopicEnd is the sum of the high watermarks of partitions 0 to
// partitions-1 of topic (HighWatermarks).
func TopicEnd(t testing.TB, bootstrap, topic string, partitions int) int64 {
	t.Helper()
	var sum int64
	for _, hi := range HighWatermarks(t, bootstrap, topic, partitions) {
		sum += hi
	}
	return sum
}

// CommittedOffsets returns the committed offset of partitions 0 to
// partitions-1 of topic for the consumer group, as the group coordinator
// reports them (kafka.OffsetInvalid, -1001, where the group committed
// none), failing the test on an error.
func CommittedOffsets(t testing.TB, bootstrap, group, topic string, partitions int) []int64 {
	t.Helper()
	admin, ctx, done, err := adminClient(bootstrap)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	tps := make([]kafka.TopicPartition, partitions)
	for p := range tps {
		tps[p] = kafka.TopicPartition{Topic: &topic, Partition: int32(p)}
	}
	res, err := admin.ListConsumerGroupOffsets(ctx, []kafka.ConsumerGroupTopicPartitions{{Group: group, Partitions: tps}})
	if err != nil {
		t.Fatalf("committed offsets of group %s: %v", group, err)
	}
	out := make([]int64, partitions)
	for _, tp := range res.ConsumerGroupsTopicPartitions[0].Partitions {
		if tp.Error != nil {
			t.Fatalf("committed offset of group %s on %s/%d: %v", group, topic, tp.Partition, tp.Error)
		}
		out[tp.Partition] = int64(tp.Offset)
	}
	return out
}

// DeleteConsumerGroup deletes a consumer group (it must have no active
// member), reporting a failure with t.Errorf.
func DeleteConsumerGroup(t testing.TB, bootstrap, group string) {
	t.Helper()
	admin, ctx, done, err := adminClient(bootstrap)
	if err != nil {
		t.Error(err)
		return
	}
	defer done()
	if _, err := admin.DeleteConsumerGroups(ctx, []string{group}); err != nil {
		t.Errorf("delete consumer group %s: %v", group, err)
	}
}
