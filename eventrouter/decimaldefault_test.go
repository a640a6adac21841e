package eventrouter

import (
	"errors"
	"fmt"
	"testing"
)

// TestDecimalDefault: the schema defaults of fixed-point columns, as the
// connectors derived them on the stack (the default_numeric_* differential
// variants: Debezium 3.6.1 PostgreSQL, 3.5.0 MariaDB), under every
// decimal.handling.mode. want is the default as the mode delivers it,
// formatted with %v (a Decimal as BigDecimal.toString); "none" is no
// default.
func TestDecimalDefault(t *testing.T) {
	cases := []struct {
		kind                 ConnectorKind
		sqlType, expr        string
		precise, str, double string
	}{
		// PostgreSQL: written form and pg_get_expr's form
		{Postgres, "numeric(10,2)", "0", "0.00", "0.00", "0"},
		{Postgres, "numeric(10,2)", "'1.5'", "1.50", "1.50", "1.5"},
		{Postgres, "numeric(10,2)", "1.5", "1.50", "1.50", "1.5"},
		{Postgres, "numeric(10,2)", "-1", "-1.00", "-1.00", "-1"},
		{Postgres, "numeric(10,2)", "'-1'::integer", "-1.00", "-1.00", "-1"},
		{Postgres, "numeric(10,2)", "1.555", "none", "none", "none"},
		{Postgres, "numeric(10,2)", "'1.500'", "1.50", "1.50", "1.5"},
		{Postgres, "numeric(10,2)", "'  7 '", "7.00", "7.00", "7"},
		{Postgres, "numeric(10,2)", "'7'::numeric", "7.00", "7.00", "7"},
		{Postgres, "numeric(10,3)", "1e2", "100.000", "100.000", "100"},
		{Postgres, "numeric(10,3)", "'100'::numeric", "100.000", "100.000", "100"},
		{Postgres, "numeric(10,2)", "'NaN'", "none", "none", "none"},
		{Postgres, "numeric(10,2)", "'NaN'::numeric", "none", "none", "none"},
		{Postgres, "numeric(10,2)", "random()", "0.00", "0.00", "0"},
		{Postgres, "numeric(5)", "12.5", "none", "none", "none"},
		{Postgres, "numeric(5)", "'12.0'", "12", "12", "12"},
		{Postgres, "numeric", "1.50", "none", "1.50", "1.5"},
		{Postgres, "numeric", "'-1.0e-3'", "none", "-0.0010", "-0.001"},
		{Postgres, "numeric(38,10)", "12345678901234567890.123", "12345678901234567890.1230000000", "12345678901234567890.1230000000", "1.2345678901234567e+19"},
		{Postgres, "numeric(10,2)", "NULL", "none", "none", "none"},
		{Postgres, "numeric(10,2)", "NULL::numeric", "none", "none", "none"},
		// MariaDB: the written form and SHOW CREATE TABLE's
		{MariaDB, "decimal(10,2)", "0", "0.00", "0.00", "0"},
		{MariaDB, "decimal(10,2)", "'1.5'", "1.50", "1.50", "1.5"},
		{MariaDB, "decimal(10,2)", "-1.00", "-1.00", "-1.00", "-1"},
		{MariaDB, "decimal(10,2)", "1.555", "1.56", "1.56", "1.56"},
		{MariaDB, "decimal(10,2)", "' 7 '", "7.00", "7.00", "7"},
		{MariaDB, "decimal(10,3)", "1e2", "100.000", "100.000", "100"},
		{MariaDB, "decimal(10,2)", "TRUE", "1.00", "1.00", "1"},
		{MariaDB, "decimal(10,2)", "rand()", "none", "none", "none"},
		{MariaDB, "decimal(5)", "12.5", "13", "13", "13"},
		{MariaDB, "decimal", "1.50", "2", "2", "2"},
		{MariaDB, "decimal(20,6)", "'-0.000001'", "-0.000001", "-0.000001", "-1e-06"},
		{MariaDB, "decimal(10,2)", "NULL", "none", "none", "none"},
	}
	for _, tc := range cases {
		for mode, want := range map[string]string{"precise": tc.precise, "string": tc.str, "double": tc.double} {
			s, err := ColumnSchemaWith(tc.kind, tc.sqlType, true, ColumnSettings{DecimalHandlingMode: mode})
			if err != nil {
				t.Fatal(err)
			}
			d, err := ColumnDefault(tc.kind, tc.sqlType, s, tc.expr)
			if err != nil {
				t.Errorf("%s %s DEFAULT %s (%s): %v", tc.kind, tc.sqlType, tc.expr, mode, err)
				continue
			}
			got := "none"
			if d != nil {
				got = fmt.Sprint(d)
			}
			if got != want {
				t.Errorf("%s %s DEFAULT %s (%s): %s, want %s", tc.kind, tc.sqlType, tc.expr, mode, got, want)
			}
		}
	}
	// expressions the model does not read are refused
	for _, expr := range []string{"'1' + 2", "5 % 2", "'1.5'::float8"} {
		s, _ := ColumnSchema(Postgres, "numeric(10,2)", true)
		if _, err := ColumnDefault(Postgres, "numeric(10,2)", s, expr); !errors.Is(err, ErrUnsupported) {
			t.Errorf("DEFAULT %s: %v, want ErrUnsupported", expr, err)
		}
	}
}
