package avrobind

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// Sentinel errors of the binding (Go type) side. Resolution errors (writer
// against reader schema) are the sentinels of package resolve.
var (
	// ErrType: a Go type that cannot hold the reader schema's type (a
	// string field for an int, an int32 for a long, a struct for an
	// array).
	ErrType = errors.New("go type cannot hold the avro type")
	// ErrUnmappedField: a struct field (by tag or name) that matches no
	// field of the reader record (Check only).
	ErrUnmappedField = errors.New("struct field matches no field of the reader schema")
	// ErrUnsupported: a Go type the compiled decoder does not bind
	// (channels, funcs, a record into a map other than map[string]any…);
	// use a generic decoder (resolve.Resolver.Decode) for it.
	ErrUnsupported = errors.New("go type not supported by the compiled decoder")
)

// TypeError is a Go type that cannot hold a reader schema type. It unwraps
// to ErrType (or ErrUnsupported).
type TypeError struct {
	// Where is the Go location, e.g. "OrderCreated.Lines[].Qty".
	Where  string
	GoType reflect.Type
	Schema avro.Schema
	Kind   error
}

func (e *TypeError) Error() string {
	what := "cannot hold"
	if e.Kind == ErrUnsupported {
		what = "is not supported by the compiled decoder for"
	}
	return fmt.Sprintf("%s: go type %s %s avro %s", e.Where, e.GoType, what, describe(e.Schema))
}

func (e *TypeError) Unwrap() error { return e.Kind }

// UnmappedError is a struct field that matches no reader field. It unwraps
// to ErrUnmappedField.
type UnmappedError struct {
	// Field is the Go location ("OrderCreated.Curency"), Name the Avro
	// name looked up (tag or Go field name), Record the reader record's
	// full name.
	Field, Name, Record string
}

func (e *UnmappedError) Error() string {
	return fmt.Sprintf("%s: field %q is not in reader record %s (tag it `avro:\"-\"` to leave it unmapped)", e.Field, e.Name, e.Record)
}

func (e *UnmappedError) Unwrap() error { return ErrUnmappedField }

// Error is a datum that cannot be decoded. Path is where in the datum
// ("lines[1].sku", "" at the root); Err unwraps to a resolve sentinel:
// resolve.ErrDecode (truncated or invalid bytes, trailing bytes),
// resolve.ErrEnumSymbol, resolve.ErrUnionBranch, or a schema-level kind for
// a non-empty array or map whose items do not resolve.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// kindError is a decode failure of one kind (a resolve sentinel).
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func decodeErr(msg string) error { return &kindError{resolve.ErrDecode, msg} }

var (
	errEOF            = decodeErr("unexpected end of data")
	errInvalidInt     = decodeErr("invalid int encoding")
	errInvalidLong    = decodeErr("invalid long encoding")
	errNegativeLength = decodeErr("malformed data: length is negative")
	errTooManyItems   = decodeErr("malformed data: too many collection items")
	errUnionIndex     = decodeErr("union index out of range")
	errEnumIndex      = decodeErr("enum index out of range")
)

// at prefixes the location seg to err's path (errors are built on the way
// up, so the success path builds no strings).
func at(err error, seg string) error {
	if e, ok := err.(*Error); ok {
		switch {
		case e.Path == "":
			e.Path = seg
		case e.Path[0] == '[':
			e.Path = seg + e.Path
		default:
			e.Path = seg + "." + e.Path
		}
		return e
	}
	return &Error{Path: seg, Err: err}
}

func atIndex(err error, i int) error { return at(err, "["+strconv.Itoa(i)+"]") }

// rootErr makes err an *Error.
func rootErr(err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Err: err}
}

func describe(s avro.Schema) string {
	name := avro.TypeName(s)
	if lt := avro.LogicalOf(s); lt != nil {
		return name + " (" + lt.Name + ")"
	}
	if _, ok := s.(avro.NamedSchema); ok {
		return string(s.Type()) + " " + name
	}
	return name
}

// rpath is a location in the reader schema, in resolve's syntax.
type rpath struct {
	tokens []string
	field  string
}

func (p rpath) with(tok ...string) rpath {
	t := make([]string, 0, len(p.tokens)+len(tok))
	t = append(append(t, p.tokens...), tok...)
	return rpath{tokens: t, field: p.field}
}

func (p rpath) withField(pos int, name string) rpath {
	q := p.with("fields", strconv.Itoa(pos))
	q.field = name
	return q
}

func (p rpath) errorf(kind error, msg string) *resolve.Error {
	s := "/"
	if len(p.tokens) > 0 {
		s = "/" + strings.Join(p.tokens, "/")
	}
	return &resolve.Error{Path: s, Field: p.field, Kind: kind, Msg: msg}
}

func mismatch(w, r avro.Schema, p rpath) *resolve.Error {
	return p.errorf(resolve.ErrTypeMismatch, fmt.Sprintf("reader type: %s not compatible with writer type: %s",
		r.Type().Upper(), w.Type().Upper()))
}
