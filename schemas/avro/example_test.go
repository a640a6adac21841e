package avro_test

import (
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

func ExampleParse() {
	s, err := avro.Parse([]byte(`{
	  "type": "record", "name": "OrderCreated", "namespace": "com.acme.order.v1",
	  "fields": [
	    {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
	    {"name": "amount", "type": "long"},
	    {"name": "note", "type": ["null", "string"], "default": null}
	  ]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := s.(*avro.Record)
	fmt.Println(r.FullName())
	for _, f := range r.Fields {
		fmt.Printf("%d %s %s default=%v(%v)\n", f.Index, f.Name, avro.TypeName(f.Type), f.Default, f.HasDefault)
	}
	fmt.Println(avro.LogicalOf(r.Fields[0].Type).Name)
	fmt.Println(avro.CanonicalForm(s))
	fmt.Printf("%#x\n", avro.Fingerprint64(s))
	// Output:
	// com.acme.order.v1.OrderCreated
	// 0 id string default=<nil>(false)
	// 1 amount long default=<nil>(false)
	// 2 note union default=<nil>(true)
	// uuid
	// {"name":"com.acme.order.v1.OrderCreated","type":"record","fields":[{"name":"id","type":"string"},{"name":"amount","type":"long"},{"name":"note","type":["null","string"]}]}
	// 0xdb015c3b2cdb935a
}

func ExampleParseWith() {
	_, err := avro.ParseWith([]byte(`{"type": "record", "name": "R", "fields": [
  {"name": "a", "type": "int", "default": "1"}
]}`), avro.Options{File: "r.avsc"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, avro.ErrInvalidSchema))
	// Output:
	// r.avsc:2:43: invalid default for field a: "1" not a "int"
	// true
}
