package resolve_test

import (
	"testing"
	"time"

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

// BenchmarkDecodeInterleaved measures the same two decodes as
// BenchmarkDecode in alternating chunks of 200 decodes and reports the
// fastest chunk of each (ns per decode) and their ratio. On a shared,
// loaded machine the fastest chunk is the closest to the uncontended cost,
// and alternating keeps both sides under the same load.
func BenchmarkDecodeInterleaved(b *testing.B) {
	data := encode(b, benchWriter, benchDatum)
	codec, err := goavro.NewCodec(benchWriter)
	if err != nil {
		b.Fatal(err)
	}
	res, err := resolve.Compile(mustParse(b, benchWriter), mustParse(b, benchReader))
	if err != nil {
		b.Fatal(err)
	}
	const chunk = 200
	best := [2]time.Duration{1 << 62, 1 << 62}
	for b.Loop() {
		for side := range 2 {
			start := time.Now()
			for range chunk {
				if side == 0 {
					_, _, err = codec.NativeFromBinary(data)
				} else {
					_, err = res.Decode(data)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			best[side] = min(best[side], time.Since(start))
		}
	}
	plain := float64(best[0].Nanoseconds()) / chunk
	resolved := float64(best[1].Nanoseconds()) / chunk
	b.ReportMetric(plain, "plain-ns/decode")
	b.ReportMetric(resolved, "resolve-ns/decode")
	b.ReportMetric(100*(resolved-plain)/plain, "overhead-%")
}
