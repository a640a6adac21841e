package eventrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// The #31 remaining types: PostgreSQL money, bit/varbit, xml, interval(p),
// numeric NaN / Infinity, MariaDB zerofill integers (checked against the
// real connectors by the differential test's pg_money_bit_xml,
// numeric_special_* and zerofill variants).
func TestRemainingTypesColumnValue(t *testing.T) {
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
		mode    string // decimal.handling.mode
		in      string // JSON
		want    string // fmt %v of the value (Decimal: toString)
		schema  string // type/name
	}{
		{Postgres, "money", "", `"-$1,234.565"`, "-1234.57", "bytes/" + NameDecimal},
		{Postgres, "money", "", `12.5`, "12.50", "bytes/" + NameDecimal},
		{Postgres, "money", "string", `"$0.004"`, "0.00", "string/"},
		{Postgres, "money", "double", `"92233720368547758.07"`, "9.223372036854776e+16", "double/"},
		{Postgres, "bit", "", `"1"`, "true", "boolean/"},
		{Postgres, "varbit(1)", "", `"0"`, "false", "boolean/"},
		{Postgres, "bit(10)", "", `"1000000101"`, "[5 2]", "bytes/" + NameBits},
		{Postgres, "bit(10)", "", `"0000000101"`, "[5]", "bytes/" + NameBits},
		{Postgres, "bit(4)", "", `"0000"`, "[]", "bytes/" + NameBits},
		{Postgres, "varbit(16)", "", `"101"`, "[5]", "bytes/" + NameBits},
		{Postgres, "bit varying(16)", "", `""`, "[]", "bytes/" + NameBits},
		// unbounded: Bits of length Integer.MAX_VALUE, one bit too
		// (pg_varbit_unbounded)
		{Postgres, "varbit", "", `"1"`, "[1]", "bytes/" + NameBits},
		{Postgres, "bit varying", "", `"0000000101"`, "[5]", "bytes/" + NameBits},
		{Postgres, "xml", "", `"<a>x</a>"`, "<a>x</a>", "string/" + NameXML},
		{Postgres, "xml", "", `"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a/>"`, "<a/>", "string/" + NameXML},
		{Postgres, "xml", "", `"<?xml version='1.0' standalone='yes'?><a/>"`, `<?xml version="1.0" standalone="yes"?><a/>`, "string/" + NameXML},
		{Postgres, "interval(3)", "", `"00:00:01.2345"`, "1234999", // PGInterval: 1 + 235000/1e6 in doubles, truncated (setting_interval_numeric_seconds)
			"int64/" + NameMicroDuration},
		{Postgres, "interval(0)", "", `"-00:00:59.5"`, "-60000000", "int64/" + NameMicroDuration},
		{Postgres, "interval(2)", "", `"1 day 23:59:59.999"`, "172800000000", "int64/" + NameMicroDuration},
		{Postgres, "numeric", "string", `"NaN"`, "NAN", "string/"},
		{Postgres, "numeric", "string", `"-Infinity"`, "NEGATIVE_INFINITY", "string/"},
		{Postgres, "numeric(10,2)", "string", `"nan"`, "NAN", "string/"},
		{Postgres, "numeric", "double", `"Infinity"`, "+Inf", "double/"},
		{MariaDB, "int(5) unsigned zerofill", "", `4294967295`, "4294967295", "int64/"},
		{MariaDB, "smallint zerofill", "", `65535`, "65535", "int32/"},
		{MariaDB, "tinyint(3) unsigned zerofill", "", `7`, "7", "int16/"},
		{MariaDB, "bigint(20) unsigned zerofill", "", `18446744073709551615`, "-1", "int64/"},
	} {
		s, err := ColumnSchemaWith(tc.kind, tc.sqlType, true, ColumnSettings{DecimalHandlingMode: tc.mode})
		if err != nil {
			t.Fatalf("%s: %v", tc.sqlType, err)
		}
		if got := string(s.Type) + "/" + s.Name; got != tc.schema {
			t.Errorf("%s: schema %s, want %s", tc.sqlType, got, tc.schema)
		}
		v, err := ColumnValue(tc.kind, tc.sqlType, s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s %s: %v", tc.sqlType, tc.in, err)
			continue
		}
		if got := fmt.Sprint(v); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.sqlType, tc.in, got, tc.want)
		}
	}
	// money's Decimal has a scale and no precision parameter
	if s, _ := ColumnSchema(Postgres, "money", false); fmt.Sprint(s.Parameters) != "[{scale 2}]" {
		t.Errorf("money parameters %v", s.Parameters)
	}
	// the database's errors, not guesses
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
		in      string
	}{
		{Postgres, "bit(4)", `"101"`}, {Postgres, "varbit(2)", `"101"`}, {Postgres, "bit(4)", `5`},
		{Postgres, "money", `"92233720368547758.08"`}, {Postgres, "money", `"abc"`},
		{Postgres, "numeric(10,2)", `"Infinity"`}, {MariaDB, "decimal(10,2)", `"NaN"`},
		{Postgres, "xml", `"<?xml version=\"1.1\"?><a/>"`},
	} {
		s, _ := ColumnSchemaWith(tc.kind, tc.sqlType, true, ColumnSettings{DecimalHandlingMode: "string"})
		if _, err := ColumnValue(tc.kind, tc.sqlType, s, json.RawMessage(tc.in)); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %s: %v, want ErrInvalidEvent", tc.sqlType, tc.in, err)
		}
	}
}

// What is refused rather than guessed: types and settings not modelled.
func TestRemainingTypesRefused(t *testing.T) {
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
	}{
		{Postgres, "tsquery[]"}, {Postgres, "interval second to day"}, {Postgres, "interval(7)"},
		{Postgres, "int unsigned"}, {MariaDB, "inet6"}, {MySQL, "vector(3)"},
	} {
		if _, err := ColumnSchema(tc.kind, tc.sqlType, true); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s %s: %v, want ErrUnsupported", tc.kind, tc.sqlType, err)
		}
	}
	s, _ := ColumnSchema(Postgres, "money", true)
	var se *SettingError
	if err := ParseColumnSettings(map[string]string{"money.fraction.digits": "-1"}).Check(Postgres, "m", "money", s); !errors.As(err, &se) || se.Setting != "money.fraction.digits" || se.Column != "m" {
		t.Errorf("money.fraction.digits=-1: %v", err)
	}
	// another non-negative value is modelled (setting_money_fraction_digits_*)
	for digits, want := range map[string]string{"0": "-1235", "3": "-1234.570", "4": "-1234.5700"} {
		cs := ParseColumnSettings(map[string]string{"money.fraction.digits": digits})
		ms, _ := ColumnSchemaWith(Postgres, "money", true, cs)
		v, err := ColumnValue(Postgres, "money", ms, json.RawMessage(`"-$1,234.565"`))
		if err == nil {
			err = cs.Check(Postgres, "m", "money", ms)
		}
		if err != nil || javaToString(v) != want {
			t.Errorf("money.fraction.digits=%s: %v, %v; want %s", digits, v, err, want)
		}
	}
	// money has no default value mapper: no schema default (seen on the
	// stack, default_pg_types)
	if d, err := ColumnDefault(Postgres, "money", s, "'1.00'::money"); err != nil || d != nil {
		t.Errorf("money default: %v, %v; want none", d, err)
	}
	// NaN under precise: the converter throws; warn (the default) and skip
	// leave a nullable column NULL; fail, or NOT NULL, is refused
	ds, _ := ColumnSchema(Postgres, "numeric(10,2)", true)
	_, cerr := ColumnValue(Postgres, "numeric(10,2)", ds, json.RawMessage(`"NaN"`))
	var ce *ConvertError
	if !errors.As(cerr, &ce) {
		t.Fatalf("NaN under precise: %v, want *ConvertError", cerr)
	}
	for _, mode := range []string{"", "warn", "skip"} {
		v, err := ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": mode}).ConvertFailure("public.t", "n", "numeric(10,2)", ds, cerr)
		if err != nil || v != nil {
			t.Errorf("mode %q: %v, %v", mode, v, err)
		}
	}
	// fail: the task fails with TableSchemaBuilder's DebeziumException
	// (setting_event_converting_failure_fail*)
	var te *TaskError
	_, err := ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": "fail"}).ConvertFailure("public.t", "n", "numeric(10,2)", ds, cerr)
	if !errors.As(err, &te) || te.Stage != StageConnector || te.Exception != "io.debezium.DebeziumException" || te.Message != "Failed to properly convert data value for 'public.t.n' of type numeric" {
		t.Errorf("mode fail: %v", err)
	}
	if _, err := ParseColumnSettings(map[string]string{"event.converting.failure.handling.mode": "abort"}).ConvertFailure("public.t", "n", "numeric(10,2)", ds, cerr); !errors.As(err, &se) {
		t.Errorf("mode abort: %v, want *SettingError", err)
	}
	if got := pgColumnTypeName("numeric(10,2)[]"); got != "_numeric" {
		t.Errorf("numeric(10,2)[] type name %q", got)
	}
	req, _ := ColumnSchema(Postgres, "numeric(10,2)", false)
	if _, err := (ColumnSettings{}).ConvertFailure("public.t", "n", "numeric(10,2)", req, cerr); !errors.As(err, &se) {
		t.Errorf("NOT NULL NaN: %v, want *SettingError", err)
	}
	// the binlog connectors reject time.precision.mode=adaptive
	var cfe *ConfigError
	_, err = ParseConfig(map[string]string{"connector.class": "io.debezium.connector.mariadb.MariaDbConnector", "time.precision.mode": "adaptive",
		"transforms": "outbox", "transforms.outbox.type": EventRouterClass}, "")
	if !errors.As(err, &cfe) || !cfe.Connector || cfe.Key != "time.precision.mode" {
		t.Errorf("adaptive on MariaDB: %v", err)
	}
}
