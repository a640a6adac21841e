package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// PostgreSQL discrete ranges: every want is what PostgreSQL 15 printed
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
	} {
		s, _ := ColumnSchema(Postgres, tc.sqlType, true)
		raw, _ := json.Marshal(tc.in)
		if v, err := ColumnValue(Postgres, tc.sqlType, s, raw); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %q: %v, %v; want ErrInvalidEvent", tc.sqlType, tc.in, v, err)
		}
	}
	for _, typ := range []string{"numrange", "tstzrange", "tsrange", "hstore"} {
		var cte *ColumnTypeError
		if _, err := ColumnSchema(Postgres, typ, true); !errors.As(err, &cte) {
			t.Errorf("%s: %v, want a *ColumnTypeError", typ, err)
		}
	}
}
