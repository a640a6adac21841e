package avrobind_test

import (
	"fmt"
	"reflect"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
)

// A v1 writer, a v1.1 reader that renames a field, promotes another and
// adds one with a default, and the consumer's struct.
func Example() {
	writer, _ := avro.Parse([]byte(`{"type":"record","name":"Paid","fields":[
		{"name":"id","type":"string"},{"name":"cents","type":"int"}]}`))
	reader, _ := avro.Parse([]byte(`{"type":"record","name":"Paid","fields":[
		{"name":"orderId","type":"string","aliases":["id"]},
		{"name":"cents","type":"long"},
		{"name":"currency","type":"string","default":"EUR"}]}`))
	type Paid struct {
		OrderID  string `avro:"orderId"`
		Cents    int64  `avro:"cents"`
		Currency string `avro:"currency"`
	}
	if err := avrobind.Check(reader, reflect.TypeFor[Paid](), false); err != nil {
		fmt.Println(err)
		return
	}
	plan, err := avrobind.Compile(writer, reader, reflect.TypeFor[Paid]())
	if err != nil {
		fmt.Println(err)
		return
	}
	codec, _ := goavro.NewCodec(`{"type":"record","name":"Paid","fields":[{"name":"id","type":"string"},{"name":"cents","type":"int"}]}`)
	data, _ := codec.BinaryFromNative(nil, map[string]any{"id": "o-1", "cents": 1250})

	var p Paid
	if err := plan.Decode(data, &p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", p)
	// Output: {OrderID:o-1 Cents:1250 Currency:EUR}
}
