package relay

import (
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Producer is what the relay needs of a Kafka producer: a
// *kafka.Producer (confluent-kafka-go) has these methods, and is the
// default (see Options.Producer). relaytest.Producer is an in-memory one
// for tests, with per-record delivery errors, Produce errors and fatal
// errors.
type Producer interface {
	// Produce queues m and sends its delivery report (the *kafka.Message,
	// TopicPartition.Error set on failure) to deliveryChan.
	Produce(m *kafka.Message, deliveryChan chan kafka.Event) error
	// Events is the channel of the producer's errors and statistics; the
	// relay drains it from New on.
	Events() chan kafka.Event
	// GetFatalError returns the producer's fatal error (a kafka.Error
	// whose IsFatal is true), or nil.
	GetFatalError() error
	// Flush waits at most timeoutMs for the outstanding deliveries and
	// returns how many are left.
	Flush(timeoutMs int) int
	// Close closes the producer (and Events).
	Close()
}

var _ Producer = (*kafka.Producer)(nil)
