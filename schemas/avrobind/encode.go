package avrobind

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"time"
	"unsafe"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// ErrEncode: a Go value that does not fit the schema it is encoded with
// (a missing field without a default, a value out of range, a string that
// is not an enum symbol, a Go kind the Avro type cannot take).
var ErrEncode = errors.New("go value does not fit the avro schema")

// Encode appends the Avro binary of v, written with schema s, to buf. It is
// the inverse of Decode with s as both writer and reader: a struct's fields
// map to record fields by the same rules (`avro` tag, else the Go name,
// exactly then case-insensitively; untagged embedded structs promoted,
// `avro:"-"` skipped, internal/avrofield), and the Go types of the table in
// the package doc are accepted for each Avro type (plus the narrower
// integer kinds, range-checked). A record field that no struct field fills
// is written with its default, and is an error without one. A union takes
// null for a nil pointer, interface, slice or map, else the first non-null
// branch the value fits. A map[string]any is a record by field name.
//
// Errors are *Error values with the place in the value ("lines[1].sku")
// that unwrap to ErrEncode (or ErrUnsupported); nothing is appended to buf
// on error.
func Encode(buf []byte, s avro.Schema, v any) ([]byte, error) {
	e := &encoder{fields: map[fieldsKey]map[*avro.Field]reflect.StructField{}}
	rv := reflect.ValueOf(v)
	if rv.IsValid() && rv.Kind() != reflect.Pointer && rv.Kind() != reflect.Interface {
		// An addressable copy, so that struct fields are read at their
		// offsets (the compiler's field map).
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p.Elem()
	}
	out, err := e.value(buf, s, rv)
	if err != nil {
		return buf, rootErr(err)
	}
	return out, nil
}

type fieldsKey struct {
	r *avro.Record
	t reflect.Type
}

type encoder struct {
	fields map[fieldsKey]map[*avro.Field]reflect.StructField
}

func encErr(format string, a ...any) error {
	return &kindError{ErrEncode, fmt.Sprintf(format, a...)}
}

func mismatchErr(s avro.Schema, v reflect.Value) error {
	return encErr("go %s cannot be written as avro %s", v.Type(), describe(s))
}

// deref follows pointers and interfaces; ok is false for a nil on the way
// (or an invalid value).
func deref(v reflect.Value) (reflect.Value, bool) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, v.IsValid()
}

func isNil(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return v.IsNil()
	}
	return false
}

func (e *encoder) value(buf []byte, s avro.Schema, v reflect.Value) ([]byte, error) {
	if u, ok := s.(*avro.Union); ok {
		return e.union(buf, u, v)
	}
	if p, ok := s.(*avro.Primitive); ok && p.Kind == avro.TypeNull {
		return buf, nil
	}
	// Pointers to big.Rat are values of a decimal, not indirections.
	if v.IsValid() && v.Type() == ratPtrType {
		if v.IsNil() {
			return nil, encErr("nil *big.Rat for avro %s", describe(s))
		}
	} else {
		var ok bool
		if v, ok = deref(v); !ok {
			return nil, encErr("nil value for avro %s", describe(s))
		}
	}
	switch t := s.(type) {
	case *avro.Primitive:
		return e.primitive(buf, t, v)
	case *avro.Record:
		return e.record(buf, t, v)
	case *avro.Enum:
		if v.Kind() != reflect.String {
			return nil, mismatchErr(s, v)
		}
		i := slices.Index(t.Symbols, v.String())
		if i < 0 {
			return nil, encErr("%q is not a symbol of enum %s", v.String(), t.FullName())
		}
		return avro.AppendInt(buf, int32(i)), nil
	case *avro.Fixed:
		if t.Logical != nil && t.Logical.Name == "decimal" {
			return decimal(buf, s, t.Logical.Scale, t.Size, v)
		}
		b, ok := bytesOf(v)
		if !ok {
			return nil, mismatchErr(s, v)
		}
		if len(b) != t.Size {
			return nil, encErr("%d bytes for fixed %s of size %d", len(b), t.FullName(), t.Size)
		}
		return append(buf, b...), nil
	case *avro.Array:
		if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
			return nil, mismatchErr(s, v)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil, mismatchErr(s, v)
		}
		n := v.Len()
		if n > 0 {
			buf = avro.AppendLong(buf, int64(n))
			for i := 0; i < n; i++ {
				var err error
				if buf, err = e.value(buf, t.Items, v.Index(i)); err != nil {
					return nil, atIndex(err, i)
				}
			}
		}
		return append(buf, 0), nil
	case *avro.Map:
		if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
			return nil, mismatchErr(s, v)
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			switch {
			case a.String() < b.String():
				return -1
			case a.String() > b.String():
				return 1
			}
			return 0
		})
		if len(keys) > 0 {
			buf = avro.AppendLong(buf, int64(len(keys)))
			for _, k := range keys {
				buf = appendString(buf, k.String())
				var err error
				if buf, err = e.value(buf, t.Values, v.MapIndex(k)); err != nil {
					return nil, at(err, k.String())
				}
			}
		}
		return append(buf, 0), nil
	}
	return nil, &kindError{ErrUnsupported, "avro " + describe(s) + " is not supported by the encoder"}
}

func (e *encoder) union(buf []byte, u *avro.Union, v reflect.Value) ([]byte, error) {
	null := -1
	for i, b := range u.Branches {
		if b.Type() == avro.TypeNull {
			null = i
		}
	}
	if isNil(v) {
		if null >= 0 {
			return avro.AppendInt(buf, int32(null)), nil
		}
		if !v.IsValid() || v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			return nil, encErr("nil value for union %s, which has no null branch", describe(u))
		}
	}
	var first error
	for i, b := range u.Branches {
		if i == null {
			continue
		}
		out, err := e.value(avro.AppendInt(buf, int32(i)), b, v)
		if err == nil {
			return out, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		return nil, encErr("no branch of union %s", describe(u))
	}
	return nil, first
}

func (e *encoder) record(buf []byte, r *avro.Record, v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String {
		for _, f := range r.Fields {
			fv := v.MapIndex(reflect.ValueOf(f.Name).Convert(v.Type().Key()))
			var err error
			if !fv.IsValid() {
				buf, err = writeDefault(buf, f)
			} else {
				buf, err = e.value(buf, f.Type, fv)
			}
			if err != nil {
				return nil, at(err, f.Name)
			}
		}
		return buf, nil
	}
	if v.Kind() != reflect.Struct {
		return nil, mismatchErr(r, v)
	}
	if !v.CanAddr() {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		v = p.Elem()
	}
	key := fieldsKey{r, v.Type()}
	gf, ok := e.fields[key]
	if !ok {
		c := newCompiler(r, r)
		gf = c.goFields(r, v.Type(), typeName(v.Type()))
		e.fields[key] = gf
	}
	base := v.Addr().UnsafePointer()
	for _, f := range r.Fields {
		sf, ok := gf[f]
		var err error
		if !ok {
			buf, err = writeDefault(buf, f)
		} else {
			fv := reflect.NewAt(sf.Type, unsafe.Add(base, sf.Offset)).Elem()
			buf, err = e.value(buf, f.Type, fv)
		}
		if err != nil {
			return nil, at(err, f.Name)
		}
	}
	return buf, nil
}

// writeDefault writes the default of record field f, which the Go value
// does not fill.
func writeDefault(buf []byte, f *avro.Field) ([]byte, error) {
	if !f.HasDefault {
		return nil, encErr("no go field for avro field %q and it has no default", f.Name)
	}
	out, err := encodeDefault(buf, f.Type, f.Default, rpath{})
	if err != nil {
		return nil, encErr("default of field %q: %v", f.Name, err)
	}
	return out, nil
}

func intOf(v reflect.Value) (int64, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > math.MaxInt64 {
			return 0, false
		}
		return int64(u), true
	}
	return 0, false
}

func bytesOf(v reflect.Value) ([]byte, bool) {
	switch {
	case v.Kind() == reflect.String:
		return []byte(v.String()), true
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		return v.Bytes(), true
	case v.Kind() == reflect.Array && v.Type().Elem().Kind() == reflect.Uint8:
		b := make([]byte, v.Len())
		reflect.Copy(reflect.ValueOf(b), v)
		return b, true
	}
	return nil, false
}

func appendString(buf []byte, s string) []byte {
	buf = avro.AppendLong(buf, int64(len(s)))
	return append(buf, s...)
}

func (e *encoder) primitive(buf []byte, p *avro.Primitive, v reflect.Value) ([]byte, error) {
	lt := ""
	if p.Logical != nil {
		lt = p.Logical.Name
	}
	if v.Type() == timeType {
		t := v.Interface().(time.Time)
		switch {
		case lt == "timestamp-millis" && p.Kind == avro.TypeLong:
			return avro.AppendLong(buf, t.UnixMilli()), nil
		case lt == "timestamp-micros" && p.Kind == avro.TypeLong:
			return avro.AppendLong(buf, t.UnixMicro()), nil
		case lt == "date" && p.Kind == avro.TypeInt:
			days := math.Floor(float64(t.Unix()) / 86400)
			return avro.AppendInt(buf, int32(days)), nil
		}
		return nil, mismatchErr(p, v)
	}
	if lt == "decimal" && p.Kind == avro.TypeBytes {
		return decimal(buf, p, p.Logical.Scale, -1, v)
	}
	if v.Type() == reflect.TypeFor[time.Duration]() {
		switch {
		case lt == "time-millis" && p.Kind == avro.TypeInt:
			return avro.AppendInt(buf, int32(v.Int()/int64(time.Millisecond))), nil
		case lt == "time-micros" && p.Kind == avro.TypeLong:
			return avro.AppendLong(buf, v.Int()/int64(time.Microsecond)), nil
		}
	}
	switch p.Kind {
	case avro.TypeBoolean:
		if v.Kind() != reflect.Bool {
			return nil, mismatchErr(p, v)
		}
		if v.Bool() {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case avro.TypeInt, avro.TypeLong:
		i, ok := intOf(v)
		if !ok && v.Kind() == reflect.Float64 && v.Float() == math.Trunc(v.Float()) && math.Abs(v.Float()) < 1<<53 {
			i, ok = int64(v.Float()), true
		}
		if !ok {
			return nil, mismatchErr(p, v)
		}
		if p.Kind == avro.TypeInt && (i < math.MinInt32 || i > math.MaxInt32) {
			return nil, encErr("%d is out of range of avro int", i)
		}
		return avro.AppendLong(buf, i), nil
	case avro.TypeFloat, avro.TypeDouble:
		var f float64
		switch v.Kind() {
		case reflect.Float32, reflect.Float64:
			f = v.Float()
		default:
			i, ok := intOf(v)
			if !ok {
				return nil, mismatchErr(p, v)
			}
			f = float64(i)
		}
		if p.Kind == avro.TypeFloat {
			return binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(f))), nil
		}
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f)), nil
	case avro.TypeString, avro.TypeBytes:
		b, ok := bytesOf(v)
		if !ok || v.Kind() == reflect.Array {
			return nil, mismatchErr(p, v)
		}
		buf = avro.AppendLong(buf, int64(len(b)))
		return append(buf, b...), nil
	}
	return nil, mismatchErr(p, v)
}

// decimal writes v (*big.Rat, big.Rat, a float or a decimal string) as the
// unscaled two's-complement big-endian integer of a decimal of scale, in
// bytes (size < 0) or a fixed of size; a value with more fractional digits
// than scale is an error, not rounded.
func decimal(buf []byte, s avro.Schema, scale, size int, v reflect.Value) ([]byte, error) {
	r := new(big.Rat)
	switch {
	case v.Type() == ratPtrType:
		r.Set(v.Interface().(*big.Rat))
	case v.Type() == ratType:
		x := v.Interface().(big.Rat)
		r.Set(&x)
	case v.Kind() == reflect.Float32 || v.Kind() == reflect.Float64:
		if _, ok := r.SetString(fmt.Sprintf("%.*f", scale, v.Float())); !ok {
			return nil, mismatchErr(s, v)
		}
	case v.Kind() == reflect.String:
		if _, ok := r.SetString(v.String()); !ok {
			return nil, encErr("%q is not a decimal number", v.String())
		}
	default:
		return nil, mismatchErr(s, v)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, encErr("%s has more than %d fractional digits (decimal scale)", v, scale)
	}
	b := twosComplement(r.Num())
	if size >= 0 {
		if len(b) > size {
			return nil, encErr("decimal needs %d bytes, fixed has %d", len(b), size)
		}
		pad := byte(0)
		if r.Num().Sign() < 0 {
			pad = 0xff
		}
		for i := len(b); i < size; i++ {
			buf = append(buf, pad)
		}
		return append(buf, b...), nil
	}
	buf = avro.AppendLong(buf, int64(len(b)))
	return append(buf, b...), nil
}

// twosComplement is n's minimal big-endian two's-complement bytes.
func twosComplement(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1, inverted.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}
