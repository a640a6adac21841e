package itest

import (
	"context"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// CreateTopic creates a single-partition topic (if it does not exist) and
// deletes it with t.Cleanup.
func CreateTopic(t testing.TB, bootstrap, topic string) {
	t.Helper()
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		t.Fatalf("kafka admin: %v", err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: 1, ReplicationFactor: 1}})
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
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		t.Errorf("kafka admin: %v", err)
		return
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
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

// Header returns the value of the first header named key.
func Header(m *kafka.Message, key string) (string, bool) {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}
