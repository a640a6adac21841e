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

func TestJSONFields(t *testing.T) {
	t.Parallel()
	type inner struct {
		Deep  string `avro:"deep"`
		Outer string // shadowed by the outer field of the same name
	}
	type s struct {
		*inner
		Outer   string
		JSON    string `json:"j,omitempty" avro:"ignored"`
		Avro    string `avro:"a"`
		Skip    string `avro:"-"`
		NoJSON  string `json:"-"`
		private string
	}
	fields, renamed := JSONFields(reflect.TypeFor[s]())
	if !renamed {
		t.Error("renamed = false, want true (avro tags name fields)")
	}
	type row struct {
		name, key string
		index     []int
		omit      bool
	}
	var got []row
	for _, f := range fields {
		got = append(got, row{f.Name, f.Key, f.Index, f.OmitEmpty})
	}
	want := []row{{"Outer", "Outer", []int{1}, false}, {"j", "j", []int{2}, true}, {"a", "Avro", []int{3}, false}, {"deep", "Deep", []int{0, 0}, false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSONFields =\n %v\nwant\n %v", got, want)
	}
	if _, renamed := JSONFields(reflect.TypeFor[struct {
		A string `json:"a"`
		B int
	}]()); renamed {
		t.Error("renamed = true for a type without avro tags")
	}
}
