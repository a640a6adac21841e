package resolve_test

import (
	"errors"
	"fmt"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

const writerV1 = `{"type":"record","name":"OrderCreated","namespace":"shop","fields":[
  {"name":"id","type":"int"},
  {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","HELD"]}},
  {"name":"note","type":"string"}]}`

const readerV2 = `{"type":"record","name":"OrderCreated","namespace":"shop","fields":[
  {"name":"orderId","aliases":["id"],"type":"long"},
  {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","UNKNOWN"],"default":"UNKNOWN"}},
  {"name":"currency","type":"string","default":"EUR"},
  {"name":"coupon","type":["null","string"],"default":null}]}`

// Data written with version 1 of an event, read as version 2: the field
// alias renames id, int is promoted to long, the unknown enum symbol takes
// the reader's enum default, new fields get their defaults, and the
// writer-only field note is dropped.
func ExampleCompile() {
	writer, _ := avro.Parse([]byte(writerV1))
	reader, _ := avro.Parse([]byte(readerV2))
	r, err := resolve.Compile(writer, reader)
	if err != nil {
		fmt.Println(err)
		return
	}
	codec, _ := goavro.NewCodec(writerV1)
	datum, _ := codec.BinaryFromNative(nil, map[string]any{"id": 42, "status": "HELD", "note": "gift"})

	js, _ := r.DecodeJSON(datum)
	fmt.Println(string(js))

	v, _ := r.Decode(datum) // goavro's native form of the reader schema
	fmt.Printf("%T %v\n", v.(map[string]any)["orderId"], v.(map[string]any)["orderId"])
	// Output:
	// {"orderId":42,"status":"UNKNOWN","currency":"EUR","coupon":null}
	// int64 42
}

// Errors name the place in the reader schema and unwrap to a sentinel.
func ExampleCompile_incompatible() {
	writer, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}`))
	reader, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`))
	_, err := resolve.Compile(writer, reader)
	fmt.Println(err)
	fmt.Println(errors.Is(err, resolve.ErrIncompatible), errors.Is(err, resolve.ErrTypeMismatch))
	// Output:
	// /fields/0 "a": reader type: INT not compatible with writer type: STRING
	// true true
}

// A consumer keeps one Cache and asks it for the resolver of each
// message's writer schema id; the loader (a registry lookup) runs once per
// id.
func ExampleCache() {
	reader, _ := avro.Parse([]byte(readerV2))
	registry := map[int]string{17: writerV1}
	load := func(id int) (avro.Schema, error) { return avro.Parse([]byte(registry[id])) }

	var cache resolve.Cache
	codec, _ := goavro.NewCodec(writerV1)
	datum, _ := codec.BinaryFromNative(nil, map[string]any{"id": 7, "status": "PAID", "note": ""})

	r, err := cache.Resolver(17, reader, load)
	if err != nil {
		fmt.Println(err)
		return
	}
	js, _ := r.DecodeJSON(datum)
	fmt.Println(string(js))
	// Output:
	// {"orderId":7,"status":"PAID","currency":"EUR","coupon":null}
}

// The reader union branch Avro Java reads a writer type as: an enum only by
// its full name (after the reader's aliases), so the namespace change
// finds no branch, while the alias does.
func ExampleReaderBranch() {
	writer, _ := avro.Parse([]byte(`{"type":"enum","name":"shop.Status","symbols":["NEW"]}`))
	moved, _ := avro.Parse([]byte(`["null",{"type":"enum","name":"billing.Status","symbols":["NEW"]}]`))
	aliased, _ := avro.Parse([]byte(`["null",{"type":"enum","name":"billing.Status","aliases":["shop.Status"],"symbols":["NEW"]}]`))
	for _, r := range []avro.Schema{moved, aliased} {
		fmt.Println(resolve.ReaderBranch(writer, r.(*avro.Union), resolve.NewAliases(writer, r)))
	}
	// Output:
	// -1
	// 1
}
