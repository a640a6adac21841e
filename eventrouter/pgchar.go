package eventrouter

import "strings"

// PgCharType is PostgreSQL's one-byte internal type "char" (pg_type's
// char, OID 18; its array "char"[] is pg_type's _char, OID 1002) as
// format_type prints it, with the quotes. Unquoted, char is SQL's
// character(1) (bpchar), blank-padded; "char" is not.
const PgCharType = `"char"`

// PgChar is the text PostgreSQL (15 and later) stores and prints for the
// value v written to a "char" column, which the connector delivers as a
// string (JdbcValueConverters: Types.CHAR): charin keeps one byte, the
// byte a four-character octal escape \ooo gives, else the first byte of
// v's UTF-8 text (the first byte only of a multi-byte character; ""
// for ""), and charout prints a byte with the high bit set as \ooo, a
// zero byte as "" and any other byte as itself. The database's encoding is
// taken to be UTF-8 (the connector's pgoutput text is the server's).
func PgChar(v string) string {
	var b byte
	switch {
	case len(v) == 4 && v[0] == '\\' && isOctal(v[1]) && isOctal(v[2]) && isOctal(v[3]):
		// (d1<<6)+(d2<<3)+d3 kept in one byte: \777 is 0377
		b = byte(int(v[1]-'0')<<6 + int(v[2]-'0')<<3 + int(v[3]-'0'))
	case v == "":
		return ""
	default:
		b = v[0]
	}
	switch {
	case b == 0:
		return ""
	case b&0x80 != 0:
		var sb strings.Builder
		sb.WriteByte('\\')
		sb.WriteByte('0' + b>>6)
		sb.WriteByte('0' + (b>>3)&7)
		sb.WriteByte('0' + b&7)
		return sb.String()
	}
	return string([]byte{b})
}
