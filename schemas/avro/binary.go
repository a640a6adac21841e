package avro

import (
	"errors"
	"fmt"
	"io"
)

// Errors of the binary varint readers. They match Avro Java's
// InvalidNumberEncodingException messages.
var (
	// ErrInvalidInt: an int varint longer than 5 bytes.
	ErrInvalidInt = errors.New("invalid int encoding")
	// ErrInvalidLong: a long varint longer than 10 bytes.
	ErrInvalidLong = errors.New("invalid long encoding")
)

// ReadInt reads a zig-zag varint int from the start of b as Avro Java
// 1.12's BinaryDecoder.readInt does, and returns the value and the number of
// bytes read. At most 5 bytes are read: a 5th byte with its continuation
// bit set is ErrInvalidInt. Bits of the 5th byte beyond the 32 of an int are
// dropped, as Java drops them (ff ff ff ff 7f reads as -2147483648). A
// varint cut short is io.ErrUnexpectedEOF.
func ReadInt(b []byte) (v int32, n int, err error) {
	var u uint32
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		c := b[i]
		u |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int32(u>>1) ^ -int32(u&1), i + 1, nil
		}
	}
	return 0, 0, ErrInvalidInt
}

// ReadLong reads a zig-zag varint long from the start of b as Avro Java
// 1.12's BinaryDecoder.readLong does, and returns the value and the number
// of bytes read. At most 10 bytes are read: a 10th byte with its
// continuation bit set is ErrInvalidLong. Bits of the 10th byte beyond the
// 64 of a long are dropped, as Java drops them. A varint cut short is
// io.ErrUnexpectedEOF.
func ReadLong(b []byte) (v int64, n int, err error) {
	var u uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		c := b[i]
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	return 0, 0, ErrInvalidLong
}

// AppendInt appends the shortest zig-zag varint encoding of v.
func AppendInt(b []byte, v int32) []byte { return AppendLong(b, int64(v)) }

// AppendLong appends the shortest zig-zag varint encoding of v.
func AppendLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// minimal reports whether the n-byte varint enc (as ReadInt or ReadLong
// read it, maxLen 5 or 10 bytes) is the shortest encoding of its value and
// holds no bits Java drops: no trailing 0x00 continuation, and in a varint
// of maximal length no bits beyond 32 (int) or 64 (long).
func minimal(enc []byte, n, maxLen int) bool {
	if n == 1 {
		return true
	}
	last := enc[n-1]
	if last == 0 {
		return false
	}
	if n == maxLen {
		if maxLen == 5 {
			return last <= 0x0f
		}
		return last <= 0x01
	}
	return true
}

// BinaryError is an invalid varint found by NormalizeBinary: Offset is the
// byte offset of the varint in the datum. It unwraps to ErrInvalidInt or
// ErrInvalidLong.
type BinaryError struct {
	Offset int
	Err    error
}

func (e *BinaryError) Error() string { return fmt.Sprintf("%v at byte %d", e.Err, e.Offset) }

// Unwrap returns ErrInvalidInt or ErrInvalidLong.
func (e *BinaryError) Unwrap() error { return e.Err }

// errStop ends a NormalizeBinary walk at a structural problem other than
// an invalid varint (truncation, a negative length, a union index out of
// range): the decoder that runs next reports it.
var errStop = errors.New("stop")

// NormalizeBinary walks one Avro binary datum written with schema s and
// reads every varint (int, long, lengths, block counts and sizes, union and
// enum indexes) and boolean as Avro Java 1.12's decoder reads them. It
// rejects what Java rejects: an int varint of more than 5 bytes or a long
// varint of more than 10 bytes is a *BinaryError (unwrapping to
// ErrInvalidInt or ErrInvalidLong).
//
// It returns the datum in canonical form, so that a lenient decoder (such
// as goavro, which reads longer varints and keeps high bits Java drops)
// reads exactly Java's values: every varint in its shortest encoding with
// Java's value, every boolean byte other than 1 as 0 (false, as Java reads
// it), sized array and map blocks with their byte size recomputed. A datum
// already canonical is returned as is, without copying.
//
// Other problems (truncated data, a negative length, a union index out of
// range) are not reported: the datum is then returned unchanged, for the
// decoder to report them. Trailing bytes after the datum are kept.
func NormalizeBinary(s Schema, datum []byte) ([]byte, error) {
	return NewNormalizer(s).Normalize(datum)
}

// Normalizer is NormalizeBinary compiled for one schema: build it once with
// NewNormalizer and call Normalize for each datum. It is immutable and safe
// for concurrent use; Normalize of a canonical datum does not allocate.
type Normalizer struct {
	root *step
}

// NewNormalizer compiles the walk of schema s.
func NewNormalizer(s Schema) *Normalizer {
	return &Normalizer{root: compileStep(s, map[*Record]*step{})}
}

// Normalize is NormalizeBinary of the Normalizer's schema.
func (n *Normalizer) Normalize(datum []byte) ([]byte, error) {
	w := binWalker{src: datum}
	err := w.walk(n.root)
	switch {
	case errors.Is(err, errStop):
		// A problem the walk does not judge: the decoder reports it.
		return datum, nil
	case err != nil:
		return nil, err
	case !w.rewrite:
		return datum, nil
	}
	// Second pass: write the canonical form.
	w2 := binWalker{src: datum, emit: true, out: make([]byte, 0, len(datum))}
	if err := w2.walk(n.root); err != nil {
		return nil, err // not reached: the first pass walked it all
	}
	return append(w2.out, datum[w2.pos:]...), nil
}

// binWalker reads src; with emit it writes the canonical form to out.
// Without emit it only notes whether a rewrite is needed.
type binWalker struct {
	src     []byte
	pos     int
	emit    bool
	out     []byte
	rewrite bool
}

func (w *binWalker) int() (int32, error) {
	if w.pos < len(w.src) && w.src[w.pos] < 0x80 && !w.emit {
		c := int32(w.src[w.pos])
		w.pos++
		return c>>1 ^ -(c & 1), nil
	}
	v, n, err := ReadInt(w.src[w.pos:])
	if errors.Is(err, ErrInvalidInt) {
		return 0, &BinaryError{Offset: w.pos, Err: err}
	}
	if err != nil {
		return 0, errStop
	}
	if !minimal(w.src[w.pos:], n, 5) {
		w.rewrite = true
	}
	w.pos += n
	if w.emit {
		w.out = AppendInt(w.out, v)
	}
	return v, nil
}

func (w *binWalker) long() (int64, error) {
	if w.pos < len(w.src) && w.src[w.pos] < 0x80 && !w.emit {
		c := int64(w.src[w.pos])
		w.pos++
		return c>>1 ^ -(c & 1), nil
	}
	v, n, err := ReadLong(w.src[w.pos:])
	if errors.Is(err, ErrInvalidLong) {
		return 0, &BinaryError{Offset: w.pos, Err: err}
	}
	if err != nil {
		return 0, errStop
	}
	if !minimal(w.src[w.pos:], n, 10) {
		w.rewrite = true
	}
	w.pos += n
	if w.emit {
		w.out = AppendLong(w.out, v)
	}
	return v, nil
}

// copy copies n raw bytes.
func (w *binWalker) copy(n int64) error {
	if n < 0 || n > int64(len(w.src)-w.pos) {
		return errStop
	}
	if w.emit {
		w.out = append(w.out, w.src[w.pos:w.pos+int(n)]...)
	}
	w.pos += int(n)
	return nil
}

func (w *binWalker) boolean() error {
	if w.pos >= len(w.src) {
		return errStop
	}
	c := w.src[w.pos]
	if c > 1 {
		w.rewrite = true
		c = 0 // Java: readBoolean is (b == 1)
	}
	if w.emit {
		w.out = append(w.out, c)
	}
	w.pos++
	return nil
}

// bytes walks bytes or a string: a long length and that many bytes.
func (w *binWalker) bytes() error {
	n, err := w.long()
	if err != nil {
		return err
	}
	return w.copy(n)
}

// step is one node of a compiled walk.
type step struct {
	kind stepKind
	// size of a fixed.
	size int64
	// sub is an array's items or a map's values.
	sub *step
	// list is a record's fields or a union's branches.
	list []*step
	// empty: an array's items can have an empty encoding.
	empty bool
}

type stepKind uint8

const (
	stepStop stepKind = iota // a schema the walk does not know
	stepNull
	stepBoolean
	stepInt // int and enum
	stepLong
	stepFixed // fixed, float, double: size bytes
	stepBytes // bytes and string
	stepUnion
	stepRecord
	stepArray
	stepMap
)

// compileStep compiles the walk of one value of s. recs holds the records
// already compiled: a recursive reference is the same *step.
func compileStep(s Schema, recs map[*Record]*step) *step {
	switch s := s.(type) {
	case *Primitive:
		switch s.Kind {
		case TypeNull:
			return &step{kind: stepNull}
		case TypeBoolean:
			return &step{kind: stepBoolean}
		case TypeInt:
			return &step{kind: stepInt}
		case TypeLong:
			return &step{kind: stepLong}
		case TypeFloat:
			return &step{kind: stepFixed, size: 4}
		case TypeDouble:
			return &step{kind: stepFixed, size: 8}
		case TypeBytes, TypeString:
			return &step{kind: stepBytes}
		}
	case *Fixed:
		return &step{kind: stepFixed, size: int64(s.Size)}
	case *Enum:
		return &step{kind: stepInt}
	case *Union:
		st := &step{kind: stepUnion}
		for _, b := range s.Branches {
			st.list = append(st.list, compileStep(b, recs))
		}
		return st
	case *Record:
		if st, ok := recs[s]; ok {
			return st
		}
		st := &step{kind: stepRecord}
		recs[s] = st
		for _, f := range s.Fields {
			st.list = append(st.list, compileStep(f.Type, recs))
		}
		return st
	case *Array:
		return &step{kind: stepArray, sub: compileStep(s.Items, recs), empty: canBeEmpty(s.Items, nil)}
	case *Map:
		return &step{kind: stepMap, sub: compileStep(s.Values, recs)}
	}
	return &step{kind: stepStop}
}

func (w *binWalker) walk(st *step) error {
	switch st.kind {
	case stepNull:
		return nil
	case stepBoolean:
		return w.boolean()
	case stepInt:
		_, err := w.int()
		return err
	case stepLong:
		_, err := w.long()
		return err
	case stepFixed:
		return w.copy(st.size)
	case stepBytes:
		return w.bytes()
	case stepUnion:
		i, err := w.int()
		if err != nil {
			return err
		}
		if i < 0 || int(i) >= len(st.list) {
			return errStop
		}
		return w.walk(st.list[i])
	case stepRecord:
		for _, f := range st.list {
			if err := w.walk(f); err != nil {
				return err
			}
		}
		return nil
	case stepArray, stepMap:
		return w.blocks(st)
	}
	return errStop
}

// maxEmptyItems bounds the items of one block whose type has an empty
// encoding (null, a record of such fields) that the walk reads.
const maxEmptyItems = 1 << 20

// canBeEmpty reports whether a datum of s can take no bytes at all.
func canBeEmpty(s Schema, seen map[*Record]bool) bool {
	switch s := s.(type) {
	case *Primitive:
		return s.Kind == TypeNull
	case *Fixed:
		return s.Size == 0
	case *Record:
		if seen[s] {
			return false
		}
		if seen == nil {
			seen = map[*Record]bool{}
		}
		seen[s] = true
		defer delete(seen, s)
		for _, f := range s.Fields {
			if !canBeEmpty(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// blocks walks the blocks of an array or map: a count, negative when a
// byte size follows, items, until a zero count.
func (w *binWalker) blocks(st *step) error {
	empty := st.kind == stepArray && st.empty
	for {
		count, n, err := ReadLong(w.src[w.pos:])
		if errors.Is(err, ErrInvalidLong) {
			return &BinaryError{Offset: w.pos, Err: err}
		}
		if err != nil {
			return errStop
		}
		if !minimal(w.src[w.pos:], n, 10) {
			w.rewrite = true
		}
		w.pos += n
		if count == 0 {
			if w.emit {
				w.out = AppendLong(w.out, 0)
			}
			return nil
		}
		sized := count < 0
		if sized {
			count = -count
			if count < 0 {
				return errStop // -2^63
			}
			sizeAt := w.pos
			_, n, err := ReadLong(w.src[w.pos:])
			if errors.Is(err, ErrInvalidLong) {
				return &BinaryError{Offset: sizeAt, Err: err}
			}
			if err != nil {
				return errStop
			}
			if !minimal(w.src[w.pos:], n, 10) {
				w.rewrite = true
			}
			w.pos += n
		}
		// An item takes at least one byte unless its type can be empty: a
		// larger count than the bytes left is truncated data. Empty items
		// are walked up to a bound; beyond it the decoder's limits apply.
		if left := int64(len(w.src) - w.pos); count > left && (!empty || count > maxEmptyItems) {
			return errStop
		}
		var outer []byte
		if w.emit {
			outer = w.out
			w.out = nil
		}
		for i := int64(0); i < count; i++ {
			if st.kind == stepMap {
				if err := w.bytes(); err != nil { // the key
					return err
				}
			}
			if err := w.walk(st.sub); err != nil {
				return err
			}
		}
		if w.emit {
			items := w.out
			if sized {
				outer = AppendLong(outer, -count)
				outer = AppendLong(outer, int64(len(items)))
			} else {
				outer = AppendLong(outer, count)
			}
			w.out = append(outer, items...)
		}
	}
}
