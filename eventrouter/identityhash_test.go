package eventrouter

import (
	"testing"
)

// TestMatchIdentityHashes: only the marked placeholder digits are masked,
// and only by what Integer.toHexString prints; the text around them must
// match exactly.
func TestMatchIdentityHashes(t *testing.T) {
	exp := []byte("Struct{scale=2,value=[B@00000000}")
	hs := []int{len("Struct{scale=2,value=[B@")}
	for _, tc := range []struct {
		real string
		nil  bool
		want bool
	}{
		{real: "Struct{scale=2,value=[B@6b2c16d6}", want: true},
		{real: "Struct{scale=2,value=[B@1}", want: true},
		{real: "Struct{scale=2,value=[B@}", want: false},
		{real: "Struct{scale=2,value=[B@06b2c16d}", want: false},  // no leading zero
		{real: "Struct{scale=2,value=[B@6B2C16D6}", want: false},  // lower case
		{real: "Struct{scale=2,value=[B@6b2c16d6a}", want: false}, // at most 8 digits
		{real: "Struct{scale=3,value=[B@6b2c16d6}", want: false},  // the text around must match
		{real: "Struct{scale=2,value=[B@6b2c16d6} ", want: false}, // anchored
		{nil: true, want: false},
	} {
		var real []byte
		if !tc.nil {
			real = []byte(tc.real)
		}
		if got := MatchIdentityHashes(exp, hs, real); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.real, got, tc.want)
		}
	}
	// unmarked: exact
	if MatchIdentityHashes(exp, nil, []byte("Struct{scale=2,value=[B@6b2c16d6}")) || !MatchIdentityHashes(exp, nil, exp) || MatchIdentityHashes(nil, nil, []byte{}) {
		t.Error("without offsets the bytes must be equal")
	}
}

// TestFillIdentityHashes: the relay's digits are non-zero hex without a
// leading zero, and the filled text matches the emulator's.
func TestFillIdentityHashes(t *testing.T) {
	exp := []byte("[Struct{scale=1,value=[B@00000000}, Struct{scale=0,value=[B@00000000}]")
	hs := []int{len("[Struct{scale=1,value=[B@"), len("[Struct{scale=1,value=[B@00000000}, Struct{scale=0,value=[B@")}
	seq := []uint32{0, 0x6b2c16d6, 0xffffffff}
	i := 0
	next := func() uint32 { v := seq[i%len(seq)]; i++; return v }
	for range 3 {
		got := FillIdentityHashes(exp, hs, next)
		if !MatchIdentityHashes(exp, hs, got) {
			t.Errorf("filled %q does not match %q", got, exp)
		}
	}
	if got := string(FillIdentityHashes(exp, hs, func() uint32 { return 0x6b2c16d6 })); got != "[Struct{scale=1,value=[B@6b2c16d6}, Struct{scale=0,value=[B@6b2c16d6}]" {
		t.Errorf("filled %q", got)
	}
	if got := FillIdentityHashes(exp, nil, next); string(got) != string(exp) {
		t.Errorf("unmarked changed: %q", got)
	}
}

// TestIdentityHashOffsets: the offsets javaText gives for nested structs,
// lists and maps point at the placeholders, and a bytes column (a
// ByteBuffer) is not one.
func TestIdentityHashOffsets(t *testing.T) {
	vsd := &Schema{Type: StructT, Name: NameVariableScaleDecimal, Fields: []Field{{Name: "scale", Schema: &Schema{Type: Int32}}, {Name: "value", Schema: &Schema{Type: Bytes}}}}
	env := &Schema{Type: StructT, Fields: []Field{{Name: "b", Schema: optional(Bytes)}, {Name: "n", Schema: vsd}, {Name: "l", Schema: &Schema{Type: Array, Items: vsd}}}}
	d := func(sc int32) *Struct { return &Struct{Schema: vsd, Values: []any{sc, []byte{1}}} }
	v := &Struct{Schema: env, Values: []any{[]byte{1, 2}, d(1), []any{d(2), nil, d(3)}}}
	s, hs := javaText(v)
	want := "Struct{b=java.nio.HeapByteBuffer[pos=0 lim=2 cap=2],n=Struct{scale=1,value=[B@00000000},l=[Struct{scale=2,value=[B@00000000}, null, Struct{scale=3,value=[B@00000000}]}"
	if s != want || len(hs) != 3 {
		t.Fatalf("javaText %q %v, want %q", s, hs, want)
	}
	for _, o := range hs {
		if s[o-3:o+len(PlaceholderIdentityHash)] != "[B@"+PlaceholderIdentityHash {
			t.Errorf("offset %d: %q", o, s[o-3:])
		}
	}
	m := ConnectMap{{Key: "k", Value: d(4)}}
	s, hs = javaText(m)
	if s != "{k=Struct{scale=4,value=[B@00000000}}" || len(hs) != 1 || s[hs[0]:hs[0]+8] != PlaceholderIdentityHash {
		t.Errorf("map: %q %v", s, hs)
	}
}
