package spec

import "fmt"

// Delivery guarantees of an outbox's connector (Outbox.Delivery).
const (
	// DeliveryAtLeastOnce (the default): after a worker crash the task
	// restarts from its last committed offset and may publish records a
	// second time. Consumers deduplicate by event id (the inbox).
	DeliveryAtLeastOnce = "at-least-once"
	// DeliveryExactlyOnce: the connector takes part in Kafka Connect's
	// exactly-once source support (KIP-618, Kafka 3.3+): records and the
	// source offsets are written in one Kafka transaction per poll
	// (exactly.once.support=required, transaction.boundary=poll). It needs
	// distributed workers with exactly.once.source.support=enabled, and
	// consumers reading with isolation.level=read_committed.
	DeliveryExactlyOnce = "exactly-once"
)

// TopicsSpec are the replication settings of the topics provisioned for an
// outbox (routed, heartbeat, schema history and dead-letter topics).
type TopicsSpec struct {
	Node `yaml:"-"`
	// ReplicationFactor of the outbox's topics (0: the broker's
	// default.replication.factor). Production clusters use 3.
	ReplicationFactor int `yaml:"replicationFactor" json:"replicationFactor,omitempty"`
	// MinInsyncReplicas is the topics' min.insync.replicas (0: the broker
	// default). With acks=all (Connect's and the relay's producers), 2 of
	// 3 replicas must have a record before it counts as written.
	MinInsyncReplicas int `yaml:"minInsyncReplicas" json:"minInsyncReplicas,omitempty"`
}

// ExactlyOnce reports whether the outbox asks for exactly-once delivery.
func (o *Outbox) ExactlyOnce() bool { return o.Delivery == DeliveryExactlyOnce }

// TopicReplication returns the outbox's topic replication factor and
// min.insync.replicas (0: the broker default).
func (o *Outbox) TopicReplication() (rf, minISR int) {
	if o.Topics == nil {
		return 0, 0
	}
	return o.Topics.ReplicationFactor, o.Topics.MinInsyncReplicas
}

// Kafka's bound on replication factors (an int16).
const maxReplicationFactor = 32767

// checkDelivery checks delivery and topics of o.
func checkDelivery(o *Outbox, errs *ErrorList) {
	if !oneOf(o.Delivery, DeliveryAtLeastOnce, DeliveryExactlyOnce) {
		errs.add(o.PosOf("delivery"), fmt.Sprintf("delivery %q: want %s or %s", o.Delivery, DeliveryAtLeastOnce, DeliveryExactlyOnce))
	}
	if o.ExactlyOnce() && o.RelayPublished() {
		errs.add(o.PosOf("delivery"), fmt.Sprintf("outbox %q: delivery %s is a Kafka Connect setting; the polling relay publishes at least once (remove relay or delivery)", o.Name, DeliveryExactlyOnce))
	}
	t := o.Topics
	if t == nil {
		return
	}
	if t.ReplicationFactor < 0 || t.ReplicationFactor > maxReplicationFactor {
		errs.add(t.PosOf("replicationFactor"), fmt.Sprintf("topics.replicationFactor %d: want 1..%d, or leave it out for the broker default", t.ReplicationFactor, maxReplicationFactor))
	}
	if t.MinInsyncReplicas < 0 {
		errs.add(t.PosOf("minInsyncReplicas"), fmt.Sprintf("topics.minInsyncReplicas %d: want at least 1, or leave it out for the broker default", t.MinInsyncReplicas))
	} else if t.ReplicationFactor > 0 && t.MinInsyncReplicas > t.ReplicationFactor {
		errs.add(t.PosOf("minInsyncReplicas"), fmt.Sprintf("topics.minInsyncReplicas %d exceeds topics.replicationFactor %d: every acks=all write would fail with NOT_ENOUGH_REPLICAS", t.MinInsyncReplicas, t.ReplicationFactor))
	}
}
