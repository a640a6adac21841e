package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// PostgreSQL ranges: every want is what PostgreSQL 15 printed
// for the input (psql on the stack, 2026-12-07); the differential test's
// pg_ranges variant checks the connector passes that text on.
func TestPgRangeColumnValue(t *testing.T) {
	for _, tc := range []struct{ sqlType, in, want string }{
		{"int4range", "(1,5]", "[2,6)"},
		{"int4range", "[5,5)", "empty"},
		{"int4range", "(5,5]", "empty"},
		{"int4range", "[5,5]", "[5,6)"},
		{"int4range", "(,5]", "(,6)"},
		{"int4range", "[1,)", "[1,)"},
		{"int4range", "(,)", "(,)"},
		{"int4range", "EMPTY", "empty"},
		{"int4range", " [ 1 , 5 ] ", "[1,6)"},
		{"int4range", `["1","5"]`, "[1,6)"},
		{"int4range", "[-2147483648,2147483646]", "[-2147483648,2147483647)"},
		{"int4range", "(4,5)", "empty"},
		{"int8range", "[1,1)", "empty"},
		{"daterange", "(2024-01-31,2024-02-29]", "[2024-02-01,2024-03-01)"},
		{"numrange", "[1.50,2)", "[1.50,2)"},
		{"numrange", "(1e2,1.5e3]", "(100,1500]"},
		{"numrange", "[1e-2,0.0100]", "[0.01,0.0100]"},
		{"numrange", "[-0.00,)", "[0.00,)"},
		{"numrange", "(1.0,1.00)", "empty"},
		{"numrange", "[1.0,1.00]", "[1.0,1.00]"},
		{"numrange", "(,)", "(,)"},
		{"numrange", " ( 1.5 , 2 ] ", "(1.5,2]"},
		{"numrange", "[ 00001.5000 ,+2]", "[1.5000,2]"},
		{"tsrange", "[2024-01-01 10:00:00.500,2024-01-02)", `["2024-01-01 10:00:00.5","2024-01-02 00:00:00")`},
		{"tsrange", `("2024-01-01T10:00:00","2024-01-01 10:00:00"]`, "empty"},
		{"tsrange", "[2024-01-01,)", `["2024-01-01 00:00:00",)`},
	} {
		s, err := ColumnSchema(Postgres, tc.sqlType, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.sqlType, err)
		}
		if s.Type != String || s.Name != "" {
			t.Errorf("%s: schema %s/%s, want a plain string", tc.sqlType, s.Type, s.Name)
		}
		raw, _ := json.Marshal(tc.in)
		v, err := ColumnValue(Postgres, tc.sqlType, s, raw)
		if err != nil || v != tc.want {
			t.Errorf("%s %q: %v, %v; want %s", tc.sqlType, tc.in, v, err, tc.want)
		}
	}
	for _, tc := range []struct{ sqlType, in string }{
		{"int4range", "[5,1)"},
		{"int4range", "[1,2147483647]"},
		{"daterange", "[1,infinity)"},
		{"int4range", "[1,2,3)"},
		{"numrange", "[NaN,1)"},
		{"numrange", "[2,1.5)"},
		{"tsrange", "[infinity,)"},
	} {
		s, _ := ColumnSchema(Postgres, tc.sqlType, true)
		raw, _ := json.Marshal(tc.in)
		if v, err := ColumnValue(Postgres, tc.sqlType, s, raw); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %q: %v, %v; want ErrInvalidEvent", tc.sqlType, tc.in, v, err)
		}
	}
}

// tstzrange: bounds printed in the replication session's time zone, the
// Connect worker JVM's (UTC modelled; another is refused).
func TestPgTstzrangeValue(t *testing.T) {
	s, err := ColumnSchema(Postgres, "tstzrange", true)
	if err != nil || s.Type != String || s.Name != "" {
		t.Fatalf("schema %+v, %v; want a plain string", s, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`[2024-01-01 10:00:00.500+02,2024-01-02)`, `["2024-01-01 08:00:00.5+00","2024-01-02 00:00:00+00")`},
		{` ( "2024-01-01T00:00:00-05:30" ,] `, `("2024-01-01 05:30:00+00",)`},
		{`[2024-01-01 10:00+0100,2024-01-01 09:00Z)`, `empty`},
		{`[2024-01-01 10:00:00+01,2024-01-01 09:00:00Z]`, `["2024-01-01 09:00:00+00","2024-01-01 09:00:00+00"]`},
		{`(,)`, `(,)`},
	} {
		raw, _ := json.Marshal(tc.in)
		v, err := ColumnValue(Postgres, "tstzrange", s, raw)
		if err != nil || v != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.in, v, err, tc.want)
		}
	}
	for _, in := range []string{`[2024-01-02+00,2024-01-01+00)`, `[infinity,)`, `[2024-01-01 10:00:00.1234567,)`, `[2024-01-01 10:00+16,)`} {
		raw, _ := json.Marshal(in)
		if v, err := ColumnValue(Postgres, "tstzrange", s, raw); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s: %v, %v; want ErrInvalidEvent", in, v, err)
		}
	}
	var se *SettingError
	if err := (ColumnSettings{WorkerTimeZone: "GMT+01:00"}).Check(Postgres, "r", "tstzrange", s); !errors.As(err, &se) {
		t.Errorf("worker time zone GMT+01:00: %v, want a *SettingError", err)
	}
	if err := (ColumnSettings{WorkerTimeZone: "UTC"}).Check(Postgres, "r", "tstzrange", s); err != nil {
		t.Errorf("worker time zone UTC: %v", err)
	}
}
