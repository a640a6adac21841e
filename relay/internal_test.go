package relay

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

func TestTableOf(t *testing.T) {
	for _, tc := range []struct {
		list, schema, name string
		err                bool
	}{
		{list: `public\.outbox`, schema: "public", name: "outbox"},
		{list: `public.outbox`, schema: "public", name: "outbox"},
		{list: `app_db\.outbox\_x`, schema: "app_db", name: "outbox_x"},
		{list: `public\.out.*`, err: true},
		{list: `public\.a,public\.b`, err: true},
		{list: `outbox`, err: true},
		{list: ``, err: true},
	} {
		s, n, err := tableOf(map[string]string{"table.include.list": tc.list})
		if tc.err {
			if !errors.Is(err, ErrConfig) {
				t.Errorf("%q: err %v, want ErrConfig", tc.list, err)
			}
			continue
		}
		if err != nil || s != tc.schema || n != tc.name {
			t.Errorf("%q: %q %q %v, want %q %q", tc.list, s, n, err, tc.schema, tc.name)
		}
	}
}

// The relay reads timestamptz / TIMESTAMP and BIGINT UNSIGNED columns as
// text and gives the value Debezium delivers, the one route preview gives:
// ZonedTimestamp with the column's fraction digits, the signed long.
func TestConnectValueFromText(t *testing.T) {
	for _, tc := range []struct {
		kind    eventrouter.ConnectorKind
		typ, in string
		want    any
	}{
		{eventrouter.Postgres, "timestamptz", "2024-01-01T00:00:00.000000", "2024-01-01T00:00:00.000000Z"},
		{eventrouter.Postgres, "timestamptz(3)", "2024-01-01T10:20:30.123000", "2024-01-01T10:20:30.123Z"},
		{eventrouter.Postgres, "timestamptz(0)", "2024-01-01T10:20:30.000000", "2024-01-01T10:20:30Z"},
		{eventrouter.MariaDB, "timestamp", "1704067200", "2024-01-01T00:00:00Z"},
		{eventrouter.MariaDB, "timestamp(3)", "1704067200.500", "2024-01-01T00:00:00.500Z"},
		{eventrouter.MariaDB, "timestamp(6)", "1704067200.000000", "2024-01-01T00:00:00.000000Z"},
		{eventrouter.MariaDB, "bigint(20) unsigned", "18446744073709551615", int64(-1)},
	} {
		s, err := eventrouter.ColumnSchema(tc.kind, tc.typ, true)
		if err != nil {
			t.Fatal(err)
		}
		c := column{name: "c", sqlType: tc.typ, schema: s}
		if _, ok := scanDest(c).(*sql.NullString); !ok {
			t.Errorf("%s %s: scanned as %T, want text", tc.kind, tc.typ, scanDest(c))
		}
		tb := &table{kind: tc.kind}
		got, err := tb.connectValue(c, &sql.NullString{String: tc.in, Valid: true})
		if err != nil || got != tc.want {
			t.Errorf("%s %s %q = %#v, %v; want %#v", tc.kind, tc.typ, tc.in, got, err, tc.want)
		}
	}
}

func TestUUIDV7Time(t *testing.T) {
	ts, ok := uuidV7Time("01a23377-5022-7175-9e6c-ef37efa09f0c")
	if !ok || ts.UnixMilli() != 0x01a233775022 {
		t.Errorf("got %v %v", ts.UnixMilli(), ok)
	}
	for _, bad := range []any{"4d47e190-0402-4048-bc2c-89dd90a3d1b8", "x", 42, nil} {
		if _, ok := uuidV7Time(bad); ok {
			t.Errorf("%v: want not a UUIDv7", bad)
		}
	}
}

// The keyset condition of a pass: placeholders in text order (MySQL's are
// positional), after the filter's.
func TestPollQueryKeyset(t *testing.T) {
	for _, tc := range []struct {
		kind  eventrouter.ConnectorKind
		order []string
		after []any
		where string
		args  []any
	}{
		{eventrouter.Postgres, []string{"id"}, nil, ` WHERE "aggregatetype" = $1`, []any{"f"}},
		{eventrouter.Postgres, []string{"id"}, []any{"a"}, ` WHERE "aggregatetype" = $1 AND "id" > $2`, []any{"f", "a"}},
		{eventrouter.Postgres, []string{"seq", "id", "created_at"}, []any{1, "a", "t"},
			` WHERE "aggregatetype" = $1 AND ("seq" > $2 OR ("seq" = $3 AND ("id" > $4 OR ("id" = $5 AND "created_at" > $6))))`, []any{"f", 1, 1, "a", "a", "t"}},
		{eventrouter.MariaDB, []string{"id", "created_at"}, []any{"a", "t"},
			" WHERE `aggregatetype` = ? AND (`id` > ? OR (`id` = ? AND `created_at` > ?))", []any{"f", "a", "a", "t"}},
	} {
		r := &Relay{t: &table{kind: tc.kind}, orderBy: tc.order, query: "SELECT x FROM t%s ORDER BY y"}
		r.args = []any{"f"}
		r.where = []string{r.t.quote("aggregatetype") + " = " + r.t.placeholder(1)}
		q, args := r.pollQuery(tc.after)
		if want := "SELECT x FROM t" + tc.where + " ORDER BY y"; q != want || fmt.Sprint(args) != fmt.Sprint(tc.args) {
			t.Errorf("%s %v after %v:\n got %s %v\nwant %s %v", tc.kind, tc.order, tc.after, q, args, want, tc.args)
		}
		if len(r.args) != 1 {
			t.Errorf("pollQuery changed the filter's args: %v", r.args)
		}
	}
}

// A column of a type the emulator does not model stops the relay at start
// (ErrConfig naming the column and its type), as route preview refuses it,
// instead of publishing a guessed value.
func TestSetColumnsRefusesUnmodelledTypes(t *testing.T) {
	base := func(kind eventrouter.ConnectorKind) []rawColumn {
		id, txt := "uuid", "varchar(255)"
		if kind != eventrouter.Postgres {
			id = "varchar(36)"
		}
		return []rawColumn{{name: "id", typ: id}, {name: "aggregatetype", typ: txt}, {name: "payload", typ: "text", nullable: true}}
	}
	for _, tc := range []struct {
		kind eventrouter.ConnectorKind
		typ  string
	}{
		{eventrouter.Postgres, "interval second to day"},
		{eventrouter.Postgres, "floatrange[]"},
		{eventrouter.MySQL, "uuid"},
		{eventrouter.Postgres, "mytype[]"},
		{eventrouter.MySQL, "vector(3)"},
	} {
		tb := &table{kind: tc.kind, schema: "s", name: "outbox"}
		err := tb.setColumns(append(base(tc.kind), rawColumn{name: "amount", typ: tc.typ, nullable: true}), eventrouter.ColumnSettings{})
		var cte *eventrouter.ColumnTypeError
		if !errors.Is(err, ErrConfig) || !errors.As(err, &cte) || cte.Type != tc.typ {
			t.Errorf("%s %s: %v, want ErrConfig with an eventrouter.ColumnTypeError", tc.kind, tc.typ, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "column amount: ") || !strings.Contains(msg, fmt.Sprintf("%q", tc.typ)) {
			t.Errorf("%s %s: %q does not name the column and its type", tc.kind, tc.typ, msg)
		}
	}
	// an array the connector leaves out under include.unknown.datatypes=
	// false may get a bytes schema under true, which is not modelled
	for _, typ := range []string{"name[]", "point[]", "regclass[]"} {
		tb := &table{kind: eventrouter.Postgres, schema: "s", name: "outbox"}
		err := tb.setColumns(append(base(eventrouter.Postgres), rawColumn{name: "amount", typ: typ, nullable: true}), eventrouter.ParseColumnSettings(map[string]string{"include.unknown.datatypes": "true"}))
		var se *eventrouter.SettingError
		if !errors.Is(err, ErrConfig) || !errors.As(err, &se) || se.Column != "amount" {
			t.Errorf("%s under include.unknown.datatypes=true: %v, want ErrConfig with a SettingError naming column amount", typ, err)
		}
		tb = &table{kind: eventrouter.Postgres, schema: "s", name: "outbox"}
		if err := tb.setColumns(append(base(eventrouter.Postgres), rawColumn{name: "amount", typ: typ, nullable: true}), eventrouter.ColumnSettings{}); err != nil || len(tb.cols) != 3 {
			t.Errorf("%s: %v, %d columns; want it left out", typ, err, len(tb.cols))
		}
	}
	// the modelled ones load
	for _, kind := range []eventrouter.ConnectorKind{eventrouter.Postgres, eventrouter.MariaDB} {
		tb := &table{kind: kind, schema: "s", name: "outbox"}
		if err := tb.setColumns(append(base(kind), rawColumn{name: "amount", typ: "bigint"}), eventrouter.ColumnSettings{}); err != nil || len(tb.cols) != 4 {
			t.Errorf("%s: %v, %d columns", kind, err, len(tb.cols))
		}
	}
	// a connector setting that changes a column's value, and that the
	// emulator does not model, is refused naming the column and the setting
	for _, tc := range []struct {
		kind         eventrouter.ConnectorKind
		typ, setting string
		conf         map[string]string
	}{
		{eventrouter.Postgres, "bytea", "binary.handling.mode", map[string]string{"binary.handling.mode": "base32"}},
		{eventrouter.MariaDB, "bigint(20) unsigned", "bigint.unsigned.handling.mode", map[string]string{"bigint.unsigned.handling.mode": " Double"}},
	} {
		tb := &table{kind: tc.kind, schema: "s", name: "outbox"}
		err := tb.setColumns(append(base(tc.kind), rawColumn{name: "amount", typ: tc.typ, nullable: true}), eventrouter.ParseColumnSettings(tc.conf))
		var se *eventrouter.SettingError
		if !errors.Is(err, ErrConfig) || !errors.Is(err, eventrouter.ErrUnsupported) || !errors.As(err, &se) || se.Column != "amount" || se.Setting != tc.setting {
			t.Errorf("%s %s under %v: %v, want ErrConfig with an eventrouter.SettingError for %s", tc.kind, tc.typ, tc.conf, err, tc.setting)
		}
		// the modelled values of the setting load
		tb = &table{kind: tc.kind, schema: "s", name: "outbox"}
		def := map[string]string{"binary.handling.mode": "bytes", "time.precision.mode": "adaptive_time_microseconds", "bigint.unsigned.handling.mode": "long", "decimal.handling.mode": "string"}
		if err := tb.setColumns(append(base(tc.kind), rawColumn{name: "amount", typ: tc.typ, nullable: true}), eventrouter.ParseColumnSettings(def)); err != nil {
			t.Errorf("%s %s under the defaults: %v", tc.kind, tc.typ, err)
		}
	}
}

// The #31 remaining PostgreSQL types are read as the connector sees them:
// money locale-free through numeric, xml through xml_out (no ::text cast,
// which would keep the declaration), bit strings as text, intervals as
// months, days and microseconds whatever the session's IntervalStyle; a
// NaN numeric under decimal.handling.mode=precise is NULL in a nullable
// column (event.converting.failure.handling.mode=warn) and stops the relay
// with ErrConfig in a NOT NULL one.
func TestRemainingPostgresTypesRead(t *testing.T) {
	tb := &table{kind: eventrouter.Postgres, schema: "s", name: "outbox"}
	raws := []rawColumn{
		{name: "m", typ: "money", nullable: true}, {name: "x", typ: "xml", nullable: true},
		{name: "b", typ: "bit(10)", nullable: true}, {name: "i", typ: "interval(3)", nullable: true},
		{name: "n", typ: "numeric(10,2)", nullable: true}, {name: "nn", typ: "numeric(10,2)"},
	}
	if err := tb.setColumns(raws, eventrouter.ColumnSettings{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m": `"m"::numeric::text`, "x": `"x"`, "b": `"b"::text`, "n": `"n"::text`,
		"i": `((extract(year from "i")*12 + extract(month from "i"))::text || ' mons ' || extract(day from "i")::text || ' days ' || ((extract(hour from "i")*60 + extract(minute from "i"))*60000000 + extract(microseconds from "i"))::text || ' microseconds')`}
	for _, c := range tb.cols {
		if w, ok := want[c.name]; ok && tb.selectExpr(c) != w {
			t.Errorf("%s: select %s, want %s", c.name, tb.selectExpr(c), w)
		}
	}
	for _, tc := range []struct {
		col, in string
		want    string
		config  bool
	}{
		{"m", "-1234.57", "-1234.57", false},
		{"x", `<?xml version="1.0" standalone="yes"?><a/>`, `<?xml version="1.0" standalone="yes"?><a/>`, false},
		{"b", "0000000101", "[5]", false},
		{"i", "-1 years -2 mons +3 days -04:05:06.5", "-36572706500000", false},
		{"i", "00:00:01.235", "1234999", false},                                      // PGInterval.getSeconds: 1 + 235000/1e6 in doubles (setting_interval_numeric_seconds)
		{"i", "-14 mons 3 days -14706500000 microseconds", "-36572706500000", false}, // the select's form of -1 years -2 mons +3 days -04:05:06.5 (the same value)
		{"n", "NaN", "<nil>", false},
		{"nn", "NaN", "", true},
	} {
		c := *tb.col(tc.col)
		got, err := tb.connectValue(c, &sql.NullString{String: tc.in, Valid: true})
		switch {
		case tc.config && !errors.Is(err, ErrConfig):
			t.Errorf("%s %q: %v, want ErrConfig", tc.col, tc.in, err)
		case !tc.config && (err != nil || fmt.Sprint(got) != tc.want):
			t.Errorf("%s %q = %v, %v; want %s", tc.col, tc.in, got, err, tc.want)
		}
	}
	// a type not modelled is refused at start
	for _, typ := range []string{"floatrange[]", "mytype[]"} {
		tb := &table{kind: eventrouter.Postgres, schema: "s", name: "outbox"}
		if err := tb.setColumns([]rawColumn{{name: "c", typ: typ}}, eventrouter.ColumnSettings{}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", typ, err)
		}
	}
}

// Options.BooleanColumns: a named tinyint(1) column becomes the
// connector's binlog-DDL boolean, read as (col <> 0); a name that is no
// tinyint(1) column, or the option on PostgreSQL, is an ErrConfig.
func TestBooleanColumns(t *testing.T) {
	raws := func() []rawColumn {
		return []rawColumn{{name: "id", typ: "varchar(36)"}, {name: "flag", typ: "tinyint(1)", nullable: true}, {name: "n", typ: "int(11)"}}
	}
	tb := &table{kind: eventrouter.MariaDB, schema: "db", name: "outbox"}
	rs := raws()
	if err := booleanColumns(tb, rs, []string{"FLAG"}); err != nil {
		t.Fatal(err)
	}
	if err := tb.setColumns(rs, eventrouter.ColumnSettings{}); err != nil {
		t.Fatal(err)
	}
	c := tb.cols[1]
	if c.schema.Type != eventrouter.Boolean || !c.schema.Optional {
		t.Errorf("flag: schema %+v, want an optional boolean", c.schema)
	}
	if got := tb.selectExpr(c); got != "(`flag` <> 0)" {
		t.Errorf("flag: select %s, want (`flag` <> 0)", got)
	}
	if _, ok := scanDest(c).(*sql.NullBool); !ok {
		t.Errorf("flag: scanned into %T, want *sql.NullBool", scanDest(c))
	}
	for _, tc := range []struct {
		kind  eventrouter.ConnectorKind
		names []string
	}{
		{eventrouter.MariaDB, []string{"n"}},
		{eventrouter.MariaDB, []string{"missing"}},
		{eventrouter.Postgres, []string{"flag"}},
	} {
		tb := &table{kind: tc.kind, schema: "db", name: "outbox"}
		if err := booleanColumns(tb, raws(), tc.names); !errors.Is(err, ErrConfig) {
			t.Errorf("%s %v: %v, want ErrConfig", tc.kind, tc.names, err)
		}
	}
}

// Options.JSONColumns: a named MariaDB longtext column becomes the
// connector's binlog-DDL JSON (io.debezium.data.Json, the text as read); a
// name that is no longtext column, or the option on PostgreSQL or MySQL,
// is an ErrConfig.
func TestJSONColumns(t *testing.T) {
	raws := func() []rawColumn {
		return []rawColumn{{name: "id", typ: "varchar(36)"}, {name: "payload", typ: "longtext", nullable: true}, {name: "n", typ: "int(11)"}}
	}
	tb := &table{kind: eventrouter.MariaDB, schema: "db", name: "outbox"}
	rs := raws()
	if err := jsonColumns(tb, rs, []string{"PAYLOAD"}); err != nil {
		t.Fatal(err)
	}
	if err := tb.setColumns(rs, eventrouter.ColumnSettings{}); err != nil {
		t.Fatal(err)
	}
	c := tb.cols[1]
	if c.schema.Type != eventrouter.String || c.schema.Name != eventrouter.NameJSON || !c.schema.Optional {
		t.Errorf("payload: schema %+v, want an optional io.debezium.data.Json string", c.schema)
	}
	d := scanDest(c)
	ns, ok := d.(*sql.NullString)
	if !ok {
		t.Fatalf("payload: scanned into %T, want *sql.NullString", d)
	}
	*ns = sql.NullString{String: `{"b": 1,  "a":[1]}`, Valid: true}
	if v, err := tb.connectValue(c, d); err != nil || v != `{"b": 1,  "a":[1]}` {
		t.Errorf("payload: %#v, %v; want the text as stored", v, err)
	}
	for _, tc := range []struct {
		kind  eventrouter.ConnectorKind
		names []string
	}{
		{eventrouter.MariaDB, []string{"n"}},
		{eventrouter.MariaDB, []string{"missing"}},
		{eventrouter.MySQL, []string{"payload"}},
		{eventrouter.Postgres, []string{"payload"}},
	} {
		tb := &table{kind: tc.kind, schema: "db", name: "outbox"}
		if err := jsonColumns(tb, raws(), tc.names); !errors.Is(err, ErrConfig) {
			t.Errorf("%s %v: %v, want ErrConfig", tc.kind, tc.names, err)
		}
	}
}

// A column the connector leaves out of its records (a PostgreSQL array of
// name, interval, money, varbit, xml or point, or of a type it leaves out:
// no schema) is left out of the
// relay's records too, not read.
func TestSetColumnsSkipsDroppedColumns(t *testing.T) {
	raws := []rawColumn{{name: "id", typ: "uuid"}, {name: "payload", typ: "text", nullable: true}}
	for _, typ := range []string{"xml[]", "_money", "name[]", "interval[]", "bit varying(5)[]", "tsquery[]", "pg_lsn[]", "jsonpath[]", "int4multirange[]", "box[]", "jsonpath", "aclitem", "refcursor", "composite",
		"point[]", "_point", "regclass[]", "regtype[]", "xid[]", "txid_snapshot[]", "composite[]"} {
		raws = append(raws, rawColumn{name: "c" + fmt.Sprint(len(raws)), typ: typ, nullable: true})
	}
	tb := &table{kind: eventrouter.Postgres, schema: "s", name: "outbox"}
	if err := tb.setColumns(raws, eventrouter.ColumnSettings{}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range tb.cols {
		names = append(names, c.name)
	}
	if got := strings.Join(names, ","); got != "id,payload" {
		t.Errorf("columns %s, want id,payload", got)
	}
}
