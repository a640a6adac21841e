package consumer

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"time"

	"github.com/outboxctl/outboxctl/internal/avrofield"
	"github.com/outboxctl/outboxctl/schemas/avro"
)

// assignAvro stores v, a goavro native value of schema s (as
// resolve.Resolver.Decode returns it), into dst, walking the schema alongside
// the value so that unions and maps are never confused.
//
// Mapping (documented in doc.go):
//   - record → struct (fields by `avro:"name"` tag, else the Go field name,
//     matched exactly and then case-insensitively; `avro:"-"` skips a field;
//     reader fields with no Go field are dropped) or map[string]X;
//   - union → the branch value (null → nil pointer, nil map/slice/interface,
//     or the zero value);
//   - enum → string kinds; fixed → []byte, [N]byte or string; bytes →
//     []byte or string;
//   - int/long/float/double → any numeric kind that holds the value
//     (overflow is an error);
//   - logical types as goavro gives them: time.Time, time.Duration, *big.Rat
//     (also into big.Rat and float64);
//   - any (interface{}) → plain Go values: map[string]any, []any, unions
//     unwrapped.
func assignAvro(s avro.Schema, v any, dst reflect.Value, path string) error {
	if u, ok := s.(*avro.Union); ok {
		if v == nil {
			dst.SetZero()
			return nil
		}
		br, val, err := unionBranch(u, v)
		if err != nil {
			return fmt.Errorf("%s: %w", pathOr(path), err)
		}
		return assignAvro(br, val, dst, path)
	}
	if dst.Kind() == reflect.Interface && dst.NumMethod() == 0 {
		p, err := plainAvro(s, v)
		if err != nil {
			return fmt.Errorf("%s: %w", pathOr(path), err)
		}
		if p == nil {
			dst.SetZero()
		} else {
			dst.Set(reflect.ValueOf(p))
		}
		return nil
	}
	if dst.Kind() == reflect.Pointer && dst.Type() != reflect.TypeFor[*big.Rat]() {
		if v == nil {
			dst.SetZero()
			return nil
		}
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		return assignAvro(s, v, dst.Elem(), path)
	}
	switch st := s.(type) {
	case *avro.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return typeErr(path, s, v, dst)
		}
		return assignRecord(st, m, dst, path)
	case *avro.Array:
		items, ok := v.([]any)
		if !ok {
			return typeErr(path, s, v, dst)
		}
		switch dst.Kind() {
		case reflect.Slice:
			out := reflect.MakeSlice(dst.Type(), len(items), len(items))
			for i, it := range items {
				if err := assignAvro(st.Items, it, out.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			dst.Set(out)
			return nil
		case reflect.Array:
			if dst.Len() != len(items) {
				return fmt.Errorf("%s: array of %d items into %s", pathOr(path), len(items), dst.Type())
			}
			for i, it := range items {
				if err := assignAvro(st.Items, it, dst.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			return nil
		}
		return typeErr(path, s, v, dst)
	case *avro.Map:
		m, ok := v.(map[string]any)
		if !ok || dst.Kind() != reflect.Map || dst.Type().Key().Kind() != reflect.String {
			return typeErr(path, s, v, dst)
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		for k, val := range m {
			ev := reflect.New(dst.Type().Elem()).Elem()
			if err := assignAvro(st.Values, val, ev, path+"."+k); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
		}
		dst.Set(out)
		return nil
	}
	return assignScalar(v, dst, s, path)
}

func assignRecord(rs *avro.Record, m map[string]any, dst reflect.Value, path string) error {
	switch dst.Kind() {
	case reflect.Struct:
		t := dst.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, ok := avrofield.Name(sf)
			if !ok {
				continue
			}
			f := avrofield.Lookup(rs, name)
			if f == nil {
				continue // the reader schema has no such field: leave the zero value
			}
			if err := assignAvro(f.Type, m[f.Name], dst.Field(i), joinPath(path, f.Name)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if dst.Type().Key().Kind() != reflect.String {
			break
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(rs.Fields))
		for _, f := range rs.Fields {
			ev := reflect.New(dst.Type().Elem()).Elem()
			if err := assignAvro(f.Type, m[f.Name], ev, joinPath(path, f.Name)); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(f.Name).Convert(dst.Type().Key()), ev)
		}
		dst.Set(out)
		return nil
	}
	return typeErr(path, rs, m, dst)
}

var (
	timeType = reflect.TypeFor[time.Time]()
	ratType  = reflect.TypeFor[big.Rat]()
	ratPtr   = reflect.TypeFor[*big.Rat]()
)

func assignScalar(v any, dst reflect.Value, s avro.Schema, path string) error {
	if v == nil {
		dst.SetZero()
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Type().AssignableTo(dst.Type()) {
		dst.Set(rv)
		return nil
	}
	switch x := v.(type) {
	case string:
		if dst.Kind() == reflect.String {
			dst.SetString(x)
			return nil
		}
		if dst.Kind() == reflect.Slice && dst.Type().Elem().Kind() == reflect.Uint8 {
			dst.SetBytes([]byte(x))
			return nil
		}
	case []byte:
		switch {
		case dst.Kind() == reflect.String:
			dst.SetString(string(x))
			return nil
		case dst.Kind() == reflect.Slice && dst.Type().Elem().Kind() == reflect.Uint8:
			dst.SetBytes(append([]byte(nil), x...))
			return nil
		case dst.Kind() == reflect.Array && dst.Type().Elem().Kind() == reflect.Uint8 && dst.Len() == len(x):
			reflect.Copy(dst, reflect.ValueOf(x))
			return nil
		}
	case bool:
		if dst.Kind() == reflect.Bool {
			dst.SetBool(x)
			return nil
		}
	case int32:
		return assignInt(int64(x), dst, s, v, path)
	case int64:
		return assignInt(x, dst, s, v, path)
	case float32:
		return assignFloat(float64(x), dst, s, v, path)
	case float64:
		return assignFloat(x, dst, s, v, path)
	case time.Duration:
		return assignInt(int64(x), dst, s, v, path)
	case time.Time:
		if dst.Type() == timeType {
			dst.Set(rv)
			return nil
		}
	case *big.Rat:
		switch {
		case dst.Type() == ratType:
			dst.Set(reflect.ValueOf(*new(big.Rat).Set(x)))
			return nil
		case dst.Type() == ratPtr:
			dst.Set(reflect.ValueOf(new(big.Rat).Set(x)))
			return nil
		case dst.Kind() == reflect.Float64 || dst.Kind() == reflect.Float32:
			f, _ := x.Float64()
			dst.SetFloat(f)
			return nil
		case dst.Kind() == reflect.String:
			dst.SetString(x.RatString())
			return nil
		}
	}
	return typeErr(path, s, v, dst)
}

func assignInt(n int64, dst reflect.Value, s avro.Schema, v any, path string) error {
	switch dst.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if dst.OverflowInt(n) {
			return fmt.Errorf("%s: %d overflows %s", pathOr(path), n, dst.Type())
		}
		dst.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n < 0 || dst.OverflowUint(uint64(n)) {
			return fmt.Errorf("%s: %d overflows %s", pathOr(path), n, dst.Type())
		}
		dst.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		dst.SetFloat(float64(n))
		return nil
	}
	return typeErr(path, s, v, dst)
}

func assignFloat(f float64, dst reflect.Value, s avro.Schema, v any, path string) error {
	switch dst.Kind() {
	case reflect.Float32:
		if !math.IsInf(f, 0) && !math.IsNaN(f) && dst.OverflowFloat(f) {
			return fmt.Errorf("%s: %g overflows %s", pathOr(path), f, dst.Type())
		}
		dst.SetFloat(f)
		return nil
	case reflect.Float64:
		dst.SetFloat(f)
		return nil
	}
	return typeErr(path, s, v, dst)
}

// plainAvro turns a goavro native value into plain Go values: unions are
// unwrapped to their branch value, records and maps stay map[string]any,
// arrays []any.
func plainAvro(s avro.Schema, v any) (any, error) {
	switch st := s.(type) {
	case *avro.Union:
		if v == nil {
			return nil, nil
		}
		br, val, err := unionBranch(st, v)
		if err != nil {
			return nil, err
		}
		return plainAvro(br, val)
	case *avro.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("record value is %T", v)
		}
		out := make(map[string]any, len(m))
		for _, f := range st.Fields {
			p, err := plainAvro(f.Type, m[f.Name])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			out[f.Name] = p
		}
		return out, nil
	case *avro.Array:
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("array value is %T", v)
		}
		out := make([]any, len(items))
		for i, it := range items {
			p, err := plainAvro(st.Items, it)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = p
		}
		return out, nil
	case *avro.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("map value is %T", v)
		}
		out := make(map[string]any, len(m))
		for k, val := range m {
			p, err := plainAvro(st.Values, val)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = p
		}
		return out, nil
	}
	return v, nil
}

// unionBranch finds the branch of a goavro union value {key: value}. goavro
// keys a branch by the full name of a named type, the type name of a
// primitive, or "<base>.<logical>" for the logical types it decodes.
func unionBranch(u *avro.Union, v any) (avro.Schema, any, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, nil, fmt.Errorf("union value is %T, want a one-key map", v)
	}
	for key, val := range m {
		for _, b := range u.Branches {
			if branchKey(b) == key || avro.TypeName(b) == key {
				return b, val, nil
			}
		}
		return nil, nil, fmt.Errorf("union value with unknown branch %q", key)
	}
	panic("unreachable")
}

func branchKey(s avro.Schema) string {
	if lt := avro.LogicalOf(s); lt != nil {
		if lt.Name == "decimal" {
			return string(s.Type()) + ".decimal"
		}
		return string(s.Type()) + "." + lt.Name
	}
	return avro.TypeName(s)
}

func typeErr(path string, s avro.Schema, v any, dst reflect.Value) error {
	return fmt.Errorf("%s: cannot store avro %s value (%T) in Go %s", pathOr(path), avro.TypeName(s), v, dst.Type())
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func pathOr(path string) string {
	if path == "" {
		return "value"
	}
	return path
}
