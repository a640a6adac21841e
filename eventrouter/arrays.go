package eventrouter

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// pgArrayElements are the element types of the PostgreSQL arrays whose
// element schema is fixed (pgArrayAliases maps the other spellings: as
// written in a declaration, as format_type prints them), and the element
// schema PostgresValueConverter gives them: SchemaBuilder.array of an
// optional int16 / int32 / int64 / boolean / float / double / string /
// io.debezium.data.Uuid / io.debezium.time.Date. The element types in
// pgArrayScalarElements take the schema of the scalar column instead.
var pgArrayElements = map[string]func() *Schema{
	"int2":   func() *Schema { return &Schema{Type: Int16, Optional: true} },
	"int4":   func() *Schema { return &Schema{Type: Int32, Optional: true} },
	"int8":   func() *Schema { return &Schema{Type: Int64, Optional: true} },
	"bool":   func() *Schema { return &Schema{Type: Boolean, Optional: true} },
	"float4": func() *Schema { return &Schema{Type: Float32, Optional: true} },
	"float8": func() *Schema { return &Schema{Type: Float64, Optional: true} },
	"text":   func() *Schema { return &Schema{Type: String, Optional: true} },
	"uuid":   func() *Schema { return &Schema{Type: String, Name: NameUUID, Version: i32(1), Optional: true} },
	"date":   func() *Schema { return &Schema{Type: Int32, Name: NameDate, Version: i32(1), Optional: true} },
	"oid":    func() *Schema { return &Schema{Type: Int64, Optional: true} },
	"ltree":  func() *Schema { return &Schema{Type: String, Name: NameLtree, Version: i32(1), Optional: true} },
	// tsvector[]: arrayElementSchema gives the element TsVector.builder()
	// without optional() (seen on the stack: items optional false)
	"tsvector": func() *Schema { return &Schema{Type: String, Name: NameTsvector, Version: i32(1)} },
}

// pgArrayScalarElements are the element types whose element column
// (createArrayConverter: the array column's length and scale, i.e. its
// typmod) has the scalar column's schema and value: char(n) (blank-padded
// to n; bpchar without n is not padded), json and jsonb (the text
// PostgreSQL prints), bytea, timestamp(p) and timestamptz(p) (rounded to
// p), inet, cidr, macaddr, macaddr8 and the ranges (PostgreSQL's output
// form), hstore (hstore.handling.mode=json: the scalar's JSON), time(p)
// and timetz(p) (see pgArrayElementValue: pgjdbc reads them as
// java.sql.Time).
var pgArrayScalarElements = map[string]bool{
	"char": true, "json": true, "jsonb": true, "bytea": true,
	"timestamp": true, "timestamptz": true, "time": true, "timetz": true,
	"inet": true, "cidr": true, "macaddr": true, "macaddr8": true,
	"int4range": true, "int8range": true, "numrange": true, "daterange": true, "tsrange": true, "tstzrange": true,
	"hstore": true, PgCharType: true,
}

// pgArrayDropped are the element types whose arrays
// PostgresValueConverter gives no schema ("These array types still need
// to be implemented", DBZ-459): the connector leaves the column out of the
// record (seen on the stack: the field is absent; ColumnDropped). point[]
// is in the same list (POINT_ARRAY), though point has a schema (seen on
// the stack too, pgarr2_dropped_arrays).
var pgArrayDropped = map[string]bool{"name": true, "interval": true, "money": true, "varbit": true, "xml": true, "point": true}

// pgArrayNullNested are the element types whose element converter, given
// the sub-array pgjdbc builds for a multi-dimensional value (Integer[],
// Boolean[], ...), returns null (JdbcValueConverters.handleUnknownData on
// an optional element column): the connector delivers one null per
// top-level sub-array (seen on the stack). For the others
// (pgArrayIdentityNested) the converter writes the Java array's identity
// ("[Ljava.lang.String;@6b2c16d6", "[Ljava.lang.Object;@29b33426"), whose
// hash cannot be predicted.
var pgArrayNullNested = map[string]bool{
	// oid: pgjdbc's Long[] sub-array, which convertBigInt does not take
	// (seen on the stack, pgarr2_nested_oid_ltree_tsvector); numeric:
	// BigDecimal[], which toBigDecimal does not take, under every
	// decimal.handling.mode (pgarr2_nested_numeric_enum*)
	"oid": true, pgNumericArrayElem: true,
	"int2": true, "int4": true, "int8": true, "bool": true, "float4": true, "float8": true,
	"date": true, "timestamp": true, "timestamptz": true, "time": true, "timetz": true, "bytea": true, "hstore": true,
}

// pgArrayIdentityNested are the element types whose element converter,
// given pgjdbc's sub-array of a multi-dimensional value, writes its
// Object.toString: "[L" + the array's element class + ";@" + its Java
// identity hash (arbitrary per JVM run: PlaceholderIdentityHash here), one
// per top-level sub-array. The class names are what the connector wrote
// on the stack (volatile_pg_array_nested; the other ranges, cidr,
// macaddr, macaddr8, ltree and tsvector: pgarr2_nested_*). pgjdbc's
// MappedTypeObjectArrayDecoder builds Object[] sub-arrays for every
// element type it has no decoder for; the element converter
// (convertString, or convertLtreeArray's toString for ltree) writes their
// Object.toString.
// A sub-array of a value of n dimensions has n-1 ("[[Ljava.lang.String;@"
// for three).
var pgArrayIdentityNested = map[string]string{
	"text": "java.lang.String", "char": "java.lang.String", PgCharType: "java.lang.String", "json": "java.lang.String", "jsonb": "java.lang.String",
	"uuid": "java.util.UUID", "inet": "java.lang.Object", "int4range": "java.lang.Object", "tstzrange": "java.lang.Object",
	"cidr": "java.lang.Object", "macaddr": "java.lang.Object", "macaddr8": "java.lang.Object",
	"int8range": "java.lang.Object", "numrange": "java.lang.Object", "daterange": "java.lang.Object", "tsrange": "java.lang.Object",
	"ltree": "java.lang.Object", "tsvector": "java.lang.Object",
	// an enum: pgjdbc reads a typtype 'e' type as VARCHAR
	// (STRING_ONLY_DECODER: String[] sub-arrays), convertString
	pgEnumArrayElem: "java.lang.String",
}

// pgArrayDims is the number of dimensions of a multi-dimensional value
// (PostgreSQL's arrays are rectangular: the first sub-array tells).
func pgArrayDims(str string, isStr bool, elems []json.RawMessage) int {
	if isStr {
		items, _ := parsePgArrayText(str)
		n := 1
		for len(items) > 0 && items[0].sub != nil {
			n++
			items = items[0].sub
		}
		return n
	}
	n := 1
	for len(elems) > 0 {
		var sub []json.RawMessage
		if json.Unmarshal(elems[0], &sub) != nil {
			break
		}
		n++
		elems = sub
	}
	return n
}

// pgArrayAliases maps the other spellings to the element key.
var pgArrayAliases = map[string]string{
	"smallint": "int2", "int": "int4", "integer": "int4", "bigint": "int8", "boolean": "bool",
	"varchar": "text", "character varying": "text", "citext": "text", "real": "float4", "double precision": "float8",
	"decimal": "numeric", "character": "char", "bpchar": "char", "bit varying": "varbit",
	"timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
	"time without time zone": "time", "time with time zone": "timetz",
}

var (
	pgArrayTypeRe = regexp.MustCompile(`^\s*(?:_([a-z0-9_]+)|(.+?)\s*((?:\[\s*\d*\s*\]\s*)+|\s+array(?:\s*\[\s*\d*\s*\])?))\s*$`)
	// an element type: name, typmod, with / without time zone after the
	// typmod (as format_type prints timestamp(3) without time zone)
	pgArrayElemRe = regexp.MustCompile(`^([a-z][a-z0-9_ ]*?)\s*(\(\s*\d+\s*(?:,\s*\d+\s*)?\))?\s*(with(?:out)? time zone)?$`)
)

// pgNumericArrayElem is the pgArrayType element key of numeric[] and
// decimal[] (numeric(p,s)[]): its element schema is the column's
// numericSchema under decimal.handling.mode (pgArraySchema), not one of
// pgArrayElements.
const pgNumericArrayElem = "numeric"

// pgBitArrayElem is the element key of bit(n)[]: PostgresValueConverter
// gives BIT_ARRAY the schema of a bit(n) column (boolean for n = 1, else
// io.debezium.data.Bits), not an array, and its array converter's list
// fails Struct.put (DataException): the column is NULL under
// event.converting.failure.handling.mode warn (seen on the stack).
const pgBitArrayElem = "bit"

// pgEnumArrayElem is the pgArrayType element key of an enum array
// (enum('a','b')[]): PostgresValueConverter gives it
// SchemaBuilder.array(Enum.builder(labels)), elements NOT optional.
const pgEnumArrayElem = "enum"

// pgArrayType reports a PostgreSQL array type (int4[], integer[],
// varchar(10)[], numeric(10,2)[], text ARRAY, pg_type's _int4, as
// format_type prints it: timestamp(3) without time zone[]): elem is the
// element type's key (pgArrayElements, pgArrayScalarElements,
// pgNumericArrayElem, pgBitArrayElem; "" when the element type is not
// modelled), dims the number of dimensions declared (PostgreSQL does not
// enforce it: the connector gives int[][] the schema of int[]).
func pgArrayType(kind ConnectorKind, sqlType string) (elem string, dims int, ok bool) {
	elem, _, dims, ok = pgArrayTypeMod(kind, sqlType)
	return elem, dims, ok
}

// pgArrayTypeMod is pgArrayType with the element's SQL type as the
// element converter sees it: the array column's typmod (PostgreSQL keeps
// the element's typmod on the array column, the driver reports it as the
// column's length and scale, and PostgresValueConverter.createArrayConverter
// gives them to the element column): "numeric(10,2)", "char(4)",
// "timestamp(3)", "timestamptz", or "numeric" unconstrained.
func pgArrayTypeMod(kind ConnectorKind, sqlType string) (elem, elemSQL string, dims int, ok bool) {
	name, mod, dims, ok := pgArrayParse(kind, sqlType)
	if !ok {
		return "", "", 0, false
	}
	switch {
	case name == pgEnumArrayElem:
		// the element type is the enum itself, enum('a','b')
		return name, mod, dims, true
	case name == pgNumericArrayElem:
		return name, name + mod, dims, true
	case name == pgBitArrayElem:
		return name, name + mod, dims, true
	case pgArrayScalarElements[name]:
		return name, name + mod, dims, true
	case pgArrayElements[name] != nil:
		return name, name, dims, true
	}
	if _, vec := pgVectorTypes[name]; vec {
		return name, name, dims, true
	}
	return "", "", dims, true
}

// pgArrayParse splits a PostgreSQL array type into its element type's
// name (aliases resolved: int4, char, timestamptz, ...; "" when it does
// not parse) and typmod ("(4)", "(10,2)", "").
func pgArrayParse(kind ConnectorKind, sqlType string) (name, mod string, dims int, ok bool) {
	if kind != Postgres && kind != "" {
		return "", "", 0, false
	}
	if t := strings.TrimSpace(sqlType); strings.HasSuffix(t, "[]") {
		// an array of a PostgreSQL enum, given as enum('a','b')[]
		et := strings.TrimSpace(strings.TrimSuffix(t, "[]"))
		if k, _, ok := parseEnumType(et); ok && k == "enum" {
			// mod is the element type, enum('a','b')
			return pgEnumArrayElem, et, 1, true
		}
	}
	m := pgArrayTypeRe.FindStringSubmatch(strings.ToLower(sqlType))
	if m == nil {
		return "", "", 0, false
	}
	name, dims = m[1], 1
	if name == "char" {
		// pg_type's _char is the array of the one-byte "char", not of
		// character(1) (whose array is _bpchar)
		return PgCharType, "", dims, true
	}
	if name == "" && strings.TrimSpace(m[2]) == PgCharType {
		if strings.HasPrefix(m[3], "[") {
			dims = strings.Count(m[3], "[")
		}
		return PgCharType, "", dims, true
	}
	if name == "" {
		if strings.HasPrefix(m[3], "[") {
			dims = strings.Count(m[3], "[")
		}
		em := pgArrayElemRe.FindStringSubmatch(strings.TrimSpace(m[2]))
		if em == nil {
			return "", "", dims, true
		}
		name, mod = em[1], strings.Join(strings.Fields(em[2]), "")
		if em[3] != "" {
			name += " " + em[3]
		}
	}
	if name == "bpchar" && mod == "" {
		// bpchar without a length (format_type's bpchar[], pg_type's
		// _bpchar): not blank-padded, a plain string
		name = "text"
	}
	if a, ok := pgArrayAliases[name]; ok {
		name = a
	}
	return name, mod, dims, true
}

// pgArrayOfUnknownDropped reports an element type without a converter
// whose arrays the connector leaves out too: arrayElementSchema finds no
// schema for the element, and under include.unknown.datatypes=false the
// array has none either. These are the types left out as columns
// (pgUnknownOther, pgUnknownGeometric but point: tsquery, pg_lsn, the
// reg* types, txid_snapshot, pg_snapshot, xid, xid8, cid, tid, jsonpath,
// aclitem, refcursor, composite row types, the multiranges, the geometric
// types). Seen on the stack with Debezium 3.6.1: tsquery[], pg_lsn[],
// int4multirange[], jsonpath[], box[] (dom_pg_dropped_more); regclass[],
// regtype[], regproc[], regnamespace[], xid[], xid8[], cid[], tid[],
// txid_snapshot[], pg_snapshot[], aclitem[], refcursor[] and a composite
// type's array (pgarr2_dropped_arrays); the others take the same path.
func pgArrayOfUnknownDropped(name string) bool {
	return pgUnknownOther[name] || pgUnknownGeometric[name]
}

// ColumnDropped reports a column the connector leaves out of its records
// (and of the value schema): a PostgreSQL array of name, interval, money,
// varbit, xml or point, or of a type the connector leaves out (tsquery,
// pg_lsn, the reg* types, xid, composite, the multiranges, the geometric
// types; pgArrayOfUnknownDropped), to which PostgresValueConverter gives
// no schema
// (DBZ-459; TableSchemaBuilder logs and skips the column; seen on the
// stack). A placement of it is a missing column
// (table.field.additional.missing); ColumnSchema refuses it
// (*ColumnTypeError: it has no schema).
func ColumnDropped(kind ConnectorKind, sqlType string) bool {
	sqlType = pgBaseType(kind, sqlType)
	name, _, _, ok := pgArrayParse(kind, sqlType)
	return ok && (pgArrayDropped[name] || pgArrayOfUnknownDropped(name))
}

// ColumnDroppedWith is ColumnDropped under the connector's settings cs.
// Under include.unknown.datatypes=true PostgresValueConverter falls back to
// a bytes schema where it has none, so such an array may be delivered
// rather than left out; that was not run and is not modelled, so it returns
// a *SettingError naming the type, as ColumnSchemaWith does for the scalar
// types left out.
func ColumnDroppedWith(kind ConnectorKind, sqlType string, cs ColumnSettings) (bool, error) {
	if !ColumnDropped(kind, sqlType) {
		return false, nil
	}
	if cs.IncludeUnknownDatatypes == "true" {
		return false, &SettingError{Type: sqlType, Setting: "include.unknown.datatypes", Value: "true", Modeled: "false (the column is left out)"}
	}
	return true, nil
}

// isPgArray reports a PostgreSQL array type, modelled or not.
func isPgArray(kind ConnectorKind, sqlType string) bool {
	_, _, ok := pgArrayType(kind, sqlType)
	return ok
}

// pgArrayElemIsTemporal reports an array of timestamps, times or
// tstzrange, whose elements pgjdbc parses in the Connect worker JVM's
// default time zone (ColumnSettings.Check: UTC only).
func pgArrayElemIsTemporal(kind ConnectorKind, sqlType string) bool {
	elem, _, ok := pgArrayType(kind, sqlType)
	switch elem {
	case "timestamp", "timestamptz", "time", "timetz", "tstzrange":
		return ok
	}
	return false
}

// pgArraySchema is the Connect schema of a modelled array column; ok is
// false for another type, a *ColumnTypeError for an array of an element
// type not modelled. A numeric(p,s)[] column's elements are optional
// decimals under decimal.handling.mode (cs): Decimal with scale s and
// connect.decimal.precision p (precise), string or double; an
// unconstrained numeric[] under precise has optional
// io.debezium.data.VariableScaleDecimal elements. A
// NaN or Infinity element fails the column's converter under every mode
// (pgArrayValue: a *ConvertError). A bit(n)[] column has the schema of a
// bit(n) column (pgBitArrayElem).
func pgArraySchema(kind ConnectorKind, sqlType string, nullable bool, cs ColumnSettings) (*Schema, bool, error) {
	elem, elemSQL, _, ok := pgArrayTypeMod(kind, sqlType)
	if !ok {
		return nil, false, nil
	}
	if elem == "" {
		return nil, true, &ColumnTypeError{Kind: Postgres, Type: sqlType}
	}
	if elem == pgBitArrayElem {
		s, err := ColumnSchemaWith(Postgres, elemSQL, nullable, cs)
		if err != nil {
			return nil, true, &ColumnTypeError{Kind: Postgres, Type: sqlType}
		}
		return s, true, nil
	}
	if elem == pgNumericArrayElem || pgArrayScalarElements[elem] {
		items, err := ColumnSchemaWith(Postgres, elemSQL, true, cs)
		if err != nil {
			var se *SettingError
			if errors.As(err, &se) {
				se.Type = sqlType
				return nil, true, err
			}
			return nil, true, &ColumnTypeError{Kind: Postgres, Type: sqlType}
		}
		return &Schema{Type: Array, Optional: nullable, Items: items}, true, nil
	}
	if elem == pgEnumArrayElem {
		items, _ := miscSchema(Postgres, elemSQL)
		return &Schema{Type: Array, Optional: nullable, Items: items}, true, nil
	}
	if items, vec := pgVectorSchema(Postgres, elem, false); vec {
		// int2vector[], oidvector[]: arrayElementSchema gives the element
		// the vector's schema builder, not made optional (an array of
		// int16 / int64, elements not optional either)
		return &Schema{Type: Array, Optional: nullable, Items: items}, true, nil
	}
	items := pgArrayElements[elem]()
	if ms, ok := modeSchema(cs.TimePrecisionMode, elem); ok && elem == "date" {
		// date[]: the element schema is time.precision.mode's
		ms.Optional = true
		items = ms
	}
	return &Schema{Type: Array, Optional: nullable, Items: items}, true, nil
}

// isPgDecimalArray reports a PostgreSQL numeric(p,s)[] / decimal[] column,
// whose elements decimal.handling.mode decides.
func isPgDecimalArray(kind ConnectorKind, sqlType string) bool {
	elem, _, ok := pgArrayType(kind, sqlType)
	return ok && elem == pgNumericArrayElem
}

// pgArrayValue converts a sample value of a modelled array column into the
// list the connector delivers: a JSON array (its elements as for a column
// of the element type) or a string in PostgreSQL's array literal form
// ("{1,2,NULL}", "{a,\"b c\"}", "[0:1]={1,2}": what the relay reads with
// ::text; the dimension decoration is dropped, as pgjdbc's PgArray does).
// A multi-dimensional value is a list of one null per top-level
// sub-array for the pgArrayNullNested element types, of the sub-array's
// Java identity for the pgArrayIdentityNested ones, refused
// (ErrInvalidEvent) when a sub-array is empty (PostgreSQL refuses {{}}).
// A bit(n)[] value, a non-empty int2vector[] / oidvector[] value and a
// numeric one holding NaN or Infinity are a *ConvertError.
func pgArrayValue(sqlType string, s *Schema, raw json.RawMessage, str string, isStr bool) (any, error) {
	key, elemSQL, _, _ := pgArrayTypeMod(Postgres, sqlType)
	if key == pgBitArrayElem {
		return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "the array converter's list in a " + string(s.Type) + " field (Struct.put: DataException)"}
	}
	var elems []json.RawMessage
	nested, leaves, n := false, 0, 0 // n: the top-level elements
	if isStr {
		items, err := parsePgArrayText(str)
		if err != nil {
			return nil, fmt.Errorf("%w: %s value %q: %v", ErrInvalidEvent, sqlType, str, err)
		}
		n = len(items)
		for _, it := range items {
			if it.sub != nil {
				nested = true
				leaves += it.leaves()
				continue
			}
			if it.null {
				elems = append(elems, json.RawMessage("null"))
				continue
			}
			b, _ := json.Marshal(it.text)
			elems = append(elems, b)
		}
	} else {
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, fmt.Errorf("%w: %s value %s: want a JSON array or PostgreSQL's array text ({1,2})", ErrInvalidEvent, sqlType, raw)
		}
		n = len(elems)
		for _, e := range elems {
			if t := bytes.TrimSpace(e); len(t) > 0 && t[0] == '[' {
				nested = true
				if !bytes.Equal(bytes.Join(bytes.Fields(t), nil), []byte("[]")) {
					leaves++
				}
			}
		}
	}
	if _, vec := pgVectorTypes[key]; vec && n > 0 {
		// int2vector[], oidvector[]: pgjdbc reads each element as a
		// PGobject (a sub-array as an Object[]), which the element's
		// array converter does not take (handleUnknownData: null); the
		// element schema is not optional, so Struct.put refuses the
		// list (DataException): the column is NULL under warn
		return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a non-empty " + key + " array: every element is null (pgjdbc's PGobject), which the element schema, not optional, refuses (Struct.put: DataException)"}
	}
	if nested {
		class, identity := pgArrayIdentityNested[key]
		if !identity && !pgArrayNullNested[key] {
			return nil, fmt.Errorf("%w: %s value %s: a multi-dimensional value of a %s array is not modelled (the element converter gets pgjdbc's sub-array: text-like elements become the Java array's identity, [Ljava.lang.String;@…, others are not checked)", ErrInvalidEvent, sqlType, raw, key)
		}
		if leaves == 0 {
			return nil, fmt.Errorf("%w: %s value %s: PostgreSQL refuses empty sub-arrays (malformed array literal)", ErrInvalidEvent, sqlType, raw)
		}
		if key == pgNumericArrayElem && pgArrayHasSpecialDecimal(str, isStr, raw) {
			// pgjdbc reads the whole array as BigDecimals before the
			// element converter runs: a NaN or Infinity anywhere fails
			// the column's converter, as in a one-dimensional value
			return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a NaN or Infinity element of a numeric array (no BigDecimal holds it)"}
		}
		out := make([]any, n)
		if identity {
			// the element converter gets pgjdbc's sub-array (String[]
			// ...) and writes its identity: Java's [[L<class>;@<hash>
			text := strings.Repeat("[", pgArrayDims(str, isStr, elems)-1) + "L" + class + ";@" + PlaceholderIdentityHash
			for i := range out {
				out[i] = text
			}
		}
		// otherwise the element converter gets pgjdbc's sub-array
		// (Integer[], Boolean[], ...) and returns null for it
		return out, nil
	}
	out := make([]any, 0, len(elems))
	for _, e := range elems {
		if s.Items != nil && !s.Items.Optional && string(bytes.TrimSpace(e)) == "null" {
			// an enum array's elements are not optional: the Struct
			// refuses the list (a DataException TableSchemaBuilder
			// catches like a converter's), so the column is left out
			return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a NULL element of an array whose element schema is not optional"}
		}
		if key == "ltree" && string(bytes.TrimSpace(e)) == "null" {
			// convertLtreeArray calls toString on every element: a NULL
			// one throws (NullPointerException), which TableSchemaBuilder
			// catches: the column is NULL under warn (seen on the stack)
			return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a NULL element of an ltree array (convertLtreeArray: NullPointerException)"}
		}
		if key == pgNumericArrayElem {
			var t string
			if json.Unmarshal(e, &t) == nil {
				if _, special := specialDecimals[strings.ToLower(strings.TrimSpace(t))]; special {
					// the differential test found a numeric array
					// holding NaN or Infinity NULL under every
					// decimal.handling.mode: its elements are read as
					// BigDecimals, which have neither, so the column's
					// converter throws
					return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a NaN or Infinity element of a numeric array (no BigDecimal holds it)"}
				}
			}
		}
		v, err := pgArrayElementValue(key, elemSQL, s.Items, e, isStr)
		if err != nil {
			var ce *ConvertError
			if errors.As(err, &ce) {
				// a numeric NaN under precise: the element converter
				// throws out of convertArray, the column's converter
				// fails as a whole (ColumnSettings.ConvertFailure)
				return nil, &ConvertError{Type: sqlType, Value: ce.Value, Message: ce.Message}
			}
			return nil, fmt.Errorf("%w: %s element %s: %v", ErrInvalidEvent, sqlType, e, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// pgArrayHasSpecialDecimal reports a NaN or ±Infinity leaf anywhere in a
// numeric array value (array text or JSON).
func pgArrayHasSpecialDecimal(str string, isStr bool, raw json.RawMessage) bool {
	special := func(t string) bool {
		_, ok := specialDecimals[strings.ToLower(strings.TrimSpace(t))]
		return ok
	}
	if isStr {
		items, _ := parsePgArrayText(str)
		var walk func([]pgArrayItem) bool
		walk = func(items []pgArrayItem) bool {
			for _, it := range items {
				if it.sub != nil && walk(it.sub) || it.sub == nil && !it.null && special(it.text) {
					return true
				}
			}
			return false
		}
		return walk(items)
	}
	var walk func(json.RawMessage) bool
	walk = func(e json.RawMessage) bool {
		var sub []json.RawMessage
		if json.Unmarshal(e, &sub) == nil {
			for _, x := range sub {
				if walk(x) {
					return true
				}
			}
			return false
		}
		var t string
		return json.Unmarshal(e, &t) == nil && special(t)
	}
	return walk(raw)
}

const (
	dayMillis = int32(24 * 60 * 60 * 1000)
	dayMicros = int64(dayMillis) * 1000
)

var pgFractionRe = regexp.MustCompile(`\.\d+`)

// pgArrayElementValue is one element as the array converter delivers it:
// the element column's value (ColumnValue of elemSQL), except where
// pgjdbc's PgArray reads the element text differently from the scalar
// path: time(p) and timetz elements are java.sql.Time (milliseconds:
// time(4-6) is truncated to them, 24:00:00 is 00:00; timetz loses its
// fraction in Time.toLocalTime, after PostgreSQL rounded it to the
// typmod's digits, before PostgresValueConverter moves it to UTC; a
// value rounded to 24:00:00 is 00:00:00Z). fromText: e is the element's text in an array literal (a bytea
// element is then PostgreSQL's bytea input, \x0102 or escapes).
func pgArrayElementValue(key, elemSQL string, items *Schema, e json.RawMessage, fromText bool) (any, error) {
	if key == "bytea" && fromText && string(e) != "null" {
		var t string
		if err := json.Unmarshal(e, &t); err != nil {
			return nil, err
		}
		b, err := pgByteaInput(t)
		if err != nil {
			return nil, err
		}
		e, _ = json.Marshal("base64:" + base64.StdEncoding.EncodeToString(b))
	}
	if key == "time" && string(e) != "null" {
		// pgjdbc's PgArray reads a time element as a java.sql.Time:
		// milliseconds of the day (24:00:00 is 0), which the element
		// converter gives time.precision.mode's schema
		v, err := ColumnValue(Postgres, elemSQL, &Schema{Type: Int64, Name: NameMicroTime}, e)
		if err != nil || v == nil {
			return v, err
		}
		ms := v.(int64) / 1000 % int64(dayMillis)
		switch items.Name {
		case NameTime:
			return int32(ms), nil
		case NameMicroTime:
			return ms * 1000, nil
		case NameNanoTime:
			return ms * 1000000, nil
		case NameConnectTime:
			return JavaDate(ms), nil
		case NameIsoTime:
			return time.UnixMilli(ms).UTC().Format("15:04:05.999") + "Z", nil
		}
		return nil, fmt.Errorf("%w: %s element under %s", ErrUnsupported, elemSQL, items.Name)
	}
	v, err := ColumnValue(Postgres, elemSQL, items, e)
	if err != nil || v == nil {
		return v, err
	}
	switch key {
	case "timetz":
		if x, ok := v.(string); ok {
			return pgFractionRe.ReplaceAllString(x, ""), nil
		}
	}
	return v, nil
}

// pgByteaInput decodes PostgreSQL's bytea input text: hex (\x0102ff) or
// the escape format (\\ is a backslash, \ooo an octal byte, other bytes
// as they are).
func pgByteaInput(t string) ([]byte, error) {
	if strings.HasPrefix(t, `\x`) {
		h := strings.Join(strings.Fields(t[2:]), "")
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("bytea %q: %v", t, err)
		}
		return b, nil
	}
	var b []byte
	for i := 0; i < len(t); i++ {
		if t[i] != '\\' {
			b = append(b, t[i])
			continue
		}
		switch {
		case i+1 < len(t) && t[i+1] == '\\':
			b = append(b, '\\')
			i++
		case i+3 < len(t) && isOctal(t[i+1]) && isOctal(t[i+2]) && isOctal(t[i+3]) && t[i+1] <= '3':
			b = append(b, (t[i+1]-'0')<<6|(t[i+2]-'0')<<3|(t[i+3]-'0'))
			i += 3
		default:
			return nil, fmt.Errorf("bytea %q: invalid input syntax", t)
		}
	}
	return b, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// pgArrayItem is an element of a parsed array literal: its text, NULL, or
// a sub-array.
type pgArrayItem struct {
	text string
	null bool
	sub  []pgArrayItem // non-nil for a sub-array
}

func (it pgArrayItem) leaves() int {
	if it.sub == nil {
		return 1
	}
	n := 0
	for _, s := range it.sub {
		n += s.leaves()
	}
	return n
}

var pgArrayDimsRe = regexp.MustCompile(`^(?:\[\s*-?\d+\s*(?::\s*-?\d+\s*)?\]\s*)+=\s*`)

// parsePgArrayText reads a PostgreSQL array literal: an optional dimension
// decoration ([0:1]=, dropped), then elements separated by commas in
// braces, each a sub-array in braces, double-quoted (backslash escapes)
// or bare (surrounding blanks dropped; NULL in any case is a NULL
// element).
func parsePgArrayText(v string) ([]pgArrayItem, error) {
	s := strings.TrimSpace(v)
	if m := pgArrayDimsRe.FindString(s); m != "" {
		s = s[len(m):]
	} else if strings.HasPrefix(s, "[") {
		return nil, fmt.Errorf("a malformed dimension decoration")
	}
	if !strings.HasPrefix(s, "{") {
		return nil, fmt.Errorf("want {elem,elem,...}")
	}
	p := &pgArrayParser{s: s}
	items, err := p.list()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.s[p.i:]) != "" {
		return nil, fmt.Errorf("text after the closing brace")
	}
	return items, nil
}

type pgArrayParser struct {
	s string
	i int
}

func (p *pgArrayParser) skip() {
	for p.i < len(p.s) && isPgArraySpace(p.s[p.i]) {
		p.i++
	}
}

// list reads {…} at p.i.
func (p *pgArrayParser) list() ([]pgArrayItem, error) {
	p.i++ // {
	p.skip()
	items := []pgArrayItem{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return items, nil
	}
	subs := 0
	for {
		p.skip()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("an unterminated array")
		}
		var it pgArrayItem
		switch p.s[p.i] {
		case '{':
			sub, err := p.list()
			if err != nil {
				return nil, err
			}
			it.sub = sub
			subs++
		case '"':
			text, next, ok := readQuoted(p.s, p.i)
			if !ok {
				return nil, fmt.Errorf("an unterminated quoted element")
			}
			it.text = text
			p.i = next
		default:
			var b strings.Builder
			for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != '}' {
				c := p.s[p.i]
				if c == '"' || c == '{' || c == '\\' {
					return nil, fmt.Errorf("%q in a bare element: quote it", c)
				}
				b.WriteByte(c)
				p.i++
			}
			it.text = strings.TrimRight(b.String(), " \t\n\r\v\f")
			if it.text == "" {
				return nil, fmt.Errorf("an empty element")
			}
			it.null = strings.EqualFold(it.text, "null")
		}
		items = append(items, it)
		p.skip()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("an unterminated array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			if subs != 0 && subs != len(items) {
				return nil, fmt.Errorf("sub-arrays and elements mixed")
			}
			return items, nil
		default:
			return nil, fmt.Errorf("want a comma after an element")
		}
	}
}

func isPgArraySpace(c byte) bool { return strings.IndexByte(" \t\n\r\v\f", c) >= 0 }
