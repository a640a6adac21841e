package eventrouter

import (
	"encoding/json"
	"fmt"
	"testing"
)

// MySQL / MariaDB FLOAT / DOUBLE / DECIMAL [UNSIGNED] [ZEROFILL] and
// FLOAT(M,D) / DOUBLE(M,D), as the differential variants
// maria_zerofill_{json,string,double} found the 3.5 MariaDB connector
// delivering them (the value, never the zero-padded text).
func TestBinlogRealColumns(t *testing.T) {
	for _, tc := range []struct {
		sqlType, mode, in string
		schema, want      string
	}{
		{"float unsigned zerofill", "", `1.5`, "float/", "1.5"},
		{"float unsigned zerofill", "", `"0000000001.5"`, "float/", "1.5"},
		{"double zerofill", "", `0.1`, "double/", "0.1"},
		{"double unsigned zerofill", "", `1.7976931348623157e308`, "double/", "1.7976931348623157e+308"},
		// FLOAT(M,D): a FLOAT64 of the stored float, the fraction rounded
		// to D digits with ties to even
		{"float(7,2) zerofill", "", `2.125`, "double/", "2.119999885559082"},
		{"float(7,2)", "", `2.135`, "double/", "2.130000114440918"},
		{"float(7,2)", "", `2.145`, "double/", "2.1500000953674316"},
		{"float(7,2) unsigned zerofill", "", `"0003.14"`, "double/", "3.140000104904175"},
		{"double(10,3) unsigned zerofill", "", `"12345.6785"`, "double/", "12345.678"},
		{"double(10,3) unsigned zerofill", "", `1.0005`, "double/", "1"},
		{"decimal(5,2) unsigned zerofill", "", `"001.50"`, "bytes/" + NameDecimal, "1.50"},
		{"decimal(5,2) unsigned zerofill", "string", `"0.005"`, "string/", "0.01"},
		{"decimal(10,0) zerofill", "double", `"0000000042"`, "double/", "42"},
	} {
		s, err := ColumnSchemaWith(MariaDB, tc.sqlType, true, ColumnSettings{DecimalHandlingMode: tc.mode})
		if err != nil {
			t.Fatalf("%s: %v", tc.sqlType, err)
		}
		if got := string(s.Type) + "/" + s.Name; got != tc.schema {
			t.Errorf("%s: schema %s, want %s", tc.sqlType, got, tc.schema)
		}
		v, err := ColumnValue(MariaDB, tc.sqlType, s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s %s: %v", tc.sqlType, tc.in, err)
			continue
		}
		if got := fmt.Sprint(v); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.sqlType, tc.in, got, tc.want)
		}
	}
	if !ColumnReadAsText(MariaDB, "float(7,2) zerofill") || ColumnReadAsText(MariaDB, "float zerofill") || ColumnReadAsText(Postgres, "float8") {
		t.Error("ColumnReadAsText: only a MySQL / MariaDB FLOAT(M,D) among the floats")
	}
}
