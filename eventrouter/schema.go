package eventrouter

import (
	"fmt"
	"reflect"
	"strings"
)

// Type is a Kafka Connect schema type.
type Type string

// The Kafka Connect schema types, spelled as JsonConverter spells them
// (FLOAT32 is "float", FLOAT64 is "double").
const (
	Int8    Type = "int8"
	Int16   Type = "int16"
	Int32   Type = "int32"
	Int64   Type = "int64"
	Float32 Type = "float"
	Float64 Type = "double"
	Boolean Type = "boolean"
	String  Type = "string"
	Bytes   Type = "bytes"
	Array   Type = "array"
	Map     Type = "map"
	StructT Type = "struct"
)

// Logical schema names used by Debezium and Kafka Connect that matter to the
// EventRouter or to the converters.
const (
	NameJSON           = "io.debezium.data.Json"
	NameUUID           = "io.debezium.data.Uuid"
	NameTimestamp      = "io.debezium.time.Timestamp"
	NameMicroTimestamp = "io.debezium.time.MicroTimestamp"
	NameNanoTimestamp  = "io.debezium.time.NanoTimestamp"
	NameZonedTimestamp = "io.debezium.time.ZonedTimestamp"
	NameDate           = "io.debezium.time.Date"
)

// Param is one schema parameter (Connect keeps them in insertion order).
type Param struct{ Key, Value string }

// Schema is a Kafka Connect schema: the type, the optional flag, the
// optional logical name, version, doc, parameters and default, the fields of
// a struct and the element schema of an array (Items; for a map Keys and
// Items). Schemas are compared by value (Equal), as Connect does.
type Schema struct {
	Type       Type
	Optional   bool
	Name       string
	Version    *int32
	Doc        string
	Parameters []Param
	// Default is the schema default (nil for none), as a value of the schema
	// type (see Struct for the Go representation of values).
	Default any
	Fields  []Field
	Items   *Schema
	Keys    *Schema
	// binaryMode is the binary.handling.mode (base64, base64-url-safe,
	// hex) of a binary column the connector delivers as a string (Type
	// String, no name: the schema Connect sees is a plain string; Equal
	// ignores it); "" otherwise
	binaryMode string
}

// Field is a struct field.
type Field struct {
	Name   string
	Schema *Schema
}

// Field returns the field named name, or nil.
func (s *Schema) Field(name string) *Field {
	if s == nil {
		return nil
	}
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

func (s *Schema) fieldIndex(name string) int {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// Equal reports whether two schemas are equal the way ConnectSchema.equals
// compares them (type, optional, default, fields, key/value schemas, name,
// version, doc, parameters).
func (s *Schema) Equal(o *Schema) bool {
	if s == o {
		return true
	}
	if s == nil || o == nil {
		return false
	}
	if s.Type != o.Type || s.Optional != o.Optional || s.Name != o.Name || s.Doc != o.Doc {
		return false
	}
	if (s.Version == nil) != (o.Version == nil) || (s.Version != nil && *s.Version != *o.Version) {
		return false
	}
	if len(s.Parameters) != len(o.Parameters) {
		return false
	}
	for i := range s.Parameters {
		if s.Parameters[i] != o.Parameters[i] {
			return false
		}
	}
	if !reflect.DeepEqual(s.Default, o.Default) {
		return false
	}
	if len(s.Fields) != len(o.Fields) {
		return false
	}
	for i := range s.Fields {
		if s.Fields[i].Name != o.Fields[i].Name || !s.Fields[i].Schema.Equal(o.Fields[i].Schema) {
			return false
		}
	}
	return s.Items.Equal(o.Items) && s.Keys.Equal(o.Keys)
}

func (s *Schema) String() string {
	if s == nil {
		return "null"
	}
	if s.Name != "" {
		return fmt.Sprintf("Schema{%s:%s}", s.Name, javaTypeName(s.Type))
	}
	return fmt.Sprintf("Schema{%s}", javaTypeName(s.Type))
}

// javaTypeName is the Schema.Type enum constant name (DataException texts use it).
func javaTypeName(t Type) string {
	switch t {
	case Float32:
		return "FLOAT32"
	case Float64:
		return "FLOAT64"
	case StructT:
		return "STRUCT"
	}
	b := []byte(t)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// Struct is a Kafka Connect struct value. Values holds one value per schema
// field. Go representation of values: int8, int16, int32, int64, float32,
// float64, bool, string, []byte (BYTES; Debezium delivers a ByteBuffer),
// Decimal (BYTES with the Decimal logical type: a BigDecimal), *Struct,
// []any (ARRAY), nil (null).
type Struct struct {
	Schema *Schema
	Values []any
}

// NewStruct returns an empty struct of schema s.
func NewStruct(s *Schema) *Struct { return &Struct{Schema: s, Values: make([]any, len(s.Fields))} }

// Get is Connect's untyped Struct.get: a null value is replaced by the
// field schema's default.
func (st *Struct) Get(name string) (any, error) {
	i := st.Schema.fieldIndex(name)
	if i < 0 {
		return nil, dataException("%s is not a valid field name", name)
	}
	v := st.Values[i]
	if v == nil && st.Schema.Fields[i].Schema.Default != nil {
		v = st.Schema.Fields[i].Schema.Default
	}
	return v, nil
}

// getCheckType is Connect's typed getter (getString, getInt32, getInt64): it
// checks the field type and returns the raw value, without default.
func (st *Struct) getCheckType(name string, t Type) (any, error) {
	i := st.Schema.fieldIndex(name)
	if i < 0 {
		return nil, dataException("%s is not a valid field name", name)
	}
	if st.Schema.Fields[i].Schema.Type != t {
		return nil, dataException("Field '%s' is not of type %s", name, javaTypeName(t))
	}
	return st.Values[i], nil
}

// Put is Connect's Struct.put: the value is validated against the field schema.
func (st *Struct) Put(name string, v any) error {
	i := st.Schema.fieldIndex(name)
	if i < 0 {
		return dataException("%s is not a valid field name", name)
	}
	if err := validateValue(name, st.Schema.Fields[i].Schema, v); err != nil {
		return err
	}
	st.Values[i] = v
	return nil
}

// validateValue follows ConnectSchema.validateValue.
func validateValue(field string, s *Schema, v any) error {
	if v == nil {
		if !s.Optional && s.Default == nil {
			if field != "" {
				return dataException("Invalid value: null used for required field: \"%s\", schema type: %s", field, javaTypeName(s.Type))
			}
			return dataException("Invalid value: null used for required field, schema type: %s", javaTypeName(s.Type))
		}
		return nil
	}
	ok := false
	switch s.Type {
	case Int8:
		_, ok = v.(int8)
	case Int16:
		_, ok = v.(int16)
	case Int32, Int64:
		if isConnectLogical(s.Name) {
			// ConnectSchema checks the logical type's class:
			// java.util.Date
			_, ok = v.(JavaDate)
		} else if s.Type == Int32 {
			_, ok = v.(int32)
		} else {
			_, ok = v.(int64)
		}
	case Float32:
		_, ok = v.(float32)
	case Float64:
		_, ok = v.(float64)
	case Boolean:
		_, ok = v.(bool)
	case String:
		_, ok = v.(string)
	case Bytes:
		if s.Name == NameDecimal {
			// ConnectSchema checks the logical type's class: BigDecimal
			_, ok = v.(Decimal)
		} else {
			_, ok = v.([]byte)
		}
	case Array:
		var l []any
		l, ok = v.([]any)
		if ok {
			for _, e := range l {
				if err := validateValue("", s.Items, e); err != nil {
					return err
				}
			}
		}
	case Map:
		var m ConnectMap
		m, ok = v.(ConnectMap)
		if ok {
			for _, e := range m {
				if err := validateValue("", s.Keys, e.Key); err != nil {
					return err
				}
				if err := validateValue("", s.Items, e.Value); err != nil {
					return err
				}
			}
		}
	case StructT:
		var st *Struct
		st, ok = v.(*Struct)
		if ok && !st.Schema.Equal(s) {
			return dataException("Struct schemas do not match.")
		}
	}
	if !ok {
		if field != "" {
			return dataException("Invalid Java object for schema with type %s: %s for field: \"%s\"", javaTypeName(s.Type), javaClassOf(v), field)
		}
		return dataException("Invalid Java object for schema with type %s: %s", javaTypeName(s.Type), javaClassOf(v))
	}
	return nil
}

// javaClassOf names the Java class a Connect runtime would hold for v.
func javaClassOf(v any) string {
	switch v.(type) {
	case string:
		return "class java.lang.String"
	case int8:
		return "class java.lang.Byte"
	case int16:
		return "class java.lang.Short"
	case int32:
		return "class java.lang.Integer"
	case int64:
		return "class java.lang.Long"
	case float32:
		return "class java.lang.Float"
	case float64:
		return "class java.lang.Double"
	case bool:
		return "class java.lang.Boolean"
	case []byte:
		return "class java.nio.HeapByteBuffer"
	case *Struct:
		return "class org.apache.kafka.connect.data.Struct"
	case []any:
		return "class java.util.ArrayList"
	case ConnectMap:
		return "class java.util.HashMap"
	case bigDecimal, Decimal:
		return "class java.math.BigDecimal"
	case JavaDate:
		return "class java.util.Date"
	}
	return fmt.Sprintf("%T", v)
}

// ConnectMap is the value of a Connect map (a java.util.Map) as a list of
// entries in the map's iteration order, which JsonConverter, toString
// (StringConverter) and Values.convertToString (SimpleHeaderConverter)
// follow.
type ConnectMap []MapEntry

// MapEntry is one entry of a ConnectMap.
type MapEntry struct{ Key, Value any }

func (m ConnectMap) stringKeys() bool {
	for _, e := range m {
		if _, ok := e.Key.(string); !ok {
			return false
		}
	}
	return true
}

// bigDecimal is a JSON number that fits no Java long (Jackson BigIntegerNode →
// decimalValue()); it never validates against a Connect schema.
type bigDecimal string

func i32(v int32) *int32 { return &v }

// Convenience constructors for common schemas.
func optional(t Type) *Schema { return &Schema{Type: t, Optional: true} }

// classCastError is the ClassCastException of a typed Struct getter
// (getInt32, getInt64) whose field holds another class: a Connect logical
// type's java.util.Date (time.precision.mode=connect).
func classCastError(v any, target string) error {
	from := strings.TrimPrefix(javaClassOf(v), "class ")
	return taskErr(excClassCast, "class %s cannot be cast to class %s (%s and %s are in module java.base of loader 'bootstrap')", from, target, from, target)
}
