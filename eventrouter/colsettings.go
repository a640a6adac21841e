package eventrouter

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ColumnSettings are the connector settings that change the value a
// column's value converter delivers, as ParseColumnSettings reads them
// (trimmed, lower case; "" when unset). The emulator models each at its
// default; ColumnSettings.Check refuses a column whose value another
// setting would change, never guessing it.
type ColumnSettings struct {
	// TimePrecisionMode is time.precision.mode: adaptive (PostgreSQL's
	// default), adaptive_time_microseconds (the binlog connectors'
	// default; on PostgreSQL it makes time(0-3) a MicroTime), connect
	// (Kafka Connect's Date, Time and Timestamp: java.util.Date values,
	// milliseconds), microseconds (MicroTime, MicroTimestamp),
	// nanoseconds (NanoTime, NanoTimestamp) and isostring (IsoDate,
	// IsoTime, IsoTimestamp strings) are modelled (ColumnSchemaWith,
	// ColumnValue); ParseConfig refuses another value as the connectors'
	// validation does.
	TimePrecisionMode string
	// BinaryHandlingMode is binary.handling.mode: bytes (the default),
	// base64, base64-url-safe and hex are modelled (the last three make a
	// binary column a plain string, EncodeBinary, and the elements of a
	// bytea[] such strings; bit(n) / Bits columns are not binary columns
	// and stay as they are); another value is refused on a binary column.
	BinaryHandlingMode string
	// BigIntUnsignedMode is bigint.unsigned.handling.mode (MySQL, MariaDB):
	// long (the default: BIGINT UNSIGNED as the signed long) and precise
	// (a Decimal of scale 0, precision 20, whatever decimal.handling.mode
	// says: the unsigned value) are modelled.
	BigIntUnsignedMode string
	// DecimalHandlingMode is decimal.handling.mode: precise (the default:
	// a Connect Decimal), string (BigDecimal.toString) and double are
	// modelled for fixed-point columns with a declared precision, and for
	// an unconstrained PostgreSQL numeric (precise gives the struct
	// io.debezium.data.VariableScaleDecimal).
	DecimalHandlingMode string
	// IntervalHandlingMode is interval.handling.mode (PostgreSQL): numeric
	// (the default: io.debezium.time.MicroDuration) and string
	// (io.debezium.time.Interval, Interval.toIsoString's P1Y2M3DT4H5M6.5S)
	// are modelled.
	IntervalHandlingMode string
	// MoneyFractionDigits is money.fraction.digits (PostgreSQL): any value
	// from 0 (2 is the default) is modelled: under decimal.handling.mode
	// precise a money column is a Decimal of that scale, the value rounded
	// half up to it; string and double do not use it. A negative or
	// non-integer value is refused.
	MoneyFractionDigits string
	// ConvertingFailureMode is event.converting.failure.handling.mode:
	// warn (the default) and skip, which leave a column whose value the
	// converter throws on NULL, and fail (the task fails,
	// ConvertFailure) are modelled; fail on an enum array with a NULL
	// element needs the array type's catalog name (ConvertFailureAs: the
	// exception names it).
	ConvertingFailureMode string
	// HStoreHandlingMode is hstore.handling.mode (PostgreSQL): json (the
	// default: io.debezium.data.Json) and map (a Connect map<string,
	// optional string>) are modelled, keys in java.util.HashMap order
	// either way, for hstore and hstore[] columns.
	HStoreHandlingMode string
	// WorkerTimeZone is the Connect worker JVM's default time zone (not a
	// connector setting: the driver sends it as the replication session's
	// TimeZone, which decides the text of a PostgreSQL tstzrange). "" and
	// UTC (the stack's workers, the Debezium image's default) and IANA
	// zone names (WorkerLocation) are modelled on a tstzrange column: the
	// bounds are printed as PostgreSQL prints them under SET TimeZone to
	// that zone (the model is checked against the server's own text, not a
	// worker in that zone: the stack's workers run in UTC); a custom
	// GMT±hh:mm ID or an unknown name is refused there. An array of
	// timestamp, timestamptz, time, timetz or tstzrange is modelled in UTC
	// only (pgjdbc's PgArray parses its elements in that zone). Set from
	// ParseOptions.WorkerTimeZone (outboxctl route preview and relay
	// --worker-time-zone).
	WorkerTimeZone string
	// IncludeUnknownDatatypes is include.unknown.datatypes: false (the
	// default: a column whose type has no schema, e.g. a PostgreSQL box,
	// is left out of the records) is modelled; true (its bytes) is not.
	IncludeUnknownDatatypes string
}

// ParseColumnSettings reads the ColumnSettings of a connector config.
func ParseColumnSettings(conf map[string]string) ColumnSettings {
	get := func(k string) string { return strings.ToLower(strings.TrimSpace(conf[k])) }
	cs := ColumnSettings{
		TimePrecisionMode:     get("time.precision.mode"),
		BinaryHandlingMode:    get("binary.handling.mode"),
		BigIntUnsignedMode:    get("bigint.unsigned.handling.mode"),
		DecimalHandlingMode:   get("decimal.handling.mode"),
		IntervalHandlingMode:  get("interval.handling.mode"),
		MoneyFractionDigits:   get("money.fraction.digits"),
		ConvertingFailureMode: get("event.converting.failure.handling.mode"),
		HStoreHandlingMode:    get("hstore.handling.mode"),

		IncludeUnknownDatatypes: get("include.unknown.datatypes"),
	}
	return cs
}

// SettingError is a column whose value a connector setting changes in a
// way the emulator does not model. It unwraps to ErrUnsupported.
type SettingError struct {
	Column  string
	Type    string // the column's SQL type, as given
	Setting string // the connector setting
	Value   string // its value
	Modeled string // the values that are modelled
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("column %s (%s): %s=%s changes the value the connector delivers and is not modelled (modelled: %s)", e.Column, e.Type, e.Setting, e.Value, e.Modeled)
}

// Unwrap returns ErrUnsupported.
func (e *SettingError) Unwrap() error { return ErrUnsupported }

// Check returns a *SettingError when one of the settings changes the value
// a column (name, SQL type sqlType, schema s from ColumnSchema) of a
// connector of kind delivers and the emulator does not model that setting;
// nil otherwise.
func (cs ColumnSettings) Check(kind ConnectorKind, name, sqlType string, s *Schema) error {
	if s.Type == Array && s.Items != nil {
		// a PostgreSQL array's elements: time.precision.mode,
		// binary.handling.mode as on the element type's column
		if err := cs.Check(kind, name, sqlType, s.Items); err != nil {
			return err
		}
	}
	temporal := false
	switch s.Name {
	case NameTimestamp, NameMicroTimestamp, NameNanoTimestamp, NameZonedTimestamp, NameDate,
		NameTime, NameMicroTime, NameNanoTime, NameZonedTime, NameYear,
		NameConnectDate, NameConnectTime, NameConnectTimestamp, NameIsoDate, NameIsoTime, NameIsoTimestamp:
		temporal = true
	}
	if s.Name == NameMicroTime && kind != Postgres && kind != "" && cs.TimePrecisionMode == "adaptive" {
		// adaptive gives a MySQL / MariaDB TIME(0-3) io.debezium.time.Time;
		// the model is adaptive_time_microseconds' MicroTime
		return &SettingError{Column: name, Type: sqlType, Setting: "time.precision.mode", Value: cs.TimePrecisionMode, Modeled: "adaptive_time_microseconds"}
	}
	if !timeModes[cs.TimePrecisionMode] && temporal {
		return &SettingError{Column: name, Type: sqlType, Setting: "time.precision.mode", Value: cs.TimePrecisionMode, Modeled: TimeModeModelled}
	}
	if isConnectLogical(s.Name) || s.Items != nil && isConnectLogical(s.Items.Name) {
		// java.util.Date.toString (StringConverter) and
		// Values.dateFormatFor (SimpleHeaderConverter) print in the
		// worker JVM's default zone
		switch strings.ToUpper(cs.WorkerTimeZone) {
		case "", "UTC", "ETC/UTC", "Z", "GMT":
		default:
			return &SettingError{Column: name, Type: sqlType, Setting: "the Connect worker's time zone (time.precision.mode=connect)", Value: cs.WorkerTimeZone, Modeled: "UTC"}
		}
	}
	switch cs.BinaryHandlingMode {
	case "", "bytes":
	case BinaryBase64, BinaryBase64URLSafe, BinaryHex:
	default:
		if s.Type == Bytes || s.binaryMode != "" {
			return &SettingError{Column: name, Type: sqlType, Setting: "binary.handling.mode", Value: cs.BinaryHandlingMode, Modeled: "bytes, base64, base64-url-safe, hex"}
		}
	}
	if isMoney(kind, sqlType) {
		if _, ok := moneyFractionDigits(cs.MoneyFractionDigits); !ok {
			return &SettingError{Column: name, Type: sqlType, Setting: "money.fraction.digits", Value: cs.MoneyFractionDigits, Modeled: "0 to 32767"}
		}
	}
	if IsDecimalType(sqlType) || isMoney(kind, sqlType) || isPgDecimalArray(kind, sqlType) {
		switch cs.DecimalHandlingMode {
		case "", "precise", "string", "double":
		default:
			return &SettingError{Column: name, Type: sqlType, Setting: "decimal.handling.mode", Value: cs.DecimalHandlingMode, Modeled: "precise, string, double"}
		}
	}
	if isPgTstzrange(kind, sqlType) {
		if _, err := WorkerLocation(cs.WorkerTimeZone); err != nil {
			return &SettingError{Column: name, Type: sqlType, Setting: "the Connect worker's time zone", Value: cs.WorkerTimeZone, Modeled: "UTC and IANA zone names (" + err.Error() + ")"}
		}
	}
	if pgArrayElemIsTemporal(kind, sqlType) {
		// the elements of temporal arrays, which pgjdbc's PgArray parses
		// in the JVM's default zone
		switch strings.ToUpper(cs.WorkerTimeZone) {
		case "", "UTC", "ETC/UTC", "Z", "GMT":
		default:
			return &SettingError{Column: name, Type: sqlType, Setting: "the Connect worker's time zone", Value: cs.WorkerTimeZone, Modeled: "UTC (for an array of timestamp, timestamptz, time, timetz or tstzrange)"}
		}
	}
	if elem, _, _, ok := pgArrayParse(kind, sqlType); isPgHstore(kind, sqlType) || ok && elem == "hstore" {
		switch cs.HStoreHandlingMode {
		case "", "json":
		case "map":
		default:
			return &SettingError{Column: name, Type: sqlType, Setting: "hstore.handling.mode", Value: cs.HStoreHandlingMode, Modeled: "json, map"}
		}
	}
	if s.Name == NameMicroDuration || s.Name == NameInterval {
		switch cs.IntervalHandlingMode {
		case "", "numeric", "string":
		default:
			return &SettingError{Column: name, Type: sqlType, Setting: "interval.handling.mode", Value: cs.IntervalHandlingMode, Modeled: "numeric, string"}
		}
	}
	switch cs.BigIntUnsignedMode {
	case "", "long", "precise":
	default:
		if kind != Postgres && kind != "" && s.Type == Int64 && unsignedRe.MatchString(sqlType) {
			if t, _ := parseSQLType(sqlType); t == "bigint" {
				return &SettingError{Column: name, Type: sqlType, Setting: "bigint.unsigned.handling.mode", Value: cs.BigIntUnsignedMode, Modeled: "long, precise"}
			}
		}
	}
	return nil
}

// ConvertFailure is the value the connector delivers for a column whose
// value its converter throws on (err from ColumnValue is a *ConvertError:
// a PostgreSQL numeric NaN or Infinity under decimal.handling.mode=precise).
// TableSchemaBuilder catches the exception and, under
// event.converting.failure.handling.mode warn (the default) or skip, leaves
// the column out of the row's Struct: a nullable column is NULL (nil,
// nil); a NOT NULL column (the Struct would fail validation) is a
// *SettingError. Under fail the task fails: a *TaskError (StageConnector)
// with the DebeziumException TableSchemaBuilder throws, "Failed to
// properly convert data value for '<table>.<column>' of type <type>"
// (table as the connector names it, "public.outbox"; the type PostgreSQL's
// name, numeric, _numeric for an array). Any other err is returned as is.
//
// An enum array's message names the array type as the catalog does
// (_mood), which enum('a','b')[] does not carry: ConvertFailure refuses it
// under fail (*SettingError); ConvertFailureAs takes the name.
func (cs ColumnSettings) ConvertFailure(table, name, sqlType string, s *Schema, err error) (any, error) {
	return cs.ConvertFailureAs(table, name, sqlType, "", s, err)
}

// pgPlainTypeNameRe is a PostgreSQL array type's name as pg_type.typname
// gives it for a type whose name needs no quotes (_mood).
var pgPlainTypeNameRe = regexp.MustCompile(`^_[a-z_][a-z0-9_$]*$`)

// ConvertFailureAs is ConvertFailure for a column whose type the catalog
// names typeName (pg_type.typname, "" when unknown): under fail, the
// message of an enum array with a NULL element names it, "Failed to
// properly convert data value for 'public.outbox.t' of type _mood" (seen
// on the stack for an enum type in schema public). A name that needs
// quotes was not run through the connector and is refused, as an unknown
// one is.
func (cs ColumnSettings) ConvertFailureAs(table, name, sqlType, typeName string, s *Schema, err error) (any, error) {
	var ce *ConvertError
	if !errors.As(err, &ce) {
		return nil, err
	}
	switch mode := cs.ConvertingFailureMode; mode {
	case "", "warn", "skip":
		if s.Optional {
			return nil, nil
		}
		if mode == "" {
			mode = "warn (the default)"
		}
		return nil, &SettingError{Column: name, Type: sqlType + " NOT NULL", Setting: "event.converting.failure.handling.mode", Value: mode, Modeled: "warn and skip on a nullable column (" + ce.Error() + ")"}
	case "fail":
		typ := pgColumnTypeName(sqlType)
		if elem, _, ok := pgArrayType(Postgres, sqlType); ok && elem == pgEnumArrayElem {
			// the DebeziumException names the column's type as the
			// catalog does (_mood, the enum type's array), which the
			// enum('a','b')[] spelling does not carry
			if !pgPlainTypeNameRe.MatchString(typeName) {
				return nil, &SettingError{Column: name, Type: sqlType, Setting: "event.converting.failure.handling.mode", Value: mode,
					Modeled: "warn, skip; fail when the column's databaseType gives the enum array's catalog name (_mood, unquoted; " + ce.Error() + ")"}
			}
			typ = typeName
		}
		return nil, &TaskError{Stage: StageConnector, Exception: excDebezium,
			Message: "Failed to properly convert data value for '" + table + "." + name + "' of type " + typ}
	}
	return nil, &SettingError{Column: name, Type: sqlType, Setting: "event.converting.failure.handling.mode", Value: cs.ConvertingFailureMode, Modeled: "warn, skip, fail (" + ce.Error() + ")"}
}

// pgColumnTypeName is the type name the PostgreSQL connector's Column
// carries (Column.typeName, from the catalog): the base type without its
// modifiers (numeric(10,2) is numeric), an array's element type prefixed
// with "_" (numeric[] is _numeric).
func pgColumnTypeName(sqlType string) string {
	t := strings.ToLower(strings.TrimSpace(sqlType))
	arr := strings.HasSuffix(t, "[]")
	t = strings.TrimSpace(strings.TrimSuffix(t, "[]"))
	base, _ := parseSQLType(t)
	if i := strings.IndexByte(base, '('); i >= 0 {
		base = strings.TrimSpace(base[:i])
	}
	if base == "decimal" {
		base = "numeric"
	}
	if arr {
		return "_" + base
	}
	return base
}
