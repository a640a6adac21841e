//go:build integration

package provisioning_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/spec"
)

// provisionCase is one database of the end-to-end provisioning test.
type provisionCase struct {
	kind, format string
	services     []itest.Service
	// open creates the fresh database (dropped on cleanup) and returns an
	// admin connection to it, the host and port Connect reaches it on.
	open func(t *testing.T, s settings.Settings, name string) (*sql.DB, string, string)
	// dropUser removes the cluster-wide user(s) provisioning created.
	dropUser func(t *testing.T, s settings.Settings, user, pub string)
}

var provisionCases = []provisionCase{
	{
		kind: spec.Postgres, format: spec.FormatAvro,
		services: []itest.Service{itest.Kafka, itest.Connect, itest.Postgres},
		open: func(t *testing.T, s settings.Settings, name string) (*sql.DB, string, string) {
			return itest.PostgresDatabase(t, s.PostgresDSN, name), s.ConnectPostgresHost, s.ConnectPostgresPort
		},
		dropUser: func(t *testing.T, s settings.Settings, user, pub string) {
			admin, err := sql.Open("pgx", s.PostgresDSN)
			if err != nil {
				t.Errorf("drop role: %v", err)
				return
			}
			defer admin.Close()
			for _, r := range []string{user, provisioning.OwnerGroup(pub)} {
				if _, err := admin.Exec(`DROP ROLE IF EXISTS "` + r + `"`); err != nil {
					t.Errorf("drop role %s: %v", r, err)
				}
			}
		},
	},
	{
		kind: spec.MariaDB, format: spec.FormatJSON,
		services: []itest.Service{itest.Kafka, itest.Connect, itest.MariaDB},
		open: func(t *testing.T, s settings.Settings, name string) (*sql.DB, string, string) {
			return itest.MariaDBDatabase(t, s.MariaDBDSN, name), s.ConnectMariaDBHost, s.ConnectMariaDBPort
		},
		dropUser: func(t *testing.T, s settings.Settings, user, _ string) {
			admin, err := sql.Open("mysql", s.MariaDBDSN)
			if err != nil {
				t.Errorf("drop user: %v", err)
				return
			}
			defer admin.Close()
			if _, err := admin.Exec(`DROP USER IF EXISTS '` + user + `'@'%'`); err != nil {
				t.Errorf("drop user %s: %v", user, err)
			}
		},
	},
}

// TestProvisionAndPublish is the end-to-end test of provisioning and the
// writer: a fresh database is provisioned from a spec (table, publication,
// least-privileged replication user), the connector generated for that
// spec is deployed as that user, and events written with outbox.Writer in
// transactions arrive routed, byte for byte; a rolled-back event never does.
func TestProvisionAndPublish(t *testing.T) {
	for _, tc := range provisionCases {
		t.Run(tc.kind, func(t *testing.T) {
			s := itest.Require(t, tc.services...)
			sfx := itest.Suffix()
			name := "prov_" + tc.kind[:2] + "_" + sfx
			user := "dbz_" + sfx
			password := "pw-" + sfx + "-'q"
			aggregate := "Order" + sfx
			connName := "prov-" + tc.kind + "-" + sfx
			pub := connectorconfig.PGIdentifier(connName, "_pub")
			t.Cleanup(func() { tc.dropUser(t, s, user, pub) }) // runs after the database is dropped
			db, host, port := tc.open(t, s, name)

			doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: prov%[1]s
    database:
      kind: %[2]s
      connection: {host: %[3]s, port: %[4]s, user: %[5]s, password: "${env:PROV_PASSWORD}", dbname: %[6]s}
    payloadFormat: %[7]s
    columns: {timestamp: created_at, tracing: tracingspancontext}
    events:
      - name: OrderCreated
        aggregate: %[8]s
        versions: [{major: 1, schema: OrderCreated.v1.avsc}]
    connector: {name: %[9]s}
`, sfx, tc.kind, host, port, user, name, tc.format, aggregate, connName)
			sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
			if err != nil {
				t.Fatal(err)
			}
			lookup := &spec.Lookup{Env: func(k string) (string, bool) {
				if k == "PROV_PASSWORD" {
					return password, true
				}
				return "", false
			}}
			targets, err := provisioning.Targets(sp, connectorconfig.Options{Lookup: lookup, BootstrapServers: s.BootstrapServers})
			if err != nil {
				t.Fatal(err)
			}
			tg := targets[0]
			opts := provisioning.Options{Lookup: lookup}
			ctx := context.Background()

			steps, findings, err := provisioning.Plan(ctx, db, tg, false, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range steps {
				t.Logf("step %s: %s", st.ID, st.Display)
				if strings.Contains(st.Display, password) {
					t.Errorf("step %s shows the password", st.ID)
				}
			}
			if provisioning.Failed(findings) {
				t.Fatalf("preflight of a fresh database fails: %v", findings)
			}
			if err := provisioning.Apply(ctx, db, steps); err != nil {
				t.Fatal(err)
			}
			// Idempotent: a second plan has nothing left to do, and the
			// checks pass.
			steps2, findings2, err := provisioning.Plan(ctx, db, tg, false, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps2) != 0 {
				t.Errorf("plan after apply has %d steps: %+v", len(steps2), steps2)
			}
			if provisioning.Failed(findings2) {
				t.Errorf("findings after apply: %v", findings2)
			}

			topic := "outbox.event." + aggregate
			if h := tg.Config("schema.history.internal.kafka.topic"); h != "" {
				t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, h) })
			}
			if tg.Config("database.user") != user || tg.Config("database.password") != password {
				t.Fatalf("generated connector does not connect as the provisioned user")
			}
			itest.PutConnector(t, s.ConnectURL, connName, tg.Connector.Config)
			itest.WaitRunning(t, s.ConnectURL, connName, 90*time.Second)

			w, err := outbox.NewWriter(outbox.TableFor(tg.Outbox))
			if err != nil {
				t.Fatal(err)
			}
			payload := payloadFunc(t, tc.format)
			reader := itest.StreamingReader(t, s.BootstrapServers, topic, func(key string) error {
				_, err := w.Write(ctx, db, outbox.Event{AggregateType: aggregate, AggregateID: key, Type: "OrderCreated", SchemaVersion: 1, Payload: payload(0)})
				return err
			})

			bizTable := sqlident.Quote(tc.kind, "orders_"+sfx)
			if _, err := db.Exec("CREATE TABLE " + bizTable + " (id varchar(64) PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			ph := "?"
			if tc.kind == spec.Postgres {
				ph = "$1"
			}
			want := map[string]outbox.Event{}
			// Committed: a business row and three events, one by Write and
			// two by WriteAll.
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec("INSERT INTO "+bizTable+" (id) VALUES ("+ph+")", "order-1"); err != nil {
				t.Fatal(err)
			}
			e1 := outbox.Event{AggregateType: aggregate, AggregateID: "order-1", Type: "OrderCreated", SchemaVersion: 1, Payload: payload(1),
				TraceContext: "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
			id1, err := w.Write(ctx, tx, e1)
			if err != nil {
				t.Fatal(err)
			}
			want[id1] = e1
			more := []outbox.Event{
				{AggregateType: aggregate, AggregateID: "order-1", Type: "OrderCreated", SchemaVersion: 1, Payload: payload(2)},
				{AggregateType: aggregate, AggregateID: "order-2", Type: "OrderCreated", SchemaVersion: 1, Payload: payload(3)},
			}
			ids, err := w.WriteAll(ctx, tx, more)
			if err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				want[id] = more[i]
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			// Rolled back: must never be published.
			tx, err = db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			rolledBack, err := w.Write(ctx, tx, outbox.Event{AggregateType: aggregate, AggregateID: "order-3", Type: "OrderCreated", SchemaVersion: 1, Payload: payload(4)})
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			// A committed marker after the rollback: once it arrives, the
			// rolled-back event would have arrived before it.
			marker, err := w.Write(ctx, db, outbox.Event{AggregateType: aggregate, AggregateID: "marker", Type: "OrderCreated", SchemaVersion: 1, Payload: payload(5)})
			if err != nil {
				t.Fatal(err)
			}

			got := map[string]bool{}
			for done := false; !done; {
				m := reader.Next(60 * time.Second)
				if m == nil {
					t.Fatalf("marker not routed within 60s; got %d of %d events", len(got), len(want))
				}
				id, _ := itest.Header(m, "id")
				switch {
				case id == marker:
					done = true
				case id == rolledBack:
					t.Errorf("the rolled-back event %s was published", id)
				case strings.HasPrefix(string(m.Key), "warmup-"):
				default:
					e, ok := want[id]
					if !ok {
						t.Errorf("unexpected event: key %q header id %q", m.Key, id)
						continue
					}
					got[id] = true
					if string(m.Key) != e.AggregateID {
						t.Errorf("event %s: key = %q, want %q", id, m.Key, e.AggregateID)
					}
					if *m.TopicPartition.Topic != topic {
						t.Errorf("event %s: topic = %q", id, *m.TopicPartition.Topic)
					}
					if !samePayload(tc.format, m.Value, e.Payload) {
						t.Errorf("event %s: value = %q, want %q", id, m.Value, e.Payload)
					}
					if v, _ := itest.Header(m, "eventType"); v != e.Type {
						t.Errorf("event %s: header eventType = %q", id, v)
					}
					if v, ok := itest.Header(m, "schemaVersion"); !ok || v == "" {
						t.Errorf("event %s: no schemaVersion header", id)
					}
				}
			}
			if len(got) != len(want) {
				t.Errorf("got %d of the %d committed events before the marker", len(got), len(want))
			}
		})
	}
}

func payloadFunc(t *testing.T, format string) func(i int) []byte {
	if format == spec.FormatJSON {
		return func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d,"note":"ünï"}`, i)) }
	}
	enc, err := outbox.NewAvroEncoderFromSchema(4711, `{"type":"record","name":"OrderCreated","namespace":"example","fields":[{"name":"n","type":"long"},{"name":"note","type":"string"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	return func(i int) []byte {
		b, err := enc.Encode(map[string]any{"n": int64(i), "note": "ünï\x00"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// samePayload: Avro wire bytes must arrive untouched; JSON as the same text
// (MariaDB longtext keeps it as written).
func samePayload(format string, got, want []byte) bool {
	return bytes.Equal(got, want)
}

// TestProvisionNotifyTriggerOnExistingTable: an outbox table provisioned
// before the spec asked for relay.notify gets the NOTIFY trigger from the
// next provision (a RELAY_NOTIFY_TRIGGER finding until then); a second plan
// has nothing left to do, and a changed channel replaces the trigger.
func TestProvisionNotifyTriggerOnExistingTable(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	name := "prov_notify_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, name)
	doc := func(relay string) *spec.Spec {
		sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: n%s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, user: postgres, dbname: %s}
    payloadFormat: json
%s`, sfx, name, relay))})
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	itest.CreateOutboxTable(t, db, &doc("").Outboxes[0]) // no trigger
	ctx := context.Background()
	plan := func(channel string) (notify []provisioning.Step, findings []string) {
		t.Helper()
		tgs, err := provisioning.Targets(doc("    relay: {notify: "+channel+"}\n"), connectorconfig.Options{BootstrapServers: s.BootstrapServers})
		if err != nil {
			t.Fatal(err)
		}
		f, err := provisioning.Inspect(ctx, db, tgs[0], false)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range provisioning.Check(tgs[0], f, provisioning.Options{}) {
			findings = append(findings, fd.Rule)
		}
		steps, _, err := provisioning.Plan(ctx, db, tgs[0], false, provisioning.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range steps {
			if st.ID == "relay-notify" {
				notify = append(notify, st)
			}
		}
		return notify, findings
	}
	listen := func(channel string) {
		t.Helper()
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		wake, err := relay.Listen(lctx, settings.PostgresDSNWithDatabase(s.PostgresDSN, name), channel, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', '1', 'OrderCreated', '{}', 1)`, itest.UUID(t)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-wake:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification on %s after an insert", channel)
		}
	}

	ch1, ch2 := "outbox_a_"+sfx, "outbox_b_"+sfx
	steps, findings := plan(ch1)
	if len(steps) != 2 || !slices.Contains(findings, provisioning.IDRelayNotify) {
		t.Fatalf("existing table without a trigger: steps %+v, findings %v; want the function and the trigger, and RELAY_NOTIFY_TRIGGER", steps, findings)
	}
	if !strings.HasPrefix(steps[1].SQL, "CREATE OR REPLACE TRIGGER ") {
		t.Errorf("PostgreSQL 14+: %s", steps[1].SQL)
	}
	for i := 0; i < 2; i++ { // twice: replacing is idempotent
		if err := provisioning.Apply(ctx, db, steps); err != nil {
			t.Fatal(err)
		}
	}
	listen(ch1)
	if steps, findings := plan(ch1); len(steps) != 0 || slices.Contains(findings, provisioning.IDRelayNotify) {
		t.Errorf("after provisioning: steps %+v, findings %v; want none", steps, findings)
	}
	steps, _ = plan(ch2)
	if len(steps) != 2 {
		t.Fatalf("changed channel: steps %+v, want the trigger replaced", steps)
	}
	if err := provisioning.Apply(ctx, db, steps); err != nil {
		t.Fatal(err)
	}
	listen(ch2)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_trigger WHERE tgrelid = 'public.outbox'::regclass AND NOT tgisinternal`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d triggers on the table (%v), want 1", n, err)
	}
}
