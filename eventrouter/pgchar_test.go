package eventrouter

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPgChar: what PostgreSQL 15 stores and prints for a value written to
// a "char" column (charin, charout); the non-ASCII and \ooo rows are what
// Debezium 3.6.1 delivered on the stack (pgchar_* variants).
func TestPgChar(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "a"},
		{"", ""},
		{"xyz", "x"},
		{" ", " "},
		{"é", `\303`}, // 0xc3 0xa9: the first byte only
		{"€", `\342`},
		{`\101`, "A"},
		{`\303`, `\303`},
		{`\000`, ""},
		{`\777`, `\377`}, // 511 kept in one byte
		{`\12`, `\`},     // not four characters: the first byte
		{`\1234`, `\`},
		{`\8AB`, `\`},
		{`\`, `\`},
	} {
		if got := PgChar(tc.in); got != tc.want {
			t.Errorf("PgChar(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPgCharColumn: a "char" column (format_type's name, with the
// quotes) is a string not padded, unlike char (character(1)); "char"[]
// (and pg_type's _char, not _bpchar) an array of optional strings,
// PgChar per element, one Java String[] identity per top-level sub-array
// of a multi-dimensional value.
func TestPgCharColumn(t *testing.T) {
	const str = `"[Ljava.lang.String;@` + PlaceholderIdentityHash + `"`
	for _, tc := range []struct{ typ, in, want, schema string }{
		{`"char"`, `""`, `""`, `{"type":"string","optional":true}`},
		{`"char"`, `"é"`, `"\\303"`, `{"type":"string","optional":true}`},
		{`"char"`, `"ab"`, `"a"`, `{"type":"string","optional":true}`},
		{`"char"`, `null`, `null`, `{"type":"string","optional":true}`},
		{"char", `""`, `" "`, `{"type":"string","optional":true}`},
		{`"char"[]`, `"{a,\"\",NULL,é,abc}"`, `["a","",null,"\\303","a"]`, `{"type":"array","items":{"type":"string","optional":true},"optional":true}`},
		{`"char"[]`, `"{\"\\\\303\",\"\\\\777\",\"\\\\000\"}"`, `["\\303","\\377",""]`, `{"type":"array","items":{"type":"string","optional":true},"optional":true}`},
		{`_char`, `"{x,yz}"`, `["x","y"]`, `{"type":"array","items":{"type":"string","optional":true},"optional":true}`},
		{`"char"[][]`, `"{{a,b},{c,NULL}}"`, `[` + str + `,` + str + `]`, `{"type":"array","items":{"type":"string","optional":true},"optional":true}`},
		{`"char"[]`, `"{{{q}},{{r}}}"`, `["[[Ljava.lang.String;@` + PlaceholderIdentityHash + `","[[Ljava.lang.String;@` + PlaceholderIdentityHash + `"]`, `{"type":"array","items":{"type":"string","optional":true},"optional":true}`},
		{"char(1)[]", `"{\"\"}"`, `[" "]`, `{"type":"array","items":{"type":"string","optional":true},"optional":true}`},
	} {
		s, err := ColumnSchema(Postgres, tc.typ, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		var sb strings.Builder
		if err := writeJSONSchema(&sb, Converter{Kind: JSONConverter}, s); err != nil || sb.String() != tc.schema {
			t.Errorf("%s: schema %s, %v; want %s", tc.typ, sb.String(), err, tc.schema)
		}
		v, err := ColumnValue(Postgres, tc.typ, s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s %s: %v", tc.typ, tc.in, err)
			continue
		}
		b, err := convert(Converter{Kind: JSONConverter}, s, v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s %s: %s, %v; want %s", tc.typ, tc.in, b, err, tc.want)
		}
	}
}
