package eventrouter

import (
	"errors"
	"testing"
)

// TestBinlogMiscDefault: the schema defaults of MariaDB time, year, enum
// and set columns, as the connector derived them on the stack (the
// default_maria_types differential variant, Debezium 3.5.0), for the
// DEFAULT as written.
func TestBinlogMiscDefault(t *testing.T) {
	cases := []struct{ sqlType, expr, want string }{
		{"time(3)", "'12:34:56.7895'", "45296789000"},
		{"time", "'-838:59:59'", "-3020399000000"},
		{"time(6)", "'100:00:00.5'", "360000500000"},
		{"year", "2024", "2024"},
		{"year", "24", "2024"},
		{"year", "0", "2000"},
		{"year", "'00'", "2000"},
		{"year", "'70'", "1970"},
		{"enum('a','B c','d,e')", "'b C'", "B c"},
		{"enum('a','B c','d,e')", "'d,e'", "d,e"},
		{"set('a','b','c')", "'c,a'", "a,c"},
		{"set('a','b')", "''", ""},
		{"year", "NULL", "none"},
		{"bit(3)", "b'101'", "[5]"},
		{"bit(10)", "5", "[5 0]"},
		{"bit(1)", "b'1'", "true"},
		{"bit(1)", "0", "false"},
		{"bit(64)", "b'1000000000000000000000000000000000000000000000000000000000000001'", "[1 0 0 0 0 0 0 128]"},
		{"bit(16)", "0b0000000100000000", "[0 1]"},
	}
	for _, tc := range cases {
		checkDefault(t, MariaDB, tc.sqlType, ColumnSettings{}, tc.expr, tc.want)
	}
	// the allowed labels escape a comma as the DDL parser does
	s, _ := ColumnSchema(MariaDB, "enum('a','d,e')", true)
	if got := s.Parameters[0].Value; got != `a,d\,e` {
		t.Errorf("allowed: %s", got)
	}
	for _, tc := range []struct{ sqlType, expr string }{
		{"time", "123456"},
		{"enum('a','b')", "1"},
		{"year", "'abc'"},
		{"bit(8)", "X'05'"},
	} {
		checkDefaultRefused(t, MariaDB, tc.sqlType, tc.expr)
	}
}

// TestBinlogSpatialDefault: a computed MariaDB spatial DEFAULT gives no
// schema default (default_maria_spatial); a literal one stays refused.
func TestBinlogSpatialDefault(t *testing.T) {
	s, _ := ColumnSchema(MariaDB, "point", true)
	for _, expr := range []string{"(ST_GeomFromText('POINT(1 1)'))", "st_geomfromtext('POINT(1 1)')", "(point(1,2))"} {
		if d, err := ColumnDefault(MariaDB, "point", s, expr); err != nil || d != nil {
			t.Errorf("DEFAULT %s: %v, %v; want none", expr, d, err)
		}
	}
	if _, err := ColumnDefault(MariaDB, "point", s, "X'0101'"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("DEFAULT X'0101': %v, want ErrUnsupported", err)
	}
}
