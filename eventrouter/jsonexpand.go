package eventrouter

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// jnode is a parsed JSON value with Jackson's node kinds (numbers keep the
// int / long / BigInteger / double distinction; objects keep key order, a
// duplicate key keeps its first position and its last value).
type jnode struct {
	kind  jkind
	str   string // string value, or number text for big integers
	b     bool
	i     int64
	f     float64
	keys  []string
	vals  []*jnode
	elems []*jnode
}

type jkind int

const (
	jNull jkind = iota
	jBool
	jString
	jInt    // IntNode (fits int32)
	jLong   // LongNode
	jBigInt // BigIntegerNode
	jDouble // DoubleNode
	jArray
	jObject
)

func (n *jnode) isNumber() bool { return n.kind >= jInt && n.kind <= jDouble }

// nodeType is Jackson's JsonNodeType (numbers are one type).
func (n *jnode) nodeType() string {
	switch {
	case n.isNumber():
		return "NUMBER"
	case n.kind == jNull:
		return "NULL"
	case n.kind == jBool:
		return "BOOLEAN"
	case n.kind == jString:
		return "STRING"
	case n.kind == jArray:
		return "ARRAY"
	}
	return "OBJECT"
}

func (n *jnode) get(k string) (*jnode, bool) {
	for i, key := range n.keys {
		if key == k {
			return n.vals[i], true
		}
	}
	return nil, false
}

// asText is JsonNode.asText() (containers give "").
func (n *jnode) asText() string {
	switch n.kind {
	case jString:
		return n.str
	case jBool:
		return strconv.FormatBool(n.b)
	case jNull:
		return "null"
	case jInt, jLong:
		return strconv.FormatInt(n.i, 10)
	case jBigInt:
		return n.str
	case jDouble:
		return javatext.FormatDouble(n.f)
	}
	return ""
}

// parseJackson parses the first JSON value of s the way a default Jackson
// ObjectMapper.readTree does: strict JSON, trailing content ignored.
func parseJackson(s string) (*jnode, error) {
	p := &jparser{s: s}
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	return n, nil
}

type jparser struct {
	s string
	i int
}

var errJSON = errors.New("json parse error")

func (p *jparser) fail(msg string) error {
	return fmt.Errorf("%w at offset %d: %s", errJSON, p.i, msg)
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > 1000 {
		return nil, p.fail("nesting too deep")
	}
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		n := &jnode{kind: jObject}
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
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			replaced := false
			for j, key := range n.keys {
				if key == k {
					n.vals[j] = v
					replaced = true
					break
				}
			}
			if !replaced {
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
			p.ws()
			if p.i >= len(p.s) {
				return nil, p.fail("unexpected end of object")
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == '}' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected ',' or '}'")
		}
	case c == '[':
		p.i++
		n := &jnode{kind: jArray}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			p.ws()
			if p.i >= len(p.s) {
				return nil, p.fail("unexpected end of array")
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.s[p.i] == ']' {
				p.i++
				return n, nil
			}
			return nil, p.fail("expected ',' or ']'")
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, str: s}, nil
	case c == 't' && strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return &jnode{kind: jBool, b: true}, p.tokenEnd()
	case c == 'f' && strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return &jnode{kind: jBool}, p.tokenEnd()
	case c == 'n' && strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return &jnode{kind: jNull}, p.tokenEnd()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, p.fail("unexpected character")
}

// tokenEnd rejects "truex" like Jackson does.
func (p *jparser) tokenEnd() error {
	if p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
			return p.fail("unrecognized token")
		}
	}
	return nil
}

func (p *jparser) number() (*jnode, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if p.i == intStart {
		return nil, p.fail("invalid number")
	}
	if p.s[intStart] == '0' && p.i-intStart > 1 {
		return nil, p.fail("leading zeroes not allowed")
	}
	isFloat := false
	if p.i < len(p.s) && p.s[p.i] == '.' {
		isFloat = true
		p.i++
		fs := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == fs {
			return nil, p.fail("decimal point must be followed by a digit")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		isFloat = true
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		es := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == es {
			return nil, p.fail("exponent must have digits")
		}
	}
	if err := p.tokenEnd(); err != nil {
		return nil, err
	}
	text := p.s[start:p.i]
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, p.fail("invalid number")
		}
		return &jnode{kind: jDouble, f: f}, nil
	}
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return &jnode{kind: jInt, i: v}, nil
		}
		return &jnode{kind: jLong, i: v}, nil
	}
	bi, _ := new(big.Int).SetString(text, 10)
	return &jnode{kind: jBigInt, str: bi.String()}, nil
}

func (p *jparser) str() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("unescaped control character in string")
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", p.fail("unterminated escape")
			}
			e := p.s[p.i]
			p.i++
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
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					r2, err := p.hex4()
					if err == nil && utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
					} else {
						p.i = save
					}
				}
				b.WriteRune(r)
			default:
				return "", p.fail("unrecognized escape")
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func (p *jparser) hex4() (rune, error) {
	if p.i+4 > len(p.s) {
		return 0, p.fail("short unicode escape")
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, p.fail("bad unicode escape")
	}
	p.i += 4
	return rune(v), nil
}

// ---------------------------------------------------------------- schema inference (JsonSchemaData)

type jsonSchemaData struct {
	optionalBytesForNull bool
	adjust               func(string) string
}

func newJSONSchemaData(cfg *Config) *jsonSchemaData {
	d := &jsonSchemaData{optionalBytesForNull: cfg.JSONNullBehavior == "optional_bytes", adjust: func(s string) string { return s }}
	switch cfg.FieldNameAdjust {
	case "avro":
		d.adjust = func(s string) string { return avroFieldName(s, false) }
	case "avro_unicode":
		d.adjust = func(s string) string { return avroFieldName(s, true) }
	}
	return d
}

type jsonExpandError struct{ msg string }

func (e *jsonExpandError) Error() string { return e.msg }

// toConnectSchema infers the schema of n; key is the struct name for objects
// (hasKey false is Java's null key). A nil schema means "no schema" (JSON
// null under ignore, an empty array).
func (d *jsonSchemaData) toConnectSchema(key string, hasKey bool, n *jnode) (*Schema, error) {
	switch n.kind {
	case jString:
		return optional(String), nil
	case jBool:
		return optional(Boolean), nil
	case jInt:
		return optional(Int32), nil
	case jLong:
		return optional(Int64), nil
	case jBigInt, jDouble:
		return optional(Float64), nil
	case jArray:
		if len(n.elems) == 0 {
			return nil, nil
		}
		items, err := d.arraySchema(key, hasKey, n)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: Array, Optional: true, Items: items}, nil
	case jObject:
		s := &Schema{Type: StructT, Optional: true}
		if hasKey {
			s.Name = key
		}
		for i, k := range n.keys {
			name := d.adjust(k)
			fk := name
			if hasKey && strings.TrimSpace(key) != "" {
				fk = key + "." + name
			}
			fs, err := d.toConnectSchema(fk, true, n.vals[i])
			if err != nil {
				return nil, err
			}
			if fs != nil && s.Field(name) == nil {
				s.Fields = append(s.Fields, Field{Name: name, Schema: fs})
			}
		}
		return s, nil
	case jNull:
		if d.optionalBytesForNull {
			return optional(Bytes), nil
		}
		return nil, nil
	}
	return nil, nil
}

func (d *jsonSchemaData) arraySchema(key string, hasKey bool, arr *jnode) (*Schema, error) {
	sample, err := d.firstArrayElement(arr)
	if err != nil {
		return nil, err
	}
	if sample.kind == jObject {
		// Java collects the element schemas in a HashSet and merges them in
		// its (JVM-dependent) iteration order; distinct shapes therefore
		// merge in an order we cannot know. First-seen order is used here.
		var set []*Schema
		for _, e := range arr.elems {
			if e.kind != jObject {
				continue
			}
			s, err := d.toConnectSchema(key, hasKey, e)
			if err != nil {
				return nil, err
			}
			dup := false
			for _, o := range set {
				if o.Equal(s) {
					dup = true
					break
				}
			}
			if !dup {
				set = append(set, s)
			}
		}
		var merged *Schema
		for _, s := range set {
			merged = mergeSchema(merged, s)
		}
		return merged, nil
	}
	s, err := d.toConnectSchema("", false, sample)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, &jsonExpandError{fmt.Sprintf("Array '%s' has unrecognized member schema.", arr.asText())}
	}
	return s, nil
}

func (d *jsonSchemaData) firstArrayElement(arr *jnode) (*jnode, error) {
	ref := &jnode{kind: jNull}
	var refSchema *Schema
	for _, e := range arr.elems {
		if e.kind == jNull {
			continue
		}
		if ref.kind == jNull {
			ref = e
		}
		if e.nodeType() != ref.nodeType() {
			return nil, &jsonExpandError{fmt.Sprintf("Field is not a homogenous array (%s x %s).", ref.asText(), e.nodeType())}
		}
		if ref.isNumber() {
			if refSchema == nil {
				refSchema, _ = d.toConnectSchema("", false, ref)
			}
			es, _ := d.toConnectSchema("", false, e)
			if es.Type != refSchema.Type {
				return nil, &jsonExpandError{fmt.Sprintf("Field is not a homogenous array (%s x %s), different number types (%s x %s)", ref.asText(), e.asText(), refSchema, es)}
			}
		}
	}
	return ref, nil
}

// mergeSchema unions struct fields; the merged schema copies name, version,
// doc and parameters but not the optional flag (SchemaUtil.copySchemaBasics),
// so it is required.
func mergeSchema(left, right *Schema) *Schema {
	if left == nil {
		return right
	}
	fields := append([]Field{}, left.Fields...)
	for _, f := range right.Fields {
		idx := -1
		for i := range fields {
			if fields[i].Name == f.Name {
				idx = i
				break
			}
		}
		if idx < 0 {
			fields = append(fields, f)
		} else if !fields[idx].Schema.Equal(f.Schema) && fields[idx].Schema.Type == Bytes && f.Schema.Type != Bytes {
			fields[idx] = f
		}
	}
	return &Schema{Type: left.Type, Name: left.Name, Version: left.Version, Doc: left.Doc, Parameters: left.Parameters, Fields: fields}
}

// toConnectData builds the struct for the top-level document.
func (d *jsonSchemaData) toConnectData(n *jnode, s *Schema) (any, error) {
	return d.toStruct(n, s)
}

func (d *jsonSchemaData) toStruct(n *jnode, s *Schema) (*Struct, error) {
	if s == nil {
		return nil, taskErr(excNPE, "schema is null")
	}
	if s.Type != StructT {
		return nil, dataException("Not a struct schema: %s", s)
	}
	st := NewStruct(s)
	for _, f := range s.Fields {
		child, ok := n.get(f.Name)
		if !ok || n.kind != jObject {
			continue
		}
		v, err := d.fieldValue(child, f.Schema)
		if err != nil {
			return nil, err
		}
		if err := st.Put(f.Name, v); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func (d *jsonSchemaData) fieldValue(n *jnode, s *Schema) (any, error) {
	switch n.kind {
	case jString:
		return n.str, nil
	case jBool:
		return n.b, nil
	case jDouble:
		return n.f, nil
	case jInt:
		return int32(n.i), nil
	case jLong:
		return n.i, nil
	case jBigInt:
		return bigDecimal(n.str), nil
	case jArray:
		out := make([]any, 0, len(n.elems))
		for _, e := range n.elems {
			var es *Schema
			if s != nil {
				es = s.Items
			}
			v, err := d.fieldValue(e, es)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case jObject:
		return d.toStruct(n, s)
	}
	return nil, nil
}

// avroFieldName is Debezium's AVRO_FIELD_NAMER / AVRO_UNICODE_FIELD_NAMER.
func avroFieldName(s string, unicode bool) string {
	if s == "" {
		return s
	}
	u := utf16.Encode([]rune(s))
	validFirst := func(c uint16) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (!unicode && c == '_')
	}
	validNext := func(c uint16) bool { return validFirst(c) || c >= '0' && c <= '9' }
	repl := func(c uint16) string {
		if !unicode {
			return "_"
		}
		h := strconv.FormatInt(int64(c), 16)
		if len(h) <= 2 {
			h = "00" + h
		}
		return "_u" + h
	}
	var b strings.Builder
	changed := false
	for i, c := range u {
		ok := validNext(c)
		if i == 0 {
			ok = validFirst(c)
		}
		if ok {
			b.WriteString(string(utf16.Decode([]uint16{c})))
			continue
		}
		changed = true
		b.WriteString(repl(c))
		if i == 0 && !unicode && c >= '0' && c <= '9' {
			b.WriteByte(byte(c))
		}
	}
	if !changed {
		return s
	}
	return b.String()
}
