package eventrouter

import "strings"

// readQuoted reads a double-quoted item of PostgreSQL's array or hstore
// text whose opening quote is s[i]: the text with backslash escapes
// removed and the index after the closing quote; ok is false when the
// closing quote is missing.
func readQuoted(s string, i int) (text string, next int, ok bool) {
	var b strings.Builder
	for i++; i < len(s); {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		i++
		if c == '"' {
			return b.String(), i, true
		}
		b.WriteByte(c)
	}
	return "", i, false
}
