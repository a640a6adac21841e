package avrobind

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// TestVarintsLikeJava: the vectors and results are Avro Java 1.12.2's
// BinaryDecoder.readInt/readLong (run once; the live oracle test runs the
// resolution cases). Java reads an int from at most 5 bytes and a long
// from at most 10; a continuation bit on the last one is "Invalid int
// encoding"; bits beyond 32 (64) in the last byte are dropped, not
// rejected.
func TestVarintsLikeJava(t *testing.T) {
	cases := []struct {
		long  bool
		hex   string
		want  int64
		err   error
		trail int
	}{
		{false, "00", 0, nil, 0},
		{false, "01", -1, nil, 0},
		{false, "ffffffff0f", -2147483648, nil, 0},
		{false, "feffffff0f", 2147483647, nil, 0},
		{false, "ffffffff1f", -2147483648, nil, 0}, // high bits dropped, as Java
		{false, "ffffffff7f", -2147483648, nil, 0},
		{false, "a2a2a2a230", 35932305, nil, 0},      // goavro reads -2111551343
		{false, "ffffffff8f00", 0, errInvalidInt, 0}, // 6-byte int
		{false, "8080808000", 0, nil, 0},
		{false, "808080801000", 0, nil, 1},
		{false, "ff", 0, errEOF, 0},
		{false, "ffff", 0, errEOF, 0},
		{false, "", 0, errEOF, 0},
		{true, "ffffffffffffffffff01", -9223372036854775808, nil, 0},
		{true, "feffffffffffffffff01", 9223372036854775807, nil, 0},
		{true, "ffffffffffffffffff02", -4611686018427387904, nil, 0},
		{true, "ffffffffffffffffff7f", -9223372036854775808, nil, 0},
		{true, "ffffffffffffffffff8100", 0, errInvalidLong, 0}, // 11-byte long
		{true, "80808080808080808000", 0, nil, 0},
		{true, "ffffffff", 0, errEOF, 0},
		{true, "ac02", 150, nil, 0},
	}
	for _, c := range cases {
		b, _ := hex.DecodeString(c.hex)
		d := &decoder{b: b}
		var got int64
		var err error
		if c.long {
			got, err = d.readLong()
		} else {
			var v int32
			v, err = d.readInt()
			got = int64(v)
		}
		if err != c.err {
			t.Errorf("%v %s: err = %v, want %v", c.long, c.hex, err, c.err)
			continue
		}
		if err != nil {
			if !errors.Is(err, resolve.ErrDecode) {
				t.Errorf("%s: %v does not unwrap to ErrDecode", c.hex, err)
			}
			continue
		}
		if got != c.want || len(b)-d.i != c.trail {
			t.Errorf("%v %s = %d (%d left), want %d (%d left)", c.long, c.hex, got, len(b)-d.i, c.want, c.trail)
		}
	}
}

// TestBooleanLikeJava: Java's readBoolean is true for the byte 1 only (0,
// 2 and 0xff read as false; measured with Avro Java 1.12.2).
func TestBooleanLikeJava(t *testing.T) {
	for b, want := range map[byte]bool{0: false, 1: true, 2: false, 0xff: false} {
		d := &decoder{b: []byte{b}}
		if got, err := d.readBoolean(); err != nil || got != want {
			t.Errorf("%#x: %v %v, want %v", b, got, err, want)
		}
	}
	if _, err := (&decoder{}).readBoolean(); err != errEOF {
		t.Errorf("empty: %v", err)
	}
}
