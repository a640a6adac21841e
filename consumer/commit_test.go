package consumer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestConsumerSlowCoordinatorDoesNotStallRecords: with a group coordinator
// that answers every request slowQuery late (librdkafka's mock cluster with
// a round-trip time injected on the coordinator's broker, as a frozen or
// overloaded coordinator), records of partitions led by the other brokers
// are still handled at once: the periodic offset commit runs in the
// background and does not hold up the poll loop. Once the coordinator is
// fast again, the done offsets are committed (at-least-once: nothing is
// marked committed that the coordinator did not acknowledge).
func TestConsumerSlowCoordinatorDoesNotStallRecords(t *testing.T) {
	t.Parallel()
	const (
		topic, group = "outbox.event.Shipment", "shipment-svc"
		slowQuery    = 4 * time.Second
		probes       = 12
		probeEvery   = 250 * time.Millisecond
		// maxLatency is well below slowQuery: a commit in the poll loop
		// delays the records of every partition by at least slowQuery.
		maxLatency = slowQuery / 4
	)
	mc, err := kafka.NewMockCluster(3)
	if err != nil {
		t.Fatalf("mock cluster: %v", err)
	}
	t.Cleanup(mc.Close)
	if err := mc.CreateTopic(topic, 3, 1); err != nil {
		t.Fatal(err)
	}
	bootstrap := mc.BootstrapServers()

	var mu sync.Mutex
	handled := map[int]time.Time{}
	coord := -1
	r, err := consumer.NewRouter(consumer.RouterConfig{Unknown: consumer.UnknownFail})
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(r, "Ping", 0, func(ctx context.Context, ev consumer.Event[ping]) error {
		mu.Lock()
		handled[ev.Payload.N] = time.Now()
		mu.Unlock()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s := &seen{}
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		CommitInterval: 100 * time.Millisecond, OnError: s.onError,
		Kafka: kafka.ConfigMap{
			"statistics.interval.ms": 100,
			// The coordinator's slow answers (heartbeats too) must not end
			// the session.
			"session.timeout.ms": 30000,
		},
		OnStatistics: func(stats string) {
			if id := coordinatorID(stats); id > 0 {
				mu.Lock()
				coord = id
				mu.Unlock()
			}
		},
	}, r)

	p := newProducer(t, bootstrap)
	leaders := partitionLeaders(t, p, topic)
	produced := map[int]time.Time{}
	send := func(partition int32, n int) {
		t.Helper()
		ch := make(chan kafka.Event, 1)
		tp := topic
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &tp, Partition: partition},
			Key:            []byte("agg-" + strconv.Itoa(int(partition))),
			Value:          []byte(fmt.Sprintf(`{"n":%d}`, n)),
			Headers:        []kafka.Header{{Key: "id", Value: []byte(fmt.Sprintf("ev-%d", n))}, {Key: "eventType", Value: []byte("Ping")}},
		}, ch)
		if err != nil {
			t.Fatalf("produce: %v", err)
		}
		select {
		case ev := <-ch:
			if m, ok := ev.(*kafka.Message); !ok || m.TopicPartition.Error != nil {
				t.Fatalf("delivery: %v", ev)
			}
		case <-time.After(mockTimeout):
			t.Fatal("delivery report: timed out")
		}
		mu.Lock()
		produced[n] = time.Now()
		mu.Unlock()
	}
	for part := range int32(3) {
		send(part, int(part))
	}
	isHandled := func(n int) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); _, ok := handled[n]; return ok }
	}
	for n := range 3 {
		waitFor(t, mockTimeout, fmt.Sprintf("warm-up record %d handled", n), isHandled(n))
	}
	waitFor(t, mockTimeout, "the group coordinator in the statistics", func() bool { mu.Lock(); defer mu.Unlock(); return coord > 0 })
	waitFor(t, mockTimeout, "warm-up offsets committed", func() bool {
		return slices.Equal(itest.CommittedOffsets(t, bootstrap, group, topic, 3), []int64{1, 1, 1})
	})
	mu.Lock()
	slow := coord
	mu.Unlock()
	var fast []int32 // partitions the coordinator's broker does not lead
	for part, l := range leaders {
		if l != slow {
			fast = append(fast, part)
		}
	}
	slices.Sort(fast)
	if len(fast) == 0 {
		t.Fatalf("broker %d (the coordinator) leads every partition: %v", slow, leaders)
	}
	if err := mc.SetRoundtripDuration(slow, slowQuery); err != nil {
		t.Fatal(err)
	}
	t.Logf("coordinator: broker %d, answering %s late; records to partitions %v (leaders %v)", slow, slowQuery, fast, leaders)

	var probeNs []int
	for i := range probes {
		n := 100 + i
		send(fast[i%len(fast)], n)
		probeNs = append(probeNs, n)
		time.Sleep(probeEvery)
	}
	for _, n := range probeNs {
		waitFor(t, mockTimeout, fmt.Sprintf("record %d handled", n), isHandled(n))
	}
	var worst time.Duration
	mu.Lock()
	for _, n := range probeNs {
		worst = max(worst, handled[n].Sub(produced[n]))
	}
	mu.Unlock()
	t.Logf("worst produce-to-handled latency with the slow coordinator: %s (limit %s)", worst.Round(time.Millisecond), maxLatency)
	if worst > maxLatency {
		t.Errorf("a record waited %s to be handled with the coordinator answering %s late: the commit held up the poll loop (want <= %s)", worst.Round(time.Millisecond), slowQuery, maxLatency)
	}

	// The coordinator fast again: every done offset gets committed.
	if err := mc.SetRoundtripDuration(slow, 0); err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 1, 1}
	for i := range probes {
		want[fast[i%len(fast)]]++
	}
	waitFor(t, mockTimeout, fmt.Sprintf("offsets %v committed", want), func() bool {
		return slices.Equal(itest.CommittedOffsets(t, bootstrap, group, topic, 3), want)
	})
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v, want nil after cancel", err)
	}
	for _, err := range s.reported() {
		t.Logf("reported: %v", err)
	}
}

// coordinatorID reads the group coordinator's node id from librdkafka's
// statistics: the logical broker "GroupCoordinator" has the coordinator's
// address (nodename), the learned broker with that address its id; 0 when
// not known yet.
func coordinatorID(stats string) int {
	var st struct {
		Brokers map[string]struct {
			Name     string `json:"name"`
			NodeID   int    `json:"nodeid"`
			NodeName string `json:"nodename"`
			Source   string `json:"source"`
		} `json:"brokers"`
	}
	if json.Unmarshal([]byte(stats), &st) != nil {
		return 0
	}
	addr := ""
	for _, b := range st.Brokers {
		if b.Source == "logical" && b.Name == "GroupCoordinator" {
			addr = b.NodeName
		}
	}
	for _, b := range st.Brokers {
		if addr != "" && b.Source == "learned" && b.NodeName == addr {
			return b.NodeID
		}
	}
	return 0
}

// partitionLeaders returns the leader (broker id) of each partition of
// topic.
func partitionLeaders(t *testing.T, p *kafka.Producer, topic string) map[int32]int {
	t.Helper()
	md, err := p.GetMetadata(&topic, false, int(mockTimeout/time.Millisecond))
	if err != nil {
		t.Fatalf("metadata: %v", err)
	}
	out := map[int32]int{}
	for _, pm := range md.Topics[topic].Partitions {
		out[pm.ID] = int(pm.Leader)
	}
	return out
}
