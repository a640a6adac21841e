//go:build integration

package exporter_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/exporter/exporterkafka"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/provisioning/kafkaadmin"
)

// TestExporterConsumerLagSeconds runs the exporter against a real Kafka
// with a fake clock: a group committed before a record written 5 minutes
// before now is 300 s late on that partition and 0 on the partition it
// has caught up on; the lag in seconds grows with the clock while the
// group does not consume (no new record needed). Its series carry the
// outbox of the group. A declared group that does not exist has its
// series from the first scrape, NaN, and its Kafka target is down with
// reason missing while the other group's target is up. A group whose
// committed offset is a transaction's commit marker is 1 record and 0 s
// behind (nothing to consume), within the scrape's bound.
func TestExporterConsumerLagSeconds(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := strings.ToLower(itest.Suffix())
	topic, group, typo := "explags."+sfx, "explags-"+sfx, "explags-typo-"+sfx
	ob := "exp" + sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, 2)
	t.Cleanup(func() {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
		itest.DeleteTopics(t, s.BootstrapServers, topic)
	})
	now := time.Now().Truncate(time.Second)
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dr := make(chan kafka.Event, 8)
	recs := []struct {
		part int32
		age  time.Duration
	}{{0, 10 * time.Minute}, {0, 5 * time.Minute}, {0, time.Minute}, {1, 3 * time.Minute}, {1, 2 * time.Minute}}
	for _, r := range recs {
		m := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: r.part}, Value: []byte("v"), Timestamp: now.Add(-r.age)}
		if err := p.Produce(m, dr); err != nil {
			t.Fatal(err)
		}
	}
	for i := range recs {
		select {
		case ev := <-dr:
			if m, ok := ev.(*kafka.Message); !ok || m.TopicPartition.Error != nil {
				t.Fatalf("delivery: %v", ev)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of %d records delivered in 30s", i, len(recs))
		}
	}
	// Partition 0 committed at 1 (the record of 5 minutes ago is next),
	// partition 1 at its end (caught up).
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": group})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cons.CommitOffsets([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: 1}, {Topic: &topic, Partition: 1, Offset: 2}}); err != nil {
		t.Fatal(err)
	}
	cons.Close()

	// A transactional topic whose group committed up to the commit
	// marker: lag 1 in records (the marker), nothing left to consume, 0 s.
	txTopic, txGroup := "explags-tx."+sfx, "explags-tx-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, txTopic)
	t.Cleanup(func() {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, txGroup)
		itest.DeleteTopics(t, s.BootstrapServers, txTopic)
	})
	tp, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "transactional.id": "explags-" + sfx})
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	txCtx, txCancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer txCancel()
	if err := tp.InitTransactions(txCtx); err != nil {
		t.Fatal(err)
	}
	if err := tp.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tp.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &txTopic, Partition: 0}, Value: []byte("v"), Timestamp: now.Add(-time.Hour)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tp.CommitTransaction(txCtx); err != nil {
		t.Fatal(err)
	}
	txCons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": txGroup})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := txCons.CommitOffsets([]kafka.TopicPartition{{Topic: &txTopic, Partition: 0, Offset: 1}}); err != nil {
		t.Fatal(err)
	}
	txCons.Close()

	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	reader, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": "explags-exporter-" + sfx,
		"enable.auto.commit": false, "auto.offset.reset": "earliest", "enable.partition.eof": true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	clock := now
	c := newCollector(t, exporter.Config{Kafka: kafkaadmin.New(admin), Groups: []string{group, typo, txGroup}, GroupOutbox: map[string]string{group: ob, txGroup: ob},
		Records: exporterkafka.NewRecordTimes(reader), Timeout: 20 * time.Second, Now: func() time.Time { return clock }})
	for _, step := range []struct {
		after time.Duration
		p0    float64
	}{{0, 300}, {10 * time.Minute, 900}} {
		clock = now.Add(step.after)
		got, _ := scrape(t, c)
		for k, want := range map[string]float64{
			"outbox_consumer_group_lag{group=" + group + ",outbox=" + ob + ",partition=0,topic=" + topic + "}":             2,
			"outbox_consumer_group_lag{group=" + group + ",outbox=" + ob + ",partition=1,topic=" + topic + "}":             0,
			"outbox_consumer_group_lag_seconds{group=" + group + ",outbox=" + ob + ",partition=0,topic=" + topic + "}":     step.p0,
			"outbox_consumer_group_lag_seconds{group=" + group + ",outbox=" + ob + ",partition=1,topic=" + topic + "}":     0,
			"outbox_consumer_group_max_lag{group=" + group + ",outbox=" + ob + "}":                                         2,
			"outbox_consumer_group_max_lag_seconds{group=" + group + ",outbox=" + ob + "}":                                 step.p0,
			"outbox_up{outbox=" + ob + ",target=kafka}":                                                                    1,
			"outbox_consumer_group_lag{group=" + txGroup + ",outbox=" + ob + ",partition=0,topic=" + txTopic + "}":         1,
			"outbox_consumer_group_lag_seconds{group=" + txGroup + ",outbox=" + ob + ",partition=0,topic=" + txTopic + "}": 0,
			"outbox_up{outbox=,target=kafka}":                                    0,
			"outbox_target_error{outbox=,reason=missing,target=kafka}":           1,
			"outbox_target_error{outbox=" + ob + ",reason=missing,target=kafka}": 0,
		} {
			if v, ok := got[k]; !ok || v != want {
				t.Errorf("after %s: %s = %v (present %v), want %v", step.after, k, v, ok, want)
			}
		}
		for _, k := range []string{"outbox_consumer_group_max_lag{group=" + typo + ",outbox=}", "outbox_consumer_group_max_lag_seconds{group=" + typo + ",outbox=}"} {
			if v, ok := got[k]; !ok || !math.IsNaN(v) {
				t.Errorf("after %s: %s = %v (present %v), want NaN for a group that does not exist", step.after, k, v, ok)
			}
		}
	}
}
