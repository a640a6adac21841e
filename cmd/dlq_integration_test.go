//go:build integration

package cmd_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestCLIDLQReplayRealKafka: records dead-lettered as consumer.DLQ writes
// them (DLQ.Record), of two types; `dlq replay --type A` counts them on a
// dry run, then puts back exactly the A records on their original topic
// with their id header and without the outbox.dlq.* headers.
func TestCLIDLQReplayRealKafka(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	topic, dlqTopic := "outbox.event.CliReplay"+sfx, "cli-replay-dlq-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic, dlqTopic) })

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	d := consumer.DLQ{Topic: dlqTopic}
	delivered := make(chan kafka.Event, 3)
	types := []string{"A", "B", "A"}
	for i, typ := range types {
		orig := &consumer.Message{Topic: topic, Partition: 0, Offset: int64(i), Key: []byte("k"), Value: []byte(`{"i":1}`),
			Headers: []consumer.Header{{Key: "id", Value: []byte(sfx + "-" + string(rune('0'+i)))}, {Key: "eventType", Value: []byte(typ)}}}
		rec := d.Record(orig, consumer.Permanent(errors.New("bad")))
		var hs []kafka.Header
		for _, h := range rec.Headers {
			hs = append(hs, kafka.Header{Key: h.Key, Value: h.Value})
		}
		if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &dlqTopic, Partition: kafka.PartitionAny}, Key: rec.Key, Value: rec.Value, Headers: hs}, delivered); err != nil {
			t.Fatal(err)
		}
	}
	for range types {
		if m, ok := (<-delivered).(*kafka.Message); !ok || m.TopicPartition.Error != nil {
			t.Fatalf("delivery: %v", m)
		}
	}
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": "", "OUTBOXCTL_BOOTSTRAP_SERVERS": s.BootstrapServers}

	code, out, errOut := runCLI(t, vars, "dlq", "replay", "--topic", dlqTopic, "--type", "A", "--reason", "permanent", "--since", "1h")
	if code != 0 || !strings.Contains(out, "3 read, 2 selected, would replay 2") || !strings.Contains(errOut, "dry run") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, vars, "dlq", "replay", "--topic", dlqTopic, "--type", "A", "--yes", "-o", "json")
	var rep struct {
		Read, Selected, Replayed int
		ByTopic                  map[string]int
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Read != 3 || rep.Selected != 2 || rep.Replayed != 2 || rep.ByTopic[topic] != 2 {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	rd := itest.NewReader(t, s.BootstrapServers, topic)
	var ids []string
	for m := rd.Next(20 * time.Second); m != nil; m = rd.Next(2 * time.Second) {
		id, _ := itest.Header(m, "id")
		ids = append(ids, id)
		if typ, _ := itest.Header(m, "eventType"); typ != "A" {
			t.Errorf("replayed a %q record", typ)
		}
		for _, h := range m.Headers {
			if strings.HasPrefix(h.Key, "outbox.dlq.") {
				t.Errorf("replayed record %s carries %s", id, h.Key)
			}
		}
	}
	if strings.Join(ids, ",") != sfx+"-0,"+sfx+"-2" {
		t.Errorf("replayed ids %v, want %s-0 and %s-2 in order", ids, sfx, sfx)
	}
}
