package eventrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// An unconstrained PostgreSQL numeric under decimal.handling.mode=precise
// is a VariableScaleDecimal struct; checked against the real connector by
// the differential test's setting_decimal_precise_variable_scale* variants.
func TestVariableScaleDecimal(t *testing.T) {
	s, err := ColumnSchemaWith(Postgres, "numeric", true, ColumnSettings{})
	if err != nil {
		t.Fatal(err)
	}
	js := Converter{Kind: JSONConverter, SchemasEnable: true}
	for _, tc := range []struct {
		in, json, header string
	}{
		{`"1.50e1"`, `{"scale":0,"value":"Dw=="}`, `{"scale":0,"value":"Dw=="}`},
		{`"-0.000000123"`, `{"scale":9,"value":"hQ=="}`, `{"scale":9,"value":"hQ=="}`},
		{`"0.000"`, `{"scale":0,"value":"AA=="}`, `{"scale":0,"value":"AA=="}`},
		{`"100"`, `{"scale":0,"value":"ZA=="}`, `{"scale":0,"value":"ZA=="}`},
		{`"-128"`, `{"scale":0,"value":"gA=="}`, `{"scale":0,"value":"gA=="}`},
		{`128`, `{"scale":0,"value":"AIA="}`, `{"scale":0,"value":"AIA="}`},
		{`"1.2300"`, `{"scale":2,"value":"ew=="}`, `{"scale":2,"value":"ew=="}`},
	} {
		v, err := ColumnValue(Postgres, "numeric", s, json.RawMessage(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		b, err := convert(Converter{Kind: JSONConverter}, s, v)
		if err != nil || string(b) != tc.json {
			t.Errorf("%s: JsonConverter %s, %v; want %s", tc.in, b, err, tc.json)
		}
		h, err := convertHeader(Converter{Kind: SimpleHeaderConverter}, s, v)
		if err != nil || string(h) != tc.header {
			t.Errorf("%s: SimpleHeaderConverter %s, %v; want %s", tc.in, h, err, tc.header)
		}
		// Struct.toString prints the value byte[] by identity: the
		// placeholder, marked (identityhash_test.go)
		str, err := convert(Converter{Kind: StringConverter}, s, v)
		hs := identityHashes(Converter{Kind: StringConverter}, s, v)
		if want := fmt.Sprintf("Struct{scale=%d,value=[B@%s}", v.(*Struct).Values[0], PlaceholderIdentityHash); err != nil || string(str) != want || len(hs) != 1 || hs[0] != len(want)-9 {
			t.Errorf("%s: StringConverter %q %v %v, want %q", tc.in, str, hs, err, want)
		}
	}
	b, err := convert(js, s, nil)
	if err != nil || string(b) != `{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},{"type":"bytes","optional":false,"field":"value"}],"optional":true,"name":"io.debezium.data.VariableScaleDecimal","version":1,"doc":"Variable scaled decimal"},"payload":null}` {
		t.Errorf("schema: %s, %v", b, err)
	}
	// NaN: the converter throws; NULL under warn
	if _, err := ColumnValue(Postgres, "numeric", s, json.RawMessage(`"NaN"`)); !errors.As(err, new(*ConvertError)) {
		t.Errorf("NaN: %v, want a *ConvertError", err)
	}
	// numeric[]: a list of optional VariableScaleDecimals
	as, err := ColumnSchemaWith(Postgres, "numeric[]", true, ColumnSettings{DecimalHandlingMode: "precise"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ColumnValue(Postgres, "numeric[]", as, json.RawMessage(`"{1.50,NULL}"`))
	if err != nil {
		t.Fatal(err)
	}
	b, err = convert(Converter{Kind: JSONConverter}, as, v)
	if err != nil || string(b) != `[{"scale":1,"value":"Dw=="},null]` {
		t.Errorf("numeric[]: %s, %v", b, err)
	}
}

// bigint.unsigned.handling.mode=precise: a MariaDB BIGINT UNSIGNED is a
// Decimal(20, 0) of the unsigned value (setting_bigint_unsigned_precise*).
func TestUnsignedBigintPrecise(t *testing.T) {
	cs := ColumnSettings{BigIntUnsignedMode: "precise", DecimalHandlingMode: "string"}
	for _, typ := range []string{"bigint unsigned", "bigint(20) unsigned zerofill"} {
		s, err := ColumnSchemaWith(MariaDB, typ, true, cs)
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if err := writeJSONSchema(&sb, Converter{Kind: JSONConverter}, s); err != nil {
			t.Fatal(err)
		}
		if want := `{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"0","connect.decimal.precision":"20"}}`; sb.String() != want {
			t.Errorf("%s: schema %s, want %s", typ, sb.String(), want)
		}
		if err := cs.Check(MariaDB, "c", typ, s); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
		for in, want := range map[string]string{`"18446744073709551615"`: "18446744073709551615", `9223372036854775808`: "9223372036854775808", `0`: "0"} {
			v, err := ColumnValue(MariaDB, typ, s, json.RawMessage(in))
			if err != nil || javaToString(v) != want {
				t.Errorf("%s %s = %v, %v; want %s", typ, in, v, err, want)
			}
		}
		// its DEFAULT is the column's value (default_maria_unsigned_precise)
		if d, err := ColumnDefault(MariaDB, typ, s, "18446744073709551615"); err != nil || javaToString(d) != "18446744073709551615" {
			t.Errorf("%s DEFAULT 18446744073709551615: %v, %v", typ, d, err)
		}
		// a computed one gives none (default2_maria_unsigned_binary), an
		// unquoted non-number is refused
		if d, err := ColumnDefault(MariaDB, typ, s, "(1 + 1)"); err != nil || d != nil {
			t.Errorf("%s DEFAULT (1 + 1): %v, %v; want none", typ, d, err)
		}
		if _, err := ColumnDefault(MariaDB, typ, s, "0x10"); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s DEFAULT 0x10: %v, want ErrUnsupported", typ, err)
		}
	}
	// a signed bigint and int unsigned are unchanged
	if s, _ := ColumnSchemaWith(MariaDB, "int unsigned", true, cs); s.Type != Int64 || s.Name != "" {
		t.Errorf("int unsigned under precise: %+v", s)
	}
	if err := (ColumnSettings{BigIntUnsignedMode: "double"}).Check(MariaDB, "c", "bigint unsigned", &Schema{Type: Int64}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("bigint.unsigned.handling.mode=double: %v, want ErrUnsupported", err)
	}
}

// interval.handling.mode=string: Interval.toIsoString of PGInterval's
// parts (setting_interval_string*).
func TestIntervalString(t *testing.T) {
	cs := ColumnSettings{IntervalHandlingMode: "string"}
	for _, tc := range []struct{ typ, in, want string }{
		{"interval", "1 year 2 mons 3 days 04:05:06.123456", "P1Y2M3DT4H5M6.123456S"},
		{"interval", "-1 days +02:00:00", "P0Y0M-1DT2H0M0S"},
		{"interval", "-00:00:06.5", "P0Y0M0DT0H0M-6.5S"},
		{"interval", "-1 years -2 mons", "P-1Y-2M0DT0H0M0S"},
		{"interval", "00:00:01.235", "P0Y0M0DT0H0M1.234999999S"}, // the double 1.2349999999999999, cut to 9 digits
		{"interval", "00:00:00.000001", "P0Y0M0DT0H0M0.000001S"},
		{"interval", "100:00:00", "P0Y0M0DT100H0M0S"},
		{"interval(3)", "-00:00:59.9995", "P0Y0M0DT0H-1M0S"},
	} {
		s, err := ColumnSchemaWith(Postgres, tc.typ, true, cs)
		if err != nil || s.Type != String || s.Name != NameInterval {
			t.Fatalf("%s: %+v, %v", tc.typ, s, err)
		}
		v, err := ColumnValue(Postgres, tc.typ, s, json.RawMessage(`"`+tc.in+`"`))
		if err != nil || v != tc.want {
			t.Errorf("%s %q = %v, %v; want %s", tc.typ, tc.in, v, err, tc.want)
		}
	}
	if err := (ColumnSettings{IntervalHandlingMode: "iso"}).Check(Postgres, "c", "interval", &Schema{Type: Int64, Name: NameMicroDuration}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("interval.handling.mode=iso: %v, want ErrUnsupported", err)
	}
}

// decimal.format is read per JsonConverter, case insensitive; another value
// is a ConfigError as JsonConverterConfig's validator gives.
func TestDecimalFormatConfig(t *testing.T) {
	base := map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "p",
		"transforms": "outbox", "transforms.outbox.type": EventRouterClass,
		"key.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter"}
	for _, tc := range []struct {
		key, val  string
		wantKey   bool
		wantValue bool
		err       bool
	}{
		{"value.converter.decimal.format", "NUMERIC", false, true, false},
		{"key.converter.decimal.format", "numeric", true, false, false},
		{"value.converter.decimal.format", "base64", false, false, false},
		{"value.converter.decimal.format", "plain", false, false, true},
	} {
		conf := map[string]string{tc.key: tc.val}
		for k, v := range base {
			conf[k] = v
		}
		cfg, err := ParseConfig(conf, "outbox")
		var ce *ConfigError
		switch {
		case tc.err && (!errors.As(err, &ce) || ce.Key != tc.key):
			t.Errorf("%s=%s: %v, want a ConfigError", tc.key, tc.val, err)
		case !tc.err && err != nil:
			t.Errorf("%s=%s: %v", tc.key, tc.val, err)
		case !tc.err && (cfg.KeyConverter.DecimalNumeric != tc.wantKey || cfg.ValueConverter.DecimalNumeric != tc.wantValue):
			t.Errorf("%s=%s: key %v value %v", tc.key, tc.val, cfg.KeyConverter.DecimalNumeric, cfg.ValueConverter.DecimalNumeric)
		}
	}
}
