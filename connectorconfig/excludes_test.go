package connectorconfig_test

import (
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

// TestExcludesTable: the include and exclude lists as Debezium applies
// them (anchored Java regexes, comma-separated) decide whether the outbox
// table is captured; a list cleanup cannot check does not count as a match.
func TestExcludesTable(t *testing.T) {
	pg := &spec.Outbox{Database: spec.Database{Kind: spec.Postgres}, Schema: "public", Table: "outbox"}
	ma := &spec.Outbox{Database: spec.Database{Kind: spec.MariaDB}, Schema: "shop", Table: "outbox"}
	pgClass := map[string]string{"connector.class": connectorconfig.PostgresConnectorClass}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name   string
		o      *spec.Outbox
		config map[string]string
		want   int
	}{
		{"no lists", pg, pgClass, 0},
		{"generated", pg, with(pgClass, "table.include.list", `public\.outbox`), 0},
		{"another table", pg, with(pgClass, "table.include.list", `public\.other`), 1},
		{"one of several", pg, with(pgClass, "table.include.list", `public\.other, public\.out.*`), 0},
		{"prefix only (anchored)", pg, with(pgClass, "table.include.list", `public\.out`), 1},
		{"excluded", pg, with(pgClass, "table.exclude.list", `public\..*`), 1},
		{"schema not included", pg, with(pgClass, "schema.include.list", "app"), 1},
		{"mariadb database list", ma, map[string]string{"database.include.list": "billing"}, 1},
		{"mariadb table list", ma, map[string]string{"table.include.list": `shop\.outbox`, "database.include.list": "shop"}, 0},
		{"unparsable regex", pg, with(pgClass, "table.include.list", `public\.(outbox`), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := connectorconfig.ExcludesTable(tc.config, tc.o); len(got) != tc.want {
				t.Errorf("ExcludesTable = %v, want %d", got, tc.want)
			}
		})
	}
}
