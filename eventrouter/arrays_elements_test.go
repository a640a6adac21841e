package eventrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// PostgreSQL arrays of the element types whose scalar is modelled, the
// multi-dimensional values the connector turns into nulls and dimension
// decorations: every expected value here is what Debezium 3.6.1's
// PostgreSQL connector (pgoutput) delivered on the stack for the same
// array literal (JsonConverter with schemas), the differential test's
// pg_array_* variants check them in the placements.
func TestPgArrayElementTypes(t *testing.T) {
	for _, tc := range []struct {
		sqlType, literal string
		want             string // fmt %v of the list
		items            string // element type/name
	}{
		{"char(4)[]", `{ab,"c  ",NULL,""}`, `[ab   c    <nil>     ]`, "string/"},
		{"character(4)[]", `{ab}`, `[ab  ]`, "string/"},
		{"bpchar[]", `{"ab  ",x}`, `[ab   x]`, "string/"},
		{"character varying[]", `{"a b","c,d","NULL",NULL}`, `[a b c,d NULL <nil>]`, "string/"},
		{"citext[]", `{AbC,"x Y"}`, `[AbC x Y]`, "string/"},
		{"json[]", `{"{\"a\": 1}","[1, 2]",null,"\"s\""}`, `[{"a": 1} [1, 2] <nil> "s"]`, "string/" + NameJSON},
		{"jsonb[]", `{"{\"b\":1, \"a\":2}","[1,2]"}`, `[{"a": 2, "b": 1} [1, 2]]`, "string/" + NameJSON},
		{"bytea[]", `{"\\x0102ff","",NULL}`, `[[1 2 255] [] <nil>]`, "bytes/"},
		{"timestamp(3) without time zone[]", `{"2024-01-02 03:04:05.123456","1970-01-01 00:00:00",NULL}`, `[1704164645123 0 <nil>]`, "int64/" + NameTimestamp},
		{"timestamp[]", `{"2024-01-02 03:04:05.123456","2024-01-02 03:04:05"}`, `[1704164645123456 1704164645000000]`, "int64/" + NameMicroTimestamp},
		{"timestamp with time zone[]", `{"2024-01-02 03:04:05.123456+02","2024-07-01 00:00:00Z"}`, `[2024-01-02T01:04:05.123456Z 2024-07-01T00:00:00.000000Z]`, "string/" + NameZonedTimestamp},
		{"timestamptz(2)[]", `{"2024-01-02 03:04:05.125+02"}`, `[2024-01-02T01:04:05.13Z]`, "string/" + NameZonedTimestamp},
		{"time(3) without time zone[]", `{"03:04:05.123456","23:59:59.9999"}`, `[11045123 0]`, "int32/" + NameTime},
		{"time[]", `{"03:04:05.123456",NULL}`, `[11045123000 <nil>]`, "int64/" + NameMicroTime},
		{"time with time zone[]", `{"03:04:05.123456+02","10:00:00-05:30"}`, `[01:04:05Z 15:30:00Z]`, "string/" + NameZonedTime},
		{"timetz(0)[]", `{"03:04:05.6+02","23:59:59.7+00"}`, `[01:04:06Z 00:00:00Z]`, "string/" + NameZonedTime},
		{"time(3) with time zone[]", `{"03:04:05.12345+02"}`, `[01:04:05Z]`, "string/" + NameZonedTime},
		{"hstore[]", `{"\"a\"=>\"1\", \"b\"=>NULL","",NULL}`, `[{"a":"1","b":null} {} <nil>]`, "string/" + NameJSON},
		{"inet[]", `{192.168.0.1/32,10.1.2.3/8,::1}`, `[192.168.0.1 10.1.2.3/8 ::1]`, "string/"},
		{"cidr[]", `{10.1/16,192.168.1}`, `[10.1.0.0/16 192.168.1.0/24]`, "string/"},
		{"macaddr[]", `{08-00-2B-01-02-03}`, `[08:00:2b:01:02:03]`, "string/"},
		{"macaddr8[]", `{08:00:2b:01:02:03}`, `[08:00:2b:ff:fe:01:02:03]`, "string/"},
		{"int4range[]", `{"(1,5]","empty"}`, `[[2,6) empty]`, "string/"},
		{"numrange[]", `{"(1.50,2]"}`, `[(1.50,2]]`, "string/"},
		{"tstzrange[]", `{"[2024-01-01 10:00:00+02,)"}`, `[["2024-01-01 08:00:00+00",)]`, "string/"},
		{"daterange[]", `{"[2024-01-01,2024-02-01)"}`, `[[2024-01-01,2024-02-01)]`, "string/"},
		{"int8range[]", `{"[1,2]"}`, `[[1,3)]`, "string/"},
		{"tsrange[]", `{"[2024-01-01 10:00:00,2024-01-02)"}`, `[["2024-01-01 10:00:00","2024-01-02 00:00:00")]`, "string/"},
		// multi-dimensional values: one null per top-level sub-array
		{"int4[]", `{{1,2},{3,4}}`, `[<nil> <nil>]`, "int32/"},
		{"integer[]", `{{{1}}}`, `[<nil>]`, "int32/"},
		{"int4[][]", `{{1,2},{3,4}}`, `[<nil> <nil>]`, "int32/"},
		{"int4[][]", `{1,2}`, `[1 2]`, "int32/"},
		{"bool[]", `{{NULL,t}}`, `[<nil>]`, "boolean/"},
		{"date[]", `{{2024-01-01}}`, `[<nil>]`, "int32/" + NameDate},
		{"float8[]", `{{1.5,2}}`, `[<nil>]`, "double/"},
		{"timestamp[]", `{{"2024-01-01 00:00:00"}}`, `[<nil>]`, "int64/" + NameMicroTimestamp},
		{"bytea[]", `{{"\\x01"}}`, `[<nil>]`, "bytes/"},
		{"timestamptz[]", `{{"2024-01-01 00:00:00+00"}}`, `[<nil>]`, "string/" + NameZonedTimestamp},
		{"time(3)[]", `{{"01:00:00"},{"02:00:00"}}`, `[<nil> <nil>]`, "int32/" + NameTime},
		{"timetz[]", `{{"01:00:00+00"}}`, `[<nil>]`, "string/" + NameZonedTime},
		{"hstore[]", `{{"a=>1"}}`, `[<nil>]`, "string/" + NameJSON},
		// dimension decorations are dropped
		{"int4[]", `[0:1]={1,2}`, `[1 2]`, "int32/"},
		{"text[]", `[-1:0]={a,b}`, `[a b]`, "string/"},
		{"text[]", `{"a\\\\b","c\"d"," sp ","NULL",NULL,"",x}`, `[a\\b c"d  sp  NULL <nil>  x]`, "string/"},
	} {
		s, err := ColumnSchema(Postgres, tc.sqlType, true)
		if err != nil {
			t.Errorf("%s: %v", tc.sqlType, err)
			continue
		}
		if s.Type != Array || !s.Optional || s.Items == nil || !s.Items.Optional {
			t.Errorf("%s: schema %+v, want an optional array of optional elements", tc.sqlType, s)
			continue
		}
		if got := string(s.Items.Type) + "/" + s.Items.Name; got != tc.items {
			t.Errorf("%s: items %s, want %s", tc.sqlType, got, tc.items)
		}
		in, _ := json.Marshal(tc.literal)
		v, err := ColumnValue(Postgres, tc.sqlType, s, in)
		if err != nil {
			t.Errorf("%s %s: %v", tc.sqlType, tc.literal, err)
			continue
		}
		if got := fmt.Sprintf("%v", v); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.sqlType, tc.literal, got, tc.want)
		}
		for _, e := range v.([]any) {
			if e != nil && schemaTypeOf(e) != s.Items.Type {
				t.Errorf("%s %s: element %#v is a %s, want %s", tc.sqlType, tc.literal, e, schemaTypeOf(e), s.Items.Type)
			}
		}
	}
}

// bit(n)[]: the schema of a bit(n) column, not an array; a value fails
// Struct.put, the column is NULL under warn (nullable), a NOT NULL column
// is refused.
func TestPgBitArray(t *testing.T) {
	for _, tc := range []struct{ typ, schema string }{{"bit(3)[]", "bytes/" + NameBits}, {"bit[]", "boolean/"}, {"bit(1)[]", "boolean/"}} {
		s, err := ColumnSchema(Postgres, tc.typ, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if got := string(s.Type) + "/" + s.Name; got != tc.schema || !s.Optional {
			t.Errorf("%s: schema %s, want optional %s", tc.typ, got, tc.schema)
		}
		_, err = ColumnValue(Postgres, tc.typ, s, json.RawMessage(`"{101}"`))
		v, err := ColumnSettings{}.ConvertFailure("public.t", "c", tc.typ, s, err)
		if v != nil || err != nil {
			t.Errorf("%s: %v, %v; want NULL", tc.typ, v, err)
		}
		s.Optional = false
		_, err = ColumnValue(Postgres, tc.typ, s, json.RawMessage(`"{1}"`))
		if _, err := (ColumnSettings{}).ConvertFailure("public.t", "c", tc.typ, s, err); err == nil {
			t.Errorf("%s NOT NULL: no error", tc.typ)
		}
		if v, err := ColumnValue(Postgres, tc.typ, s, json.RawMessage(`null`)); v != nil || err != nil {
			t.Errorf("%s NULL: %v, %v", tc.typ, v, err)
		}
	}
}

// Array DEFAULTs give no schema default (no mapper for _int4); temporal
// arrays need the worker in UTC.
func TestPgArrayDefaultAndZone(t *testing.T) {
	s, _ := ColumnSchema(Postgres, "int4[]", true)
	for _, expr := range []string{`'{1,2}'::integer[]`, `'{}'::text[]`, `ARRAY[1, 2]`, `NULL::integer[]`} {
		if d, err := ColumnDefault(Postgres, "int4[]", s, expr); d != nil || err != nil {
			t.Errorf("DEFAULT %s: %v, %v; want no default", expr, d, err)
		}
	}
	cs := ColumnSettings{WorkerTimeZone: "Europe/Paris"}
	for typ, refused := range map[string]bool{"timestamptz[]": true, "time[]": true, "timetz[]": true, "timestamp(3)[]": true, "tstzrange[]": true, "tsrange[]": false, "int4[]": false, "inet[]": false} {
		s, err := ColumnSchema(Postgres, typ, true)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if err := cs.Check(Postgres, "c", typ, s); (err != nil) != refused {
			t.Errorf("%s under worker zone Europe/Paris: %v, want refused %v", typ, err, refused)
		}
	}
	// hstore[] under map, bytea[] under base64 / base64-url-safe / hex:
	// modelled (differential variants more_hstore_array_map,
	// more_bytea_array_*)
	for _, c := range []struct {
		typ string
		cs  ColumnSettings
	}{{"hstore[]", ColumnSettings{HStoreHandlingMode: "map"}}, {"bytea[]", ColumnSettings{BinaryHandlingMode: "hex"}}, {"bytea[]", ColumnSettings{BinaryHandlingMode: "base64-url-safe"}}} {
		s, err := ColumnSchemaWith(Postgres, c.typ, true, c.cs)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.cs.Check(Postgres, "c", c.typ, s); err != nil {
			t.Errorf("%s under %+v: %v", c.typ, c.cs, err)
		}
	}
	// the scalar timetz(p): rounded to p digits (seen on the stack)
	s, _ = ColumnSchema(Postgres, "timetz(3)", true)
	if v, err := ColumnValue(Postgres, "timetz(3)", s, json.RawMessage(`"03:04:05.12345+02"`)); v != "01:04:05.123Z" || err != nil {
		t.Errorf("timetz(3) 03:04:05.12345+02: %v, %v; want 01:04:05.123Z", v, err)
	}
}

// Arrays of name, interval, money, varbit and xml have no schema: the
// connector leaves them out of the record (seen on the stack), so does
// the sample's change event; one in the primary key is refused.
func TestPgArrayDroppedColumns(t *testing.T) {
	doc := `{"columns":{"id":"uuid","x":"xml[]","n":"name[]","i":"interval[]","m":"_money","v":"bit varying(5)[]","a":"int4[]"},
		"row":{"id":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","x":"{<a/>}","n":"{n}","i":"{\"1 day\"}","m":"{1}","v":"{1}","a":"{1}"},"primaryKey":["id"]}`
	sr, err := ParseSampleRow(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sr.ChangeEvent(Postgres)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range ev.After {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "id,a" {
		t.Errorf("columns %s, want id,a", got)
	}
	sr, err = ParseSampleRow(strings.NewReader(`{"columns":{"id":"xml[]"},"row":{"id":"{<a/>}"},"primaryKey":["id"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var cte *ColumnTypeError
	if _, err := sr.ChangeEvent(Postgres); !errors.As(err, &cte) {
		t.Errorf("xml[] primary key: %v, want a *ColumnTypeError", err)
	}
	if ColumnDropped(MariaDB, "xml[]") || ColumnDropped(Postgres, "int4[]") || ColumnDropped(Postgres, "xml") {
		t.Errorf("ColumnDropped: only PostgreSQL arrays of name, interval, money, varbit, xml")
	}
}
