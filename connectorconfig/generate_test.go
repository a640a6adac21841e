package connectorconfig_test

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/outboxctl/outboxctl/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

func generateFile(t *testing.T, opts connectorconfig.Options, paths ...string) (*spec.Spec, []connectorconfig.Connector) {
	t.Helper()
	s, err := spec.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connectorconfig.Generate(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, cs
}

func assertGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", "golden", name), got)
}

// TestGenerateGolden generates each dialect and profile and compares the
// YAML output (sorted keys, reasons, masked secrets) with its golden file.
// Each generated config must also pass every local rule (info findings,
// such as EXACTLY_ONCE's requirements, are no problem).
func TestGenerateGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/generate/*.yaml")
	if err != nil || len(inputs) < 4 {
		t.Fatalf("inputs: %v %v", inputs, err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			s, cs := generateFile(t, connectorconfig.Options{}, in)
			var buf bytes.Buffer
			if err := connectorconfig.WriteYAML(&buf, cs); err != nil {
				t.Fatal(err)
			}
			assertGolden(t, name+".yaml", buf.Bytes())
			for _, f := range connectorconfig.Validate(s, cs) {
				if f.Severity != connectorconfig.SeverityInfo {
					t.Errorf("generated config has a finding: %+v", f)
				}
			}
		})
	}
}

func TestGenerateSettings(t *testing.T) {
	_, cs := generateFile(t, connectorconfig.Options{}, "testdata/generate/postgres_throughput_json.yaml")
	c := cs[0].Config
	for key, want := range map[string]string{
		"slot.name":                   connectorconfig.PGIdentifier(cs[0].Name, ""),
		"plugin.name":                 "pgoutput",
		"publication.autocreate.mode": "filtered",
		"snapshot.mode":               "no_data",
		"skipped.operations":          "t",
		"tombstones.on.delete":        "false",
		"value.converter":             connectorconfig.StringConverterClass,
		"table.include.list":          `crm\.outbox_event`,
		"transforms.outbox.table.fields.additional.placement": "type:header:eventType,schemaversion:header:schemaVersion,tenant:header:tenant,partitionkey:partition",
		"poll.interval.ms": "100", // the throughput profile (tuned in docs/benchmarks.md)
	} {
		if c[key] != want {
			t.Errorf("%s = %q, want %q", key, c[key], want)
		}
	}
	if slot := c["slot.name"]; len(slot) > 63 || strings.ToLower(slot) != slot {
		t.Errorf("slot name %q breaks PostgreSQL rules", slot)
	}
	if pub := c["publication.name"]; len(pub) > 63 || !strings.HasSuffix(pub, "_pub") {
		t.Errorf("publication name %q", pub)
	}
	if got := cs[0].Positions["transforms.outbox.route.topic.regex"]; got.Line != 11 {
		t.Errorf("route.topic.regex position = %s, want line 11", got)
	}
}

func TestGenerateResolvesAndMasksSecrets(t *testing.T) {
	lookup := &spec.Lookup{Env: func(n string) (string, bool) { return "pg-s3cret", n == "PG_PASSWORD" }}
	_, cs := generateFile(t, connectorconfig.Options{Lookup: lookup}, "testdata/generate/postgres_latency.yaml")
	if got := cs[0].Config["database.password"]; got != "pg-s3cret" {
		t.Fatalf("password not resolved: %q", got)
	}
	if fmt.Sprint(cs[0].Sensitive) != "[database.password]" {
		t.Errorf("Sensitive = %v", cs[0].Sensitive)
	}
	var buf bytes.Buffer
	connectorconfig.WriteJSON(&buf, cs)
	connectorconfig.WriteYAML(&buf, cs)
	if bytes.Contains(buf.Bytes(), []byte("pg-s3cret")) || !bytes.Contains(buf.Bytes(), []byte(connectorconfig.Masked)) {
		t.Errorf("secret not masked:\n%s", buf.String())
	}
	s, err := spec.Load("testdata/generate/postgres_latency.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = connectorconfig.Generate(s, connectorconfig.Options{Lookup: &spec.Lookup{Env: func(string) (string, bool) { return "", false }}})
	if err == nil || !strings.Contains(err.Error(), "PG_PASSWORD") {
		t.Errorf("missing variable: err = %v", err)
	}
}

// TestGenerateDeterministic generates each spec repeatedly and expects the
// same bytes; and a spec with its outboxes in reverse order gives the same
// connectors (server ids do not depend on the order).
func TestGenerateDeterministic(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/generate/*.yaml")
	inputs = append(inputs, "../examples/outbox.yaml")
	render := func(cs []connectorconfig.Connector) map[string]string {
		out := map[string]string{}
		for i := range cs {
			var buf bytes.Buffer
			connectorconfig.WriteJSON(&buf, cs[i:i+1])
			out[cs[i].Name] = buf.String()
		}
		return out
	}
	for _, in := range inputs {
		_, cs := generateFile(t, connectorconfig.Options{}, in)
		first := render(cs)
		for i := 0; i < 10; i++ {
			_, cs := generateFile(t, connectorconfig.Options{}, in)
			for name, got := range render(cs) {
				if got != first[name] {
					t.Fatalf("%s: connector %s differs between runs:\n%s\n---\n%s", in, name, first[name], got)
				}
			}
		}
	}
	doc := func(names ...string) spec.Source {
		var b strings.Builder
		b.WriteString("apiVersion: outboxctl.dev/v1alpha1\nkafka: {bootstrapServers: k:9092}\noutboxes:\n")
		for _, n := range names {
			fmt.Fprintf(&b, "  - {name: %s, database: {kind: mysql, connection: {host: db, user: u, dbname: %s}}}\n", n, n)
		}
		return spec.Source{Name: "order.yaml", Data: []byte(b.String())}
	}
	s1, err := spec.Parse(doc("a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := spec.Parse(doc("c", "b", "a"))
	c1, _ := connectorconfig.Generate(s1, connectorconfig.Options{})
	c2, _ := connectorconfig.Generate(s2, connectorconfig.Options{})
	byName := map[string]string{}
	for _, c := range c1 {
		byName[c.Name] = fmt.Sprint(c.Config) // fmt prints maps sorted
	}
	for _, c := range c2 {
		if byName[c.Name] != fmt.Sprint(c.Config) {
			t.Errorf("connector %s depends on the outbox order", c.Name)
		}
	}
}

func TestServerIDsUniqueAndDerived(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: outboxctl.dev/v1alpha1\nkafka: {bootstrapServers: k:9092}\noutboxes:\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "  - {name: svc%d, database: {kind: mariadb, connection: {host: db, user: u, dbname: d%d}}}\n", i, i)
	}
	s, err := spec.Parse(spec.Source{Name: "many.yaml", Data: []byte(b.String())})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, c := range cs {
		id := c.Config["database.server.id"]
		if prev, ok := seen[id]; ok {
			t.Fatalf("server id %s used by %s and %s", id, prev, c.Name)
		}
		seen[id] = c.Name
	}
	if got, want := cs[0].Config["database.server.id"], fmt.Sprint(connectorconfig.DefaultServerID("svc0-outbox")); got != want {
		t.Errorf("server id of svc0 = %s, want the derived %s", got, want)
	}
	if fs := connectorconfig.Validate(s, cs); len(fs) != 0 {
		t.Errorf("findings: %+v", fs)
	}
}

// TestManyProblems checks that a spec with many problems reports every one
// of them, each on the line it comes from.
func TestManyProblems(t *testing.T) {
	s, cs := generateFile(t, connectorconfig.Options{}, "testdata/many_problems.yaml")
	var b strings.Builder
	for _, f := range connectorconfig.Validate(s, cs) {
		fmt.Fprintf(&b, "%s %s %s %s\n", f.Pos(), f.Rule, f.Connector, f.Key)
	}
	assertGolden(t, "many_problems.txt", []byte(b.String()))
}

func TestPGIdentifier(t *testing.T) {
	for _, tt := range []struct{ in, suffix, want string }{
		{"orders-outbox", "", "orders_outbox"},
		{"Orders.Outbox", "_pub", "orders_outbox_pub"},
		{"", "", "outbox"},
	} {
		if got := connectorconfig.PGIdentifier(tt.in, tt.suffix); got != tt.want {
			t.Errorf("PGIdentifier(%q, %q) = %q, want %q", tt.in, tt.suffix, got, tt.want)
		}
	}
	long := strings.Repeat("a", 70)
	a, b := connectorconfig.PGIdentifier(long+"x", ""), connectorconfig.PGIdentifier(long+"y", "")
	if len(a) != 63 || a == b {
		t.Errorf("long names: %q %q", a, b)
	}
}

// TestExampleIsClean keeps examples/outbox.yaml (used by the README) free of
// findings, with every schema file present.
func TestExampleIsClean(t *testing.T) {
	s, cs := generateFile(t, connectorconfig.Options{}, "../examples/outbox.yaml")
	if len(cs) != 2 || cs[0].Config["connector.class"] != connectorconfig.PostgresConnectorClass || cs[1].Config["connector.class"] != connectorconfig.MariaDBConnectorClass {
		t.Fatalf("example connectors: %d", len(cs))
	}
	if fs := connectorconfig.Validate(s, cs); len(fs) != 0 {
		t.Errorf("findings: %+v", fs)
	}
	for _, o := range s.Outboxes {
		for _, e := range o.Events {
			for _, v := range e.Versions {
				if _, err := os.Stat(v.SchemaPath); err != nil {
					t.Errorf("%s v%d: %v", e.Name, v.Major, err)
				}
			}
		}
	}
}

// TestGenerateOutbox picks one outbox's connector: the same config Generate
// gives it (server IDs included), and the spec's typed error for a name the
// spec does not have.
func TestGenerateOutbox(t *testing.T) {
	s, err := spec.Parse(spec.Source{Name: "two.yaml", Data: []byte("apiVersion: outboxctl.dev/v1alpha1\nkafka: {bootstrapServers: k:9092}\noutboxes:\n" +
		"  - {name: a, database: {kind: mariadb, connection: {host: db, user: u, dbname: a}}}\n" +
		"  - {name: b, database: {kind: mariadb, connection: {host: db, user: u, dbname: b}}}\n")})
	if err != nil {
		t.Fatal(err)
	}
	all, err := connectorconfig.Generate(s, connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, o, err := connectorconfig.GenerateOutbox(s, "b", connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o != &s.Outboxes[1] || c.Name != all[1].Name || fmt.Sprint(c.Config) != fmt.Sprint(all[1].Config) {
		t.Errorf("GenerateOutbox(b) = %s %v, want %s %v", c.Name, c.Config, all[1].Name, all[1].Config)
	}
	for _, name := range []string{"", "nope"} {
		_, o, err := connectorconfig.GenerateOutbox(s, name, connectorconfig.Options{})
		var nf *spec.OutboxNotFoundError
		if o != nil || !errors.As(err, &nf) || nf.Name != name {
			t.Errorf("GenerateOutbox(%q) = %v, %v; want *spec.OutboxNotFoundError", name, o, err)
		}
	}
}
