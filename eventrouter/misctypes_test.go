package eventrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// The values of the time-of-day, year, enum, set and bit columns as the
// connectors deliver them (checked against the real connectors by the
// differential test's typed_time_enum_bit variant).
func TestMiscColumnValue(t *testing.T) {
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
		in      string // JSON
		want    string // fmt %v of the value, schema type/name
		schema  string
	}{
		{Postgres, "time(3)", `"12:34:56.7895"`, "45296790", "int32/" + NameTime},
		{Postgres, "time", `"23:59:59.9999995"`, "86400000000", "int64/" + NameMicroTime},
		{Postgres, "time(0)", `"12:34:56.5"`, "45297000", "int32/" + NameTime},
		{Postgres, "timetz", `"10:00:00.5+02"`, "08:00:00.5Z", "string/" + NameZonedTime},
		{Postgres, "timetz", `"23:30:00-05:30"`, "05:00:00Z", "string/" + NameZonedTime},
		{Postgres, "interval", `"1 year 2 mons 3 days 04:05:06.123456"`, "37091106123456", "int64/" + NameMicroDuration},
		{Postgres, "interval", `"-1 days +02:00:00"`, "-79200000000", "int64/" + NameMicroDuration},
		{Postgres, "interval", `"-00:00:06.5"`, "-6500000", "int64/" + NameMicroDuration},
		{MariaDB, "time(3)", `"12:34:56.7895"`, "45296789000", "int64/" + NameMicroTime},
		{MariaDB, "time", `"-838:59:59"`, "-3020399000000", "int64/" + NameMicroTime},
		{MariaDB, "year", `"24"`, "2024", "int32/" + NameYear},
		{MariaDB, "year", `0`, "1900", "int32/" + NameYear},
		{MariaDB, "year", `"0"`, "2000", "int32/" + NameYear},
		{MariaDB, "enum('new','Paid','x y')", `"PAID"`, "Paid", "string/" + NameEnum},
		{MariaDB, "enum('new','Paid','x y')", `1`, "new", "string/" + NameEnum},
		{MariaDB, "set('a','b','c')", `"c,A"`, "a,c", "string/" + NameEnumSet},
		{MariaDB, "set('a','b','c')", `""`, "", "string/" + NameEnumSet},
		{MariaDB, "bit(1)", `1`, "true", "boolean/"},
		{MariaDB, "bit(10)", `517`, "[5 2]", "bytes/" + NameBits},
	} {
		s, err := ColumnSchema(tc.kind, tc.sqlType, true)
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
	// invalid inputs are the database's errors, not guesses
	for _, tc := range []struct {
		kind    ConnectorKind
		sqlType string
		in      string
	}{
		{MariaDB, "enum('a')", `"b"`}, {MariaDB, "set('a')", `"a,z"`}, {MariaDB, "bit(3)", `8`},
		{MariaDB, "year", `1800`}, {Postgres, "time", `"-01:00:00"`}, {Postgres, "time", `"25:00:00"`},
		{Postgres, "interval", `"P1D2"`}, {Postgres, "interval", `"2 hours 3 hours"`},
	} {
		s, _ := ColumnSchema(tc.kind, tc.sqlType, true)
		if _, err := ColumnValue(tc.kind, tc.sqlType, s, json.RawMessage(tc.in)); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %s: %v, want ErrInvalidEvent", tc.sqlType, tc.in, err)
		}
	}
	// MySQL / MariaDB TIME under time.precision.mode=adaptive is an
	// io.debezium.time.Time for (0-3): refused
	s, _ := ColumnSchema(MariaDB, "time(3)", true)
	if err := (ColumnSettings{TimePrecisionMode: "adaptive"}).Check(MariaDB, "t", "time(3)", s); !errors.Is(err, ErrUnsupported) {
		t.Errorf("time under adaptive: %v, want ErrUnsupported", err)
	}
}
