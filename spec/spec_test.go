package spec_test

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/outboxctl/outboxctl/internal/golden"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/spec"
)

func TestLoadExample(t *testing.T) {
	s, err := spec.Load("../examples/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Outboxes) != 2 {
		t.Fatalf("got %d outboxes, want 2", len(s.Outboxes))
	}
	o := s.Outboxes[0]
	if o.Name != "orders" || o.Database.Kind != spec.Postgres || o.Schema != "public" || o.Table != "outbox" {
		t.Errorf("orders outbox: %+v", o)
	}
	if got := o.Columns.SchemaVersionColumn(); got != "schemaversion" {
		t.Errorf("schema version column = %q, want the default schemaversion", got)
	}
	if got := o.Connector.PosOf("name"); got.Line != 45 || got.Col != 13 {
		t.Errorf("connector.name position = %s, want line 45 col 13", got)
	}
	if got := o.Events[0].Versions[1].SchemaPath; got != filepath.Join("..", "examples", "schemas", "order", "OrderCreated.v2.avsc") {
		t.Errorf("schema path = %q", got)
	}
	if _, err := os.Stat(o.Events[0].Versions[1].SchemaPath); err != nil {
		t.Errorf("schema path does not exist: %v", err)
	}
	p := s.Outboxes[1]
	if p.Database.Kind != spec.MariaDB || p.Schema != "payments" || p.Database.Connection.Port != 13306 {
		t.Errorf("payments outbox: %+v", p)
	}
	if got := p.Connector.PosOf("overrides.poll.interval.ms"); got.Line != 72 {
		t.Errorf("override position = %s, want line 72", got)
	}
}

func TestDefaults(t *testing.T) {
	s, err := spec.Parse(spec.Source{Name: "a.yaml", Data: []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: shop
    database:
      kind: mysql
      connection: {host: db, user: u, password: "${env:P}", dbname: shop}
`)})
	if err != nil {
		t.Fatal(err)
	}
	o := s.Outboxes[0]
	want := spec.Columns{ID: "id", AggregateType: "aggregatetype", AggregateID: "aggregateid", Type: "type", Payload: "payload"}
	got := o.Columns
	got.Node, got.SchemaVersion = spec.Node{}, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("columns = %+v, want %+v", got, want)
	}
	if o.Connector.Name != "shop-outbox" || o.Connector.TopicPrefix != "shop" || o.Connector.Snapshot != "no_data" ||
		o.Connector.Profile != spec.ProfileLatency || o.Connector.State != spec.StateRunning || o.PayloadFormat != spec.FormatAvro {
		t.Errorf("connector defaults: %+v", o.Connector)
	}
	if o.Routing.TopicReplacement != "outbox.event.${routedByValue}" || o.Routing.ByField != "aggregatetype" {
		t.Errorf("routing defaults: %+v", o.Routing)
	}
	if o.Database.Connection.Port != 3306 || o.Schema != "shop" || o.Table != "outbox" {
		t.Errorf("database defaults: port %d schema %s table %s", o.Database.Connection.Port, o.Schema, o.Table)
	}
}

// TestErrors checks that every problem is reported with its position.
func TestErrors(t *testing.T) {
	_, err := spec.Load("testdata/many_errors.yaml")
	if !errors.Is(err, spec.ErrInvalidSpec) {
		t.Fatalf("err = %v, want ErrInvalidSpec", err)
	}
	golden.Assert(t, "testdata/many_errors.want", []byte(err.Error()+"\n"))
}

func TestDuplicatesAcrossFiles(t *testing.T) {
	_, err := spec.Load("testdata/dup")
	if err == nil {
		t.Fatal("no error for duplicate outbox names")
	}
	msg := err.Error()
	for _, w := range []string{
		`testdata/dup/b.yaml:3:11: outbox "orders" declared twice: here and at testdata/dup/a.yaml:3:11`,
		`connector "orders-outbox" declared twice`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}

func TestLoadFolderMerges(t *testing.T) {
	s, err := spec.Load("testdata/folder")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range s.Outboxes {
		names = append(names, o.Name)
	}
	if strings.Join(names, ",") != "orders,shipping,billing" {
		t.Errorf("outboxes = %v, want orders,shipping,billing (file order, then document order)", names)
	}
}

func TestSecrets(t *testing.T) {
	l := spec.Lookup{
		Env: func(n string) (string, bool) {
			if n == "PG_PASSWORD" {
				return "s3cret", true
			}
			return "", false
		},
		ReadFile: func(p string) ([]byte, error) {
			if p == "/run/secrets/pg" {
				return []byte("fromfile\n"), nil
			}
			return nil, os.ErrNotExist
		},
	}
	for _, tt := range []struct {
		ref, want string
		ok        bool
	}{
		{"${env:PG_PASSWORD}", "s3cret", true},
		{"${file:/run/secrets/pg}", "fromfile", true},
		{"${file:/opt/secrets.properties:pg.password}", "${file:/opt/secrets.properties:pg.password}", true},
		{"${secrets:db/pg:password}", "${secrets:db/pg:password}", true},
		{"${env:MISSING}", "", false},
		{"${file:/nope}", "", false},
		{"hunter2", "", false},
		{"pre${env:X}", "", false},
	} {
		got, err := l.Resolve(tt.ref)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q ok=%v", tt.ref, got, err, tt.want, tt.ok)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error leaks the secret: %v", err)
		}
	}
}

func TestColumnContract(t *testing.T) {
	for _, tt := range []struct {
		kind, format, payload, id string
	}{
		{spec.Postgres, spec.FormatAvro, "bytea", "uuid"},
		{spec.Postgres, spec.FormatJSON, "jsonb", "uuid"},
		{spec.MySQL, spec.FormatAvro, "longblob", "varchar(36)"},
		{spec.MySQL, spec.FormatJSON, "json", "varchar(36)"},
		{spec.MariaDB, spec.FormatJSON, "longtext", "varchar(36)"},
	} {
		sv := "schemaversion"
		o := spec.Outbox{Database: spec.Database{Kind: tt.kind}, PayloadFormat: tt.format,
			Columns: spec.Columns{ID: "id", AggregateType: "aggregatetype", AggregateID: "aggregateid", Type: "type", Payload: "payload", Tracing: "tracingspancontext", SchemaVersion: &sv}}
		cols := o.ColumnContract()
		byRole := map[string]spec.Column{}
		for _, c := range cols {
			byRole[c.Role] = c
		}
		if byRole[spec.RolePayload].SQLType != tt.payload || byRole[spec.RoleID].SQLType != tt.id {
			t.Errorf("%s/%s: payload %s id %s, want %s %s", tt.kind, tt.format, byRole[spec.RolePayload].SQLType, byRole[spec.RoleID].SQLType, tt.payload, tt.id)
		}
		if _, ok := byRole[spec.RoleTimestamp]; ok {
			t.Errorf("%s: timestamp column present though off", tt.kind)
		}
		if byRole[spec.RoleTracing].Name != "tracingspancontext" || byRole[spec.RoleSchemaVersion].Name != "schemaversion" {
			t.Errorf("%s: optional columns missing: %+v", tt.kind, cols)
		}
	}
}

// TestJSONSchema checks that the published schema is the one derived from
// the Go types (run with -update after changing them).
func TestJSONSchema(t *testing.T) {
	got := spec.JSONSchema()
	golden.Assert(t, "outbox.schema.json", got)
	for _, key := range []string{`"apiVersion"`, `"outboxes"`, `"topicReplacement"`, `"schemaHistoryTopic"`, `"payloadType"`, `"additionalProperties": false`} {
		if !bytes.Contains(got, []byte(key)) {
			t.Errorf("schema lacks %s", key)
		}
	}
}

func FuzzLoad(f *testing.F) {
	for _, p := range []string{"../examples/outbox.yaml", "testdata/many_errors.yaml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: outboxctl.dev/v1alpha1\noutboxes: [{name: a, database: {kind: postgres}}]\n---\n*x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := spec.Parse(spec.Source{Name: "fuzz.yaml", Data: data})
		if err == nil && s == nil {
			t.Fatal("nil spec without error")
		}
		if err != nil && !errors.Is(err, spec.ErrInvalidSpec) {
			t.Fatalf("error does not wrap ErrInvalidSpec: %v", err)
		}
	})
}

// TestAliasBomb checks that alias expansion cannot make Parse explode: 100
// outboxes x 100 events x 100 versions from a few hundred bytes.
func TestAliasBomb(t *testing.T) {
	refs := func(ref string) string { return strings.Repeat(", "+ref, 99) }
	doc := "apiVersion: outboxctl.dev/v1alpha1\noutboxes:\n" +
		"  - &o {name: a, database: {kind: postgres, connection: {host: h, user: u, dbname: d}}, events: [&ev {name: E, aggregate: A, versions: [&v {major: 1, schema: a.avsc}" + refs("*v") + "]}" + refs("*ev") + "]}\n" +
		strings.Repeat("  - *o\n", 99)
	start := time.Now()
	_, err := spec.Parse(spec.Source{Name: "bomb.yaml", Data: []byte(doc)})
	if err == nil || !strings.Contains(err.Error(), "document too large") {
		t.Fatalf("err = %v, want document too large", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Parse took %v", d)
	}
}

// TestEmptySpecRejected: a spec without outboxes would let deploy --prune
// delete every managed connector, so Load refuses it.
func TestEmptySpecRejected(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"empty":         "",
		"comments":      "# nothing yet\n",
		"dashes":        "---\n---\n",
		"no outboxes":   "apiVersion: outboxctl.dev/v1alpha1\noutboxes: []\n",
		"kafka only":    "apiVersion: outboxctl.dev/v1alpha1\nkafka: {bootstrapServers: k:9092}\n",
		"null outboxes": "apiVersion: outboxctl.dev/v1alpha1\noutboxes:\n",
	} {
		_, err := spec.Parse(spec.Source{Name: "s.yaml", Data: []byte(doc)})
		if !errors.Is(err, spec.ErrInvalidSpec) || !strings.Contains(err.Error(), "s.yaml: no outboxes declared") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestIsSpec(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]bool{
		"apiVersion: x\n":                  true,
		"# c\n---\noutboxes: []\n":         true,
		"kafka: {}\n":                      true,
		"accepted: []\n":                   false,
		"name: ci\non: [push]\njobs: {}\n": false,
		"- name: orders\n  config: {}\n":   false,
		"":                                 false,
		"outboxes:\n\t- bad\n":             true, // a syntax error is reported, not skipped
	} {
		if got := spec.IsSpec([]byte(doc)); got != want {
			t.Errorf("IsSpec(%q) = %v", doc, got)
		}
	}
}

// TestTooManyValues: a document over the bound of decoded values fails
// once, with the size error and its real cause, and nothing else (issue 25
// item 9: 20,000 outboxes printed 20,952 "<default>: outbox: name is
// required" lines before it, and blamed aliases that were not used).
func TestTooManyValues(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: outboxctl.dev/v1alpha1\noutboxes:\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "  - name: o%d\n    database: {kind: postgres, connection: {host: h, user: u, dbname: d, port: 5432}}\n    connector: {profile: latency, state: running}\n", i)
	}
	_, err := spec.Parse(spec.Source{Name: "big.yaml", Data: []byte(b.String())})
	var list spec.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v, want an ErrorList", err)
	}
	if len(list) != 1 {
		t.Fatalf("%d errors, want 1; the first ones:\n%s", len(list), spec.ErrorList(list[:min(5, len(list))]).Error())
	}
	if msg := list[0].Error(); !strings.HasPrefix(msg, "big.yaml:") || !strings.Contains(msg, "document too large: more than 200000 values") || strings.Contains(msg, "alias") {
		t.Errorf("error = %q", msg)
	}
}
