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
