package javatext

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Node is a parsed JSON value, shaped like the tree Jackson's
// ObjectMapper.readTree builds: objects keep their keys in first-seen
// order, and a repeated key keeps its first position and takes the last
// value.
type Node struct {
	Kind Kind
	// Offset is the byte offset in the parsed text where the value starts
	// (callers turn it into line:col).
	Offset int
	Bool   bool
	// Text is a string's value, or a number's literal as written.
	Text  string
	Elems []*Node  // array elements
	Keys  []string // object keys in first-seen order
	Vals  []*Node  // Vals[i] is the value of Keys[i]
}

// NumberKind is the JsonNode class Jackson's readTree builds for a number
// with default settings.
type NumberKind uint8

// The number node kinds.
const (
	NotNumber  NumberKind = iota
	IntNode               // integer literal in Java int range
	LongNode              // integer literal in Java long range
	BigIntNode            // larger integer literal (BigIntegerNode)
	DoubleNode            // literal with a fraction or an exponent
)

// NumberKind reports which node Jackson builds for n (NotNumber for
// other kinds).
func (n *Node) NumberKind() NumberKind {
	if n == nil || n.Kind != Number {
		return NotNumber
	}
	if strings.ContainsAny(n.Text, ".eE") {
		return DoubleNode
	}
	v, err := strconv.ParseInt(n.Text, 10, 64)
	switch {
	case err != nil:
		return BigIntNode
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return IntNode
	}
	return LongNode
}

// Get returns the value of key in an object, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i, k := range n.Keys {
		if k == key {
			return n.Vals[i]
		}
	}
	return nil
}

// Clone deep-copies n, strings included, so that the copy keeps neither
// the parsed text nor the parser's node blocks alive.
func (n *Node) Clone() *Node {
	c := &Node{Kind: n.Kind, Offset: n.Offset, Bool: n.Bool, Text: strings.Clone(n.Text)}
	if n.Elems != nil {
		c.Elems = make([]*Node, len(n.Elems))
		for i, e := range n.Elems {
			c.Elems[i] = e.Clone()
		}
	}
	if n.Keys != nil {
		c.Keys = make([]string, len(n.Keys))
		for i, k := range n.Keys {
			c.Keys[i] = strings.Clone(k)
		}
		c.Vals = make([]*Node, len(n.Vals))
		for i, v := range n.Vals {
			c.Vals[i] = v.Clone()
		}
	}
	return c
}

// String renders n as compact JSON for messages: strings escaped as
// Jackson escapes them, numbers as written (JsonNode.toString would print
// a DoubleNode's Double.toString instead; schemas/avro's Java string
// rendering does that).
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *Node) write(b *strings.Builder) {
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case Number:
		b.WriteString(n.Text)
	case String:
		WriteString(b, n.Text)
	case Array:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	default:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			WriteString(b, k)
			b.WriteByte(':')
			n.Vals[i].write(b)
		}
		b.WriteByte('}')
	}
}

// DefaultMaxDepth is Jackson's default maximum nesting depth
// (StreamReadConstraints, jackson-core 2.15+): 1000 nested arrays and
// objects are read, 1001 are not.
const DefaultMaxDepth = 1000

// ParseOptions select the Jackson parser features that differ between
// callers.
type ParseOptions struct {
	// AllowComments accepts /* … */ and // … comments wherever whitespace
	// may be (Jackson's ALLOW_COMMENTS, which Avro Java's schema parser
	// enables). An unterminated /* comment runs to the end of the input.
	AllowComments bool
	// MaxDepth bounds the nesting of arrays and objects: 0 means
	// DefaultMaxDepth, a negative value no bound.
	MaxDepth int
}

// ErrNoContent is what a SyntaxError unwraps to when the text holds
// nothing but whitespace (and comments).
var ErrNoContent = errors.New("no content")

// SyntaxError is malformed JSON at byte offset Offset.
type SyntaxError struct {
	Offset int
	Msg    string
	err    error
}

func (e *SyntaxError) Error() string { return e.Msg }

// Unwrap returns ErrNoContent for empty input, else nil.
func (e *SyntaxError) Unwrap() error { return e.err }

// ParseJSON parses the JSON value that starts at byte offset start of s,
// after whitespace, the way Jackson's parser reads one value: strict RFC
// 8259 syntax (unless opts allow comments), numbers kept as written, a
// string's invalid \u surrogates as U+FFFD and its other bytes as they
// are. It returns the value and the offset just past it; what follows is
// the caller's business (Jackson's readTree ignores it, Avro rejects it).
// Errors are *SyntaxError.
func ParseJSON(s string, start int, opts ParseOptions) (*Node, int, error) {
	p := &parser{s: s, pos: start, comments: opts.AllowComments, maxDepth: opts.MaxDepth}
	if p.maxDepth == 0 {
		p.maxDepth = DefaultMaxDepth
	}
	p.ws()
	if p.pos >= len(p.s) {
		return nil, p.pos, &SyntaxError{Offset: p.pos, Msg: "no content", err: ErrNoContent}
	}
	n, err := p.value()
	if err != nil {
		return nil, p.pos, err
	}
	return n, p.pos, nil
}

type parser struct {
	s        string
	pos      int
	depth    int
	maxDepth int
	comments bool
	slab     []Node // nodes are carved from here to save allocations
}

func (p *parser) node(kind Kind, off int) *Node {
	if len(p.slab) == 0 {
		p.slab = make([]Node, 64)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.Kind, n.Offset = kind, off
	return n
}

func (p *parser) errf(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

func (p *parser) ws() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		case '/':
			if !p.comments || p.pos+1 >= len(p.s) {
				return
			}
			switch p.s[p.pos+1] {
			case '/':
				p.pos += 2
				for p.pos < len(p.s) && p.s[p.pos] != '\n' && p.s[p.pos] != '\r' {
					p.pos++
				}
			case '*':
				end := strings.Index(p.s[p.pos+2:], "*/")
				if end < 0 {
					p.pos = len(p.s)
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

func (p *parser) value() (*Node, error) {
	if p.pos >= len(p.s) {
		return nil, p.errf("unexpected end of input")
	}
	start := p.pos
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n := p.node(String, start)
		n.Text = s
		return n, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		n := p.node(Bool, start)
		n.Bool = true
		return p.lit("true", n)
	case c == 'f':
		return p.lit("false", p.node(Bool, start))
	case c == 'n':
		return p.lit("null", p.node(Null, start))
	default:
		return nil, p.errf("unexpected character " + strconv.QuoteRune(rune(c)))
	}
}

func (p *parser) lit(word string, n *Node) (*Node, error) {
	if !strings.HasPrefix(p.s[p.pos:], word) {
		return nil, p.errf("invalid literal")
	}
	p.pos += len(word)
	return n, nil
}

func (p *parser) number() (*Node, error) {
	start := p.pos
	if p.s[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	intStart := p.pos
	nd := digits()
	if nd == 0 {
		return nil, p.errf("invalid number")
	}
	if nd > 1 && p.s[intStart] == '0' {
		return nil, &SyntaxError{Offset: intStart, Msg: "invalid number: leading zeroes not allowed"}
	}
	if p.pos < len(p.s) && p.s[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errf("invalid number: no digit after the decimal point")
		}
	}
	if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errf("invalid number: no digit in the exponent")
		}
	}
	n := p.node(Number, start)
	n.Text = p.s[start:p.pos]
	return n, nil
}

func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	// Fast path: no escapes.
	for i := p.pos; i < len(p.s); i++ {
		c := p.s[i]
		if c == '"' {
			s := p.s[p.pos:i]
			p.pos = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", p.errf("unterminated string")
		}
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if p.pos+1 >= len(p.s) {
				return "", p.errf("unterminated string")
			}
			e := p.s[p.pos+1]
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
					if p.pos+1 < len(p.s) && p.s[p.pos] == '\\' && p.s[p.pos+1] == 'u' {
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
				return "", &SyntaxError{Offset: p.pos - 2, Msg: "invalid escape \\" + string(rune(e))}
			}
		case c < 0x20:
			return "", p.errf("control character in string")
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

func (p *parser) enter() error {
	if p.depth++; p.maxDepth > 0 && p.depth > p.maxDepth {
		return p.errf("too deeply nested")
	}
	return nil
}

func (p *parser) array() (*Node, error) {
	n := p.node(Array, p.pos)
	p.pos++
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Elems = append(n.Elems, v)
		p.ws()
		if p.pos >= len(p.s) {
			return nil, p.errf("unexpected end of input in array")
		}
		switch p.s[p.pos] {
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

func (p *parser) object() (*Node, error) {
	n := p.node(Object, p.pos)
	n.Keys = make([]string, 0, 4)
	n.Vals = make([]*Node, 0, 4)
	p.pos++
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.ws()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			return nil, p.errf("expected a string key in object")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, p.errf("expected ':' after object key")
		}
		p.pos++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		dup := false
		for i, old := range n.Keys {
			if old == k {
				n.Vals[i], dup = v, true // Jackson: the last value wins, in the first place
				break
			}
		}
		if !dup {
			n.Keys = append(n.Keys, k)
			n.Vals = append(n.Vals, v)
		}
		p.ws()
		if p.pos >= len(p.s) {
			return nil, p.errf("unexpected end of input in object")
		}
		switch p.s[p.pos] {
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
