package avrobind

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/internal/defaultjson"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// encodeDefault writes a reader field default (an Avro JSON value as the
// parser keeps it) as Avro binary of s, once at compile time; the plan then
// decodes those bytes into the Go field for every datum, so a default costs
// what decoding the same value costs and never shares memory between
// datums. The conversion is package resolve's (and Java's): bytes and
// fixed from ISO-8859-1, fixed cut or zero-padded to its size, int and long
// exactly, enum by symbol, records with the sub-fields' own defaults, a
// union as its first branch that the value fits.
func encodeDefault(buf []byte, s avro.Schema, v any, p rpath) ([]byte, *resolve.Error) {
	bad := func() ([]byte, *resolve.Error) {
		return nil, p.errorf(resolve.ErrInvalidDefault, defaultjson.Invalid(s, v))
	}
	switch t := s.(type) {
	case *avro.Primitive:
		switch t.Kind {
		case avro.TypeNull:
			if v != nil {
				return bad()
			}
			return buf, nil
		case avro.TypeBoolean:
			b, ok := v.(bool)
			if !ok {
				return bad()
			}
			if b {
				return append(buf, 1), nil
			}
			return append(buf, 0), nil
		case avro.TypeInt, avro.TypeLong:
			i, ok := defaultjson.Integer(v)
			if !ok || (t.Kind == avro.TypeInt && (i < math.MinInt32 || i > math.MaxInt32)) {
				return bad()
			}
			return avro.AppendLong(buf, i), nil
		case avro.TypeFloat:
			f, ok := defaultjson.Float(v)
			if !ok {
				return bad()
			}
			return binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(f))), nil
		case avro.TypeDouble:
			f, ok := defaultjson.Float(v)
			if !ok {
				return bad()
			}
			return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f)), nil
		case avro.TypeString:
			str, ok := v.(string)
			if !ok {
				return bad()
			}
			return append(avro.AppendLong(buf, int64(len(str))), str...), nil
		case avro.TypeBytes:
			str, ok := v.(string)
			if !ok {
				return bad()
			}
			b := defaultjson.Latin1(str)
			return append(avro.AppendLong(buf, int64(len(b))), b...), nil
		}
	case *avro.Fixed:
		str, ok := v.(string)
		if !ok {
			return bad()
		}
		b := defaultjson.Latin1(str)
		fixed := make([]byte, t.Size)
		copy(fixed, b)
		return append(buf, fixed...), nil
	case *avro.Enum:
		str, ok := v.(string)
		if !ok {
			return bad()
		}
		for i, sym := range t.Symbols {
			if sym == str {
				return avro.AppendLong(buf, int64(i)), nil
			}
		}
		return bad()
	case *avro.Array:
		items, ok := v.([]any)
		if !ok {
			return bad()
		}
		if len(items) > 0 {
			buf = avro.AppendLong(buf, int64(len(items)))
			for _, x := range items {
				var err *resolve.Error
				if buf, err = encodeDefault(buf, t.Items, x, p.with("items")); err != nil {
					return nil, err
				}
			}
		}
		return append(buf, 0), nil
	case *avro.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		if len(m) > 0 {
			buf = avro.AppendLong(buf, int64(len(m)))
			for k, x := range m {
				buf = append(avro.AppendLong(buf, int64(len(k))), k...)
				var err *resolve.Error
				if buf, err = encodeDefault(buf, t.Values, x, p.with("values")); err != nil {
					return nil, err
				}
			}
		}
		return append(buf, 0), nil
	case *avro.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		for _, f := range t.Fields {
			x, present := m[f.Name]
			fp := p.withField(f.Index, f.Name)
			if !present {
				if !f.HasDefault {
					return nil, fp.errorf(resolve.ErrInvalidDefault, "record default lacks the field, which has no default")
				}
				x = f.Default
			}
			var err *resolve.Error
			if buf, err = encodeDefault(buf, f.Type, x, fp.with("type")); err != nil {
				return nil, err
			}
		}
		return buf, nil
	case *avro.Union:
		var first *resolve.Error
		for j, b := range t.Branches {
			out, err := encodeDefault(avro.AppendLong(buf, int64(j)), b, v, p.with(strconv.Itoa(j)))
			if err == nil {
				return out, nil
			}
			if first == nil {
				first = err
			}
		}
		if first == nil {
			return bad()
		}
		return nil, first
	}
	return bad()
}
