package exporter

import (
	"context"
	"time"
)

// RecordTimes reads the timestamp of the record at an offset of a
// partition: the exporter's consumer lag in seconds is now minus the
// timestamp of the record at the group's committed offset, the oldest
// record the group has not consumed (kafka-lag-exporter's
// kafka_consumergroup_group_lag_seconds). exporterkafka.NewRecordTimes
// reads them with a Kafka consumer.
type RecordTimes interface {
	RecordTime(ctx context.Context, topic string, partition int32, offset int64) (time.Time, error)
}
