package avro

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// JavaString is the compact JSON that Avro Java's Schema.toString() writes
// for s, which is what Confluent Schema Registry stores and compares as a
// schema's canonical string: keys in Avro's order (type, name, namespace,
// doc, fields/symbols/items/values/size, default, props, aliases),
// {"type":"int"} collapsed to "int", an ascending order omitted, namespaces
// written only where they differ from the enclosing one, and doc, aliases,
// defaults and custom properties kept. Numbers are written as Jackson
// writes them (1.5E10 for a double).
func JavaString(s Schema) string { return JavaStringRefs(s) }

// JavaStringRefs is JavaString with the named types refs (a schema's
// Confluent references) written by name instead of inline, as Java's
// Schema.toString(referencedSchemas, false) does for
// AvroSchema.canonicalString().
func JavaStringRefs(s Schema, refs ...NamedSchema) string {
	known := map[string]bool{}
	for _, r := range refs {
		known[r.FullName()] = true
	}
	var b strings.Builder
	javaJSON(&b, s, known, "")
	return b.String()
}

func javaJSON(b *strings.Builder, s Schema, known map[string]bool, ns string) {
	switch t := s.(type) {
	case *unresolved:
		javatext.WriteString(b, t.name)
	case *Primitive:
		if len(t.Props) == 0 {
			javatext.WriteString(b, string(t.Kind))
			return
		}
		b.WriteString(`{"type":`)
		javatext.WriteString(b, string(t.Kind))
		writeProps(b, t.Props)
		b.WriteByte('}')
	case *Array:
		b.WriteString(`{"type":"array","items":`)
		javaJSON(b, t.Items, known, ns)
		writeProps(b, t.Props)
		b.WriteByte('}')
	case *Map:
		b.WriteString(`{"type":"map","values":`)
		javaJSON(b, t.Values, known, ns)
		writeProps(b, t.Props)
		b.WriteByte('}')
	case *Union:
		b.WriteByte('[')
		for i, br := range t.Branches {
			if i > 0 {
				b.WriteByte(',')
			}
			javaJSON(b, br, known, ns)
		}
		b.WriteByte(']')
	case NamedSchema:
		nm := t.Names()
		full := nm.FullName()
		if known[full] {
			javatext.WriteString(b, qualified(nm.Namespace, nm.Name, ns))
			return
		}
		known[full] = true
		b.WriteString(`{"type":`)
		switch x := t.(type) {
		case *Record:
			if x.IsError {
				b.WriteString(`"error"`)
			} else {
				b.WriteString(`"record"`)
			}
		default:
			javatext.WriteString(b, string(t.Type()))
		}
		b.WriteString(`,"name":`)
		javatext.WriteString(b, nm.Name)
		if nm.Namespace != "" {
			if nm.Namespace != ns {
				b.WriteString(`,"namespace":`)
				javatext.WriteString(b, nm.Namespace)
			}
		} else if ns != "" {
			b.WriteString(`,"namespace":""`)
		}
		if nm.Doc != "" {
			b.WriteString(`,"doc":`)
			javatext.WriteString(b, nm.Doc)
		}
		var props Props
		switch x := t.(type) {
		case *Record:
			props = x.Props
			b.WriteString(`,"fields":[`)
			for i, f := range x.Fields {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"name":`)
				javatext.WriteString(b, f.Name)
				b.WriteString(`,"type":`)
				javaJSON(b, f.Type, known, nm.Namespace)
				if f.Doc != "" {
					b.WriteString(`,"doc":`)
					javatext.WriteString(b, f.Doc)
				}
				if f.HasDefault {
					b.WriteString(`,"default":`)
					if f.rawDefault != nil && !isFloat(f.Default) {
						jacksonNode(b, f.rawDefault)
					} else {
						jacksonValue(b, f.Default)
					}
				}
				if f.Order != OrderAscending && f.Order != "" {
					b.WriteString(`,"order":`)
					javatext.WriteString(b, string(f.Order))
				}
				if len(f.Aliases) > 0 {
					b.WriteString(`,"aliases":[`)
					for i, a := range f.Aliases {
						if i > 0 {
							b.WriteByte(',')
						}
						javatext.WriteString(b, a)
					}
					b.WriteByte(']')
				}
				writeProps(b, f.Props)
				b.WriteByte('}')
			}
			b.WriteByte(']')
		case *Enum:
			props = x.Props
			b.WriteString(`,"symbols":[`)
			for i, sym := range x.Symbols {
				if i > 0 {
					b.WriteByte(',')
				}
				javatext.WriteString(b, sym)
			}
			b.WriteByte(']')
			if x.HasDefault {
				b.WriteString(`,"default":`)
				javatext.WriteString(b, x.Default)
			}
		case *Fixed:
			props = x.Props
			b.WriteString(`,"size":` + strconv.Itoa(x.Size))
		}
		writeProps(b, props)
		if len(nm.Aliases) > 0 {
			b.WriteString(`,"aliases":[`)
			for i, a := range nm.Aliases {
				if i > 0 {
					b.WriteByte(',')
				}
				ans, aname := "", a
				if j := strings.LastIndexByte(a, '.'); j >= 0 {
					ans, aname = a[:j], a[j+1:]
				}
				javatext.WriteString(b, qualified(ans, aname, nm.Namespace))
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	}
}

// qualified is Java's Name.getQualified(defaultSpace): the short name when
// the namespace is the enclosing one (unless the short name is a type
// name), else the full name.
func qualified(space, name, defaultSpace string) string {
	if space != "" && space == defaultSpace {
		switch name {
		case "null", "boolean", "int", "long", "float", "double", "bytes", "string",
			"record", "enum", "array", "map", "union", "fixed":
			return space + "." + name
		}
		return name
	}
	if space == "" {
		return name
	}
	return space + "." + name
}

func writeProps(b *strings.Builder, ps Props) {
	for _, p := range ps {
		b.WriteByte(',')
		javatext.WriteString(b, p.Key)
		b.WriteByte(':')
		if p.raw != nil {
			jacksonNode(b, p.raw)
		} else {
			jacksonValue(b, p.Value)
		}
	}
}

func isFloat(v any) bool { _, ok := v.(float64); return ok }

// jacksonNode writes a parsed JSON value as Jackson writes its tree: object
// keys in source order, numbers as Jackson's nodes print them.
func jacksonNode(b *strings.Builder, n *jnode) {
	switch n.Kind {
	case jArray:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			jacksonNode(b, e)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			javatext.WriteString(b, k)
			b.WriteByte(':')
			jacksonNode(b, n.Vals[i])
		}
		b.WriteByte('}')
	default:
		jacksonValue(b, nodeValue(n))
	}
}

// jacksonValue writes an Avro JSON value as Jackson writes a JsonNode
// tree.
func jacksonValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		javatext.WriteString(b, x)
	case float64:
		b.Write(javatext.AppendJSONDouble(nil, x))
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			// IntNode/LongNode/BigIntegerNode: the integer as written
			// ("-0" reads as 0).
			if s == "-0" {
				s = "0"
			}
			b.WriteString(s)
			return
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !math.IsInf(f, 0) {
			b.WriteString(s)
			return
		}
		b.Write(javatext.AppendJSONDouble(nil, f))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			jacksonValue(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		// Decoded maps lost their key order; sort for a stable output.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			javatext.WriteString(b, k)
			b.WriteByte(':')
			jacksonValue(b, x[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}
