package exporter_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/provisioning"
)

// fakeAdmin answers committed offsets per group (topic → partition →
// offset) and end offsets per partition.
type fakeAdmin struct {
	committed map[string]map[string]map[int32]int64
	end       map[string]map[int32]int64
}

func (f fakeAdmin) CommittedOffsets(_ context.Context, group string) ([]provisioning.PartitionOffset, error) {
	var out []provisioning.PartitionOffset
	for topic, parts := range f.committed[group] {
		for p, off := range parts {
			out = append(out, provisioning.PartitionOffset{TopicPartition: provisioning.TopicPartition{Topic: topic, Partition: p}, Offset: off})
		}
	}
	return out, nil
}

func (f fakeAdmin) EndOffsets(_ context.Context, parts []provisioning.TopicPartition) ([]provisioning.PartitionOffset, error) {
	var out []provisioning.PartitionOffset
	for _, tp := range parts {
		out = append(out, provisioning.PartitionOffset{TopicPartition: tp, Offset: f.end[tp.Topic][tp.Partition]})
	}
	return out, nil
}

// fakeRecords gives each offset of a partition the time base + offset minutes.
type fakeRecords struct {
	base  time.Time
	reads int
}

func (f *fakeRecords) RecordTime(_ context.Context, _ string, _ int32, offset int64) (time.Time, error) {
	f.reads++
	return f.base.Add(time.Duration(offset) * time.Minute), nil
}

// TestConsumerLagSeconds: with a fake clock, the lag in seconds is now
// minus the time of the record at the committed offset, 0 on a caught-up
// partition (no record read), the maxima per group carry the group's
// outbox; a declared group without offsets has NaN maxima from the first
// scrape and its target is down with reason missing, the other target up.
func TestConsumerLagSeconds(t *testing.T) {
	base := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	admin := fakeAdmin{
		committed: map[string]map[string]map[int32]int64{"billing": {"orders": {0: 3, 1: 9}}},
		end:       map[string]map[int32]int64{"orders": {0: 7, 1: 9}},
	}
	recs := &fakeRecords{base: base}
	now := base.Add(10 * time.Minute) // offset 3 was written at base+3m: 7 minutes late
	c := newCollector(t, exporter.Config{Kafka: admin, Records: recs, Groups: []string{"billing", "biling"},
		GroupOutbox: map[string]string{"billing": "orders", "biling": "orders-typo"}, Now: func() time.Time { return now }})
	got, _ := scrape(t, c)
	for k, want := range map[string]float64{
		"outbox_consumer_group_lag{group=billing,outbox=orders,partition=0,topic=orders}":         4,
		"outbox_consumer_group_lag{group=billing,outbox=orders,partition=1,topic=orders}":         0,
		"outbox_consumer_group_lag_seconds{group=billing,outbox=orders,partition=0,topic=orders}": 420,
		"outbox_consumer_group_lag_seconds{group=billing,outbox=orders,partition=1,topic=orders}": 0,
		"outbox_consumer_group_max_lag{group=billing,outbox=orders}":                              4,
		"outbox_consumer_group_max_lag_seconds{group=billing,outbox=orders}":                      420,
		"outbox_up{outbox=orders,target=kafka}":                                                   1,
		"outbox_up{outbox=orders-typo,target=kafka}":                                              0,
		"outbox_target_error{outbox=orders-typo,reason=missing,target=kafka}":                     1,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	for _, k := range []string{"outbox_consumer_group_max_lag{group=biling,outbox=orders-typo}", "outbox_consumer_group_max_lag_seconds{group=biling,outbox=orders-typo}"} {
		if v, ok := got[k]; !ok || !math.IsNaN(v) {
			t.Errorf("%s = %v (present %v), want NaN", k, v, ok)
		}
	}
	if recs.reads != 1 {
		t.Errorf("%d records read, want 1 (only the partition behind)", recs.reads)
	}
}
