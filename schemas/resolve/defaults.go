package resolve

import (
	"math"
	"math/big"
	"strconv"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/internal/defaultjson"
)

// defaultValue turns a reader field default (an Avro JSON value, as the
// parser keeps it) into a function that returns a fresh reader-shaped value
// on every call, so callers may modify what they get.
//
// The conversion follows Java's decoder: bytes and fixed from ISO-8859-1
// (code point n is byte n; fixed is cut or zero-padded to its size, as
// Java's Arrays.copyOf does), int and long exactly from the JSON number,
// enum by symbol, records field by field with the sub-fields' own defaults
// for what the default object leaves out, and a union default as a value of
// its first branch (the default of an Avro 1.12 schema may match a later
// branch; that branch is used then, where Java's decoder fails).
func (c *compiler) defaultValue(s avro.Schema, v any, p path) (func() any, *Error) {
	val, err := c.buildDefault(s, v, p)
	if err != nil {
		return nil, err
	}
	if !mutable(val) {
		return func() any { return val }, nil
	}
	return func() any { return deepCopy(val) }, nil
}

func invalidDefault(p path, s avro.Schema, v any) *Error {
	return p.errorf(ErrInvalidDefault, defaultjson.Invalid(s, v))
}

func (c *compiler) buildDefault(s avro.Schema, v any, p path) (any, *Error) {
	switch t := s.(type) {
	case *avro.Primitive:
		base, ok := primitiveDefault(t.Kind, v)
		if !ok {
			return nil, invalidDefault(p, s, v)
		}
		if c.logical {
			if f := primitiveLogical(t); f != nil {
				return f(base), nil
			}
		}
		return base, nil
	case *avro.Fixed:
		str, ok := v.(string)
		if !ok {
			return nil, invalidDefault(p, s, v)
		}
		b := defaultjson.Latin1(str)
		if len(b) != t.Size {
			fixed := make([]byte, t.Size)
			copy(fixed, b)
			b = fixed
		}
		if c.logical && t.Logical != nil && t.Logical.Name == "decimal" {
			return decimal(b, t.Logical.Scale), nil
		}
		return b, nil
	case *avro.Enum:
		str, ok := v.(string)
		if !ok || !t.HasSymbol(str) {
			return nil, invalidDefault(p, s, v)
		}
		return str, nil
	case *avro.Array:
		items, ok := v.([]any)
		if !ok {
			return nil, invalidDefault(p, s, v)
		}
		out := make([]any, len(items))
		for i, x := range items {
			y, err := c.buildDefault(t.Items, x, p.with("items"))
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	case *avro.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, invalidDefault(p, s, v)
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			y, err := c.buildDefault(t.Values, x, p.with("values"))
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	case *avro.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, invalidDefault(p, s, v)
		}
		out := make(map[string]any, len(t.Fields))
		for _, f := range t.Fields {
			x, present := m[f.Name]
			if !present {
				if !f.HasDefault {
					return nil, p.withField(f.Index, f.Name).errorf(ErrInvalidDefault,
						"record default lacks the field, which has no default")
				}
				x = f.Default
			}
			y, err := c.buildDefault(f.Type, x, p.withField(f.Index, f.Name).with("type"))
			if err != nil {
				return nil, err
			}
			out[f.Name] = y
		}
		return out, nil
	case *avro.Union:
		if len(t.Branches) == 0 {
			return nil, invalidDefault(p, s, v)
		}
		var firstErr *Error
		for j, b := range t.Branches {
			y, err := c.buildDefault(b, v, p.with(strconv.Itoa(j)))
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if b.Type() == avro.TypeNull {
				return nil, nil
			}
			return map[string]any{c.readerKey(b): y}, nil
		}
		return nil, firstErr
	}
	return nil, invalidDefault(p, s, v)
}

// primitiveDefault converts an Avro JSON default to the base goavro value
// of kind k.
func primitiveDefault(k avro.Type, v any) (any, bool) {
	switch k {
	case avro.TypeNull:
		return nil, v == nil
	case avro.TypeBoolean:
		b, ok := v.(bool)
		return b, ok
	case avro.TypeInt:
		i, ok := defaultjson.Integer(v)
		if !ok || i < math.MinInt32 || i > math.MaxInt32 {
			return nil, false
		}
		return int32(i), true
	case avro.TypeLong:
		i, ok := defaultjson.Integer(v)
		return i, ok
	case avro.TypeFloat:
		f, ok := defaultjson.Float(v)
		return float32(f), ok
	case avro.TypeDouble:
		f, ok := defaultjson.Float(v)
		return f, ok
	case avro.TypeString:
		s, ok := v.(string)
		return s, ok
	case avro.TypeBytes:
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		return defaultjson.Latin1(s), true
	}
	return nil, false
}

func mutable(v any) bool {
	switch v.(type) {
	case []byte, []any, map[string]any, *big.Rat:
		return true
	}
	return false
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case []byte:
		return append([]byte(nil), t...)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case *big.Rat:
		return new(big.Rat).Set(t)
	}
	return v
}
