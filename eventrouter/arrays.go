package eventrouter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// pgArrayElements are the element types of the PostgreSQL one-dimensional
// arrays modelled (pgArrayAliases maps the other spellings: as written in
// a declaration, as format_type prints them), and the element schema
// PostgresValueConverter gives them: SchemaBuilder.array of an optional
// int16 / int32 / int64 / boolean / float / double / string /
// io.debezium.data.Uuid / io.debezium.time.Date.
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
}

// pgArrayAliases maps the other spellings to the pgArrayElements key.
var pgArrayAliases = map[string]string{
	"smallint": "int2", "int": "int4", "integer": "int4", "bigint": "int8", "boolean": "bool",
	"varchar": "text", "character varying": "text", "real": "float4", "double precision": "float8",
	"decimal": "numeric",
}

var pgArrayTypeRe = regexp.MustCompile(`^\s*(?:_([a-z0-9_]+)|([a-z][a-z0-9_ ]*?)\s*(\(\s*\d+\s*(?:,\s*\d+\s*)?\))?\s*((?:\[\s*\d*\s*\]\s*)+|\s+array(?:\s*\[\s*\d*\s*\])?))\s*$`)

// pgNumericArrayElem is the pgArrayType element key of numeric[] and
// decimal[] (numeric(p,s)[]): its element schema is the column's
// numericSchema under decimal.handling.mode (pgArraySchema), not one of
// pgArrayElements.
const pgNumericArrayElem = "numeric"

// pgEnumArrayElem is the pgArrayType element key of an enum array
// (enum('a','b')[]): PostgresValueConverter gives it
// SchemaBuilder.array(Enum.builder(labels)), elements NOT optional.
const pgEnumArrayElem = "enum"

// pgArrayType reports a PostgreSQL array type (int4[], integer[],
// varchar(10)[], numeric(10,2)[], text ARRAY, pg_type's _int4): elem is
// the element type's pgArrayElements key, or pgNumericArrayElem ("" when
// the element type is not modelled), dims the number of dimensions
// declared (PostgreSQL does not enforce it: a one-dimensional column may
// hold a two-dimensional value, refused then by its value).
func pgArrayType(kind ConnectorKind, sqlType string) (elem string, dims int, ok bool) {
	elem, _, dims, ok = pgArrayTypeMod(kind, sqlType)
	return elem, dims, ok
}

// pgArrayTypeMod is pgArrayType with the element's SQL type as the
// element converter sees it: for numeric the array column's precision and
// scale (PostgreSQL keeps the element's typmod on the array column, the
// driver reports it as the column's length and scale, and
// PostgresValueConverter.createArrayConverter gives them to the element
// column): "numeric(10,2)", or "numeric" unconstrained.
func pgArrayTypeMod(kind ConnectorKind, sqlType string) (elem, elemSQL string, dims int, ok bool) {
	if kind != Postgres && kind != "" {
		return "", "", 0, false
	}
	if t := strings.TrimSpace(sqlType); strings.HasSuffix(t, "[]") {
		// an array of a PostgreSQL enum, given as enum('a','b')[]
		et := strings.TrimSpace(strings.TrimSuffix(t, "[]"))
		if k, _, ok := parseEnumType(et); ok && k == "enum" {
			return pgEnumArrayElem, et, 1, true
		}
	}
	m := pgArrayTypeRe.FindStringSubmatch(strings.ToLower(sqlType))
	if m == nil {
		return "", "", 0, false
	}
	name, dims := m[1], 1
	if name == "" {
		name = m[2]
		if strings.HasPrefix(m[4], "[") {
			dims = strings.Count(m[4], "[")
		}
	}
	if a, ok := pgArrayAliases[name]; ok {
		name = a
	}
	if name == pgNumericArrayElem {
		return name, name + strings.Join(strings.Fields(m[3]), ""), dims, true
	}
	if pgArrayElements[name] == nil {
		return "", "", dims, true
	}
	return name, name, dims, true
}

// isPgArray reports a PostgreSQL array type, modelled or not.
func isPgArray(kind ConnectorKind, sqlType string) bool {
	_, _, ok := pgArrayType(kind, sqlType)
	return ok
}

// pgArraySchema is the Connect schema of a modelled one-dimensional array
// column; ok is false for another type, a *ColumnTypeError for an array
// of more dimensions or of an element type not modelled. A numeric(p,s)[]
// column's elements are optional decimals under decimal.handling.mode (cs):
// Decimal with scale s and connect.decimal.precision p (precise), string or
// double; an unconstrained numeric[] under precise
// (io.debezium.data.VariableScaleDecimal elements) is a *SettingError. A
// NaN or Infinity element fails the column's converter under every mode
// (pgArrayValue: a *ConvertError).
func pgArraySchema(kind ConnectorKind, sqlType string, nullable bool, cs ColumnSettings) (*Schema, bool, error) {
	elem, elemSQL, dims, ok := pgArrayTypeMod(kind, sqlType)
	if !ok {
		return nil, false, nil
	}
	if elem == "" || dims != 1 {
		return nil, true, &ColumnTypeError{Kind: Postgres, Type: sqlType}
	}
	if elem == pgNumericArrayElem {
		items, err := ColumnSchemaWith(Postgres, elemSQL, true, cs)
		if err != nil {
			var se *SettingError
			if errors.As(err, &se) {
				se.Type = sqlType
			}
			return nil, true, err
		}
		return &Schema{Type: Array, Optional: nullable, Items: items}, true, nil
	}
	if elem == pgEnumArrayElem {
		items, _ := miscSchema(Postgres, elemSQL)
		return &Schema{Type: Array, Optional: nullable, Items: items}, true, nil
	}
	return &Schema{Type: Array, Optional: nullable, Items: pgArrayElements[elem]()}, true, nil
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
// ("{1,2,NULL}", "{a,\"b c\"}", what the relay reads with ::text). A
// multi-dimensional value and a dimension decoration ("[1:2]={1,2}") are
// refused.
func pgArrayValue(sqlType string, s *Schema, raw json.RawMessage, str string, isStr bool) ([]any, error) {
	_, elem, _, _ := pgArrayTypeMod(Postgres, sqlType)
	var elems []json.RawMessage
	if isStr {
		texts, nulls, err := parsePgArrayLiteral(str)
		if err != nil {
			return nil, fmt.Errorf("%w: %s value %q: %v", ErrInvalidEvent, sqlType, str, err)
		}
		for i, t := range texts {
			if nulls[i] {
				elems = append(elems, json.RawMessage("null"))
				continue
			}
			b, _ := json.Marshal(t)
			elems = append(elems, b)
		}
	} else {
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, fmt.Errorf("%w: %s value %s: want a JSON array or PostgreSQL's array text ({1,2})", ErrInvalidEvent, sqlType, raw)
		}
		for _, e := range elems {
			if t := bytes.TrimSpace(e); len(t) > 0 && t[0] == '[' {
				return nil, fmt.Errorf("%w: %s value %s: a multi-dimensional array is not modelled", ErrInvalidEvent, sqlType, raw)
			}
		}
	}
	out := make([]any, 0, len(elems))
	for _, e := range elems {
		if s.Items != nil && !s.Items.Optional && string(bytes.TrimSpace(e)) == "null" {
			// an enum array's elements are not optional: the Struct
			// refuses the list (a DataException TableSchemaBuilder
			// catches like a converter's), so the column is left out
			return nil, &ConvertError{Type: sqlType, Value: string(raw), Message: "a NULL element of an array whose element schema is not optional"}
		}
		if strings.HasPrefix(elem, pgNumericArrayElem) {
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
		v, err := ColumnValue(Postgres, elem, s.Items, e)
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

// parsePgArrayLiteral reads a one-dimensional PostgreSQL array literal:
// elements separated by commas in braces, each double-quoted (backslash
// escapes) or bare (surrounding blanks dropped; NULL in any case is a
// NULL element).
func parsePgArrayLiteral(v string) (elems []string, nulls []bool, err error) {
	s := strings.TrimSpace(v)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, nil, fmt.Errorf("want {elem,elem,...}")
	}
	s = s[1 : len(s)-1]
	if strings.TrimSpace(s) == "" {
		return []string{}, []bool{}, nil
	}
	i := 0
	for {
		for i < len(s) && isPgArraySpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, nil, fmt.Errorf("an empty element")
		}
		var b strings.Builder
		quoted := false
		switch s[i] {
		case '{':
			return nil, nil, fmt.Errorf("a multi-dimensional array is not modelled")
		case '"':
			quoted = true
			i++
			for {
				if i >= len(s) {
					return nil, nil, fmt.Errorf("an unterminated quoted element")
				}
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					b.WriteByte(s[i+1])
					i += 2
					continue
				}
				i++
				if c == '"' {
					break
				}
				b.WriteByte(c)
			}
			for i < len(s) && isPgArraySpace(s[i]) {
				i++
			}
		default:
			for i < len(s) && s[i] != ',' {
				c := s[i]
				if c == '"' || c == '{' || c == '}' || c == '\\' {
					return nil, nil, fmt.Errorf("%q in a bare element: quote it", c)
				}
				b.WriteByte(c)
				i++
			}
		}
		text := b.String()
		if !quoted {
			text = strings.TrimRight(text, " \t\n\r\v\f")
			if text == "" {
				return nil, nil, fmt.Errorf("an empty element")
			}
		}
		elems = append(elems, text)
		nulls = append(nulls, !quoted && strings.EqualFold(text, "null"))
		if i >= len(s) {
			return elems, nulls, nil
		}
		if s[i] != ',' {
			return nil, nil, fmt.Errorf("want a comma after an element")
		}
		i++
	}
}

func isPgArraySpace(c byte) bool { return strings.IndexByte(" \t\n\r\v\f", c) >= 0 }
