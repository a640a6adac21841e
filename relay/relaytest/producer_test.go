package relaytest_test

import (
	"errors"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/relay/relaytest"
)

var _ relay.Producer = (*relaytest.Producer)(nil)

func msg(topic, v string) *kafka.Message {
	return &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte(v)}
}

func TestProducer(t *testing.T) {
	p := relaytest.NewProducer()
	p.Deliver = func(m *kafka.Message) error {
		if string(m.Value) == "bad" {
			return kafka.NewError(kafka.ErrMsgSizeTooLarge, "too large", false)
		}
		return nil
	}
	ch := make(chan kafka.Event, 8)
	for _, m := range []*kafka.Message{msg("a", "1"), msg("b", "2"), msg("a", "bad"), msg("a", "3")} {
		if err := p.Produce(m, ch); err != nil {
			t.Fatal(err)
		}
	}
	var offsets []kafka.Offset
	for i := 0; i < 4; i++ {
		m := (<-ch).(*kafka.Message)
		offsets = append(offsets, m.TopicPartition.Offset)
		if (m.TopicPartition.Error != nil) != (string(m.Value) == "bad") {
			t.Errorf("%s: delivery error %v", m.Value, m.TopicPartition.Error)
		}
	}
	if offsets[0] != 0 || offsets[1] != 0 || offsets[3] != 1 {
		t.Errorf("offsets %v, want 0 and 1 on a, 0 on b", offsets)
	}
	if len(p.Acked()) != 3 || len(p.Failed()) != 1 {
		t.Errorf("acked %d, failed %d", len(p.Acked()), len(p.Failed()))
	}

	p.Fatal(kafka.ErrOutOfOrderSequenceNumber, "injected")
	if e, ok := (<-p.Events()).(kafka.Error); !ok || !e.IsFatal() {
		t.Errorf("event %v, want a fatal kafka.Error", e)
	}
	var ke kafka.Error
	if err := p.Produce(msg("a", "4"), ch); !errors.As(err, &ke) || ke.Code() != kafka.ErrFatal {
		t.Errorf("Produce after the fatal error: %v, want ErrFatal", err)
	}
	if p.GetFatalError() == nil {
		t.Error("GetFatalError: nil")
	}
	p.Close()
	if _, open := <-p.Events(); open {
		t.Error("Events open after Close")
	}
}
