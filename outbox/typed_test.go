package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/wire"
	"github.com/outboxctl/outboxctl/spec"
)

type orderCreated struct {
	OrderID string `avro:"orderId"`
	Cents   int64  `json:"amount_cents" avro:"amount_cents"`
	Note    *string
}

const orderAvsc = `{"type":"record","name":"OrderCreated","namespace":"shop","fields":[
 {"name":"orderId","type":"string"},{"name":"amount_cents","type":"long"},
 {"name":"Note","type":["null","string"],"default":null}]}`

func payloadArg(t *testing.T, tab outbox.Table, c call) []byte {
	t.Helper()
	for i, col := range tab.Columns {
		if col.Role == spec.RolePayload {
			switch p := c.args[i].(type) {
			case []byte:
				return p
			case string:
				return []byte(p)
			}
		}
	}
	t.Fatal("no payload argument")
	return nil
}

type fakeLookup struct {
	calls atomic.Int32
	id    int
	err   error
}

func (f *fakeLookup) Lookup(_ context.Context, subject, schema string, _ ...registry.Reference) (*registry.Schema, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	return &registry.Schema{Subject: subject, ID: f.id, Schema: schema}, nil
}

func TestTypedAvroWrite(t *testing.T) {
	s, err := avro.Parse([]byte(orderAvsc))
	if err != nil {
		t.Fatal(err)
	}
	tab := table(t, spec.Postgres, spec.FormatAvro, events)
	ev := outbox.Event{AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 2,
		Value: orderCreated{OrderID: "o-1", Cents: 1250}}

	t.Run("pinned", func(t *testing.T) {
		w, err := outbox.NewWriter(tab, outbox.WithPinnedSchema("OrderCreated", 2, 77, s))
		if err != nil {
			t.Fatal(err)
		}
		f := &fakeTx{}
		if _, err := w.Write(context.Background(), f, ev); err != nil {
			t.Fatal(err)
		}
		id, datum, err := wire.Parse(payloadArg(t, tab, f.calls[0]))
		if err != nil || id != 77 {
			t.Fatalf("wire header: id %d, %v", id, err)
		}
		p, err := avrobind.Compile(s, s, reflect.TypeFor[orderCreated]())
		if err != nil {
			t.Fatal(err)
		}
		var back orderCreated
		if err := p.Decode(datum, &back); err != nil || !reflect.DeepEqual(back, ev.Value) {
			t.Fatalf("decoded %+v, %v; want %+v", back, err, ev.Value)
		}
	})

	t.Run("misfit writes nothing", func(t *testing.T) {
		w, _ := outbox.NewWriter(tab, outbox.WithPinnedSchema("OrderCreated", 2, 77, s))
		f := &fakeTx{}
		bad := ev
		bad.Value = struct{ OrderID int }{1}
		if _, err := w.Write(context.Background(), f, bad); !errors.Is(err, outbox.ErrInvalidEvent) || !errors.Is(err, avrobind.ErrEncode) {
			t.Fatalf("err = %v, want ErrInvalidEvent and avrobind.ErrEncode", err)
		}
		if _, err := w.WriteAll(context.Background(), f, []outbox.Event{ev, bad}); !errors.Is(err, outbox.ErrInvalidEvent) {
			t.Fatalf("WriteAll err = %v", err)
		}
		both := ev
		both.Payload = wire.Frame(1, nil)
		if _, err := w.Write(context.Background(), f, both); !errors.Is(err, outbox.ErrInvalidEvent) {
			t.Fatalf("Value and Payload: err = %v", err)
		}
		if len(f.calls) != 0 {
			t.Fatalf("%d statements executed for rejected events", len(f.calls))
		}
	})

	t.Run("no schema source", func(t *testing.T) {
		w, _ := outbox.NewWriter(tab)
		f := &fakeTx{}
		if _, err := w.Write(context.Background(), f, ev); !errors.Is(err, outbox.ErrSchema) || len(f.calls) != 0 {
			t.Fatalf("err = %v, calls %d; want ErrSchema and nothing written", err, len(f.calls))
		}
	})

	t.Run("registry id looked up once", func(t *testing.T) {
		cat := &schemas.Catalog{Entries: []*schemas.CatalogEntry{{Outbox: "o", EventType: "OrderCreated", Major: 2,
			Subject: "outbox.event.Order-shop.OrderCreated", PayloadFormat: spec.FormatAvro, Source: []byte(orderAvsc), Schema: s}}}
		reg := &fakeLookup{id: 9}
		w, _ := outbox.NewWriter(tab, outbox.WithSchemas(outbox.RegistryByEventType(reg, cat, "o")))
		f := &fakeTx{}
		for i := 0; i < 3; i++ {
			if _, err := w.Write(context.Background(), f, ev); err != nil {
				t.Fatal(err)
			}
		}
		if n := reg.calls.Load(); n != 1 {
			t.Fatalf("registry asked %d times, want once", n)
		}
		if id, _, _ := wire.Parse(payloadArg(t, tab, f.calls[2])); id != 9 {
			t.Fatalf("schema id %d, want 9", id)
		}
		down := &fakeLookup{err: registry.ErrUnreachable}
		w, _ = outbox.NewWriter(tab, outbox.WithSchemas(outbox.RegistryByEventType(down, cat, "o")))
		if _, err := w.Write(context.Background(), f, ev); !errors.Is(err, outbox.ErrSchema) || !errors.Is(err, registry.ErrUnreachable) {
			t.Fatalf("err = %v, want ErrSchema and registry.ErrUnreachable", err)
		}
		if _, err := w.Write(context.Background(), f, ev); err == nil || down.calls.Load() != 2 {
			t.Fatalf("a failed lookup was cached: %v, %d calls", err, down.calls.Load())
		}
		other := ev
		other.SchemaVersion = 1
		if _, err := w.Write(context.Background(), f, other); !errors.Is(err, outbox.ErrSchema) {
			t.Fatalf("v1 not in the catalog: err = %v", err)
		}
	})
}

func TestTypedJSONWrite(t *testing.T) {
	tab := table(t, spec.MariaDB, spec.FormatJSON, "")
	w, err := outbox.NewWriter(tab)
	if err != nil {
		t.Fatal(err)
	}
	note := "gift"
	type withEmbedded struct {
		orderCreated
		Lines []orderCreated `json:"lines,omitempty"`
		Skip  string         `avro:"-"`
	}
	f := &fakeTx{}
	v := withEmbedded{orderCreated: orderCreated{OrderID: "o-1", Cents: 5, Note: &note}, Lines: []orderCreated{{OrderID: "l"}}}
	if _, err := w.Write(context.Background(), f, outbox.Event{AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Value: v}); err != nil {
		t.Fatal(err)
	}
	got := string(payloadArg(t, tab, f.calls[0]))
	want := `{"lines":[{"orderId":"l","amount_cents":0,"Note":null}],"orderId":"o-1","amount_cents":5,"Note":"gift"}`
	if got != want {
		t.Fatalf("payload = %s\nwant      %s", got, want)
	}
	if _, err := w.Write(context.Background(), f, outbox.Event{AggregateType: "Order", AggregateID: "o-1", Type: "T", SchemaVersion: 1, Value: make(chan int)}); !errors.Is(err, outbox.ErrInvalidEvent) || !strings.Contains(err.Error(), "chan") {
		t.Fatalf("unencodable value: err = %v", err)
	}
}

type ptrMarshaler struct{ N int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

func TestEncodeJSONMarshalers(t *testing.T) {
	type v struct {
		P    ptrMarshaler `avro:"p"`
		Raw  json.RawMessage
		When time.Time `avro:"when"`
	}
	got, err := outbox.EncodeJSON(&v{Raw: json.RawMessage(`{"x":1}`), When: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"p":"custom","Raw":{"x":1},"when":"2026-12-01T00:00:00Z"}`; string(got) != want {
		t.Fatalf("EncodeJSON = %s, want %s", got, want)
	}
}
