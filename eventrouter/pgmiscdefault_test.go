package eventrouter

import (
	"errors"
	"fmt"
	"testing"
)

// TestPgMiscDefault: the schema defaults of PostgreSQL money, timetz,
// network, range, hstore, xml, bit, time and interval columns, as the
// connector derived them on the stack (the default_pg_types* differential
// variants, Debezium 3.6.1), for the DEFAULT as written and as pg_get_expr
// prints it. want is the default formatted with %v ("none": no default).
func TestPgMiscDefault(t *testing.T) {
	micro := ColumnSettings{TimePrecisionMode: "adaptive_time_microseconds", IntervalHandlingMode: "string"}
	cases := []struct {
		sqlType, expr string
		cs            ColumnSettings
		want          string
	}{
		{"money", "1.5", ColumnSettings{}, "none"},
		{"money", "'1.00'::money", ColumnSettings{}, "none"},
		{"timetz", "'12:34:56+02'", ColumnSettings{}, "none"},
		{"inet", "'10.0.0.1'", ColumnSettings{}, "none"},
		{"cidr", "'10.0.0.0/8'", ColumnSettings{}, "none"},
		{"macaddr", "'08:00:2b:01:02:03'", ColumnSettings{}, "none"},
		{"macaddr8", "'08:00:2b:01:02:03:04:05'", ColumnSettings{}, "none"},
		{"int4range", "'[1,5)'", ColumnSettings{}, "none"},
		{"tsrange", "'[2024-01-01,2024-02-01)'", ColumnSettings{}, "none"},
		{"hstore", "'a=>1'", ColumnSettings{}, "none"},
		{"xml", "'<a>b</a>'", ColumnSettings{}, "<a>b</a>"},
		{"xml", "'<a>b</a>'::xml", ColumnSettings{}, "<a>b</a>"},
		{"xml", "'it''s <b/>'", ColumnSettings{}, "it"},
		{"bit(3)", "B'101'", ColumnSettings{}, "[5]"},
		{"bit(3)", `'101'::"bit"`, ColumnSettings{}, "[5]"},
		{"bit(1)", "B'1'", ColumnSettings{}, "true"},
		{"varbit(16)", "B'0011'", ColumnSettings{}, "[3]"},
		{"varbit", "''", ColumnSettings{}, "[]"},
		{"time(3)", "'12:34:56.7895'", ColumnSettings{}, "45296789"},
		{"time(3)", "'12:34:56.7895'", micro, "45296789500"},
		{"time", "'24:00:00'", ColumnSettings{}, "86399999999"},
		{"time(0)", "'1:2:3.5'", ColumnSettings{}, "3723500"},
		{"time(6)", "LOCALTIME", ColumnSettings{}, "0"},
		{"interval", "'1 day 02:03:04.5'", ColumnSettings{}, "93784500000"},
		{"interval", "'1 day 02:03:04.5'", micro, "P0Y0M1DT2H3M4.5S"},
		{"interval hour", "'1 day 2:03:04'", ColumnSettings{}, "93600000000"},
		{"interval hour", "'1 day 02:00:00'::interval hour", ColumnSettings{}, "93600000000"},
		{"interval hour", "'1 day 2:03:04'::interval", ColumnSettings{}, "93784000000"},
		{"interval minute to second", "'5'", ColumnSettings{}, "5000000"},
		{"interval(1)", "'00:00:01.26'", ColumnSettings{}, "1300000"},
	}
	for _, tc := range cases {
		checkDefault(t, Postgres, tc.sqlType, tc.cs, tc.expr, tc.want)
	}
	// refused: an expression on an interval column, a time with more
	// than 6 fraction digits, a cast to other interval fields
	for _, tc := range []struct{ sqlType, expr string }{
		{"interval", "'1 day'::interval * 2"},
		{"bit(3)", "X'5'"},
		{"time", "'12:00:00.1234567'"},
		{"interval hour", "'1 day'::interval minute"},
	} {
		checkDefaultRefused(t, Postgres, tc.sqlType, tc.expr)
	}
}

// checkDefault asserts ColumnDefault of sqlType (its schema under cs) for
// the DEFAULT expr: want is the default formatted with %v, "none" for no
// default.
func checkDefault(t *testing.T, kind ConnectorKind, sqlType string, cs ColumnSettings, expr, want string) {
	t.Helper()
	s, err := ColumnSchemaWith(kind, sqlType, true, cs)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ColumnDefault(kind, sqlType, s, expr)
	if err != nil {
		t.Errorf("%s DEFAULT %s: %v", sqlType, expr, err)
		return
	}
	got := "none"
	if d != nil {
		got = fmt.Sprint(d)
	}
	if got != want {
		t.Errorf("%s DEFAULT %s: %s, want %s", sqlType, expr, got, want)
	}
}

// checkDefaultRefused asserts that ColumnDefault refuses the DEFAULT expr
// of sqlType (ErrUnsupported).
func checkDefaultRefused(t *testing.T, kind ConnectorKind, sqlType, expr string) {
	t.Helper()
	s, _ := ColumnSchema(kind, sqlType, true)
	if _, err := ColumnDefault(kind, sqlType, s, expr); !errors.Is(err, ErrUnsupported) {
		t.Errorf("%s DEFAULT %s: %v, want ErrUnsupported", sqlType, expr, err)
	}
}
