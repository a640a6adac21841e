// Package avrofield is the one place where outboxctl maps a Go struct field
// to the field of an Avro record that fills it, for the consumer's decode
// through plain values and avrobind's compiled decode alike.
package avrofield

import (
	"reflect"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// Name is the Avro field name of struct field sf: the name in its avro tag
// (up to a comma) when it has one, else its Go name. ok is false for a
// field tagged "-", which no Avro field fills.
func Name(sf reflect.StructField) (name string, ok bool) {
	name = sf.Name
	if tag, tagged := sf.Tag.Lookup("avro"); tagged {
		tag, _, _ = strings.Cut(tag, ",")
		if tag == "-" {
			return "", false
		}
		if tag != "" {
			name = tag
		}
	}
	return name, true
}

// Lookup is the field of r named name, else the first whose name equals
// name case-insensitively, else nil.
func Lookup(r *avro.Record, name string) *avro.Field {
	if f := r.Field(name); f != nil {
		return f
	}
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}
