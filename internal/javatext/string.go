package javatext

import (
	"strings"
	"unicode/utf8"
)

const upperHex = "0123456789ABCDEF"

// escapes[c] is the character after '\' for an ASCII byte Jackson escapes
// in short form, 'u' for one written as \u00XX, and 0 for one written as
// is.
var escapes = func() (t [utf8.RuneSelf]byte) {
	for c := 0; c < 0x20; c++ {
		t[c] = 'u'
	}
	t['"'], t['\\'] = '"', '\\'
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = 'b', 't', 'n', 'f', 'r'
	return t
}()

// AppendString appends s to buf as a quoted JSON string, escaped the way
// Jackson's default JsonGenerator escapes it (see the package doc).
func AppendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || escapes[c] == 0 {
			continue
		}
		buf = append(buf, s[start:i]...)
		buf = appendEscape(buf, c)
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// WriteString writes s to b as AppendString does.
func WriteString(b *strings.Builder, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || escapes[c] == 0 {
			continue
		}
		b.WriteString(s[start:i])
		var tmp [6]byte
		b.Write(appendEscape(tmp[:0], c))
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// AppendLatin1String appends the Java string new String(b, ISO_8859_1) —
// byte n is code point n — as Jackson writes it: a quoted JSON string with
// the code points 0x80-0xFF as UTF-8. This is how Avro's JSON encoding
// writes bytes and fixed values.
func AppendLatin1String(buf []byte, b []byte) []byte {
	buf = append(buf, '"')
	for _, c := range b {
		switch {
		case c >= utf8.RuneSelf:
			buf = append(buf, 0xC0|c>>6, 0x80|c&0x3F)
		case escapes[c] != 0:
			buf = appendEscape(buf, c)
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

func appendEscape(buf []byte, c byte) []byte {
	if e := escapes[c]; e != 'u' {
		return append(buf, '\\', e)
	}
	return append(buf, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xF])
}
