package consumer_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"
	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// The 10-field record of the typed-decode benchmark (docs/benchmarks.md).
const benchWriter = `{"type":"record","name":"OrderPlaced","namespace":"bench","fields":[
 {"name":"id","type":"string"},
 {"name":"currency","type":"string"},
 {"name":"amount","type":"long"},
 {"name":"quantity","type":"int"},
 {"name":"price","type":"double"},
 {"name":"paid","type":"boolean"},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"]}},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"name","type":"string"},{"name":"tier","type":"int"}]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}}
]}`

// benchEvolved adds a defaulted field, drops currency, promotes quantity
// from int to long and renames id to orderId through an alias.
const benchEvolved = `{"type":"record","name":"OrderPlaced","namespace":"bench","fields":[
 {"name":"orderId","type":"string","aliases":["id"]},
 {"name":"amount","type":"long"},
 {"name":"quantity","type":"long"},
 {"name":"price","type":"double"},
 {"name":"paid","type":"boolean"},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"]}},
 {"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"name","type":"string"},{"name":"tier","type":"int"}]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"channel","type":"string","default":"web"}
]}`

type benchCustomer struct {
	Name string `avro:"name"`
	Tier int32  `avro:"tier"`
}

type benchOrder struct {
	ID        string        `avro:"id"`
	Currency  string        `avro:"currency"`
	Amount    int64         `avro:"amount"`
	Quantity  int32         `avro:"quantity"`
	Price     float64       `avro:"price"`
	Paid      bool          `avro:"paid"`
	Status    string        `avro:"status"`
	Customer  benchCustomer `avro:"customer"`
	Note      *string       `avro:"note"`
	CreatedAt time.Time     `avro:"createdAt"`
}

type benchOrderV2 struct {
	OrderID   string        `avro:"orderId"`
	Amount    int64         `avro:"amount"`
	Quantity  int64         `avro:"quantity"`
	Price     float64       `avro:"price"`
	Paid      bool          `avro:"paid"`
	Status    string        `avro:"status"`
	Customer  benchCustomer `avro:"customer"`
	Note      *string       `avro:"note"`
	CreatedAt time.Time     `avro:"createdAt"`
	Channel   string        `avro:"channel"`
}

func benchDatum() map[string]any {
	return map[string]any{
		"id": "9f0c7a4e-5b1d-4c7e-8a51-0d3b2f6c9e11", "currency": "EUR", "amount": int64(129900), "quantity": int32(3),
		"price": 433.0, "paid": true, "status": "PAID",
		"customer":  map[string]any{"name": "Ada Lovelace", "tier": int32(2)},
		"note":      goavro.Union("string", "leave at the door"),
		"createdAt": time.UnixMilli(1764547200123).UTC(),
	}
}

// contender is one decoder of the benchmark record.
type contender struct {
	name string
	run  func() error
}

// typedContenders returns, for writer == reader (evolved false) or the
// evolved reader, the SDK's full path from a wire-format record to the
// handler's struct (Router.Process with a no-op handler), the same with the
// old generic path (resolve + assignAvro), the compiled plan alone,
// hamba/avro/v2 unmarshalling into the same struct (with its resolved
// schema for the evolved reader) and goavro's NativeFromBinary into a map
// (plus resolve's plan for the evolved reader).
func typedContenders(tb testing.TB, evolved bool) []contender {
	reg := &consumertest.Registry{}
	id, err := reg.Register(benchWriter)
	if err != nil {
		tb.Fatal(err)
	}
	wire := reg.MustEncode(id, benchDatum())
	payload := wire[5:]
	readerText := benchWriter
	if evolved {
		readerText = benchEvolved
	}
	writer, _ := avro.Parse([]byte(benchWriter))
	reader, _ := avro.Parse([]byte(readerText))
	router := func(legacy bool) *consumer.Router {
		r, _ := consumer.NewRouter(consumer.RouterConfig{Schemas: reg})
		consumer.SetLegacyDecode(r, legacy)
		var err error
		if evolved {
			err = consumer.Handle(r, "OrderPlaced", 1, func(context.Context, consumer.Event[benchOrderV2]) error { return nil }, consumer.ReaderSchema(readerText))
		} else {
			err = consumer.Handle(r, "OrderPlaced", 1, func(context.Context, consumer.Event[benchOrder]) error { return nil }, consumer.ReaderSchema(readerText))
		}
		if err != nil {
			tb.Fatal(err)
		}
		return r
	}
	msg := &consumer.Message{Topic: "outbox.event.Order", Key: []byte("o-1"), Value: wire, Headers: []consumer.Header{
		{Key: "id", Value: []byte("5b7c9e2a-0000-4000-8000-000000000001")},
		{Key: "eventType", Value: []byte("OrderPlaced")}, {Key: "schemaVersion", Value: []byte("1")}}}
	process := func(r *consumer.Router) func() error {
		return func() error { return r.Process(context.Background(), msg) }
	}
	typ := reflect.TypeFor[benchOrder]()
	if evolved {
		typ = reflect.TypeFor[benchOrderV2]()
	}
	plan, err := avrobind.Compile(writer, reader, typ)
	if err != nil {
		tb.Fatal(err)
	}
	hs := hamba.MustParse(benchWriter)
	if evolved {
		if hs, err = hamba.NewSchemaCompatibility().Resolve(hamba.MustParse(benchEvolved), hs); err != nil {
			tb.Fatal(err)
		}
	}
	hambaRun := func() error {
		var o benchOrder
		return hamba.Unmarshal(hs, payload, &o)
	}
	if evolved {
		hambaRun = func() error {
			var o benchOrderV2
			return hamba.Unmarshal(hs, payload, &o)
		}
	}
	cs := []contender{
		{"router", process(router(false))},
		{"router-legacy", process(router(true))},
		{"avrobind", func() error { return plan.Decode(payload, reflect.New(typ).Interface()) }},
		{"hamba", hambaRun},
	}
	if evolved {
		res, err := resolve.Compile(writer, reader)
		if err != nil {
			tb.Fatal(err)
		}
		cs = append(cs, contender{"goavro+resolve", func() error { _, err := res.Decode(payload); return err }})
	} else {
		codec, _ := goavro.NewCodec(benchWriter)
		cs = append(cs, contender{"goavro", func() error { _, _, err := codec.NativeFromBinary(payload); return err }})
	}
	return cs
}

// BenchmarkTypedDecode is the typed-decode benchmark of issue 8
// (docs/benchmarks.md). Each contender is a sub-benchmark (ns/op, B/op,
// allocs/op), and "interleaved" runs all of them in alternating chunks of
// 200 records and reports the fastest and the median chunk of each (ns per
// record) and the ratios to hamba: on a shared, loaded machine that is the
// fair comparison, as every contender sees the same load (the median chunk
// includes the garbage collection each contender causes, the fastest
// mostly not).
func BenchmarkTypedDecode(b *testing.B) {
	for _, evolved := range []bool{false, true} {
		name := "same"
		if evolved {
			name = "evolved"
		}
		b.Run(name, func(b *testing.B) {
			cs := typedContenders(b, evolved)
			for _, c := range cs {
				b.Run(c.name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := c.run(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
			b.Run("interleaved", func(b *testing.B) {
				const chunk = 200
				times := make([][]time.Duration, len(cs))
				for b.Loop() {
					for i, c := range cs {
						start := time.Now()
						for range chunk {
							if err := c.run(); err != nil {
								b.Fatal(err)
							}
						}
						times[i] = append(times[i], time.Since(start))
					}
				}
				best, median := map[string]float64{}, map[string]float64{}
				for i, c := range cs {
					ts := times[i]
					slices.Sort(ts)
					best[c.name] = float64(ts[0].Nanoseconds()) / chunk
					median[c.name] = float64(ts[len(ts)/2].Nanoseconds()) / chunk
					b.ReportMetric(best[c.name], c.name+"-best-ns/rec")
					b.ReportMetric(median[c.name], c.name+"-median-ns/rec")
				}
				b.ReportMetric(best["router"]/best["hamba"], "router/hamba-best")
				b.ReportMetric(median["router"]/median["hamba"], "router/hamba-median")
				b.ReportMetric(median["avrobind"]/median["hamba"], "avrobind/hamba-median")
			})
		})
	}
}

// TestTypedDecodeAllocs: the SDK's full path stays within the issue's
// allocation budget (12 per record) for both readers.
func TestTypedDecodeAllocs(t *testing.T) {
	for _, evolved := range []bool{false, true} {
		for _, c := range typedContenders(t, evolved) {
			if c.name != "router" {
				continue
			}
			if n := testing.AllocsPerRun(200, func() { must(t, c.run()) }); n > 12 {
				t.Errorf("evolved %v: Router.Process allocates %.0f times per record, want <= 12", evolved, n)
			}
		}
	}
}

// TestBenchRecordSameEverywhere: the benchmark's decoders agree on the
// benchmark record, so the figures compare the same work.
func TestBenchRecordSameEverywhere(t *testing.T) {
	reg := &consumertest.Registry{}
	id, _ := reg.Register(benchWriter)
	payload := reg.MustEncode(id, benchDatum())[5:]
	writer, _ := avro.Parse([]byte(benchWriter))
	evolved, _ := avro.Parse([]byte(benchEvolved))
	p1, err := avrobind.Compile(writer, writer, reflect.TypeFor[benchOrder]())
	must(t, err)
	p2, err := avrobind.Compile(writer, evolved, reflect.TypeFor[benchOrderV2]())
	must(t, err)
	var a, ha benchOrder
	var b2, hb benchOrderV2
	must(t, p1.Decode(payload, &a))
	must(t, p2.Decode(payload, &b2))
	must(t, hamba.Unmarshal(hamba.MustParse(benchWriter), payload, &ha))
	rs, err := hamba.NewSchemaCompatibility().Resolve(hamba.MustParse(benchEvolved), hamba.MustParse(benchWriter))
	must(t, err)
	must(t, hamba.Unmarshal(rs, payload, &hb))
	if !reflect.DeepEqual(a, ha) {
		t.Errorf("same: avrobind %+v\nhamba %+v", a, ha)
	}
	if !reflect.DeepEqual(b2, hb) {
		t.Errorf("evolved: avrobind %+v\nhamba %+v", b2, hb)
	}
	if b2.OrderID == "" || b2.Channel != "web" || b2.Quantity != 3 || b2.Note == nil {
		t.Errorf("evolved payload %+v", b2)
	}
}
