package eventrouter_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// The expected defaults are what Debezium 3.6.1 put in the schema on the
// stack (TestDifferentialRelay null_in_defaulted_columns and
// null_payload_defaulted_tombstone_json_headers) or what its default value
// converters compute.
func TestColumnDefault(t *testing.T) {
	pg, maria := eventrouter.Postgres, eventrouter.MariaDB
	for _, tc := range []struct {
		kind     eventrouter.ConnectorKind
		sqlType  string
		nullable bool
		expr     string
		want     any
		wantErr  error
	}{
		{pg, "text", true, "'fallback'", "fallback", nil},
		{pg, "varchar(20)", true, "'x'::character varying", "x", nil},
		{pg, "varchar(20)", true, "''", "", nil},
		{pg, "text", true, "'it''s'", "it", nil}, // the first quoted part only
		{pg, "char(8)", true, "'ab'", "ab", nil}, // no blank padding
		{pg, "int4", true, "7", int32(7), nil},
		{pg, "int8", true, "'-42'::bigint", int64(-42), nil},
		{pg, "int2", true, "'5'::smallint", int16(5), nil},
		{pg, "int4", true, "(1 + 1)", nil, nil}, // an expression: no default
		{pg, "int2", true, "40000", nil, nil},   // out of range for Short.parseShort
		{pg, "boolean", true, "true", true, nil},
		{pg, "bool", true, "'f'", false, nil},
		{pg, "jsonb", true, `'{"b": 1, "a": [1, 2]}'`, `{"a": [1, 2], "b": 1}`, nil},
		{pg, "json", true, `'{"b":1}'::json`, `{"b":1}`, nil},
		{pg, "jsonb", true, "'{}'::jsonb", "{}", nil},
		{pg, "timestamp(3)", true, "'2024-01-02 03:04:05.678'", int64(1704164645678), nil},
		// generated values: a placeholder, not "no default"
		{pg, "timestamp(3)", true, "now()", int64(0), nil},
		{pg, "timestamp", true, "CURRENT_TIMESTAMP", int64(0), nil},
		{pg, "date", true, "CURRENT_DATE", int32(0), nil},
		{pg, "timestamptz", true, "now()", "1970-01-01T00:00:00.000000Z", nil},
		{pg, "timestamptz(3)", true, "CURRENT_TIMESTAMP", "1970-01-01T00:00:00.000Z", nil},
		{pg, "timestamptz(0)", true, "now()", "1970-01-01T00:00:00Z", nil},
		{pg, "uuid", true, "gen_random_uuid()", "00000000-0000-0000-0000-000000000000", nil},
		{pg, "text", true, "now()::text", "", nil},
		{pg, "text", true, "(now())::text", "", nil}, // as the catalog prints it
		{pg, "jsonb", true, "jsonb_build_object('a', 1)", "{}", nil},
		{pg, "int8", true, "nextval('s'::regclass)", int64(0), nil},
		{pg, "boolean", true, "random() > 0.5", false, nil},
		{pg, "varchar(20)", true, "NULL", nil, nil},
		{pg, "varchar(20)", true, "NULL::character varying", nil, nil},
		{pg, "bytea", true, `'\x00'::bytea`, nil, nil}, // no mapper
		{pg, "timestamptz", true, "'2024-01-01 00:00:00+00'", nil, eventrouter.ErrUnsupported},

		{maria, "longtext", true, "'fallback'", "fallback", nil},
		{maria, "varchar(50)", true, "'it''s'", "it''s", nil},
		{maria, "int", true, "7", int32(7), nil},
		{maria, "bigint", true, "-42", int64(-42), nil},
		{maria, "tinyint(1)", true, "TRUE", int16(1), nil},
		{maria, "smallint", true, "5", int16(5), nil},
		{maria, "json", true, `'{"b": 1, "a": [1, 2]}'`, `{"b": 1, "a": [1, 2]}`, nil},
		{maria, "datetime(3)", true, "current_timestamp(3)", int64(0), nil},
		{maria, "datetime(6)", true, "now(6)", int64(0), nil},
		{maria, "datetime(3)", true, "'2024-01-02 03:04:05.678'", int64(1704164645678), nil},
		{maria, "datetime", true, "'0000-00-00 00:00:00'", nil, nil},
		{maria, "datetime", false, "'0000-00-00 00:00:00'", int64(0), nil},
		{maria, "date", false, "'2024-00-10'", int32(0), nil},
		{maria, "date", true, "'not a date'", nil, nil},
		{maria, "timestamp", true, "current_timestamp()", nil, nil},
		{maria, "timestamp", false, "current_timestamp()", "1970-01-01T00:00:00Z", nil},
		{maria, "varchar(36)", true, "uuid()", nil, nil},
		{maria, "varchar(20)", true, "NULL", nil, nil},
		{maria, "blob", true, "'x'", []byte("x"), nil},
		{maria, "binary(3)", true, "'x'", []byte(`x\0\0`), nil},
		{maria, "blob", true, "X'00ff'", nil, nil},
		{maria, "varbinary(4)", true, "X'00ff'", nil, eventrouter.ErrUnsupported},
		{maria, "varbinary(4)", true, "X'4142'", []byte("AB"), nil},
	} {
		t.Run(string(tc.kind)+" "+tc.sqlType+" "+tc.expr, func(t *testing.T) {
			s, err := eventrouter.ColumnSchema(tc.kind, tc.sqlType, tc.nullable)
			if err != nil {
				t.Fatal(err)
			}
			got, err := eventrouter.ColumnDefault(tc.kind, tc.sqlType, s, tc.expr)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("default = %#v, want %#v", got, tc.want)
			}
		})
	}
}

// A NULL in a column with a default reaches the payload, the key and the
// placements as the default; route.by.field and the timestamp see the NULL.
func TestSampleRowDefaultExpression(t *testing.T) {
	sr, err := eventrouter.ParseSampleRow(strings.NewReader(`{
	  "columns": {"id": "uuid not null", "aggregateid": "varchar(20) default 'k0'",
	              "payload": "jsonb DEFAULT '{}'::jsonb", "created_at": "timestamp(3) default now() not null",
	              "status": {"type": "varchar(20)", "defaultExpression": "'new'"}},
	  "row": {"id": "4d47e190-5b1e-4e0f-9d7a-0c3b7e3a9f01", "aggregatetype": "Order", "aggregateid": null,
	          "type": "T", "payload": null, "created_at": "2024-01-01 00:00:00", "status": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := sr.Columns["created_at"]; c.Type != "timestamp(3)" || c.DefaultExpression != "now()" || c.Nullable == nil || *c.Nullable {
		t.Errorf("created_at spec = %+v", c)
	}
	for in, want := range map[string]eventrouter.ColumnSpec{
		`"text NULL DEFAULT 'x'"`:          {Type: "text", DefaultExpression: "'x'"},
		`"text DEFAULT 'x' NOT NULL"`:      {Type: "text", DefaultExpression: "'x'"},
		`"varchar(9) default 'a default'"`: {Type: "varchar(9)", DefaultExpression: "'a default'"},
		`"int4 not null default 0"`:        {Type: "int4", DefaultExpression: "0"},
	} {
		var got eventrouter.ColumnSpec
		if err := json.Unmarshal([]byte(in), &got); err != nil {
			t.Fatal(err)
		}
		notNull := strings.Contains(strings.ToLower(in), "not null")
		if got.Type != want.Type || got.DefaultExpression != want.DefaultExpression || (got.Nullable != nil && !*got.Nullable) != notNull {
			t.Errorf("%s: spec = %+v", in, got)
		}
	}
	cfg, err := eventrouter.ParseConfig(connector(map[string]string{
		"table.fields.additional.placement": "status:header,status:envelope:st",
		"table.field.event.timestamp":       "created_at",
	}, map[string]string{
		"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
		"value.converter.schemas.enable": "false",
	}), "outbox")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sr.ChangeEvent(eventrouter.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	res, err := eventrouter.Route(cfg, ev)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Record
	if string(r.Key) != "k0" {
		t.Errorf("key = %q, want the default k0", r.Key)
	}
	if want := `{"payload":"{}","st":"new"}`; string(r.Value) != want {
		t.Errorf("value = %s, want %s", r.Value, want)
	}
	var status string
	for _, h := range r.Headers {
		if h.Key == "status" {
			status = string(h.Value)
		}
	}
	if status != "new" {
		t.Errorf("status header = %q, want new", status)
	}

	bad := `{"columns": {"p": {"type": "text", "default": "a", "defaultExpression": "'b'"}}, "row": {"p": null}}`
	sr, err = eventrouter.ParseSampleRow(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.ChangeEvent(eventrouter.Postgres); !errors.Is(err, eventrouter.ErrInvalidEvent) {
		t.Errorf("default and defaultExpression: error = %v, want ErrInvalidEvent", err)
	}
}

// A "default" given as a JSON value goes through Debezium's rules as the
// literal the database stores (TestDifferentialRelay
// json_defaults_debezium_rules checks these against the real connectors).
func TestSampleRowJSONDefault(t *testing.T) {
	for _, tc := range []struct {
		kind    eventrouter.ConnectorKind
		sqlType string
		def     string
		want    any
	}{
		{eventrouter.Postgres, "char(8)", `"ab"`, "ab"},
		{eventrouter.Postgres, "varchar(20)", `"it's"`, "it"},
		{eventrouter.Postgres, "varchar(20)", `"a\\b"`, `a\b`},
		{eventrouter.Postgres, "bytea", `"hex:00ff"`, nil},
		{eventrouter.Postgres, "jsonb", `{"b":1,"a":2}`, `{"a": 2, "b": 1}`},
		{eventrouter.Postgres, "int4", `7`, int32(7)},
		{eventrouter.Postgres, "boolean", `true`, true},
		{eventrouter.Postgres, "timestamp(3)", `"2024-01-02 03:04:05.678"`, int64(1704164645678)},
		{eventrouter.Postgres, "timestamp(3)", `1704164645678`, int64(1704164645678)},
		{eventrouter.MariaDB, "varchar(20)", `"it's"`, "it''s"},
		{eventrouter.MariaDB, "varchar(20)", `"a\\b"`, `a\\b`},
		{eventrouter.MariaDB, "blob", `"hex:00ff"`, nil},
		{eventrouter.MariaDB, "varbinary(4)", `"hex:0041"`, []byte(`\0A`)},
		{eventrouter.MariaDB, "tinyint(1)", `false`, int16(0)},
		{eventrouter.MariaDB, "json", `{"b": 1}`, `{"b":1}`},
	} {
		t.Run(string(tc.kind)+" "+tc.sqlType+" "+tc.def, func(t *testing.T) {
			doc := `{"columns": {"c": {"type": "` + tc.sqlType + `", "default": ` + tc.def + `}}, "row": {"c": null}}`
			sr, err := eventrouter.ParseSampleRow(strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := sr.ChangeEvent(tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			if got := ev.After[0].Schema.Default; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("schema default = %#v, want %#v", got, tc.want)
			}
		})
	}
}
