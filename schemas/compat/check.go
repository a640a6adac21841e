package compat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// IncompatibilityType is the kind of an incompatibility, spelled as Java's
// SchemaCompatibility.SchemaIncompatibilityType.
type IncompatibilityType string

// The incompatibility types of Avro Java, plus UnexpectedException.
const (
	NameMismatch                   IncompatibilityType = "NAME_MISMATCH"
	FixedSizeMismatch              IncompatibilityType = "FIXED_SIZE_MISMATCH"
	MissingEnumSymbols             IncompatibilityType = "MISSING_ENUM_SYMBOLS"
	ReaderFieldMissingDefaultValue IncompatibilityType = "READER_FIELD_MISSING_DEFAULT_VALUE"
	TypeMismatch                   IncompatibilityType = "TYPE_MISMATCH"
	MissingUnionBranch             IncompatibilityType = "MISSING_UNION_BRANCH"
	// UnexpectedException stands for the exception Java throws when a
	// reader field matches several writer fields (by name and by alias).
	// Confluent turns it into the message "Unexpected exception during
	// compatibility check: …", which makes the pair incompatible; Check
	// reports it as the only incompatibility, with an empty Location.
	UnexpectedException IncompatibilityType = "UNEXPECTED_EXCEPTION"
)

// Incompatibility is one reason why a reader cannot read a writer's data.
type Incompatibility struct {
	Type IncompatibilityType `json:"type"`
	// Location is Java's JSON-pointer-like path into the reader schema,
	// e.g. "/fields/0/type/symbols"; the root is "/".
	Location string `json:"location"`
	// Message is Java's message, e.g. "reader type: STRING not compatible
	// with writer type: NULL".
	Message string `json:"message"`
	// Reader and Writer are the fragments that disagree.
	Reader avro.Schema `json:"-"`
	Writer avro.Schema `json:"-"`
}

// Confluent renders the incompatibility as Confluent's Difference.error(),
// with reader and writer naming the two schemas ("new" and "old" when the
// new schema reads the old one), as the registry fills its %s placeholders:
//
//	{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a field in the new schema does not match with the old schema', additionalInfo:'reader type: STRING not compatible with writer type: INT'}
//
// An UnexpectedException is rendered as Confluent's
// "Unexpected exception during compatibility check: <message>".
func (i Incompatibility) Confluent(reader, writer string) string {
	var d string
	p := i.Location
	switch i.Type {
	case UnexpectedException:
		return "Unexpected exception during compatibility check: " + i.Message
	case FixedSizeMismatch:
		d = "The size of FIXED type field at path '" + p + "' in the " + reader + " schema does not match with the " + writer + " schema"
	case TypeMismatch:
		d = "The type (path '" + p + "') of a field in the " + reader + " schema does not match with the " + writer + " schema"
	case NameMismatch:
		d = "The name of the schema has changed (path '" + p + "')"
	case MissingEnumSymbols:
		d = "The " + reader + " schema is missing enum symbols '" + i.Message + "' at path '" + p + "' in the " + writer + " schema"
	case MissingUnionBranch:
		d = "The " + reader + " schema is missing a type inside a union field at path '" + p + "' in the " + writer + " schema"
	case ReaderFieldMissingDefaultValue:
		d = "The field '" + i.Message + "' at path '" + p + "' in the " + reader + " schema has no default value and is missing in the " + writer + " schema"
	}
	return "{errorType:'" + string(i.Type) + "', description:'" + d + "', additionalInfo:'" + i.Message + "'}"
}

// Result is the outcome of Check.
type Result struct {
	Compatible bool
	// Incompatibilities are all the problems found, in Java's order (empty
	// when Compatible).
	Incompatibilities []Incompatibility
}

// Check is Avro Java 1.12's
// SchemaCompatibility.checkReaderWriterCompatibility(reader, writer): can
// data written with writer be read with reader? Every incompatibility is
// collected, with Java's types, locations, messages and order, including
// its quirks: results are memoized per (reader, writer) pair of schema
// pointers, so a named type met again through another path reports the
// locations of its first visit; a pair met again while it is being checked
// counts as compatible (recursion); the nested reason why a writer union
// branch fits no reader branch is dropped.
//
// Check never fails: where Java throws (a reader field matching several
// writer fields), the result is incompatible with a single
// UnexpectedException. It is safe for concurrent use.
func Check(reader, writer avro.Schema) Result {
	c := &checker{memo: map[[2]avro.Schema]*result{}}
	var res *result
	func() {
		defer func() {
			if r := recover(); r != nil {
				amb, ok := r.(ambiguousField)
				if !ok {
					panic(r)
				}
				res = &result{state: incompatible, list: []Incompatibility{{Type: UnexpectedException, Message: string(amb)}}}
			}
		}()
		res = c.get("", reader, writer, nil)
	}()
	out := Result{Compatible: res.state != incompatible, Incompatibilities: res.list}
	if out.Incompatibilities == nil {
		out.Incompatibilities = []Incompatibility{}
	}
	return out
}

type state int

const (
	compatible state = iota
	incompatible
	inProgress
)

type result struct {
	state state
	list  []Incompatibility
}

var compatibleResult = &result{}

func (r *result) merge(o *result) *result {
	if o.state == compatible && len(o.list) == 0 {
		return r
	}
	st := r.state
	if st == compatible {
		st = o.state
	} else {
		st = incompatible
	}
	list := make([]Incompatibility, 0, len(r.list)+len(o.list))
	list = append(list, r.list...)
	list = append(list, o.list...)
	return &result{state: st, list: list}
}

type ambiguousField string

type checker struct {
	memo map[[2]avro.Schema]*result
}

// location is the path, root first, as a stack that is pushed and popped
// like Java's deque; the root token is "".
type location struct{ toks []string }

func (l *location) push(tok string) { l.toks = append(l.toks, tok) }
func (l *location) pop()            { l.toks = l.toks[:len(l.toks)-1] }

// String is Java's Incompatibility.getLocation: the root dropped, tokens
// joined with '/', escaped as JSON pointers ("~" -> "~0", "/" -> "~1").
func (l *location) String() string {
	if len(l.toks) <= 1 {
		return "/"
	}
	var b strings.Builder
	for _, t := range l.toks[1:] {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

var smallInts = func() (out [64]string) {
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

func itoa(i int) string {
	if i >= 0 && i < len(smallInts) {
		return smallInts[i]
	}
	return strconv.Itoa(i)
}

func incompat(t IncompatibilityType, r, w avro.Schema, msg string, loc *location) *result {
	return &result{state: incompatible, list: []Incompatibility{{Type: t, Location: loc.String(), Message: msg, Reader: r, Writer: w}}}
}

var inProgressResult = &result{state: inProgress}

// get is Java's getCompatibility(token, reader, writer, location); a nil
// location starts a fresh one (Java's two-argument getCompatibility).
func (c *checker) get(tok string, r, w avro.Schema, loc *location) *result {
	if loc == nil {
		loc = &location{toks: make([]string, 0, 8)}
	}
	loc.push(tok)
	defer loc.pop()
	key := [2]avro.Schema{r, w}
	if res, ok := c.memo[key]; ok {
		if res.state == inProgress {
			return compatibleResult
		}
		return res
	}
	c.memo[key] = inProgressResult
	res := c.calculate(r, w, loc)
	c.memo[key] = res
	return res
}

func (c *checker) calculate(r, w avro.Schema, loc *location) *result {
	res := compatibleResult
	rt, wt := r.Type(), w.Type()
	if rt == wt {
		switch rt {
		case avro.TypeArray:
			return res.merge(c.get("items", r.(*avro.Array).Items, w.(*avro.Array).Items, loc))
		case avro.TypeMap:
			return res.merge(c.get("values", r.(*avro.Map).Values, w.(*avro.Map).Values, loc))
		case avro.TypeFixed:
			res = res.merge(checkNames(r, w, loc))
			rs, ws := r.(*avro.Fixed).Size, w.(*avro.Fixed).Size
			if rs != ws {
				loc.push("size")
				res = res.merge(incompat(FixedSizeMismatch, r, w, fmt.Sprintf("expected: %d, found: %d", ws, rs), loc))
				loc.pop()
			}
			return res
		case avro.TypeEnum:
			res = res.merge(checkNames(r, w, loc))
			return res.merge(checkEnumSymbols(r.(*avro.Enum), w.(*avro.Enum), loc))
		case avro.TypeRecord:
			res = res.merge(checkNames(r, w, loc))
			return res.merge(c.checkFields(r.(*avro.Record), w.(*avro.Record), loc))
		case avro.TypeUnion:
			for i, wb := range w.(*avro.Union).Branches {
				if c.get("", r, wb, nil).state == incompatible {
					loc.push(itoa(i))
					res = res.merge(incompat(MissingUnionBranch, r, w, "reader union lacking writer type: "+wb.Type().Upper(), loc))
					loc.pop()
				}
			}
			return res
		default: // primitives
			return res
		}
	}
	if wt == avro.TypeUnion {
		for i, wb := range w.(*avro.Union).Branches {
			res = res.merge(c.get(itoa(i), r, wb, loc))
		}
		return res
	}
	switch rt {
	case avro.TypeLong:
		if wt == avro.TypeInt {
			return res
		}
	case avro.TypeFloat:
		if wt == avro.TypeInt || wt == avro.TypeLong {
			return res
		}
	case avro.TypeDouble:
		if wt == avro.TypeInt || wt == avro.TypeLong || wt == avro.TypeFloat {
			return res
		}
	case avro.TypeBytes:
		if wt == avro.TypeString {
			return res
		}
	case avro.TypeString:
		if wt == avro.TypeBytes {
			return res
		}
	case avro.TypeUnion:
		for _, rb := range r.(*avro.Union).Branches {
			if c.get("", rb, w, nil).state == compatible {
				return res
			}
		}
		return res.merge(incompat(MissingUnionBranch, r, w, "reader union lacking writer type: "+wt.Upper(), loc))
	}
	return res.merge(incompat(TypeMismatch, r, w, "reader type: "+rt.Upper()+" not compatible with writer type: "+wt.Upper(), loc))
}

// checkNames is Java's checkSchemaNames with schemaNameEquals: short names
// equal, or a reader alias equal to the writer's full name.
func checkNames(r, w avro.Schema, loc *location) *result {
	rn, wn := r.(avro.NamedSchema), w.(avro.NamedSchema)
	if rn.Names().Name == wn.Names().Name {
		return compatibleResult
	}
	full := wn.FullName()
	for _, a := range rn.Names().Aliases {
		if a == full {
			return compatibleResult
		}
	}
	loc.push("name")
	defer loc.pop()
	return incompat(NameMismatch, r, w, "expected: "+full, loc)
}

func checkEnumSymbols(r, w *avro.Enum, loc *location) *result {
	missing := map[string]bool{}
	for _, s := range w.Symbols {
		if !r.HasSymbol(s) {
			missing[s] = true
		}
	}
	if len(missing) == 0 {
		return compatibleResult
	}
	if r.HasDefault && r.HasSymbol(r.Default) {
		return compatibleResult
	}
	syms := make([]string, 0, len(missing))
	for s := range missing {
		syms = append(syms, s)
	}
	sort.Strings(syms) // Java's TreeSet: UTF-16 order equals byte order for ASCII names
	loc.push("symbols")
	defer loc.pop()
	return incompat(MissingEnumSymbols, r, w, "["+strings.Join(syms, ", ")+"]", loc)
}

func (c *checker) checkFields(r, w *avro.Record, loc *location) *result {
	res := compatibleResult
	loc.push("fields")
	defer loc.pop()
	for _, rf := range r.Fields {
		loc.push(itoa(rf.Index))
		wf := lookupWriterField(w, rf)
		if wf == nil {
			if !rf.HasDefault {
				if e, ok := rf.Type.(*avro.Enum); ok && e.HasDefault {
					res = res.merge(c.get("type", rf.Type, w, loc))
				} else {
					res = res.merge(incompat(ReaderFieldMissingDefaultValue, r, w, rf.Name, loc))
				}
			}
		} else {
			res = res.merge(c.get("type", rf.Type, wf.Type, loc))
		}
		loc.pop()
	}
	return res
}

// lookupWriterField is Java's lookupWriterField: the writer field with the
// reader field's name plus those named by its aliases; more than one is an
// error (Java throws AvroRuntimeException).
func lookupWriterField(w *avro.Record, rf *avro.Field) *avro.Field {
	var found []*avro.Field
	if f := w.Field(rf.Name); f != nil {
		found = append(found, f)
	}
	for _, a := range rf.Aliases {
		if f := w.Field(a); f != nil {
			found = append(found, f)
		}
	}
	switch len(found) {
	case 0:
		return nil
	case 1:
		return found[0]
	}
	panic(ambiguousField(fmt.Sprintf("Reader record field %s type:%s pos:%d matches multiple fields in writer record schema %s",
		rf.Name, rf.Type.Type().Upper(), rf.Index, avro.JavaString(w))))
}
