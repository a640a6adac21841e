package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// The values below are the ones the differential variants
// time_mode_connect_* saw from the real connectors (Debezium 3.6.1
// PostgreSQL, 3.5.0 MariaDB) on 2026-12-07.
func TestTimePrecisionModeConnect(t *testing.T) {
	cs := ColumnSettings{TimePrecisionMode: "connect"}
	for _, tc := range []struct {
		kind             ConnectorKind
		typ, in          string
		name             string
		ms               int64
		toString, values string
	}{
		{Postgres, "date", `"2024-02-29"`, NameConnectDate, 1709164800000, "Thu Feb 29 00:00:00 UTC 2024", "2024-02-29"},
		{MariaDB, "date", `"1969-12-31"`, NameConnectDate, -86400000, "Wed Dec 31 00:00:00 UTC 1969", "00:00:00.000Z"},
		{Postgres, "date", `"1970-01-01"`, NameConnectDate, 0, "Thu Jan 01 00:00:00 UTC 1970", "00:00:00.000Z"},
		// PostgreSQL rounds to the column, then the micros are truncated
		{Postgres, "time(3)", `"12:34:56.7895"`, NameConnectTime, 45296790, "Thu Jan 01 12:34:56 UTC 1970", "12:34:56.790Z"},
		{MariaDB, "time(3)", `"12:34:56.7895"`, NameConnectTime, 45296789, "Thu Jan 01 12:34:56 UTC 1970", "12:34:56.789Z"},
		{Postgres, "time", `"23:59:59.9999995"`, NameConnectTime, 86400000, "Fri Jan 02 00:00:00 UTC 1970", "1970-01-02"},
		{MariaDB, "time(6)", `"23:59:59.9999995"`, NameConnectTime, 86399999, "Thu Jan 01 23:59:59 UTC 1970", "23:59:59.999Z"},
		{Postgres, "timestamp(6)", `"2024-03-01 12:34:56.123456"`, NameConnectTimestamp, 1709296496123, "Fri Mar 01 12:34:56 UTC 2024", "2024-03-01T12:34:56.123Z"},
		{MariaDB, "datetime", `"2024-03-01 00:00:00"`, NameConnectTimestamp, 1709251200000, "Fri Mar 01 00:00:00 UTC 2024", "2024-03-01"},
		{Postgres, "timestamp(6)", `"1970-01-01 00:00:00.000001"`, NameConnectTimestamp, 0, "Thu Jan 01 00:00:00 UTC 1970", "00:00:00.000Z"},
	} {
		s, err := ColumnSchemaWith(tc.kind, tc.typ, true, cs)
		if err != nil || s.Name != tc.name || s.Version == nil || *s.Version != 1 {
			t.Fatalf("%s %s: schema %+v, %v", tc.kind, tc.typ, s, err)
		}
		if err := cs.Check(tc.kind, "c", tc.typ, s); err != nil {
			t.Errorf("%s %s: Check: %v", tc.kind, tc.typ, err)
		}
		v, err := ColumnValue(tc.kind, tc.typ, s, json.RawMessage(tc.in))
		if err != nil || v != JavaDate(tc.ms) {
			t.Errorf("%s %s %s: %v (%v), want %d", tc.kind, tc.typ, tc.in, v, err, tc.ms)
			continue
		}
		if got := javaToString(v); got != tc.toString {
			t.Errorf("%s %s %s: toString %q, want %q", tc.kind, tc.typ, tc.in, got, tc.toString)
		}
		if got, _ := valuesConvertToString(v, false); got != tc.values {
			t.Errorf("%s %s %s: Values.convertToString %q, want %q", tc.kind, tc.typ, tc.in, got, tc.values)
		}
	}
	// a MariaDB TIME outside 00:00:00-24:00:00: the converter throws (NULL)
	s, _ := ColumnSchemaWith(MariaDB, "time(3)", true, cs)
	if _, err := ColumnValue(MariaDB, "time(3)", s, json.RawMessage(`"-01:02:03.456"`)); !errors.As(err, new(*ConvertError)) {
		t.Errorf("negative MariaDB TIME under connect: %v, want a ConvertError", err)
	}
	// the modes left alone: timestamptz, timetz, MariaDB timestamp, year, interval
	for _, c := range []struct {
		kind ConnectorKind
		typ  string
	}{{Postgres, "timestamptz"}, {Postgres, "timetz"}, {Postgres, "interval"}, {MariaDB, "timestamp(3)"}, {MariaDB, "year"}} {
		a, _ := ColumnSchema(c.kind, c.typ, true)
		b, err := ColumnSchemaWith(c.kind, c.typ, true, cs)
		if err != nil || !a.Equal(b) {
			t.Errorf("%s %s under connect: %+v (%v), want %+v", c.kind, c.typ, b, err, a)
		}
	}
	// date[]: elements are Connect Dates
	if s, err := ColumnSchemaWith(Postgres, "date[]", true, cs); err != nil || s.Items.Name != NameConnectDate {
		t.Errorf("date[] under connect: %+v, %v", s, err)
	}
	// adaptive_time_microseconds makes a PostgreSQL time(3) a MicroTime
	if s, _ := ColumnSchemaWith(Postgres, "time(3)", true, ColumnSettings{TimePrecisionMode: "adaptive_time_microseconds"}); s.Name != NameMicroTime {
		t.Errorf("PostgreSQL time(3) under adaptive_time_microseconds: %s", s.Name)
	}
	// another worker time zone is refused (toString, Values print in it)
	s, _ = ColumnSchemaWith(Postgres, "date", true, cs)
	if err := (ColumnSettings{TimePrecisionMode: "connect", WorkerTimeZone: "Europe/Paris"}).Check(Postgres, "c", "date", s); !errors.Is(err, ErrUnsupported) {
		t.Errorf("connect under Europe/Paris: %v", err)
	}
}

// microseconds and nanoseconds: io.debezium.time.MicroTime / NanoTime and
// MicroTimestamp / NanoTimestamp for every precision (values as the
// time_mode_{microseconds,nanoseconds}_* variants saw them).
func TestTimePrecisionModeMicroNano(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		kind    ConnectorKind
		typ, in string
		name    string
		want    any
	}{
		{"microseconds", Postgres, "time(3)", `"12:34:56.7895"`, NameMicroTime, int64(45296790000)},
		{"microseconds", MariaDB, "time(3)", `"-01:02:03.456"`, NameMicroTime, int64(-3723456000)},
		{"microseconds", Postgres, "timestamp(3)", `"2024-03-01 12:34:56.7895"`, NameMicroTimestamp, int64(1709296496790000)},
		{"microseconds", MariaDB, "date", `"2024-02-29"`, NameDate, int32(19782)},
		{"nanoseconds", MariaDB, "time(6)", `"23:59:59.9999995"`, NameNanoTime, int64(86399999999000)},
		{"nanoseconds", MariaDB, "time(3)", `"100:00:00"`, NameNanoTime, int64(360000000000000)},
		{"nanoseconds", Postgres, "timestamp(6)", `"2024-03-01 12:34:56.123456"`, NameNanoTimestamp, int64(1709296496123456000)},
		// beyond a long's epoch nanoseconds: MariaDB wraps as Java does
		{"nanoseconds", MariaDB, "datetime(3)", `"9999-12-31 23:59:59.999"`, NameNanoTimestamp, int64(-4852116231934722624)},
	} {
		cs := ColumnSettings{TimePrecisionMode: tc.mode}
		s, err := ColumnSchemaWith(tc.kind, tc.typ, true, cs)
		if err != nil || s.Name != tc.name {
			t.Fatalf("%s %s %s: schema %+v, %v", tc.mode, tc.kind, tc.typ, s, err)
		}
		v, err := ColumnValue(tc.kind, tc.typ, s, json.RawMessage(tc.in))
		if err != nil || v != tc.want {
			t.Errorf("%s %s %s %s: %v (%T, %v), want %v", tc.mode, tc.kind, tc.typ, tc.in, v, v, err, tc.want)
		}
	}
	// PostgreSQL: NanoTimestamp.toEpochNanos throws, the column is NULL
	cs := ColumnSettings{TimePrecisionMode: "nanoseconds"}
	s, _ := ColumnSchemaWith(Postgres, "timestamp(3)", true, cs)
	if _, err := ColumnValue(Postgres, "timestamp(3)", s, json.RawMessage(`"9999-12-31 23:59:59.999"`)); !errors.As(err, new(*ConvertError)) {
		t.Errorf("PostgreSQL timestamp in 9999 under nanoseconds: %v, want a ConvertError", err)
	}
	// a DEFAULT under the mode: pg_get_expr's constant keeps its fraction
	// digits (default_time_mode_nanoseconds)
	if d, err := ColumnDefault(Postgres, "timestamp(3)", s, "'2024-01-02 03:04:05.6789'"); err != nil || d != int64(1704164645678900000) {
		t.Errorf("timestamp(3) DEFAULT under nanoseconds: %v, %v", d, err)
	}
}

// isostring: io.debezium.time.IsoDate / IsoTime / IsoTimestamp strings (the
// time_mode_isostring_* variants' values).
func TestTimePrecisionModeIsoString(t *testing.T) {
	cs := ColumnSettings{TimePrecisionMode: "isostring"}
	for _, tc := range []struct {
		kind          ConnectorKind
		typ, in, name string
		want          string
	}{
		{Postgres, "date", `"2024-02-29"`, NameIsoDate, "2024-02-29Z"},
		{MariaDB, "date", `"1969-12-31"`, NameIsoDate, "1969-12-31Z"},
		{Postgres, "time(3)", `"12:34:56.7895"`, NameIsoTime, "12:34:56.79Z"},
		{MariaDB, "time(3)", `"12:34:56.7895"`, NameIsoTime, "12:34:56.789Z"},
		{Postgres, "time", `"23:59:59.9999995"`, NameIsoTime, "00:00:00Z"}, // 24:00:00 wraps
		{Postgres, "time(0)", `"23:59:59"`, NameIsoTime, "23:59:59Z"},
		{Postgres, "timestamp(3)", `"2024-03-01 12:34:56.7895"`, NameIsoTimestamp, "2024-03-01T12:34:56.79Z"},
		{MariaDB, "datetime", `"2024-03-01 12:34:56.5"`, NameIsoTimestamp, "2024-03-01T12:34:56Z"},
		{MariaDB, "datetime(3)", `"9999-12-31 23:59:59.999"`, NameIsoTimestamp, "9999-12-31T23:59:59.999Z"},
	} {
		s, err := ColumnSchemaWith(tc.kind, tc.typ, true, cs)
		if err != nil || s.Name != tc.name || s.Type != String {
			t.Fatalf("%s %s: schema %+v, %v", tc.kind, tc.typ, s, err)
		}
		v, err := ColumnValue(tc.kind, tc.typ, s, json.RawMessage(tc.in))
		if err != nil || v != tc.want {
			t.Errorf("%s %s %s: %v (%v), want %q", tc.kind, tc.typ, tc.in, v, err, tc.want)
		}
	}
	// a MariaDB TIME above 24:00:00: IsoTime.toIsoString throws (NULL)
	s, _ := ColumnSchemaWith(MariaDB, "time(3)", true, cs)
	if _, err := ColumnValue(MariaDB, "time(3)", s, json.RawMessage(`"100:00:00"`)); !errors.As(err, new(*ConvertError)) {
		t.Errorf("MariaDB TIME 100:00:00 under isostring: %v, want a ConvertError", err)
	}
}

// A time.precision.mode the connectors' validation rejects is a
// *ConfigError with Connector set (Connect does not create the connector).
func TestTimePrecisionModeInvalid(t *testing.T) {
	for _, class := range []string{"io.debezium.connector.postgresql.PostgresConnector", "io.debezium.connector.mariadb.MariaDbConnector"} {
		_, err := ParseConfig(map[string]string{"connector.class": class, "topic.prefix": "p", "time.precision.mode": "millis",
			"transforms": "outbox", "transforms.outbox.type": EventRouterClass}, "outbox")
		var cfe *ConfigError
		if !errors.As(err, &cfe) || !cfe.Connector || cfe.Key != "time.precision.mode" {
			t.Errorf("%s: %v, want a connector ConfigError", class, err)
		}
		for _, mode := range []string{"connect", " ISOSTRING", "microseconds", "nanoseconds", "adaptive_time_microseconds"} {
			if _, err := ParseConfig(map[string]string{"connector.class": class, "topic.prefix": "p", "time.precision.mode": mode,
				"transforms": "outbox", "transforms.outbox.type": EventRouterClass}, "outbox"); err != nil {
				t.Errorf("%s %q: %v", class, mode, err)
			}
		}
	}
}
