package eventrouter

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Logical schema names time.precision.mode gives the wall-clock types
// besides the adaptive ones: Kafka Connect's own (connect) and
// io.debezium.time.NanoTime (nanoseconds).
const (
	NameConnectDate      = "org.apache.kafka.connect.data.Date"
	NameConnectTime      = "org.apache.kafka.connect.data.Time"
	NameConnectTimestamp = "org.apache.kafka.connect.data.Timestamp"
	NameNanoTime         = "io.debezium.time.NanoTime"
	NameIsoDate          = "io.debezium.time.IsoDate"
	NameIsoTime          = "io.debezium.time.IsoTime"
	NameIsoTimestamp     = "io.debezium.time.IsoTimestamp"
)

// JavaDate is a java.util.Date (milliseconds since the epoch): the value of
// a column under time.precision.mode=connect (Connect's Date, Time and
// Timestamp logical types).
type JavaDate int64

// Time is the instant in UTC.
func (d JavaDate) Time() time.Time { return time.UnixMilli(int64(d)).UTC() }

// timeModes are the time.precision.mode values ColumnSchemaWith models.
var timeModes = map[string]bool{"": true, "adaptive": true, "adaptive_time_microseconds": true, "connect": true, "microseconds": true, "nanoseconds": true, "isostring": true}

// TimeModeModelled is the list of modelled time.precision.mode values, for
// messages.
const TimeModeModelled = "adaptive, adaptive_time_microseconds, connect, microseconds, nanoseconds, isostring"

// wallClockKind is the family of a column whose schema time.precision.mode
// decides (JdbcValueConverters / TemporalPrecisionMode): date, time
// (time(p); PostgreSQL time without time zone) or timestamp (PostgreSQL
// timestamp(p), MySQL / MariaDB datetime(p)); "" for another type. prec is
// the declared precision (-1: none).
func wallClockKind(kind ConnectorKind, sqlType string) (family string, prec int) {
	if isPgArray(kind, sqlType) {
		return "", -1
	}
	base, prec := parseSQLType(sqlType)
	pg := kind == Postgres || kind == ""
	switch {
	case base == "date":
		return "date", prec
	case base == "time" || pg && base == "time without time zone":
		return "time", prec
	case pg && (base == "timestamp" || base == "timestamp without time zone"):
		return "timestamp", prec
	case !pg && base == "datetime":
		return "timestamp", prec
	}
	return "", -1
}

// modeSchema is the schema of a wall-clock column (wallClockKind) under a
// time.precision.mode other than the adaptive ones; ok is false when the
// mode keeps the default schema.
func modeSchema(mode, family string) (*Schema, bool) {
	switch mode {
	case "connect":
		switch family {
		case "date":
			return &Schema{Type: Int32, Name: NameConnectDate, Version: i32(1)}, true
		case "time":
			return &Schema{Type: Int32, Name: NameConnectTime, Version: i32(1)}, true
		case "timestamp":
			return &Schema{Type: Int64, Name: NameConnectTimestamp, Version: i32(1)}, true
		}
	case "isostring":
		name := map[string]string{"date": NameIsoDate, "time": NameIsoTime, "timestamp": NameIsoTimestamp}[family]
		if name != "" {
			return &Schema{Type: String, Name: name, Version: i32(1)}, true
		}
	case "microseconds", "nanoseconds":
		unit := map[string]string{"microseconds": "Micro", "nanoseconds": "Nano"}[mode]
		switch family {
		case "date":
			return &Schema{Type: Int32, Name: NameDate, Version: i32(1)}, true
		case "time":
			return &Schema{Type: Int64, Name: "io.debezium.time." + unit + "Time", Version: i32(1)}, true
		case "timestamp":
			return &Schema{Type: Int64, Name: "io.debezium.time." + unit + "Timestamp", Version: i32(1)}, true
		}
	}
	return nil, false
}

// modeChanged reports a wall-clock column whose schema s is not the one
// the default time.precision.mode gives it: its DEFAULT is not modelled.
func modeChanged(kind ConnectorKind, sqlType string, s *Schema) bool {
	if family, _ := wallClockKind(kind, sqlType); family == "" {
		return false
	}
	d, err := ColumnSchema(kind, sqlType, true)
	return err == nil && d.Name != s.Name
}

// pgTimeMicroMode reports adaptive_time_microseconds on a PostgreSQL
// time(0-3) column: TemporalPrecisionMode gives every time column
// io.debezium.time.MicroTime under it (adaptive: io.debezium.time.Time).
func pgTimeMicroMode(kind ConnectorKind, mode, family string) bool {
	return (kind == Postgres || kind == "") && mode == "adaptive_time_microseconds" && family == "time"
}

// isModeName reports a schema name only a time.precision.mode other than
// the adaptive ones gives (connect's, nanoseconds' NanoTime): modeValue
// gives its values.
func isModeName(name string) bool {
	switch name {
	case NameConnectDate, NameConnectTime, NameConnectTimestamp, NameNanoTime,
		NameIsoDate, NameIsoTime, NameIsoTimestamp:
		return true
	}
	return false
}

// IsModeSchema reports a column schema only a time.precision.mode other
// than the adaptive ones gives (connect, nanoseconds' NanoTime,
// isostring): a reader of the database hands ColumnValue the column's
// text, as for a ColumnReadAsText type.
func IsModeSchema(s *Schema) bool { return s != nil && isModeName(s.Name) }

// modeValue is the value of a wall-clock column whose schema s
// time.precision.mode connect decides: the stored value (PostgreSQL
// rounds to the column's precision, MySQL / MariaDB truncate), then
//   - Date: a java.util.Date at midnight UTC of the day;
//   - Time: Duration.toMillis of the time of day (the microseconds
//     truncated); a MySQL / MariaDB TIME below 00:00:00 or above 24:00:00
//     makes the converter throw (a *ConvertError: NULL under
//     event.converting.failure.handling.mode warn);
//   - Timestamp: the epoch milliseconds (floor).
//
// The input is what ColumnValue takes for the column (a date, a time of
// day, a wall clock); a number is days (date) or microseconds.
func modeValue(kind ConnectorKind, sqlType string, s *Schema, raw json.RawMessage) (any, error) {
	pg := kind == Postgres || kind == ""
	family, _ := wallClockKind(kind, sqlType)
	switch family {
	case "date":
		v, err := ColumnValue(kind, sqlType, &Schema{Type: Int32, Name: NameDate}, raw)
		if err != nil {
			return nil, err
		}
		if s.Name == NameIsoDate {
			// IsoDate.toIsoString: ISO_OFFSET_DATE at UTC
			return time.Unix(int64(v.(int32))*86400, 0).UTC().Format("2006-01-02") + "Z", nil
		}
		return JavaDate(int64(v.(int32)) * 86400000), nil
	case "time":
		v, err := ColumnValue(kind, sqlType, &Schema{Type: Int64, Name: NameMicroTime}, raw)
		if err != nil {
			return nil, err
		}
		us := v.(int64)
		if s.Name == NameNanoTime {
			// NanoTime.toNanoOfDay: Duration.toNanos (large values kept)
			return us * 1000, nil
		}
		if !pg && (us < 0 || us > 86400000000) {
			// supportsLargeTimeValues is false under connect and
			// isostring: Time.toMilliOfDay / IsoTime.toIsoString throw,
			// the converter delivers nothing
			return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a TIME below 00:00:00 or above 24:00:00 under time.precision.mode connect or isostring (the converter throws)"}
		}
		if s.Name == NameIsoTime {
			// IsoTime.toIsoString: LocalTime 00:00 plus the duration
			// (24:00:00 wraps to 00:00:00), ISO_OFFSET_TIME at UTC
			return time.UnixMicro(us%86400000000).UTC().Format("15:04:05.999999") + "Z", nil
		}
		return JavaDate(us / 1000), nil
	case "timestamp":
		v, err := ColumnValue(kind, sqlType, &Schema{Type: Int64, Name: NameMicroTimestamp}, raw)
		if err != nil {
			return nil, err
		}
		us := v.(int64)
		if s.Name == NameIsoTimestamp {
			// IsoTimestamp.toIsoString: ISO_OFFSET_DATE_TIME at UTC
			// (seconds always, the fraction without trailing zeros)
			return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999") + "Z", nil
		}
		ms := us / 1000
		if us%1000 < 0 {
			ms--
		}
		return JavaDate(ms), nil
	}
	return nil, fmt.Errorf("%w: sample value for %s (%s)", ErrUnsupported, sqlType, s.Name)
}

// millisPerDay is Values.MILLIS_PER_DAY.
const millisPerDay = 86400000

// javaDateToString is java.util.Date.toString() in the Connect worker's
// default time zone (UTC assumed: ColumnSettings.Check refuses another):
// "Fri Mar 01 12:34:56 UTC 2024", the milliseconds dropped.
func javaDateToString(d JavaDate) string {
	return d.Time().Format("Mon Jan 02 15:04:05 UTC 2006")
}

// javaDateValuesString is Values.convertToString of a java.util.Date
// (SimpleHeaderConverter; Values.dateFormatFor in the worker's zone, UTC):
// before one day past the epoch (negative too) the time "HH:mm:ss.SSS'Z'",
// at a whole day the date "yyyy-MM-dd", else both with a T.
func javaDateValuesString(d JavaDate) string {
	t := d.Time()
	switch {
	case int64(d) < millisPerDay:
		return t.Format("15:04:05.000") + "Z"
	case int64(d)%millisPerDay == 0:
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T15:04:05.000") + "Z"
}

// connectLogicalJSON is JsonConverter's LogicalTypeConverter for Connect's
// Date (int days), Time (int millis of the day) and Timestamp (long millis)
// of a java.util.Date value.
func connectLogicalJSON(b *strings.Builder, name string, v any) error {
	d, ok := v.(JavaDate)
	if !ok {
		what := map[string]string{NameConnectDate: "Date", NameConnectTime: "Time", NameConnectTimestamp: "Timestamp"}[name]
		return &TaskError{Exception: excData, Message: "Invalid type for " + what + ", expected Date but was " + strings.TrimPrefix(javaClassOf(v), "class ")}
	}
	ms := int64(d)
	switch name {
	case NameConnectDate:
		if ms%millisPerDay != 0 {
			return &TaskError{Exception: excData, Message: "Kafka Connect Date type should not have any time fields set to non-zero values."}
		}
		fmt.Fprint(b, ms/millisPerDay)
	case NameConnectTime:
		if ms < 0 || ms > millisPerDay {
			return &TaskError{Exception: excData, Message: "Kafka Connect Time type should not have any date fields set to non-zero values."}
		}
		fmt.Fprint(b, ms)
	default:
		fmt.Fprint(b, ms)
	}
	return nil
}
