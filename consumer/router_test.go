package consumer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

const writerV1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[
 {"name":"orderId","type":"string"},
 {"name":"amount","type":"int"},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}}
]}`

// readerV1 is an evolution of writerV1 within major version 1: amount
// promoted to long, a new field with a default, a new enum symbol with an
// enum default.
const readerV1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[
 {"name":"orderId","type":"string"},
 {"name":"amount","type":"long"},
 {"name":"currency","type":"string","default":"EUR"},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"],"default":"NEW"}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"createdAt","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}}
]}`

type Line struct {
	SKU string `avro:"sku" json:"sku"`
	Qty int    `avro:"qty" json:"qty"`
}

type OrderCreated struct {
	OrderID   string    `avro:"orderId" json:"orderId"`
	Amount    int64     `avro:"amount" json:"amount"`
	Currency  string    `avro:"currency" json:"currency"`
	Status    string    `avro:"status" json:"status"`
	Note      *string   `avro:"note" json:"note"`
	CreatedAt time.Time `avro:"createdAt" json:"createdAt"`
	Lines     []Line    `avro:"lines" json:"lines"`
}

var created = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func writerDatum(note any) map[string]any {
	return map[string]any{
		"orderId":   "o-1",
		"amount":    int32(1250),
		"status":    "PAID",
		"note":      note,
		"createdAt": created,
		"lines":     []any{map[string]any{"sku": "A", "qty": int32(2)}, map[string]any{"sku": "B", "qty": int32(1)}},
	}
}

// kit is a Router test bench: JSON and Avro pipelines, an in-memory registry
// and DLQ producer.
type kit struct {
	t        *testing.T
	json     *consumertest.Pipeline
	avro     *consumertest.Pipeline
	registry *consumertest.Registry
	dlq      *consumertest.Producer
	n        int
}

func newKit(t *testing.T) *kit {
	t.Helper()
	j, err := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	if err != nil {
		t.Fatal(err)
	}
	a, err := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatAvro))
	if err != nil {
		t.Fatal(err)
	}
	return &kit{t: t, json: j, avro: a, registry: &consumertest.Registry{}, dlq: &consumertest.Producer{}}
}

func (k *kit) id() string {
	k.n++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", k.n)
}

func (k *kit) jsonRecord(typ string, version int, payload string) *consumer.Message {
	k.t.Helper()
	m, err := k.json.Record(consumertest.Row{ID: k.id(), AggregateType: "Order", AggregateID: "o-1", Type: typ, SchemaVersion: version, Payload: []byte(payload)})
	if err != nil || m == nil {
		k.t.Fatalf("json record: %v", err)
	}
	return m
}

func (k *kit) avroRecord(typ string, version int, schema string, datum any) *consumer.Message {
	k.t.Helper()
	id, err := k.registry.Register(schema)
	if err != nil {
		k.t.Fatal(err)
	}
	b, err := k.registry.Encode(id, datum)
	if err != nil {
		k.t.Fatal(err)
	}
	m, err := k.avro.Record(consumertest.Row{ID: k.id(), AggregateType: "Order", AggregateID: "o-1", Type: typ, SchemaVersion: version, Payload: b})
	if err != nil || m == nil {
		k.t.Fatalf("avro record: %v", err)
	}
	return m
}

func (k *kit) router(cfg consumer.RouterConfig) *consumer.Router {
	k.t.Helper()
	if cfg.Schemas == nil {
		cfg.Schemas = k.registry
	}
	r, err := consumer.NewRouter(cfg)
	if err != nil {
		k.t.Fatal(err)
	}
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeAndDispatch(t *testing.T) {
	k := newKit(t)
	type call struct {
		handler string
		payload any
		meta    consumer.Meta
	}
	wantOrder := OrderCreated{OrderID: "o-1", Amount: 1250, Currency: "EUR", Status: "PAID", Note: ptr("gift"),
		CreatedAt: created, Lines: []Line{{"A", 2}, {"B", 1}}}
	cases := []struct {
		name        string
		record      *consumer.Message
		wantHandler string
		wantPayload any
		wantVersion int
	}{
		{
			name:        "json v1",
			record:      k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1","amount":7}`),
			wantHandler: "OrderCreated/1", wantVersion: 1,
			wantPayload: OrderCreated{OrderID: "o-1", Amount: 7},
		},
		{
			name:        "json v2 goes to the v2 handler",
			record:      k.jsonRecord("OrderCreated", 2, `{"id":"o-1","total":{"amount":7,"currency":"CHF"}}`),
			wantHandler: "OrderCreated/2", wantVersion: 2,
			wantPayload: map[string]any{"id": "o-1", "total": map[string]any{"amount": float64(7), "currency": "CHF"}},
		},
		{
			name:        "avro v1 resolved to the evolved reader schema",
			record:      k.avroRecord("OrderCreated", 1, writerV1, writerDatum(map[string]any{"string": "gift"})),
			wantHandler: "OrderCreated/1", wantVersion: 1,
			wantPayload: wantOrder,
		},
		{
			name:        "avro into map[string]any, unions unwrapped",
			record:      k.avroRecord("OrderPaid", 1, `{"type":"record","name":"OrderPaid","fields":[{"name":"id","type":"string"},{"name":"by","type":["null","string"]}]}`, map[string]any{"id": "o-1", "by": map[string]any{"string": "card"}}),
			wantHandler: "OrderPaid/1", wantVersion: 1,
			wantPayload: map[string]any{"id": "o-1", "by": "card"},
		},
		{
			name:        "no version header matches the only registered version",
			record:      k.jsonRecord("OrderPaid", 0, `{"id":"o-2"}`),
			wantHandler: "OrderPaid/1", wantVersion: 1, // delivered as v1; WrittenVersion 0
			wantPayload: map[string]any{"id": "o-2"},
		},
	}

	var mu sync.Mutex
	var calls []call
	record := func(name string) func(payload any, meta consumer.Meta) {
		return func(payload any, meta consumer.Meta) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call{name, payload, meta})
		}
	}
	r := k.router(consumer.RouterConfig{})
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		record("OrderCreated/1")(ev.Payload, ev.Meta)
		return nil
	}, consumer.ReaderSchema(readerV1)))
	must(t, consumer.Handle(r, "OrderCreated", 2, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		record("OrderCreated/2")(ev.Payload, ev.Meta)
		return nil
	}))
	must(t, consumer.Handle(r, "OrderPaid", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		record("OrderPaid/1")(ev.Payload, ev.Meta)
		return nil
	}))

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls = nil
			if err := r.Process(context.Background(), c.record); err != nil {
				t.Fatalf("Process: %v", err)
			}
			if len(calls) != 1 {
				t.Fatalf("%d handler calls, want 1", len(calls))
			}
			got := calls[0]
			if got.handler != c.wantHandler {
				t.Errorf("handler = %s, want %s", got.handler, c.wantHandler)
			}
			if !reflect.DeepEqual(got.payload, c.wantPayload) {
				t.Errorf("payload =\n %#v\nwant\n %#v", got.payload, c.wantPayload)
			}
			id, _ := c.record.Header("id")
			if got.meta.EventID != string(id) || got.meta.EventID == "" {
				t.Errorf("EventID = %q, want header id %q", got.meta.EventID, id)
			}
			if got.meta.AggregateID != "o-1" {
				t.Errorf("AggregateID = %q, want o-1", got.meta.AggregateID)
			}
			if got.meta.Version != c.wantVersion {
				t.Errorf("Version = %d, want %d", got.meta.Version, c.wantVersion)
			}
		})
	}
}

func TestRegisterErrors(t *testing.T) {
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	h := func(context.Context, consumer.Event[any]) error { return nil }
	must(t, consumer.Handle(r, "A", 1, h))
	if err := consumer.Handle(r, "A", 1, h); !errors.Is(err, consumer.ErrDuplicateHandler) {
		t.Errorf("duplicate: err = %v, want ErrDuplicateHandler", err)
	}
	if err := consumer.Handle(r, "B", 1, h, consumer.ReaderSchema(`{"type":"record","name":"B","fields":[{"name":"x","type":"strin"}]}`)); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("bad reader schema: err = %v, want ErrInvalidConfig", err)
	}
	// An inbox without a group is valid when the Router is built: the
	// Consumer gives it its GroupID (TestConsumerGroupFromGroupID).
	if _, err := consumer.NewRouter(consumer.RouterConfig{Inbox: consumertest.NewInbox()}); err != nil {
		t.Errorf("inbox without group: err = %v, want nil", err)
	}
}

func TestRecordNameFallback(t *testing.T) {
	k := newKit(t)
	m := k.avroRecord("ignored", 0, writerV1, writerDatum(nil))
	// As a connector without the type header placement would route it.
	var hs []consumer.Header
	for _, h := range m.Headers {
		if h.Key != consumer.DefaultEventTypeHeader {
			hs = append(hs, h)
		}
	}
	m.Headers = hs
	r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownFail})
	var got consumer.Meta
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		got = ev.Meta
		if ev.Payload.Note != nil || ev.Payload.Currency != "" {
			t.Errorf("payload read with the writer schema: %+v", ev.Payload)
		}
		return nil
	}))
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if got.EventType != "com.acme.order.OrderCreated" || got.SchemaID != 1 {
		t.Errorf("meta = %+v, want event type from the record full name and schema id 1", got)
	}
}

func TestUnknownEventTypes(t *testing.T) {
	k := newKit(t)
	known := func(r *consumer.Router) {
		must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[any]) error { return nil }))
	}
	cases := []struct {
		name    string
		record  *consumer.Message
		wantErr error
	}{
		{"unknown type", k.jsonRecord("OrderShipped", 1, `{}`), consumer.ErrUnknownEventType},
		{"unknown version", k.jsonRecord("OrderCreated", 3, `{}`), consumer.ErrUnknownEventType},
		{"no type header, json", func() *consumer.Message {
			m := k.jsonRecord("X", 1, `{}`)
			m.Headers = nil
			return m
		}(), consumer.ErrNoEventType},
	}
	for _, c := range cases {
		t.Run(c.name+"/skip", func(t *testing.T) {
			var skipped []*consumer.Message
			r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownSkip, OnUnknown: func(_ context.Context, m *consumer.Message) { skipped = append(skipped, m) }})
			known(r)
			if err := r.Process(context.Background(), c.record); err != nil {
				t.Fatalf("Process = %v, want nil (skipped)", err)
			}
			if len(skipped) != 1 || skipped[0] != c.record {
				t.Errorf("OnUnknown called %d times, want once with the record", len(skipped))
			}
		})
		t.Run(c.name+"/fail", func(t *testing.T) {
			r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownFail})
			known(r)
			err := r.Process(context.Background(), c.record)
			if !errors.Is(err, c.wantErr) || !consumer.IsPermanent(err) {
				t.Fatalf("Process = %v, want permanent %v", err, c.wantErr)
			}
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{})
	var retries []time.Duration
	retry := consumer.Retry{MaxAttempts: 5, InitialInterval: time.Millisecond, MaxInterval: 3 * time.Millisecond, Multiplier: 2,
		OnRetry: func(_ context.Context, _ *consumer.Message, _ error, d time.Duration) { retries = append(retries, d) }}
	must(t, retry.Validate())
	dlq := consumer.DLQ{Topic: "dlq", Producer: k.dlq}
	r.Use(dlq.Middleware, retry.Middleware)
	var attempts []int
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		attempts = append(attempts, ev.Message.Attempt)
		if len(attempts) < 4 {
			return consumertest.ErrInjected
		}
		return nil
	}))
	m := k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1"}`)
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatalf("Process = %v, want nil after retries", err)
	}
	if !reflect.DeepEqual(attempts, []int{1, 2, 3, 4}) {
		t.Errorf("attempts = %v, want [1 2 3 4]", attempts)
	}
	if want := []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}; !reflect.DeepEqual(retries, want) {
		t.Errorf("backoff delays = %v, want %v (doubling, capped)", retries, want)
	}
	if n := len(k.dlq.Records()); n != 0 {
		t.Errorf("%d DLQ records, want 0", n)
	}
}

func TestRetryExhaustedToDLQ(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{})
	retry := consumer.Retry{MaxAttempts: 3, InitialInterval: time.Millisecond}
	var sent []error
	dlq := consumer.DLQ{Topic: "orders.dlq", Producer: k.dlq, OnSent: func(_ context.Context, _ *consumer.Message, err error) { sent = append(sent, err) }}
	r.Use(dlq.Middleware, retry.Middleware)
	calls := 0
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		calls++
		return fmt.Errorf("stock service: %w", consumertest.ErrInjected)
	}))
	m := k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1"}`)
	m.Partition, m.Offset = 3, 42
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatalf("Process = %v, want nil (dead-lettered)", err)
	}
	if calls != 3 {
		t.Errorf("handler ran %d times, want 3", calls)
	}
	recs := k.dlq.Records()
	if len(recs) != 1 {
		t.Fatalf("%d DLQ records, want 1", len(recs))
	}
	d := recs[0]
	if d.Topic != "orders.dlq" || string(d.Key) != string(m.Key) || string(d.Value) != string(m.Value) {
		t.Errorf("DLQ record topic/key/value = %s/%q/%q, want orders.dlq and the original key and value", d.Topic, d.Key, d.Value)
	}
	// The original headers first, in order, then the DLQ headers.
	for i, h := range m.Headers {
		if d.Headers[i].Key != h.Key || string(d.Headers[i].Value) != string(h.Value) {
			t.Errorf("header %d = %s=%q, want original %s=%q", i, d.Headers[i].Key, d.Headers[i].Value, h.Key, h.Value)
		}
	}
	want := map[string]string{
		consumer.HeaderDLQError:     "stock service: injected failure",
		consumer.HeaderDLQAttempts:  "3",
		consumer.HeaderDLQReason:    "failed",
		consumer.HeaderDLQTopic:     "outbox.event.Order",
		consumer.HeaderDLQPartition: "3",
		consumer.HeaderDLQOffset:    "42",
	}
	if len(d.Headers) != len(m.Headers)+len(want) {
		t.Errorf("%d headers, want %d", len(d.Headers), len(m.Headers)+len(want))
	}
	for key, v := range want {
		if got, ok := d.Header(key); !ok || string(got) != v {
			t.Errorf("header %s = %q, want %q", key, got, v)
		}
	}
	if len(sent) != 1 || !errors.Is(sent[0], consumertest.ErrInjected) {
		t.Errorf("OnSent errors = %v", sent)
	}
}

func TestPermanentErrorsSkipRetry(t *testing.T) {
	k := newKit(t)
	cases := []struct {
		name    string
		record  *consumer.Message
		handler error
		wantErr error
	}{
		{"json that does not fit T", k.jsonRecord("OrderCreated", 1, `{"orderId": 5}`), nil, consumer.ErrDecode},
		{"not json", func() *consumer.Message {
			m := k.jsonRecord("OrderCreated", 1, `{}`)
			m.Value = []byte(`not json {`)
			return m
		}(), nil, consumer.ErrDecode},
		{"handler says permanent", k.jsonRecord("OrderCreated", 1, `{}`), consumer.Permanent(consumertest.ErrInjected), consumertest.ErrInjected},
		{"bad version header", func() *consumer.Message {
			m := k.jsonRecord("OrderCreated", 1, `{}`)
			for i := range m.Headers {
				if m.Headers[i].Key == consumer.DefaultSchemaVersionHeader {
					m.Headers[i].Value = []byte("v1")
				}
			}
			return m
		}(), nil, consumer.ErrDecode},
		{"avro with magic byte 1", func() *consumer.Message {
			m := k.jsonRecord("OrderCreated", 1, `{}`)
			m.Value = []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}
			return m
		}(), nil, consumer.ErrDecode},
		{"avro shorter than the header", func() *consumer.Message {
			m := k.jsonRecord("OrderCreated", 1, `{}`)
			m.Value = []byte{0, 0, 1}
			return m
		}(), nil, consumer.ErrDecode},
		{"avro bytes that are not a datum", func() *consumer.Message {
			m := k.avroRecord("OrderCreated", 1, writerV1, writerDatum(nil))
			m.Value = m.Value[:len(m.Value)-3]
			return m
		}(), nil, consumer.ErrDecode},
		{"avro writer incompatible with the reader", k.avroRecord("OrderCreated", 1, `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[{"name":"orderId","type":"int"}]}`, map[string]any{"orderId": int32(1)}), nil, consumer.ErrDecode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dlq := &consumertest.Producer{}
			r := k.router(consumer.RouterConfig{})
			r.Use(consumer.DLQ{Topic: "dlq", Producer: dlq}.Middleware, consumer.Retry{MaxAttempts: 5}.Middleware)
			calls := 0
			must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
				calls++
				return c.handler
			}, consumer.ReaderSchema(readerV1)))
			if err := r.Process(context.Background(), c.record); err != nil {
				t.Fatalf("Process = %v, want nil (dead-lettered)", err)
			}
			recs := dlq.Records()
			if len(recs) != 1 {
				t.Fatalf("%d DLQ records, want 1", len(recs))
			}
			if a, _ := recs[0].Header(consumer.HeaderDLQAttempts); string(a) != "1" {
				t.Errorf("attempts = %s, want 1 (no retry of a permanent error)", a)
			}
			if a, _ := recs[0].Header(consumer.HeaderDLQReason); string(a) != "permanent" {
				t.Errorf("reason = %s, want permanent", a)
			}
			if calls > 1 {
				t.Errorf("handler ran %d times", calls)
			}
			// Without the DLQ the error itself comes back.
			r2 := k.router(consumer.RouterConfig{})
			must(t, consumer.Handle(r2, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { return c.handler }, consumer.ReaderSchema(readerV1)))
			if err := r2.Process(context.Background(), c.record); !errors.Is(err, c.wantErr) {
				t.Errorf("Process without DLQ = %v, want %v", err, c.wantErr)
			}
		})
	}
}

func TestPanicRecovered(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{})
	r.Use(consumer.DLQ{Topic: "dlq", Producer: k.dlq}.Middleware, consumer.Retry{MaxAttempts: 2}.Middleware, consumer.Recover())
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		var m map[string]int
		m["boom"] = 1 // nil map write
		return nil
	}))
	if err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{}`)); err != nil {
		t.Fatalf("Process = %v", err)
	}
	recs := k.dlq.Records()
	if len(recs) != 1 {
		t.Fatalf("%d DLQ records, want 1", len(recs))
	}
	e, _ := recs[0].Header(consumer.HeaderDLQError)
	a, _ := recs[0].Header(consumer.HeaderDLQAttempts)
	if !strings.Contains(string(e), "handler panicked") || !strings.Contains(string(e), "nil map") || string(a) != "2" {
		t.Errorf("DLQ error = %q attempts = %s, want a recovered panic retried twice", e, a)
	}

	// Recover alone returns a *PanicError with the stack.
	r2 := k.router(consumer.RouterConfig{})
	r2.Use(consumer.Recover())
	must(t, consumer.Handle(r2, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { panic("kaputt") }))
	err := r2.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{}`))
	var pe *consumer.PanicError
	if !errors.As(err, &pe) || !errors.Is(err, consumer.ErrPanic) || pe.Value != "kaputt" || len(pe.Stack) == 0 {
		t.Fatalf("err = %v, want *PanicError with value and stack", err)
	}
}

func TestDLQProduceFailureKeepsRecord(t *testing.T) {
	k := newKit(t)
	k.dlq.Err = errors.New("broker down")
	r := k.router(consumer.RouterConfig{})
	r.Use(consumer.DLQ{Topic: "dlq", Producer: k.dlq}.Middleware)
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { return consumertest.ErrInjected }))
	err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{}`))
	if !errors.Is(err, consumertest.ErrInjected) || !strings.Contains(fmt.Sprint(err), "broker down") {
		t.Fatalf("Process = %v, want both the handler and the produce error (record not done)", err)
	}
}

func TestDLQNotOnShutdownNorRegistryOutage(t *testing.T) {
	k := newKit(t)
	m := k.avroRecord("OrderCreated", 1, writerV1, writerDatum(nil))

	// Registry outage: retried, then returned, not dead-lettered.
	reg := &consumertest.Registry{Err: errors.New("connection refused")}
	r := k.router(consumer.RouterConfig{Schemas: reg})
	r.Use(consumer.DLQ{Topic: "dlq", Producer: k.dlq}.Middleware, consumer.Retry{MaxAttempts: 2}.Middleware)
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { return nil }))
	if err := r.Process(context.Background(), m); !errors.Is(err, consumer.ErrSchema) || consumer.IsPermanent(err) {
		t.Errorf("registry down: Process = %v, want a non-permanent ErrSchema", err)
	}

	// Cancelled context: the error is returned, not dead-lettered.
	ctx, cancel := context.WithCancel(context.Background())
	r2 := k.router(consumer.RouterConfig{})
	r2.Use(consumer.DLQ{Topic: "dlq", Producer: k.dlq}.Middleware, consumer.Retry{MaxAttempts: 5, InitialInterval: time.Hour}.Middleware)
	must(t, consumer.Handle(r2, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		cancel()
		return ctx.Err()
	}))
	if err := r2.Process(ctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("shutdown: Process = %v, want context.Canceled", err)
	}
	if n := len(k.dlq.Records()); n != 0 {
		t.Errorf("%d records dead-lettered, want 0", n)
	}
}

func TestTimeout(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{})
	r.Use(consumer.Timeout(20 * time.Millisecond))
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		<-ctx.Done()
		return ctx.Err()
	}))
	start := time.Now()
	err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{}`))
	if !errors.Is(err, consumer.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Process = %v, want ErrTimeout", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("timeout took %s", time.Since(start))
	}
}

func TestInboxSkipsDuplicates(t *testing.T) {
	k := newKit(t)
	in := consumertest.NewInbox()
	defer in.Close()
	var dups []string
	r := k.router(consumer.RouterConfig{Inbox: in, ConsumerGroup: "billing",
		OnDuplicate: func(_ context.Context, m *consumer.Message) { dups = append(dups, m.Meta.EventID) }})
	fail := true
	runs := 0
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		runs++
		if ev.Tx == nil {
			t.Fatal("Event.Tx is nil with an inbox")
		}
		if _, err := ev.Tx.ExecContext(ctx, "INSERT INTO invoices (order_id) VALUES (?)", ev.Payload.OrderID); err != nil {
			return err
		}
		if fail {
			return consumertest.ErrInjected
		}
		return nil
	}))
	m := k.jsonRecord("OrderCreated", 1, `{"orderId":"o-9"}`)
	id := string(must1(m.Header("id")))

	// 1: the handler fails: its insert and the inbox mark roll back together.
	if err := r.Process(context.Background(), m); !errors.Is(err, consumertest.ErrInjected) {
		t.Fatalf("first delivery: %v", err)
	}
	if in.Processed("billing", id) || len(in.Committed()) != 0 {
		t.Fatal("a failed handler left its mark or its insert committed")
	}
	// 2: redelivered, succeeds: insert and mark commit together.
	fail = false
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if !in.Processed("billing", id) || len(in.Committed()) != 1 {
		t.Fatalf("after success: processed=%v committed=%v", in.Processed("billing", id), in.Committed())
	}
	// 3: redelivered again (offset not committed before a crash): skipped.
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if runs != 2 || len(in.Committed()) != 1 || !reflect.DeepEqual(dups, []string{id}) {
		t.Errorf("duplicate: handler runs = %d (want 2), committed inserts = %d (want 1), OnDuplicate = %v", runs, len(in.Committed()), dups)
	}
	// Another consumer group processes the same event.
	r2 := k.router(consumer.RouterConfig{Inbox: in, ConsumerGroup: "shipping"})
	ran := false
	must(t, consumer.Handle(r2, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { ran = true; return nil }))
	must(t, r2.Process(context.Background(), m))
	if !ran {
		t.Error("a second consumer group's handler did not run")
	}
	// A record without an id header cannot be deduplicated.
	noID := k.jsonRecord("OrderCreated", 1, `{}`)
	var hs []consumer.Header
	for _, h := range noID.Headers {
		if h.Key != "id" {
			hs = append(hs, h)
		}
	}
	noID.Headers = hs
	if err := r.Process(context.Background(), noID); !errors.Is(err, consumer.ErrNoEventID) || !consumer.IsPermanent(err) {
		t.Errorf("no id header: %v, want permanent ErrNoEventID", err)
	}
}

func must1[T any](v T, ok bool) T {
	if !ok {
		panic("missing")
	}
	return v
}

func TestHooksAndTombstones(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{})
	var started, done int
	var doneErr error
	r.Use(consumer.Hooks{
		OnStart: func(context.Context, *consumer.Message) { started++ },
		OnDone: func(_ context.Context, _ *consumer.Message, err error, d time.Duration) {
			done++
			doneErr = err
		},
	}.Middleware)
	var got consumer.Event[OrderCreated]
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		got = ev
		return consumertest.ErrInjected
	}))
	m := k.jsonRecord("OrderCreated", 1, `{}`)
	m.Value = nil // a tombstone (route.tombstone.on.empty.payload)
	if err := r.Process(context.Background(), m); !errors.Is(err, consumertest.ErrInjected) {
		t.Fatal(err)
	}
	if started != 1 || done != 1 || !errors.Is(doneErr, consumertest.ErrInjected) {
		t.Errorf("hooks: started=%d done=%d err=%v", started, done, doneErr)
	}
	if !got.Tombstone || !reflect.DeepEqual(got.Payload, OrderCreated{}) {
		t.Errorf("tombstone event = %+v", got)
	}
}

func TestRetryValidate(t *testing.T) {
	cases := []struct {
		r  consumer.Retry
		ok bool
	}{
		{consumer.Retry{MaxAttempts: 1}, true},
		{consumer.Retry{MaxAttempts: 3, InitialInterval: time.Second, MaxInterval: time.Minute, Multiplier: 1.5}, true},
		{consumer.Retry{MaxAttempts: 0}, false},
		{consumer.Retry{MaxAttempts: 1, InitialInterval: -1}, false},
		{consumer.Retry{MaxAttempts: 1, InitialInterval: time.Second, MaxInterval: time.Millisecond}, false},
		{consumer.Retry{MaxAttempts: 1, Multiplier: 0.5}, false},
	}
	for _, c := range cases {
		err := c.r.Validate()
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, consumer.ErrInvalidConfig)) {
			t.Errorf("%+v: Validate = %v, want ok=%v", c.r, err, c.ok)
		}
	}
	// An invalid Retry is an error when the router is built, and the
	// router then refuses to run (nothing is lost).
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	if err := r.Use(consumer.Retry{}.Middleware); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("Use(Retry{}) = %v, want ErrInvalidConfig", err)
	}
	must(t, consumer.Handle(r, "A", 0, func(context.Context, consumer.Event[any]) error { return nil }))
	m := &consumer.Message{Value: []byte(`{}`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("A")}}}
	if err := r.Process(context.Background(), m); !errors.Is(err, consumer.ErrInvalidConfig) || consumer.IsPermanent(err) {
		t.Errorf("invalid retry: Process = %v", err)
	}
	if err := (consumer.DLQ{}).Validate(); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("DLQ{}.Validate = %v", err)
	}
}

func TestJSONShapes(t *testing.T) {
	cases := []struct{ name, value string }{
		{"plain (StringConverter)", `{"orderId":"o-1","amount":3}`},
		{"double encoded (JsonConverter, schemas.enable=false)", `"{\"orderId\":\"o-1\",\"amount\":3}"`},
		{"connect envelope (JsonConverter, schemas.enable=true)", `{"schema":{"type":"string","optional":true,"name":"io.debezium.data.Json","version":1},"payload":"{\"orderId\":\"o-1\",\"amount\":3}"}`},
		{"expanded envelope", `{"schema":{"type":"struct","fields":[]},"payload":{"orderId":"o-1","amount":3}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := consumer.NewRouter(consumer.RouterConfig{})
			var got OrderCreated
			must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { got = ev.Payload; return nil }))
			m := &consumer.Message{Value: []byte(c.value), Headers: []consumer.Header{{Key: "eventType", Value: []byte("OrderCreated")}, {Key: "schemaVersion", Value: []byte("1")}}}
			must(t, r.Process(context.Background(), m))
			if got.OrderID != "o-1" || got.Amount != 3 {
				t.Errorf("payload = %+v", got)
			}
		})
	}
	// A string T keeps the raw JSON text.
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	var s string
	must(t, consumer.Handle(r, "S", 0, func(ctx context.Context, ev consumer.Event[string]) error { s = ev.Payload; return nil }))
	must(t, r.Process(context.Background(), &consumer.Message{Value: []byte(`"{\"a\":1}"`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("S")}}}))
	if s != `{"a":1}` {
		t.Errorf("string payload = %q", s)
	}
}

func TestLastIDHeaderWins(t *testing.T) {
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	var id string
	must(t, consumer.Handle(r, "A", 0, func(ctx context.Context, ev consumer.Event[any]) error { id = ev.EventID; return nil }))
	m := &consumer.Message{Value: []byte(`{}`), Headers: []consumer.Header{{Key: "id", Value: []byte("first")}, {Key: "eventType", Value: []byte("A")}, {Key: "id", Value: []byte("second")}}}
	must(t, r.Process(context.Background(), m))
	if id != "second" {
		t.Errorf("EventID = %q, want the last id header", id)
	}
}

// TestDLQLogsEachRecord: every dead-lettered record is logged at WARN with
// its place, event id, type, version, the DLQ topic and the reason.
func TestDLQLogsEachRecord(t *testing.T) {
	k := newKit(t)
	var logs bytes.Buffer
	r := k.router(consumer.RouterConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	must(t, r.Use(consumer.DLQ{Topic: "orders.dlq", Producer: k.dlq}.Middleware))
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		return consumer.Permanent(fmt.Errorf("no such customer: %w", consumertest.ErrInjected))
	}))
	m := k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1"}`)
	m.Partition, m.Offset = 3, 42
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatalf("Process = %v, want nil (dead-lettered)", err)
	}
	line := logs.String()
	for _, want := range []string{"level=WARN", "dead-lettered", "topic=" + m.Topic, "partition=3", "offset=42", "event_id=" + m.Meta.EventID,
		"event_type=OrderCreated", "version=1", "dlq_topic=orders.dlq", "reason=permanent", `error="no such customer: injected failure"`} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %s", line, want)
		}
	}
}

// TestRouterDLQTopics: the Router knows the topics of the DLQ middleware
// given to Use, and only those.
func TestRouterDLQTopics(t *testing.T) {
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	must(t, err)
	p := &consumertest.Producer{}
	must(t, r.Use(consumer.Recover(), consumer.DLQ{Topic: "a.dlq", Producer: p}.Middleware))
	must(t, r.Use(consumer.DLQ{Topic: "b.dlq", Producer: p}.Middleware, consumer.Retry{MaxAttempts: 2}.Middleware))
	if got := r.DLQTopics(); !reflect.DeepEqual(got, []string{"a.dlq", "b.dlq"}) {
		t.Errorf("DLQTopics = %v, want [a.dlq b.dlq]", got)
	}
}
