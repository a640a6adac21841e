package avro

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/outboxctl/outboxctl/internal/javatext"
	"github.com/outboxctl/outboxctl/spec"
)

// ErrInvalidSchema is what every *ParseError unwraps to.
var ErrInvalidSchema = errors.New("invalid avro schema")

// ParseError is a schema that Avro Java would reject, with the place of the
// offending JSON value.
type ParseError struct {
	Pos Position
	Msg string
}

// Error is "file:line:col: message" ("<input>" when there is no file).
func (e *ParseError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns ErrInvalidSchema.
func (e *ParseError) Unwrap() error { return ErrInvalidSchema }

// NameValidation selects how names (type names, namespace parts, field
// names, enum symbols, aliases) are validated, mirroring Java's
// NameValidator.
type NameValidation int

const (
	// StrictNames is NameValidator.STRICT_VALIDATOR, what Confluent uses
	// for a new schema: [A-Za-z_][A-Za-z0-9_]*.
	StrictNames NameValidation = iota
	// UnicodeNames is NameValidator.UTF_VALIDATOR, Java's default: Unicode
	// letters and digits.
	UnicodeNames
	// NoNameValidation is NameValidator.NO_VALIDATION.
	NoNameValidation
)

// Options tune Parse. The zero value is Confluent's parse of a new schema on
// Avro 1.12: strict names and default validation where a union default
// may match any branch.
type Options struct {
	// File names the source in positions and errors.
	File string
	// Names is the name validation (default StrictNames).
	Names NameValidation
	// SkipDefaultValidation accepts defaults that do not match their
	// field's type, as Confluent does for schemas it already stores.
	SkipDefaultValidation bool
	// UnionDefaultFirstBranch applies Avro 1.11's rule (CP 7.x) that a
	// union default must match the union's first branch. Avro 1.12
	// (AVRO-3649, CP 8.x) accepts a default that matches any branch.
	UnionDefaultFirstBranch bool
	// RegisteredNames applies, after the parse, the check Confluent makes
	// on a registered schema parsed without name validation
	// (AvroSchemaUtils.validateNames): the short names of named types, field
	// names and enum symbols of the schema itself (not of Named, not
	// namespaces or aliases) must pass the Unicode name rule.
	RegisteredNames bool
	// Named are named types defined elsewhere (Confluent schema references)
	// that the schema may refer to by full name.
	Named []NamedSchema
}

// Lenient are the options Confluent uses to load schemas it already stores:
// no name validation and no default validation while parsing, then the
// Unicode name rule on the schema's own names (RegisteredNames).
func Lenient() Options {
	return Options{Names: NoNameValidation, SkipDefaultValidation: true, RegisteredNames: true}
}

// Parse parses an Avro schema with the default Options. Errors are
// *ParseError.
func Parse(data []byte) (Schema, error) { return ParseWith(data, Options{}) }

// ParseWithNamed parses a schema that may refer to the named types named
// (Confluent references, parsed before, in dependency order).
func ParseWithNamed(data []byte, named ...NamedSchema) (Schema, error) {
	return ParseWith(data, Options{Named: named})
}

// MaxFileSize is the largest schema file ReadFile and ParseFile read
// (16 MiB).
const MaxFileSize = 16 << 20

// ReadFile reads a schema file: a regular file of at most MaxFileSize
// bytes (a missing file keeps fs.ErrNotExist).
func ReadFile(path string) ([]byte, error) { return spec.ReadFileLimit(path, MaxFileSize) }

// ParseFile reads (ReadFile) and parses the schema in path; positions carry
// path.
func ParseFile(path string) (Schema, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseWith(data, Options{File: path})
}

// ParseWith parses data with opts.
func ParseWith(data []byte, opts Options) (s Schema, err error) {
	p := &parser{opts: opts, li: newLineIndex(data), defined: map[string]NamedSchema{}, old: map[string]NamedSchema{}, phEdges: map[edge]bool{}}
	for _, n := range opts.Named {
		if n != nil {
			p.old[n.FullName()] = n
		}
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, &ParseError{Pos: p.li.pos(opts.File, off), Msg: "invalid UTF-8"}
	}
	// A UTF-8 byte order mark is skipped, as Jackson does for files.
	start := 0
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		start = 3
	}
	root, err := parseJSON(data, start)
	if err != nil {
		var se *javatext.SyntaxError
		if errors.As(err, &se) {
			return nil, &ParseError{Pos: p.li.pos(opts.File, se.Offset), Msg: se.Msg}
		}
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*ParseError)
			if !ok {
				panic(r)
			}
			s, err = nil, pe
		}
	}()
	s = p.parse(root, "")
	s = p.resolveAll(s)
	if !opts.SkipDefaultValidation {
		p.revalidate()
	}
	if opts.RegisteredNames {
		p.registeredNames(s)
	}
	return s, nil
}

// registeredNames is Confluent's AvroSchemaUtils.validateNames.
func (p *parser) registeredNames(root Schema) {
	seen := map[Schema]bool{}
	check := func(pos Position, name string) {
		if msg := checkName(UnicodeNames, name); msg != "" {
			panic(&ParseError{Pos: pos, Msg: msg})
		}
	}
	var walk func(Schema)
	walk = func(s Schema) {
		if seen[s] {
			return
		}
		seen[s] = true
		if n, ok := s.(NamedSchema); ok && p.old[n.FullName()] == n {
			return
		}
		switch t := s.(type) {
		case *Record:
			check(t.Pos, t.Name)
			for _, f := range t.Fields {
				check(f.Pos, f.Name)
				walk(f.Type)
			}
		case *Enum:
			check(t.Pos, t.Name)
			for _, sym := range t.Symbols {
				check(t.Pos, sym)
			}
		case *Fixed:
			check(t.Pos, t.Name)
		case *Array:
			walk(t.Items)
		case *Map:
			walk(t.Values)
		case *Union:
			for _, b := range t.Branches {
				walk(b)
			}
		}
	}
	walk(root)
}

type parser struct {
	opts    Options
	li      lineIndex
	old     map[string]NamedSchema // opts.Named
	defined map[string]NamedSchema // named types of this schema, put when complete
	// putOrder is the order in which named types were completed (Java's
	// ParseContext insertion order); phEdges are the references that were
	// unresolved when parsed (Java placeholders). Both drive revalidate.
	putOrder []NamedSchema
	phEdges  map[edge]bool
	// openRecord, during revalidate, tells the records whose Java copy has
	// no fields yet.
	openRecord func(*Record) bool
}

// edge is the i-th child of a record (field), union (branch), array or map.
type edge struct {
	parent Schema
	i      int
}

// unresolved stands for a name used before its type is complete (a forward
// or recursive reference). Java uses an empty placeholder record, and so
// validates defaults against it as against an empty record; so does this
// parser. Every unresolved is replaced once the whole schema is parsed.
type unresolved struct {
	name string
	pos  Position
}

func (u *unresolved) Type() Type         { return TypeRecord }
func (u *unresolved) Position() Position { return u.pos }
func (u *unresolved) Properties() Props  { return nil }

func (p *parser) pos(n *jnode) Position { return p.li.pos(p.opts.File, n.Offset) }

func (p *parser) fail(n *jnode, format string, args ...any) {
	panic(&ParseError{Pos: p.pos(n), Msg: fmt.Sprintf(format, args...)})
}

var primitiveTypes = map[string]Type{
	"null": TypeNull, "boolean": TypeBoolean, "int": TypeInt, "long": TypeLong,
	"float": TypeFloat, "double": TypeDouble, "bytes": TypeBytes, "string": TypeString,
}

var (
	schemaReserved = map[string]bool{"doc": true, "fields": true, "items": true, "name": true, "namespace": true, "size": true, "symbols": true, "values": true, "type": true, "aliases": true}
	enumReserved   = map[string]bool{"doc": true, "fields": true, "items": true, "name": true, "namespace": true, "size": true, "symbols": true, "values": true, "type": true, "aliases": true, "default": true}
	fieldReserved  = map[string]bool{"default": true, "doc": true, "name": true, "order": true, "type": true, "aliases": true}
)

func (p *parser) parse(n *jnode, ns string) Schema {
	switch n.Kind {
	case jString:
		return p.find(n, n.Text, ns)
	case jObject:
		typ, ok := nodeText(n.Get("type"))
		if !ok {
			p.fail(n, "no type: %s", n)
		}
		if t, ok := primitiveTypes[typ]; ok {
			s := &Primitive{Kind: t, Pos: p.pos(n)}
			s.Props = props(n, schemaReserved)
			s.Logical = logicalType(s, s.Props)
			return s
		}
		switch typ {
		case "record", "error":
			return p.parseRecord(n, ns, typ == "error")
		case "enum":
			return p.parseEnum(n, ns)
		case "array":
			items := n.Get("items")
			if items == nil {
				p.fail(n, "array has no items type: %s", n)
			}
			s := &Array{Pos: p.pos(n)}
			s.Items = p.parse(items, ns)
			s.Props = props(n, schemaReserved)
			return s
		case "map":
			values := n.Get("values")
			if values == nil {
				p.fail(n, "map has no values type: %s", n)
			}
			s := &Map{Pos: p.pos(n)}
			s.Values = p.parse(values, ns)
			s.Props = props(n, schemaReserved)
			return s
		case "fixed":
			return p.parseFixed(n, ns)
		default:
			return p.find(n.Get("type"), typ, ns)
		}
	case jArray:
		u := &Union{Pos: p.pos(n)}
		for _, e := range n.Elems {
			u.Branches = append(u.Branches, p.parse(e, ns))
		}
		p.checkUnion(n, u)
		return u
	default:
		p.fail(n, "schema not yet supported: %s", n)
		return nil
	}
}

// find is Java's ParseContext.find: a primitive name, else the name
// qualified with the current namespace, else the name as is; a name not
// (yet) defined is an unresolved reference to the qualified name.
func (p *parser) find(n *jnode, name, ns string) Schema {
	if t, ok := primitiveTypes[name]; ok {
		return &Primitive{Kind: t, Pos: p.pos(n)}
	}
	full := name
	if ns != "" && !strings.Contains(name, ".") {
		full = ns + "." + name
	}
	if s := p.lookup(full); s != nil {
		return s
	}
	if s := p.lookup(name); s != nil {
		return s
	}
	return &unresolved{name: full, pos: p.pos(n)}
}

func (p *parser) lookup(full string) Schema {
	if s, ok := p.old[full]; ok {
		return s
	}
	if s, ok := p.defined[full]; ok {
		return s
	}
	return nil
}

func (p *parser) checkUnion(n *jnode, u *Union) {
	seen := map[string]bool{}
	for i, b := range u.Branches {
		if b.Type() == TypeUnion {
			p.fail(n.Elems[i], "nested union: %s", n)
		}
		name := TypeName(b)
		if ur, ok := b.(*unresolved); ok {
			name = "\x00unresolved:" + ur.name + strconv.Itoa(i)
		}
		if seen[name] {
			p.fail(n.Elems[i], "duplicate in union: %s", name)
		}
		seen[name] = true
	}
}

// parseName is Java's parseName plus the Name constructor: an explicit
// namespace (a string) wins over the enclosing one, a dotted name carries
// its own namespace, and "" is the null namespace.
func (p *parser) parseName(n *jnode, ns string) Named {
	if space, ok := nodeText(n.Get("namespace")); ok {
		ns = space
	}
	nameNode := n.Get("name")
	name, ok := nodeText(nameNode)
	if !ok {
		p.fail(n, "no name in schema: %s", n)
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		ns, name = name[:i], name[i+1:]
	}
	p.validateName(nameNode, name)
	if _, prim := primitiveTypes[qualify(ns, name)]; prim {
		p.fail(nameNode, "schemas may not be named after primitives: %s", name)
	}
	return Named{Name: name, Namespace: ns, Doc: text(n.Get("doc"))}
}

func qualify(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "." + name
}

func text(n *jnode) string { s, _ := nodeText(n); return s }

// validateName applies the configured NameValidator to one name.
func (p *parser) validateName(at *jnode, name string) {
	if msg := checkName(p.opts.Names, name); msg != "" {
		p.fail(at, "%s", msg)
	}
}

func checkName(v NameValidation, name string) string {
	if v == NoNameValidation {
		return ""
	}
	if name == "" {
		return "empty name"
	}
	letter := func(r rune) bool {
		if v == StrictNames {
			return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		}
		return unicode.IsLetter(r)
	}
	digit := func(r rune) bool {
		if v == StrictNames {
			return r >= '0' && r <= '9'
		}
		return unicode.IsDigit(r)
	}
	for i, r := range name {
		if i == 0 {
			if !letter(r) && r != '_' {
				return "illegal initial character: " + name
			}
			continue
		}
		if !letter(r) && !digit(r) && r != '_' {
			return "illegal character in: " + name
		}
	}
	return ""
}

// parseAliases reads an "aliases" array (nil when absent).
func (p *parser) parseAliases(n *jnode) ([]string, []*jnode) {
	a := n.Get("aliases")
	if a == nil {
		return nil, nil
	}
	if a.Kind != jArray {
		p.fail(a, "aliases not an array: %s", n)
	}
	var out []string
	var nodes []*jnode
	seen := map[string]bool{}
	for _, e := range a.Elems {
		s, ok := nodeText(e)
		if !ok {
			p.fail(e, "alias not a string: %s", e)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
			nodes = append(nodes, e)
		}
	}
	return out, nodes
}

// namedAliases qualifies a named type's aliases with its namespace, as
// Java's addAlias does, validating each alias's short name.
func (p *parser) namedAliases(n *jnode, nm *Named) {
	aliases, nodes := p.parseAliases(n)
	seen := map[string]bool{}
	for i, a := range aliases {
		ns, short := nm.Namespace, a
		if j := strings.LastIndexByte(a, '.'); j >= 0 {
			ns, short = a[:j], a[j+1:]
		}
		p.validateName(nodes[i], short)
		full := qualify(ns, short)
		if !seen[full] {
			seen[full] = true
			nm.Aliases = append(nm.Aliases, full)
		}
	}
}

// put registers a complete named type (Java's ParseContext.put): every
// namespace part is validated, and a second definition of the same full
// name must be equal to the first.
func (p *parser) put(n *jnode, s NamedSchema) NamedSchema {
	nm := s.Names()
	if nm.Namespace != "" {
		for _, part := range strings.Split(nm.Namespace, ".") {
			if msg := checkName(p.opts.Names, part); msg != "" {
				p.fail(n, "namespace part %q is invalid: %s", part, msg)
			}
		}
	}
	full := s.FullName()
	if prev := p.lookup(full); prev != nil {
		if !Equal(prev, s) {
			p.fail(n, "can't redefine: %s", full)
		}
		return prev.(NamedSchema)
	}
	p.defined[full] = s
	p.putOrder = append(p.putOrder, s)
	return s
}

func (p *parser) parseRecord(n *jnode, ns string, isError bool) Schema {
	r := &Record{Named: p.parseName(n, ns), IsError: isError, Pos: p.pos(n)}
	fieldsNode := n.Get("fields")
	if fieldsNode == nil || fieldsNode.Kind != jArray {
		p.fail(n, "record has no fields: %s", n)
	}
	byName := map[string]bool{}
	for i, fn := range fieldsNode.Elems {
		f := p.parseField(fn, r.Namespace)
		f.Index = i
		if byName[f.Name] {
			p.fail(fn, "duplicate field %s in record %s", f.Name, r.FullName())
		}
		byName[f.Name] = true
		r.Fields = append(r.Fields, f)
	}
	r.Props = props(n, schemaReserved)
	p.namedAliases(n, &r.Named)
	return p.put(n, r)
}

func (p *parser) parseField(n *jnode, ns string) *Field {
	nameNode := n.Get("name")
	name, ok := nodeText(nameNode)
	if !ok {
		p.fail(n, "no field name: %s", n)
	}
	typeNode := n.Get("type")
	if typeNode == nil {
		p.fail(n, "no field type: %s", n)
	}
	f := &Field{Name: name, Doc: text(n.Get("doc")), Order: OrderAscending, Pos: p.pos(n)}
	f.Type = p.parse(typeNode, ns)
	if on := n.Get("order"); on != nil {
		o, ok := nodeText(on)
		switch strings.ToLower(o) {
		case "ascending":
			f.Order = OrderAscending
		case "descending":
			f.Order = OrderDescending
		case "ignore":
			f.Order = OrderIgnore
		default:
			if !ok {
				p.fail(on, "field %s: order is not a string: %s", name, on)
			}
			p.fail(on, "field %s: no such order %q", name, o)
		}
	}
	if dn := n.Get("default"); dn != nil {
		t := f.Type.Type()
		if s, ok := nodeText(dn); ok && (t == TypeFloat || t == TypeDouble) {
			// Java converts a string default of a float or double field
			// with Double.parseDouble.
			v, err := javaParseDouble(s)
			if err != nil {
				p.fail(dn, "field %s: invalid double default %q", name, s)
			}
			f.Default = v
			dn = &jnode{Kind: jNumber, Offset: dn.Offset, Text: "0"}
		} else {
			f.Default = nodeValue(dn)
			f.rawDefault = dn.Clone()
		}
		f.HasDefault = true
		p.validateName(nameNode, name)
		if !p.opts.SkipDefaultValidation && !p.validDefault(f.Type, dn) {
			p.fail(dn, "invalid default for field %s: %s not a %s", name, dn, describe(f.Type))
		}
	} else {
		p.validateName(nameNode, name)
	}
	f.Props = props(n, fieldReserved)
	f.Aliases, _ = p.parseAliases(n)
	return f
}

// javaParseDouble accepts what Java's Double.parseDouble accepts for the
// usual spellings (surrounding blanks, NaN, [+-]Infinity, a trailing d/f).
func javaParseDouble(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.TrimLeft(s, "+-") {
	case "NaN":
		if s != "NaN" {
			break
		}
		return math.NaN(), nil
	case "Infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if strings.HasSuffix(s, "d") || strings.HasSuffix(s, "D") || strings.HasSuffix(s, "f") || strings.HasSuffix(s, "F") {
		s = s[:len(s)-1]
	}
	if s == "" || strings.ContainsAny(s, "_") || strings.EqualFold(s, "inf") || strings.EqualFold(s, "+inf") || strings.EqualFold(s, "-inf") || strings.EqualFold(s, "infinity") || strings.EqualFold(s, "nan") {
		return 0, errors.New("not a double")
	}
	return strconv.ParseFloat(s, 64)
}

func (p *parser) parseEnum(n *jnode, ns string) Schema {
	e := &Enum{Named: p.parseName(n, ns), Pos: p.pos(n)}
	symbolsNode := n.Get("symbols")
	if symbolsNode == nil || symbolsNode.Kind != jArray {
		p.fail(n, "enum has no symbols: %s", n)
	}
	seen := map[string]bool{}
	for _, sn := range symbolsNode.Elems {
		s, ok := nodeText(sn)
		if !ok {
			// Java reads a non-string symbol as null, which only
			// NO_VALIDATION lets through; it is kept here as "".
			if p.opts.Names != NoNameValidation {
				p.fail(sn, "null name: enum symbol %s is not a string", sn)
			}
		}
		p.validateName(sn, s)
		if seen[s] {
			p.fail(sn, "duplicate enum symbol: %s", s)
		}
		seen[s] = true
		e.Symbols = append(e.Symbols, s)
	}
	if dn := n.Get("default"); dn != nil {
		if d, ok := nodeText(dn); ok {
			e.Default, e.HasDefault = d, true
			if !seen[d] {
				p.fail(dn, "the enum default: %s is not in the enum symbol set: [%s]", d, strings.Join(e.Symbols, ", "))
			}
		}
	}
	e.Props = props(n, enumReserved)
	p.namedAliases(n, &e.Named)
	return p.put(n, e)
}

func (p *parser) parseFixed(n *jnode, ns string) Schema {
	f := &Fixed{Named: p.parseName(n, ns), Pos: p.pos(n)}
	sizeNode := n.Get("size")
	if sizeNode == nil || !fitsInt(sizeNode) {
		p.fail(n, "invalid or no size: %s", n)
	}
	size, _ := strconv.Atoi(sizeNode.Text)
	if size < 0 {
		p.fail(sizeNode, "malformed data: length is negative: %d", size)
	}
	if size > math.MaxInt32-8 {
		p.fail(sizeNode, "cannot read collections larger than %d bytes in Java", math.MaxInt32-8)
	}
	f.Size = size
	f.Props = props(n, schemaReserved)
	f.Logical = logicalType(f, f.Props)
	p.namedAliases(n, &f.Named)
	return p.put(n, f)
}

// props collects the non-reserved attributes of n.
func props(n *jnode, reserved map[string]bool) Props {
	var out Props
	for i, k := range n.Keys {
		if !reserved[k] {
			out = append(out, Prop{Key: k, Value: nodeValue(n.Vals[i]), raw: n.Vals[i].Clone()})
		}
	}
	return out
}

// logicalType is Java's LogicalTypes.fromSchemaIgnoreInvalid.
func logicalType(s Schema, ps Props) *LogicalType {
	v, ok := ps.Get("logicalType")
	if !ok {
		return nil
	}
	name, ok := v.(string)
	if !ok {
		return nil
	}
	for _, bad := range []string{"avro.java.string", "java-class", "java-key-class", "java-element-class"} {
		if _, ok := ps.Get(bad); ok {
			return nil
		}
	}
	t := s.Type()
	lt := &LogicalType{Name: name}
	switch name {
	case "decimal":
		prec, ok := intProp(ps, "precision")
		if !ok {
			return nil
		}
		scale := 0
		if _, has := ps.Get("scale"); has {
			if scale, ok = intProp(ps, "scale"); !ok {
				return nil
			}
		}
		if t != TypeFixed && t != TypeBytes {
			return nil
		}
		maxPrec := int64(math.MaxInt32)
		if f, ok := s.(*Fixed); ok {
			maxPrec = int64(math.Round(math.Floor(math.Log10(2) * float64(8*int64(f.Size)-1))))
		}
		if prec <= 0 || int64(prec) > maxPrec || scale < 0 || scale > prec {
			return nil
		}
		lt.Precision, lt.Scale = prec, scale
	case "big-decimal":
		if t != TypeBytes {
			return nil
		}
	case "uuid":
		if t != TypeString && !(t == TypeFixed && s.(*Fixed).Size == 16) {
			return nil
		}
	case "duration":
		if t != TypeFixed || s.(*Fixed).Size != 12 {
			return nil
		}
	case "date", "time-millis":
		if t != TypeInt {
			return nil
		}
	case "time-micros", "timestamp-millis", "timestamp-micros", "timestamp-nanos",
		"local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos":
		if t != TypeLong {
			return nil
		}
	default:
		return nil
	}
	return lt
}

// intProp reads a property that Jackson would hold as an IntNode.
func intProp(ps Props, key string) (int, bool) {
	v, ok := ps.Get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(interface{ String() string })
	if !ok {
		return 0, false
	}
	if _, isStr := v.(string); isStr {
		return 0, false
	}
	jn := &jnode{Kind: jNumber, Text: n.String()}
	if !fitsInt(jn) {
		return 0, false
	}
	i, _ := strconv.Atoi(jn.Text)
	return i, true
}

// describe renders a schema for an error message as Java does (its JSON).
func describe(s Schema) string { return JavaString(s) }

// validDefault is Java's Schema.isValidDefault (Avro 1.12.1), or Avro
// 1.11's first-branch rule for unions when configured.
func (p *parser) validDefault(s Schema, v *jnode) bool {
	if v == nil {
		return false
	}
	switch t := s.(type) {
	case *unresolved:
		return v.Kind == jObject
	case *Primitive:
		switch t.Kind {
		case TypeString, TypeBytes:
			return v.Kind == jString
		case TypeInt:
			return fitsInt(v)
		case TypeLong:
			return fitsLong(v)
		case TypeFloat, TypeDouble:
			return v.Kind == jNumber
		case TypeBoolean:
			return v.Kind == jBool
		case TypeNull:
			return v.Kind == jNull
		}
	case *Enum, *Fixed:
		return v.Kind == jString
	case *Array:
		if v.Kind != jArray {
			return false
		}
		for _, e := range v.Elems {
			if !p.validDefault(t.Items, e) {
				return false
			}
		}
		return true
	case *Map:
		if v.Kind != jObject {
			return false
		}
		for i := range v.Keys {
			if !p.validDefault(t.Values, v.Vals[i]) {
				return false
			}
		}
		return true
	case *Union:
		if p.opts.UnionDefaultFirstBranch {
			return len(t.Branches) > 0 && p.validDefault(t.Branches[0], v)
		}
		return p.validValue(t, v)
	case *Record:
		if v.Kind != jObject {
			return false
		}
		if p.openRecord != nil && p.openRecord(t) {
			p.fail(v, "schema fields not set yet: record %s is used in a default inside its own definition", t.FullName())
		}
		for _, f := range t.Fields {
			fv := v.Get(f.Name)
			if fv == nil {
				fv = defaultNode(f)
			}
			if !p.validValue(f.Type, fv) {
				return false
			}
		}
		return true
	}
	return false
}

// validValue is Java's isValidValue: a union matches when any branch does.
func (p *parser) validValue(s Schema, v *jnode) bool {
	if v == nil {
		return false
	}
	if u, ok := s.(*Union); ok && !p.opts.UnionDefaultFirstBranch {
		for _, b := range u.Branches {
			if p.validDefault(b, v) {
				return true
			}
		}
		return false
	}
	return p.validDefault(s, v)
}

// defaultNode rebuilds the JSON node of a field's default (nil when none).
func defaultNode(f *Field) *jnode {
	if !f.HasDefault {
		return nil
	}
	return valueNode(f.Default)
}

func valueNode(v any) *jnode {
	switch x := v.(type) {
	case nil:
		return &jnode{Kind: jNull}
	case bool:
		return &jnode{Kind: jBool, Bool: x}
	case string:
		return &jnode{Kind: jString, Text: x}
	case float64:
		return &jnode{Kind: jNumber, Text: "0.0"}
	case []any:
		n := &jnode{Kind: jArray}
		for _, e := range x {
			n.Elems = append(n.Elems, valueNode(e))
		}
		return n
	case map[string]any:
		n := &jnode{Kind: jObject}
		for k, e := range x {
			n.Keys = append(n.Keys, k)
			n.Vals = append(n.Vals, valueNode(e))
		}
		return n
	case interface{ String() string }: // json.Number
		return &jnode{Kind: jNumber, Text: x.String()}
	}
	return &jnode{Kind: jNull}
}

// resolveAll replaces every unresolved reference by its definition (Java
// resolves them when the parse is committed) and re-checks unions.
func (p *parser) resolveAll(root Schema) Schema {
	seen := map[Schema]bool{}
	var fix func(s Schema) Schema
	fix = func(s Schema) Schema {
		if u, ok := s.(*unresolved); ok {
			d := p.lookup(u.name)
			if d == nil {
				panic(&ParseError{Pos: u.pos, Msg: "undefined schema: " + u.name})
			}
			return d
		}
		if seen[s] {
			return s
		}
		seen[s] = true
		if n, ok := s.(NamedSchema); ok && p.old[n.FullName()] == n {
			return s // from Options.Named: complete, and maybe shared
		}
		switch t := s.(type) {
		case *Record:
			for i, f := range t.Fields {
				if r := fix(f.Type); r != f.Type {
					f.Type = r
					p.phEdges[edge{t, i}] = true
				}
			}
		case *Array:
			if r := fix(t.Items); r != t.Items {
				t.Items = r
				p.phEdges[edge{t, 0}] = true
			}
		case *Map:
			if r := fix(t.Values); r != t.Values {
				t.Values = r
				p.phEdges[edge{t, 0}] = true
			}
		case *Union:
			names := map[string]bool{}
			for i, b := range t.Branches {
				if r := fix(b); r != b {
					t.Branches[i] = r
					p.phEdges[edge{t, i}] = true
				}
				n := TypeName(t.Branches[i])
				if names[n] {
					panic(&ParseError{Pos: t.Pos, Msg: "duplicate in union: " + n})
				}
				names[n] = true
			}
		}
		return s
	}
	root = fix(root)
	// Java resolves every type it was given, reachable or not (a type
	// defined inside an identical redefinition is never used).
	for _, n := range p.putOrder {
		fix(n)
	}
	return root
}

// revalidate replays the second default validation Avro Java 1.12 makes
// while it resolves the parsed schemas (SchemaResolver.ResolvingVisitor
// copies every record and re-creates its fields, validating each default
// against the resolved types). That is where a default given for a forward
// reference is checked against the real type, and where a record default
// that reaches a record whose copy has no fields yet (a recursive type)
// fails with "schema fields not set yet". The walk follows Java's: named
// types in completion order, depth-first, union branches last to first, a
// reference that was unresolved at parse time leading to a separate walk
// of its target unless that one was already reached.
func (p *parser) revalidate() {
	const (
		none = iota
		open
		done
	)
	state := map[*Record]int{}
	var visit func(start Schema)
	visit = func(start Schema) {
		visited := map[Schema]bool{}
		var dfs func(s Schema, placeholder bool)
		dfs = func(s Schema, placeholder bool) {
			if placeholder {
				if r, ok := s.(*Record); ok && state[r] == none {
					visit(r)
				}
				return
			}
			if visited[s] {
				return
			}
			if n, ok := s.(NamedSchema); ok && p.old[n.FullName()] == n {
				return
			}
			switch t := s.(type) {
			case *Record:
				visited[t] = true
				if state[t] == none {
					state[t] = open
				}
				for i, f := range t.Fields {
					dfs(f.Type, p.phEdges[edge{t, i}])
				}
				if state[t] == open {
					for _, f := range t.Fields {
						if f.HasDefault && f.rawDefault != nil && !isFloat(f.Default) {
							p.revalidateField(f, func(r *Record) bool { return state[r] != done && p.old[r.FullName()] != Schema(r) })
						}
					}
					state[t] = done
				}
			case *Union:
				visited[t] = true
				for i := len(t.Branches) - 1; i >= 0; i-- {
					dfs(t.Branches[i], p.phEdges[edge{t, i}])
				}
			case *Array:
				visited[t] = true
				dfs(t.Items, p.phEdges[edge{t, 0}])
			case *Map:
				visited[t] = true
				dfs(t.Values, p.phEdges[edge{t, 0}])
			}
		}
		dfs(start, false)
	}
	for _, s := range p.putOrder {
		visit(s)
	}
}

func (p *parser) revalidateField(f *Field, open func(*Record) bool) {
	p.openRecord = open
	defer func() { p.openRecord = nil }()
	if !p.validDefault(f.Type, f.rawDefault) {
		p.fail(f.rawDefault, "invalid default for field %s: %s not a %s", f.Name, f.rawDefault, describe(f.Type))
	}
}
