package avrofield

import (
	"reflect"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

func TestNameLookup(t *testing.T) {
	t.Parallel()
	r, err := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"orderId","type":"string"},{"name":"Total","type":"long"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	type s struct {
		OrderID string `avro:"orderId,omitempty"`
		Total   int64
		Skip    string `avro:"-"`
		Other   string `avro:""`
	}
	st := reflect.TypeFor[s]()
	for _, tc := range []struct {
		field, name, avro string
		ok                bool
	}{
		{"OrderID", "orderId", "orderId", true},
		{"Total", "Total", "Total", true},
		{"Skip", "", "", false},
		{"Other", "Other", "", true},
	} {
		sf, _ := st.FieldByName(tc.field)
		name, ok := Name(sf)
		if name != tc.name || ok != tc.ok {
			t.Errorf("Name(%s) = %q, %v, want %q, %v", tc.field, name, ok, tc.name, tc.ok)
		}
		var got string
		if f := Lookup(r.(*avro.Record), name); f != nil {
			got = f.Name
		}
		if ok && got != tc.avro {
			t.Errorf("Lookup(%q) = %q, want %q", name, got, tc.avro)
		}
	}
	if f := Lookup(r.(*avro.Record), "orderid"); f == nil || f.Name != "orderId" {
		t.Errorf("Lookup(orderid) = %v, want the case-insensitive match orderId", f)
	}
}
