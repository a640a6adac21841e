package eventrouter

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
)

// PlaceholderIdentityHash stands for a Java identity hash in text the
// connector writes with Object.toString: a StringConverter writing a
// struct with a byte[] field (Struct{value=[B@6b2c16d6,scale=2}), and the
// element of a multi-dimensional text-like PostgreSQL array
// ([Ljava.lang.String;@6b2c16d6). The real digits are
// Integer.toHexString(System.identityHashCode(array)): arbitrary, different
// in every JVM run (no two connector runs agree on them). The placeholder
// is eight zeros, which the JVM never prints (no leading zeros, and HotSpot
// never hands out a zero hash). Record.KeyHashes, Record.ValueHashes and
// Header.Hashes give where the placeholders are; MatchIdentityHashes
// compares such bytes with the real ones.
const PlaceholderIdentityHash = "00000000"

// identityHashDigits matches what Integer.toHexString prints for a
// non-zero int: 1 to 8 lower-case hex digits, no leading zero.
const identityHashDigits = `[1-9a-f][0-9a-f]{0,7}`

// MatchIdentityHashes reports whether real is exp with each
// PlaceholderIdentityHash at the offsets hashes replaced by some identity
// hash digits; everything around them must match exactly. Without hashes
// it is bytes.Equal (nil and empty differ).
func MatchIdentityHashes(exp []byte, hashes []int, real []byte) bool {
	if len(hashes) == 0 {
		if (exp == nil) != (real == nil) {
			return false
		}
		return bytes.Equal(exp, real)
	}
	if exp == nil || real == nil {
		return false
	}
	var pat bytes.Buffer
	pat.WriteString(`\A`)
	prev := 0
	for _, o := range hashes {
		if o < prev || o+len(PlaceholderIdentityHash) > len(exp) {
			return false
		}
		pat.WriteString(regexp.QuoteMeta(string(exp[prev:o])))
		pat.WriteString(identityHashDigits)
		prev = o + len(PlaceholderIdentityHash)
	}
	pat.WriteString(regexp.QuoteMeta(string(exp[prev:])))
	pat.WriteString(`\z`)
	re, err := regexp.Compile(pat.String())
	if err != nil {
		return false
	}
	return re.Match(real)
}

// FillIdentityHashes returns b with each PlaceholderIdentityHash at the
// offsets hashes replaced by the hex digits of next() (a non-zero 31-bit
// value, as HotSpot's identity hashes are). The relay publishes these
// texts this way: its digits are as arbitrary as the connector's, and
// mean nothing. Without hashes b is returned unchanged.
func FillIdentityHashes(b []byte, hashes []int, next func() uint32) []byte {
	if len(hashes) == 0 || b == nil {
		return b
	}
	out := make([]byte, 0, len(b))
	prev := 0
	for _, o := range hashes {
		if o < prev || o+len(PlaceholderIdentityHash) > len(b) {
			return b
		}
		out = append(out, b[prev:o]...)
		h := next() & 0x7fffffff
		if h == 0 {
			h = 1
		}
		out = strconv.AppendUint(out, uint64(h), 16)
		prev = o + len(PlaceholderIdentityHash)
	}
	return append(out, b[prev:]...)
}

// identityHashes are the offsets of the identity hash placeholders in what
// cv writes for v (only a StringConverter, directly or as the delegate of
// a BinaryDataConverter, prints them).
func identityHashes(cv Converter, s *Schema, v any) []int {
	switch cv.Kind {
	case StringConverter:
		if v == nil {
			return nil
		}
		_, hs := javaText(v)
		return hs
	case BinaryDataConverter:
		if s == nil || s.Type == Bytes {
			if _, ok := v.([]byte); ok || v == nil {
				return nil
			}
		}
		if cv.Delegate != nil {
			return identityHashes(*cv.Delegate, s, v)
		}
	}
	return nil
}

// arrayIdentityText matches the text a multi-dimensional text-like
// PostgreSQL array's element becomes (pgArrayIdentityNested) as the
// emulator writes it; the submatch is the placeholder.
var arrayIdentityText = regexp.MustCompile(`\[+L[A-Za-z0-9_.$]+;@(` + PlaceholderIdentityHash + `)`)

// holdsArrayIdentity reports whether v is or holds (in a struct, list or
// map) an element text of a multi-dimensional text-like array.
func holdsArrayIdentity(v any) bool {
	switch x := v.(type) {
	case string:
		m := arrayIdentityText.FindStringIndex(x)
		return m != nil && m[0] == 0 && m[1] == len(x)
	case *Struct:
		if x == nil {
			return false
		}
		for _, e := range x.Values {
			if holdsArrayIdentity(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsArrayIdentity(e) {
				return true
			}
		}
	case ConnectMap:
		for _, e := range x {
			if holdsArrayIdentity(e.Key) || holdsArrayIdentity(e.Value) {
				return true
			}
		}
	}
	return false
}

// allIdentityHashes are the placeholder offsets in b, what converter cv
// wrote for v: the byte[] fields a StringConverter prints, and the element
// texts of multi-dimensional text-like arrays (found in b, none of whose
// characters any converter escapes).
func allIdentityHashes(cv Converter, s *Schema, v any, b []byte) []int {
	hs := identityHashes(cv, s, v)
	if b == nil || !holdsArrayIdentity(v) {
		return hs
	}
	seen := map[int]bool{}
	for _, o := range hs {
		seen[o] = true
	}
	for _, m := range arrayIdentityText.FindAllSubmatchIndex(b, -1) {
		if !seen[m[2]] {
			hs = append(hs, m[2])
		}
	}
	sort.Ints(hs)
	return hs
}
