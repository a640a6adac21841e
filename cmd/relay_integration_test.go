//go:build integration

package cmd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
)

// relaySpec writes an outbox spec for a PostgreSQL outbox in database db,
// table table, routed to relay.<sfx>.<aggregatetype>.
func relaySpec(t *testing.T, db, table, sfx string) string {
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
`, s.ConnectPostgresHost, s.ConnectPostgresPort, db, table, sfx, sfx, sfx)
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
