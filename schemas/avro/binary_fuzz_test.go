package avro_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// FuzzNormalizeBinary: on any bytes the walk does not panic, an error is an
// invalid varint, and a normalized datum is canonical (normalizing it again
// changes nothing).
func FuzzNormalizeBinary(f *testing.F) {
	s, err := avro.Parse([]byte(`{"type":"record","name":"R","fields":[
	{"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"b","type":"boolean"},
	{"name":"s","type":"string"},{"name":"u","type":["null","long",{"type":"array","items":"int"}]},
	{"name":"m","type":{"type":"map","values":{"type":"array","items":"null"}}},
	{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
	{"name":"f","type":{"type":"fixed","name":"F","size":2}},
	{"name":"n","type":["null","R"]}]}`))
	if err != nil {
		f.Fatal(err)
	}
	n := avro.NewNormalizer(s)
	for _, seed := range []string{"", "\x02\x04\x01\x02ab\x00\x00\x02xy", "\xff\xff\xff\xff\x7f\x80\x00\x02", "\x03\x06\x82\x00\x02\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		out, err := n.Normalize(data)
		if !bytes.Equal(in, data) {
			t.Fatal("Normalize modified its input")
		}
		if err != nil {
			var be *avro.BinaryError
			if !errors.As(err, &be) || !(errors.Is(err, avro.ErrInvalidInt) || errors.Is(err, avro.ErrInvalidLong)) {
				t.Fatalf("error %v is not an invalid varint", err)
			}
			return
		}
		again, err := n.Normalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("normalizing %x twice: %x then %x, %v", data, out, again, err)
		}
	})
}
