// Package exporterkafka holds the parts of the exporter that need
// confluent-kafka-go (and so cgo): RecordTimes, reading record timestamps
// with a Kafka consumer, and Probe, verify's canary as an exporter.Probe.
// Package exporter itself builds with CGO_ENABLED=0.
package exporterkafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/verify"
)

var _ exporter.RecordTimes = (*RecordTimes)(nil)

// Probe is verify's canary (verify.Run with opts) as the exporter's probe
// of opts.Outbox: a failed stage (verify.ErrFailed) is
// exporter.ErrCanaryFailed, an interrupted run (verify.ErrInterrupted)
// exporter.ErrCanaryInterrupted.
func Probe(opts verify.Options) exporter.Probe {
	p := exporter.Probe{Run: func(ctx context.Context) ([]exporter.CanaryStage, bool, error) {
		rep, err := verify.Run(ctx, opts)
		stages := make([]exporter.CanaryStage, len(rep.Stages))
		for i, s := range rep.Stages {
			stages[i] = exporter.CanaryStage{Stage: s.Stage, Status: s.Status, LatencyMs: s.LatencyMs}
		}
		switch {
		case errors.Is(err, verify.ErrInterrupted):
			err = fmt.Errorf("%w: %w", exporter.ErrCanaryInterrupted, err)
		case errors.Is(err, verify.ErrFailed):
			err = fmt.Errorf("%w: %w", exporter.ErrCanaryFailed, err)
		}
		return stages, rep.OK, err
	}}
	if opts.Outbox != nil {
		p.Outbox = opts.Outbox.Name
	}
	return p
}

// RecordTimes is exporter.RecordTimes with a Kafka consumer that it assigns to
// the partition at the offset and polls for one record; it never joins
// its group or commits. It is safe for concurrent use (one read at a time).
type RecordTimes struct {
	mu sync.Mutex
	c  *kafka.Consumer
}

// NewRecordTimes returns RecordTimes reading with c, a consumer
// created with enable.auto.commit=false, auto.offset.reset=earliest (a
// committed offset whose record retention removed reads the oldest record
// left) and enable.partition.eof=true (only transaction markers past the
// offset: no record, the zero time). The caller closes c.
func NewRecordTimes(c *kafka.Consumer) *RecordTimes { return &RecordTimes{c: c} }

// RecordTime returns the timestamp of the first record at or after offset
// (a transaction marker at offset is skipped), waiting until ctx ends; the
// zero time when the partition ends before a record (only markers).
func (k *RecordTimes) RecordTime(ctx context.Context, topic string, partition int32, offset int64) (time.Time, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.c.Assign([]kafka.TopicPartition{{Topic: &topic, Partition: partition, Offset: kafka.Offset(offset)}}); err != nil {
		return time.Time{}, fmt.Errorf("read %s[%d]@%d: %w", topic, partition, offset, err)
	}
	defer func() { _ = k.c.Unassign() }()
	for {
		if err := ctx.Err(); err != nil {
			return time.Time{}, fmt.Errorf("read %s[%d]@%d: %w", topic, partition, offset, err)
		}
		switch e := k.c.Poll(100).(type) {
		case *kafka.Message:
			tp := e.TopicPartition
			if tp.Error != nil {
				return time.Time{}, fmt.Errorf("read %s[%d]@%d: %w", topic, partition, offset, tp.Error)
			}
			if tp.Topic == nil || *tp.Topic != topic || tp.Partition != partition || int64(tp.Offset) < offset {
				continue // left over from an earlier assignment
			}
			if e.TimestampType == kafka.TimestampNotAvailable {
				return time.Time{}, fmt.Errorf("read %s[%d]@%d: the record has no timestamp", topic, partition, offset)
			}
			return e.Timestamp, nil
		case kafka.PartitionEOF:
			if e.Topic != nil && *e.Topic == topic && e.Partition == partition && int64(e.Offset) >= offset {
				return time.Time{}, nil
			}
		case kafka.Error:
			if e.IsFatal() || e.Code() == kafka.ErrAllBrokersDown || e.Code() == kafka.ErrUnknownTopicOrPart || e.Code() == kafka.ErrTopicAuthorizationFailed {
				return time.Time{}, fmt.Errorf("read %s[%d]@%d: %w", topic, partition, offset, e)
			}
		}
	}
}
