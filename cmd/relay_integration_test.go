//go:build integration

package cmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
)

// relaySpec writes an outbox spec for a PostgreSQL outbox in database db,
// table table, routed to relay.<sfx>.<aggregatetype>; extra lines are
// appended to the outbox (a relay: block).
func relaySpec(t *testing.T, db, table, sfx string, extra ...string) string {
	s := itest.Settings()
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kind: OutboxSpec
outboxes:
  - name: orders
    database:
      kind: postgres
      connection:
        host: %s
        port: %s
        user: postgres
        dbname: %s
    table: %s
    payloadFormat: json
    routing:
      topicReplacement: relay.%s.${routedByValue}
    connector:
      name: relay-cli-%s
      topicPrefix: relaycli%s
`, s.ConnectPostgresHost, s.ConnectPostgresPort, db, table, sfx, sfx, sfx) + strings.Join(extra, "")
	p := filepath.Join(t.TempDir(), "outbox.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCLIRelayOnce: `outboxctl relay -f … --once` publishes the pending rows
// and exits 0; a spec naming a table that does not exist is exit 2.
func TestCLIRelayOnce(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "relay_cli_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	path := relaySpec(t, dbName, "outbox", sfx)
	sp, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	topic := "relay." + sfx + ".Order"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	var ids []string
	for i := 0; i < 3; i++ {
		id := itest.UUID(t)
		ids = append(ids, id)
		if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', $2, 'OrderCreated', '{"n": 1}', 1)`, id, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(t, nil, "relay", "-f", path, "--once", "--bootstrap-servers", s.BootstrapServers)
	if code != 0 || !strings.Contains(out, "published 3, dropped 0") {
		t.Fatalf("relay --once: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM outbox").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows left (%v), want 0", n, err)
	}
	rd := itest.NewReader(t, s.BootstrapServers, topic)
	for i, id := range ids {
		m := rd.Next(30e9)
		if m == nil {
			t.Fatalf("record %d missing", i)
		}
		if got, _ := itest.Header(m, "id"); got != id {
			t.Errorf("record %d: id %q, want %q", i, got, id)
		}
	}

	missing := relaySpec(t, dbName, "nosuch", sfx)
	code, _, errOut = runCLI(t, nil, "relay", "-f", missing, "--once", "--bootstrap-servers", s.BootstrapServers)
	if code != 2 || !strings.Contains(errOut, "outbox table public.nosuch does not exist") {
		t.Errorf("missing table: exit %d, stderr %q; want exit 2", code, errOut)
	}
}

// TestCLIRelayTableChecks: a table without a primary key is an error at
// relay start (exit 2), and doctor reports it for a relay-published outbox
// as a finding naming the table (exit 3); so is a nullable order column.
func TestCLIRelayTableChecks(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "relay_chk_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	if _, err := db.Exec(`CREATE TABLE nopk (id uuid NOT NULL, aggregatetype varchar(255) NOT NULL, aggregateid varchar(255) NOT NULL,
		type varchar(255) NOT NULL, payload jsonb, schemaversion int, seq bigint)`); err != nil {
		t.Fatal(err)
	}
	path := relaySpec(t, dbName, "nopk", sfx, "    relay: {pollInterval: 100ms, orderColumn: id}\n")
	code, _, errOut := runCLI(t, nil, "relay", "-f", path, "--once", "--bootstrap-servers", s.BootstrapServers)
	if code != 2 || !strings.Contains(errOut, "outbox table public.nopk has no primary key") {
		t.Errorf("relay on a table without a primary key: exit %d, stderr %q; want exit 2", code, errOut)
	}
	code, out, errOut := runCLI(t, nil, "doctor", "-f", path, "--no-connect", "--no-topics")
	if code != 3 || !strings.Contains(out, "error RELAY_NO_PRIMARY_KEY: outbox table public.nopk has no primary key") || !strings.Contains(out, "    orders: table public.nopk\n") {
		t.Errorf("doctor: exit %d, stdout %q, stderr %q; want RELAY_NO_PRIMARY_KEY naming the table, exit 3", code, out, errOut)
	}
	if strings.Contains(out, "RELAY_ORDER_COLUMN") {
		t.Errorf("doctor reports the NOT NULL id column as a bad order column:\n%s", out)
	}

	if _, err := db.Exec(`ALTER TABLE nopk ADD PRIMARY KEY (aggregateid, type), ALTER COLUMN id DROP NOT NULL`); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, nil, "relay", "-f", path, "--once", "--bootstrap-servers", s.BootstrapServers)
	if code != 2 || !strings.Contains(errOut, "order column id of public.nopk is nullable") {
		t.Errorf("relay with a nullable order column: exit %d, stderr %q; want exit 2", code, errOut)
	}
	code, out, _ = runCLI(t, nil, "doctor", "-f", path, "--no-connect", "--no-topics")
	if code != 3 || !strings.Contains(out, "error RELAY_ORDER_COLUMN: order column id") || !strings.Contains(out, "    orders: column public.nopk.id\n") || strings.Contains(out, "RELAY_NO_PRIMARY_KEY") {
		t.Errorf("doctor: exit %d, stdout %q; want RELAY_ORDER_COLUMN naming table and column only", code, out)
	}
}

// TestCLIRelayRefusesRunningConnector (#25 item 11): `relay -f … --once` on
// an outbox without a relay: block whose connector is RUNNING would publish
// every event a second time: it refuses, exit 3, and publishes nothing.
func TestCLIRelayRefusesRunningConnector(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres, itest.Connect)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "relay_run_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	path := relaySpec(t, dbName, "outbox", sfx)
	sp, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	topic := "relay." + sfx + ".Order"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	itest.PutConnector(t, s.ConnectURL, cs[0].Name, cs[0].Config)
	t.Cleanup(func() { itest.DeleteConnector(t, s.ConnectURL, cs[0].Name) })
	itest.WaitRunning(t, s.ConnectURL, cs[0].Name, 2*time.Minute)
	if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', '1', 'OrderCreated', '{}', 1)`, itest.UUID(t)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "relay", "-f", path, "--once", "--bootstrap-servers", s.BootstrapServers, "--connect-url", s.ConnectURL)
	if code != 3 || !strings.Contains(errOut, "connector "+cs[0].Name+" is RUNNING") || strings.Contains(out, "published") {
		t.Fatalf("relay --once beside a RUNNING connector: exit %d, stdout %q, stderr %q; want exit 3, nothing published", code, out, errOut)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM outbox").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows in the table (%v): want the row, untouched by the relay", n, err)
	}
}
