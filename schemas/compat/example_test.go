package compat_test

import (
	"fmt"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
)

func ExampleCheck() {
	writer, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`))
	reader, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`))
	res := compat.Check(reader, writer)
	fmt.Println(res.Compatible)
	for _, i := range res.Incompatibilities {
		fmt.Println(i.Type, i.Location, i.Message)
	}
	// Output:
	// false
	// READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 b
}

func ExampleCheckLevel() {
	v1, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`))
	v2, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]}`))
	candidate, _ := avro.Parse([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`))
	history := []avro.Schema{v1, v2} // oldest first

	for _, level := range []compat.Level{compat.Backward, compat.BackwardTransitive} {
		rep := compat.CheckLevel(level, candidate, history)
		fmt.Println(level, rep.Compatible)
		for _, f := range rep.Findings {
			fmt.Println(" ", f.Confluent())
		}
	}
	// Output:
	// BACKWARD true
	// BACKWARD_TRANSITIVE false
	//   {errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the new schema has no default value and is missing in the old schema', additionalInfo:'b'}
}
