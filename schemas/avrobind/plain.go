package avrobind

import (
	"math/big"
	"reflect"
	"strconv"
	"time"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

var anyMapType = reflect.TypeFor[map[string]any]()

// valFn decodes one datum as a plain Go value: what an `any` (or a
// map[string]any for a record) receives.
type valFn func(d *decoder) (any, error)

// plainHolder is a plain plan under construction (recursive types).
type plainHolder struct {
	fn   valFn
	done bool
}

// plain builds the plan that reads writer type w as reader type r into
// plain values, as the generic path gives them: records and maps as
// map[string]any, arrays as []any, unions as the branch's value (nil for
// null), enums as the symbol string, int as int32, long as int64, float as
// float32, double as float64, bytes and fixed as []byte, and the reader's
// logical types as goavro decodes them (time.Time for date and the
// timestamp-millis/-micros, time.Duration for time-millis/-micros,
// *big.Rat for decimal); other logical types keep their base values.
func (c *compiler) plain(w, r avro.Schema, p rpath) (valFn, error) {
	if wu, ok := w.(*avro.Union); ok {
		fns, errs, err := unionBranches(c, wu, r, p, nil, func(wb, rb avro.Schema, p rpath) (valFn, error) {
			return c.plain(wb, rb, p)
		})
		if err != nil {
			return nil, err
		}
		n := int32(len(fns))
		return func(d *decoder) (any, error) {
			i, err := d.readInt()
			if err != nil {
				return nil, err
			}
			if i < 0 || i >= n {
				return nil, errUnionIndex
			}
			if fns[i] == nil {
				return nil, errs[i]
			}
			return fns[i](d)
		}, nil
	}
	if ru, ok := r.(*avro.Union); ok {
		j, err := c.readerBranch(w, ru, p)
		if err != nil {
			return nil, err
		}
		return c.plain(w, ru.Branches[j], p.with(strconv.Itoa(j)))
	}
	if r.Type() == avro.TypeNull {
		if w.Type() != avro.TypeNull {
			return nil, mismatch(w, r, p)
		}
		return func(*decoder) (any, error) { return nil, nil }, nil
	}
	switch rt := r.(type) {
	case *avro.Primitive:
		wp, ok := w.(*avro.Primitive)
		if !ok || (wp.Kind != rt.Kind && !promotable(wp.Kind, rt.Kind)) {
			return nil, mismatch(w, r, p)
		}
		return plainPrimitive(wp.Kind, rt), nil
	case *avro.Enum:
		we, ok := w.(*avro.Enum)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		if err := c.sameName(we, rt, p); err != nil {
			return nil, err
		}
		to, missing := enumTable(we, rt)
		n := int32(len(to))
		return func(d *decoder) (any, error) {
			i, err := readEnum(d, n, missing)
			if err != nil {
				return nil, err
			}
			return to[i], nil
		}, nil
	case *avro.Fixed:
		wf, ok := w.(*avro.Fixed)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		if err := c.sameFixed(wf, rt, p); err != nil {
			return nil, err
		}
		size := rt.Size
		if rt.Logical != nil && rt.Logical.Name == "decimal" {
			rat := ratOf(rt.Logical.Scale)
			return func(d *decoder) (any, error) {
				b, err := d.view(size)
				if err != nil {
					return nil, err
				}
				return rat(b), nil
			}, nil
		}
		return func(d *decoder) (any, error) {
			b, err := d.view(size)
			if err != nil {
				return nil, err
			}
			return append([]byte(nil), b...), nil
		}, nil
	case *avro.Array:
		wa, ok := w.(*avro.Array)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		item, err := c.plain(wa.Items, rt.Items, p.with("items"))
		if err != nil {
			lz := lazy(err)
			return func(d *decoder) (any, error) { return []any{}, lz(d, nil) }, nil
		}
		return func(d *decoder) (any, error) {
			out := []any{}
			for {
				n, err := d.readBlock(len(out))
				if err != nil || n == 0 {
					return out, err
				}
				if n > len(d.b)-d.i && n > 1024 {
					return nil, errEOF
				}
				for i := 0; i < n; i++ {
					v, err := item(d)
					if err != nil {
						return nil, atIndex(err, len(out))
					}
					out = append(out, v)
				}
			}
		}, nil
	case *avro.Map:
		wm, ok := w.(*avro.Map)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		val, err := c.plain(wm.Values, rt.Values, p.with("values"))
		if err != nil {
			lz := lazy(err)
			return func(d *decoder) (any, error) { return map[string]any{}, lz(d, nil) }, nil
		}
		return func(d *decoder) (any, error) {
			out := map[string]any{}
			total := 0
			for {
				n, err := d.readBlock(total)
				if err != nil || n == 0 {
					return out, err
				}
				for i := 0; i < n; i++ {
					k, err := d.readString()
					if err != nil {
						return nil, err
					}
					v, err := val(d)
					if err != nil {
						return nil, at(err, k)
					}
					out[k] = v
				}
				total += n
			}
		}, nil
	case *avro.Record:
		wr, ok := w.(*avro.Record)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		return c.plainRecord(wr, rt, p)
	}
	return nil, mismatch(w, r, p)
}

func (c *compiler) plainRecord(w, r *avro.Record, p rpath) (valFn, error) {
	key := [2]avro.Schema{w, r}
	if h, ok := c.plainMemo[key]; ok {
		if h.done {
			return h.fn, nil
		}
		return func(d *decoder) (any, error) { return h.fn(d) }, nil
	}
	h := &plainHolder{}
	c.plainMemo[key] = h
	type pstep struct {
		name string // reader field name, "" to drop
		fn   valFn
		skip decFn
	}
	type pdef struct {
		name string
		fn   valFn
		data []byte
		str  string
	}
	wname := c.aliases.Name(w.FullName())
	source := map[*avro.Field]*avro.Field{}
	var steps []pstep
	for _, wf := range w.Fields {
		rf, err := c.readerField(wname, wf, r, source, p)
		if err != nil {
			return nil, err
		}
		if rf == nil {
			skip, err := c.compile(wf.Type, wf.Type, nil, "", p)
			if err != nil {
				return nil, err
			}
			steps = append(steps, pstep{skip: skip, name: wf.Name})
			continue
		}
		fn, err := c.plain(wf.Type, rf.Type, p.withField(rf.Index, rf.Name).with("type"))
		if err != nil {
			return nil, err
		}
		steps = append(steps, pstep{name: rf.Name, fn: fn})
	}
	var defs []pdef
	for _, rf := range r.Fields {
		if source[rf] != nil {
			continue
		}
		data, err := fieldDefault(rf, p)
		if err != nil {
			return nil, err
		}
		fn, err := c.plain(rf.Type, rf.Type, p.withField(rf.Index, rf.Name).with("type"))
		if err != nil {
			return nil, err
		}
		defs = append(defs, pdef{name: rf.Name, fn: fn, data: data, str: string(data)})
	}
	size := len(r.Fields)
	h.fn = func(d *decoder) (any, error) {
		out := make(map[string]any, size)
		for i := range steps {
			s := &steps[i]
			if s.fn == nil {
				if err := s.skip(d, nil); err != nil {
					return nil, at(err, s.name)
				}
				continue
			}
			v, err := s.fn(d)
			if err != nil {
				return nil, at(err, s.name)
			}
			out[s.name] = v
		}
		if len(defs) > 0 {
			saved := *d
			for i := range defs {
				df := &defs[i]
				*d = decoder{b: df.data, s: df.str, shared: true}
				v, err := df.fn(d)
				if err != nil {
					*d = saved
					return nil, at(err, df.name)
				}
				out[df.name] = v
			}
			*d = saved
		}
		return out, nil
	}
	h.done = true
	return h.fn, nil
}

func plainPrimitive(w avro.Type, r *avro.Primitive) valFn {
	lt := ""
	if r.Logical != nil {
		lt = r.Logical.Name
	}
	switch r.Kind {
	case avro.TypeBoolean:
		return func(d *decoder) (any, error) { return d.readBoolean() }
	case avro.TypeInt:
		switch lt {
		case "date":
			return func(d *decoder) (any, error) {
				v, err := d.readInt()
				return time.Unix(int64(v)*86400, 0).UTC(), err
			}
		case "time-millis":
			return func(d *decoder) (any, error) {
				v, err := d.readInt()
				return time.Duration(v) * time.Millisecond, err
			}
		}
		return func(d *decoder) (any, error) { return d.readInt() }
	case avro.TypeLong:
		read := (*decoder).readLong
		if w == avro.TypeInt {
			read = func(d *decoder) (int64, error) { v, err := d.readInt(); return int64(v), err }
		}
		switch lt {
		case "timestamp-millis", "timestamp-micros":
			unit := int64(1e3)
			if lt == "timestamp-micros" {
				unit = 1e6
			}
			return func(d *decoder) (any, error) {
				v, err := read(d)
				s := v / unit
				return time.Unix(s, (v-s*unit)*(1e9/unit)).UTC(), err
			}
		case "time-micros":
			return func(d *decoder) (any, error) {
				v, err := read(d)
				return time.Duration(v) * time.Microsecond, err
			}
		}
		return func(d *decoder) (any, error) { return read(d) }
	case avro.TypeFloat:
		switch w {
		case avro.TypeInt:
			return func(d *decoder) (any, error) { v, err := d.readInt(); return float32(v), err }
		case avro.TypeLong:
			return func(d *decoder) (any, error) { v, err := d.readLong(); return float32(v), err }
		}
		return func(d *decoder) (any, error) { return d.readFloat() }
	case avro.TypeDouble:
		switch w {
		case avro.TypeInt:
			return func(d *decoder) (any, error) { v, err := d.readInt(); return float64(v), err }
		case avro.TypeLong:
			return func(d *decoder) (any, error) { v, err := d.readLong(); return float64(v), err }
		case avro.TypeFloat:
			return func(d *decoder) (any, error) { v, err := d.readFloat(); return float64(v), err }
		}
		return func(d *decoder) (any, error) { return d.readDouble() }
	case avro.TypeString:
		return func(d *decoder) (any, error) { return d.readString() }
	case avro.TypeBytes:
		if lt == "decimal" {
			rat := ratOf(r.Logical.Scale)
			return func(d *decoder) (any, error) {
				start, n, err := d.readLen()
				if err != nil {
					return nil, err
				}
				return rat(d.b[start : start+n]), nil
			}
		}
		return func(d *decoder) (any, error) { return d.readBytes() }
	}
	return func(*decoder) (any, error) { return nil, nil }
}

// ratOf reads two's-complement big-endian bytes as a decimal of scale, as
// goavro does.
func ratOf(scale int) func(b []byte) *big.Rat {
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return func(b []byte) *big.Rat {
		n := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
		}
		return new(big.Rat).SetFrac(n, den)
	}
}
