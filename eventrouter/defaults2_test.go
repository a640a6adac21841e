package eventrouter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMariaEnumLabels: a MariaDB enum / set label in its stored, printed
// (SHOW CREATE TABLE) and option (the DDL parser's escapeOption) forms,
// the schema's allowed parameter, a row's value and the DEFAULT, as the
// default2_maria_enum_labels differential variant saw them.
func TestMariaEnumLabels(t *testing.T) {
	const enumT = `enum('it''s','a\\b','d,e','x')`
	const enumT2 = `enum('it\'s','q"','l1\nl2')`
	for _, tc := range []struct {
		sqlType, expr, row string
		allowed, def, val  string
	}{
		{enumT, `'it''s'`, `"d,e"`, `it's,a\\b,d\,e,x`, `it''s`, `d\,e`},
		{enumT, `'a\\b'`, `"a\\b"`, `it's,a\\b,d\,e,x`, `a\\b`, `a\\b`},
		{enumT, `'D,E'`, `"IT'S"`, `it's,a\\b,d\,e,x`, `d,e`, `it's`},
		{enumT2, `'it\'s'`, `"q\""`, `it's,q",l1\nl2`, `it''s`, `q"`},
		{enumT2, `'l1\nl2'`, `"l1\nl2"`, `it's,q",l1\nl2`, `l1\nl2`, `l1\nl2`},
		{`enum('q"','y')`, `"q"""`, `2`, `q",y`, `q"`, `y`},
		{`set('it''s','a\\b','x')`, `'x,a\\b,it''s'`, `"a\\b,it's"`, `it's,a\\b,x`, `it''s,a\\b,x`, `it's,a\\b`},
		{`set('it''s','a\\b','x')`, `''`, `5`, `it's,a\\b,x`, ``, `it's,x`},
	} {
		s, err := ColumnSchema(MariaDB, tc.sqlType, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.sqlType, err)
		}
		if got := s.Parameters[0].Value; got != tc.allowed {
			t.Errorf("%s: allowed %q, want %q", tc.sqlType, got, tc.allowed)
		}
		d, err := ColumnDefault(MariaDB, tc.sqlType, s, tc.expr)
		if err != nil || d != tc.def {
			t.Errorf("%s DEFAULT %s: %q, %v; want %q", tc.sqlType, tc.expr, d, err, tc.def)
		}
		v, err := ColumnValue(MariaDB, tc.sqlType, s, []byte(tc.row))
		if err != nil || v != tc.val {
			t.Errorf("%s value %s: %q, %v; want %q", tc.sqlType, tc.row, v, err, tc.val)
		}
	}
	// a label the column does not have, a number DEFAULT
	s, _ := ColumnSchema(MariaDB, enumT, true)
	if _, err := ColumnDefault(MariaDB, enumT, s, "'zz'"); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("DEFAULT 'zz': %v, want ErrInvalidEvent", err)
	}
	if _, err := ColumnDefault(MariaDB, enumT, s, "1"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DEFAULT 1: %v, want ErrUnsupported", err)
	}
}

// TestPgNumericExprDefault: PostgreSQL numeric DEFAULT expressions as
// pg_get_expr prints them and the schema default the connector derives
// from that text (default2_pg_numeric_expr), read as CREATE TABLE wrote
// them (ColumnDefault) and as the catalog prints them
// (CatalogColumnDefault).
func TestPgNumericExprDefault(t *testing.T) {
	for _, tc := range []struct {
		sql, printed, want string
	}{
		{"(1+2)", "(1 + 2)", "none"},
		{"-1.5::numeric", "(- 1.5)", "none"},
		{"(-1 + 2)", "('-1'::integer + 2)", "-1.00"},
		{"(1e2 + 1)", "('100'::numeric + 1)", "100.00"},
		{"(1.5)", "1.5", "1.50"},
		{"+1.5", "(+ 1.5)", "none"},
		{"2::numeric", "(2)::numeric", "none"},
		{"'1.5'::numeric(10,1)", "1.5::numeric(10,1)", "none"},
		{"'2'::numeric(10,1)", "'2'::numeric(10,1)", "2.00"},
		{"(3000000000 * 2)", "('3000000000'::bigint * 2)", "3000000000.00"},
		{"(-2)::numeric", "('-2'::integer)::numeric", "-2.00"},
		{"2.5 * 2", "(2.5 * 2)", "none"},
		{"(-1.555 + 0)", "('-1.555'::numeric + 0)", "none"},
	} {
		printed, ok := pgNumericSQLDefault(tc.sql)
		if !ok || printed != tc.printed {
			t.Errorf("%s: printed %q (%v), want %q", tc.sql, printed, ok, tc.printed)
		}
		s, _ := ColumnSchema(Postgres, "numeric(14,2)", true)
		for _, read := range []struct {
			name string
			f    func(ConnectorKind, string, *Schema, string) (any, error)
			expr string
		}{{"sql", ColumnDefault, tc.sql}, {"catalog", CatalogColumnDefault, tc.printed}} {
			d, err := read.f(Postgres, "numeric(14,2)", s, read.expr)
			got := "none"
			if d != nil {
				got = fmt.Sprint(d)
			}
			if err != nil || got != tc.want {
				t.Errorf("%s %s: %s, %v; want %s", read.name, read.expr, got, err, tc.want)
			}
		}
	}
}

// TestPgFunctionDefaultBitInterval: a function call on a bit, varbit or
// interval column is the mapper's placeholder (default2_pg_numeric_expr).
func TestPgFunctionDefaultBitInterval(t *testing.T) {
	for _, tc := range []struct {
		sqlType, expr, want string
		settings            ColumnSettings
	}{
		{"bit(3)", "repeat('1', 3)::bit(3)", "[]", ColumnSettings{}},
		{"bit(1)", "repeat('1', 1)::bit(1)", "false", ColumnSettings{}},
		{"varbit(8)", "repeat('1', 2)::varbit(8)", "[]", ColumnSettings{}},
		{"interval", "make_interval(days => 1)", "0", ColumnSettings{}},
		{"interval hour", "make_interval(hours => 5)", "0", ColumnSettings{}},
		{"interval", "make_interval(days => 1)", "P0Y0M0DT0H0M0S", ColumnSettings{IntervalHandlingMode: "string"}},
	} {
		s, err := ColumnSchemaWith(Postgres, tc.sqlType, true, tc.settings)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ColumnDefault(Postgres, tc.sqlType, s, tc.expr)
		if err != nil || fmt.Sprint(d) != tc.want {
			t.Errorf("%s DEFAULT %s: %v, %v; want %s", tc.sqlType, tc.expr, d, err, tc.want)
		}
	}
}

// TestNotCapturable: a MariaDB inet4 / inet6 column fails the connector's
// task: route preview reports the connector's ParsingException.
func TestNotCapturable(t *testing.T) {
	sr, err := ParseSampleRow(strings.NewReader(`{"op":"c","table":"db.outbox","columns":{"id":{"type":"varchar(36)"},"addr":{"type":"inet6"}},"row":{"id":"1","addr":"::1"},"primaryKey":["id"]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(map[string]string{"connector.class": "io.debezium.connector.mariadb.MariaDbConnector", "transforms": "outbox", "transforms.outbox.type": EventRouterClass}, "outbox")
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sr.ChangeEventFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var te *TaskError
	if _, err := Route(cfg, ev); !errors.As(err, &te) || te.Stage != StageConnector || te.Exception != "io.debezium.text.ParsingException" {
		t.Fatalf("Route: %v, want the connector's ParsingException", err)
	}
	if ce := (&NotCapturableError{Column: "addr", Type: "inet6"}); !errors.Is(ce, ErrNotCapturable) {
		t.Error("NotCapturableError does not unwrap to ErrNotCapturable")
	}
}

// TestMariaBinaryDefaultPrinting: the text SHOW CREATE TABLE prints for a
// binary DEFAULT, as the connector takes it (default2_maria_unsigned_binary):
// binary and varbinary double a quote and print Ctrl-Z as it is, a blob
// writes \' and \Z; both \0 \n \r and a doubled backslash; other control
// bytes as they are; a byte of 0x80 or more refused.
func TestMariaBinaryDefaultPrinting(t *testing.T) {
	for _, tc := range []struct{ sqlType, expr, want string }{
		{"varbinary(10)", "X'0109410A0D7F1A'", "\x01\tA\\n\\r\x7f\x1a"},
		{"binary(3)", "X'1F'", "\x1f\\0\\0"},
		{"varbinary(10)", "'x''y'", "x''y"},
		{"blob", `'q\n''\Z'`, `q\n\'\Z`},
	} {
		s, _ := ColumnSchema(MariaDB, tc.sqlType, true)
		d, err := ColumnDefault(MariaDB, tc.sqlType, s, tc.expr)
		b, _ := d.([]byte)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s DEFAULT %s: %q, %v; want %q", tc.sqlType, tc.expr, b, err, tc.want)
		}
	}
	s, _ := ColumnSchema(MariaDB, "varbinary(4)", true)
	if _, err := ColumnDefault(MariaDB, "varbinary(4)", s, "X'FF'"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DEFAULT X'FF': %v, want ErrUnsupported", err)
	}
	// the catalog prints X'FF' as '?': the relay refuses a ? there
	if _, err := CatalogColumnDefault(MariaDB, "varbinary(4)", s, "'?'"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("catalog DEFAULT '?': %v, want ErrUnsupported", err)
	}
}

// TestMariaParenLiteralDefault: MariaDB stores a parenthesized literal as
// the constant ((1.5) prints 1.50), a computed DEFAULT stays one (none);
// under bigint.unsigned.handling.mode=precise too
// (default2_pg_numeric_expr, default2_maria_unsigned_binary).
func TestMariaParenLiteralDefault(t *testing.T) {
	s, _ := ColumnSchema(MariaDB, "decimal(10,2)", true)
	for expr, want := range map[string]string{"(1.5)": "1.50", "('1.5')": "1.50", "+1.5": "1.50", "(1+2)": "none", "(-1.5 * 1)": "none", "(1e2 + 1)": "none"} {
		d, err := ColumnDefault(MariaDB, "decimal(10,2)", s, expr)
		got := "none"
		if d != nil {
			got = fmt.Sprint(d)
		}
		if err != nil || got != want {
			t.Errorf("decimal(10,2) DEFAULT %s: %s, %v; want %s", expr, got, err, want)
		}
	}
	cs := ColumnSettings{BigIntUnsignedMode: "precise"}
	u, _ := ColumnSchemaWith(MariaDB, "bigint unsigned", true, cs)
	for _, f := range []func(ConnectorKind, string, *Schema, string) (any, error){ColumnDefault, CatalogColumnDefault} {
		for _, expr := range []string{"(1+1)", "(18446744073709551615 - 1)"} {
			if d, err := f(MariaDB, "bigint unsigned", u, expr); err != nil || d != nil {
				t.Errorf("bigint unsigned DEFAULT %s: %v, %v; want none", expr, d, err)
			}
		}
	}
}

// TestJSONDefaultUnderTimeMode: a sample row's JSON "default" under a
// time.precision.mode that changes the column's schema is the DEFAULT
// literal, converted as the mode converts a value
// (default2_time_mode_json_*); a number is refused.
func TestJSONDefaultUnderTimeMode(t *testing.T) {
	for _, tc := range []struct {
		kind          ConnectorKind
		mode, sqlType string
		def, want     string
	}{
		{Postgres, "microseconds", "timestamp(3)", `"2024-01-02 03:04:05.6789"`, "1704164645678900"},
		{MariaDB, "microseconds", "datetime(3)", `"2024-01-02 03:04:05.6789"`, "1704164645678000"},
		{Postgres, "isostring", "date", `"2024-01-02"`, "2024-01-02Z"},
		{MariaDB, "connect", "time(3)", `"12:00:00.12345"`, "43200123"},
	} {
		s, err := ColumnSchemaWith(tc.kind, tc.sqlType, true, ColumnSettings{TimePrecisionMode: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		d, err := jsonColumnDefault(tc.kind, tc.sqlType, s, []byte(tc.def))
		if err != nil || fmt.Sprint(d) != tc.want {
			t.Errorf("%s %s %s default %s: %v, %v; want %s", tc.kind, tc.mode, tc.sqlType, tc.def, d, err, tc.want)
		}
		if _, err := jsonColumnDefault(tc.kind, tc.sqlType, s, []byte("12345")); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s %s %s default 12345: %v, want ErrUnsupported", tc.kind, tc.mode, tc.sqlType, err)
		}
	}
}
