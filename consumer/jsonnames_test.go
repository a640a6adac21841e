package consumer_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
)

type jsonLine struct {
	SKU string `avro:"sku"`
	Qty int    `avro:"qty"`
}

type jsonBase struct {
	Source string `avro:"src"`
}

// jsonOrder takes its names from avro tags only, except Ref (a json tag, which
// wins over its avro tag) and Plain (no tag: the Go name).
type jsonOrder struct {
	jsonBase
	ID      string              `avro:"orderId"`
	Ref     string              `json:"reference" avro:"ref"`
	Plain   int                 // no tag: the field name
	Skipped string              `avro:"-"`
	Lines   []jsonLine          `avro:"lines"`
	ByCode  map[string]jsonLine `avro:"byCode"`
	Ship    *jsonLine           `avro:"ship"`
	At      time.Time           `avro:"at"`
	Any     any                 `avro:"extra"`
}

// The JSON path names fields as the Avro path does: json tag, else avro tag,
// else the Go name, at every depth (slices, maps, pointers, embedded
// structs); keys match exactly, then case-insensitively.
func TestJSONFieldNames(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		json string
		want jsonOrder
	}{
		{"avro tags, nested", `{"orderId":"o-1","src":"pos","lines":[{"sku":"A","qty":2}],"byCode":{"x":{"sku":"B","qty":1}},"ship":{"sku":"S","qty":1},"at":"2026-12-01T10:00:00Z","extra":{"k":[1]}}`,
			jsonOrder{jsonBase: jsonBase{"pos"}, ID: "o-1", Lines: []jsonLine{{"A", 2}}, ByCode: map[string]jsonLine{"x": {"B", 1}}, Ship: &jsonLine{"S", 1}, At: at, Any: map[string]any{"k": []any{float64(1)}}}},
		{"json tag wins over avro tag", `{"ref":"by-avro-name","reference":"by-json-name"}`, jsonOrder{Ref: "by-json-name"}},
		{"avro name wins over Go name", `{"ID":"by-go-name"}`, jsonOrder{}},
		{"no tag: Go field name", `{"Plain":3}`, jsonOrder{Plain: 3}},
		{"case-insensitive", `{"ORDERID":"o-2","plain":4,"LINES":[{"SKU":"C","Qty":5}]}`, jsonOrder{ID: "o-2", Plain: 4, Lines: []jsonLine{{"C", 5}}}},
		{"avro:\"-\" skips the field", `{"Skipped":"x","skipped":"y"}`, jsonOrder{}},
		{"nulls", `{"orderId":null,"lines":null,"ship":null}`, jsonOrder{}},
		{"double encoded", `"{\"orderId\":\"o-3\"}"`, jsonOrder{ID: "o-3"}},
		{"escaped keys", `{"order\u0049d":"o-4"}`, jsonOrder{ID: "o-4"}},
	}
	k := newKit(t)
	var got jsonOrder
	r := k.router(consumer.RouterConfig{})
	must(t, consumer.Handle(r, "OrderCreated", 1, func(_ context.Context, ev consumer.Event[jsonOrder]) error {
		got = ev.Payload
		return nil
	}))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got = jsonOrder{}
			if err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, c.json)); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("payload\n %+v\nwant\n %+v", got, c.want)
			}
		})
	}
	// Keys for one field: the last one wins, as in encoding/json (a raw
	// record: the pipeline's jsonb column would reorder the keys).
	raw := &consumer.Message{Value: []byte(`{"orderId":"a","ORDERID":"b"}`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("OrderCreated")}}}
	if err := r.Process(context.Background(), raw); err != nil || got.ID != "b" {
		t.Errorf("duplicate keys: ID %q (%v), want b", got.ID, err)
	}
	// A value of the wrong shape is still encoding/json's error.
	if err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{"lines":{"sku":"A"}}`)); err == nil {
		t.Error("an object for a slice decoded")
	}
}

// One struct with avro tags only decodes the same from an Avro record and
// from the same event as JSON.
func TestJSONAndAvroSameNames(t *testing.T) {
	type payload struct {
		ID     string     `avro:"orderId"`
		Amount int64      `avro:"amount"`
		Lines  []jsonLine `avro:"lines"`
	}
	schema := `{"type":"record","name":"OrderCreated","fields":[{"name":"orderId","type":"string"},{"name":"amount","type":"long"},
	 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[{"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}}]}`
	k := newKit(t)
	var got []payload
	r := k.router(consumer.RouterConfig{})
	must(t, consumer.Handle(r, "OrderCreated", 1, func(_ context.Context, ev consumer.Event[payload]) error {
		got = append(got, ev.Payload)
		return nil
	}))
	must(t, r.Process(context.Background(), k.avroRecord("OrderCreated", 1, schema, map[string]any{"orderId": "o-1", "amount": int64(5), "lines": []any{map[string]any{"sku": "A", "qty": int32(2)}}})))
	must(t, r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1","amount":5,"lines":[{"sku":"A","qty":2}]}`)))
	want := payload{ID: "o-1", Amount: 5, Lines: []jsonLine{{"A", 2}}}
	if len(got) != 2 || !reflect.DeepEqual(got[0], want) || !reflect.DeepEqual(got[1], want) {
		t.Errorf("avro then json: %+v, want %+v twice", got, want)
	}
}

// BenchmarkJSONNames: Router.Process of one JSON record into a struct named
// by json tags (encoding/json alone) and into the same struct named by avro
// tags (keys renamed first).
func BenchmarkJSONNames(b *testing.B) {
	type byJSON struct {
		OrderID string `json:"orderId"`
		Amount  int64  `json:"amount"`
		Lines   []struct {
			SKU string `json:"sku"`
			Qty int    `json:"qty"`
		} `json:"lines"`
	}
	type byAvro struct {
		OrderID string     `avro:"orderId"`
		Amount  int64      `avro:"amount"`
		Lines   []jsonLine `avro:"lines"`
	}
	payload := []byte(`{"orderId":"o-1","amount":1250,"lines":[{"sku":"A","qty":2},{"sku":"B","qty":1}]}`)
	m := &consumer.Message{Value: payload, Headers: []consumer.Header{{Key: "eventType", Value: []byte("OrderCreated")}, {Key: "schemaVersion", Value: []byte("1")}}}
	run := func(b *testing.B, r *consumer.Router) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := r.Process(context.Background(), m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("json-tags", func(b *testing.B) {
		r, _ := consumer.NewRouter(consumer.RouterConfig{})
		_ = consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[byJSON]) error { return nil })
		run(b, r)
	})
	b.Run("avro-tags", func(b *testing.B) {
		r, _ := consumer.NewRouter(consumer.RouterConfig{})
		_ = consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[byAvro]) error { return nil })
		run(b, r)
	})
}
