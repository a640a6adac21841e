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
	for _, typ := range []string{"tstzrange"} {
		var cte *ColumnTypeError
		if _, err := ColumnSchema(Postgres, typ, true); !errors.As(err, &cte) {
			t.Errorf("%s: %v, want a *ColumnTypeError", typ, err)
		}
	}
}
