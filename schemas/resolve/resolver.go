package resolve

import (
	"fmt"
	"sync"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// Resolver reads data written with one writer schema as values of one
// reader schema. Build it with Compile (or get it from a Cache); it is
// immutable and safe for concurrent use.
type Resolver struct {
	writer, reader avro.Schema
	codec          *goavro.Codec
	normalizer     *avro.Normalizer // Java's varint rules, before goavro
	native         conv             // writer base values -> reader goavro native values

	writerKeys map[avro.NamedSchema]string
	jsonOnce   sync.Once
	raw        conv // writer base values -> reader base values
	enc        encFn
	jsonErr    error
}

// Compile builds the resolver for data written with writer and read as
// reader. It walks both schemas once; decoding then only runs the compiled
// plan. The error is an *Error that unwraps to ErrIncompatible (and its
// kind: ErrTypeMismatch, ErrNameMismatch, ErrFixedSize, ErrMissingDefault,
// ErrAmbiguousField, ErrMissingUnionBranch, ErrInvalidDefault) when no datum
// of writer can be read as reader, or an error that unwraps to
// ErrUnsupported when goavro cannot decode the writer schema.
//
// A problem that only some data hit is not a Compile error but a Decode
// error, as in Java's decoder: an enum symbol the reader lacks (with no
// reader enum default), a writer union branch the reader cannot read, an
// array element type that does not resolve (an empty array is fine).
func Compile(writer, reader avro.Schema) (*Resolver, error) {
	js, keys, err := goavroSchema(writer)
	if err != nil {
		return nil, err
	}
	codec, err := goavro.NewCodec(js)
	if err != nil {
		return nil, fmt.Errorf("%w: goavro cannot build a codec for the writer schema: %v", ErrUnsupported, err)
	}
	c := newCompiler(true, keys, writer, reader)
	if err := c.aliases.Check(writer); err != nil {
		return nil, err
	}
	n := c.compile(writer, reader, path{})
	if n.err != nil {
		return nil, n.err
	}
	return &Resolver{writer: writer, reader: reader, codec: codec, normalizer: avro.NewNormalizer(writer), native: n.call(), writerKeys: keys}, nil
}

// Writer returns the writer schema.
func (r *Resolver) Writer() avro.Schema { return r.writer }

// Reader returns the reader schema.
func (r *Resolver) Reader() avro.Schema { return r.reader }

func (r *Resolver) decodeWriter(b []byte) (any, error) {
	// goavro reads over-long varints and keeps bits Java drops: reject and
	// canonicalize as Java reads them first.
	b, err := r.normalizer.Normalize(b)
	if err != nil {
		return nil, &Error{Path: "/", Kind: ErrDecode, Msg: "cannot decode writer datum", Err: err}
	}
	v, rest, err := r.codec.NativeFromBinary(b)
	if err != nil {
		return nil, &Error{Path: "/", Kind: ErrDecode, Msg: "cannot decode writer datum", Err: err}
	}
	if len(rest) != 0 {
		return nil, &Error{Path: "/", Kind: ErrDecode, Msg: fmt.Sprintf("%d trailing bytes after the writer datum", len(rest))}
	}
	return v, nil
}

// Decode reads one Avro binary datum written with the writer schema (raw
// binary: no Confluent framing, no single-object header) and returns it as
// the reader schema's goavro native value: exactly what
// goavro.NewCodec(readerJSON).NativeFromBinary would return for the same
// datum written with the reader schema (records as map[string]any, unions
// as nil or a one-key map keyed as goavro keys them, logical types of the
// reader as time.Time, time.Duration and *big.Rat). The value is fresh:
// the caller may modify it. Errors are *Error values that unwrap to
// ErrDecode (bad or trailing bytes), ErrEnumSymbol or ErrUnionBranch, or,
// for a non-empty array or map whose element type does not resolve, to the
// schema-level kind (ErrTypeMismatch, …, and ErrIncompatible).
func (r *Resolver) Decode(b []byte) (any, error) {
	v, err := r.decodeWriter(b)
	if err != nil {
		return nil, err
	}
	if r.native == nil {
		return v, nil
	}
	return r.native(v)
}

func (r *Resolver) prepareJSON() error {
	r.jsonOnce.Do(func() {
		n := newCompiler(false, r.writerKeys, r.writer, r.reader).compile(r.writer, r.reader, path{})
		if n.err != nil {
			r.jsonErr = n.err
			return
		}
		r.raw = n.call()
		r.enc = newJSONEncoder(r.reader)
	})
	return r.jsonErr
}

// DecodeJSON is Decode followed by Avro's JSON encoding of the reader
// datum, on one line with no trailing newline: unions as null or
// {"<branch>": value} (full names for named types, base type names for
// logical types), bytes and fixed as strings of the code points 0-255
// (ISO-8859-1), logical types as their base values, map keys sorted.
func (r *Resolver) DecodeJSON(b []byte) ([]byte, error) {
	return r.AppendJSON(nil, b)
}

// AppendJSON is DecodeJSON appending to buf.
func (r *Resolver) AppendJSON(buf, b []byte) ([]byte, error) {
	if err := r.prepareJSON(); err != nil {
		return nil, err
	}
	v, err := r.decodeWriter(b)
	if err != nil {
		return nil, err
	}
	if r.raw != nil {
		if v, err = r.raw(v); err != nil {
			return nil, err
		}
	}
	return r.enc(buf, v)
}
