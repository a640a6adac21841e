package javatext

import (
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"", `""`},
		{"plain", `"plain"`},
		{"a\"\\\b\f\n\r\t\x01\x1f\x7f<>&é\u2028/", `"a\"\\\b\f\n\r\t\u0001\u001F` + "\x7f<>&é\u2028/" + `"`},
		{"\x00\x0b\x1a", `"\u0000\u000B\u001A"`},
		{"\xff\xfe", "\"\xff\xfe\""}, // bytes are copied
		{"€ and 😀", `"€ and 😀"`},
	}
	for _, tt := range tests {
		if got := string(AppendString([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendString(%q) = %s, want x%s", tt.in, got, tt.want)
		}
		var b strings.Builder
		b.WriteString("y")
		WriteString(&b, tt.in)
		if got := b.String(); got != "y"+tt.want {
			t.Errorf("WriteString(%q) = %s, want y%s", tt.in, got, tt.want)
		}
	}
}

func TestAppendLatin1String(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []byte
		want string
	}{
		{nil, `""`},
		{[]byte{0, 0x7f, 0xff}, "\"\\u0000\x7fÿ\""},
		{[]byte{0xe9, 0x01, '"', 'A', 0x80}, "\"é\\u0001\\\"A\u0080\""},
	}
	for _, tt := range tests {
		if got := string(AppendLatin1String(nil, tt.in)); got != tt.want {
			t.Errorf("AppendLatin1String(%x) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
