package dlq_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/dlq"
	"github.com/outboxctl/outboxctl/internal/golden"
)

func dead(typ, reason, topic, partition string, ts time.Time) *kafka.Message {
	dlqTopic := "orders.dlq"
	hs := []kafka.Header{{Key: "id", Value: []byte("e-1")}, {Key: "eventType", Value: []byte(typ)}, {Key: "traceparent", Value: []byte("00-1")}}
	for k, v := range map[string]string{consumer.HeaderDLQError: "boom", consumer.HeaderDLQAttempts: "3", consumer.HeaderDLQReason: reason, consumer.HeaderDLQTopic: topic, consumer.HeaderDLQPartition: partition, consumer.HeaderDLQOffset: "7"} {
		if v != "" {
			hs = append(hs, kafka.Header{Key: k, Value: []byte(v)})
		}
	}
	return &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &dlqTopic, Partition: 0, Offset: 3}, Key: []byte("o-1"), Value: []byte(`{"n":1}`), Headers: hs, Timestamp: ts}
}

func TestFilterMatch(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	m := dead("OrderCreated", "permanent", "outbox.event.Order", "2", t0)
	for _, tc := range []struct {
		name string
		f    dlq.Filter
		want bool
	}{
		{"empty selects all", dlq.Filter{}, true},
		{"type", dlq.Filter{Types: []string{"X", "OrderCreated"}}, true},
		{"other type", dlq.Filter{Types: []string{"OrderPaid"}}, false},
		{"type header", dlq.Filter{Types: []string{"OrderCreated"}, TypeHeader: "type"}, false},
		{"reason", dlq.Filter{Reasons: []string{"permanent"}}, true},
		{"other reason", dlq.Filter{Reasons: []string{"failed"}}, false},
		{"original topic", dlq.Filter{OriginalTopics: []string{"outbox.event.Order"}}, true},
		{"other topic", dlq.Filter{OriginalTopics: []string{"outbox.event.Pay"}}, false},
		{"since inclusive", dlq.Filter{Since: t0}, true},
		{"since after", dlq.Filter{Since: t0.Add(time.Second)}, false},
		{"until exclusive", dlq.Filter{Until: t0}, false},
		{"until after", dlq.Filter{Until: t0.Add(time.Second)}, true},
	} {
		if got := tc.f.Match(m); got != tc.want {
			t.Errorf("%s: Match = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRestored(t *testing.T) {
	m := dead("OrderCreated", "permanent", "outbox.event.Order", "2", time.Now())
	r, ok := dlq.Restored(m)
	if !ok {
		t.Fatal("not restorable")
	}
	if *r.TopicPartition.Topic != "outbox.event.Order" || r.TopicPartition.Partition != 2 || string(r.Key) != "o-1" || string(r.Value) != `{"n":1}` {
		t.Errorf("restored = %v key %q value %q", r.TopicPartition, r.Key, r.Value)
	}
	var keys []string
	for _, h := range r.Headers {
		keys = append(keys, h.Key)
	}
	if len(keys) != 3 || keys[0] != "id" || keys[1] != "eventType" || keys[2] != "traceparent" {
		t.Errorf("headers = %v, want the original ones only, in order", keys)
	}
	// No partition header: any partition (the murmur2 partitioner picks
	// the key's); no topic header: not restorable.
	if r, _ := dlq.Restored(dead("T", "failed", "outbox.event.Order", "", time.Now())); r.TopicPartition.Partition != kafka.PartitionAny {
		t.Errorf("partition = %d, want any", r.TopicPartition.Partition)
	}
	if _, ok := dlq.Restored(dead("T", "failed", "", "", time.Now())); ok {
		t.Error("a record without an original topic is restorable")
	}
}

// TestReportJSON: the JSON of outboxctl dlq replay is a contract.
func TestReportJSON(t *testing.T) {
	rep := dlq.Report{Topic: "billing.dlq", Read: 5, Selected: 3, Replayed: 3,
		ByTopic: map[string]int{"outbox.event.Order": 3}, ByType: map[string]int{"OrderCreated": 2, "OrderPaid": 1}}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "TestReportJSON", "report.json.golden"), append(data, '\n'))
}
