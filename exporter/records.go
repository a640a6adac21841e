package exporter

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// RecordTimes reads the timestamp of the record at an offset of a
// partition: the exporter's consumer lag in seconds is now minus the
// timestamp of the record at the group's committed offset, the oldest
// record the group has not consumed (kafka-lag-exporter's
// kafka_consumergroup_group_lag_seconds).
type RecordTimes interface {
	RecordTime(ctx context.Context, topic string, partition int32, offset int64) (time.Time, error)
}

// KafkaRecordTimes is RecordTimes with a Kafka consumer that it assigns to
// the partition at the offset and polls for one record; it never joins
// its group or commits. It is safe for concurrent use (one read at a time).
type KafkaRecordTimes struct {
	mu sync.Mutex
	c  *kafka.Consumer
}

// NewKafkaRecordTimes returns RecordTimes reading with c, a consumer
// created with enable.auto.commit=false, auto.offset.reset=earliest (a
// committed offset whose record retention removed reads the oldest record
// left) and enable.partition.eof=true (only transaction markers past the
// offset: no record, the zero time). The caller closes c.
func NewKafkaRecordTimes(c *kafka.Consumer) *KafkaRecordTimes { return &KafkaRecordTimes{c: c} }

// RecordTime returns the timestamp of the first record at or after offset
// (a transaction marker at offset is skipped), waiting until ctx ends; the
// zero time when the partition ends before a record (only markers).
func (k *KafkaRecordTimes) RecordTime(ctx context.Context, topic string, partition int32, offset int64) (time.Time, error) {
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
