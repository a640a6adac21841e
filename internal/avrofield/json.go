package avrofield

import (
	"reflect"
	"strings"
)

// JSONField is one field of a struct as outboxctl's JSON payloads name it,
// for the consumer's decode and the outbox writer's encode alike.
type JSONField struct {
	// Name is the field's JSON name: its json tag name, else its avro
	// tag name, else the Go name (the Avro path's names).
	Name string
	// Key is the name encoding/json uses for the field (json tag name,
	// else the Go name).
	Key string
	// Index is the field's index path in the struct (reflect.FieldByIndex),
	// through promoted embedded structs.
	Index []int
	// OmitEmpty: the json tag has omitempty.
	OmitEmpty bool
	Type      reflect.Type
}

// JSONTagName is the name in sf's json tag ("" for none or no tag); skip
// is true for `json:"-"`.
func JSONTagName(sf reflect.StructField) (name string, skip bool) {
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

// JSONFields lists the fields of struct type t by their JSON names, the
// fields of embedded structs without a json name promoted (a shallower
// field shadows a deeper one of the same name, as in encoding/json).
// `avro:"-"` without a json tag skips a field, as it does for Avro.
// renamed reports whether a field's name comes from an avro tag (or an
// avro tag skips it), that is whether encoding/json alone names t's
// fields differently.
func JSONFields(t reflect.Type) (fields []JSONField, renamed bool) {
	type entry struct {
		t     reflect.Type
		index []int
	}
	seen := map[string]bool{}
	level := []entry{{t, nil}}
	visited := map[reflect.Type]bool{t: true}
	for len(level) > 0 {
		var next []entry
		var add []JSONField
		for _, st := range level {
			for i := 0; i < st.t.NumField(); i++ {
				sf := st.t.Field(i)
				index := append(append([]int(nil), st.index...), i)
				jname, skip := JSONTagName(sf)
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
							next = append(next, entry{ft, index})
						}
						continue
					}
				}
				if !sf.IsExported() {
					continue
				}
				f := JSONField{Name: sf.Name, Key: sf.Name, Index: index, Type: sf.Type}
				if tag, ok := sf.Tag.Lookup("json"); ok {
					_, opts, _ := strings.Cut(tag, ",")
					f.OmitEmpty = strings.Contains(","+opts+",", ",omitempty,")
				}
				if jname != "" {
					f.Name, f.Key = jname, jname
				} else if atag, ok := sf.Tag.Lookup("avro"); ok {
					aname, _, _ := strings.Cut(atag, ",")
					if aname == "-" {
						renamed = true
						continue
					}
					if aname != "" {
						f.Name = aname
						renamed = true
					}
				}
				add = append(add, f)
			}
		}
		for _, f := range add {
			if !seen[f.Name] {
				seen[f.Name] = true
				fields = append(fields, f)
			}
		}
		level = next
	}
	return fields, renamed
}
