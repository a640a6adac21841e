package eventrouter

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ColumnDefault returns the schema default a Debezium connector of kind puts
// on the Connect schema s of a column of SQL type sqlType declared with
// DEFAULT expr (nil when the schema gets none). The EventRouter reads the
// payload, the event id, the key and the header and envelope placements
// with Connect's untyped Struct.get, which returns this default instead of
// a NULL in the row: a NULL reaches them as the default whenever Debezium
// derived one. route.by.field, partition, schema version and timestamp use
// the typed getters and still see the NULL.
//
// expr is the DEFAULT clause as written in CREATE TABLE (or as PostgreSQL's
// pg_get_expr / MariaDB's SHOW CREATE TABLE print it).
//
// PostgreSQL (PostgresDefaultValueConverter): a quoted literal is taken up
// to its first closing quote (so a quote escaped by doubling cuts it short),
// with any ::cast ignored; an unquoted value is taken as is. A function call
// (now(), nextval(…), gen_random_uuid()) or CURRENT_TIMESTAMP, CURRENT_DATE,
// CURRENT_TIME, LOCALTIME, LOCALTIMESTAMP does NOT leave the column without
// a default: the schema gets a placeholder, so a NULL reaches the
// EventRouter as "" (text, varchar, char), "{}" (json, jsonb), 0 (integers;
// the epoch for timestamp and date), false (boolean),
// "00000000-0000-0000-0000-000000000000" (uuid) or the epoch with the
// column's fraction digits, "1970-01-01T00:00:00.000000Z" (timestamptz).
// DEFAULT NULL, bytea and other types without a mapper get no default; so
// does a value that does not parse as the column type.
//
// MySQL / MariaDB (the DDL parser and BinlogDefaultValueConverter): a
// string or number literal is the default (the outer quotes stripped,
// doubled quotes inside kept as they are); TRUE / FALSE are 1 / 0 on
// integer columns; CURRENT_TIMESTAMP and NOW() (with or without a
// precision) become 1970-01-01 00:00:00: the epoch on datetime columns, and
// on timestamp columns the epoch when NOT NULL, no default when nullable; a
// zero or unparsable date is no default when nullable, the epoch when NOT
// NULL; any other expression (uuid(), (1 + 1)) and DEFAULT NULL give no
// default.
//
// PostgreSQL numeric DEFAULTs that are expressions are read as pg_get_expr
// prints them (pgnumexpr.go; CatalogColumnDefault reads the catalog's
// text as it is). MariaDB: a parenthesized literal is the literal
// (binlogUnparen).
//
// Not modelled (ErrUnsupported): a MySQL / MariaDB bytes DEFAULT with a
// byte of 0x80 or more, a literal PostgreSQL timestamptz default and a
// literal MySQL / MariaDB timestamp default (their time zone handling).
func ColumnDefault(kind ConnectorKind, sqlType string, s *Schema, expr string) (any, error) {
	return columnDefault(kind, sqlType, s, expr, false)
}

// CatalogColumnDefault is ColumnDefault of a DEFAULT as the database's
// catalog prints it (PostgreSQL's pg_get_expr, MariaDB's
// information_schema.COLUMNS.COLUMN_DEFAULT), which is the text the
// connector reads: a PostgreSQL numeric DEFAULT is then read exactly as
// PostgresDefaultValueConverter reads it, whatever the expression (the
// relay's catalog). ColumnDefault reads the expression as CREATE TABLE
// wrote it, which PostgreSQL may print otherwise (-1.5::numeric is
// (- 1.5)).
func CatalogColumnDefault(kind ConnectorKind, sqlType string, s *Schema, expr string) (any, error) {
	return columnDefault(kind, sqlType, s, expr, true)
}

func columnDefault(kind ConnectorKind, sqlType string, s *Schema, expr string, catalog bool) (any, error) {
	if _, ok := PgDomainBase(kind, sqlType); ok {
		// PostgresDefaultValueConverter looks the converter up by the
		// column's type name, the domain's, and has none: a domain
		// column's DEFAULT is not in the schema (seen on the stack)
		return nil, nil
	}
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, nil
	}
	if isPgArray(kind, sqlType) {
		// PostgresDefaultValueConverter has no mapper for an array type
		// (_int4: "Mapper for type '_int4' not found"): no default in
		// the schema, whatever the expression ('{1,2}', '{}',
		// ARRAY[1,2]; seen on the stack)
		return nil, nil
	}
	if isPgEnum(kind, sqlType) && !pgNullDefault.MatchString(expr) {
		return pgEnumDefault(sqlType, expr)
	}
	if (kind == Postgres || kind == "") && !pgNullDefault.MatchString(expr) {
		if d, ok, err := pgMiscDefault(sqlType, s, expr); ok {
			return d, err
		}
	}
	if kind == MySQL || kind == MariaDB {
		expr = binlogUnparen(sqlType, expr)
	}
	if (kind == MySQL || kind == MariaDB) && !strings.EqualFold(expr, "null") {
		if d, ok, err := binlogMiscDefault(kind, sqlType, s, expr); ok {
			return d, err
		}
		if s.Type == Bytes && s.Name == "" || s.binaryMode != "" {
			return binlogBinaryDefault(sqlType, s, expr, catalog)
		}
		if isUnsignedBigintDecimal(kind, sqlType, s) {
			// bigint.unsigned.handling.mode=precise: the literal as the
			// column's value (convertUnsignedBigint of the parser's text)
			if strings.HasPrefix(expr, "(") || binlogExprDefault.MatchString(expr) ||
				catalog && !strings.HasPrefix(expr, "'") && !binlogUint.MatchString(expr) {
				// a computed DEFAULT ((1+1), uuid_short(); the catalog
				// prints an expression unquoted, 1 + 1): the DDL
				// parser's expression alternative, no default
				// (default2_maria_unsigned_binary)
				return nil, nil
			}
			v := strings.Trim(expr, "'")
			if !binlogUint.MatchString(v) {
				return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: a number)", ErrUnsupported, expr, sqlType)
			}
			return ColumnValue(kind, sqlType, s, []byte(v))
		}
		if isBinlogSpatial(kind, sqlType) && binlogExprDefault.MatchString(expr) && !binlogHexLiteral.MatchString(expr) {
			// a computed spatial DEFAULT (ST_GeomFromText(…), point(1,2)):
			// the DDL parser's expression alternative, no default (seen on
			// the stack: default_maria_spatial); a literal stays refused
			return nil, nil
		}
	}
	if IsDecimalType(sqlType) && !isUnsignedBigintDecimal(kind, sqlType, s) && !modeChanged(kind, sqlType, s) {
		return decimalDefault(kind, sqlType, s, expr, catalog)
	}
	if (IsDecimalType(sqlType) || isMoney(kind, sqlType) || isMiscType(kind, sqlType) || isUnsignedBigintDecimal(kind, sqlType, s) || s.Type == StructT) && !pgNullDefault.MatchString(expr) {
		// the connectors' default value converters for numeric / decimal
		// (scale, BigDecimal parsing, the PostgreSQL mapper) are not modelled
		return nil, fmt.Errorf("%w: the DEFAULT of a %s column (not modelled)", ErrUnsupported, sqlType)
	}
	if (isMariaDBUUID(kind, sqlType) || isPgOid(kind, sqlType) || s.Items != nil && pgVectorTypes[strings.ToLower(strings.TrimSpace(sqlType))] != "" || s.Name == NameLtree || s.Name == NameTsvector) && !pgNullDefault.MatchString(expr) {
		// not checked against the connectors' default value converters
		return nil, fmt.Errorf("%w: the DEFAULT of a %s column (not modelled)", ErrUnsupported, sqlType)
	}
	switch kind {
	case Postgres, "":
		return pgColumnDefault(sqlType, s, expr)
	case MySQL, MariaDB:
		return binlogColumnDefault(kind, sqlType, s, expr)
	}
	return nil, fmt.Errorf("%w: connector %q", ErrUnsupported, kind)
}

var (
	// PostgresDefaultValueConverter.LITERAL_DEFAULT_PATTERN and
	// FUNCTION_DEFAULT_PATTERN
	pgLiteralDefault  = regexp.MustCompile(`'(.*?)'`)
	pgFunctionDefault = regexp.MustCompile(`^[(]?[A-Za-z0-9_.]+\((?:.+(?:, ?.+)*)?\)`)
	pgCurrentDateTime = map[string]bool{"current_timestamp": true, "current_time": true, "current_date": true, "localtime": true, "localtimestamp": true}
	pgNullDefault     = regexp.MustCompile(`(?i)^\(?\s*null\s*\)?(\s*::.*)?$`)
)

// pgTypeName is the PostgreSQL type name (pg_type.typname) Debezium looks
// its default value mapper up by, "" for a type without one.
func pgTypeName(sqlType string) string {
	base, _ := parseSQLType(sqlType)
	switch base {
	case "varchar", "character varying":
		return "varchar"
	case "text":
		return "text"
	case "char", "character", "bpchar":
		return "bpchar"
	case "int2", "smallint", "smallserial":
		return "int2"
	case "int4", "int", "integer", "serial":
		return "int4"
	case "int8", "bigint", "bigserial":
		return "int8"
	case "bool", "boolean":
		return "bool"
	case "float4", "real":
		return "float4"
	case "float8", "double precision":
		return "float8"
	case "json", "jsonb", "uuid", "date":
		return base
	case "timestamp", "timestamp without time zone":
		return "timestamp"
	case "timestamptz", "timestamp with time zone":
		return "timestamptz"
	}
	return ""
}

func pgColumnDefault(sqlType string, s *Schema, expr string) (any, error) {
	// PostgreSQL stores no default at all for DEFAULT NULL.
	if pgNullDefault.MatchString(expr) {
		return nil, nil
	}
	typ := pgTypeName(sqlType)
	if typ == "" {
		return nil, nil // "Mapper for type … not found": no default
	}
	placeholder := map[string]string{
		"bpchar": "", "varchar": "", "text": "", "json": "{}", "jsonb": "{}",
		"bool": "false", "int2": "0", "int4": "0", "int8": "0", "float4": "0.0", "float8": "0.0",
		"uuid": "00000000-0000-0000-0000-000000000000",
		"date": "1970-01-01", "timestamp": "1970-01-01", "timestamptz": "1970-01-01",
	}[typ]
	var v string
	generated := pgFunctionDefault.MatchString(expr) || pgCurrentDateTime[strings.ToLower(expr)]
	switch {
	case generated:
		v = placeholder
	case !strings.Contains(expr, "'"):
		v = expr
		if strings.HasPrefix(v, "NULL::") {
			return nil, nil
		}
	default:
		v = pgLiteralDefault.FindStringSubmatch(expr)[1]
	}
	switch typ {
	case "bool":
		// PostgreSQL stores the folded constant (true / false), which
		// Debezium reads with Boolean.parseBoolean.
		b, ok := pgBool(v)
		if !ok {
			return nil, nil
		}
		return b, nil
	case "timestamptz":
		if !generated {
			return nil, fmt.Errorf("%w: literal timestamptz default %s", ErrUnsupported, expr)
		}
		// ZonedTimestamp.toIsoString with the column's fractional width
		// (the precision; 6 when none is declared; 0 prints none)
		_, prec := parseSQLType(sqlType)
		if prec < 0 {
			prec = 6
		}
		if prec == 0 || prec > 9 {
			return "1970-01-01T00:00:00Z", nil
		}
		return "1970-01-01T00:00:00." + strings.Repeat("0", prec) + "Z", nil
	case "int2", "int4", "int8":
		// Short/Integer/Long.parseXxx: out of range is no default
		bits := map[string]int{"int2": 16, "int4": 32, "int8": 64}[typ]
		if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits); err != nil {
			return nil, nil
		}
		v = strings.TrimSpace(v)
	case "float4", "float8":
		v = strings.TrimSpace(v)
	}
	switch typ {
	case "jsonb":
		// PostgreSQL keeps the default as a jsonb constant and prints it
		// normalized; Debezium passes that text on.
		d, err := NormalizeJSONB(v)
		if err != nil {
			return nil, nil
		}
		return d, nil
	case "uuid":
		return strings.ToLower(v), nil
	case "bpchar", "varchar", "text", "json":
		return v, nil // the text as is (no blank padding for char(n))
	}
	raw := []byte(v)
	if s.Name != "" { // timestamp, date: the wall-clock text
		raw = mustJSONString(looseDate(v))
	}
	if typ == "timestamp" {
		// pg_get_expr prints the constant with up to 6 fraction digits,
		// not rounded to the column's precision (the coercion is hidden):
		// the converter truncates it to the schema's unit
		sqlType = "timestamp(6)"
	}
	d, err := ColumnValue(Postgres, sqlType, s, raw)
	if err != nil {
		// "Cannot parse column default value …": no default
		return nil, nil
	}
	return d, nil
}

// pgBool parses a PostgreSQL boolean literal.
func pgBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "t", "true", "y", "yes", "on", "1":
		return true, true
	case "f", "false", "n", "no", "off", "0":
		return false, true
	}
	return false, false
}

var (
	binlogNumber = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	// BinlogDefaultValueConverter.EPOCH_EQUIVALENT_DATE / _TIMESTAMP
	binlogZeroDate  = regexp.MustCompile(`^(\d{4}-\d{2}-00|\d{4}-00-\d{2}|0000-\d{2}-\d{2})( 00:00:00(\.\d{1,6})?)?$`)
	binlogCurrentTS = regexp.MustCompile(`(?i)^(current_timestamp|now|localtime|localtimestamp)\s*(\(\s*\d*\s*\))?$`)
)

func binlogColumnDefault(kind ConnectorKind, sqlType string, s *Schema, expr string) (any, error) {
	var v string
	switch {
	case strings.EqualFold(expr, "null"):
		return nil, nil
	case len(expr) >= 2 && (expr[0] == '\'' && expr[len(expr)-1] == '\'' || expr[0] == '"' && expr[len(expr)-1] == '"'):
		v = expr[1 : len(expr)-1]
	case binlogNumber.MatchString(expr):
		v = strings.TrimPrefix(expr, "+")
	case strings.EqualFold(expr, "true") || strings.EqualFold(expr, "false"):
		v = expr
	case binlogCurrentTS.MatchString(expr):
		m := binlogCurrentTS.FindStringSubmatch(expr)
		if f := strings.ToLower(m[1]); f != "current_timestamp" && f != "now" {
			return nil, nil // LOCALTIME… does not parse as a timestamp
		}
		v = "1970-01-01 00:00:00"
	default:
		return nil, nil // a computed default is handled as NULL
	}
	switch s.Type {
	case Int8, Int16, Int32, Int64, Float32, Float64, Boolean:
		v = strings.TrimSpace(v)
		if s.Type != Boolean && (strings.EqualFold(v, "true") || strings.EqualFold(v, "false")) {
			v = map[bool]string{true: "1", false: "0"}[strings.EqualFold(v, "true")]
		}
	case Bytes:
		return nil, fmt.Errorf("%w: default of a bytes column", ErrUnsupported)
	}
	family, _ := wallClockKind(kind, sqlType)
	switch {
	case s.Name == NameZonedTimestamp:
		if v != "1970-01-01 00:00:00" {
			return nil, fmt.Errorf("%w: literal timestamp default %s", ErrUnsupported, expr)
		}
		if s.Optional {
			return nil, nil
		}
		return "1970-01-01T00:00:00Z", nil
	case family == "timestamp" || family == "date":
		// a zero date (0000-00-00…, or 0) or one that does not parse: no
		// default on a nullable column, the epoch on a NOT NULL one
		epoch := map[bool]string{true: "1970-01-01", false: "1970-01-01 00:00:00"}[family == "date"]
		if v == "0" || binlogZeroDate.MatchString(v) {
			if s.Optional {
				return nil, nil
			}
			v = epoch
		}
		d, err := ColumnValue(kind, sqlType, s, mustJSONString(looseDate(v)))
		if err != nil {
			if s.Optional {
				return nil, nil
			}
			return ColumnValue(kind, sqlType, s, mustJSONString(epoch))
		}
		return d, nil
	}
	var raw []byte
	switch s.Type {
	case String:
		raw = mustJSONString(v)
	case Boolean:
		if n, err := strconv.Atoi(v); err == nil {
			return n != 0, nil
		}
		return strings.EqualFold(v, "true"), nil
	default:
		raw = []byte(v)
	}
	d, err := ColumnValue(kind, sqlType, s, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: default %s of a %s column: %v", ErrInvalidEvent, expr, sqlType, err)
	}
	return d, nil
}

func mustJSONString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// jsonColumnDefault is the schema default Debezium derives from a column
// DEFAULT given as a JSON value (SampleRow's "default"): the value is
// written as the literal the database catalog prints (PostgreSQL
// pg_get_expr, MariaDB SHOW CREATE TABLE) and that goes through
// ColumnDefault. A number for a timestamp or date column is a value in the
// column's unit, taken as is.
func jsonColumnDefault(kind ConnectorKind, sqlType string, s *Schema, raw json.RawMessage) (any, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if isPgArray(kind, sqlType) {
		// no mapper for an array type: no default (ColumnDefault)
		return nil, nil
	}
	if modeChanged(kind, sqlType, s) {
		// a time.precision.mode that changes the column's schema: a
		// string is the literal the catalog prints, which ColumnDefault
		// converts as the mode converts a value (default2_time_mode_json);
		// a number, a value in the default mode's unit, is refused
		var text string
		if raw[0] != '"' || json.Unmarshal(raw, &text) != nil {
			return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column under a time.precision.mode that changes its schema (modelled: a string such as \"2024-01-02 03:04:05.5\")", ErrUnsupported, raw, sqlType)
		}
		if _, err := ColumnValue(kind, sqlType, s, raw); err != nil {
			return nil, err
		}
		if kind == Postgres || kind == "" {
			return ColumnDefault(kind, sqlType, s, "'"+strings.ReplaceAll(text, "'", "''")+"'")
		}
		return ColumnDefault(kind, sqlType, s, "'"+strings.NewReplacer("'", "''", `\`, `\\`).Replace(text)+"'")
	}
	if IsDecimalType(sqlType) && !isUnsignedBigintDecimal(kind, sqlType, s) {
		// a JSON number or a string holding one: the quoted constant
		text := string(raw)
		if raw[0] == '"' {
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, err
			}
		}
		return ColumnDefault(kind, sqlType, s, "'"+strings.ReplaceAll(text, "'", "''")+"'")
	}
	if (s.Type == Bytes && s.Name == "" || s.binaryMode != "") && kind != Postgres && kind != "" {
		// the stored bytes, as an X'…' literal (binlogBinaryDefault)
		v, err := ColumnValue(kind, sqlType, &Schema{Type: Bytes, Optional: true}, raw)
		if err != nil {
			return nil, err
		}
		b, _ := v.([]byte)
		return ColumnDefault(kind, sqlType, s, "X'"+hex.EncodeToString(b)+"'")
	}
	if s.Type == Bytes || s.binaryMode != "" {
		// bytea has no default value mapper: no default
		if _, err := ColumnValue(kind, sqlType, s, raw); err != nil {
			return nil, err
		}
		return nil, nil
	}
	var text string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, err
		}
	case '{', '[':
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		text = b.String()
	default:
		if s.Name != "" && s.Type != String {
			return ColumnValue(kind, sqlType, s, raw) // a number in the column's unit
		}
		if _, err := ColumnValue(kind, sqlType, s, raw); err != nil {
			return nil, err
		}
		return ColumnDefault(kind, sqlType, s, string(raw))
	}
	if kind == Postgres || kind == "" {
		if s.Type == Boolean || s.Type == Int16 || s.Type == Int32 || s.Type == Int64 || s.Type == Float32 || s.Type == Float64 {
			if _, err := ColumnValue(kind, sqlType, s, raw); err != nil {
				return nil, err
			}
		}
		return ColumnDefault(kind, sqlType, s, "'"+strings.ReplaceAll(text, "'", "''")+"'")
	}
	// SHOW CREATE TABLE escapes quotes by doubling them and backslashes by
	// doubling them; Debezium's DDL parser keeps both doubled.
	if s.Type != String {
		if _, err := ColumnValue(kind, sqlType, s, raw); err != nil {
			return nil, err
		}
	}
	esc := strings.NewReplacer("'", "''", `\`, `\\`).Replace(text)
	return ColumnDefault(kind, sqlType, s, "'"+esc+"'")
}

// isPgEnum reports a PostgreSQL enum column (given as enum('a','b')).
func isPgEnum(kind ConnectorKind, sqlType string) bool {
	k, _, ok := parseEnumType(sqlType)
	return ok && k == "enum" && (kind == Postgres || kind == "")
}

// pgEnumDefault is the default PostgresDefaultValueConverter's enum mapper
// gives DEFAULT 'label'::type (pg_get_expr's form): the text between the
// outer quotes before the last ::, a doubled quote left as it is. Another
// expression is refused.
func pgEnumDefault(sqlType, expr string) (any, error) {
	cast := strings.LastIndex(expr, "::")
	if cast > 0 {
		if v := expr[:cast]; len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			return v[1 : len(v)-1], nil
		}
	}
	return nil, fmt.Errorf("%w: the DEFAULT %s of a PostgreSQL enum column (modelled: 'label'::type)", ErrUnsupported, expr)
}

// PgEnumType is the column type the emulator takes for a PostgreSQL enum
// type with these labels (in pg_enum's enumsortorder): enum('a','it”s').
func PgEnumType(labels []string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = "'" + strings.ReplaceAll(l, "'", "''") + "'"
	}
	return "enum(" + strings.Join(q, ",") + ")"
}

var looseDateRe = regexp.MustCompile(`^\s*(\d{4})-(\d{1,2})-(\d{1,2})(\s.*)?$`)

// looseDate zero-pads the month and day of a date written 2024-1-2, as
// the database prints the stored DEFAULT (pg_get_expr, SHOW CREATE TABLE)
// for the connector to read.
func looseDate(v string) string {
	m := looseDateRe.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	return fmt.Sprintf("%s-%02s-%02s%s", m[1], m[2], m[3], m[4])
}

// binlogExprDefault is a MariaDB DEFAULT that is an expression: a
// function call or a parenthesized one, as SHOW CREATE TABLE prints it.
var binlogExprDefault = regexp.MustCompile(`^\(?[A-Za-z_][A-Za-z0-9_]*\s*\(`)

// binlogParenLiteral is a MySQL / MariaDB DEFAULT that is one literal in
// parentheses: (1.5), ('b').
var binlogParenLiteral = regexp.MustCompile(`^\(\s*('(?:[^'\\]|''|\\.)*'|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*\)$`)

// binlogUnparen is a DEFAULT without the parentheses around a single
// literal: MariaDB stores (1.5) as the constant, and SHOW CREATE TABLE
// prints 1.50 (seen on the stack); on a blob or text column, whose
// DEFAULT stays an expression, it is left as it is.
func binlogUnparen(sqlType, expr string) string {
	if b := strings.ToLower(binlogBase(sqlType)); strings.HasSuffix(b, "blob") || strings.HasSuffix(b, "text") {
		return expr
	}
	for {
		m := binlogParenLiteral.FindStringSubmatch(expr)
		if m == nil {
			return expr
		}
		expr = m[1]
	}
}
