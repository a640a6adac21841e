package resolve

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error returned by Compile, Decode, DecodeJSON and
// Cache is an *Error (or wraps one) that unwraps to one of the kind
// sentinels below; the schema-level kinds (everything except ErrEnumSymbol,
// ErrUnionBranch and ErrDecode) also unwrap to ErrIncompatible.
var (
	// ErrIncompatible: the writer schema cannot be read with the reader
	// schema at all. Compile returns it; it is never a property of one
	// datum.
	ErrIncompatible = errors.New("schemas are incompatible")

	// ErrTypeMismatch: a writer type that the reader type cannot read (no
	// promotion exists).
	ErrTypeMismatch = errors.New("type mismatch")
	// ErrNameMismatch: an enum or fixed whose name matches neither the
	// reader's name nor one of the reader's aliases.
	ErrNameMismatch = errors.New("name mismatch")
	// ErrFixedSize: fixed types of different sizes.
	ErrFixedSize = errors.New("fixed size mismatch")
	// ErrMissingDefault: a reader field that the writer lacks and that
	// has no default.
	ErrMissingDefault = errors.New("reader field missing default value")
	// ErrAmbiguousField: a reader field that matches more than one writer
	// field (by name and aliases).
	ErrAmbiguousField = errors.New("reader field matches several writer fields")
	// ErrMissingUnionBranch: the reader union has no branch for the
	// writer type.
	ErrMissingUnionBranch = errors.New("reader union lacks writer type")
	// ErrInvalidDefault: a reader default that does not fit its type.
	ErrInvalidDefault = errors.New("invalid default value")
	// ErrUnsupported: a schema goavro cannot decode (for example the empty
	// union).
	ErrUnsupported = errors.New("unsupported schema")

	// ErrEnumSymbol: a datum carries an enum symbol the reader does not
	// know and the reader enum has no default.
	ErrEnumSymbol = errors.New("enum symbol not in reader")
	// ErrUnionBranch: a datum takes a writer union branch that the reader
	// cannot read (for example null read as "string").
	ErrUnionBranch = errors.New("writer union branch not readable")
	// ErrDecode: the bytes are not a datum of the writer schema
	// (truncated, corrupt, or with trailing bytes).
	ErrDecode = errors.New("cannot decode datum")
)

// Error is a resolution error at a place in the reader schema.
//
// Path is a JSON-pointer-like location in the reader schema, spelled as Avro
// Java's SchemaCompatibility spells locations: "/fields/2/type/items/1"
// ("/" is the root; tokens are fields, the reader field position, type,
// items, values, and union branch indexes). Field is the name of the
// innermost reader field on the path, "" at the root.
type Error struct {
	Path  string
	Field string
	// Kind is one of the package's sentinels.
	Kind error
	Msg  string
	// Err is an underlying error (goavro's decode error), or nil.
	Err error
}

// Error is the location, the field name and the message, e.g.
//
//	/fields/2 "status": enum symbol "X" not in reader and no default
//
// When the location is the type of the named field ("/fields/2/type"), the
// field's own location is printed ("/fields/2"); Path keeps the full
// location.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(strings.TrimSuffix(e.Path, "/type"))
	} else {
		b.WriteString(e.Path)
	}
	if e.Field != "" {
		b.WriteString(" ")
		b.WriteString(strconv.Quote(e.Field))
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the kind sentinel, ErrIncompatible for schema-level
// kinds, and the underlying error.
func (e *Error) Unwrap() []error {
	errs := []error{e.Kind}
	if isSchemaKind(e.Kind) {
		errs = append(errs, ErrIncompatible)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

func isSchemaKind(k error) bool {
	switch k {
	case ErrTypeMismatch, ErrNameMismatch, ErrFixedSize, ErrMissingDefault,
		ErrAmbiguousField, ErrMissingUnionBranch, ErrInvalidDefault:
		return true
	}
	return false
}

// path is a location in the reader schema while compiling.
type path struct {
	tokens []string
	field  string
}

func (p path) with(tok ...string) path {
	t := make([]string, 0, len(p.tokens)+len(tok))
	t = append(t, p.tokens...)
	t = append(t, tok...)
	return path{tokens: t, field: p.field}
}

func (p path) withField(pos int, name string) path {
	q := p.with("fields", strconv.Itoa(pos))
	q.field = name
	return q
}

func (p path) String() string {
	if len(p.tokens) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, t := range p.tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

func (p path) errorf(kind error, msg string) *Error {
	return &Error{Path: p.String(), Field: p.field, Kind: kind, Msg: msg}
}
