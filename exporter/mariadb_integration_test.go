//go:build integration

package exporter_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/provisioning/kafkaadmin"
	"github.com/outboxctl/outboxctl/spec"
)

// TestExporterMariaDBBinlog runs the exporter against a real MariaDB
// connector: the binlog lag behind the connector's committed offset and
// the retention left appear while it streams, and the lag grows once the
// connector is stopped and rows are still written; the table's row
// estimate and oldest row age are read too.
func TestExporterMariaDBBinlog(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.MariaDB)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "expm_" + sfx
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	connName := "expm-" + sfx
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: expm%s
    database:
      kind: mariadb
      connection: {host: %q, port: %s, user: root, dbname: %s}
    payloadFormat: json
    columns: {timestamp: created_at}
    retention: 72h
    routing:
      topicReplacement: expm.%s.${routedByValue}
    connector: {name: %s, topicPrefix: expm%s, heartbeat: 1s}
`, sfx, s.ConnectMariaDBHost, s.ConnectMariaDBPort, dbName, sfx, connName, sfx)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, db, o)
	topic := "expm." + sfx + ".Order"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		itest.DeleteTopics(t, s.BootstrapServers, topic, cs[0].Config["schema.history.internal.kafka.topic"])
	})
	itest.PutConnector(t, s.ConnectURL, connName, cs[0].Config)
	itest.WaitRunning(t, s.ConnectURL, connName, 90*time.Second)
	client, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, exporter.Config{Connect: client, Timeout: 5 * time.Second,
		Targets: []exporter.Target{{Outbox: o, DB: db, Connector: connName}}})

	w, err := outbox.NewWriter(outbox.TableFor(o))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	write := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if _, err := w.Write(ctx, db, outbox.Event{AggregateType: "Order", AggregateID: strconv.Itoa(i), Type: "OrderCreated", SchemaVersion: 1,
				Payload: []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("y", 1000)))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(20)
	lagKey := "outbox_binlog_lag_bytes{connector=" + connName + ",outbox=" + o.Name + "}"
	leftKey := "outbox_binlog_retention_left_seconds{connector=" + connName + ",outbox=" + o.Name + "}"
	var got map[string]float64
	waitFor(t, "the binlog series (the connector's first committed offset)", 60*time.Second, func() bool {
		got, _ = scrape(t, c)
		_, ok := got[lagKey]
		return ok
	})
	for k, want := range map[string]float64{
		"outbox_up{outbox=" + o.Name + ",target=binlog}":                                1,
		"outbox_up{outbox=" + o.Name + ",target=database}":                              1,
		"outbox_binlog_offset_purged{connector=" + connName + ",outbox=" + o.Name + "}": 0,
		// the spec's retention, not --max-oldest-row-age (provisioning.OldestRowLimit, doctor's threshold)
		"outbox_retention_seconds{outbox=" + o.Name + "}": (72 * time.Hour).Seconds(),
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	if v, ok := got[leftKey]; !ok || v <= 0 {
		t.Errorf("%s = %v (present %v), want > 0 (the stack keeps binlogs 3 days)", leftKey, v, ok)
	}
	if v := got["outbox_table_oldest_row_age_seconds{outbox="+o.Name+",table="+o.QualifiedTable()+"}"]; v <= 0 || v > 600 {
		t.Errorf("oldest row age %v s, want a few seconds", v)
	}
	t.Logf("streaming: binlog lag %v bytes, retention left %v s", got[lagKey], got[leftKey])

	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := client.Stop(stopCtx, connName); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the connector to be STOPPED", 30*time.Second, func() bool {
		got, _ = scrape(t, c)
		return got["outbox_connector_state{connector="+connName+",outbox="+o.Name+",state=STOPPED}"] == 1
	})
	before := got[lagKey]
	write(50) // about 50 kB of binlog the stopped connector does not read
	got, _ = scrape(t, c)
	after := got[lagKey]
	t.Logf("stopped: binlog lag %v -> %v bytes after 50 rows", before, after)
	if after < before+50_000 {
		t.Errorf("binlog lag after 50 rows of 1 kB = %v, want at least %v", after, before+50_000)
	}
}

// TestExporterConsumerLag: the lag of a real consumer group is the end
// offset minus its committed offset, per partition.
func TestExporterConsumerLag(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := strings.ToLower(itest.Suffix())
	topic, group := "explag."+sfx, "explag-"+sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, 2)
	t.Cleanup(func() {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
		itest.DeleteTopics(t, s.BootstrapServers, topic)
	})
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// 12 records on partition 0, 4 on partition 1.
	dr := make(chan kafka.Event, 16)
	for i := 0; i < 16; i++ {
		part := int32(0)
		if i >= 12 {
			part = 1
		}
		if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: part}, Value: []byte("v")}, dr); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 16; i++ {
		select {
		case ev := <-dr:
			if m, ok := ev.(*kafka.Message); !ok || m.TopicPartition.Error != nil {
				t.Fatalf("delivery: %v", ev)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of 16 records delivered in 30s", i)
		}
	}
	// Commit 5 and 1.
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": group})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cons.CommitOffsets([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: 5}, {Topic: &topic, Partition: 1, Offset: 1}}); err != nil {
		t.Fatal(err)
	}
	cons.Close()
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	c := newCollector(t, exporter.Config{Kafka: kafkaadmin.New(admin), Groups: []string{group}, Timeout: 10 * time.Second})
	got, _ := scrape(t, c)
	for k, want := range map[string]float64{
		"outbox_consumer_group_lag{group=" + group + ",outbox=,partition=0,topic=" + topic + "}": 7,
		"outbox_consumer_group_lag{group=" + group + ",outbox=,partition=1,topic=" + topic + "}": 3,
		"outbox_up{outbox=,target=kafka}": 1,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
}
