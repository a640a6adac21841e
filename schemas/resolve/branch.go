package resolve

import "github.com/outboxctl/outboxctl/schemas/avro"

// This file exports the union branch choice and the alias renaming that
// Decode uses, so that decoders binding Avro data to other targets
// (schemas/avrobind) make the very same choices. The signatures are the
// ones h12-fidelity's Java-exact rework of the branch choice exports;
// here they wrap this package's current rules (see the package doc).

// Aliases is the renaming of writer names and fields by the reader's
// aliases. The zero value renames nothing; an Aliases is read-only once
// built and safe for concurrent use.
type Aliases struct {
	names  map[string]string            // writer full name -> reader full name
	fields map[string]map[string]string // reader record full name -> field alias -> field name
}

// NewAliases collects the aliases of the reader schema: a named type's
// alias renames the writer type of that full name, a record field's alias
// renames the writer field of that name (and wins over a reader field with
// the writer field's name). Equal schemas (avro.Equal, which ignores
// aliases) rename nothing.
func NewAliases(writer, reader avro.Schema) Aliases {
	if avro.Equal(writer, reader) {
		return Aliases{}
	}
	a := Aliases{names: map[string]string{}, fields: map[string]map[string]string{}}
	seen := map[avro.Schema]bool{}
	var walk func(s avro.Schema)
	walk = func(s avro.Schema) {
		if n, ok := s.(avro.NamedSchema); ok {
			for _, al := range n.Names().Aliases {
				if _, dup := a.names[al]; !dup {
					a.names[al] = n.FullName()
				}
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
					if _, dup := m[fa]; !dup {
						m[fa] = f.Name
					}
				}
				walk(f.Type)
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

// Name is the full name the reader gives the writer's named type of full
// name full: the reader type that has it as an alias, else full.
func (a Aliases) Name(full string) string {
	if n, ok := a.names[full]; ok {
		return n
	}
	return full
}

// SameName is the name rule for an enum or fixed read as an enum or fixed
// outside a union: the writer's short name, after the renaming, is the
// reader's short name.
func (a Aliases) SameName(w, r avro.NamedSchema) bool {
	full := a.Name(w.FullName())
	for i := len(full) - 1; i >= 0; i-- {
		if full[i] == '.' {
			full = full[i+1:]
			break
		}
	}
	return full == r.Names().Name
}

// FieldName is the name the reader record of full name record gives the
// writer field field: the reader field with that alias, else field.
func (a Aliases) FieldName(record, field string) string {
	if n, ok := a.fields[record][field]; ok {
		return n
	}
	return field
}

// ReaderBranch returns the index of the branch of the reader union r that
// a datum of the writer type w (not a union) is read as, or -1 when r has
// none: the choice Decode makes (see the package doc).
func ReaderBranch(w avro.Schema, r *avro.Union, aliases Aliases) int {
	return newCompiler(false, nil, r).firstMatchingBranch(r, w, path{})
}

// UnionBranches maps each branch of the writer union w to the branch of
// the reader union r it is read as (-1 for none).
func UnionBranches(w, r *avro.Union, aliases Aliases) []int {
	out := make([]int, len(w.Branches))
	for i, b := range w.Branches {
		out[i] = ReaderBranch(b, r, aliases)
	}
	return out
}

// Check reports a writer union, anywhere in writer, with two named branches
// that the renaming gives the same full name (Java's Schema.applyAliases:
// "Duplicate in union"), as an *Error that unwraps to ErrNameMismatch, or
// nil.
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
