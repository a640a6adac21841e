package connectorconfig_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

func pgConnector() connectorconfig.Connector {
	return connectorconfig.Connector{
		Name:      "orders",
		State:     "paused",
		Sensitive: []string{"database.password"},
		Config: map[string]string{
			"connector.class":   "io.debezium.connector.postgresql.PostgresConnector",
			"database.password": "hunter22",
			"topic.prefix":      "orders",
		},
	}
}

// TestReadConnectorsRoundTrip: what WriteJSON/WriteYAML write, ReadConnectors
// reads back, except that a masked secret is refused.
func TestReadConnectorsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer, []connectorconfig.Connector) error
	}{
		{"c.json", func(b *bytes.Buffer, cs []connectorconfig.Connector) error { return connectorconfig.WriteJSON(b, cs) }},
		{"c.yaml", func(b *bytes.Buffer, cs []connectorconfig.Connector) error { return connectorconfig.WriteYAML(b, cs) }},
		{"one.json", func(b *bytes.Buffer, cs []connectorconfig.Connector) error {
			return connectorconfig.WriteJSONObject(b, cs[0])
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := tc.write(&b, []connectorconfig.Connector{pgConnector()}); err != nil {
				t.Fatal(err)
			}
			_, err := connectorconfig.ReadConnectors(tc.file, b.Bytes(), nil)
			var me *connectorconfig.MaskedValueError
			if !errors.As(err, &me) || !errors.Is(err, connectorconfig.ErrMaskedValue) || !errors.Is(err, connectorconfig.ErrBadConnectorsFile) {
				t.Fatalf("masked output: err = %v, want a *MaskedValueError", err)
			}
			if me.File != tc.file || me.Connector != "orders" || me.Key != "database.password" || strings.Contains(err.Error(), "hunter22") {
				t.Errorf("error = %+v", me)
			}

			// With the reference kept (generate --no-resolve), it reads back
			// and resolves.
			c := pgConnector()
			c.Config["database.password"] = "${env:PW}"
			b.Reset()
			if err := tc.write(&b, []connectorconfig.Connector{c}); err != nil {
				t.Fatal(err)
			}
			lookup := &spec.Lookup{Env: func(n string) (string, bool) { return "hunter22", n == "PW" }}
			got, err := connectorconfig.ReadConnectors(tc.file, b.Bytes(), lookup)
			if err != nil {
				t.Fatal(err)
			}
			want := pgConnector()
			if len(got) != 1 || !reflect.DeepEqual(got[0].Config, want.Config) || got[0].State != "paused" || !reflect.DeepEqual(got[0].Sensitive, []string{"database.password"}) {
				t.Errorf("read back %+v, want %+v", got, want)
			}
		})
	}
}

func TestReadConnectorsErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, data, want string }{
		{"a.json", `[]`, "a.json: no connectors declared"},
		{"a.yaml", "# nothing\n", "a.yaml: no connectors declared"},
		{"a.json", `[{"name": "x", "config": {"connector.class": "c", "k": "****"}}]`, `a.json: connector "x": config key "k" holds the masked value "****"`},
		{"a.json", `[{"name": "x", "config": {"connector.class": "c", "k": " [hidden] "}}]`, `config key "k" holds the masked value "[hidden]"`},
		{"a.json", `[{"name": "x", "config": {}}]`, `a.json: connector "x": config has no connector.class`},
		{"a.json", `[{"config": {}}]`, `a.json: connector 1: no name`},
		{"a.json", "[\n{\"nam\": 1}]", `a.json: json: unknown field "nam"`}, {"a.json", "[\n{\"name\": 1}]", `a.json:2:11: "name": want a string, got number`}, {"a.json", `{"name": "x", "config": []}`, `a.json:1:26: "config": want an object, got array`}, {"a.json", `"x"`, `a.json:1:4: the file: want an array, got string`},
		{"a.json", `{"name": "x", "state": "gone", "config": {"connector.class": "c"}}`, `state "gone"`},
		{"<stdin>", "- name: x\n  config: {k: v}\n", `<stdin>: connector "x": config has no connector.class`},
	} {
		_, err := connectorconfig.ReadConnectors(tc.name, []byte(tc.data), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, connectorconfig.ErrBadConnectorsFile) {
			t.Errorf("%s %q: err = %v, want %q", tc.name, tc.data, err, tc.want)
		}
	}
}

func TestIsMasked(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		connectorconfig.Masked: true, "[hidden]": true, "***": true, "(sensitive)": true,
		"**": false, "": false, "pa**word": false, "${env:X}": false, "[x]": false,
	} {
		if got := connectorconfig.IsMasked(v); got != want {
			t.Errorf("IsMasked(%q) = %v", v, got)
		}
	}
}
