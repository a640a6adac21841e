package consumer_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// Three major versions of one event type. v1 was written with writerUpV1 and
// is read with its evolution readerUpV1 (a new field with a default); v2 and
// v3 are new records (a new major version needs its own subject, so its own
// record name).
const (
	writerUpV1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[
 {"name":"orderId","type":"string"},{"name":"amount","type":"int"}]}`
	readerUpV1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order","fields":[
 {"name":"orderId","type":"string"},{"name":"amount","type":"long"},
 {"name":"currency","type":"string","default":"EUR"}]}`
	schemaUpV2 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order.v2","fields":[
 {"name":"orderId","type":"string"},
 {"name":"total","type":{"type":"record","name":"Money","fields":[{"name":"cents","type":"long"},{"name":"currency","type":"string"}]}}]}`
	schemaUpV3 = `{"type":"record","name":"OrderCreated","namespace":"com.acme.order.v3","fields":[
 {"name":"orderId","type":"string"},
 {"name":"total","type":{"type":"record","name":"Money","fields":[{"name":"cents","type":"long"},{"name":"currency","type":"string"}]}},
 {"name":"channel","type":"string"}]}`
)

type upV1 struct {
	OrderID  string `avro:"orderId" json:"orderId"`
	Amount   int64  `avro:"amount" json:"amount"`
	Currency string `avro:"currency" json:"currency"`
}

type money struct {
	Cents    int64  `avro:"cents" json:"cents"`
	Currency string `avro:"currency" json:"currency"`
}

type upV2 struct {
	OrderID string `avro:"orderId" json:"orderId"`
	Total   money  `avro:"total" json:"total"`
}

type upV3 struct {
	OrderID string `avro:"orderId" json:"orderId"`
	Total   money  `avro:"total" json:"total"`
	Channel string `avro:"channel" json:"channel"`
}

func v1to2(_ context.Context, ev consumer.Event[upV1]) (upV2, error) {
	return upV2{OrderID: ev.Payload.OrderID, Total: money{Cents: ev.Payload.Amount * 100, Currency: ev.Payload.Currency}}, nil
}

func v2to3(_ context.Context, ev consumer.Event[upV2]) (upV3, error) {
	return upV3{OrderID: ev.Payload.OrderID, Total: ev.Payload.Total, Channel: "web"}, nil
}

// A v3 handler receives v1 and v2 events upcast through the chain; each link
// decodes with its own major's reader schema first (v1: resolved from the
// older writer schema, with the currency default), and Meta tells the
// version written and the version delivered.
func TestUpcastChain(t *testing.T) {
	k := newKit(t)
	type seen struct {
		link string
		meta consumer.Meta
	}
	var steps []seen
	var got []consumer.Event[upV3]
	r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownFail})
	must(t, consumer.Handle(r, "OrderCreated", 3, func(_ context.Context, ev consumer.Event[upV3]) error {
		got = append(got, ev)
		return nil
	}, consumer.ReaderSchema(schemaUpV3)))
	must(t, consumer.Upcast(r, "OrderCreated", 2, func(ctx context.Context, ev consumer.Event[upV2]) (upV3, error) {
		steps = append(steps, seen{"2to3", ev.Meta})
		return v2to3(ctx, ev)
	}, consumer.ReaderSchema(schemaUpV2)))
	must(t, consumer.Upcast(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[upV1]) (upV2, error) {
		steps = append(steps, seen{"1to2", ev.Meta})
		return v1to2(ctx, ev)
	}, consumer.ReaderSchema(readerUpV1)))

	recs := []*consumer.Message{
		k.avroRecord("OrderCreated", 1, writerUpV1, map[string]any{"orderId": "o-1", "amount": int32(12)}),
		k.avroRecord("OrderCreated", 2, schemaUpV2, map[string]any{"orderId": "o-2", "total": map[string]any{"cents": int64(700), "currency": "CHF"}}),
		k.avroRecord("OrderCreated", 3, schemaUpV3, map[string]any{"orderId": "o-3", "total": map[string]any{"cents": int64(5), "currency": "USD"}, "channel": "app"}),
		k.jsonRecord("OrderCreated", 1, `{"orderId":"o-4","amount":3,"currency":"GBP"}`),
	}
	if i, err := consumertest.FirstError(consumertest.Run(context.Background(), r, recs...)); err != nil {
		t.Fatalf("record %d: %v", i, err)
	}
	want := []upV3{
		{OrderID: "o-1", Total: money{1200, "EUR"}, Channel: "web"},
		{OrderID: "o-2", Total: money{700, "CHF"}, Channel: "web"},
		{OrderID: "o-3", Total: money{5, "USD"}, Channel: "app"},
		{OrderID: "o-4", Total: money{300, "GBP"}, Channel: "web"},
	}
	written := []int{1, 2, 3, 1}
	if len(got) != len(want) {
		t.Fatalf("handled %d events, want %d", len(got), len(want))
	}
	for i, ev := range got {
		if !reflect.DeepEqual(ev.Payload, want[i]) {
			t.Errorf("event %d: payload %+v, want %+v", i, ev.Payload, want[i])
		}
		if ev.Version != 3 || ev.WrittenVersion != written[i] {
			t.Errorf("event %d: Version %d WrittenVersion %d, want 3 and %d", i, ev.Version, ev.WrittenVersion, written[i])
		}
		if id, _ := recs[i].Header("id"); ev.EventID != string(id) || ev.Message != recs[i] {
			t.Errorf("event %d: EventID %q, Message %p; want %q, %p", i, ev.EventID, ev.Message, id, recs[i])
		}
		// Middleware sees the record as written.
		if recs[i].Meta.Version != written[i] || recs[i].Meta.WrittenVersion != written[i] {
			t.Errorf("record %d: Message.Meta versions %d/%d, want %d", i, recs[i].Meta.Version, recs[i].Meta.WrittenVersion, written[i])
		}
	}
	// o-1: 1to2 then 2to3; o-2: 2to3; o-4: 1to2 then 2to3. Each link sees
	// its own major as Version.
	wantSteps := []struct {
		link             string
		version, written int
	}{{"1to2", 1, 1}, {"2to3", 2, 1}, {"2to3", 2, 2}, {"1to2", 1, 1}, {"2to3", 2, 1}}
	if len(steps) != len(wantSteps) {
		t.Fatalf("upcaster calls %+v, want %+v", steps, wantSteps)
	}
	for i, w := range wantSteps {
		if steps[i].link != w.link || steps[i].meta.Version != w.version || steps[i].meta.WrittenVersion != w.written {
			t.Errorf("upcaster call %d: %s Version %d WrittenVersion %d, want %+v", i, steps[i].link, steps[i].meta.Version, steps[i].meta.WrittenVersion, w)
		}
	}
}

// The chain is checked at each registration: a missing link or a type that
// does not fit is ErrUpcastChain, a second registration for a major is
// ErrDuplicateHandler, and a rejected registration leaves the Router as it
// was.
func TestUpcastRegistrationErrors(t *testing.T) {
	h3 := func(context.Context, consumer.Event[upV3]) error { return nil }
	cases := []struct {
		name     string
		register func(r *consumer.Router) error
		want     error
	}{
		{"missing link v2 to v3", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 3, h3))
			return consumer.Upcast(r, "OrderCreated", 1, v1to2)
		}, consumer.ErrUpcastChain},
		{"no handler at all", func(r *consumer.Router) error {
			return consumer.Upcast(r, "OrderCreated", 2, v2to3)
		}, consumer.ErrUpcastChain},
		{"link registered before its target", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 3, h3))
			if err := consumer.Upcast(r, "OrderCreated", 1, v1to2); err == nil {
				t.Error("Upcast v1 before v2 succeeded")
			}
			must(t, consumer.Upcast(r, "OrderCreated", 2, v2to3))
			return consumer.Upcast(r, "OrderCreated", 1, v1to2) // now the chain is whole
		}, nil},
		{"upcaster returns another type than the handler takes", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 2, func(context.Context, consumer.Event[map[string]any]) error { return nil }))
			return consumer.Upcast(r, "OrderCreated", 1, v1to2)
		}, consumer.ErrUpcastChain},
		{"upcaster returns another type than the next upcaster takes", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 3, h3))
			must(t, consumer.Upcast(r, "OrderCreated", 2, v2to3))
			return consumer.Upcast(r, "OrderCreated", 1, func(context.Context, consumer.Event[upV1]) (upV3, error) { return upV3{}, nil })
		}, consumer.ErrUpcastChain},
		{"other event type's handler is no target", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderPaid", 2, func(context.Context, consumer.Event[upV2]) error { return nil }))
			return consumer.Upcast(r, "OrderCreated", 1, v1to2)
		}, consumer.ErrUpcastChain},
		{"handler and upcaster for one major", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 2, func(context.Context, consumer.Event[upV2]) error { return nil }))
			must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[upV1]) error { return nil }))
			return consumer.Upcast(r, "OrderCreated", 1, v1to2)
		}, consumer.ErrDuplicateHandler},
		{"upcaster then handler for one major", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 2, func(context.Context, consumer.Event[upV2]) error { return nil }))
			must(t, consumer.Upcast(r, "OrderCreated", 1, v1to2))
			return consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[upV1]) error { return nil })
		}, consumer.ErrDuplicateHandler},
		{"nil function", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 2, func(context.Context, consumer.Event[upV2]) error { return nil }))
			return consumer.Upcast[upV1, upV2](r, "OrderCreated", 1, nil)
		}, consumer.ErrInvalidConfig},
		{"bad reader schema", func(r *consumer.Router) error {
			must(t, consumer.Handle(r, "OrderCreated", 2, func(context.Context, consumer.Event[upV2]) error { return nil }))
			return consumer.Upcast(r, "OrderCreated", 1, v1to2, consumer.ReaderSchema(`{"type":"record"}`))
		}, consumer.ErrInvalidConfig},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := newKit(t)
			r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownFail})
			err := c.register(r)
			if c.want == nil {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if errors.Is(err, consumer.ErrUpcastChain) {
				// The rejected upcaster is not registered: a v1 record is unknown.
				perr := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1"}`))
				if !errors.Is(perr, consumer.ErrUnknownEventType) {
					t.Errorf("v1 record after the rejected Upcast: %v, want ErrUnknownEventType", perr)
				}
			}
		})
	}
}

// Upcasters run in the inbox transaction, after the duplicate check; their
// errors are the record's errors (a Permanent one stays permanent); a
// tombstone skips them.
func TestUpcastInboxErrorsTombstones(t *testing.T) {
	k := newKit(t)
	in := consumertest.NewInbox()
	defer in.Close()
	r := k.router(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g"})
	r.Use(consumer.Retry{MaxAttempts: 3, InitialInterval: time.Millisecond}.Middleware)
	var handled []consumer.Event[upV2]
	must(t, consumer.Handle(r, "OrderCreated", 2, func(_ context.Context, ev consumer.Event[upV2]) error {
		handled = append(handled, ev)
		return nil
	}))
	calls := 0
	errFail := errors.New("no such currency")
	must(t, consumer.Upcast(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[upV1]) (upV2, error) {
		calls++
		if ev.Tx == nil {
			t.Error("upcaster: no inbox transaction")
		}
		switch ev.Payload.Currency {
		case "XXX":
			return upV2{}, consumer.Permanent(errFail)
		case "TMP":
			return upV2{}, errFail
		}
		return v1to2(ctx, ev)
	}))

	good := k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1","amount":1,"currency":"EUR"}`)
	if err := r.Process(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	if err := r.Process(context.Background(), good); err != nil { // redelivered: the inbox skips it
		t.Fatal(err)
	}
	if calls != 1 || len(handled) != 1 || !in.Processed("g", handled[0].EventID) {
		t.Fatalf("after a redelivery: %d upcaster calls, %d handled, want 1 and 1", calls, len(handled))
	}

	calls = 0
	err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{"orderId":"o-2","currency":"XXX"}`))
	if !errors.Is(err, errFail) || !consumer.IsPermanent(err) || calls != 1 {
		t.Errorf("permanent upcaster error: err %v (permanent %v), %d calls; want errFail, permanent, 1 call", err, consumer.IsPermanent(err), calls)
	}
	calls = 0
	err = r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{"orderId":"o-3","currency":"TMP"}`))
	if !errors.Is(err, errFail) || consumer.IsPermanent(err) || calls != 3 {
		t.Errorf("transient upcaster error: err %v, %d calls; want errFail after 3 attempts", err, calls)
	}
	if len(handled) != 1 {
		t.Errorf("failed upcasts reached the handler: %d handled", len(handled))
	}

	calls = 0
	tomb := k.jsonRecord("OrderCreated", 1, `{}`)
	tomb.Value = nil
	if err := r.Process(context.Background(), tomb); err != nil {
		t.Fatal(err)
	}
	if calls != 0 || len(handled) != 2 {
		t.Fatalf("tombstone: %d upcaster calls, %d handled; want 0 and 2", calls, len(handled))
	}
	if ev := handled[1]; !ev.Tombstone || ev.Payload != (upV2{}) || ev.Version != 2 || ev.WrittenVersion != 1 {
		t.Errorf("tombstone event: %+v", ev)
	}
}

// Major version 0 is "no version header": an upcaster from 0 brings legacy
// unversioned events to the v1 handler.
func TestUpcastFromUnversioned(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownFail})
	var got []consumer.Event[upV1]
	must(t, consumer.Handle(r, "OrderCreated", 1, func(_ context.Context, ev consumer.Event[upV1]) error {
		got = append(got, ev)
		return nil
	}))
	must(t, consumer.Upcast(r, "OrderCreated", 0, func(_ context.Context, ev consumer.Event[map[string]any]) (upV1, error) {
		id, _ := ev.Payload["id"].(string)
		return upV1{OrderID: id, Currency: "EUR"}, nil
	}))
	errs := consumertest.Run(context.Background(), r,
		k.jsonRecord("OrderCreated", 0, `{"id":"legacy"}`),
		k.jsonRecord("OrderCreated", 1, `{"orderId":"o-1","amount":2,"currency":"CHF"}`))
	if i, err := consumertest.FirstError(errs); err != nil {
		t.Fatalf("record %d: %v", i, err)
	}
	if len(got) != 2 || got[0].Payload != (upV1{OrderID: "legacy", Currency: "EUR"}) || got[0].Version != 1 || got[0].WrittenVersion != 0 ||
		got[1].Payload != (upV1{"o-1", 2, "CHF"}) || got[1].Version != 1 || got[1].WrittenVersion != 1 {
		t.Errorf("events: %+v", got)
	}
}
