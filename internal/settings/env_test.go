package settings_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/settings"
)

// TestEnvironmentTable: every canonical name is OUTBOXCTL_*, every alias
// OUTBOX_*, and no name appears twice.
func TestEnvironmentTable(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range settings.Environment {
		if !strings.HasPrefix(v.Name, "OUTBOXCTL_") {
			t.Errorf("%s: canonical name without the OUTBOXCTL_ prefix", v.Name)
		}
		if v.Meaning == "" {
			t.Errorf("%s: no meaning", v.Name)
		}
		if v.Flag != "" && !strings.HasPrefix(v.Flag, "--") {
			t.Errorf("%s: flag %q is not --name", v.Name, v.Flag)
		}
		for _, n := range append([]string{v.Name}, v.Aliases...) {
			if seen[n] {
				t.Errorf("%s appears twice", n)
			}
			seen[n] = true
		}
		for _, a := range v.Aliases {
			if !strings.HasPrefix(a, "OUTBOX_") || strings.HasPrefix(a, "OUTBOXCTL_") {
				t.Errorf("%s: alias %s is not an OUTBOX_* name", v.Name, a)
			}
		}
	}
}

// TestLookupEnvPrecedence: the canonical name wins over an alias; an alias
// applies when the canonical name is unset or empty; other names are read
// as they are.
func TestLookupEnvPrecedence(t *testing.T) {
	const canon, alias = settings.EnvConnectURL, "OUTBOX_CONNECT_URL"
	for _, tc := range []struct {
		name      string
		env       map[string]string
		key       string
		want      string
		wantFrom  string
		conflicts []settings.EnvConflict
	}{
		{"neither", nil, canon, "", "", nil},
		{"canonical only", map[string]string{canon: "http://a"}, canon, "http://a", canon, nil},
		{"alias only", map[string]string{alias: "http://b"}, canon, "http://b", alias, nil},
		{"both differ: canonical wins", map[string]string{canon: "http://a", alias: "http://b"}, canon, "http://a", canon,
			[]settings.EnvConflict{{Name: canon, Alias: alias}}},
		{"both equal: no conflict", map[string]string{canon: "http://a", alias: "http://a"}, canon, "http://a", canon, nil},
		{"empty canonical falls to the alias", map[string]string{canon: "", alias: "http://b"}, canon, "http://b", alias, nil},
		{"asked by alias name", map[string]string{canon: "http://a", alias: "http://b"}, alias, "http://a", canon,
			[]settings.EnvConflict{{Name: canon, Alias: alias}}},
		{"name outside the table", map[string]string{"HOME": "/h", "OUTBOX_STACK_DIR": "/s"}, "OUTBOX_STACK_DIR", "/s", "OUTBOX_STACK_DIR", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			got, from := settings.LookupEnv(getenv, tc.key)
			if got != tc.want || from != tc.wantFrom {
				t.Errorf("LookupEnv(%s) = %q from %q, want %q from %q", tc.key, got, from, tc.want, tc.wantFrom)
			}
			if s := settings.AliasAware(getenv)(tc.key); s != tc.want {
				t.Errorf("AliasAware(%s) = %q, want %q", tc.key, s, tc.want)
			}
			if c := settings.Conflicts(getenv); !reflect.DeepEqual(c, tc.conflicts) {
				t.Errorf("Conflicts = %v, want %v", c, tc.conflicts)
			}
		})
	}
}

// TestFromEnvAliases: FromEnv reads the OUTBOX_* aliases the Makefile and
// CI export, and the canonical names over them.
func TestFromEnvAliases(t *testing.T) {
	env := map[string]string{
		"OUTBOX_BOOTSTRAP_SERVERS":         "old:9092",
		"OUTBOX_CONNECT_URL":               "http://old:8083",
		settings.EnvConnectURL:             "http://new:8083",
		"OUTBOX_PG_DSN":                    "postgres://old",
		"OUTBOX_CONNECT_PG_HOST":           "pg", // a dev-stack name, read as is
		settings.EnvSchemaRegistryURL:      "",
		"OUTBOX_SCHEMA_REGISTRY_URL":       "http://old:8081",
		"OUTBOX_CONNECT_BOOTSTRAP_SERVERS": "kafka:9092",
	}
	s := settings.FromEnv(func(k string) string { return env[k] })
	want := map[string]string{
		"BootstrapServers":        "old:9092",
		"ConnectURL":              "http://new:8083",
		"PostgresDSN":             "postgres://old",
		"ConnectPostgresHost":     "pg",
		"SchemaRegistryURL":       "http://old:8081",
		"ConnectBootstrapServers": "kafka:9092",
		"MySQLDSN":                settings.DefaultMySQLDSN,
	}
	rv := reflect.ValueOf(s)
	for f, w := range want {
		if got := rv.FieldByName(f).String(); got != w {
			t.Errorf("%s = %q, want %q", f, got, w)
		}
	}
}
