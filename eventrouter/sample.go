package eventrouter

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// columnType is one SQL type family ColumnSchema models: its spellings (as
// parseSQLType returns the base type) and the Connect schema Debezium gives
// it (schema: type and logical name by precision, -1 when absent).
type columnType struct {
	names  []string
	schema func(prec int) (Type, string)
}

func plain(t Type) func(int) (Type, string) { return func(int) (Type, string) { return t, "" } }

func named(t Type, name string) func(int) (Type, string) {
	return func(int) (Type, string) { return t, name }
}

// wallClock: timestamp(0-3) / datetime(0-3) → Timestamp (millis); more
// digits, or none on PostgreSQL → MicroTimestamp (adaptive precision mode).
func wallClock(pgDefault bool) func(int) (Type, string) {
	return func(prec int) (Type, string) {
		if (prec < 0 && !pgDefault) || (prec >= 0 && prec <= 3) {
			return Int64, NameTimestamp
		}
		return Int64, NameMicroTimestamp
	}
}

// columnTypes is THE list of modelled column types, per connector: route
// preview and the relay accept exactly these (ColumnSchema refuses the
// rest with a *ColumnTypeError), and ModelledColumnTypes documents them.
var columnTypes = map[ConnectorKind][]columnType{
	Postgres: {
		{[]string{"uuid"}, named(String, NameUUID)},
		{[]string{"json", "jsonb"}, named(String, NameJSON)},
		{[]string{"text", "varchar", "character varying", "char", "character", "bpchar", "name", "citext"}, plain(String)},
		{[]string{"bytea"}, plain(Bytes)},
		{[]string{"int2", "smallint", "smallserial"}, plain(Int16)},
		{[]string{"int4", "int", "integer", "serial"}, plain(Int32)},
		{[]string{"int8", "bigint", "bigserial"}, plain(Int64)},
		{[]string{"bool", "boolean"}, plain(Boolean)},
		{[]string{"float4", "real"}, plain(Float32)},
		{[]string{"float8", "double precision"}, plain(Float64)},
		{[]string{"timestamp", "timestamp without time zone"}, wallClock(true)},
		{[]string{"timestamptz", "timestamp with time zone"}, named(String, NameZonedTimestamp)},
		{[]string{"date"}, named(Int32, NameDate)},
		{[]string{"oid"}, plain(Int64)},
		{[]string{"ltree"}, named(String, NameLtree)},
		{[]string{"tsvector"}, named(String, NameTsvector)},
		// the one-byte internal type "char" (pg_type's char, OID 18), as
		// format_type prints it, with the quotes: its text (PgChar)
		{[]string{PgCharType}, plain(String)},
	},
	MySQL:   binlogColumnTypes(MySQL),
	MariaDB: binlogColumnTypes(MariaDB),
}

func binlogColumnTypes(kind ConnectorKind) []columnType {
	jsonT := plain(String) // MariaDB's JSON is LONGTEXT
	if kind == MySQL {
		jsonT = named(String, NameJSON)
	}
	binlogJSON := []string{}
	if kind == MariaDB {
		// a JSON column the connector's DDL parser read from a CREATE
		// TABLE in the binlog (a table created after the connector
		// started) is io.debezium.data.Json; SHOW CREATE TABLE (the schema
		// snapshot) prints LONGTEXT, a plain string ("json")
		binlogJSON = []string{MariaDBBinlogJSON}
	}
	mariaUUID := []string{}
	if kind == MariaDB {
		// MariaDB 10.7+ UUID: MariaDbValueConverters' io.debezium.data.Uuid
		mariaUUID = []string{"uuid"}
	}
	return []columnType{
		{[]string{"char", "varchar", "text", "tinytext", "mediumtext", "longtext"}, plain(String)},
		{[]string{"json"}, jsonT},
		{binlogJSON, named(String, NameJSON)},
		{mariaUUID, named(String, NameUUID)},
		{[]string{"binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob"}, plain(Bytes)},
		{[]string{"tinyint", "smallint"}, plain(Int16)},
		{[]string{"mediumint", "int", "integer"}, plain(Int32)},
		{[]string{"bigint"}, plain(Int64)},
		{[]string{"bool", "boolean"}, plain(Boolean)},
		{[]string{"float"}, plain(Float32)},
		{[]string{"double", "real"}, plain(Float64)},
		{[]string{"datetime"}, wallClock(false)},
		{[]string{"timestamp"}, named(String, NameZonedTimestamp)},
		{[]string{"date"}, named(Int32, NameDate)},
	}
}

// MariaDBBinlogJSON is the column type that stands for a MariaDB JSON
// column whose schema the connector learnt from the binlog's CREATE TABLE
// (io.debezium.data.Json, the stored text); "json" is the LONGTEXT the
// schema snapshot's SHOW CREATE TABLE gives (a plain string).
const MariaDBBinlogJSON = "json from binlog ddl"

// ModelledColumnTypes returns the SQL column types ColumnSchema models for
// a connector of kind ("" is PostgreSQL): each family's spellings in list
// order, then the other modelled types (p and s stand for a declared
// precision and scale, n for a length; enum('a','b') for a PostgreSQL enum
// with its labels in enumsortorder). docs/column-types.md describes them
// and the package documentation gives each one's schema and value. Any
// other type is refused (*ColumnTypeError); PostgreSQL line, lseg, box,
// path, polygon, circle, tsquery, pg_lsn, the reg* types, txid_snapshot,
// pg_snapshot, xid, xid8, cid, tid, jsonpath, aclitem, refcursor,
// composite (a row type), the multiranges and the arrays of these types
// and of the geometric types (point[] too) are modelled as the connector
// leaves them out (ColumnDropped); a domain is "domain
// <base type>[ not null]" (PgDomainBase). nil for an unknown kind.
func ModelledColumnTypes(kind ConnectorKind) []string {
	if kind == "" {
		kind = Postgres
	}
	var out []string
	for _, ct := range columnTypes[kind] {
		out = append(out, ct.names...)
	}
	if kind == Postgres {
		out = append(out, "numeric(p,s)", "decimal(p,s)", "numeric", "money", "time", "time(p)", "time without time zone", "timetz", "time with time zone", "interval", "interval(p)",
			"interval year", "interval month", "interval year to month", "interval day", "interval hour", "interval minute", "interval second(p)",
			"interval day to hour", "interval day to minute", "interval day to second(p)", "interval hour to minute", "interval hour to second(p)", "interval minute to second(p)",
			"bit", "bit(n)", "varbit(n)", "bit varying(n)", "xml",
			"inet", "cidr", "macaddr", "macaddr8", "int4range", "int8range", "daterange", "numrange", "tsrange", "tstzrange",
			"point", "int2[]", "int4[]", "int8[]", "bool[]", "float4[]", "float8[]", "text[]", "varchar(n)[]", "uuid[]", "date[]", "numeric(p,s)[]", "decimal(p,s)[]", "numeric[]",
			"char(n)[]", "bpchar[]", "citext[]", "json[]", "jsonb[]", "bytea[]", "timestamp(p)[]", "timestamptz(p)[]", "time(p)[]", "timetz[]", "timetz(p)[]", "hstore[]",
			"inet[]", "cidr[]", "macaddr[]", "macaddr8[]", "int4range[]", "int8range[]", "daterange[]", "numrange[]", "tsrange[]", "tstzrange[]", "bit(n)[]",
			"name[]", "interval[]", "money[]", "varbit(n)[]", "xml[]", "hstore", "enum('a','b')", "enum('a','b')[]",
			"oid[]", "ltree[]", "tsvector[]", "tsquery", "pg_lsn", "regclass", "regtype", "regproc", "regprocedure", "regoper", "regoperator",
			"regconfig", "regdictionary", "regnamespace", "regrole", "regcollation", "txid_snapshot", "pg_snapshot", "xid", "xid8", "cid", "tid",
			"int4multirange", "int8multirange", "nummultirange", "datemultirange", "tsmultirange", "tstzmultirange",
			"domain numeric(p,s)", "int2vector", "oidvector", "jsonpath", "aclitem", "refcursor", "tsquery[]", "pg_lsn[]", "jsonpath[]", "int4multirange[]", "box[]", "composite",
			"point[]", "int2vector[]", "oidvector[]", "regclass[]", "regtype[]", "regproc[]", "regnamespace[]", "xid[]", "xid8[]", "cid[]", "tid[]",
			"txid_snapshot[]", "pg_snapshot[]", "aclitem[]", "refcursor[]", "composite[]", `"char"[]`)
	} else {
		out = append(out, "decimal(p,s)", "numeric(p,s)", "dec(p,s)", "fixed(p,s)", "time", "time(p)", "year", "enum('a','b')", "set('a','b')", "bit", "bit(n)")
	}
	if kind == MySQL || kind == MariaDB {
		for _, n := range []string{"tinyint", "smallint", "mediumint", "int", "integer", "bigint"} {
			out = append(out, n+" unsigned", n+" unsigned zerofill")
		}
		out = append(out, "float(p,s)", "double(p,s)")
		if kind == MariaDB {
			out = append(out, "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection")
		}
		for _, n := range []string{"float", "float(p,s)", "double", "double(p,s)", "decimal(p,s)"} {
			out = append(out, n+" unsigned", n+" zerofill", n+" unsigned zerofill")
		}
	}
	return out
}

// ColumnTypeError is a column type ColumnSchema does not model. It unwraps
// to ErrUnsupported.
type ColumnTypeError struct {
	Kind ConnectorKind
	Type string // as given
}

func (e *ColumnTypeError) Error() string {
	db := map[ConnectorKind]string{Postgres: "PostgreSQL", MySQL: "MySQL", MariaDB: "MariaDB"}[e.Kind]
	return fmt.Sprintf("%s column type %q is not modelled (modelled: %s)", db, e.Type, strings.Join(ModelledColumnTypes(e.Kind), ", "))
}

// Unwrap returns ErrUnsupported.
func (e *ColumnTypeError) Unwrap() error { return ErrUnsupported }

// ColumnSchema returns the Connect schema a Debezium connector of kind gives
// a column of SQL type sqlType (default settings: time.precision.mode
// adaptive / adaptive_time_microseconds, binary.handling.mode bytes),
// for the types ModelledColumnTypes lists; any other type is a
// *ColumnTypeError (ErrUnsupported), never a guess. nullable sets Optional.
//
// PostgreSQL: uuid → string io.debezium.data.Uuid; json, jsonb → string
// io.debezium.data.Json; text, varchar, char, bpchar → string; bytea →
// bytes; int2/int4/int8 → int16/int32/int64; bool → boolean; float4/float8;
// timestamp(0-3) → int64 io.debezium.time.Timestamp, timestamp(4-6) and
// timestamp → MicroTimestamp; timestamptz → string ZonedTimestamp; date →
// int32 io.debezium.time.Date.
// MySQL / MariaDB: char, varchar, *text → string; json → string
// io.debezium.data.Json on MySQL (on MariaDB JSON is LONGTEXT: string);
// binary, varbinary, *blob → bytes; tinyint/smallint → int16, mediumint/int
// → int32, bigint → int64; unsigned widened as BinlogValueConverters
// does: tinyint unsigned → int16, smallint and mediumint unsigned →
// int32, int unsigned → int64, bigint unsigned → int64
// (bigint.unsigned.handling.mode=long: above 2^63-1 it wraps; precise: a
// Decimal of scale 0, precision 20, the unsigned value);
// datetime(0-3) and datetime → Timestamp, datetime(4-6) →
// MicroTimestamp; timestamp → ZonedTimestamp.
func ColumnSchema(kind ConnectorKind, sqlType string, nullable bool) (*Schema, error) {
	return ColumnSchemaWith(kind, sqlType, nullable, ColumnSettings{})
}

// ResolveColumn is the Connect schema the connector gives column name of
// sqlType under cs, as route preview and the relay both resolve it:
// dropped when the connector leaves the column out of its records (an
// array ColumnDropped reports, a scalar type ColumnSchemaWith answers
// ErrColumnDropped for); a *SettingError naming the column when a setting
// changes the value in a way not modelled (ColumnDroppedWith,
// ColumnSchemaWith, ColumnSettings.Check); otherwise ColumnSchemaWith's
// error.
func ResolveColumn(kind ConnectorKind, name, sqlType string, nullable bool, cs ColumnSettings) (s *Schema, dropped bool, err error) {
	if dropped, err := ColumnDroppedWith(kind, sqlType, cs); err != nil || dropped {
		return nil, dropped, namedSetting(err, name)
	}
	s, err = ColumnSchemaWith(kind, sqlType, nullable, cs)
	if errors.Is(err, ErrColumnDropped) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, namedSetting(err, name)
	}
	if err := cs.Check(kind, name, sqlType, s); err != nil {
		return nil, false, err
	}
	return s, false, nil
}

// namedSetting is err's *SettingError with its Column set to name, or err
// as it is.
func namedSetting(err error, name string) error {
	var se *SettingError
	if errors.As(err, &se) {
		se.Column = name
		return se
	}
	return err
}

// ColumnSchemaWith is ColumnSchema under the connector's ColumnSettings
// where they change the schema: a fixed-point column (PostgreSQL
// numeric(p,s); MySQL / MariaDB decimal(p,s), numeric, dec, fixed) is, by
// decimal.handling.mode, bytes org.apache.kafka.connect.data.Decimal with
// parameters scale and connect.decimal.precision (precise, the default),
// string (string) or double (double). An unconstrained PostgreSQL numeric
// under precise is the struct io.debezium.data.VariableScaleDecimal
// (scale, value). time.precision.mode decides the schema of PostgreSQL
// date, time(p), timestamp(p) and date[] elements and MySQL / MariaDB date,
// time(p), datetime(p): connect gives Kafka Connect's Date, Time and
// Timestamp, microseconds MicroTime / MicroTimestamp, nanoseconds NanoTime
// / NanoTimestamp, isostring IsoDate / IsoTime / IsoTimestamp strings (date
// stays io.debezium.time.Date under microseconds and nanoseconds), and
// adaptive_time_microseconds a PostgreSQL time(0-3) MicroTime.
func ColumnSchemaWith(kind ConnectorKind, sqlType string, nullable bool, cs ColumnSettings) (*Schema, error) {
	if kind == "" {
		kind = Postgres
	}
	if b, notNull, ok := pgDomain(kind, sqlType); ok {
		sqlType, nullable = b, nullable && !notNull
	}
	list, ok := columnTypes[kind]
	if !ok {
		return nil, fmt.Errorf("%w: connector %q", ErrUnsupported, kind)
	}
	if s, ok, err := pgArraySchema(kind, sqlType, nullable, cs); ok {
		return s, err
	}
	if family, _ := wallClockKind(kind, sqlType); family != "" {
		// time.precision.mode: connect gives Kafka Connect's logical
		// types; adaptive_time_microseconds a PostgreSQL time(0-3)
		// MicroTime
		if s, ok := modeSchema(cs.TimePrecisionMode, family); ok {
			s.Optional = nullable
			return s, nil
		}
		if pgTimeMicroMode(kind, cs.TimePrecisionMode, family) {
			return &Schema{Type: Int64, Name: NameMicroTime, Version: i32(1), Optional: nullable}, nil
		}
	}
	if err := droppedColumn(kind, sqlType, cs); err != nil {
		return nil, err
	}
	if s, ok := pgVectorSchema(kind, sqlType, nullable); ok {
		return s, nil
	}
	if isMoney(kind, sqlType) {
		s := &Schema{Optional: nullable}
		digits, _ := moneyFractionDigits(cs.MoneyFractionDigits)
		s.Type, s.Name, s.Parameters = moneySchema(cs.DecimalHandlingMode, digits)
		if s.Name != "" {
			s.Version = i32(1)
		}
		return s, nil
	}
	if prec, scale, ok := decimalType(kind, sqlType); ok {
		if kind == Postgres && unsignedRe.MatchString(sqlType) {
			// MySQL / MariaDB DECIMAL [UNSIGNED] [ZEROFILL] is a DECIMAL to
			// the connector (the binlog holds the value, not the padded
			// text); PostgreSQL has no such type
			return nil, &ColumnTypeError{Kind: kind, Type: sqlType}
		}
		mode := cs.DecimalHandlingMode
		if prec < 0 && (mode == "" || mode == "precise") {
			// PostgresValueConverter.numericSchema: an unconstrained
			// numeric under precise
			return variableScaleDecimalSchema(nullable), nil
		}
		s := &Schema{Optional: nullable}
		s.Type, s.Name, s.Parameters = decimalSchema(mode, prec, scale)
		if s.Name != "" {
			s.Version = i32(1)
		}
		return s, nil
	}
	if isPgHstore(kind, sqlType) && cs.HStoreHandlingMode == "map" {
		return pgHstoreMapSchema(nullable), nil
	}
	if isPgPoint(kind, sqlType) {
		// PostgresValueConverter: io.debezium.data.geometry.Point
		return pointSchema(nullable), nil
	}
	if isBinlogSpatial(kind, sqlType) {
		// BinlogValueConverters: POINT is io.debezium.data.geometry.Point,
		// the other spatial types io.debezium.data.geometry.Geometry
		return binlogSpatialSchema(sqlType, nullable), nil
	}
	if s, ok := miscSchema(kind, sqlType); ok {
		s.Optional = nullable
		if s.Name == NameMicroDuration && cs.IntervalHandlingMode == "string" {
			// PostgresValueConverter: Interval.builder()
			s.Type, s.Name = String, NameInterval
		}
		return s, nil
	}
	t, prec := parseSQLType(sqlType)
	if kind == Postgres && unsignedRe.MatchString(sqlType) {
		return nil, &ColumnTypeError{Kind: kind, Type: sqlType}
	}
	if kind != Postgres && unsignedRe.MatchString(sqlType) {
		// BinlogValueConverters widens the unsigned integers; BIGINT
		// UNSIGNED stays int64 under bigint.unsigned.handling.mode=long
		// (the default; values above 2^63-1 wrap)
		w, ok := unsignedWidths[t]
		if !ok && !binlogReal(t) {
			return nil, &ColumnTypeError{Kind: kind, Type: sqlType}
		}
		if t == "bigint" && cs.BigIntUnsignedMode == "precise" {
			// SpecialValueDecimal.builder(PRECISE, 20, 0), whatever
			// decimal.handling.mode says
			s := &Schema{Optional: nullable, Version: i32(1)}
			s.Type, s.Name, s.Parameters = decimalSchema("precise", 20, 0)
			return s, nil
		}
		if ok {
			return &Schema{Type: w, Optional: nullable}, nil
		}
		// FLOAT / DOUBLE [UNSIGNED] [ZEROFILL]: the connector's FLOAT and
		// DOUBLE (the binlog holds the value, not the padded text)
	}
	if kind != Postgres {
		if _, ok := binlogRealScale(sqlType); ok && t == "float" {
			// BinlogValueConverters: a FLOAT(M,D) (a declared scale) is a
			// FLOAT64, the stored float widened
			return &Schema{Type: Float64, Optional: nullable}, nil
		}
	}
	for _, ct := range list {
		for _, n := range ct.names {
			if n != t {
				continue
			}
			s := &Schema{Optional: nullable}
			s.Type, s.Name = ct.schema(prec)
			if s.Name != "" {
				s.Version = i32(1)
			}
			if s.Type == Bytes && s.Name == "" {
				if m := stringBinaryMode(cs.BinaryHandlingMode); m != "" {
					// BinaryHandlingMode.getSchema: a plain string
					s.Type, s.binaryMode = String, m
				}
			}
			return s, nil
		}
	}
	return nil, &ColumnTypeError{Kind: kind, Type: sqlType}
}

// unsignedWidths are the Connect types of the MySQL / MariaDB UNSIGNED
// integers (BinlogValueConverters.schemaBuilder).
var unsignedWidths = map[string]Type{
	"tinyint": Int16, "smallint": Int32, "mediumint": Int32, "int": Int64, "integer": Int64, "bigint": Int64,
}

// unsignedRe matches UNSIGNED and ZEROFILL (which implies UNSIGNED on
// MySQL / MariaDB; the catalog prints "int(5) unsigned zerofill", and
// BinlogValueConverters widens "INT UNSIGNED ZEROFILL" as "INT UNSIGNED").
var unsignedRe = regexp.MustCompile(`(?i)\b(unsigned|zerofill)\b`)

var sqlTypeRe = regexp.MustCompile(`^\s*([a-zA-Z][a-zA-Z0-9_ ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*\d+\s*)?\))?\s*(?:unsigned)?\s*(?:zerofill)?\s*$`)

// parseSQLType returns the lower-case base type and the precision/length
// (-1 when absent).
func parseSQLType(t string) (string, int) {
	m := sqlTypeRe.FindStringSubmatch(strings.ToLower(t))
	if m == nil {
		return strings.ToLower(strings.TrimSpace(t)), -1
	}
	p := -1
	if m[2] != "" {
		p, _ = strconv.Atoi(m[2])
	}
	return m[1], p
}

// ColumnValue converts a sample value (JSON) into the value the connector
// delivers for a column of sqlType with schema s:
//   - null → NULL;
//   - string columns: a JSON string is the column text; any other JSON value
//     is its compact JSON text. jsonb text is normalized as PostgreSQL
//     outputs it (NormalizeJSONB), MySQL JSON as the binlog reader renders
//     it; PostgreSQL char(n) is blank-padded, the one-byte "char" is the
//     byte PostgreSQL keeps, as it prints it (PgChar);
//   - bytes columns: "base64:…", "hex:…" or plain text (its UTF-8 bytes); a
//     JSON object or array is its compact JSON text; MySQL / MariaDB
//     binary(n) is right-padded with zero bytes to n;
//   - integer, boolean and float columns: JSON numbers / booleans (or strings
//     holding them); true and false are 1 and 0 in an integer column;
//   - PostgreSQL uuid: any form PostgreSQL accepts (upper case, braces, no
//     hyphens) becomes its canonical lower-case 8-4-4-4-12 text;
//   - MySQL / MariaDB BIGINT UNSIGNED: up to 18446744073709551615, delivered
//     as the signed long the binlog holds (above 2^63-1 it wraps);
//   - Timestamp / MicroTimestamp / NanoTimestamp: "2006-01-02 15:04:05.999999"
//     (or RFC 3339; a wall clock taken as UTC, as Debezium does) or a number
//     in the column's unit; a fraction finer than the column keeps is
//     rounded as PostgreSQL stores it (timestamp(p), 6 when none is
//     declared) or truncated as MySQL / MariaDB store it (datetime(p), 0
//     when none is declared);
//   - MySQL / MariaDB TIMESTAMP: a wall clock in UTC, truncated to the
//     column's precision, as ZonedTimestamp "2006-01-02T15:04:05.123Z"
//     with exactly that many fraction digits (timestamp(p), p > 0) or
//     ISO-8601 without a zero fraction (timestamp);
//   - Date: "2006-01-02" or days since the epoch;
//   - PostgreSQL timestamptz: "2006-01-02 15:04:05.999999+02" (zone Z,
//     ±hh, ±hhmm or ±hh:mm; none is UTC) becomes the canonical
//     ZonedTimestamp Debezium delivers: rounded to the column's precision
//     as PostgreSQL stores it, in UTC, with that many fraction digits
//     (6 when none is declared): "2006-01-02T13:04:05.999999Z";
//   - MariaDB spatial columns: "[SRID=n;]WKT" (as ST_GeomFromText(wkt, n)
//     reads it) or "[SRID=n;]hex:WKB" (ST_GeomFromWKB, either byte order),
//     delivered as the struct of the stored little-endian WKB and the SRID
//     (none for 0).
func ColumnValue(kind ConnectorKind, sqlType string, s *Schema, raw json.RawMessage) (any, error) {
	return ColumnValueWith(kind, sqlType, s, raw, ColumnSettings{})
}

// ColumnValueWith is ColumnValue under the settings cs where they change a
// value beyond its schema: a PostgreSQL tstzrange's bounds are printed in
// cs.WorkerTimeZone (WorkerLocation; UTC when empty).
func ColumnValueWith(kind ConnectorKind, sqlType string, s *Schema, raw json.RawMessage, cs ColumnSettings) (any, error) {
	sqlType = pgBaseType(kind, sqlType)
	if isPgTstzrange(kind, sqlType) && cs.WorkerTimeZone != "" {
		loc, err := WorkerLocation(cs.WorkerTimeZone)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		if loc != time.UTC {
			raw = bytes.TrimSpace(raw)
			if len(raw) == 0 || string(raw) == "null" {
				return nil, nil
			}
			var str string
			if err := json.Unmarshal(raw, &str); err != nil {
				return nil, fmt.Errorf("%w: tstzrange: want a string, not %s", ErrInvalidEvent, raw)
			}
			return pgRangeValueIn(sqlType, str, loc)
		}
	}
	return columnValue(kind, sqlType, s, raw)
}

func columnValue(kind ConnectorKind, sqlType string, s *Schema, raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var str string
	isStr := raw[0] == '"'
	if isStr {
		if err := json.Unmarshal(raw, &str); err != nil {
			return nil, err
		}
	}
	if isPgPoint(kind, sqlType) {
		if !isStr {
			return nil, fmt.Errorf("%w: point value %s: a string \"(x,y)\" expected", ErrInvalidEvent, raw)
		}
		return pgPointValue(s, str)
	}
	if isBinlogSpatial(kind, sqlType) {
		if !isStr {
			return nil, fmt.Errorf("%w: %s value %s: a string \"[SRID=n;]WKT\" or \"[SRID=n;]hex:WKB\" expected", ErrInvalidEvent, sqlType, raw)
		}
		return binlogGeometrySample(sqlType, s, str)
	}
	if isPgArray(kind, sqlType) {
		return pgArrayValue(sqlType, s, raw, str, isStr)
	}
	if _, ok := pgVectorSchema(kind, sqlType, true); ok {
		// the array converter finds no element in "1 2 3"; an empty
		// vector (its text is "") is NULL
		if strings.TrimSpace(str) == "" {
			return nil, nil
		}
		return []any{}, nil
	}
	if isPgOid(kind, sqlType) {
		text := str
		if !isStr {
			text = string(raw)
		}
		return pgOidValue(text)
	}
	if isPgTsvector(kind, sqlType) {
		if !isStr {
			return nil, fmt.Errorf("%w: tsvector value %s: a string expected", ErrInvalidEvent, raw)
		}
		return pgTsvector(str)
	}
	if isMariaDBUUID(kind, sqlType) {
		if !isStr {
			return nil, fmt.Errorf("%w: uuid value %s: a string expected", ErrInvalidEvent, raw)
		}
		return mariaDBUUIDValue(str)
	}
	if isModeName(s.Name) {
		return modeValue(kind, sqlType, s, raw)
	}
	base, prec := parseSQLType(sqlType)
	pg := kind == Postgres || kind == ""
	if IsDecimalType(sqlType) || isMoney(kind, sqlType) {
		text := str
		if !isStr {
			text = string(raw)
		}
		if isMoney(kind, sqlType) {
			return moneyValue(sqlType, s, text)
		}
		return decimalValue(kind, sqlType, s, text)
	}
	if isMiscType(kind, sqlType) {
		text := str
		if !isStr {
			text = string(raw)
		}
		return miscValue(kind, sqlType, s, text, isStr)
	}
	if isStr {
		switch {
		case pg && s.Name == NameZonedTimestamp:
			return pgZonedTimestamp(str, prec)
		case !pg && s.Name == NameZonedTimestamp:
			return binlogZonedTimestamp(str, prec)
		case pg && s.Name == NameUUID:
			return pgUUID(str)
		}
	}
	if isUnsignedBigintDecimal(kind, sqlType, s) {
		text := str
		if !isStr {
			text = string(raw)
		}
		return unsignedBigintDecimal(sqlType, text)
	}
	if s.binaryMode != "" {
		b, err := bytesValue(pg, base, prec, raw, str, isStr)
		if err != nil {
			return nil, err
		}
		return EncodeBinary(s, b), nil
	}
	switch s.Type {
	case String:
		text := str
		if !isStr {
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				return nil, err
			}
			text = b.String()
		}
		switch {
		case kind == Postgres && base == "jsonb":
			return NormalizeJSONB(text)
		case kind == MySQL && base == "json":
			return NormalizeMySQLJSON(text)
		case kind == Postgres && base == PgCharType:
			text = PgChar(text)
		case kind == Postgres && (base == "char" || base == "character" || base == "bpchar"):
			n := prec
			if n < 0 {
				n = 1
			}
			if l := len([]rune(text)); l < n {
				text += strings.Repeat(" ", n-l)
			}
		}
		return text, nil
	case Bytes:
		return bytesValue(pg, base, prec, raw, str, isStr)
	case Boolean:
		text := strings.Trim(string(raw), `"`)
		if !pg {
			// MySQL / MariaDB BOOLEAN is tinyint(1): the binlog
			// converter makes any non-zero value true
			if n, err := strconv.ParseInt(text, 10, 8); err == nil {
				return n != 0, nil
			}
		}
		v, err := strconv.ParseBool(text)
		return v, err
	case Int16, Int32, Int64, Int8:
		if s.Name == NameTimestamp || s.Name == NameMicroTimestamp || s.Name == NameNanoTimestamp {
			if isStr {
				return parseWallClock(str, s.Name, pg, prec)
			}
		}
		if s.Name == NameDate && isStr {
			t, err := time.Parse("2006-01-02", str)
			if err != nil {
				return nil, err
			}
			return int32(t.Unix() / 86400), nil
		}
		text := strings.Trim(string(raw), `"`)
		if b, err := strconv.ParseBool(text); err == nil && (text == "true" || text == "false") {
			// MySQL's BOOLEAN is tinyint(1): true and false are 1 and 0
			text = map[bool]string{true: "1", false: "0"}[b]
		}
		var n int64
		var err error
		if !pg && s.Type == Int64 && unsignedRe.MatchString(sqlType) {
			// BIGINT UNSIGNED under bigint.unsigned.handling.mode=long:
			// the binlog's signed long, so values above 2^63-1 wrap
			var u uint64
			u, err = strconv.ParseUint(text, 10, 64)
			n = int64(u)
		} else {
			n, err = strconv.ParseInt(text, 10, 64)
		}
		if err != nil {
			return nil, err
		}
		switch s.Type {
		case Int8:
			return int8(n), nil
		case Int16:
			return int16(n), nil
		case Int32:
			return int32(n), nil
		}
		return n, nil
	case Float32, Float64:
		f, err := strconv.ParseFloat(strings.Trim(string(raw), `"`), 64)
		if err != nil {
			return nil, err
		}
		if !pg && binlogReal(base) {
			return binlogRealValue(sqlType, s, f), nil
		}
		if s.Type == Float32 {
			return float32(f), nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("%w: sample value for %s", ErrUnsupported, s.Type)
}

// pgTimestamptzLayouts are the timestamptz inputs a sample may use: ISO
// date and time (space or T), fraction optional, and a zone as Z, ±hh,
// ±hhmm or ±hh:mm, or none (taken as UTC).
var pgTimestamptzLayouts = func() []string {
	var out []string
	for _, sep := range []string{" ", "T"} {
		for _, zone := range []string{"Z07:00", "-07", "-0700", ""} {
			out = append(out, "2006-01-02"+sep+"15:04:05.999999999"+zone)
		}
	}
	return out
}()

// pgZonedTimestamp is a PostgreSQL timestamptz value as
// PostgresValueConverter delivers it (io.debezium.time.ZonedTimestamp):
// PostgreSQL stores it rounded to microseconds and then to the column's
// precision prec (-1: 6), half away from zero relative to its epoch
// 2000-01-01 (so before 2000 a tie rounds to the earlier instant); Debezium
// writes it in UTC as ISO-8601 with exactly prec fraction digits (none for
// 0), the form ColumnDefault's placeholder has.
func pgZonedTimestamp(v string, prec int) (string, error) {
	t, err := parseSQLTimestamp(v, "timestamptz", "[Z|±hh[:mm]]")
	if err != nil {
		return "", err
	}
	if prec < 0 || prec > 6 {
		prec = 6
	}
	t = pgRound(t, prec).UTC()
	if prec == 0 {
		return t.Format("2006-01-02T15:04:05Z"), nil
	}
	return t.Format("2006-01-02T15:04:05." + strings.Repeat("0", prec) + "Z"), nil
}

// pgRound is PostgreSQL's rounding of a timestamp input: to microseconds,
// then to the column's precision prec (-1 or more than 6: 6), half away
// from zero relative to its epoch 2000-01-01 (so before 2000 a tie rounds
// to the earlier instant).
func pgRound(t time.Time, prec int) time.Time {
	if prec < 0 || prec > 6 {
		prec = 6
	}
	pgEpoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	round := func(t time.Time, unit time.Duration) time.Time {
		d := t.Sub(pgEpoch) // no overflow for years 1708..2292
		if t.Before(pgEpoch.Add(-290*365*24*time.Hour)) || t.After(pgEpoch.Add(290*365*24*time.Hour)) {
			return t.Round(unit)
		}
		q, r := d/unit, d%unit
		switch {
		case r > 0 && 2*r >= unit:
			q++
		case r < 0 && -2*r >= unit:
			q--
		}
		return pgEpoch.Add(q * unit)
	}
	t = round(t, time.Microsecond)
	return round(t, fractionUnit(prec))
}

// fractionUnit is the duration of the last of prec fraction digits.
func fractionUnit(prec int) time.Duration {
	unit := time.Second
	for i := 0; i < prec; i++ {
		unit /= 10
	}
	return unit
}

// binlogTruncate is MySQL's and MariaDB's storing of a temporal value with
// more fraction digits than the column's precision prec (-1: none, 0): the
// excess is truncated (sql_mode without TIME_ROUND_FRACTIONAL, the
// default).
func binlogTruncate(t time.Time, prec int) time.Time {
	if prec < 0 {
		prec = 0
	}
	if prec > 6 {
		prec = 6
	}
	return t.Truncate(fractionUnit(prec))
}

// binlogZonedTimestamp is a MySQL / MariaDB TIMESTAMP value as the binlog
// connectors deliver it (io.debezium.time.ZonedTimestamp): the wall clock
// taken as UTC (the server's time zone on the stack), the fraction
// truncated to the column's precision prec, written as ZonedTimestamp
// does with the column length as fractional width: exactly prec digits
// for prec 1-6, else ISO_OFFSET_DATE_TIME (no fraction when it is zero).
func binlogZonedTimestamp(v string, prec int) (string, error) {
	t, err := parseSQLTimestamp(v, "timestamp", "")
	if err != nil {
		return "", err
	}
	t = binlogTruncate(t, prec).UTC()
	if prec <= 0 {
		return t.Format("2006-01-02T15:04:05.999999999Z"), nil
	}
	return t.Format("2006-01-02T15:04:05." + strings.Repeat("0", min(prec, 6)) + "Z"), nil
}

// pgUUID is a PostgreSQL uuid as the server prints it (and pgoutput sends
// it): lower-case 8-4-4-4-12 hex, whatever the input form was (upper case,
// braces, no hyphens, a hyphen after any group of four digits).
func pgUUID(v string) (string, error) {
	in := v // no blanks: uuid_in rejects " <uuid>" and "<uuid> "
	if strings.HasPrefix(in, "{") && strings.HasSuffix(in, "}") {
		in = in[1 : len(in)-1]
	}
	// PostgreSQL's uuid_in: a hyphen only after a group of four digits,
	// never two in a row, never last
	digits, ok := uuidHexDigits(in, func(s string, i int, digits []byte) bool {
		return len(digits) > 0 && len(digits)%4 == 0 && i+1 < len(s) && s[i+1] != '-'
	})
	if !ok {
		return "", fmt.Errorf("%w: uuid %q: invalid input syntax", ErrInvalidEvent, v)
	}
	return formatUUID(string(digits)), nil
}

// parseWallClock is a timestamp / datetime value in the column's unit
// (name), as stored: rounded to the column's precision prec by
// PostgreSQL (pg; none declared is 6), truncated by MySQL / MariaDB (none
// declared is 0).
func parseWallClock(v, name string, pg bool, prec int) (int64, error) {
	layouts := []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.RFC3339Nano, "2006-01-02"}
	var t time.Time
	var err error
	for _, l := range layouts {
		if t, err = time.ParseInLocation(l, v, time.UTC); err == nil {
			break
		}
	}
	if err != nil {
		return 0, fmt.Errorf("timestamp %q: want 2006-01-02 15:04:05[.ffffff]", v)
	}
	if pg {
		t = pgRound(t, prec)
	} else {
		t = binlogTruncate(t, prec)
	}
	switch name {
	case NameTimestamp:
		return t.UnixMilli(), nil
	case NameMicroTimestamp:
		return t.UnixMicro(), nil
	}
	if pg && !nanosFit(t) {
		// NanoTimestamp.toEpochNanos's multiplyExact / addExact throw
		// an IllegalArgumentException the converter logs: no value
		return 0, &ConvertError{Type: "timestamp", Value: v, Message: "beyond the epoch nanoseconds of a long (NanoTimestamp.toEpochNanos)"}
	}
	// MariaDB: the epoch nanoseconds wrap as a Java long does (seen on
	// the stack for 9999-12-31); Go's UnixNano wraps the same way
	return t.UnixNano(), nil
}

// nanosFit reports whether NanoTimestamp.toEpochNanos can give t: its
// epoch day times the nanoseconds of a day, plus the nanoseconds of the
// day, in a long.
func nanosFit(t time.Time) bool {
	const nanosPerDay = 86400 * 1000000000
	day := t.Unix() / 86400
	if t.Unix()%86400 < 0 {
		day--
	}
	if day > math.MaxInt64/nanosPerDay || day < math.MinInt64/nanosPerDay {
		return false
	}
	ofDay := t.Sub(time.Unix(day*86400, 0))
	return day*nanosPerDay <= math.MaxInt64-int64(ofDay)
}

// SampleRow is the sample outbox row file read by `outboxctl route preview`.
//
//	{
//	  "op": "c",                          // c (default), r, u, d, t
//	  "table": "public.outboxevent",      // schema.table (PostgreSQL) or db.table
//	  "columns": {                        // SQL types; default: inferred
//	    "id": "uuid not null",
//	    "payload": "jsonb",
//	    "created_at": {"type": "timestamp(3)", "nullable": false},
//	    "status": "varchar(20) not null default 'new'"
//	  },
//	  "row": {"id": "…", "aggregatetype": "Order", "aggregateid": "1",
//	          "type": "OrderCreated", "payload": {"id": 1}},
//	  "tsMs": 1700000000000,              // envelope ts_ms (optional)
//	  "runId": "…",                       // __debezium.context.runId (optional)
//	  "primaryKey": ["id"]                // optional
//	}
//
// Column types not given are inferred from the row value: a string is
// varchar, an integer int4 (int8 when it does not fit; bigint on MySQL and
// MariaDB), a boolean bool, an object or array jsonb (PostgreSQL) or json,
// null text; all nullable. The column order is the order of "row".
type SampleRow struct {
	Op         string
	Table      string
	Columns    map[string]ColumnSpec
	Row        []SampleValue
	TsMs       *int64
	RunID      string
	PrimaryKey []string
}

// ColumnSpec is the SQL type of a sample column.
type ColumnSpec struct {
	Type     string `json:"type"`
	Nullable *bool  `json:"nullable,omitempty"`
	// Default is the column's DEFAULT as a JSON value of the column type
	// (the value the database stores for it, written as in "row"); the
	// schema default is what Debezium derives from it, as for
	// DefaultExpression (a PostgreSQL char(n) default is not padded, a quote
	// cuts a PostgreSQL text default short, bytes columns get none); nil
	// for none. Under a time.precision.mode that changes a temporal
	// column's schema, give its Default as a string ("2024-01-02
	// 03:04:05.5"); a number is refused there.
	Default json.RawMessage `json:"default,omitempty"`
	// DefaultExpression is the column's DEFAULT clause as written in SQL
	// ("'new'", "0", "now()"); the schema default is what Debezium derives
	// from it (ColumnDefault). At most one of Default and DefaultExpression.
	DefaultExpression string `json:"defaultExpression,omitempty"`
	// DatabaseType is the column's type as PostgreSQL's catalog names it
	// (pg_type.typname: _mood for an array of the enum type mood),
	// optional. Only the connector's failure message of an enum array with
	// a NULL element under event.converting.failure.handling.mode=fail
	// names it ("… of type _mood"); without it that case is refused. Give
	// it for a type in schema public with an unquoted name (what was run
	// through the connector).
	DatabaseType string `json:"databaseType,omitempty"`
}

var defaultClause = regexp.MustCompile(`(?i)\s+default\s+`)

// UnmarshalJSON accepts "type [not null] [default EXPR]" or
// {"type","nullable","default","defaultExpression","databaseType"}.
func (c *ColumnSpec) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		notNull := func(s string) (string, bool) {
			t := strings.TrimSpace(s)
			low := strings.ToLower(t)
			switch {
			case strings.HasSuffix(low, " not null"):
				return strings.TrimSpace(t[:len(t)-len(" not null")]), true
			case strings.HasSuffix(low, " null"): // explicitly nullable
				return strings.TrimSpace(t[:len(t)-len(" null")]), false
			}
			return t, false
		}
		if loc := defaultClause.FindStringIndex(s); loc != nil {
			expr, nn := notNull(s[loc[1]:])
			c.DefaultExpression = expr
			s = s[:loc[0]]
			if nn {
				f := false
				c.Nullable = &f
			}
		}
		var nn bool
		if s, nn = notNull(s); nn {
			f := false
			c.Nullable = &f
		}
		c.Type = s
		return nil
	}
	type plain ColumnSpec
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*c = ColumnSpec(p)
	return nil
}

// SampleValue is one column of the sample row, in file order.
type SampleValue struct {
	Name  string
	Value json.RawMessage
}

// ParseSampleRow reads a sample row file.
func ParseSampleRow(r io.Reader) (*SampleRow, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Op         string                `json:"op"`
		Table      string                `json:"table"`
		Columns    map[string]ColumnSpec `json:"columns"`
		Row        json.RawMessage       `json:"row"`
		TsMs       *int64                `json:"tsMs"`
		RunID      string                `json:"runId"`
		PrimaryKey []string              `json:"primaryKey"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: sample row: %v", ErrInvalidEvent, err)
	}
	sr := &SampleRow{Op: raw.Op, Table: raw.Table, Columns: raw.Columns, TsMs: raw.TsMs, RunID: raw.RunID, PrimaryKey: raw.PrimaryKey}
	if sr.Op == "" {
		sr.Op = OpCreate
	}
	if len(bytes.TrimSpace(raw.Row)) == 0 || string(bytes.TrimSpace(raw.Row)) == "null" {
		if sr.Op == OpCreate || sr.Op == OpRead || sr.Op == OpUpdate {
			return nil, fmt.Errorf("%w: sample row: \"row\" is required for op %q", ErrInvalidEvent, sr.Op)
		}
		return sr, nil
	}
	if sr.Row, err = orderedObject(raw.Row); err != nil {
		return nil, fmt.Errorf("%w: sample row: \"row\": %v", ErrInvalidEvent, err)
	}
	for name := range sr.Columns {
		found := false
		for _, v := range sr.Row {
			found = found || v.Name == name
		}
		if !found {
			return nil, fmt.Errorf("%w: sample row: column %q is typed in \"columns\" but missing from \"row\"", ErrInvalidEvent, name)
		}
	}
	return sr, nil
}

func orderedObject(raw json.RawMessage) ([]SampleValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want an object")
	}
	var out []SampleValue
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		for _, o := range out {
			if o.Name == k {
				return nil, fmt.Errorf("duplicate column %q", k)
			}
		}
		out = append(out, SampleValue{Name: k, Value: v})
	}
	return out, nil
}

// ChangeEvent turns the sample into the change event a connector of kind
// delivers, under the connector's default value settings. The table
// defaults to public.outboxevent (PostgreSQL) or outbox.outboxevent.
func (sr *SampleRow) ChangeEvent(kind ConnectorKind) (ChangeEvent, error) {
	return sr.changeEvent(kind, ColumnSettings{})
}

// ChangeEventFor is ChangeEvent for the connector of cfg, under its
// ColumnSettings: a column whose value a setting changes in a way the
// emulator does not model is a *SettingError (ErrUnsupported).
func (sr *SampleRow) ChangeEventFor(cfg Config) (ChangeEvent, error) {
	return sr.changeEvent(cfg.Connector, cfg.ColumnSettings)
}

func (sr *SampleRow) changeEvent(kind ConnectorKind, cs ColumnSettings) (ChangeEvent, error) {
	if kind == "" {
		kind = Postgres
	}
	ev := ChangeEvent{Op: sr.Op, Table: sr.Table, TsMs: sr.TsMs, RunID: sr.RunID, KeyColumns: sr.PrimaryKey}
	if ev.Table == "" {
		ev.Table = "public.outboxevent"
		if kind != Postgres {
			ev.Table = "outbox.outboxevent"
		}
	}
	if sr.Row == nil {
		return ev, nil
	}
	ev.After = []Column{}
	for _, v := range sr.Row {
		spec, ok := sr.Columns[v.Name]
		if !ok || spec.Type == "" {
			spec.Type = inferSQLType(kind, v.Value)
		}
		b, notNull, domain := pgDomain(kind, spec.Type)
		if domain {
			spec.Type = b
			if notNull {
				f := false
				spec.Nullable = &f
			}
		}
		if NotCapturable(kind, spec.Type) {
			// the connector's DDL parser fails on the table: the task
			// fails before it delivers anything (Route returns it)
			if ev.ConnectorError == nil {
				ev.ConnectorError = captureTaskError(v.Name, spec.Type)
			}
			continue
		}
		nullable := true
		if spec.Nullable != nil {
			nullable = *spec.Nullable
		}
		s, dropped, err := ResolveColumn(kind, v.Name, spec.Type, nullable, cs)
		if err != nil {
			var se *SettingError
			if errors.As(err, &se) {
				return ev, se
			}
			return ev, fmt.Errorf("column %s: %w", v.Name, err)
		}
		if dropped {
			// the connector leaves it out of the record; its value is
			// not read
			if ColumnDropped(kind, spec.Type) {
				// an array without a schema cannot be in the key
				for _, k := range sr.PrimaryKey {
					if k == v.Name {
						return ev, fmt.Errorf("column %s: %w", v.Name, &ColumnTypeError{Kind: kind, Type: spec.Type})
					}
				}
			}
			continue
		}
		switch {
		case domain:
			// a domain column's DEFAULT is not in the connector's
			// schema (ColumnDefault)
		case len(spec.Default) > 0 && spec.DefaultExpression != "":
			return ev, fmt.Errorf("%w: column %s: give \"default\" or \"defaultExpression\", not both", ErrInvalidEvent, v.Name)
		case len(spec.Default) > 0:
			d, err := jsonColumnDefault(kind, spec.Type, s, spec.Default)
			if err != nil {
				return ev, fmt.Errorf("%w: column %s default: %v", ErrInvalidEvent, v.Name, err)
			}
			s.Default = d
		case spec.DefaultExpression != "":
			d, err := ColumnDefault(kind, spec.Type, s, spec.DefaultExpression)
			if err != nil {
				return ev, fmt.Errorf("column %s default %s: %w", v.Name, spec.DefaultExpression, err)
			}
			s.Default = d
		}
		val, err := ColumnValueWith(kind, spec.Type, s, v.Value, cs)
		if err == nil && sr.Op == OpRead && isMariaDBUUID(kind, spec.Type) && val != nil {
			// a snapshot read: the JDBC driver's java.util.UUID, not the
			// binlog's bytes (seen on the stack)
			val, err = mariaDBUUIDSnapshot(v.Value)
		}
		if err != nil {
			val, err = cs.ConvertFailureAs(ev.Table, v.Name, spec.Type, spec.DatabaseType, s, err)
		}
		var se *SettingError
		if errors.As(err, &se) {
			return ev, se
		}
		var te *TaskError
		if errors.As(err, &te) {
			// the connector fails on this row (Route returns it)
			if ev.ConnectorError == nil {
				ev.ConnectorError = te
			}
			val, err = nil, nil
		}
		if err != nil {
			return ev, fmt.Errorf("%w: column %s (%s): %v", ErrInvalidEvent, v.Name, spec.Type, err)
		}
		ev.After = append(ev.After, Column{Name: v.Name, Schema: s, Value: val})
	}
	return ev, nil
}

func inferSQLType(kind ConnectorKind, raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "text"
	}
	switch raw[0] {
	case '"':
		return "varchar"
	case '{', '[':
		if kind == Postgres {
			return "jsonb"
		}
		return "json"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "text"
	}
	if _, err := strconv.ParseInt(string(raw), 10, 32); err == nil {
		return "int"
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "bigint"
	}
	if kind == Postgres {
		return "float8"
	}
	return "double"
}

// parseSQLTimestamp reads v in one of pgTimestamptzLayouts (a zone-less
// value as UTC); the error names the SQL type and the accepted form.
func parseSQLTimestamp(v, sqlType, zone string) (time.Time, error) {
	for _, l := range pgTimestamptzLayouts {
		if t, err := time.ParseInLocation(l, strings.TrimSpace(v), time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: %s %q: want 2006-01-02 15:04:05[.ffffff]%s", ErrInvalidEvent, sqlType, v, zone)
}

// bytesValue is the bytes of a binary column's sample value (see
// ColumnValue), MySQL / MariaDB binary(n) right-padded with zero bytes.
func bytesValue(pg bool, base string, prec int, raw json.RawMessage, str string, isStr bool) ([]byte, error) {
	var b []byte
	var err error
	switch {
	case !isStr:
		var buf bytes.Buffer
		err = json.Compact(&buf, raw)
		b = buf.Bytes()
	case strings.HasPrefix(str, "base64:"):
		b, err = base64.StdEncoding.DecodeString(strings.TrimPrefix(str, "base64:"))
	case strings.HasPrefix(str, "hex:"):
		b, err = hex.DecodeString(strings.TrimPrefix(str, "hex:"))
	default:
		b = []byte(str)
	}
	if err != nil {
		return nil, err
	}
	if !pg && base == "binary" {
		// BinlogValueConverters.normalizeBinaryData: BINARY(n) right-padded
		// with 0x00 to n bytes, as the server stores it
		n := prec
		if n < 0 {
			n = 1
		}
		if len(b) < n {
			b = append(b, make([]byte, n-len(b))...)
		}
	}
	return b, nil
}
