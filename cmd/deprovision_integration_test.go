//go:build integration

package cmd_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// TestCLIDeprovisionRealStack: provision + deploy an outbox, write an
// event, then deprovision: the dry run lists every object and removes
// nothing; --yes removes the connector (offsets first), the slot, the
// publication, the roles, the topics and the subjects, each checked on its
// own system afterwards; a second run finds everything absent.
func TestCLIDeprovisionRealStack(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka, itest.Registry)
	sfx := itest.Suffix()
	dbName := "outbox_deprov_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	admin, err := sql.Open("pgx", s.PostgresDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	user := "dbz_" + sfx
	name := "dep-" + sfx
	t.Cleanup(func() {
		// Only on failure is anything left: this run's slot and roles.
		ctx := context.Background()
		_, _ = admin.ExecContext(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name LIKE '%`+sfx+`%' AND NOT active`)
		for _, r := range []string{user, "dep_" + sfx + "_outbox_owner"} {
			_, _ = db.ExecContext(ctx, `REASSIGN OWNED BY "`+r+`" TO CURRENT_USER`)
			_, _ = db.ExecContext(ctx, `DROP OWNED BY "`+r+`"`)
			_, _ = admin.ExecContext(ctx, `DROP ROLE IF EXISTS "`+r+`"`)
		}
	})
	dir := t.TempDir()
	specFile := filepath.Join(dir, "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: %[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: %[5]s, password: "${env:IT_DEPROV_PASSWORD}", dbname: %[6]s}
    payloadFormat: json
    events:
      - name: Created
        aggregate: Dep%[7]s
        versions: [{major: 1, schema: o.avsc}]
`, s.ConnectBootstrap(), name, s.ConnectPostgresHost, s.ConnectPostgresPort, user, dbName, sfx)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "o.avsc"), []byte(`{"type": "record", "name": "Created", "namespace": "dep.v1", "fields": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"IT_DEPROV_PASSWORD": "pw-" + sfx, "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out, errOut
	}

	run(0, "provision", "-f", specFile)
	run(0, "deploy", "-f", specFile, "--timeout", "2m")
	topic := "outbox.event.Dep" + sfx
	if _, err := db.Exec(`INSERT INTO public.outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, $2, '1', 'Created', '{}', 1)`, itest.UUID(t), "Dep"+sfx); err != nil {
		t.Fatal(err)
	}
	if m := itest.NewReader(t, s.BootstrapServers, topic).NextEvent(60 * time.Second); m == nil {
		t.Fatalf("no event on %s", topic)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A subject of the topic, as `schema register` makes it.
	rc, err := registry.NewClient(s.SchemaRegistryURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Register(ctx, topic+"-value", `{"type": "record", "name": "Created", "namespace": "dep.v1", "fields": []}`); err != nil {
		t.Fatal(err)
	}
	cl, _ := connect.NewClient(s.ConnectURL)
	conn := name + "-outbox"
	if _, err := cl.GetConfig(ctx, conn); err != nil {
		t.Fatalf("connector %s: %v", conn, err)
	}
	var slot string
	if err := admin.QueryRow(`SELECT slot_name FROM pg_replication_slots WHERE database = $1`, dbName).Scan(&slot); err != nil {
		t.Fatalf("slot of %s: %v", dbName, err)
	}

	// The guard: two outboxes named, --max-outboxes 1: exit 3, nothing read.
	if _, errOut := run(3, "deprovision", "-f", specFile, "--outbox", name, "--outbox", name, "--yes"); !strings.Contains(errOut, "more than --max-outboxes 1") {
		t.Errorf("guard: %s", errOut)
	}
	// Dry run: everything listed, nothing removed.
	out, _ := run(0, "deprovision", "-f", specFile, "--outbox", name, "-o", "json")
	var rem struct {
		DryRun bool `json:"dryRun"`
		Items  []struct {
			Kind, Name, Status string
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &rem); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"connector/" + conn: "", "slot/" + slot: "", "role/" + user: "", "topic/" + topic: "", "subject/" + topic + "-value": ""}
	kinds := map[string]bool{}
	for _, it := range rem.Items {
		if it.Status != "present" {
			t.Errorf("dry run: %s %s is %s, want present", it.Kind, it.Name, it.Status)
		}
		delete(want, it.Kind+"/"+it.Name)
		kinds[it.Kind] = true
	}
	if len(want) > 0 || !kinds["publication"] || !rem.DryRun {
		t.Fatalf("dry run lacks %v (or a publication):\n%s", want, out)
	}
	if _, err := cl.GetConfig(ctx, conn); err != nil {
		t.Fatalf("dry run removed the connector: %v", err)
	}

	out, errOut := run(0, "deprovision", "-f", specFile, "--outbox", name, "--yes")
	t.Logf("deprovision:\n%s\n%s", out, errOut)
	if !strings.Contains(errOut, "would remove") || !strings.Contains(out, "removed") {
		t.Errorf("want the list on stderr first, the result on stdout")
	}

	// Every system, asked directly.
	if _, err := cl.GetConfig(ctx, conn); err == nil {
		t.Errorf("connector %s is still there", conn)
	}
	count := func(db *sql.DB, q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(admin, `SELECT COUNT(*) FROM pg_replication_slots WHERE database = $1`, dbName); n != 0 {
		t.Errorf("%d slot(s) left in %s", n, dbName)
	}
	if n := count(db, `SELECT COUNT(*) FROM pg_publication`); n != 0 {
		t.Errorf("%d publication(s) left in %s", n, dbName)
	}
	if n := count(admin, `SELECT COUNT(*) FROM pg_roles WHERE rolname LIKE '%' || $1 || '%'`, sfx); n != 0 {
		t.Errorf("%d role(s) of %s left", n, sfx)
	}
	if n := count(db, `SELECT COUNT(*) FROM public.outbox`); n != 1 {
		t.Errorf("the outbox table has %d rows, want it kept with its 1 row", n)
	}
	waitTopicsGone(t, s.BootstrapServers, sfx)
	subjects, err := rc.Subjects(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, sj := range subjects {
		if strings.Contains(sj, sfx) {
			t.Errorf("subject %s left (deleted ones included)", sj)
		}
	}

	// Again: everything absent, exit 0.
	out, _ = run(0, "deprovision", "-f", specFile, "--outbox", name, "--yes", "-o", "json")
	if err := json.Unmarshal([]byte(out), &rem); err != nil {
		t.Fatal(err)
	}
	for _, it := range rem.Items {
		if it.Status != "absent" {
			t.Errorf("second run: %s %s is %s, want absent", it.Kind, it.Name, it.Status)
		}
	}
}

// TestCLIDeprovisionMariaDBRealStack: the MariaDB side: no slot or
// publication, but the connector, its provisioned user, the routed topic and
// the schema history topic are removed.
func TestCLIDeprovisionMariaDBRealStack(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.MariaDB, itest.Kafka, itest.Registry)
	sfx := itest.Suffix()
	dbName := "outbox_deprovm_" + sfx
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	user := "dbzm_" + sfx
	t.Cleanup(func() { _, _ = db.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })
	name := "depm-" + sfx
	dir := t.TempDir()
	specFile := filepath.Join(dir, "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: %[2]s
    database:
      kind: mariadb
      connection: {host: %[3]q, port: %[4]s, user: %[5]s, password: "${env:IT_DEPROV_PASSWORD}", dbname: %[6]s}
    payloadFormat: json
    events:
      - name: Created
        aggregate: DepM%[7]s
        versions: [{major: 1, schema: o.avsc}]
`, s.ConnectBootstrap(), name, s.ConnectMariaDBHost, s.ConnectMariaDBPort, user, dbName, sfx)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "o.avsc"), []byte(`{"type": "record", "name": "Created", "namespace": "dep.v1", "fields": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"IT_DEPROV_PASSWORD": "Pw-" + sfx + "-x", "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out, errOut
	}
	run(0, "provision", "-f", specFile)
	run(0, "deploy", "-f", specFile, "--timeout", "2m")
	topic := "outbox.event.DepM" + sfx
	if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES (?, ?, '1', 'Created', '{}', 1)`, itest.UUID(t), "DepM"+sfx); err != nil {
		t.Fatal(err)
	}
	if m := itest.NewReader(t, s.BootstrapServers, topic).NextEvent(60 * time.Second); m == nil {
		t.Fatalf("no event on %s", topic)
	}
	out, errOut := run(0, "deprovision", "-f", specFile, "--outbox", name, "--yes")
	t.Logf("deprovision:\n%s\n%s", out, errOut)
	for _, want := range []string{"connector", "role", "schema-history." + name, topic} {
		if !strings.Contains(out, want) {
			t.Errorf("deprovision output lacks %s", want)
		}
	}
	if strings.Contains(out, "slot") || strings.Contains(out, "publication") {
		t.Errorf("a slot or publication listed for MariaDB:\n%s", out)
	}
	cl, _ := connect.NewClient(s.ConnectURL)
	if _, err := cl.GetConfig(context.Background(), name+"-outbox"); err == nil {
		t.Errorf("connector %s-outbox is still there", name)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM mysql.user WHERE user = ?`, user).Scan(&n); err != nil || n != 0 {
		t.Errorf("user %s: %d left (%v)", user, n, err)
	}
	waitTopicsGone(t, s.BootstrapServers, sfx)
}

// waitTopicsGone waits up to 30 s until no topic whose name contains part
// (case-insensitively) is left, and fails the test otherwise.
func waitTopicsGone(t *testing.T, bootstrap, part string) {
	t.Helper()
	ka, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		t.Fatal(err)
	}
	defer ka.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		md, err := ka.GetMetadata(nil, true, 10000)
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for tp := range md.Topics {
			if strings.Contains(strings.ToLower(tp), strings.ToLower(part)) {
				left = append(left, tp)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("topics left: %v", left)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}
