package eventrouter

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The values a fixed-point column delivers per decimal.handling.mode, and
// how the converters write a Decimal (checked against the real connectors
// by the differential test's decimal_* variants).
func TestDecimalColumnValue(t *testing.T) {
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
		mode    string
		in      string // JSON
		// want: precise → base64 of the unscaled bytes and toString;
		// string → the text; double → Double.toString
		want, str string
	}{
		{Postgres, "numeric(10,2)", "precise", `"12.345"`, "BNM=", "12.35"},
		{Postgres, "numeric(10,2)", "precise", `"-0.005"`, "/w==", "-0.01"},
		{Postgres, "numeric(10,2)", "precise", `0`, "AA==", "0.00"},
		{Postgres, "numeric(10,2)", "precise", `"1.275"`, "AIA=", "1.28"},
		{Postgres, "numeric(10,2)", "precise", `"-1.28"`, "gA==", "-1.28"},
		{MariaDB, "decimal(20,10)", "precise", `"0.00000001"`, "ZA==", "1.00E-8"},
		{MariaDB, "decimal(20,10)", "precise", `"0"`, "AA==", "0E-10"},
		{MariaDB, "decimal(5)", "precise", `"1e3"`, "A+g=", "1000"},
		{MariaDB, "decimal(20,10)", "string", `"0.00000001"`, "0.0000000100", ""},
		{MariaDB, "decimal", "string", `"-0.4"`, "0", ""},
		{Postgres, "numeric", "string", `"-0.000000123"`, "-0.000000123", ""},
		{Postgres, "numeric", "string", `"1.50e1"`, "15.0", ""},
		{Postgres, "numeric(20,10)", "double", `"0.00000001"`, "1.0E-8", ""},
		{Postgres, "numeric(10,2)", "double", `"12.345"`, "12.35", ""},
	} {
		cs := ColumnSettings{DecimalHandlingMode: tc.mode}
		s, err := ColumnSchemaWith(tc.kind, tc.sqlType, true, cs)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.sqlType, tc.mode, err)
		}
		v, err := ColumnValue(tc.kind, tc.sqlType, s, json.RawMessage(tc.in))
		if err != nil {
			t.Fatalf("%s %s %s: %v", tc.sqlType, tc.mode, tc.in, err)
		}
		switch x := v.(type) {
		case Decimal:
			if got := base64.StdEncoding.EncodeToString(x.bytes()); got != tc.want {
				t.Errorf("%s %s: bytes %s, want %s", tc.sqlType, tc.in, got, tc.want)
			}
			if got := javaToString(x); got != tc.str {
				t.Errorf("%s %s: toString %s, want %s", tc.sqlType, tc.in, got, tc.str)
			}
		default:
			if got := javaToString(x); got != tc.want {
				t.Errorf("%s %s %s: %s, want %s", tc.sqlType, tc.mode, tc.in, got, tc.want)
			}
		}
	}
}

func TestDecimalSchemaAndRefusals(t *testing.T) {
	s, err := ColumnSchema(Postgres, "numeric(10,2)", false)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := writeJSONSchema(&sb, Converter{Kind: JSONConverter}, s); err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"}}`; sb.String() != want {
		t.Errorf("schema %s, want %s", sb.String(), want)
	}
	// an unconstrained numeric under precise is a VariableScaleDecimal
	for _, mode := range []string{"", "precise"} {
		s, err := ColumnSchemaWith(Postgres, "numeric", true, ColumnSettings{DecimalHandlingMode: mode})
		if err != nil || s.Name != NameVariableScaleDecimal {
			t.Errorf("numeric under %q: %+v, %v, want a VariableScaleDecimal", mode, s, err)
		}
	}
	// decimal.format=numeric on a JsonConverter: BigDecimal.toString as a
	// JSON number (setting_decimal_format_numeric*)
	num := Converter{Kind: JSONConverter, DecimalNumeric: true}
	for in, want := range map[string]string{`"0.00000001"`: `1.00E-8`, `"12.3"`: `12.30`, `"-0.005"`: `-0.01`, `"1e3"`: `1000.00`} {
		typ := "numeric(10,2)"
		if in == `"0.00000001"` {
			typ = "numeric(20,10)"
		}
		ts, _ := ColumnSchema(Postgres, typ, false)
		v, err := ColumnValue(Postgres, typ, ts, json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := convert(num, ts, v); err != nil || string(b) != want {
			t.Errorf("decimal.format=numeric %s: %s, %v; want %s", in, b, err, want)
		}
	}
	// a computed DEFAULT of a numeric column is refused (decimaldefault_test.go
	// has the modelled ones), DEFAULT NULL is none
	if _, err := ColumnDefault(Postgres, "numeric(10,2)", s, "5 % 2"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("numeric default: %v, want ErrUnsupported", err)
	}
	if d, err := ColumnDefault(MariaDB, "decimal(10,2)", s, "NULL"); err != nil || d != nil {
		t.Errorf("DEFAULT NULL: %v %v", d, err)
	}
	// more digits than the precision: the database refuses the row
	if _, err := ColumnValue(MariaDB, "decimal(5)", &Schema{Type: Bytes, Name: NameDecimal}, json.RawMessage(`123456`)); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("overflow: %v, want ErrInvalidEvent", err)
	}
}
