package consumer

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/outboxctl/outboxctl/internal/avrofield"
)

// JSON field names follow the Avro path's names (documented in doc.go and on
// decodeJSON): a struct field's name is its `json` tag name if it has one,
// else its `avro` tag name, else the Go field name; `avro:"-"` without a json
// tag skips the field, as it does for Avro. encoding/json knows only the json
// tag, so for a Go type in which some field takes its name from an avro tag
// the object keys are renamed, in document order, to the names encoding/json
// matches before it decodes. Other types go to encoding/json untouched.

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonRenames     sync.Map // reflect.Type -> bool: the type needs renaming
	jsonFieldLists  sync.Map // struct reflect.Type -> []jsonField
)

// jsonField is one field of a struct as the JSON path sees it.
type jsonField struct {
	name      string       // the name a key must match (exactly, then case-insensitively)
	nameBytes []byte       // name, for bytes.EqualFold
	key       string       // the key encoding/json matches for the field
	keyJSON   []byte       // key as a JSON string
	typ       reflect.Type // the field's type
}

func decodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) ||
		reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

// jsonFields lists the fields of struct type t by their JSON path names
// (avrofield.JSONFields, the one mapping the outbox writer uses too).
func jsonFields(t reflect.Type) (fields []jsonField, renamed bool) {
	afs, renamed := avrofield.JSONFields(t)
	fields = make([]jsonField, len(afs))
	for i, f := range afs {
		fields[i] = jsonField{name: f.Name, nameBytes: []byte(f.Name), key: f.Key, typ: f.Type}
		fields[i].keyJSON, _ = json.Marshal(f.Key)
	}
	return fields, renamed
}

// needsRename reports whether a JSON value of type t has object keys to
// rename (cached per type).
func needsRename(t reflect.Type) bool {
	if v, ok := jsonRenames.Load(t); ok {
		return v.(bool)
	}
	n := needsRenameIn(t, map[reflect.Type]bool{})
	jsonRenames.Store(t, n)
	return n
}

func needsRenameIn(t reflect.Type, visiting map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if visiting[t] || decodesItself(t) {
		return false
	}
	visiting[t] = true
	switch t.Kind() {
	case reflect.Struct:
		fields, renamed := jsonFields(t)
		if renamed {
			return true
		}
		for _, f := range fields {
			if needsRenameIn(f.typ, visiting) {
				return true
			}
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		return needsRenameIn(t.Elem(), visiting)
	}
	return false
}

// renameJSON rewrites the JSON value v for type t: object keys of structs
// become the keys encoding/json matches for the field they name; keys that
// name no field are dropped; everything else is copied as it is. v is
// returned unchanged where nothing needs renaming or where it is not valid
// JSON (encoding/json then reports the error); a value of another shape than
// t wants is copied, for encoding/json to report the mismatch.
func renameJSON(v []byte, t reflect.Type) []byte {
	if !needsRename(t) {
		return v
	}
	i := skipSpace(v, 0)
	out, i, ok := renameValue(make([]byte, 0, len(v)), v, i, t)
	if !ok || skipSpace(v, i) != len(v) {
		return v
	}
	return out
}

// structFields returns the cached JSON path fields of struct type t.
func structFields(t reflect.Type) []jsonField {
	if f, ok := jsonFieldLists.Load(t); ok {
		return f.([]jsonField)
	}
	fields, _ := jsonFields(t)
	jsonFieldLists.Store(t, fields)
	return fields
}

// renameValue appends the value at v[i:] renamed for t to out and returns the
// index after it.
func renameValue(out, v []byte, i int, t reflect.Type) ([]byte, int, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if i >= len(v) {
		return out, i, false
	}
	kind := t.Kind()
	if !needsRename(t) || (kind == reflect.Struct || kind == reflect.Map) && v[i] != '{' || (kind == reflect.Slice || kind == reflect.Array) && v[i] != '[' {
		j, ok := skipValue(v, i)
		return append(out, v[i:j]...), j, ok
	}
	switch kind {
	case reflect.Struct, reflect.Map:
		var fields []jsonField
		if kind == reflect.Struct {
			fields = structFields(t)
		}
		out = append(out, '{')
		i = skipSpace(v, i+1)
		if i < len(v) && v[i] == '}' {
			return append(out, '}'), i + 1, true
		}
		first := true
		for {
			if i >= len(v) || v[i] != '"' {
				return out, i, false
			}
			end, ok := skipString(v, i)
			if !ok {
				return out, i, false
			}
			rawKey := v[i:end]
			i = skipSpace(v, end)
			if i >= len(v) || v[i] != ':' {
				return out, i, false
			}
			i = skipSpace(v, i+1)
			elem, outKey, keep := t, rawKey, true
			if kind == reflect.Map {
				elem = t.Elem()
			} else {
				key := rawKey[1 : len(rawKey)-1]
				if bytes.IndexByte(key, '\\') >= 0 {
					var k string
					if json.Unmarshal(rawKey, &k) != nil {
						return out, i, false
					}
					key = []byte(k)
				}
				f := matchField(fields, key)
				if keep = f != nil; keep {
					elem, outKey = f.typ, f.keyJSON
				}
			}
			if keep {
				if !first {
					out = append(out, ',')
				}
				first = false
				out = append(out, outKey...)
				out = append(out, ':')
				if out, i, ok = renameValue(out, v, i, elem); !ok {
					return out, i, false
				}
			} else if i, ok = skipValue(v, i); !ok {
				return out, i, false
			}
			i = skipSpace(v, i)
			if i >= len(v) {
				return out, i, false
			}
			switch v[i] {
			case ',':
				i = skipSpace(v, i+1)
			case '}':
				return append(out, '}'), i + 1, true
			default:
				return out, i, false
			}
		}
	default: // slice, array
		out = append(out, '[')
		i = skipSpace(v, i+1)
		if i < len(v) && v[i] == ']' {
			return append(out, ']'), i + 1, true
		}
		for {
			var ok bool
			if out, i, ok = renameValue(out, v, i, t.Elem()); !ok {
				return out, i, false
			}
			i = skipSpace(v, i)
			if i >= len(v) {
				return out, i, false
			}
			switch v[i] {
			case ',':
				out = append(out, ',')
				i = skipSpace(v, i+1)
			case ']':
				return append(out, ']'), i + 1, true
			default:
				return out, i, false
			}
		}
	}
}

// matchField finds the field a key names: exactly, then case-insensitively.
func matchField(fields []jsonField, key []byte) *jsonField {
	for i := range fields {
		if string(key) == fields[i].name {
			return &fields[i]
		}
	}
	for i := range fields {
		if bytes.EqualFold(key, fields[i].nameBytes) {
			return &fields[i]
		}
	}
	return nil
}

func skipSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at v[i] ('"').
func skipString(v []byte, i int) (int, bool) {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(v), false
}

// skipValue returns the index after the JSON value starting at v[i]. It
// checks only the nesting; encoding/json validates the rest.
func skipValue(v []byte, i int) (int, bool) {
	if i >= len(v) {
		return i, false
	}
	switch v[i] {
	case '"':
		return skipString(v, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(v); j++ {
			switch v[j] {
			case '"':
				end, ok := skipString(v, j)
				if !ok {
					return end, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(v), false
	}
	j := i
	for ; j < len(v); j++ {
		switch v[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j, j > i
		}
	}
	return j, j > i
}
