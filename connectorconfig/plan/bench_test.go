package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/spec"
)

// spec50 is an outbox spec with n PostgreSQL outboxes.
func spec50(n int, host, port, db string) string {
	var b strings.Builder
	b.WriteString("apiVersion: outboxctl.dev/v1alpha1\noutboxes:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `  - name: bench-%02d
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, dbname: %s}
    table: outbox_%02d
    payloadFormat: json
    connector:
      profile: latency
`, i, host, port, db, i)
	}
	return b.String()
}

func generate50(b *testing.B, host, port, db string) (*spec.Spec, []connectorconfig.Connector) {
	b.Helper()
	sp, err := spec.Parse(spec.Source{Name: "bench.yaml", Data: []byte(spec50(50, host, port, db))})
	if err != nil {
		b.Fatal(err)
	}
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return sp, cs
}

// BenchmarkValidateSpec50 parses, generates and validates (local rules) a
// 50-connector spec.
func BenchmarkValidateSpec50(b *testing.B) {
	data := []byte(spec50(50, "127.0.0.1", "5432", "bench"))
	for b.Loop() {
		sp, err := spec.Parse(spec.Source{Name: "bench.yaml", Data: data})
		if err != nil {
			b.Fatal(err)
		}
		cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = connectorconfig.Validate(sp, cs)
	}
}

// BenchmarkDiff50 is the CPU cost of diffing 50 connectors with no change.
func BenchmarkDiff50(b *testing.B) {
	_, cs := generate50(b, "127.0.0.1", "5432", "bench")
	actual := map[string]plan.ActualConnector{}
	for _, c := range cs {
		cfg := map[string]string{"name": c.Name, plan.OwnerKey: plan.DefaultOwner}
		for k, v := range c.Config {
			cfg[k] = v
		}
		actual[c.Name] = plan.ActualConnector{Name: c.Name, Config: cfg, Status: &connect.Status{Connector: connect.ConnectorState{State: "RUNNING"}}}
	}
	for b.Loop() {
		if p := plan.Diff(cs, actual); p.HasChanges() {
			b.Fatal("changes")
		}
	}
}
