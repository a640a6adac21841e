package resolve_test

import (
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// A 10-field event and the next version of it that a consumer reads with:
// qty int->long, createdAt long->timestamp-millis, flag dropped, currency
// added with a default, status gains a symbol.
const (
	benchWriter = `{"type":"record","name":"OrderCreated","namespace":"shop","fields":[
	{"name":"id","type":"long"},
	{"name":"name","type":"string"},
	{"name":"amount","type":"double"},
	{"name":"qty","type":"int"},
	{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"]}},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"attrs","type":{"type":"map","values":"string"}},
	{"name":"note","type":["null","string"]},
	{"name":"createdAt","type":"long"},
	{"name":"flag","type":"boolean"}]}`
	benchReader = `{"type":"record","name":"OrderCreated","namespace":"shop","fields":[
	{"name":"id","type":"long"},
	{"name":"name","type":"string"},
	{"name":"amount","type":"double"},
	{"name":"qty","type":"long"},
	{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED","CANCELLED"],"default":"NEW"}},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"attrs","type":{"type":"map","values":"string"}},
	{"name":"note","type":["null","string"]},
	{"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}},
	{"name":"currency","type":"string","default":"EUR"}]}`
)

var benchDatum = map[string]any{
	"id": int64(123456789), "name": "Ada Lovelace", "amount": 99.95, "qty": int32(3), "status": "PAID",
	"tags": []any{"gift", "express"}, "attrs": map[string]any{"channel": "web", "campaign": "spring"},
	"note": goavro.Union("string", "leave at the door"), "createdAt": int64(1700000000123), "flag": true,
}

// BenchmarkDecode compares goavro's plain decode of the writer bytes with
// decode + resolution to the reader schema, on the same bytes.
//
//	go test ./schemas/resolve -run '^$' -bench BenchmarkDecode -benchmem -count 5
func BenchmarkDecode(b *testing.B) {
	data := encode(b, benchWriter, benchDatum)
	codec, err := goavro.NewCodec(benchWriter)
	if err != nil {
		b.Fatal(err)
	}
	res, err := resolve.Compile(mustParse(b, benchWriter), mustParse(b, benchReader))
	if err != nil {
		b.Fatal(err)
	}
	same, err := resolve.Compile(mustParse(b, benchWriter), mustParse(b, benchWriter))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("goavro-plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := codec.NativeFromBinary(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := res.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resolve-same-schema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := same.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resolve-json", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 512)
		for b.Loop() {
			var err error
			if buf, err = res.AppendJSON(buf[:0], data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
