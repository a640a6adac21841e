package resolve

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/outboxctl/outboxctl/internal/javatext"
	"github.com/outboxctl/outboxctl/schemas/avro"
)

// encFn appends the Avro JSON encoding of a base (non-logical) value.
type encFn func(buf []byte, v any) ([]byte, error)

// jsonEncoder compiles Avro JSON encoders for reader schemas. Avro's JSON
// encoding (the one Java's JsonEncoder writes): a union is null or
// {"<branch name>": value} with the full name for named types and the type
// name otherwise; bytes and fixed are strings whose code points 0-255 are
// the bytes (ISO-8859-1); logical types are written as their base type;
// floating-point numbers as Java's Float/Double.toString, NaN and the
// infinities as the strings "NaN", "Infinity" and "-Infinity" (Jackson's
// default).
type jsonEncoder struct {
	named map[avro.Schema]*encFn
}

func newJSONEncoder(s avro.Schema) encFn {
	e := &jsonEncoder{named: map[avro.Schema]*encFn{}}
	return e.compile(s)
}

func typeErr(s avro.Schema, v any) error {
	return fmt.Errorf("%w: json encoding: %T is not a %s value", ErrDecode, v, avro.TypeName(s))
}

func (e *jsonEncoder) compile(s avro.Schema) encFn {
	if _, ok := s.(avro.NamedSchema); ok {
		if slot, ok := e.named[s]; ok {
			return func(buf []byte, v any) ([]byte, error) { return (*slot)(buf, v) }
		}
		slot := new(encFn)
		e.named[s] = slot
		*slot = e.compileNamed(s)
		return *slot
	}
	switch t := s.(type) {
	case *avro.Primitive:
		return primitiveEncoder(t)
	case *avro.Array:
		items := e.compile(t.Items)
		return func(buf []byte, v any) ([]byte, error) {
			a, ok := v.([]any)
			if !ok {
				return nil, typeErr(s, v)
			}
			buf = append(buf, '[')
			for i, x := range a {
				if i > 0 {
					buf = append(buf, ',')
				}
				var err error
				if buf, err = items(buf, x); err != nil {
					return nil, err
				}
			}
			return append(buf, ']'), nil
		}
	case *avro.Map:
		values := e.compile(t.Values)
		return func(buf []byte, v any) ([]byte, error) {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, typeErr(s, v)
			}
			keys := sortedKeys(m)
			buf = append(buf, '{')
			for i, k := range keys {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = appendString(buf, k)
				buf = append(buf, ':')
				var err error
				if buf, err = values(buf, m[k]); err != nil {
					return nil, err
				}
			}
			return append(buf, '}'), nil
		}
	case *avro.Union:
		branches := map[string]encFn{}
		for _, b := range t.Branches {
			if b.Type() == avro.TypeNull {
				continue
			}
			name := avro.TypeName(b)
			branches[name] = e.compile(b)
		}
		return func(buf []byte, v any) ([]byte, error) {
			if v == nil {
				return append(buf, "null"...), nil
			}
			m, ok := v.(map[string]any)
			if !ok || len(m) != 1 {
				return nil, typeErr(s, v)
			}
			for k, x := range m {
				enc, ok := branches[k]
				if !ok {
					return nil, fmt.Errorf("%w: json encoding: %q is not a branch of the union", ErrDecode, k)
				}
				buf = append(buf, '{')
				buf = appendString(buf, k)
				buf = append(buf, ':')
				var err error
				if buf, err = enc(buf, x); err != nil {
					return nil, err
				}
				buf = append(buf, '}')
			}
			return buf, nil
		}
	}
	return func([]byte, any) ([]byte, error) {
		return nil, fmt.Errorf("%w: json encoding of %T", ErrUnsupported, s)
	}
}

func (e *jsonEncoder) compileNamed(s avro.Schema) encFn {
	switch t := s.(type) {
	case *avro.Record:
		type field struct {
			key  []byte // "name":
			name string
			enc  encFn
		}
		fields := make([]field, len(t.Fields))
		for i, f := range t.Fields {
			key := appendString(nil, f.Name)
			if i > 0 {
				key = append([]byte{','}, key...)
			}
			fields[i] = field{key: append(key, ':'), name: f.Name, enc: e.compile(f.Type)}
		}
		return func(buf []byte, v any) ([]byte, error) {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, typeErr(s, v)
			}
			buf = append(buf, '{')
			for _, f := range fields {
				x, ok := m[f.name]
				if !ok {
					return nil, fmt.Errorf("%w: json encoding: record %s lacks field %q", ErrDecode, t.FullName(), f.name)
				}
				buf = append(buf, f.key...)
				var err error
				if buf, err = f.enc(buf, x); err != nil {
					return nil, err
				}
			}
			return append(buf, '}'), nil
		}
	case *avro.Enum:
		return func(buf []byte, v any) ([]byte, error) {
			sym, ok := v.(string)
			if !ok {
				return nil, typeErr(s, v)
			}
			return appendString(buf, sym), nil
		}
	case *avro.Fixed:
		return func(buf []byte, v any) ([]byte, error) {
			b, ok := v.([]byte)
			if !ok {
				return nil, typeErr(s, v)
			}
			return javatext.AppendLatin1String(buf, b), nil
		}
	}
	return func([]byte, any) ([]byte, error) {
		return nil, fmt.Errorf("%w: json encoding of %T", ErrUnsupported, s)
	}
}

func primitiveEncoder(p *avro.Primitive) encFn {
	s := avro.Schema(p)
	switch p.Kind {
	case avro.TypeNull:
		return func(buf []byte, v any) ([]byte, error) {
			if v != nil {
				return nil, typeErr(s, v)
			}
			return append(buf, "null"...), nil
		}
	case avro.TypeBoolean:
		return func(buf []byte, v any) ([]byte, error) {
			b, ok := v.(bool)
			if !ok {
				return nil, typeErr(s, v)
			}
			return strconv.AppendBool(buf, b), nil
		}
	case avro.TypeInt:
		return func(buf []byte, v any) ([]byte, error) {
			i, ok := v.(int32)
			if !ok {
				return nil, typeErr(s, v)
			}
			return strconv.AppendInt(buf, int64(i), 10), nil
		}
	case avro.TypeLong:
		return func(buf []byte, v any) ([]byte, error) {
			i, ok := v.(int64)
			if !ok {
				return nil, typeErr(s, v)
			}
			return strconv.AppendInt(buf, i, 10), nil
		}
	case avro.TypeFloat:
		return func(buf []byte, v any) ([]byte, error) {
			f, ok := v.(float32)
			if !ok {
				return nil, typeErr(s, v)
			}
			return javatext.AppendJSONFloat(buf, f), nil
		}
	case avro.TypeDouble:
		return func(buf []byte, v any) ([]byte, error) {
			f, ok := v.(float64)
			if !ok {
				return nil, typeErr(s, v)
			}
			return javatext.AppendJSONDouble(buf, f), nil
		}
	case avro.TypeString:
		return func(buf []byte, v any) ([]byte, error) {
			str, ok := v.(string)
			if !ok {
				return nil, typeErr(s, v)
			}
			return appendString(buf, str), nil
		}
	case avro.TypeBytes:
		return func(buf []byte, v any) ([]byte, error) {
			b, ok := v.([]byte)
			if !ok {
				return nil, typeErr(s, v)
			}
			return javatext.AppendLatin1String(buf, b), nil
		}
	}
	return func([]byte, any) ([]byte, error) { return nil, typeErr(s, nil) }
}

// appendString writes s as Jackson does (javatext.AppendString), each
// byte of invalid UTF-8 becoming U+FFFD first.
func appendString(buf []byte, s string) []byte {
	if utf8.ValidString(s) {
		return javatext.AppendString(buf, s)
	}
	valid := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		valid = utf8.AppendRune(valid, r)
		i += size
	}
	return javatext.AppendString(buf, string(valid))
}
