package avro

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// jkind is the kind of a JSON value.
type jkind byte

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jnode is a JSON value with the byte offset where it starts. Objects keep
// their keys in first-seen order; a repeated key replaces the value (as
// Jackson's readTree does).
type jnode struct {
	kind  jkind
	off   int
	b     bool
	s     string // string value, or the number's lexeme
	elems []*jnode
	keys  []string // object keys in first-seen order
	vals  []*jnode // vals[i] is the value of keys[i]
}

func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// text is Jackson's textValue(): the string, or "" and false for other
// kinds.
func (n *jnode) text() (string, bool) {
	if n == nil || n.kind != jString {
		return "", false
	}
	return n.s, true
}

// integral reports a JSON number written without fraction or exponent
// (Jackson's isIntegralNumber).
func (n *jnode) integral() bool {
	return n.kind == jNumber && !strings.ContainsAny(n.s, ".eE")
}

// fitsInt reports an integral number in Java int range.
func (n *jnode) fitsInt() bool {
	if !n.integral() {
		return false
	}
	v, err := strconv.ParseInt(n.s, 10, 64)
	return err == nil && v >= math.MinInt32 && v <= math.MaxInt32
}

// fitsLong reports an integral number in Java long range.
func (n *jnode) fitsLong() bool {
	if !n.integral() {
		return false
	}
	_, err := strconv.ParseInt(n.s, 10, 64)
	return err == nil
}

// value converts the node to an Avro JSON value (encoding/json with
// UseNumber shapes).
func (n *jnode) value() any {
	switch n.kind {
	case jNull:
		return nil
	case jBool:
		return n.b
	case jNumber:
		return json.Number(n.s)
	case jString:
		return n.s
	case jArray:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			out[i] = e.value()
		}
		return out
	default:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			out[k] = n.vals[i].value()
		}
		return out
	}
}

// clone deep-copies n out of the parser's slab, so that a schema keeps only
// the JSON it needs (defaults and properties) alive.
func (n *jnode) clone() *jnode {
	c := &jnode{kind: n.kind, off: n.off, b: n.b, s: n.s}
	if n.elems != nil {
		c.elems = make([]*jnode, len(n.elems))
		for i, e := range n.elems {
			c.elems[i] = e.clone()
		}
	}
	if n.keys != nil {
		c.keys = append([]string(nil), n.keys...)
		c.vals = make([]*jnode, len(n.vals))
		for i, v := range n.vals {
			c.vals[i] = v.clone()
		}
	}
	return c
}

// String renders the node as compact JSON (for messages, like Jackson's
// toString): numbers as written, strings escaped as Jackson escapes them.
func (n *jnode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *jnode) write(b *strings.Builder) {
	switch n.kind {
	case jNull:
		b.WriteString("null")
	case jBool:
		b.WriteString(strconv.FormatBool(n.b))
	case jNumber:
		b.WriteString(n.s)
	case jString:
		javatext.WriteString(b, n.s)
	case jArray:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			javatext.WriteString(b, k)
			b.WriteByte(':')
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	}
}

// jsonParser is a small RFC 8259 parser that records offsets.
type jsonParser struct {
	data  []byte
	pos   int
	depth int
	slab  []jnode // nodes are carved from here to save allocations
}

func (p *jsonParser) node(kind jkind, off int) *jnode {
	if len(p.slab) == 0 {
		p.slab = make([]jnode, 64)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.kind, n.off = kind, off
	return n
}

// maxJSONDepth bounds nesting so that hostile input cannot exhaust the
// stack.
const maxJSONDepth = 1000

type jsonSyntaxError struct {
	off int
	msg string
}

func (e *jsonSyntaxError) Error() string { return e.msg }

func parseJSON(data []byte, start int) (*jnode, error) {
	p := &jsonParser{data: data, pos: start}
	p.ws()
	if p.pos >= len(p.data) {
		return nil, &jsonSyntaxError{p.pos, "no content: empty schema"}
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	// Java checks what follows the schema with String.trim(): only
	// characters up to ' ' may follow, not even a comment.
	for p.pos < len(p.data) && p.data[p.pos] <= ' ' {
		p.pos++
	}
	if p.pos < len(p.data) {
		return nil, &jsonSyntaxError{p.pos, "dangling content after end of schema: " + strings.TrimSpace(string(p.data[p.pos:]))}
	}
	return n, nil
}

// ws skips whitespace and, as Avro's Jackson parser has ALLOW_COMMENTS
// enabled, /* … */ and // … comments. An unterminated comment runs to the
// end of the input (and the caller then reports an unexpected end).
func (p *jsonParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		case '/':
			if p.pos+1 >= len(p.data) {
				return
			}
			switch p.data[p.pos+1] {
			case '/':
				p.pos += 2
				for p.pos < len(p.data) && p.data[p.pos] != '\n' && p.data[p.pos] != '\r' {
					p.pos++
				}
			case '*':
				end := strings.Index(string(p.data[p.pos+2:]), "*/")
				if end < 0 {
					p.pos = len(p.data)
					return
				}
				p.pos += 2 + end + 2
			default:
				return
			}
		default:
			return
		}
	}
}

func (p *jsonParser) errf(format string, args ...any) error {
	return &jsonSyntaxError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *jsonParser) value() (*jnode, error) {
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n := p.node(jString, start)
		n.s = s
		return n, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		n := p.node(jBool, start)
		n.b = true
		return p.lit("true", n)
	case c == 'f':
		return p.lit("false", p.node(jBool, start))
	case c == 'n':
		return p.lit("null", p.node(jNull, start))
	default:
		return nil, p.errf("unexpected character %q", rune(c))
	}
}

func (p *jsonParser) lit(word string, n *jnode) (*jnode, error) {
	if strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) && len(p.data)-p.pos >= len(word) {
		p.pos += len(word)
		return n, nil
	}
	return nil, p.errf("invalid literal")
}

func (p *jsonParser) number() (*jnode, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	intStart := p.pos
	nd := digits()
	if nd == 0 {
		return nil, p.errf("invalid number")
	}
	if nd > 1 && p.data[intStart] == '0' {
		return nil, &jsonSyntaxError{intStart, "invalid number: leading zeroes not allowed"}
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errf("invalid number: no digit after the decimal point")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errf("invalid number: no digit in the exponent")
		}
	}
	n := p.node(jNumber, start)
	n.s = string(p.data[start:p.pos])
	return n, nil
}

func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	// Fast path: no escapes.
	for i := p.pos; i < len(p.data); i++ {
		c := p.data[i]
		if c == '"' {
			s := string(p.data[p.pos:i])
			p.pos = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b strings.Builder
	for {
		if p.pos >= len(p.data) {
			return "", p.errf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.errf("unterminated string")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errf("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// a following \uXXXX low surrogate completes the pair
					if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						if r2, ok := p.hex4(); ok {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								b.WriteRune(d)
								continue
							}
						}
						p.pos = save
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				return "", &jsonSyntaxError{p.pos - 2, fmt.Sprintf("invalid escape \\%c", e)}
			}
		case c < 0x20:
			return "", p.errf("control character in string")
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

func (p *jsonParser) array() (*jnode, error) {
	n := p.node(jArray, p.pos)
	p.pos++
	if p.depth++; p.depth > maxJSONDepth {
		return nil, p.errf("too deeply nested")
	}
	defer func() { p.depth-- }()
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return nil, p.errf("expected ',' or ']' in array")
		}
	}
}

func (p *jsonParser) object() (*jnode, error) {
	n := p.node(jObject, p.pos)
	n.keys = make([]string, 0, 4)
	n.vals = make([]*jnode, 0, 4)
	p.pos++
	if p.depth++; p.depth > maxJSONDepth {
		return nil, p.errf("too deeply nested")
	}
	defer func() { p.depth-- }()
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected a string key in object")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':' after object key")
		}
		p.pos++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		dup := false
		for i, old := range n.keys {
			if old == k {
				n.vals[i], dup = v, true // Jackson: the last value wins, in the first place
				break
			}
		}
		if !dup {
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, v)
		}
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return n, nil
		default:
			return nil, p.errf("expected ',' or '}' in object")
		}
	}
}

// lineIndex maps byte offsets to 1-based line and column.
type lineIndex []int // offsets of line starts

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) pos(file string, off int) Position {
	i := sort.Search(len(li), func(i int) bool { return li[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return Position{File: file, Line: i + 1, Col: off - li[i] + 1, Offset: off}
}
