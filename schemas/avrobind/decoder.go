package avrobind

import (
	"math"
	"unsafe"
)

// decoder reads Avro binary from b, at i. Strings are cut from s, one
// immutable copy of b made on the first string read (see sharedMax), so a
// record with many strings costs one allocation for all of them.
type decoder struct {
	b []byte
	i int
	s string // copy of b, "" until needed
	// shared: strings may be cut from s (small inputs only).
	shared bool
}

// sharedMax is the largest input whose strings share one copy of it. Above
// it each string is its own allocation, so that a small string kept by the
// handler does not keep a large record alive.
const sharedMax = 4 << 10

// maxItems bounds the items of one array or map, as Java's
// SystemLimitException does (Integer.MAX_VALUE - 8).
const maxItems = math.MaxInt32 - 8

// Java's BinaryDecoder reads an int from at most 5 bytes and a long from at
// most 10: a continuation bit on the last byte is an error ("Invalid int
// encoding"). Bits above 32 (64) in the last byte are dropped, as Java's
// shifts drop them.

func (d *decoder) readInt() (int32, error) {
	b, i := d.b, d.i
	if i < len(b) && b[i] < 0x80 { // fast path: one byte
		d.i = i + 1
		n := uint32(b[i])
		return int32(n>>1) ^ -int32(n&1), nil
	}
	var n uint32
	for k := uint(0); k < 5; k++ {
		if i >= len(b) {
			return 0, errEOF
		}
		c := b[i]
		i++
		n |= uint32(c&0x7f) << (7 * k)
		if c < 0x80 {
			d.i = i
			return int32(n>>1) ^ -int32(n&1), nil
		}
	}
	return 0, errInvalidInt
}

func (d *decoder) readLong() (int64, error) {
	b, i := d.b, d.i
	if i < len(b) && b[i] < 0x80 {
		d.i = i + 1
		n := uint64(b[i])
		return int64(n>>1) ^ -int64(n&1), nil
	}
	var n uint64
	for k := uint(0); k < 10; k++ {
		if i >= len(b) {
			return 0, errEOF
		}
		c := b[i]
		i++
		n |= uint64(c&0x7f) << (7 * k)
		if c < 0x80 {
			d.i = i
			return int64(n>>1) ^ -int64(n&1), nil
		}
	}
	return 0, errInvalidLong
}

// readBoolean is Java's: the byte 1 is true, any other byte false.
func (d *decoder) readBoolean() (bool, error) {
	if d.i >= len(d.b) {
		return false, errEOF
	}
	c := d.b[d.i]
	d.i++
	return c == 1, nil
}

func (d *decoder) readFloat() (float32, error) {
	if len(d.b)-d.i < 4 {
		return 0, errEOF
	}
	b := d.b[d.i:]
	d.i += 4
	return math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24), nil
}

func (d *decoder) readDouble() (float64, error) {
	if len(d.b)-d.i < 8 {
		return 0, errEOF
	}
	b := d.b[d.i:]
	d.i += 8
	return math.Float64frombits(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56), nil
}

// readLen reads the length of a string or bytes (an int in Java) and
// returns the start of the data.
func (d *decoder) readLen() (start, n int, err error) {
	l, err := d.readInt()
	if err != nil {
		return 0, 0, err
	}
	if l < 0 {
		return 0, 0, errNegativeLength
	}
	n = int(l)
	if len(d.b)-d.i < n {
		return 0, 0, errEOF
	}
	start = d.i
	d.i += n
	return start, n, nil
}

// readString returns a string or bytes datum as a string.
func (d *decoder) readString() (string, error) {
	start, n, err := d.readLen()
	if err != nil || n == 0 {
		return "", err
	}
	if !d.shared {
		return string(d.b[start : start+n]), nil
	}
	if d.s == "" {
		d.s = string(d.b)
	}
	return unsafe.String(unsafe.StringData(d.s[start:]), n), nil
}

// readBytes returns a fresh copy of a string or bytes datum.
func (d *decoder) readBytes() ([]byte, error) {
	start, n, err := d.readLen()
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	copy(out, d.b[start:])
	return out, nil
}

// view returns the next n bytes without copying.
func (d *decoder) view(n int) ([]byte, error) {
	if len(d.b)-d.i < n {
		return nil, errEOF
	}
	v := d.b[d.i : d.i+n : d.i+n]
	d.i += n
	return v, nil
}

func (d *decoder) skip(n int) error {
	if n < 0 || len(d.b)-d.i < n {
		return errEOF
	}
	d.i += n
	return nil
}

func (d *decoder) skipLen() error {
	_, _, err := d.readLen()
	return err
}

// readBlock reads the item count of the next block of an array or map
// (Java's doReadItemCount: a negative count is followed by the block's byte
// size). total is the number of items read so far.
func (d *decoder) readBlock(total int) (int, error) {
	n, err := d.readLong()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if _, err := d.readLong(); err != nil {
			return 0, err
		}
		n = -n
	}
	if n < 0 || n > int64(maxItems-total) {
		return 0, errTooManyItems
	}
	return int(n), nil
}

// blocks reads the blocks of an array or map up to the empty one that ends
// them, calling each with the number of items read before a block and its
// count; each reads the block's items.
func (d *decoder) blocks(each func(total, n int) error) error {
	total := 0
	for {
		n, err := d.readBlock(total)
		if err != nil || n == 0 {
			return err
		}
		if err := each(total, n); err != nil {
			return err
		}
		total += n
	}
}

// skipBlock is readBlock for skipping: a negative count's byte size lets a
// whole block be skipped at once (size >= 0), else it returns the count
// (size < 0).
func (d *decoder) skipBlock() (count int, skipped bool, err error) {
	n, err := d.readLong()
	if err != nil {
		return 0, false, err
	}
	if n < 0 {
		size, err := d.readLong()
		if err != nil {
			return 0, false, err
		}
		if size < 0 || size > int64(len(d.b)-d.i) {
			return 0, false, errEOF
		}
		d.i += int(size)
		return -1, true, nil
	}
	if n > maxItems {
		return 0, false, errTooManyItems
	}
	return int(n), false, nil
}
