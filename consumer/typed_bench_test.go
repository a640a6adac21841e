package consumer_test

import (
	"context"
	"reflect"
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

// BenchmarkTypedDecode is the typed-decode benchmark of issue 8: the SDK's
// full path from a wire-format record to the handler's struct
// (Router.Process with a no-op handler), the compiled plan alone, the old
// generic path (resolve + assignAvro), hamba/avro/v2 unmarshalling into the
// same struct and goavro's NativeFromBinary into a map, for writer ==
// reader and for an evolved reader.
func BenchmarkTypedDecode(b *testing.B) {
	reg := &consumertest.Registry{}
	id, err := reg.Register(benchWriter)
	if err != nil {
		b.Fatal(err)
	}
	wire := reg.MustEncode(id, benchDatum())
	payload := wire[5:]
	writer, _ := avro.Parse([]byte(benchWriter))
	hw := hamba.MustParse(benchWriter)
	codec, _ := goavro.NewCodec(benchWriter)

	type readerCase struct {
		name   string
		reader string // "" = the writer's
	}
	for _, rc := range []readerCase{{"same", ""}, {"evolved", benchEvolved}} {
		b.Run(rc.name, func(b *testing.B) {
			readerText := rc.reader
			if readerText == "" {
				readerText = benchWriter
			}
			reader, _ := avro.Parse([]byte(readerText))
			router := func(legacy bool) *consumer.Router {
				r, _ := consumer.NewRouter(consumer.RouterConfig{Schemas: reg})
				consumer.SetLegacyDecode(r, legacy)
				var err error
				if rc.reader == "" {
					err = consumer.Handle(r, "OrderPlaced", 1, func(context.Context, consumer.Event[benchOrder]) error { return nil }, consumer.ReaderSchema(readerText))
				} else {
					err = consumer.Handle(r, "OrderPlaced", 1, func(context.Context, consumer.Event[benchOrderV2]) error { return nil }, consumer.ReaderSchema(readerText))
				}
				if err != nil {
					b.Fatal(err)
				}
				return r
			}
			msg := &consumer.Message{Topic: "outbox.event.Order", Key: []byte("o-1"), Value: wire, Headers: []consumer.Header{
				{Key: "id", Value: []byte("5b7c9e2a-0000-4000-8000-000000000001")},
				{Key: "eventType", Value: []byte("OrderPlaced")}, {Key: "schemaVersion", Value: []byte("1")}}}
			process := func(r *consumer.Router) func(b *testing.B) {
				return func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if err := r.Process(context.Background(), msg); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.Run("router", process(router(false)))
			b.Run("router-legacy", process(router(true)))

			typ := reflect.TypeFor[benchOrder]()
			if rc.reader != "" {
				typ = reflect.TypeFor[benchOrderV2]()
			}
			plan, err := avrobind.Compile(writer, reader, typ)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("avrobind", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					dst := reflect.New(typ).Interface()
					if err := plan.Decode(payload, dst); err != nil {
						b.Fatal(err)
					}
				}
			})

			hs := hw
			if rc.reader != "" {
				hs, err = hamba.NewSchemaCompatibility().Resolve(hamba.MustParse(rc.reader), hw)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.Run("hamba", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if rc.reader == "" {
						var o benchOrder
						if err := hamba.Unmarshal(hs, payload, &o); err != nil {
							b.Fatal(err)
						}
					} else {
						var o benchOrderV2
						if err := hamba.Unmarshal(hs, payload, &o); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			if rc.reader == "" {
				b.Run("goavro-native", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, _, err := codec.NativeFromBinary(payload); err != nil {
							b.Fatal(err)
						}
					}
				})
			} else {
				res, err := resolve.Compile(writer, reader)
				if err != nil {
					b.Fatal(err)
				}
				b.Run("goavro-native+resolve", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := res.Decode(payload); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
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
