package eventrouter

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// NameTsvector is a PostgreSQL tsvector column (io.debezium.data.Tsvector:
// the text tsvectorout prints).
const NameTsvector = "io.debezium.data.Tsvector"

// pgTsvector is a tsvector value as tsvectorin reads its text and
// tsvectorout prints it: lexemes (quoted or not; a backslash escapes the
// next character, ” inside quotes is a quote) with optional positions
// (1-16383, larger ones clamped; weight A, B, C or D, case insensitive),
// sorted by their bytes (a prefix first), duplicates merged (positions
// sorted, a repeated position keeping its highest weight, at most 256),
// each printed in single quotes (' and \ doubled), positions after a colon
// with their weight letter (D omitted), separated by one blank.
func pgTsvector(v string) (string, error) {
	type lexeme struct {
		word string
		pos  []int // position<<2 | weight (A 3, B 2, C 1, D 0)
	}
	bad := func() (string, error) {
		return "", fmt.Errorf("%w: tsvector %q: syntax error", ErrInvalidEvent, v)
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	var lex []lexeme
	i, n := 0, len(v)
	for {
		for i < n && isSpace(v[i]) {
			i++
		}
		if i >= n {
			break
		}
		var w strings.Builder
		if v[i] == '\'' {
			i++
			closed := false
			for i < n {
				c := v[i]
				if c == '\\' && i+1 < n {
					w.WriteByte(v[i+1])
					i += 2
					continue
				}
				if c == '\'' {
					if i+1 < n && v[i+1] == '\'' {
						w.WriteByte('\'')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				w.WriteByte(c)
				i++
			}
			if !closed {
				return bad()
			}
		} else {
			for i < n && !isSpace(v[i]) && v[i] != ':' {
				c := v[i]
				if c == '\\' && i+1 < n {
					w.WriteByte(v[i+1])
					i += 2
					continue
				}
				if c == '\'' {
					return bad()
				}
				w.WriteByte(c)
				i++
			}
		}
		if w.Len() == 0 {
			return bad()
		}
		l := lexeme{word: w.String()}
		if i < n && v[i] == ':' {
			i++
			for {
				j := i
				for i < n && v[i] >= '0' && v[i] <= '9' {
					i++
				}
				if i == j {
					return bad()
				}
				p, err := strconv.Atoi(v[j:i])
				if err != nil || p == 0 {
					if err == nil || len(v[j:i]) < 10 {
						return bad()
					}
					p = 16383
				}
				if p > 16383 {
					p = 16383
				}
				wt := 0
				for i < n {
					switch v[i] {
					case 'A', 'a', '*':
						wt = 3
					case 'B', 'b':
						wt = 2
					case 'C', 'c':
						wt = 1
					case 'D', 'd':
						wt = 0
					default:
						goto done
					}
					i++
				}
			done:
				l.pos = append(l.pos, p<<2|wt)
				if i < n && v[i] == ',' {
					i++
					continue
				}
				break
			}
		}
		if i < n && !isSpace(v[i]) {
			return bad()
		}
		lex = append(lex, l)
	}
	sort.SliceStable(lex, func(a, b int) bool { return lex[a].word < lex[b].word })
	var out []lexeme
	for _, l := range lex {
		if len(out) > 0 && out[len(out)-1].word == l.word {
			out[len(out)-1].pos = append(out[len(out)-1].pos, l.pos...)
			continue
		}
		out = append(out, l)
	}
	var b strings.Builder
	for k, l := range out {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		for j := 0; j < len(l.word); j++ {
			if l.word[j] == '\'' || l.word[j] == '\\' {
				b.WriteByte(l.word[j])
			}
			b.WriteByte(l.word[j])
		}
		b.WriteByte('\'')
		if len(l.pos) == 0 {
			continue
		}
		// uniquePos: sorted by position, a repeated one keeps the highest
		// weight; at most MAXNUMPOS (256)
		sort.SliceStable(l.pos, func(a, c int) bool { return l.pos[a]>>2 < l.pos[c]>>2 })
		var u []int
		for _, p := range l.pos {
			if len(u) > 0 && u[len(u)-1]>>2 == p>>2 {
				if p&3 > u[len(u)-1]&3 {
					u[len(u)-1] = p
				}
				continue
			}
			u = append(u, p)
		}
		if len(u) > 256 {
			u = u[:256]
		}
		b.WriteByte(':')
		for j, p := range u {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p >> 2))
			if wt := p & 3; wt > 0 {
				b.WriteByte("DCBA"[wt])
			}
		}
	}
	return b.String(), nil
}
