package verify

import (
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

// TestExpectedAndCompare: the expected canary record follows the spec's
// routing and headers through the eventrouter package, and compare names
// every difference of a received record.
func TestExpectedAndCompare(t *testing.T) {
	t.Parallel()
	doc := `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: db, user: dbz, dbname: shop}
    payloadFormat: json
    routing: {topicReplacement: "shop.${routedByValue}.events"}
    headers: {eventType: kind}
`
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{BootstrapServers: "kafka:9092"})
	if err != nil {
		t.Fatal(err)
	}
	o := &s.Outboxes[0]
	id := "01a2340f-9e63-70e4-95ab-a2df8da0615c"
	ev := canaryEvent(o, id, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	want, err := expected(o, cs[0].Config, ev)
	if err != nil {
		t.Fatal(err)
	}
	if want.Topic != "shop.outboxctl.canary.events" || string(want.Key) != "outboxctl-canary" {
		t.Errorf("expected topic %s key %s", want.Topic, want.Key)
	}
	hs := map[string]string{}
	for _, h := range want.Headers {
		hs[h.Key] = string(h.Value)
	}
	if hs["id"] != id || hs["kind"] != "outboxctl.Canary" {
		t.Errorf("expected headers %v", hs)
	}

	topic := want.Topic
	good := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic}, Key: want.Key}
	for _, h := range want.Headers {
		good.Headers = append(good.Headers, kafka.Header{Key: h.Key, Value: h.Value})
	}
	if err := compare(want, good); err != nil {
		t.Errorf("same record: %v", err)
	}
	other := "shop.other.events"
	bad := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &other}, Key: []byte("x"), Headers: []kafka.Header{{Key: "id", Value: []byte(id)}}}
	err = compare(want, bad)
	for _, part := range []string{"topic shop.other.events, want shop.outboxctl.canary.events", `key "x"`, "header kind missing"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("compare: %v, want it to say %q", err, part)
		}
	}
}

// TestCaptureLatency: the capture stage is the commit to the record's
// timestamp (milliseconds), not the offset flush; a timestamp just before
// the commit (the change produced while the commit's answer travelled) is
// 0, one far before it is clock skew, and no timestamp is no measure.
func TestCaptureLatency(t *testing.T) {
	committed := time.Date(2026, 12, 5, 7, 0, 0, 400_000_000, time.UTC) // .400
	for _, tc := range []struct {
		name string
		ts   time.Time
		typ  kafka.TimestampType
		want time.Duration
		msg  string
	}{
		{"18 ms after", committed.Add(18 * time.Millisecond), kafka.TimestampCreateTime, 18 * time.Millisecond, "from the commit to the record's timestamp (CreateTime)"},
		{"same millisecond", committed, kafka.TimestampLogAppendTime, 0, "from the commit to the record's timestamp (LogAppendTime)"},
		{"just before", committed.Add(-3 * time.Millisecond), kafka.TimestampCreateTime, 0, "at the commit"},
		{"skewed clock", committed.Add(-5 * time.Second), kafka.TimestampCreateTime, 0, "clock skew"},
		{"no timestamp", time.Time{}, kafka.TimestampNotAvailable, 0, "no timestamp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, msg := captureLatency(committed.Add(700*time.Microsecond), &kafka.Message{Timestamp: tc.ts, TimestampType: tc.typ})
			if d != tc.want || !strings.Contains(msg, tc.msg) {
				t.Errorf("captureLatency = %v %q, want %v and %q", d, msg, tc.want, tc.msg)
			}
		})
	}
}
