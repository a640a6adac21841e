package provisioning_test

import (
	"github.com/outboxctl/outboxctl/internal/golden"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Assert(t, filepath.Join("testdata", t.Name(), name), []byte(got))
}

// target parses a one-outbox spec and generates its connector.
func target(t *testing.T, kind, extra string) provisioning.Target {
	t.Helper()
	doc := `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: ` + kind + `
      connection: {host: db, user: dbz, password: "${env:PW}", dbname: shop}
` + extra
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := provisioning.Targets(s, connectorconfig.Options{BootstrapServers: "kafka:9092"})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

func TestTableDDL(t *testing.T) {
	cases := []struct{ name, kind, extra string }{
		{"postgres_avro_defaults", spec.Postgres, ""},
		{"postgres_json_all_columns", spec.Postgres, "    payloadFormat: json\n    columns: {timestamp: created_at, tracing: tracingspancontext}\n"},
		{"postgres_partitioned", spec.Postgres, "    columns: {timestamp: created_at}\n    partitioning: {interval: day}\n"},
		{"postgres_renamed_no_version", spec.Postgres, "    schema: sales\n    table: outbox_events\n    columns: {id: event_id, aggregateType: AggType, schemaVersion: \"\"}\n"},
		{"mysql_json", spec.MySQL, "    payloadFormat: json\n    columns: {timestamp: created_at}\n"},
		{"mysql_avro", spec.MySQL, ""},
		{"mariadb_json", spec.MariaDB, "    payloadFormat: json\n    columns: {tracing: tracingspancontext}\n"},
		{"mariadb_avro_payload_type_override", spec.MariaDB, "    columns: {payloadType: mediumblob, timestamp: ts}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg := target(t, tc.kind, tc.extra)
			got := strings.Join(provisioning.TableDDL(tg.Outbox), ";\n") + ";\n"
			// Every column of the contract is in the DDL, with its type.
			for _, c := range tg.Outbox.ColumnContract() {
				if !strings.Contains(got, c.Name) || !strings.Contains(got, c.SQLType) {
					t.Errorf("DDL misses column %s %s", c.Name, c.SQLType)
				}
			}
			assertGolden(t, "ddl.sql", got)
		})
	}
}

func TestNormalizeType(t *testing.T) {
	cases := []struct{ kind, a, b string }{
		{spec.Postgres, "varchar(255)", "character varying(255)"},
		{spec.Postgres, "timestamp(6)", "timestamp(6) without time zone"},
		{spec.Postgres, "integer", "int"},
		{spec.Postgres, "JSONB", "jsonb"},
		{spec.MySQL, "int(11)", "int"},
		{spec.MariaDB, "json", "longtext"},
		{spec.MySQL, "datetime(6)", "DATETIME(6)"},
	}
	for _, c := range cases {
		if provisioning.NormalizeType(c.kind, c.a) != provisioning.NormalizeType(c.kind, c.b) {
			t.Errorf("%s: %q and %q should normalise alike", c.kind, c.a, c.b)
		}
	}
	if provisioning.NormalizeType(spec.Postgres, "jsonb") == provisioning.NormalizeType(spec.Postgres, "json") {
		t.Error("jsonb and json must differ")
	}
	if provisioning.NormalizeType(spec.Postgres, "timestamptz") == provisioning.NormalizeType(spec.Postgres, "timestamp") {
		t.Error("timestamptz and timestamp must differ")
	}
}

// The relay's NOTIFY trigger on an existing table: planned when it is
// missing or notifies another channel, with CREATE OR REPLACE TRIGGER from
// PostgreSQL 14 and DROP + CREATE before.
func TestPlanNotifyTrigger(t *testing.T) {
	tg := target(t, spec.Postgres, "    relay: {notify: outbox_orders}\n")
	for _, tc := range []struct {
		name, version, channel string
		fresh                  bool
		want                   []string // statement prefixes of the relay-notify steps
	}{
		{"missing, PG15", "15.8", "", false, []string{"CREATE OR REPLACE FUNCTION", "CREATE OR REPLACE TRIGGER"}},
		{"other channel", "15.8", "outbox_other", false, []string{"CREATE OR REPLACE FUNCTION", "CREATE OR REPLACE TRIGGER"}},
		{"missing, PG13", "13.4 (Debian 13.4-1)", "", false, []string{"CREATE OR REPLACE FUNCTION", "DROP TRIGGER IF EXISTS \"outbox_relay_notify\" ON", "CREATE TRIGGER"}},
		{"present", "15.8", "outbox_orders", false, nil},
		{"fresh table", "12.1", "", true, []string{"CREATE OR REPLACE FUNCTION", "DROP TRIGGER IF EXISTS", "CREATE TRIGGER"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyPG(t, tg)
			f.Version, f.Table.NotifyChannel = tc.version, tc.channel
			if tc.fresh {
				f.Table = nil
			}
			steps, _ := provisioning.PlanSteps(tg, f, provisioning.Options{})
			var got []string
			for _, s := range steps {
				if s.ID == "relay-notify" {
					got = append(got, s.SQL)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("relay-notify steps %q, want %q", got, tc.want)
			}
			for i, p := range tc.want {
				if !strings.HasPrefix(got[i], p) {
					t.Errorf("step %d: %s, want %s…", i, got[i], p)
				}
			}
			warned := slices.ContainsFunc(provisioning.Check(tg, f, provisioning.Options{}), func(fd provisioning.Finding) bool { return fd.Rule == provisioning.IDRelayNotify })
			if warned != (len(tc.want) > 0 && !tc.fresh) {
				t.Errorf("RELAY_NOTIFY_TRIGGER finding: %v", warned)
			}
		})
	}
}
