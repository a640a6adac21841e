package avrobind

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"github.com/outboxctl/outboxctl/internal/avrofield"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// decFn decodes one datum of a writer type from d into the Go value at p
// (a pointer to the bound Go type). p is nil for a value that is decoded
// only to be validated and dropped (a writer field the reader or the Go
// type does not keep).
type decFn func(d *decoder, p unsafe.Pointer) error

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	ratType      = reflect.TypeFor[big.Rat]()
	ratPtrType   = reflect.TypeFor[*big.Rat]()
	bytesKind    = reflect.TypeFor[[]byte]()
)

type memoKey struct {
	w, r avro.Schema
	t    reflect.Type
}

// holder is a plan under construction, for recursive types.
type holder struct {
	fn   decFn
	err  error
	done bool
}

type compiler struct {
	memo      map[memoKey]*holder
	plainMemo map[[2]avro.Schema]*plainHolder
	// aliases rename the writer's names and fields as the reader's
	// aliases say (resolve.NewAliases, one implementation for both
	// decoders).
	aliases resolve.Aliases
	// strict collects struct fields that match no reader field.
	strict   bool
	unmapped []error
	// check: Check's walk, where a Go type the plan does not bind (an
	// interface, a map for a record) accepts anything, so that the rest
	// of the type is still checked.
	check bool
}

func newCompiler(writer, reader avro.Schema) *compiler {
	return &compiler{memo: map[memoKey]*holder{}, plainMemo: map[[2]avro.Schema]*plainHolder{}, aliases: resolve.NewAliases(writer, reader)}
}

func typeErr(where string, t reflect.Type, s avro.Schema) error {
	return &TypeError{Where: where, GoType: t, Schema: s, Kind: ErrType}
}

func unsupported(where string, t reflect.Type, s avro.Schema) error {
	return &TypeError{Where: where, GoType: t, Schema: s, Kind: ErrUnsupported}
}

// goErr reports whether err is about the Go type (never lazy) rather than
// about the writer and reader schemas.
func goErr(err error) bool {
	var te *TypeError
	return errors.As(err, &te)
}

// compile builds the plan that reads writer type w as reader type r into
// Go type t (nil: validate and drop). where is the Go location for errors,
// p the reader location.
func (c *compiler) compile(w, r avro.Schema, t reflect.Type, where string, p rpath) (decFn, error) {
	if wu, ok := w.(*avro.Union); ok {
		return c.writerUnion(wu, r, t, where, p)
	}
	if ru, ok := r.(*avro.Union); ok {
		j, err := c.readerBranch(w, ru, p)
		if err != nil {
			return nil, err
		}
		return c.compile(w, ru.Branches[j], t, where, p.with(strconv.Itoa(j)))
	}
	if r.Type() == avro.TypeNull {
		if w.Type() != avro.TypeNull {
			return nil, mismatch(w, r, p)
		}
		return zeroFn(t), nil
	}
	if t != nil {
		switch {
		case t.Kind() == reflect.Pointer && t != ratPtrType:
			elem, err := c.compile(w, r, t.Elem(), where, p)
			if err != nil {
				return nil, err
			}
			et := t.Elem()
			return func(d *decoder, p unsafe.Pointer) error {
				if p == nil {
					return elem(d, nil)
				}
				np := reflect.New(et).UnsafePointer()
				if err := elem(d, np); err != nil {
					return err
				}
				*(*unsafe.Pointer)(p) = np
				return nil
			}, nil
		case t.Kind() == reflect.Interface && t.NumMethod() == 0:
			if c.check {
				return zeroFn(nil), nil // holds anything
			}
			vf, err := c.plain(w, r, p)
			if err != nil {
				return nil, err
			}
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := vf(d)
				if err == nil && p != nil {
					*(*any)(p) = v
				}
				return err
			}, nil
		case t.Kind() == reflect.Interface, t.Kind() == reflect.Chan, t.Kind() == reflect.Func,
			t.Kind() == reflect.UnsafePointer, t.Kind() == reflect.Complex64, t.Kind() == reflect.Complex128:
			return nil, unsupported(where, t, r)
		}
	}
	switch rt := r.(type) {
	case *avro.Primitive:
		wp, ok := w.(*avro.Primitive)
		if !ok || (wp.Kind != rt.Kind && !promotable(wp.Kind, rt.Kind)) {
			return nil, mismatch(w, r, p)
		}
		return c.primitive(wp.Kind, rt, t, where)
	case *avro.Record:
		wr, ok := w.(*avro.Record)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		return c.record(wr, rt, t, where, p)
	case *avro.Enum:
		we, ok := w.(*avro.Enum)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		return c.enum(we, rt, t, where, p)
	case *avro.Fixed:
		wf, ok := w.(*avro.Fixed)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		if err := c.sameFixed(wf, rt, p); err != nil {
			return nil, err
		}
		return c.fixed(rt, t, where)
	case *avro.Array:
		wa, ok := w.(*avro.Array)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		return c.array(wa, rt, t, where, p)
	case *avro.Map:
		wm, ok := w.(*avro.Map)
		if !ok {
			return nil, mismatch(w, r, p)
		}
		return c.mapping(wm, rt, t, where, p)
	}
	return nil, mismatch(w, r, p)
}

// readerBranch is the branch of reader union ru that the writer's w (not a
// union) resolves to.
func (c *compiler) readerBranch(w avro.Schema, ru *avro.Union, p rpath) (int, error) {
	j := resolve.ReaderBranch(w, ru, c.aliases)
	if j < 0 {
		return 0, p.errorf(resolve.ErrMissingUnionBranch, "reader union lacking writer type: "+w.Type().Upper())
	}
	return j, nil
}

// sameName fails unless the writer's and the reader's named type have one
// name after the aliases.
func (c *compiler) sameName(w, r avro.NamedSchema, p rpath) error {
	if !c.aliases.SameName(w, r) {
		return p.with("name").errorf(resolve.ErrNameMismatch, "expected: "+w.FullName())
	}
	return nil
}

// sameFixed fails unless the writer's and the reader's fixed have one name
// and one size.
func (c *compiler) sameFixed(w, r *avro.Fixed, p rpath) error {
	if err := c.sameName(w, r, p); err != nil {
		return err
	}
	if w.Size != r.Size {
		return p.with("size").errorf(resolve.ErrFixedSize, fmt.Sprintf("expected: %d, found: %d", w.Size, r.Size))
	}
	return nil
}

// readEnum reads the index of a writer enum symbol of the n there are and
// fails for one out of range or for one the reader lacks (missing, from
// enumTable).
func readEnum(d *decoder, n int32, missing []error) (int32, error) {
	i, err := d.readInt()
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= n {
		return 0, errEnumIndex
	}
	if missing != nil && missing[i] != nil {
		return 0, missing[i]
	}
	return i, nil
}

func promotable(w, r avro.Type) bool {
	switch w {
	case avro.TypeInt:
		return r == avro.TypeLong || r == avro.TypeFloat || r == avro.TypeDouble
	case avro.TypeLong:
		return r == avro.TypeFloat || r == avro.TypeDouble
	case avro.TypeFloat:
		return r == avro.TypeDouble
	case avro.TypeString:
		return r == avro.TypeBytes
	case avro.TypeBytes:
		return r == avro.TypeString
	}
	return false
}

// zeroFn stores the zero value of t (a null datum reads nothing).
func zeroFn(t reflect.Type) decFn {
	if t == nil {
		return func(*decoder, unsafe.Pointer) error { return nil }
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Map:
		return func(_ *decoder, p unsafe.Pointer) error {
			if p != nil {
				*(*unsafe.Pointer)(p) = nil
			}
			return nil
		}
	case reflect.String:
		return func(_ *decoder, p unsafe.Pointer) error {
			if p != nil {
				*(*string)(p) = ""
			}
			return nil
		}
	}
	return func(_ *decoder, p unsafe.Pointer) error {
		if p != nil {
			reflect.NewAt(t, p).Elem().SetZero()
		}
		return nil
	}
}

// unionBranches resolves each branch of a writer union against the reader
// (a union, whose matching branch it takes, or one schema) with branch. A
// branch that does not resolve fails only the data that take it: its error,
// as an ErrUnionBranch, stands in errs. It fails when no branch resolves, or
// at once for an error fatal reports (nil: none is).
func unionBranches[F any](c *compiler, w *avro.Union, r avro.Schema, p rpath, fatal func(error) bool,
	branch func(wb, rb avro.Schema, p rpath) (F, error)) (fns []F, errs []error, err error) {
	ru, readerIsUnion := r.(*avro.Union)
	fns = make([]F, len(w.Branches))
	errs = make([]error, len(w.Branches))
	var choice []int
	if readerIsUnion {
		choice = resolve.UnionBranches(w, ru, c.aliases)
	}
	ok := 0
	var first error
	for i, wb := range w.Branches {
		var fn F
		var err error
		if readerIsUnion {
			if j := choice[i]; j < 0 {
				err = p.errorf(resolve.ErrUnionBranch, fmt.Sprintf("writer union branch %d (%s) not in reader union", i, avro.TypeName(wb)))
			} else {
				fn, err = branch(wb, ru.Branches[j], p.with(strconv.Itoa(j)))
			}
		} else {
			fn, err = branch(wb, r, p)
		}
		if err != nil {
			if fatal != nil && fatal(err) {
				return nil, nil, err
			}
			if first == nil {
				first = err
			}
			// Only the data that take this branch fail.
			var re *resolve.Error
			if errors.As(err, &re) && re.Kind != resolve.ErrUnionBranch {
				err = &resolve.Error{Path: re.Path, Field: re.Field, Kind: resolve.ErrUnionBranch,
					Msg: fmt.Sprintf("writer union branch %d (%s): %s", i, avro.TypeName(wb), re.Msg)}
			}
			errs[i] = err
		} else {
			ok++
		}
		fns[i] = fn
	}
	if ok == 0 && len(fns) > 0 {
		return nil, nil, first
	}
	return fns, errs, nil
}

func (c *compiler) writerUnion(w *avro.Union, r avro.Schema, t reflect.Type, where string, p rpath) (decFn, error) {
	fns, errs, err := unionBranches(c, w, r, p, goErr, func(wb, rb avro.Schema, p rpath) (decFn, error) {
		return c.compile(wb, rb, t, where, p)
	})
	if err != nil {
		return nil, err
	}
	n := int32(len(fns))
	return func(d *decoder, p unsafe.Pointer) error {
		i, err := d.readInt()
		if err != nil {
			return err
		}
		if i < 0 || i >= n {
			return errUnionIndex
		}
		if fns[i] == nil {
			return errs[i]
		}
		return fns[i](d, p)
	}, nil
}

func (c *compiler) primitive(w avro.Type, r *avro.Primitive, t reflect.Type, where string) (decFn, error) {
	if t == nil {
		return skipPrimitive(w), nil
	}
	lt := ""
	if r.Logical != nil {
		lt = r.Logical.Name
	}
	k := t.Kind()
	bad := func() (decFn, error) { return nil, typeErr(where, t, r) }
	switch r.Kind {
	case avro.TypeBoolean:
		if k != reflect.Bool {
			return bad()
		}
		return func(d *decoder, p unsafe.Pointer) error {
			v, err := d.readBoolean()
			*(*bool)(p) = v
			return err
		}, nil
	case avro.TypeInt:
		switch {
		case lt == "date" && t == timeType:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*time.Time)(p) = time.Unix(int64(v)*86400, 0).UTC()
				return err
			}, nil
		case lt == "time-millis" && t == durationType:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*time.Duration)(p) = time.Duration(v) * time.Millisecond
				return err
			}, nil
		case k == reflect.Int32:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*int32)(p) = v
				return err
			}, nil
		case k == reflect.Int64 || (k == reflect.Int && strconv.IntSize == 64):
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*int64)(p) = int64(v)
				return err
			}, nil
		case k == reflect.Float64:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*float64)(p) = float64(v)
				return err
			}, nil
		}
		return bad()
	case avro.TypeLong:
		wInt := w == avro.TypeInt
		read := func(d *decoder) (int64, error) {
			if wInt {
				v, err := d.readInt()
				return int64(v), err
			}
			return d.readLong()
		}
		switch {
		case (lt == "timestamp-millis" || lt == "timestamp-micros") && t == timeType:
			unit := int64(1e3)
			if lt == "timestamp-micros" {
				unit = 1e6
			}
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := read(d)
				s := v / unit
				*(*time.Time)(p) = time.Unix(s, (v-s*unit)*(1e9/unit)).UTC()
				return err
			}, nil
		case lt == "time-micros" && t == durationType:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := read(d)
				*(*time.Duration)(p) = time.Duration(v) * time.Microsecond
				return err
			}, nil
		case (k == reflect.Int64 || (k == reflect.Int && strconv.IntSize == 64)) && !wInt:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readLong()
				*(*int64)(p) = v
				return err
			}, nil
		case k == reflect.Int64 || (k == reflect.Int && strconv.IntSize == 64):
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*int64)(p) = int64(v)
				return err
			}, nil
		}
		return bad()
	case avro.TypeFloat:
		var read func(d *decoder) (float32, error)
		switch w {
		case avro.TypeInt:
			read = func(d *decoder) (float32, error) { v, err := d.readInt(); return float32(v), err }
		case avro.TypeLong:
			read = func(d *decoder) (float32, error) { v, err := d.readLong(); return float32(v), err }
		default:
			read = (*decoder).readFloat
		}
		switch k {
		case reflect.Float32:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := read(d)
				*(*float32)(p) = v
				return err
			}, nil
		case reflect.Float64:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := read(d)
				*(*float64)(p) = float64(v)
				return err
			}, nil
		}
		return bad()
	case avro.TypeDouble:
		if k != reflect.Float64 {
			return bad()
		}
		switch w {
		case avro.TypeInt:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readInt()
				*(*float64)(p) = float64(v)
				return err
			}, nil
		case avro.TypeLong:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readLong()
				*(*float64)(p) = float64(v)
				return err
			}, nil
		case avro.TypeFloat:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readFloat()
				*(*float64)(p) = float64(v)
				return err
			}, nil
		}
		return func(d *decoder, p unsafe.Pointer) error {
			v, err := d.readDouble()
			*(*float64)(p) = v
			return err
		}, nil
	case avro.TypeString, avro.TypeBytes:
		if r.Kind == avro.TypeBytes && lt == "decimal" {
			return decimalFn(r, r.Logical.Scale, -1, t, where)
		}
		switch {
		case k == reflect.String:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readString()
				*(*string)(p) = v
				return err
			}, nil
		case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := d.readBytes()
				*(*[]byte)(p) = v
				return err
			}, nil
		}
		return bad()
	}
	return bad()
}

func skipPrimitive(w avro.Type) decFn {
	switch w {
	case avro.TypeBoolean:
		return func(d *decoder, _ unsafe.Pointer) error { return d.skip(1) }
	case avro.TypeInt:
		return func(d *decoder, _ unsafe.Pointer) error { _, err := d.readInt(); return err }
	case avro.TypeLong:
		return func(d *decoder, _ unsafe.Pointer) error { _, err := d.readLong(); return err }
	case avro.TypeFloat:
		return func(d *decoder, _ unsafe.Pointer) error { return d.skip(4) }
	case avro.TypeDouble:
		return func(d *decoder, _ unsafe.Pointer) error { return d.skip(8) }
	case avro.TypeString, avro.TypeBytes:
		return func(d *decoder, _ unsafe.Pointer) error { return d.skipLen() }
	}
	return func(*decoder, unsafe.Pointer) error { return nil }
}

// decimalFn reads a decimal's unscaled two's-complement bytes (bytes when
// size < 0, else fixed of size) into *big.Rat, big.Rat, float64 or string
// (the Rat's RatString), as goavro's *big.Rat is stored today.
func decimalFn(s avro.Schema, scale, size int, t reflect.Type, where string) (decFn, error) {
	read := func(d *decoder) ([]byte, error) {
		if size >= 0 {
			return d.view(size)
		}
		start, n, err := d.readLen()
		if err != nil {
			return nil, err
		}
		return d.b[start : start+n], nil
	}
	rat := ratOf(scale)
	var store func(p unsafe.Pointer, r *big.Rat)
	switch {
	case t == ratPtrType:
		store = func(p unsafe.Pointer, r *big.Rat) { *(**big.Rat)(p) = r }
	case t == ratType:
		store = func(p unsafe.Pointer, r *big.Rat) { (*big.Rat)(p).Set(r) }
	case t.Kind() == reflect.Float64:
		store = func(p unsafe.Pointer, r *big.Rat) { *(*float64)(p), _ = r.Float64() }
	case t.Kind() == reflect.String:
		store = func(p unsafe.Pointer, r *big.Rat) { *(*string)(p) = r.RatString() }
	default:
		return nil, typeErr(where, t, s)
	}
	return func(d *decoder, p unsafe.Pointer) error {
		b, err := read(d)
		if err != nil {
			return err
		}
		store(p, rat(b))
		return nil
	}, nil
}

func (c *compiler) fixed(r *avro.Fixed, t reflect.Type, where string) (decFn, error) {
	size := r.Size
	if t == nil {
		return func(d *decoder, _ unsafe.Pointer) error { return d.skip(size) }, nil
	}
	if r.Logical != nil && r.Logical.Name == "decimal" {
		return decimalFn(r, r.Logical.Scale, size, t, where)
	}
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return func(d *decoder, p unsafe.Pointer) error {
			v, err := d.view(size)
			if err != nil {
				return err
			}
			*(*[]byte)(p) = append([]byte(nil), v...)
			return nil
		}, nil
	case t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8 && t.Len() == size:
		return func(d *decoder, p unsafe.Pointer) error {
			v, err := d.view(size)
			if err != nil {
				return err
			}
			copy(unsafe.Slice((*byte)(p), size), v)
			return nil
		}, nil
	case t.Kind() == reflect.String:
		return func(d *decoder, p unsafe.Pointer) error {
			v, err := d.view(size)
			if err != nil {
				return err
			}
			*(*string)(p) = string(v)
			return nil
		}, nil
	}
	return nil, typeErr(where, t, r)
}

func (c *compiler) enum(w, r *avro.Enum, t reflect.Type, where string, p rpath) (decFn, error) {
	if err := c.sameName(w, r, p); err != nil {
		return nil, err
	}
	if t != nil && t.Kind() != reflect.String {
		return nil, typeErr(where, t, r)
	}
	to, missing := enumTable(w, r)
	n := int32(len(to))
	return func(d *decoder, p unsafe.Pointer) error {
		i, err := readEnum(d, n, missing)
		if err != nil {
			return err
		}
		if p != nil {
			*(*string)(p) = to[i]
		}
		return nil
	}, nil
}

// enumTable maps writer symbol i to its reader symbol to[i]; missing[i]
// (missing is nil when none) is the error of a writer symbol that the
// reader lacks and has no default for.
func enumTable(w, r *avro.Enum) (to []string, missing []error) {
	to = make([]string, len(w.Symbols))
	for i, sym := range w.Symbols {
		switch {
		case r.HasSymbol(sym):
			to[i] = sym
		case r.HasDefault && r.HasSymbol(r.Default):
			to[i] = r.Default
		default:
			if missing == nil {
				missing = make([]error, len(w.Symbols))
			}
			missing[i] = &kindError{resolve.ErrEnumSymbol, fmt.Sprintf("enum symbol %q not in reader and no default", sym)}
		}
	}
	return to, missing
}

// lazy is the plan of a container whose items do not resolve: only a
// non-empty one fails, as in Java.
func lazy(err error) decFn {
	return func(d *decoder, _ unsafe.Pointer) error {
		n, err2 := d.readBlock(0)
		if err2 != nil {
			return err2
		}
		if n != 0 {
			return err
		}
		return nil
	}
}

// items compiles the items (or values) of an array (or map) for the Go type
// et. When they do not resolve, item is nil and done is the container's
// plan (lazy), or err the Go type's mismatch.
func (c *compiler) items(w, r avro.Schema, et reflect.Type, where string, p rpath) (item, done decFn, err error) {
	item, err = c.compile(w, r, et, where+"[]", p)
	if err != nil {
		if goErr(err) {
			return nil, nil, err
		}
		return nil, lazy(err), nil
	}
	return item, nil, nil
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

var zeroBase [0]uint64

func (c *compiler) array(w, r *avro.Array, t reflect.Type, where string, p rpath) (decFn, error) {
	var et reflect.Type
	if t != nil {
		if t.Kind() != reflect.Slice {
			return nil, typeErr(where, t, r)
		}
		et = t.Elem()
	}
	item, lz, err := c.items(w.Items, r.Items, et, where, p.with("items"))
	if lz != nil || err != nil {
		return lz, err
	}
	if t == nil {
		return func(d *decoder, _ unsafe.Pointer) error {
			return d.blocks(func(total, n int) error {
				for i := 0; i < n; i++ {
					if err := item(d, nil); err != nil {
						return atIndex(err, total+i)
					}
				}
				return nil
			})
		}, nil
	}
	size := et.Size()
	return func(d *decoder, p unsafe.Pointer) error {
		h := (*sliceHeader)(p)
		*h = sliceHeader{data: unsafe.Pointer(&zeroBase)}
		return d.blocks(func(total, n int) error {
			// Items take at least one byte unless they are empty; do
			// not let a claimed count allocate more than the input holds.
			if size > 0 && n > len(d.b)-d.i && n > 1024 {
				return errEOF
			}
			sv := reflect.NewAt(t, p).Elem()
			sv.Grow(n)
			sv.SetLen(total + n)
			base := h.data
			for i := 0; i < n; i++ {
				if err := item(d, unsafe.Add(base, uintptr(total+i)*size)); err != nil {
					return atIndex(err, total+i)
				}
			}
			return nil
		})
	}, nil
}

func (c *compiler) mapping(w, r *avro.Map, t reflect.Type, where string, p rpath) (decFn, error) {
	var et reflect.Type
	if t != nil {
		if t.Kind() != reflect.Map || t.Key().Kind() != reflect.String {
			return nil, typeErr(where, t, r)
		}
		et = t.Elem()
	}
	val, lz, err := c.items(w.Values, r.Values, et, where, p.with("values"))
	if lz != nil || err != nil {
		return lz, err
	}
	if t == nil {
		return func(d *decoder, _ unsafe.Pointer) error {
			return d.blocks(func(_, n int) error {
				for i := 0; i < n; i++ {
					k, err := d.readString()
					if err != nil {
						return err
					}
					if err := val(d, nil); err != nil {
						return at(err, k)
					}
				}
				return nil
			})
		}, nil
	}
	return func(d *decoder, p unsafe.Pointer) error {
		mv := reflect.MakeMap(t)
		reflect.NewAt(t, p).Elem().Set(mv)
		var kv, tmp reflect.Value
		return d.blocks(func(_, n int) error {
			if !kv.IsValid() {
				kv = reflect.New(t.Key()).Elem()
				tmp = reflect.New(et).Elem()
			}
			for i := 0; i < n; i++ {
				k, err := d.readString()
				if err != nil {
					return err
				}
				tmp.SetZero()
				if err := val(d, tmp.Addr().UnsafePointer()); err != nil {
					return at(err, k)
				}
				kv.SetString(k)
				mv.SetMapIndex(kv, tmp)
			}
			return nil
		})
	}, nil
}

// step reads one writer field.
type step struct {
	off   uintptr
	store bool // false: decode and drop
	fn    decFn
	name  string // reader (or writer) field name, for errors
}

// defStep sets a reader field the writer lacks from its encoded default.
type defStep struct {
	off  uintptr
	fn   decFn
	data []byte
	str  string // data as a string, for strings cut from it
	name string
}

// goFields maps the reader fields to the struct fields of t: by `avro`
// tag, else the Go name, exactly and then case-insensitively. The fields of
// an embedded struct without an `avro` tag are promoted, as encoding/json
// promotes them (the outer field wins a name both have); an embedded
// pointer is a field like any other.
func (c *compiler) goFields(r *avro.Record, t reflect.Type, where string) map[*avro.Field]reflect.StructField {
	out := map[*avro.Field]reflect.StructField{}
	c.collectFields(r, t, 0, where, "", out)
	return out
}

// prefix is the path of embedded structs to t ("Base."), base their offset.
func (c *compiler) collectFields(r *avro.Record, t reflect.Type, base uintptr, where, prefix string, out map[*avro.Field]reflect.StructField) {
	var embedded []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		_, tagged := sf.Tag.Lookup("avro")
		if sf.Anonymous && !tagged && sf.Type.Kind() == reflect.Struct {
			embedded = append(embedded, sf)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		name, ok := avrofield.Name(sf)
		if !ok {
			continue
		}
		f := avrofield.Lookup(r, name)
		if f == nil {
			if c.strict {
				c.unmapped = append(c.unmapped, &UnmappedError{Field: where + "." + prefix + sf.Name, Name: name, Record: r.FullName()})
			}
			continue
		}
		if _, dup := out[f]; !dup {
			sf.Offset += base
			sf.Name = prefix + sf.Name
			out[f] = sf
		}
	}
	for _, sf := range embedded {
		c.collectFields(r, sf.Type, base+sf.Offset, where, prefix+sf.Name+".", out)
	}
}

// readerField is the field of reader record r that writer field wf (of a
// record named wname after the aliases) fills, nil for none, as resolve
// (and Java, after Schema.applyAliases) match them: a reader field alias
// renames the writer field and wins over a reader field of that name.
// source records the match; a reader field that two writer fields fill is
// ambiguous.
func (c *compiler) readerField(wname string, wf *avro.Field, r *avro.Record, source map[*avro.Field]*avro.Field, p rpath) (*avro.Field, error) {
	rf := r.Field(c.aliases.FieldName(wname, wf.Name))
	if rf == nil {
		return nil, nil
	}
	if prev, dup := source[rf]; dup {
		return nil, p.withField(rf.Index, rf.Name).errorf(resolve.ErrAmbiguousField,
			fmt.Sprintf("reader field matches writer fields %q and %q", prev.Name, wf.Name))
	}
	source[rf] = wf
	return rf, nil
}

// fieldDefault is the default of reader field rf, which no writer field
// fills, in Avro binary (encodeDefault).
func fieldDefault(rf *avro.Field, p rpath) ([]byte, error) {
	fp := p.withField(rf.Index, rf.Name)
	if !rf.HasDefault {
		return nil, fp.errorf(resolve.ErrMissingDefault, "field missing in writer and no default")
	}
	data, err := encodeDefault(nil, rf.Type, rf.Default, fp.with("type"))
	if err != nil {
		return nil, err
	}
	return data, nil
}

func (c *compiler) record(w, r *avro.Record, t reflect.Type, where string, p rpath) (decFn, error) {
	key := memoKey{w, r, t}
	if h, ok := c.memo[key]; ok {
		if h.done {
			return h.fn, h.err
		}
		return func(d *decoder, p unsafe.Pointer) error { return h.fn(d, p) }, nil
	}
	h := &holder{}
	c.memo[key] = h
	fn, err := c.recordPlan(w, r, t, where, p)
	h.fn, h.err, h.done = fn, err, true
	return fn, err
}

func (c *compiler) recordPlan(w, r *avro.Record, t reflect.Type, where string, p rpath) (decFn, error) {
	var gf map[*avro.Field]reflect.StructField
	if t != nil {
		if t == anyMapType {
			if c.check {
				return zeroFn(nil), nil
			}
			vf, err := c.plainRecord(w, r, p)
			if err != nil {
				return nil, err
			}
			return func(d *decoder, p unsafe.Pointer) error {
				v, err := vf(d)
				if err == nil && p != nil {
					*(*map[string]any)(p) = v.(map[string]any)
				}
				return err
			}, nil
		}
		if t.Kind() == reflect.Map {
			return nil, unsupported(where, t, r) // a record as another map type
		}
		if t.Kind() != reflect.Struct {
			return nil, typeErr(where, t, r)
		}
		gf = c.goFields(r, t, where)
	}
	// Writer field -> reader field (readerField).
	wname := c.aliases.Name(w.FullName())
	source := map[*avro.Field]*avro.Field{}
	steps := make([]step, 0, len(w.Fields))
	for _, wf := range w.Fields {
		rf, err := c.readerField(wname, wf, r, source, p)
		if err != nil {
			return nil, err
		}
		if rf == nil {
			skip, err := c.compile(wf.Type, wf.Type, nil, where, p)
			if err != nil {
				return nil, err
			}
			steps = append(steps, step{fn: skip, name: wf.Name})
			continue
		}
		sf, has := gf[rf]
		var ft reflect.Type
		if has {
			ft = sf.Type
		}
		fn, err := c.compile(wf.Type, rf.Type, ft, where+"."+sf.Name, p.withField(rf.Index, rf.Name).with("type"))
		if err != nil {
			return nil, err
		}
		steps = append(steps, step{off: sf.Offset, store: has, fn: fn, name: rf.Name})
	}
	var defs []defStep
	for _, rf := range r.Fields {
		if source[rf] != nil {
			continue
		}
		data, err := fieldDefault(rf, p)
		if err != nil {
			return nil, err
		}
		sf, has := gf[rf]
		if !has {
			continue
		}
		fn, err := c.compile(rf.Type, rf.Type, sf.Type, where+"."+sf.Name, p.withField(rf.Index, rf.Name).with("type"))
		if err != nil {
			return nil, err
		}
		defs = append(defs, defStep{off: sf.Offset, fn: fn, data: data, str: string(data), name: rf.Name})
	}
	return func(d *decoder, p unsafe.Pointer) error {
		for i := range steps {
			s := &steps[i]
			var q unsafe.Pointer
			if s.store && p != nil {
				q = unsafe.Add(p, s.off)
			}
			if err := s.fn(d, q); err != nil {
				return at(err, s.name)
			}
		}
		if p == nil {
			return nil
		}
		if len(defs) == 0 {
			return nil
		}
		// Defaults are decoded from their encoded bytes with the same
		// decoder, its input swapped for the default's.
		saved := *d
		for i := range defs {
			df := &defs[i]
			*d = decoder{b: df.data, s: df.str, shared: true}
			if err := df.fn(d, unsafe.Add(p, df.off)); err != nil {
				*d = saved
				return at(err, df.name)
			}
		}
		*d = saved
		return nil
	}, nil
}
