package avro

import (
	"fmt"
	"strings"
)

// Type is the kind of an Avro schema, spelled as in Avro JSON ("int",
// "record", "union", …).
type Type string

// The Avro schema types.
const (
	TypeNull    Type = "null"
	TypeBoolean Type = "boolean"
	TypeInt     Type = "int"
	TypeLong    Type = "long"
	TypeFloat   Type = "float"
	TypeDouble  Type = "double"
	TypeBytes   Type = "bytes"
	TypeString  Type = "string"
	TypeRecord  Type = "record"
	TypeEnum    Type = "enum"
	TypeArray   Type = "array"
	TypeMap     Type = "map"
	TypeUnion   Type = "union"
	TypeFixed   Type = "fixed"
)

// Upper is the type as Java's Schema.Type enum prints it ("RECORD"), the
// spelling used in compatibility messages.
func (t Type) Upper() string { return strings.ToUpper(string(t)) }

// IsPrimitive reports whether t is one of the eight primitive types.
func (t Type) IsPrimitive() bool {
	switch t {
	case TypeNull, TypeBoolean, TypeInt, TypeLong, TypeFloat, TypeDouble, TypeBytes, TypeString:
		return true
	}
	return false
}

// IsNamed reports whether t is record, enum or fixed.
func (t Type) IsNamed() bool { return t == TypeRecord || t == TypeEnum || t == TypeFixed }

// Schema is a parsed Avro schema. The concrete types are *Primitive, *Record,
// *Enum, *Fixed, *Array, *Map and *Union; switch on them with a type switch.
//
// A parsed schema is a graph, not a tree: every reference to a named type
// (record, enum, fixed) by name is the very same pointer as its definition,
// so a recursive type is a cycle (a *Record whose field type leads back to
// the same *Record). Code that walks a schema must keep a visited set of
// named types. Schemas are immutable after parsing and safe for concurrent
// use; do not modify them.
type Schema interface {
	// Type is the schema's Avro type.
	Type() Type
	// Position is where the schema's definition starts in its source.
	Position() Position
	// Properties are the custom (non-reserved) attributes, in source
	// order; "logicalType", "precision" and "scale" are kept here too, as
	// Java keeps them as properties.
	Properties() Props
}

// NamedSchema is a *Record, *Enum or *Fixed.
type NamedSchema interface {
	Schema
	// Names returns the name, namespace, aliases and doc of the type.
	Names() *Named
	// FullName is the namespace-qualified name ("com.acme.Order", or just
	// "Order" in the null namespace).
	FullName() string
}

// Position is a place in a schema source: 1-based line and column (in
// bytes) and the 0-based byte offset. File is empty for in-memory input.
type Position struct {
	File   string
	Line   int
	Col    int
	Offset int
}

func (p Position) String() string {
	f := p.File
	if f == "" {
		f = "<input>"
	}
	return fmt.Sprintf("%s:%d:%d", f, p.Line, p.Col)
}

// Prop is one custom attribute of a schema or a field. Value is an Avro
// JSON value (see Field.Default).
type Prop struct {
	Key   string
	Value any
	raw   *jnode // the parsed JSON, keeping object key order
}

// Props are custom attributes in source order.
type Props []Prop

// Get returns the value of the attribute key.
func (ps Props) Get(key string) (any, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

// LogicalType is a logical type that Avro Java 1.12 recognises and accepts
// on its base type. Invalid or unknown logical types are ignored, as Java
// ignores them: the schema then has Logical == nil (the "logicalType"
// property stays in Props).
type LogicalType struct {
	// Name is "decimal", "uuid", "date", "time-millis", "time-micros",
	// "timestamp-millis", "timestamp-micros", "timestamp-nanos",
	// "local-timestamp-millis", "local-timestamp-micros",
	// "local-timestamp-nanos", "duration" or "big-decimal".
	Name string
	// Precision and Scale are set for "decimal" (Scale defaults to 0).
	Precision int
	Scale     int
}

// Named is the naming part of a record, enum or fixed.
type Named struct {
	// Name is the short (unqualified) name.
	Name string
	// Namespace is "" for the null namespace (an explicit "namespace": ""
	// also means the null namespace, as in Java).
	Namespace string
	// Aliases are fully qualified: a relative alias is qualified with the
	// type's own namespace, as Java does.
	Aliases []string
	// Doc is the "doc" attribute, "" when absent.
	Doc string
}

// FullName is Namespace + "." + Name, or Name in the null namespace.
func (n *Named) FullName() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "." + n.Name
}

// Primitive is null, boolean, int, long, float, double, bytes or string,
// possibly annotated with a logical type.
type Primitive struct {
	Kind Type
	// Logical is nil when there is no (valid) logical type.
	Logical *LogicalType
	Props   Props
	Pos     Position
}

// Record is a record (or error) type.
type Record struct {
	Named
	Fields []*Field
	// IsError is true for "type": "error".
	IsError bool
	Props   Props
	Pos     Position
}

// Order is a field's sort order.
type Order string

// Field sort orders.
const (
	OrderAscending  Order = "ascending"
	OrderDescending Order = "descending"
	OrderIgnore     Order = "ignore"
)

// Field is a record field.
type Field struct {
	Name string
	// Aliases are the field's aliases as written (field aliases are plain
	// names, never qualified).
	Aliases []string
	Doc     string
	Type    Schema
	// Default is the field's default as an Avro JSON value, decoded with
	// encoding/json and UseNumber: nil (JSON null), bool, json.Number,
	// string, []any or map[string]any. Two exceptions follow Java: a
	// string default of a float or double field is converted with
	// Double.parseDouble and stored as a float64 (so "NaN" and "Infinity"
	// are possible). Bytes and fixed defaults are strings whose code points
	// 0-255 are the bytes (ISO-8859-1); an enum default is its symbol; a
	// union default is the value of the branch it matches (no wrapping).
	// Only meaningful when HasDefault is true ("default": null gives
	// HasDefault true and Default nil).
	Default    any
	HasDefault bool
	rawDefault *jnode // the parsed JSON, keeping object key order
	// Order defaults to OrderAscending.
	Order Order
	// Index is the field's position in its record (Java's Field.pos()).
	Index int
	Props Props
	Pos   Position
}

// Enum is an enum type.
type Enum struct {
	Named
	Symbols []string
	// Default is the enum-level default symbol; valid when HasDefault.
	Default    string
	HasDefault bool
	Props      Props
	Pos        Position
}

// Fixed is a fixed-size bytes type.
type Fixed struct {
	Named
	Size int
	// Logical is "decimal" or "duration" when valid, else nil.
	Logical *LogicalType
	Props   Props
	Pos     Position
}

// Array is an array type.
type Array struct {
	Items Schema
	Props Props
	Pos   Position
}

// Map is a map type (keys are always strings).
type Map struct {
	Values Schema
	Props  Props
	Pos    Position
}

// Union is a union type. Branches are never unions, and no two branches
// have the same type (or the same full name for named types).
type Union struct {
	Branches []Schema
	Pos      Position
}

func (s *Primitive) Type() Type { return s.Kind }
func (s *Record) Type() Type    { return TypeRecord }
func (s *Enum) Type() Type      { return TypeEnum }
func (s *Fixed) Type() Type     { return TypeFixed }
func (s *Array) Type() Type     { return TypeArray }
func (s *Map) Type() Type       { return TypeMap }
func (s *Union) Type() Type     { return TypeUnion }

func (s *Primitive) Position() Position { return s.Pos }
func (s *Record) Position() Position    { return s.Pos }
func (s *Enum) Position() Position      { return s.Pos }
func (s *Fixed) Position() Position     { return s.Pos }
func (s *Array) Position() Position     { return s.Pos }
func (s *Map) Position() Position       { return s.Pos }
func (s *Union) Position() Position     { return s.Pos }

func (s *Primitive) Properties() Props { return s.Props }
func (s *Record) Properties() Props    { return s.Props }
func (s *Enum) Properties() Props      { return s.Props }
func (s *Fixed) Properties() Props     { return s.Props }
func (s *Array) Properties() Props     { return s.Props }
func (s *Map) Properties() Props       { return s.Props }
func (s *Union) Properties() Props     { return nil }

func (s *Record) Names() *Named { return &s.Named }
func (s *Enum) Names() *Named   { return &s.Named }
func (s *Fixed) Names() *Named  { return &s.Named }

// Field returns the field called name, or nil.
func (s *Record) Field(name string) *Field {
	for _, f := range s.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// HasSymbol reports whether sym is one of the enum's symbols.
func (s *Enum) HasSymbol(sym string) bool {
	for _, x := range s.Symbols {
		if x == sym {
			return true
		}
	}
	return false
}

// LogicalOf returns the (valid) logical type of s, or nil.
func LogicalOf(s Schema) *LogicalType {
	switch t := s.(type) {
	case *Primitive:
		return t.Logical
	case *Fixed:
		return t.Logical
	}
	return nil
}

// TypeName is the name Java's Schema.getFullName gives s: the full name for
// named types, the type name otherwise ("int", "array", "union"). Union
// branches are unique by this name.
func TypeName(s Schema) string {
	if n, ok := s.(NamedSchema); ok {
		return n.FullName()
	}
	return string(s.Type())
}

// NamedTypes returns the named types reachable from s (s included), each
// once, in the order a depth-first walk in source order meets them, which
// is definition order. Pass them to ParseWithNamed (or Options.Named) to
// let another schema refer to them.
func NamedTypes(s Schema) []NamedSchema {
	var out []NamedSchema
	seen := map[NamedSchema]bool{}
	var walk func(Schema)
	walk = func(s Schema) {
		switch t := s.(type) {
		case NamedSchema:
			if seen[t] {
				return
			}
			seen[t] = true
			out = append(out, t)
			if r, ok := t.(*Record); ok {
				for _, f := range r.Fields {
					walk(f.Type)
				}
			}
		case *Array:
			walk(t.Items)
		case *Map:
			walk(t.Values)
		case *Union:
			for _, b := range t.Branches {
				walk(b)
			}
		}
	}
	walk(s)
	return out
}
