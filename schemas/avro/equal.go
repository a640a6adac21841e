package avro

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

// Equal reports whether a and b are equal as Avro Java's Schema.equals
// sees them: same types, full names, fields (name, type, default, order,
// properties), symbols, enum default, sizes, items, values, branches and
// properties. Docs and aliases are ignored, as in Java. Recursive schemas
// are compared without looping.
func Equal(a, b Schema) bool {
	return equal(a, b, map[[2]Schema]bool{})
}

func equal(a, b Schema, seen map[[2]Schema]bool) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.Type() != b.Type() {
		return false
	}
	key := [2]Schema{a, b}
	if seen[key] {
		return true
	}
	seen[key] = true
	switch x := a.(type) {
	case *unresolved:
		y, ok := b.(*unresolved)
		return ok && x.name == y.name
	case *Primitive:
		y, ok := b.(*Primitive)
		return ok && propsEqual(x.Props, y.Props)
	case *Record:
		y, ok := b.(*Record)
		if !ok || x.FullName() != y.FullName() || len(x.Fields) != len(y.Fields) || !propsEqual(x.Props, y.Props) {
			return false
		}
		for i, f := range x.Fields {
			g := y.Fields[i]
			if f.Name != g.Name || f.Order != g.Order || f.HasDefault != g.HasDefault ||
				!valuesEqual(f.Default, g.Default) || !propsEqual(f.Props, g.Props) || !equal(f.Type, g.Type, seen) {
				return false
			}
		}
		return true
	case *Enum:
		y, ok := b.(*Enum)
		return ok && x.FullName() == y.FullName() && reflect.DeepEqual(x.Symbols, y.Symbols) &&
			x.HasDefault == y.HasDefault && x.Default == y.Default && propsEqual(x.Props, y.Props)
	case *Fixed:
		y, ok := b.(*Fixed)
		return ok && x.FullName() == y.FullName() && x.Size == y.Size && propsEqual(x.Props, y.Props)
	case *Array:
		y, ok := b.(*Array)
		return ok && propsEqual(x.Props, y.Props) && equal(x.Items, y.Items, seen)
	case *Map:
		y, ok := b.(*Map)
		return ok && propsEqual(x.Props, y.Props) && equal(x.Values, y.Values, seen)
	case *Union:
		y, ok := b.(*Union)
		if !ok || len(x.Branches) != len(y.Branches) {
			return false
		}
		for i := range x.Branches {
			if !equal(x.Branches[i], y.Branches[i], seen) {
				return false
			}
		}
		return true
	}
	return false
}

// propsEqual compares properties as a map (Java compares the property maps).
func propsEqual(a, b Props) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		v, ok := b.Get(p.Key)
		if !ok || !valuesEqual(p.Value, v) {
			return false
		}
	}
	return true
}

// valuesEqual compares Avro JSON values; numbers compare by value, and NaN
// equals NaN (Java's defaultValueEquals).
func valuesEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			if f, ok := b.(float64); ok {
				xf, err := strconv.ParseFloat(string(x), 64)
				return err == nil && xf == f
			}
			return false
		}
		if x == y {
			return true
		}
		xf, e1 := strconv.ParseFloat(string(x), 64)
		yf, e2 := strconv.ParseFloat(string(y), 64)
		return e1 == nil && e2 == nil && xf == yf
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y || (math.IsNaN(x) && math.IsNaN(y))
		case json.Number:
			return valuesEqual(y, x)
		}
		return false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !valuesEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}
