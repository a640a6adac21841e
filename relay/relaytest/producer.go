// Package relaytest has an in-memory relay.Producer for tests of code that
// runs a relay.Relay without a broker: it acknowledges records at once, or
// fails them as the test says (a delivery error per record, a Produce
// error, a fatal error like confluent-kafka-go's Producer.TestFatalError).
package relaytest

import (
	"sync"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Producer is an in-memory relay.Producer. Its zero value is not usable:
// make one with NewProducer. Safe for concurrent use.
type Producer struct {
	// Deliver, if set, gives the delivery error of a record (a
	// kafka.Error, for example kafka.NewError(kafka.ErrMsgSizeTooLarge,
	// "…", false)); nil acknowledges it. Set it before the relay
	// publishes.
	Deliver func(m *kafka.Message) error
	// ProduceErr, if set, gives the error Produce returns for a record
	// (nil: queued); such a record is neither delivered nor recorded.
	ProduceErr func(m *kafka.Message) error

	mu      sync.Mutex
	events  chan kafka.Event
	acked   []*kafka.Message
	failed  []*kafka.Message
	offsets map[partition]kafka.Offset
	fatal   error
	closed  bool
}

type partition struct {
	partition int32
	topic     string
}

// NewProducer returns a Producer that acknowledges every record.
func NewProducer() *Producer {
	return &Producer{events: make(chan kafka.Event, 64), offsets: map[partition]kafka.Offset{}}
}

// Produce delivers m at once (to deliveryChan, else to Events): acknowledged
// with the next offset of its topic and partition (partition 0 unless m
// names one), or failed with Deliver's error. After a fatal error (Fatal)
// every record fails with kafka.ErrFatal, as librdkafka's do.
func (p *Producer) Produce(m *kafka.Message, deliveryChan chan kafka.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return kafka.NewError(kafka.ErrState, "producer closed", false)
	}
	if p.fatal != nil {
		return kafka.NewError(kafka.ErrFatal, "fatal error: "+p.fatal.Error(), false)
	}
	if p.ProduceErr != nil {
		if err := p.ProduceErr(m); err != nil {
			return err
		}
	}
	d := *m
	if d.TopicPartition.Partition == kafka.PartitionAny {
		d.TopicPartition.Partition = 0
	}
	if p.Deliver != nil {
		d.TopicPartition.Error = p.Deliver(m)
	}
	if d.TopicPartition.Error == nil {
		key := partition{d.TopicPartition.Partition, ""}
		if d.TopicPartition.Topic != nil {
			key.topic = *d.TopicPartition.Topic
		}
		d.TopicPartition.Offset = p.offsets[key]
		p.offsets[key]++
		p.acked = append(p.acked, &d)
	} else {
		p.failed = append(p.failed, &d)
	}
	if deliveryChan == nil {
		deliveryChan = p.events
	}
	deliveryChan <- &d
	return nil
}

// Fatal raises a fatal error, as confluent-kafka-go's
// Producer.TestFatalError does: Events gets a kafka.Error whose IsFatal is
// true, GetFatalError returns it, and Produce fails from then on.
func (p *Producer) Fatal(code kafka.ErrorCode, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fatal != nil || p.closed {
		return
	}
	e := kafka.NewError(code, msg, true)
	p.fatal = e
	select {
	case p.events <- e:
	default:
	}
}

// Events is the channel of the producer's errors.
func (p *Producer) Events() chan kafka.Event { return p.events }

// GetFatalError returns the error Fatal raised, or nil.
func (p *Producer) GetFatalError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fatal
}

// Flush returns 0: every record is delivered in Produce.
func (p *Producer) Flush(int) int { return 0 }

// Close closes Events; Produce fails from then on.
func (p *Producer) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.events)
	}
}

// Acked returns the acknowledged records, in produce order.
func (p *Producer) Acked() []*kafka.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*kafka.Message(nil), p.acked...)
}

// Failed returns the records whose delivery failed, in produce order.
func (p *Producer) Failed() []*kafka.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*kafka.Message(nil), p.failed...)
}
