package spec_test

import (
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/spec"
)

func TestDeliverySpec(t *testing.T) {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(partitionDoc("postgres", ""))})
	if err != nil {
		t.Fatal(err)
	}
	o := &s.Outboxes[0]
	if o.Delivery != spec.DeliveryAtLeastOnce || o.ExactlyOnce() {
		t.Errorf("default delivery = %q", o.Delivery)
	}
	if rf, isr := o.TopicReplication(); rf != 0 || isr != 0 {
		t.Errorf("default replication = %d/%d, want broker defaults", rf, isr)
	}
	s, err = spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(partitionDoc("postgres", "    delivery: exactly-once\n    topics: {replicationFactor: 3, minInsyncReplicas: 2}\n"))})
	if err != nil {
		t.Fatal(err)
	}
	o = &s.Outboxes[0]
	if !o.ExactlyOnce() {
		t.Errorf("delivery = %q", o.Delivery)
	}
	if rf, isr := o.TopicReplication(); rf != 3 || isr != 2 {
		t.Errorf("replication = %d/%d, want 3/2", rf, isr)
	}
	for _, tc := range []struct{ extra, want string }{
		{"    delivery: exactly_once\n", `outbox.yaml:7:15: delivery "exactly_once": want at-least-once or exactly-once`},
		{"    delivery: exactly-once\n    relay: {}\n", `delivery exactly-once is a Kafka Connect setting`},
		{"    topics: {replicationFactor: -1}\n", `topics.replicationFactor -1: want 1..32767`},
		{"    topics: {replicationFactor: 40000}\n", `topics.replicationFactor 40000`},
		{"    topics: {minInsyncReplicas: -2}\n", `topics.minInsyncReplicas -2: want at least 1`},
		{"    topics: {replicationFactor: 1, minInsyncReplicas: 2}\n", `topics.minInsyncReplicas 2 exceeds topics.replicationFactor 1`},
		{"    topics: {partitions: 3}\n", `partitions`},
	} {
		_, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(partitionDoc("postgres", tc.extra))})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.extra, err, tc.want)
		}
	}
}

func TestKafkaBrokers(t *testing.T) {
	doc := func(kafka string) spec.Source {
		return spec.Source{Name: "outbox.yaml", Data: []byte("apiVersion: outboxctl.dev/v1alpha1\nkafka: " + kafka + "\noutboxes: []\n")}
	}
	s, err := spec.Parse(doc("{brokers: 3}"), spec.Source{Name: "b.yaml", Data: []byte(partitionDoc("postgres", ""))}, doc("{bootstrapServers: k:9092}"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Kafka.Brokers != 3 || s.Kafka.BootstrapServers != "k:9092" || s.Kafka.PosOf("brokers").Line != 2 {
		t.Errorf("kafka = %+v (brokers at %s)", s.Kafka, s.Kafka.PosOf("brokers"))
	}
	for _, tc := range []struct {
		srcs []spec.Source
		want string
	}{
		{[]spec.Source{doc("{brokers: 0}"), {Name: "b.yaml", Data: []byte(partitionDoc("postgres", ""))}}, "kafka.brokers 0: want the number of brokers"},
		{[]spec.Source{doc("{brokers: 3}"), doc("{brokers: 5, bootstrapServers: k:9092}"), {Name: "b.yaml", Data: []byte(partitionDoc("postgres", ""))}}, "kafka.brokers 5 conflicts with 3 declared at outbox.yaml:2"},
	} {
		_, err := spec.Parse(tc.srcs...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
