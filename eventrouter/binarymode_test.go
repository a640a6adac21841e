package eventrouter

import (
	"errors"
	"reflect"
	"testing"
)

// binary.handling.mode makes a binary column a plain string (schema and
// value) and leaves bit(n) alone; checked against the real connectors by
// the differential test's setting_binary_* variants.
func TestBinaryHandlingMode(t *testing.T) {
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
		mode    string
		in      string // JSON sample value
		want    any
	}{
		{Postgres, "bytea", "", `"hex:fbff00fe3e3f"`, []byte{0xfb, 0xff, 0x00, 0xfe, 0x3e, 0x3f}},
		{Postgres, "bytea", "base64", `"hex:fbff00fe3e3f"`, "+/8A/j4/"},
		{Postgres, "bytea", "base64-url-safe", `"hex:fbff00fe3e3f"`, "-_8A_j4_"},
		{Postgres, "bytea", "hex", `"hex:FBFF00"`, "fbff00"},
		{Postgres, "bytea", "base64", `"ab"`, "YWI="},
		{Postgres, "bytea", "base64-url-safe", `"a"`, "YQ=="},
		{Postgres, "bytea", "base64", `""`, ""},
		{Postgres, "bytea", "hex", `null`, nil},
		{MariaDB, "binary(4)", "base64", `"a"`, "YQAAAA=="},
		{MariaDB, "binary(4)", "hex", `"a"`, "61000000"},
		{MariaDB, "varbinary(8)", "base64-url-safe", `"hex:ffffffbe"`, "____vg=="},
		{MariaDB, "longblob", "hex", `{"a":1}`, "7b2261223a317d"},
	} {
		cs := ColumnSettings{BinaryHandlingMode: tc.mode}
		s, err := ColumnSchemaWith(tc.kind, tc.sqlType, true, cs)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.kind, tc.sqlType, err)
		}
		if err := cs.Check(tc.kind, "c", tc.sqlType, s); err != nil {
			t.Errorf("%s %s under %q: %v", tc.kind, tc.sqlType, tc.mode, err)
		}
		wantType := String
		if tc.mode == "" {
			wantType = Bytes
		}
		if s.Type != wantType || s.Name != "" || s.Parameters != nil {
			t.Errorf("%s %s under %q: schema %+v, want a plain optional %s", tc.kind, tc.sqlType, tc.mode, s, wantType)
		}
		got, err := ColumnValue(tc.kind, tc.sqlType, s, []byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s %s under %q = %#v, %v; want %#v", tc.kind, tc.sqlType, tc.in, tc.mode, got, err, tc.want)
		}
	}
	// bit(12) is io.debezium.data.Bits under every mode
	s, err := ColumnSchemaWith(Postgres, "bit(12)", true, ColumnSettings{BinaryHandlingMode: "hex"})
	if err != nil || s.Type != Bytes || s.Name != NameBits {
		t.Errorf("bit(12) under hex: %+v, %v", s, err)
	}
	// a value the connector does not know is refused on a binary column
	cs := ColumnSettings{BinaryHandlingMode: "base32"}
	s, _ = ColumnSchemaWith(Postgres, "bytea", true, cs)
	var se *SettingError
	if err := cs.Check(Postgres, "raw", "bytea", s); !errors.As(err, &se) || se.Column != "raw" || !errors.Is(err, ErrUnsupported) {
		t.Errorf("bytea under base32: %v", err)
	}
	// a MariaDB blob DEFAULT under a string mode is the hex of SHOW CREATE
	// TABLE's text (default_maria_binary_hex); bytea has none
	s, _ = ColumnSchemaWith(MariaDB, "varbinary(8)", true, ColumnSettings{BinaryHandlingMode: "hex"})
	if d, err := ColumnDefault(MariaDB, "varbinary(8)", s, "'ab'"); err != nil || d != "6162" {
		t.Errorf("varbinary DEFAULT under hex: %v, %v; want 6162", d, err)
	}
	s, _ = ColumnSchemaWith(Postgres, "bytea", true, ColumnSettings{BinaryHandlingMode: "hex"})
	if d, err := ColumnDefault(Postgres, "bytea", s, `'\x0102'::bytea`); d != nil || err != nil {
		t.Errorf("bytea DEFAULT under hex: %#v, %v; want none", d, err)
	}
}

// A binary column delivered as a string meets the converters as a string:
// ByteArrayConverter refuses its schema, BinaryDataConverter hands it to
// the delegate.
func TestBinaryModeConverters(t *testing.T) {
	s, _ := ColumnSchemaWith(Postgres, "bytea", true, ColumnSettings{BinaryHandlingMode: "base64"})
	v, _ := ColumnValue(Postgres, "bytea", s, []byte(`"ab"`))
	var te *TaskError
	if _, err := convert(Converter{Kind: ByteArrayConverter}, s, v); !errors.As(err, &te) || te.Message != "Invalid schema type for ByteArrayConverter: STRING" {
		t.Errorf("ByteArrayConverter: %v", err)
	}
	b, err := convert(Converter{Kind: BinaryDataConverter, Delegate: &Converter{Kind: JSONConverter}}, s, v)
	if err != nil || string(b) != `"YWI="` {
		t.Errorf("BinaryDataConverter: %s, %v", b, err)
	}
}
