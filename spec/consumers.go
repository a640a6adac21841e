package spec

import (
	"fmt"
	"regexp"
)

// ConsumerSpec declares a consumer group of the outbox's events and its
// dead-letter topic (consumer.DLQ{Topic: …}): `outboxctl provision`
// creates the topic, so the consumer does not depend on the broker
// auto-creating it (a consumer whose DLQ topic is missing fails at start).
type ConsumerSpec struct {
	Node `yaml:"-"`
	// Group is the consumer group (ConsumerConfig.GroupID).
	Group string `yaml:"group" json:"group"`
	// DLQTopic is the consumer's dead-letter topic.
	DLQTopic string `yaml:"dlqTopic" json:"dlqTopic"`
	// Partitions of the dead-letter topic (0: the broker's
	// num.partitions).
	Partitions int `yaml:"partitions" json:"partitions,omitempty"`
}

// topicName is a legal Kafka topic name.
var topicName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,249}$`)

// checkConsumers checks the consumers block of o: a group and a legal
// dead-letter topic for each, groups unique.
func checkConsumers(o *Outbox, errs *ErrorList) {
	groups := map[string]bool{}
	for i := range o.Consumers {
		c := &o.Consumers[i]
		if c.Group == "" {
			errs.add(c.Pos, fmt.Sprintf("outbox %q: consumers[%d].group is required", o.Name, i))
		} else if groups[c.Group] {
			errs.add(c.PosOf("group"), fmt.Sprintf("outbox %q: consumers[%d].group %q is declared twice", o.Name, i, c.Group))
		}
		groups[c.Group] = true
		switch {
		case c.DLQTopic == "":
			errs.add(c.Pos, fmt.Sprintf("outbox %q: consumers[%d].dlqTopic is required", o.Name, i))
		case !topicName.MatchString(c.DLQTopic) || c.DLQTopic == "." || c.DLQTopic == "..":
			errs.add(c.PosOf("dlqTopic"), fmt.Sprintf("outbox %q: consumers[%d].dlqTopic %q is not a Kafka topic name (letters, digits, '.', '_', '-'; at most 249)", o.Name, i, c.DLQTopic))
		}
		if c.Partitions < 0 {
			errs.add(c.PosOf("partitions"), fmt.Sprintf("outbox %q: consumers[%d].partitions %d: want 0 (broker default) or more", o.Name, i, c.Partitions))
		}
	}
}
