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

	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestCLIProvisionDoctorRealStack drives provision and doctor on the real
// PostgreSQL and Kafka: provision creates the missing database, reconnects
// to it and applies the outbox table, publication and user, and creates the
// routed topic; a second run has nothing to do; doctor then finds no error
// and prints its findings in the one findings model (github-actions and the
// step summary).
func TestCLIProvisionDoctorRealStack(t *testing.T) {
	s := itest.Require(t, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_prov_" + sfx
	// Created and dropped again: provision must create it, cleanup drops it.
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	db.Close()
	admin, err := sql.Open("pgx", s.PostgresDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.ExecContext(context.Background(), "DROP DATABASE "+dbName+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { itest.DeleteTopicsContaining(t, s.BootstrapServers, sfx) })
	user := "dbz_" + sfx
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), `DROP ROLE IF EXISTS "`+user+`"`)
	})
	dir := t.TempDir()
	specFile := filepath.Join(dir, "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: prov-%[2]s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 15432, user: %[3]s, password: "${env:IT_PROV_PASSWORD}", dbname: %[4]s}
    events:
      - name: Created
        aggregate: Prov%[2]s
        versions: [{major: 1, schema: o.avsc}]
`, s.BootstrapServers, sfx, user, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "o.avsc"), []byte(`{"type": "record", "name": "Created", "namespace": "prov.v1", "fields": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"IT_PROV_PASSWORD": "pw-" + sfx, "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}

	code, out, errOut := runCLI(t, vars, "provision", "-f", specFile, "-o", "json")
	if code != 0 {
		t.Fatalf("provision: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		DryRun    bool `json:"dryRun"`
		Databases []struct {
			Outbox  string `json:"outbox"`
			Applied bool   `json:"applied"`
			Steps   []struct {
				ID string `json:"id"`
			} `json:"steps"`
		} `json:"databases"`
		Topics []struct {
			Name   string `json:"name"`
			Action string `json:"action"`
		} `json:"topics"`
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("provision JSON: %v\n%s", err, out)
	}
	if len(rep.Databases) != 1 || !rep.Databases[0].Applied || len(rep.Databases[0].Steps) < 2 || rep.Databases[0].Steps[0].ID != "create-database" {
		t.Fatalf("databases = %+v, want create-database first, then the rest, applied", rep.Databases)
	}
	if !strings.Contains(errOut, "outbox prov-"+sfx+": create database") || !strings.Contains(errOut, "applying") {
		t.Errorf("progress on stderr = %q", errOut)
	}
	// The progress and the report count the same steps (the database's
	// creation included).
	if n := len(rep.Databases[0].Steps); !strings.Contains(errOut, fmt.Sprintf("applying %d more steps (%d in all)", n-1, n)) {
		t.Errorf("progress on stderr = %q, want %d more steps (%d in all)", errOut, n-1, n)
	}
	topic := "outbox.event.Prov" + sfx
	found := false
	for _, tp := range rep.Topics {
		if tp.Name == topic {
			found = tp.Action == "create"
		}
	}
	if !found {
		t.Errorf("topics = %+v, want %s created", rep.Topics, topic)
	}

	code, out, errOut = runCLI(t, vars, "provision", "-f", specFile)
	if code != 0 || !strings.Contains(out, "database up to date") {
		t.Fatalf("second provision: exit %d\n%s\n%s", code, out, errOut)
	}

	summary := filepath.Join(dir, "summary.md")
	code, out, errOut = runCLI(t, vars, "doctor", "-f", specFile, "--no-connect", "-o", "github-actions", "--summary-file", summary)
	if code != 0 {
		t.Fatalf("doctor: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line != "" && !strings.HasPrefix(line, "::warning title=") && !strings.HasPrefix(line, "::notice title=") {
			t.Errorf("doctor annotation %q: want ::warning or ::notice with a rule title", line)
		}
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("doctor annotations:\n%s\nsummary:\n%s", out, md)
	if !strings.HasPrefix(string(md), "## outboxctl doctor\n\n") {
		t.Errorf("summary = %q", md)
	}
	// Every annotation's rule is a row of the summary.
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if _, rest, ok := strings.Cut(line, "title="); ok {
			rule, _, _ := strings.Cut(rest, "::")
			if !strings.Contains(string(md), "| `"+rule+"` |") {
				t.Errorf("summary has no row for %s:\n%s", rule, md)
			}
		}
	}
}

// TestCLIProvisionValidatesBeforeAnyStep: a spec whose publication name
// validate refuses (SLOT_NAME_INVALID; "$$" once broke the DO block of
// the owner-group step after the database, table, publication and role
// were made) is refused by provision before its first step: exit 3, the
// finding on stderr, and nothing created on the real PostgreSQL.
func TestCLIProvisionValidatesBeforeAnyStep(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	sfx := itest.Suffix()
	dbName := "outbox_provinj_" + sfx
	user := "dbz_inj_" + sfx
	admin, err := sql.Open("pgx", s.PostgresDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)")
		_, _ = admin.ExecContext(ctx, `DROP ROLE IF EXISTS "`+user+`"`)
		admin.Close()
	})
	dir := t.TempDir()
	specFile := filepath.Join(dir, "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: inj-%[1]s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 15432, user: %[2]s, password: "${env:IT_PROV_PASSWORD}", dbname: %[3]s}
    connector:
      publicationName: "clihunt_inj$$"
`, sfx, user, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"IT_PROV_PASSWORD": "pw-" + sfx, "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	code, out, errOut := runCLI(t, vars, "provision", "-f", specFile, "--database")
	if code != 3 {
		t.Fatalf("provision: exit %d, want 3 (refused before any step)\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "SLOT_NAME_INVALID") || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("stderr = %q, want the SLOT_NAME_INVALID finding and that nothing was changed", errOut)
	}
	if strings.Contains(errOut, "applying") {
		t.Errorf("stderr = %q: a step was started", errOut)
	}
	var n int
	if err := admin.QueryRowContext(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = $1", dbName).Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s: count %d (%v), want not created", dbName, n, err)
	}
	if err := admin.QueryRowContext(context.Background(), "SELECT count(*) FROM pg_roles WHERE rolname = $1 OR rolname LIKE 'clihunt_inj%'", user).Scan(&n); err != nil || n != 0 {
		t.Errorf("roles: count %d (%v), want none created", n, err)
	}
}
