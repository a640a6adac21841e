package consumer

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
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
	name string       // the name a key must match (exactly, then case-insensitively)
	key  string       // the key encoding/json matches for the field
	typ  reflect.Type // the field's type
}

func decodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) ||
		reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

func jsonTagName(sf reflect.StructField) (name string, skip bool) {
	tag, ok := sf.Tag.Lookup("json")
	if !ok {
		return "", false
	}
	if tag == "-" {
		return "", true
	}
	name, _, _ = strings.Cut(tag, ",")
	return name, false
}

// jsonFields lists the fields of struct type t by their JSON path names,
// embedded structs without a json name promoted (a shallower field shadows a
// deeper one of the same name, as in encoding/json). renamed reports whether
// a field's name comes from an avro tag (or an avro tag skips it).
func jsonFields(t reflect.Type) (fields []jsonField, renamed bool) {
	seen := map[string]bool{}
	level := []reflect.Type{t}
	visited := map[reflect.Type]bool{t: true}
	for len(level) > 0 {
		var next []reflect.Type
		var add []jsonField
		for _, st := range level {
			for i := 0; i < st.NumField(); i++ {
				sf := st.Field(i)
				jname, skip := jsonTagName(sf)
				if skip {
					continue
				}
				if sf.Anonymous && jname == "" {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if ft.Kind() == reflect.Struct {
						if !visited[ft] {
							visited[ft] = true
							next = append(next, ft)
						}
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				f := jsonField{name: sf.Name, key: sf.Name, typ: sf.Type}
				if jname != "" {
					f.name, f.key = jname, jname
				} else if atag, ok := sf.Tag.Lookup("avro"); ok {
					aname, _, _ := strings.Cut(atag, ",")
					if aname == "-" {
						renamed = true
						continue
					}
					if aname != "" {
						f.name = aname
						renamed = true
					}
				}
				add = append(add, f)
			}
		}
		for _, f := range add {
			if !seen[f.name] {
				seen[f.name] = true
				fields = append(fields, f)
			}
		}
		level = next
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
// name no field are dropped. v is returned unchanged where nothing needs
// renaming or where it does not have the shape t wants (encoding/json then
// reports the mismatch).
func renameJSON(v []byte, t reflect.Type) []byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	v = bytes.TrimSpace(v)
	if len(v) == 0 || !needsRename(t) {
		return v
	}
	switch t.Kind() {
	case reflect.Struct:
		if v[0] != '{' {
			return v
		}
		var fields []jsonField
		if f, ok := jsonFieldLists.Load(t); ok {
			fields = f.([]jsonField)
		} else {
			fields, _ = jsonFields(t)
			jsonFieldLists.Store(t, fields)
		}
		out, ok := rewriteObject(v, func(key string) (string, reflect.Type, bool) {
			for _, f := range fields {
				if f.name == key {
					return f.key, f.typ, true
				}
			}
			for _, f := range fields {
				if strings.EqualFold(f.name, key) {
					return f.key, f.typ, true
				}
			}
			return "", nil, false
		})
		if !ok {
			return v
		}
		return out
	case reflect.Map:
		if v[0] != '{' {
			return v
		}
		elem := t.Elem()
		out, ok := rewriteObject(v, func(key string) (string, reflect.Type, bool) { return key, elem, true })
		if !ok {
			return v
		}
		return out
	case reflect.Slice, reflect.Array:
		if v[0] != '[' {
			return v
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return v
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(renameJSON(it, t.Elem()))
		}
		b.WriteByte(']')
		return b.Bytes()
	}
	return v
}

// rewriteObject re-emits the JSON object v in document order with each key
// mapped by field (dropped when it reports false) and each value renamed for
// the type field gives. ok is false when v is not a valid object.
func rewriteObject(v []byte, field func(key string) (string, reflect.Type, bool)) (out []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(v))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, isKey := tok.(string)
		var val json.RawMessage
		if !isKey || dec.Decode(&val) != nil {
			return nil, false
		}
		outKey, typ, keep := field(key)
		if !keep {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(outKey)
		b.Write(k)
		b.WriteByte(':')
		b.Write(renameJSON(val, typ))
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	b.WriteByte('}')
	return b.Bytes(), true
}
