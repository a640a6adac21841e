package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExporterTargetsOneUnresolved: an outbox whose password reference does
// not resolve is reported with its error and does not stop the others; a
// spec whose every outbox fails is an error.
func TestExporterTargetsOneUnresolved(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "outbox.yaml")
	doc := `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 1, user: postgres, password: "${env:EXPORTER_UNSET_PW}", dbname: shop}
    payloadFormat: json
    connector: {name: orders-outbox}
  - name: billing
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 1, user: postgres, dbname: shop}
    payloadFormat: json
    connector: {name: billing-outbox}
`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	env := testEnv(nil)
	ts, err := exporterTargets(env, []string{file})
	if err != nil {
		t.Fatalf("exporterTargets: %v", err)
	}
	if len(ts) != 2 {
		t.Fatalf("%d targets, want 2: %+v", len(ts), ts)
	}
	byName := map[string]exporterOutbox{}
	for _, o := range ts {
		byName[o.outbox.Name] = o
	}
	if o := byName["orders"]; o.err == nil || !strings.Contains(o.err.Error(), "EXPORTER_UNSET_PW") {
		t.Errorf("orders: err %v, want the unresolved reference", o.err)
	}
	if o := byName["billing"]; o.err != nil || o.target.Connector.Name != "billing-outbox" {
		t.Errorf("billing: err %v, connector %q, want resolved", o.err, o.target.Connector.Name)
	}

	only := filepath.Join(dir, "only.yaml")
	if err := os.WriteFile(only, []byte(doc[:strings.Index(doc, "  - name: billing")]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exporterTargets(env, []string{only}); err == nil || !strings.Contains(err.Error(), "EXPORTER_UNSET_PW") {
		t.Errorf("only an unresolved outbox: err %v, want the unresolved reference", err)
	}
}
