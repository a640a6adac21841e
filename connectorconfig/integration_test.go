//go:build integration

package connectorconfig_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// deployAndWait PUTs the config, waits until the connector and its task are
// RUNNING, and registers the DELETE as cleanup. With tolerateFailure a
// FAILED task ends the wait too, and its trace is returned.
func deployAndWait(t *testing.T, ctx context.Context, connectURL string, c connectorconfig.Connector, tolerateFailure ...bool) (failedTrace string) {
	t.Helper()
	client, err := connect.NewClient(connectURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.PutConfig(ctx, c.Name, c.Config); err != nil {
		t.Fatalf("PUT config: %s", connectorconfig.MaskString(err.Error(), c))
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = client.Delete(ctx, c.Name)
		time.Sleep(2 * time.Second) // let the task release its slot / binlog client
	})
	if len(tolerateFailure) > 0 && tolerateFailure[0] {
		return itest.WaitRunningOrTaskFailed(t, connectURL, c.Name, 120*time.Second)
	}
	itest.WaitRunning(t, connectURL, c.Name, 120*time.Second)
	return ""
}

// routeOne inserts the outbox row id into db in a transaction of its own,
// after warm-up rows (itest.StreamingReader), and returns the record routed
// from it to "outbox.event.<agg>". insert takes the id, aggregate type,
// aggregate id, payload and created values.
func routeOne(t *testing.T, ctx context.Context, bootstrap string, db *sql.DB, insert, agg, id, key string, payload any, created time.Time) *kafka.Message {
	t.Helper()
	topic := "outbox.event." + agg
	r := itest.StreamingReader(t, bootstrap, topic, func(key string) error {
		_, err := db.ExecContext(ctx, insert, itest.UUID(t), agg, key, payload, created)
		return err
	})
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, insert, id, agg, key, payload, created); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return next(t, r, topic)
}

// next reads the next routed record that is not a warm-up marker.
func next(t *testing.T, r *itest.Reader, topic string) *kafka.Message {
	t.Helper()
	m := r.NextEvent(60 * time.Second)
	if m == nil {
		t.Fatalf("no record on %s after 60s", topic)
	}
	return m
}

// checkRecord checks the routed record: key, value bytes, and the id,
// eventType and schemaVersion headers in that order.
func checkRecord(t *testing.T, m *kafka.Message, id, key string, value []byte, eventType, version string, ts time.Time) {
	t.Helper()
	t.Logf("record: topic %s key %q value %q headers %v ts %v", *m.TopicPartition.Topic, m.Key, m.Value, m.Headers, m.Timestamp.UTC())
	if string(m.Key) != key {
		t.Errorf("key = %q, want %q", m.Key, key)
	}
	if !bytes.Equal(m.Value, value) {
		t.Errorf("value = %q, want %q", m.Value, value)
	}
	var names []string
	hv := map[string]string{}
	for _, h := range m.Headers {
		if strings.HasPrefix(h.Key, "__debezium") {
			continue
		}
		names = append(names, h.Key)
		hv[h.Key] = string(h.Value)
	}
	if strings.Join(names, ",") != "id,eventType,schemaVersion" {
		t.Errorf("headers = %v, want id,eventType,schemaVersion", names)
	}
	if !strings.Contains(hv["id"], id) || hv["eventType"] != eventType || hv["schemaVersion"] != version {
		t.Errorf("header values = %v", hv)
	}
	if !m.Timestamp.Equal(ts.Truncate(time.Millisecond)) {
		t.Errorf("timestamp = %v, want %v (the created_at column)", m.Timestamp.UTC(), ts.UTC())
	}
}

func serverValidate(t *testing.T, ctx context.Context, s settings.Settings, sp *spec.Spec, cs []connectorconfig.Connector) {
	t.Helper()
	if fs := connectorconfig.Validate(sp, cs); len(fs) != 0 {
		t.Fatalf("local findings: %+v", fs)
	}
	client, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := connectorconfig.ValidateServer(ctx, client, cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 0 {
		t.Fatalf("Connect's validate endpoint reported: %+v", fs)
	}
}

func TestIntegrationPostgres(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	suffix := itest.Suffix()
	dbName := "outbox_it_" + suffix
	// Dropped at cleanup with the connector's slot and publication.
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)

	sp, err := spec.Parse(spec.Source{Name: "it.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: it-pg-%s
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, dbname: %s}
    schema: outbox_%s
    columns:
      timestamp: created_at
      tracing: tracingspancontext
    connector:
      profile: latency
`, suffix, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, suffix))})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pub := cs[0].Config["publication.name"]
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+o.Schema); err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, o)

	serverValidate(t, ctx, s, sp, cs)
	deployAndWait(t, ctx, s.ConnectURL, cs[0])

	id := "6f1c2a52-8d7e-4f7e-9f55-" + suffix + "0000"
	agg := "ItOrder" + suffix
	payload := []byte{0x00, 0x00, 0x00, 0x00, 0x07, 0x02, 0x41, 0x00, 0xff}
	created := time.Date(2026, 3, 1, 12, 30, 45, 123000000, time.UTC)
	insert := fmt.Sprintf("INSERT INTO %s.%s (id, aggregatetype, aggregateid, type, payload, created_at, schemaversion) VALUES ($1, $2, $3, 'OrderCreated', $4, $5, 2)", o.Schema, o.Table)
	m := routeOne(t, ctx, s.BootstrapServers, db, insert, agg, id, "order-1", payload, created)
	checkRecord(t, m, id, "order-1", payload, "OrderCreated", "2", created)

	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_publication_tables WHERE pubname = $1 AND schemaname = $2 AND tablename = $3", pub, o.Schema, o.Table).Scan(&n); err != nil || n != 1 {
		t.Errorf("publication %s does not hold exactly the outbox table (n=%d, err=%v)", pub, n, err)
	}
}

func TestIntegrationMariaDB(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.MariaDB, itest.Kafka)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	suffix := itest.Suffix()
	dbName := "outbox_it_" + suffix
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)

	sp, err := spec.Parse(spec.Source{Name: "it.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %s
outboxes:
  - name: it-maria-%s
    database:
      kind: mariadb
      connection: {host: %q, port: %s, user: root, dbname: %s}
    payloadFormat: json
    columns:
      timestamp: created_at
    connector:
      profile: throughput
`, s.ConnectBootstrap(), suffix, s.ConnectMariaDBHost, s.ConnectMariaDBPort, dbName))})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	historyTopic := cs[0].Config["schema.history.internal.kafka.topic"]
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, historyTopic) })
	itest.CreateOutboxTable(t, db, o)

	serverValidate(t, ctx, s, sp, cs)
	deployAndWait(t, ctx, s.ConnectURL, cs[0])

	// A JSON payload arrives as the JSON text, not as a JSON string literal.
	agg := "ItPayment" + suffix
	payload := `{"paymentId":"p-1","amountCents":1250}`
	created := time.Date(2026, 3, 1, 12, 30, 45, 123000000, time.UTC)
	insert := fmt.Sprintf("INSERT INTO %s.%s (id, aggregatetype, aggregateid, type, payload, created_at, schemaversion) VALUES (?, ?, ?, 'PaymentCaptured', ?, ?, 1)", o.Schema, o.Table)
	m := routeOne(t, ctx, s.BootstrapServers, db, insert, agg, "evt-"+suffix, "pay-1", payload, created)
	checkRecord(t, m, "evt-"+suffix, "pay-1", []byte(payload), "PaymentCaptured", "1", created)
}

// TestIntegrationPassthroughHeartbeat backs rule
// PASSTHROUGH_CONVERTER_NON_OUTBOX on the real stack: with heartbeats
// on, ByteArrayConverter fails the task, BinaryDataConverter with a JSON
// delegate keeps it RUNNING.
func TestIntegrationPassthroughHeartbeat(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	for _, tc := range []struct {
		name      string
		overrides string
		fails     bool
	}{
		{"bytearray", "\n        value.converter: org.apache.kafka.connect.converters.ByteArrayConverter", true},
		{"binarydata", "", false}, // generate's choice with heartbeats on
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			suffix := itest.Suffix()
			// A scratch database: dropped at cleanup with the slot,
			// the publication and the schema.
			dbName := "outbox_hb_" + suffix
			admin := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
			schema := "hb_" + suffix
			sp, err := spec.Parse(spec.Source{Name: "hb.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: it-hb-%s
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, dbname: %s}
    schema: %s
    connector:
      overrides:
        heartbeat.interval.ms: "500"%s
`, suffix, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, schema, tc.overrides))})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range connectorconfig.Validate(sp, cs) {
				found = found || f.Rule == "PASSTHROUGH_CONVERTER_NON_OUTBOX"
			}
			if found != tc.fails {
				t.Fatalf("rule PASSTHROUGH_CONVERTER_NON_OUTBOX fired = %v, want %v", found, tc.fails)
			}
			t.Cleanup(func() {
				itest.DeleteTopics(t, s.BootstrapServers, "__debezium-heartbeat."+cs[0].Config["topic.prefix"], "outbox.event.HbIt"+suffix)
			})
			if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
				t.Fatal(err)
			}
			itest.CreateOutboxTable(t, admin, &sp.Outboxes[0])
			checkTrace := func(trace string) {
				if !strings.Contains(trace, "Invalid schema type for ByteArrayConverter: STRUCT") {
					t.Errorf("task failed for another reason: %s", trace)
				}
			}
			if trace := deployAndWait(t, ctx, s.ConnectURL, cs[0], tc.fails); trace != "" {
				checkTrace(trace)
				return
			}
			// Heartbeats are sent when the connector sees WAL traffic: make some.
			state := ""
			for i := 0; i < 20; i++ {
				admin.ExecContext(ctx, "SELECT pg_logical_emit_message(false, 'outboxctl-it', 'x')")
				admin.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s.outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES (gen_random_uuid(), 'HbIt%s', 'k', 'T', '\\x00'::bytea, 1)", schema, suffix))
				time.Sleep(time.Second)
				st, ok, err := itest.Status(ctx, s.ConnectURL, cs[0].Name)
				if err != nil || !ok || len(st.Tasks) == 0 {
					continue
				}
				state = st.Tasks[0].State
				if state == "FAILED" {
					if !tc.fails {
						t.Fatalf("task FAILED: %s", st.Tasks[0].Trace)
					}
					checkTrace(st.Tasks[0].Trace)
					return
				}
			}
			if tc.fails {
				t.Fatalf("task state %s after 20s, want FAILED (ByteArrayConverter on a heartbeat)", state)
			}
		})
	}
}

// TestIntegrationHeartbeatMovesSlot backs connector.heartbeat and rule
// SLOT_CAN_STALL on the real stack: while the outbox table is quiet
// and another database writes WAL, the slot of a generated connector
// (heartbeats with the logical-message heartbeat.action.query) confirms
// past that WAL, and the slot of a connector with heartbeats alone does not.
func TestIntegrationHeartbeatMovesSlot(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	suffix := itest.Suffix()
	type side struct {
		name string
		db   *sql.DB
		slot string
	}
	var sides []*side
	for _, tc := range []struct{ name, overrides string }{
		{"query", ""},
		{"alone", "\n      overrides:\n        heartbeat.action.query: \"\""},
	} {
		dbName := "outbox_hb" + tc.name + "_" + suffix
		db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
		sp, err := spec.Parse(spec.Source{Name: "hb.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: it-hb%s-%s
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, dbname: %s}
    payloadFormat: json
    connector:
      heartbeat: 1s%s
`, tc.name, suffix, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, tc.overrides))})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
		if err != nil {
			t.Fatal(err)
		}
		stall := false
		for _, f := range connectorconfig.Validate(sp, cs) {
			stall = stall || f.Rule == "SLOT_CAN_STALL"
		}
		if want := tc.name == "alone"; stall != want {
			t.Fatalf("%s: rule SLOT_CAN_STALL fired = %v, want %v", tc.name, stall, want)
		}
		t.Cleanup(func() {
			itest.DeleteTopics(t, s.BootstrapServers, connectorconfig.HeartbeatTopic(cs[0].Config["topic.prefix"]))
		})
		itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
		deployAndWait(t, ctx, s.ConnectURL, cs[0])
		// Streaming (the slot is active) before the WAL is written.
		insert := "INSERT INTO public.outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, $2, $3, 'T', '{}', 1)"
		agg := "Hb" + tc.name + suffix
		itest.StreamingReader(t, s.BootstrapServers, "outbox.event."+agg, func(key string) error {
			_, err := db.ExecContext(ctx, insert, itest.UUID(t), agg, key)
			return err
		})
		sides = append(sides, &side{tc.name, db, cs[0].Config["slot.name"]})
	}

	// WAL from another database; the outbox tables stay quiet.
	other := itest.PostgresDatabase(t, s.PostgresDSN, "outbox_hbwal_"+suffix)
	if _, err := other.ExecContext(ctx, "CREATE TABLE filler AS SELECT g, repeat('x', 500) AS pad FROM generate_series(1, 20000) g"); err != nil {
		t.Fatal(err)
	}
	var after string
	if err := other.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&after); err != nil {
		t.Fatal(err)
	}
	passed := func(sd *side) bool {
		var ok sql.NullBool
		if err := sd.db.QueryRowContext(ctx, "SELECT confirmed_flush_lsn >= $1::pg_lsn FROM pg_replication_slots WHERE slot_name = $2", after, sd.slot).Scan(&ok); err != nil {
			t.Fatalf("slot %s: %v", sd.slot, err)
		}
		return ok.Valid && ok.Bool
	}
	deadline := time.Now().Add(60 * time.Second)
	for !passed(sides[0]) {
		if time.Now().After(deadline) {
			t.Fatalf("slot %s (heartbeat with the logical-message query) did not confirm past %s within 60s", sides[0].slot, after)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Give the other one the same chance and more.
	time.Sleep(5 * time.Second)
	if passed(sides[1]) {
		t.Errorf("slot %s (heartbeats alone) confirmed past %s: heartbeats alone moved the slot, rule SLOT_CAN_STALL's premise is wrong", sides[1].slot, after)
	}
}
