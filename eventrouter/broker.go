package eventrouter

import (
	"fmt"
	"time"
)

// DefaultTimestampAfterMax is the Kafka 4 broker default of
// log.message.timestamp.after.max.ms (message.timestamp.after.max.ms per
// topic): the broker rejects a record whose CreateTime is further ahead
// of its clock (INVALID_TIMESTAMP). Brokers before 4.0 have no such bound
// by default.
const DefaultTimestampAfterMax = time.Hour

// CheckTimestamp is what a broker whose clock reads now, with
// log.message.timestamp.after.max.ms = afterMax, does with the record of
// res (Route has no clock, so it does not check this). A record timestamp
// more than afterMax ahead is rejected, and Kafka Connect's producer
// callback then fails the task: a *TaskError of StageProducer (its message
// names the broker's InvalidTimestampException; the broker's own wording
// is not emulated). With errors.tolerance=all Connect skips the record
// instead: the result is Dropped. Otherwise res is returned as it is.
//
// The broker rejects the whole produce batch of the partition, so the
// records batched with this one fail (or are skipped) with it.
func CheckTimestamp(cfg Config, res Result, now time.Time, afterMax time.Duration) (Result, error) {
	r := res.Record
	if r == nil || r.Timestamp == nil || afterMax <= 0 {
		return res, nil
	}
	ahead := time.UnixMilli(*r.Timestamp).Sub(now)
	if ahead <= afterMax {
		return res, nil
	}
	cause := fmt.Sprintf("org.apache.kafka.common.errors.InvalidTimestampException: the record timestamp %d is %s ahead of the broker's clock, beyond log.message.timestamp.after.max.ms = %d (the records batched with it are rejected too)",
		*r.Timestamp, ahead.Round(time.Second), afterMax.Milliseconds())
	if cfg.ErrorsTolerance == "all" {
		return Result{Dropped: true, Reason: "skipped by errors.tolerance=all: the broker rejects the record: " + cause, Logs: res.Logs}, nil
	}
	return res, &TaskError{Stage: StageProducer, Exception: excConnect, Message: "Unrecoverable exception from producer send callback: " + cause}
}
