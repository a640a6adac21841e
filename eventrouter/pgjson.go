package eventrouter

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// NormalizeJSONB renders JSON text the way PostgreSQL outputs a jsonb value
// (and so the way Debezium delivers a jsonb column): keys deduplicated (last
// wins) and sorted by length then bytes, ", " and ": " separators, numbers
// as PostgreSQL numerics (1e2 → 100, 1.50 stays 1.50), strings re-escaped.
func NormalizeJSONB(text string) (string, error) {
	n, rest, err := parsePGJSON(text)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("invalid input syntax for type json: trailing content %q", rest)
	}
	var b strings.Builder
	writePGJSON(&b, n, ", ", ": ", sortPG)
	return b.String(), nil
}

// NormalizeMySQLJSON renders JSON text the way Debezium's binlog reader
// renders a MySQL JSON column: compact, keys sorted by length then bytes.
// Not verified against a real MySQL server by this package's tests.
func NormalizeMySQLJSON(text string) (string, error) {
	n, rest, err := parsePGJSON(text)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("invalid JSON text: trailing content %q", rest)
	}
	var b strings.Builder
	writePGJSON(&b, n, ",", ":", sortPG)
	return b.String(), nil
}

// pgNode keeps numbers as their source text.
type pgNode struct {
	kind  byte // n b s d(number) a o
	text  string
	keys  []string
	vals  []*pgNode
	elems []*pgNode
}

func parsePGJSON(text string) (*pgNode, string, error) {
	p := &jparser{s: text}
	p.ws()
	n, err := p.pgValue(0)
	if err != nil {
		return nil, "", err
	}
	return n, text[p.i:], nil
}

func (p *jparser) pgValue(depth int) (*pgNode, error) {
	start := p.i
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		if _, err := p.number(); err != nil {
			return nil, err
		}
		return &pgNode{kind: 'd', text: p.s[start:p.i]}, nil
	}
	if p.i < len(p.s) && p.s[p.i] == '{' {
		p.i++
		n := &pgNode{kind: 'o'}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n, nil
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, p.fail("expected field name")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.fail("expected ':'")
			}
			p.i++
			p.ws()
			v, err := p.pgValue(depth + 1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected ',' or '}'")
		}
	}
	if p.i < len(p.s) && p.s[p.i] == '[' {
		p.i++
		n := &pgNode{kind: 'a'}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		for {
			p.ws()
			v, err := p.pgValue(depth + 1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected ',' or ']'")
		}
	}
	j, err := p.value(depth)
	if err != nil {
		return nil, err
	}
	switch j.kind {
	case jString:
		return &pgNode{kind: 's', text: j.str}, nil
	case jBool:
		return &pgNode{kind: 'b', text: strconv.FormatBool(j.b)}, nil
	}
	return &pgNode{kind: 'n'}, nil
}

type keySorter int

const sortPG keySorter = 1

func writePGJSON(b *strings.Builder, n *pgNode, comma, colon string, sorter keySorter) {
	switch n.kind {
	case 'n':
		b.WriteString("null")
	case 'b':
		b.WriteString(n.text)
	case 'd':
		b.WriteString(pgNumeric(n.text))
	case 's':
		writePGString(b, n.text)
	case 'a':
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteString(comma)
			}
			writePGJSON(b, e, comma, colon, sorter)
		}
		b.WriteByte(']')
	case 'o':
		// dedupe: the last value of a key wins
		type kv struct {
			k string
			v *pgNode
		}
		var kvs []kv
		for i, k := range n.keys {
			found := false
			for j := range kvs {
				if kvs[j].k == k {
					kvs[j].v = n.vals[i]
					found = true
				}
			}
			if !found {
				kvs = append(kvs, kv{k, n.vals[i]})
			}
		}
		sort.SliceStable(kvs, func(i, j int) bool {
			if len(kvs[i].k) != len(kvs[j].k) {
				return len(kvs[i].k) < len(kvs[j].k)
			}
			return kvs[i].k < kvs[j].k
		})
		b.WriteByte('{')
		for i, e := range kvs {
			if i > 0 {
				b.WriteString(comma)
			}
			writePGString(b, e.k)
			b.WriteString(colon)
			writePGJSON(b, e.v, comma, colon, sorter)
		}
		b.WriteByte('}')
	}
}

// writePGString is PostgreSQL's escape_json.
func writePGString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// pgNumeric renders a JSON number as PostgreSQL's numeric_out of
// numeric_in(text): exponent applied, display scale = max(0, fraction
// digits - exponent), no negative zero.
func pgNumeric(text string) string {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	mant, expS, _ := strings.Cut(strings.ToLower(text), "e")
	exp := 0
	if expS != "" {
		exp, _ = strconv.Atoi(expS)
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	scale := len(frac) - exp // value = digits * 10^-scale
	dscale := scale
	if dscale < 0 {
		dscale = 0
	}
	if scale < 0 {
		digits += strings.Repeat("0", -scale)
		scale = 0
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	ip := strings.TrimLeft(digits[:len(digits)-scale], "0")
	if ip == "" {
		ip = "0"
	}
	fp := digits[len(digits)-scale:]
	out := ip
	if dscale > 0 {
		out += "." + fp
	}
	if neg && strings.Trim(ip+fp, "0") != "" {
		out = "-" + out
	}
	return out
}
