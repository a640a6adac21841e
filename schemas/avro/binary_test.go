package avro_test

import (
	"encoding/hex"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The expected values are Avro Java 1.12.2's BinaryDecoder on the same
// bytes (readLong, readInt; measured, and re-checked by
// resolve.TestJavaOracleVarints).
func TestReadLong(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int64
		n    int
		err  error
	}{
		{"zero", "00", 0, 1, nil},
		{"minus one", "01", -1, 1, nil},
		{"max valid long, 10 bytes", "feffffffffffffffff01", math.MaxInt64, 10, nil},
		{"min long, 10 bytes", "ffffffffffffffffff01", math.MinInt64, 10, nil},
		{"10 bytes with overflowing high bits: Java drops them", "ffffffffffffffffff7f", math.MinInt64, 10, nil},
		{"10 bytes, 10th byte 02: Java drops bit 64", "ffffffffffffffffff02", math.MinInt64 / 2, 10, nil},
		{"over-long zero, 10 bytes", "80808080808080808000", 0, 10, nil},
		{"11 bytes", "ffffffffffffffffff8001", 0, 0, avro.ErrInvalidLong},
		{"11-byte zero", "8080808080808080808000", 0, 0, avro.ErrInvalidLong},
		{"12 bytes", "ffffffffffffffffffff01", 0, 0, avro.ErrInvalidLong},
		{"trailing bytes are not read", "0200ff", 1, 1, nil},
		{"empty", "", 0, 0, io.ErrUnexpectedEOF},
		{"cut short", "ff", 0, 0, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, n, err := avro.ReadLong(unhex(t, tc.in))
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if v != tc.want || n != tc.n {
				t.Errorf("ReadLong(%s) = %d, %d bytes; want %d, %d bytes", tc.in, v, n, tc.want, tc.n)
			}
		})
	}
}

func TestReadInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int32
		n    int
		err  error
	}{
		{"zero", "00", 0, 1, nil},
		{"max int, 5 bytes", "feffffff0f", math.MaxInt32, 5, nil},
		{"min int, 5 bytes", "ffffffff0f", math.MinInt32, 5, nil},
		{"5 bytes with overflowing high bits: Java drops them", "ffffffff7f", math.MinInt32, 5, nil},
		{"5 bytes, 5th byte 10: Java drops bit 32", "ffffffff10", -134217728, 5, nil},
		{"over-long zero, 5 bytes", "8080808000", 0, 5, nil},
		{"6 bytes", "ffffffffff01", 0, 0, avro.ErrInvalidInt},
		{"6-byte zero", "808080808000", 0, 0, avro.ErrInvalidInt},
		{"cut short", "8080", 0, 0, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, n, err := avro.ReadInt(unhex(t, tc.in))
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if v != tc.want || n != tc.n {
				t.Errorf("ReadInt(%s) = %d, %d bytes; want %d, %d bytes", tc.in, v, n, tc.want, tc.n)
			}
		})
	}
}

func TestAppendLongRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []int64{0, 1, -1, 63, -64, 64, 1 << 20, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		b := avro.AppendLong(nil, v)
		got, n, err := avro.ReadLong(b)
		if err != nil || got != v || n != len(b) {
			t.Errorf("AppendLong(%d) = %x: reads back %d, %d bytes, %v", v, b, got, n, err)
		}
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			got, n, err := avro.ReadInt(avro.AppendInt(nil, int32(v)))
			if err != nil || int64(got) != v || n != len(b) {
				t.Errorf("AppendInt(%d): reads back %d, %d bytes, %v", v, got, n, err)
			}
		}
	}
	if got := hex.EncodeToString(avro.AppendLong(nil, math.MaxInt64)); got != "feffffffffffffffff01" {
		t.Errorf("AppendLong(MaxInt64) = %s", got)
	}
}

func TestNormalizeBinary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema string
		in     string
		want   string // "" with err set
		err    error
	}{
		{"canonical long", `"long"`, "02", "02", nil},
		{"over-long long", `"long"`, "8200", "02", nil},
		{"10-byte long with high bits", `"long"`, "ffffffffffffffffff7f", "ffffffffffffffffff01", nil},
		{"11-byte long", `"long"`, "ffffffffffffffffff8001", "", avro.ErrInvalidLong},
		{"5-byte int with high bits", `"int"`, "ffffffff7f", "ffffffff0f", nil},
		{"6-byte int", `"int"`, "808080808000", "", avro.ErrInvalidInt},
		{"boolean 2 is false", `"boolean"`, "02", "00", nil},
		{"string length over-long", `"string"`, "820061", "0261", nil},
		{"string length 11 bytes", `"string"`, "8280808080808080808000", "", avro.ErrInvalidLong},
		{"union index 6 bytes", `["null","int"]`, "828080808000", "", avro.ErrInvalidInt},
		{"union index over-long", `["null","int"]`, "820002", "0202", nil},
		{"enum index 6 bytes", `{"type":"enum","name":"E","symbols":["A","B"]}`, "828080808000", "", avro.ErrInvalidInt},
		{"array block count 11 bytes", `{"type":"array","items":"int"}`, "8280808080808080808000", "", avro.ErrInvalidLong},
		{"array item over-long", `{"type":"array","items":"int"}`, "02820000", "020200", nil},
		{"sized block resized", `{"type":"array","items":"long"}`, "030682000200", "0304020200", nil},
		{"map key and value", `{"type":"map","values":"int"}`, "028200618200" + "00", "0202610200", nil},
		{"record fields", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"long"}]}`, "8100" + "ffffffffffffffffff7f", "01ffffffffffffffffff01", nil},
		{"fixed and floats copied", `{"type":"record","name":"R","fields":[{"name":"f","type":{"type":"fixed","name":"F","size":2}},{"name":"d","type":"double"},{"name":"x","type":"float"},{"name":"i","type":"int"}]}`, "ffff" + "0102030405060708" + "01020304" + "8100", "ffff010203040506070801020304" + "01", nil},
		{"array of nulls", `{"type":"array","items":"null"}`, "0a8000", "0a00", nil},
		{"trailing bytes kept", `"int"`, "8200ff", "02ff", nil},
		{"truncated: unchanged", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`, "820006", "820006", nil},
		{"union index out of range: unchanged", `["null","int"]`, "0a", "0a", nil},
		{"negative length: unchanged", `"bytes"`, "01", "01", nil},
		{"bad varint before a truncation", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`, "80808080800006", "", avro.ErrInvalidInt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := avro.Parse([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			got, err := avro.NormalizeBinary(s, unhex(t, tc.in))
			if tc.err != nil {
				var be *avro.BinaryError
				if !errors.Is(err, tc.err) || !errors.As(err, &be) {
					t.Fatalf("err = %v, want a *BinaryError for %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if hex.EncodeToString(got) != tc.want {
				t.Errorf("NormalizeBinary(%s) = %x, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// A canonical datum is returned as is, not copied.
func TestNormalizeBinaryNoCopy(t *testing.T) {
	s, err := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := unhex(t, "020461")
	in = append(in, 'b')
	n := avro.NewNormalizer(s)
	got, err := n.Normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &in[0] {
		t.Error("a canonical datum was copied")
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = n.Normalize(in) }); n != 0 {
		t.Errorf("%v allocations for a canonical datum, want 0", n)
	}
}

func TestBinaryErrorOffset(t *testing.T) {
	s, err := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"long"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = avro.NormalizeBinary(s, unhex(t, "02ffffffffffffffffff8001"))
	var be *avro.BinaryError
	if !errors.As(err, &be) || be.Offset != 1 || err.Error() != "invalid long encoding at byte 1" {
		t.Errorf("err = %v (%#v), want invalid long encoding at byte 1", err, be)
	}
}

// BenchmarkNormalizeBinary: the walk over a canonical datum (no copy) of a
// record of 10 fields, strings, an array, a map, a union.
func BenchmarkNormalizeBinary(b *testing.B) {
	s, err := avro.Parse([]byte(`{"type":"record","name":"R","fields":[
	{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"amount","type":"double"},
	{"name":"qty","type":"int"},{"name":"status","type":{"type":"enum","name":"S","symbols":["A","B"]}},
	{"name":"tags","type":{"type":"array","items":"string"}},{"name":"attrs","type":{"type":"map","values":"string"}},
	{"name":"note","type":["null","string"]},{"name":"at","type":"long"},{"name":"flag","type":"boolean"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	var d []byte
	d = avro.AppendLong(d, 123456789)
	d = append(avro.AppendLong(d, 4), "name"...)
	d = append(d, 1, 2, 3, 4, 5, 6, 7, 8)
	d = avro.AppendInt(d, 3)
	d = avro.AppendInt(d, 1)
	d = avro.AppendLong(d, 2)
	d = append(avro.AppendLong(d, 4), "gift"...)
	d = append(avro.AppendLong(d, 3), "exp"...)
	d = avro.AppendLong(d, 0)
	d = avro.AppendLong(d, 1)
	d = append(avro.AppendLong(d, 1), "k"...)
	d = append(avro.AppendLong(d, 1), "v"...)
	d = avro.AppendLong(d, 0)
	d = avro.AppendInt(d, 1)
	d = append(avro.AppendLong(d, 4), "note"...)
	d = avro.AppendLong(d, 1700000000123)
	d = append(d, 1)
	n := avro.NewNormalizer(s)
	if out, err := n.Normalize(d); err != nil || len(out) != len(d) {
		b.Fatalf("datum: %x, %v", out, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := n.Normalize(d); err != nil {
			b.Fatal(err)
		}
	}
}
