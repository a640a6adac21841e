package resolve

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// goavroSchema renders s as the JSON the writer's goavro codec is built
// from. It keeps only what decoding needs: no defaults (goavro validates
// them with rules that differ from Java's), no aliases, no doc, and no
// logical types (goavro then returns the base values, which resolution
// works on). Every named type is written with its full name so that goavro's
// union branch keys are known in advance; names returns the name goavro
// gives each named type.
//
// A type in the null namespace defined inside a namespaced type cannot be
// spelled for goavro (it treats "namespace": "" as "inherit"), so it gets
// the synthetic namespace nullNS; only union branch keys and goavro's own
// error messages can show it.
func goavroSchema(s avro.Schema) (string, map[avro.NamedSchema]string, error) {
	e := &goavroEmitter{names: map[avro.NamedSchema]string{}}
	if err := e.emit(s, ""); err != nil {
		return "", nil, err
	}
	return e.b.String(), e.names, nil
}

const nullNS = "_nullns_"

type goavroEmitter struct {
	b     strings.Builder
	names map[avro.NamedSchema]string
}

func (e *goavroEmitter) str(s string) {
	q, _ := json.Marshal(s)
	e.b.Write(q)
}

func (e *goavroEmitter) emit(s avro.Schema, enclosing string) error {
	switch t := s.(type) {
	case *avro.Primitive:
		e.str(string(t.Kind))
	case *avro.Array:
		e.b.WriteString(`{"type":"array","items":`)
		if err := e.emit(t.Items, enclosing); err != nil {
			return err
		}
		e.b.WriteByte('}')
	case *avro.Map:
		e.b.WriteString(`{"type":"map","values":`)
		if err := e.emit(t.Values, enclosing); err != nil {
			return err
		}
		e.b.WriteByte('}')
	case *avro.Union:
		if len(t.Branches) == 0 {
			return fmt.Errorf("%w: goavro cannot decode the empty union", ErrUnsupported)
		}
		e.b.WriteByte('[')
		for i, br := range t.Branches {
			if i > 0 {
				e.b.WriteByte(',')
			}
			if err := e.emit(br, enclosing); err != nil {
				return err
			}
		}
		e.b.WriteByte(']')
	case avro.NamedSchema:
		if name, ok := e.names[t]; ok {
			e.str(name)
			return nil
		}
		name := t.FullName()
		if !strings.Contains(name, ".") && enclosing != "" {
			name = nullNS + "." + name
		}
		e.names[t] = name
		ns := ""
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			ns = name[:i]
		}
		e.b.WriteString(`{"type":`)
		e.str(string(t.Type()))
		e.b.WriteString(`,"name":`)
		e.str(name)
		switch n := t.(type) {
		case *avro.Record:
			e.b.WriteString(`,"fields":[`)
			for i, f := range n.Fields {
				if i > 0 {
					e.b.WriteByte(',')
				}
				e.b.WriteString(`{"name":`)
				e.str(f.Name)
				e.b.WriteString(`,"type":`)
				if err := e.emit(f.Type, ns); err != nil {
					return err
				}
				e.b.WriteByte('}')
			}
			e.b.WriteByte(']')
		case *avro.Enum:
			e.b.WriteString(`,"symbols":[`)
			for i, sym := range n.Symbols {
				if i > 0 {
					e.b.WriteByte(',')
				}
				e.str(sym)
			}
			e.b.WriteByte(']')
		case *avro.Fixed:
			e.b.WriteString(`,"size":`)
			e.b.WriteString(strconv.Itoa(n.Size))
		}
		e.b.WriteByte('}')
	default:
		return fmt.Errorf("%w: unknown schema %T", ErrUnsupported, s)
	}
	return nil
}

// goavroNames returns the full name goavro gives each named type of s when
// it compiles s's JSON: the Avro full name, except that a type in the null
// namespace defined inside a namespaced type takes the enclosing namespace
// (goavro reads "namespace": "" as "inherit"). These are the union keys of
// goavro's native values for the reader schema.
func goavroNames(s avro.Schema) map[avro.NamedSchema]string {
	names := map[avro.NamedSchema]string{}
	var walk func(s avro.Schema, enclosing string)
	walk = func(s avro.Schema, enclosing string) {
		switch t := s.(type) {
		case *avro.Array:
			walk(t.Items, enclosing)
		case *avro.Map:
			walk(t.Values, enclosing)
		case *avro.Union:
			for _, b := range t.Branches {
				walk(b, enclosing)
			}
		case avro.NamedSchema:
			if _, ok := names[t]; ok {
				return
			}
			name := t.FullName()
			if !strings.Contains(name, ".") && enclosing != "" {
				name = enclosing + "." + name
			}
			names[t] = name
			if r, ok := t.(*avro.Record); ok {
				ns := name[:max(strings.LastIndexByte(name, '.'), 0)]
				for _, f := range r.Fields {
					walk(f.Type, ns)
				}
			}
		}
	}
	walk(s, "")
	return names
}
