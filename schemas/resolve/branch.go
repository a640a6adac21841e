package resolve

import "github.com/outboxctl/outboxctl/schemas/avro"

// Aliases is how Avro Java renames a writer schema before resolving it
// against a reader (Schema.applyAliases): every alias of a named type
// anywhere in the reader schema renames the writer's named type of that
// full name to the reader type's full name (when two reader types claim the
// same alias, the later one in the reader schema wins), and the field
// aliases of a reader record rename the fields of the writer record that
// gets that record's name (or one of its aliases). The zero value renames
// nothing. An Aliases is read-only once built and safe for concurrent use.
type Aliases struct {
	names  map[string]string            // writer full name -> reader full name
	fields map[string]map[string]string // record full name -> field alias -> field name
}

// NewAliases is the renaming Java applies before resolving writer against
// reader (Schema.applyAliases): none when the two are equal (avro.Equal,
// which ignores aliases), else the aliases of the whole reader schema as
// Schema.getAliases collects them.
func NewAliases(writer, reader avro.Schema) Aliases {
	if avro.Equal(writer, reader) {
		return Aliases{}
	}
	return readerAliases(reader)
}

func readerAliases(reader avro.Schema) Aliases {
	a := Aliases{names: map[string]string{}, fields: map[string]map[string]string{}}
	seen := map[avro.Schema]bool{}
	var walk func(s avro.Schema)
	walk = func(s avro.Schema) {
		if n, ok := s.(avro.NamedSchema); ok {
			for _, al := range n.Names().Aliases {
				a.names[al] = n.FullName()
			}
		}
		switch t := s.(type) {
		case *avro.Record:
			if seen[t] {
				return
			}
			seen[t] = true
			for _, f := range t.Fields {
				for _, fa := range f.Aliases {
					m := a.fields[t.FullName()]
					if m == nil {
						m = map[string]string{}
						a.fields[t.FullName()] = m
					}
					m[fa] = f.Name
				}
				walk(f.Type)
			}
			if m, ok := a.fields[t.FullName()]; ok {
				for _, al := range t.Aliases {
					a.fields[al] = m
				}
			}
		case *avro.Array:
			walk(t.Items)
		case *avro.Map:
			walk(t.Values)
		case *avro.Union:
			for _, b := range t.Branches {
				walk(b)
			}
		}
	}
	walk(reader)
	return a
}

// Name is the full name Java's resolver gives the writer's named type of
// full name full: the reader type that has it as an alias, else full.
func (a Aliases) Name(full string) string {
	if n, ok := a.names[full]; ok {
		return n
	}
	return full
}

// SameName is Java's name rule for an enum or fixed read as an enum or
// fixed outside a union (EnumAdjust.resolve; Resolver.resolve for FIXED):
// the writer's short name, after the renaming, is the reader's short name;
// the namespace plays no part. (Records compare no names outside unions.)
func (a Aliases) SameName(w, r avro.NamedSchema) bool {
	return shortName(a.Name(w.FullName())) == r.Names().Name
}

// shortName is the unqualified part of a full name.
func shortName(full string) string {
	for i := len(full) - 1; i >= 0; i-- {
		if full[i] == '.' {
			return full[i+1:]
		}
	}
	return full
}

// FieldName is the name Java's resolver gives field of the writer record
// whose full name (after Name) is record: a reader field alias of the
// reader record of that name renames it.
func (a Aliases) FieldName(record, field string) string {
	if n, ok := a.fields[record][field]; ok {
		return n
	}
	return field
}

// ReaderBranch is the branch of the reader union r that Avro Java 1.12 reads
// a datum of the writer type w (not a union) as
// (Resolver.ReaderUnion.firstMatchingBranch, which ResolvingDecoder and so
// GenericDatumReader use), after renaming the writer with aliases
// (NewAliases of the whole writer and reader schemas; the zero Aliases when
// there are none). It returns -1 when no branch
// fits (Java: "Found …, expecting union"). The order of preference:
//
//  1. the first branch of the writer's type; for a record, enum or fixed
//     only one with the same full name (a reader alias counts through
//     aliases). An enum or fixed branch whose name differs is never taken,
//     not even with the same short name in another namespace;
//  2. else, for a record, a record branch that resolves without an error
//     at its top level (each field's own resolution, and reader fields the
//     writer lacks having a default; errors deeper down do not count): the
//     first such branch, or a later one with the same short name;
//  3. else the first branch the writer's type promotes to (int to long,
//     float or double; long to float or double; float to double; string to
//     bytes; bytes to string), in reader order.
//
// Decoders that must match Java call it; schemas/compat does not (Java's
// SchemaCompatibility accepts any compatible branch).
func ReaderBranch(w avro.Schema, r *avro.Union, aliases Aliases) int {
	return readerBranch(w, r, aliases, map[[2]avro.Schema]bool{})
}

// readerBranch is ReaderBranch; inProgress holds the record pairs whose
// check is under way (Java's seen map: such a pair counts as no error).
func readerBranch(w avro.Schema, r *avro.Union, aliases Aliases, inProgress map[[2]avro.Schema]bool) int {
	wt := w.Type()
	structure := -1
	for j, b := range r.Branches {
		if b.Type() != wt {
			continue
		}
		wn, named := w.(avro.NamedSchema)
		if !named {
			return j
		}
		wfull := aliases.Name(wn.FullName())
		if wfull == b.(avro.NamedSchema).FullName() {
			return j
		}
		if wt == avro.TypeRecord && !recordMatchError(w.(*avro.Record), b.(*avro.Record), aliases, inProgress) {
			if structure < 0 || shortName(wfull) == b.(avro.NamedSchema).Names().Name {
				structure = j
			}
		}
	}
	if structure >= 0 {
		return structure
	}
	if wp, ok := w.(*avro.Primitive); ok {
		for j, b := range r.Branches {
			if bp, ok := b.(*avro.Primitive); ok && promotable(wp.Kind, bp.Kind) {
				return j
			}
		}
	}
	return -1
}

// recordMatchError is Java's hasMatchError(RecordAdjust.resolve(w, r)): a
// reader field the writer lacks has no default, or the resolution of a
// field the two share is itself an error (not one nested deeper).
func recordMatchError(w, r *avro.Record, aliases Aliases, inProgress map[[2]avro.Schema]bool) bool {
	key := [2]avro.Schema{w, r}
	if inProgress[key] {
		return false
	}
	if missingRequired(w, r, aliases) {
		return true
	}
	inProgress[key] = true
	defer delete(inProgress, key)
	wname := aliases.Name(w.FullName())
	for _, wf := range w.Fields {
		rf := r.Field(aliases.FieldName(wname, wf.Name))
		if rf != nil && errorAction(wf.Type, rf.Type, aliases, inProgress) {
			return true
		}
	}
	return false
}

// missingRequired reports a reader field that no writer field (after field
// aliases) supplies and that has no default: RecordAdjust.resolve then
// returns an error action for the whole record.
func missingRequired(w, r *avro.Record, aliases Aliases) bool {
	wname := aliases.Name(w.FullName())
	have := map[string]bool{}
	for _, wf := range w.Fields {
		have[aliases.FieldName(wname, wf.Name)] = true
	}
	for _, rf := range r.Fields {
		if !have[rf.Name] && !rf.HasDefault {
			return true
		}
	}
	return false
}

// errorAction reports whether Java's Resolver.resolve(w, r) is an
// ErrorAction itself (containers, writer unions and records whose trouble
// lies in their fields are not).
func errorAction(w, r avro.Schema, aliases Aliases, inProgress map[[2]avro.Schema]bool) bool {
	if _, ok := w.(*avro.Union); ok {
		return false
	}
	if w.Type() == r.Type() {
		switch rt := r.(type) {
		case *avro.Fixed:
			wf := w.(*avro.Fixed)
			return !aliases.SameName(wf, rt) || wf.Size != rt.Size
		case *avro.Enum:
			return !aliases.SameName(w.(*avro.Enum), rt)
		case *avro.Record:
			if inProgress[[2]avro.Schema{w, r}] {
				return false // Java's seen map hands out the record in progress
			}
			return missingRequired(w.(*avro.Record), rt, aliases)
		}
		return false
	}
	if ru, ok := r.(*avro.Union); ok {
		return readerBranch(w, ru, aliases, inProgress) < 0
	}
	wp, ok1 := w.(*avro.Primitive)
	rp, ok2 := r.(*avro.Primitive)
	return !ok1 || !ok2 || !promotable(wp.Kind, rp.Kind)
}

// UnionBranches maps each branch of the writer union w to the branch of the
// reader union r that Avro Java 1.12 reads it as (Resolver.WriterUnion), -1
// for none: branch i to branch i when the two unions are equivalent
// (unionEquiv: the same length and, position by position, the same types;
// named types with the same short name after renaming, enums with the same
// symbols, fixed with the same size, records with the same field names and
// equivalent field types), else ReaderBranch for each writer branch.
func UnionBranches(w, r *avro.Union, aliases Aliases) []int {
	out := make([]int, len(w.Branches))
	if unionEquiv(w, r, aliases, map[[2]avro.Schema]bool{}) {
		for i := range out {
			out[i] = i
		}
		return out
	}
	for i, b := range w.Branches {
		out[i] = ReaderBranch(b, r, aliases)
	}
	return out
}

// unionEquiv is Java's Resolver.unionEquiv on the writer renamed by
// aliases. seen holds the record pairs assumed equivalent while their
// fields are compared (Java is optimistic for recursion).
func unionEquiv(w, r avro.Schema, aliases Aliases, seen map[[2]avro.Schema]bool) bool {
	if w.Type() != r.Type() {
		return false
	}
	wn, named := w.(avro.NamedSchema)
	if named && shortName(aliases.Name(wn.FullName())) != r.(avro.NamedSchema).Names().Name {
		return false
	}
	switch wt := w.(type) {
	case *avro.Array:
		return unionEquiv(wt.Items, r.(*avro.Array).Items, aliases, seen)
	case *avro.Map:
		return unionEquiv(wt.Values, r.(*avro.Map).Values, aliases, seen)
	case *avro.Fixed:
		return wt.Size == r.(*avro.Fixed).Size
	case *avro.Enum:
		rs := r.(*avro.Enum).Symbols
		if len(wt.Symbols) != len(rs) {
			return false
		}
		for i := range rs {
			if wt.Symbols[i] != rs[i] {
				return false
			}
		}
		return true
	case *avro.Union:
		rb := r.(*avro.Union).Branches
		if len(wt.Branches) != len(rb) {
			return false
		}
		for i := range rb {
			if !unionEquiv(wt.Branches[i], rb[i], aliases, seen) {
				return false
			}
		}
		return true
	case *avro.Record:
		key := [2]avro.Schema{w, r}
		if eq, ok := seen[key]; ok {
			return eq
		}
		seen[key] = true
		rf := r.(*avro.Record).Fields
		eq := len(wt.Fields) == len(rf)
		wname := aliases.Name(wt.FullName())
		for i := 0; eq && i < len(rf); i++ {
			eq = aliases.FieldName(wname, wt.Fields[i].Name) == rf[i].Name &&
				unionEquiv(wt.Fields[i].Type, rf[i].Type, aliases, seen)
		}
		seen[key] = eq
		return eq
	}
	return true
}

// Check reports the error Java's Schema.applyAliases raises while renaming
// writer ("Duplicate in union"): a writer union, anywhere in the writer
// schema, with two named branches that get the same full name. It is an
// *Error that unwraps to ErrNameMismatch, or nil.
func (a Aliases) Check(writer avro.Schema) error {
	if len(a.names) == 0 {
		return nil
	}
	seen := map[avro.Schema]bool{}
	var walk func(s avro.Schema) error
	walk = func(s avro.Schema) error {
		switch t := s.(type) {
		case *avro.Record:
			if seen[t] {
				return nil
			}
			seen[t] = true
			for _, f := range t.Fields {
				if err := walk(f.Type); err != nil {
					return err
				}
			}
		case *avro.Array:
			return walk(t.Items)
		case *avro.Map:
			return walk(t.Values)
		case *avro.Union:
			names := map[string]bool{}
			for _, b := range t.Branches {
				if n, ok := b.(avro.NamedSchema); ok {
					full := a.Name(n.FullName())
					if names[full] {
						return path{}.errorf(ErrNameMismatch, "writer union has two branches named "+full+" once the reader's aliases rename it (Java: Duplicate in union)")
					}
					names[full] = true
				}
				if err := walk(b); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(writer)
}
