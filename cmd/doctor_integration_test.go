//go:build integration

package cmd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// TestCLIDoctorThresholds runs `outboxctl doctor -o json` on the real stack
// against an outbox with a 2-day-old row, a replication slot holding WAL and
// a consumer group 4 records behind: each is an info finding below its
// threshold, and an error past it with exit 3.
func TestCLIDoctorThresholds(t *testing.T) {
	s := itest.Require(t, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_doctor_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	vars := map[string]string{"IT_PG_PASSWORD": "unused", "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: doctor-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, password: "${env:IT_PG_PASSWORD}", dbname: %[5]s}
    payloadFormat: json
    columns: {timestamp: created_at}
`, s.BootstrapServers, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(spec.Source{Name: specFile, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	targets, err := provisioning.Targets(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	if _, err := db.ExecContext(ctx, `INSERT INTO public.outbox (id, aggregatetype, aggregateid, type, payload, created_at, schemaversion)
		VALUES ($1, 'order', '1', 'OrderPlaced', '{}', (now() AT TIME ZONE 'UTC') - interval '2 days', 1)`, itest.UUID(t)); err != nil {
		t.Fatal(err)
	}
	slot := targets[0].Config("slot.name")
	if _, err := db.ExecContext(ctx, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE filler AS SELECT g FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}

	// A group that committed offset 1 of 5 records.
	topic := "outbox.doctor." + sfx
	group := "doctor-group-" + sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() {
		itest.DeleteTopics(t, s.BootstrapServers, topic)
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
	})
	produce(t, s.BootstrapServers, topic, 5)
	commitOffset(t, s.BootstrapServers, group, topic, 1)

	type report struct {
		Findings []provisioning.Finding      `json:"findings"`
		Failed   bool                        `json:"failed"`
		Lag      []provisioning.PartitionLag `json:"consumerLag"`
	}
	doctor := func(want int, extra ...string) report {
		t.Helper()
		args := append([]string{"doctor", "-f", specFile, "--no-connect", "-o", "json", "--group", group}, extra...)
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		var r report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("doctor -o json: %v\n%s", err, out)
		}
		return r
	}
	find := func(r report, id string, sev provisioning.Severity) *provisioning.Finding {
		for i, f := range r.Findings {
			if f.Rule == id && f.Severity == sev {
				return &r.Findings[i]
			}
		}
		return nil
	}

	// Below the thresholds (the age one off): measured, info only.
	r := doctor(0, "--max-oldest-row-age", "0", "--max-retained-wal", "100GiB", "--max-consumer-lag", "100")
	if f := find(r, provisioning.IDOutboxTable, provisioning.SeverityInfo); f == nil || !strings.Contains(f.Message, "oldest row 48h0m") {
		t.Errorf("no OUTBOX_TABLE info with the row's age: %+v", r.Findings)
	}
	if f := find(r, provisioning.IDConsumerLag, provisioning.SeverityInfo); f == nil || !strings.Contains(f.Message, "4 records") {
		t.Errorf("no CONSUMER_LAG info of 4 records: %+v", r.Findings)
	}
	if len(r.Lag) != 1 || r.Lag[0].Committed != 1 || r.Lag[0].End != 5 || r.Lag[0].Lag != 4 {
		t.Errorf("consumerLag: %+v", r.Lag)
	}
	for _, f := range r.Findings {
		if f.Severity == provisioning.SeverityError {
			t.Errorf("error below the thresholds: %v", f)
		}
	}

	// Past each threshold: an error, exit 3.
	r = doctor(3, "--max-retained-wal", "1KiB", "--max-consumer-lag", "3")
	if !r.Failed {
		t.Error("report not failed")
	}
	for _, id := range []string{provisioning.IDOutboxOldestRow, provisioning.IDPGSlotRetainedWAL, provisioning.IDConsumerLag} {
		if f := find(r, id, provisioning.SeverityError); f == nil {
			t.Errorf("no %s error: %+v", id, r.Findings)
		} else {
			t.Logf("%s", f)
		}
	}
}

func produce(t *testing.T, bootstrap, topic string, n int) {
	t.Helper()
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	acks := make(chan kafka.Event, n)
	for i := range n {
		if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Key: []byte("k"), Value: []byte(fmt.Sprint(i))}, acks); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		select {
		case ev := <-acks:
			if m, ok := ev.(*kafka.Message); !ok || m.TopicPartition.Error != nil {
				t.Fatalf("produce to %s: %v", topic, ev)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("produce to %s: no ack in 30s", topic)
		}
	}
}

func commitOffset(t *testing.T, bootstrap, group, topic string, offset int64) {
	t.Helper()
	a, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := a.AlterConsumerGroupOffsets(ctx, []kafka.ConsumerGroupTopicPartitions{{Group: group,
		Partitions: []kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: kafka.Offset(offset)}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.ConsumerGroupsTopicPartitions {
		for _, tp := range g.Partitions {
			if tp.Error != nil {
				t.Fatal(tp.Error)
			}
		}
	}
}

// TestCLIDoctorOldestRowMariaDB: on MariaDB, without a timestamp column,
// the oldest row's age comes from its UUIDv7 id.
func TestCLIDoctorOldestRowMariaDB(t *testing.T) {
	s := itest.Require(t, itest.MariaDB)
	sfx := itest.Suffix()
	dbName := "outbox_doctor_ma_" + sfx
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: doctor-ma-%[1]s
    database:
      kind: mariadb
      connection: {host: %[2]q, port: %[3]s, user: root, dbname: %[4]s}
    payloadFormat: json
`, sfx, s.ConnectMariaDBHost, s.ConnectMariaDBPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(spec.Source{Name: specFile, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	h := fmt.Sprintf("%012x", time.Now().Add(-50*time.Hour).UnixMilli())
	old := h[:8] + "-" + h[8:] + "-7000-8000-000000000001"
	if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES (?, 'order', '1', 'OrderPlaced', '{}', 1)`, old); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, vars, "doctor", "-f", specFile, "--no-connect", "--no-topics", "-o", "json")
	if code != 3 || !strings.Contains(out, `"OUTBOX_OLDEST_ROW"`) || !strings.Contains(out, "oldest row is 50h0m") {
		t.Errorf("doctor: exit %d\n%s\n%s", code, out, errOut)
	}
}
