package avrobind

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// Plan decodes Avro binary written with one writer schema, resolved to one
// reader schema, straight into one Go type. Build it with Compile (or get
// it from a Cache); it is immutable and safe for concurrent use.
type Plan struct {
	writer, reader avro.Schema
	typ, ptr       reflect.Type
	fn             decFn
}

// Compile builds the plan for data written with writer, read as reader,
// into values of t (Decode then takes a *t). Resolution follows package
// resolve (and so Avro Java): Compile fails with the same *resolve.Error
// kinds as resolve.Compile (ErrTypeMismatch, ErrMissingDefault, …, all
// unwrapping to resolve.ErrIncompatible) when no datum of writer can be
// read as reader, and with a *TypeError (ErrType, ErrUnsupported) when t
// cannot hold a reader type that a datum can reach.
//
// Struct fields that match no reader field are left alone (Check reports
// them); reader fields without a struct field are decoded, validated and
// dropped.
func Compile(writer, reader avro.Schema, t reflect.Type) (*Plan, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil type", ErrUnsupported)
	}
	c := newCompiler(writer, reader)
	if err := c.aliases.Check(writer); err != nil {
		return nil, err
	}
	fn, err := c.compile(writer, reader, t, typeName(t), rpath{})
	if err != nil {
		return nil, err
	}
	return &Plan{writer: writer, reader: reader, typ: t, ptr: reflect.PointerTo(t), fn: fn}, nil
}

// Check reports whether t can hold every datum of reader: the type errors
// Compile(reader, reader, t) would give, and, unless allowUnmapped, every
// exported struct field (by `avro` tag, else name) that matches no field of
// its reader record, as *UnmappedError values (ErrUnmappedField), joined.
// A field tagged `avro:"-"` is never reported. An interface (any) or a
// map[string]any for a record holds anything (plain values), so only the
// rest of t is checked.
func Check(reader avro.Schema, t reflect.Type, allowUnmapped bool) error {
	if t == nil {
		return fmt.Errorf("%w: nil type", ErrUnsupported)
	}
	c := newCompiler(reader, reader)
	c.strict, c.check = !allowUnmapped, true
	if _, err := c.compile(reader, reader, t, typeName(t), rpath{}); err != nil {
		return err
	}
	return errors.Join(c.unmapped...)
}

// Writer returns the writer schema.
func (p *Plan) Writer() avro.Schema { return p.writer }

// Reader returns the reader schema.
func (p *Plan) Reader() avro.Schema { return p.reader }

// Type returns the Go type the plan decodes into.
func (p *Plan) Type() reflect.Type { return p.typ }

// Decode reads one datum (raw Avro binary: no Confluent header) into dst,
// which must be a non-nil pointer to the plan's type. Every struct field
// the plan maps is set; slices, maps, pointers and []byte are freshly
// allocated, never shared with earlier contents of dst or with data.
// Strings of an input up to 4 KiB share one copy of it.
//
// Errors are *Error values naming the place in the datum and unwrapping to
// resolve.ErrDecode (truncated or invalid data, over-long varints as Java
// rejects them, trailing bytes), resolve.ErrEnumSymbol or
// resolve.ErrUnionBranch. On error dst may be partly written.
func (p *Plan) Decode(data []byte, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Type() != p.ptr || v.IsNil() {
		return fmt.Errorf("avrobind: decode into %T, want a non-nil %s", dst, p.ptr)
	}
	d := decoders.Get().(*decoder)
	*d = decoder{b: data, shared: len(data) <= sharedMax}
	err := p.fn(d, v.UnsafePointer())
	rest := len(data) - d.i
	*d = decoder{}
	decoders.Put(d)
	if err != nil {
		return rootErr(err)
	}
	if rest != 0 {
		return &Error{Err: decodeErr(fmt.Sprintf("%d trailing bytes after the datum", rest))}
	}
	return nil
}

// decoders are reused: a decoder passed to the plan's closures would
// otherwise be one allocation per datum.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// Cache holds compiled plans keyed by (writer schema id, reader schema,
// Go type). The reader is compared by identity (the same parsed
// avro.Schema value), so parse a reader schema once and reuse it.
//
// The zero Cache is ready to use and safe for concurrent use. A key is
// compiled once even when several goroutines ask at the same time; Compile
// errors are cached too, errors of the writer loader are not.
type Cache struct {
	entries sync.Map // cacheKey -> *cacheEntry
}

// cacheKey holds the identities (data pointers) of the reader and the
// type: hashing it is hashing 24 bytes, where interface keys cost a
// dynamic hash per field on every lookup.
type cacheKey struct {
	writerID int
	reader   unsafe.Pointer
	typ      unsafe.Pointer
}

// identity is the data pointer of an interface value.
func identity(v any) unsafe.Pointer {
	if v == nil {
		return nil
	}
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1]
}

type cacheEntry struct {
	once sync.Once
	p    *Plan
	err  error
}

// Plan returns the plan for data written with the writer schema whose id
// is writerID, read as reader (nil: the writer schema itself) into t. On a
// miss it calls loadWriter and Compile.
func (c *Cache) Plan(writerID int, reader avro.Schema, t reflect.Type, loadWriter func(id int) (avro.Schema, error)) (*Plan, error) {
	key := cacheKey{writerID, identity(reader), identity(t)}
	e, ok := c.entries.Load(key)
	if !ok {
		e, _ = c.entries.LoadOrStore(key, &cacheEntry{})
	}
	ce := e.(*cacheEntry)
	ce.once.Do(func() {
		w, err := loadWriter(writerID)
		if err != nil {
			ce.err = err
			c.entries.CompareAndDelete(key, ce)
			return
		}
		r := reader
		if r == nil {
			r = w
		}
		ce.p, ce.err = Compile(w, r, t)
	})
	return ce.p, ce.err
}

// Len returns the number of cached plans.
func (c *Cache) Len() int {
	n := 0
	c.entries.Range(func(any, any) bool { n++; return true })
	return n
}

// typeName is t's short name for locations ("OrderCreated"), or its
// spelling for unnamed types.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}
