package outbox_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
	"github.com/outboxctl/outboxctl/spec"
)

// TestWriterPreload (#28 item 6): Preload resolves the ids of the declared
// (type, major) pairs, so that a registry outage at start is seen by a
// readiness probe, not by the first Write, and Writes after a successful
// Preload need no registry.
func TestWriterPreload(t *testing.T) {
	ctx := context.Background()
	fake := srfake.NewUnstarted()
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "<html>502 Bad Gateway</html>", http.StatusBadGateway)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	reg, err := registry.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := avro.Parse([]byte(orderAvsc))
	if err != nil {
		t.Fatal(err)
	}
	const v1Avsc = `{"type":"record","name":"OrderCreated","namespace":"shop.v1","fields":[{"name":"orderId","type":"string"}]}`
	s1, err := avro.Parse([]byte(v1Avsc))
	if err != nil {
		t.Fatal(err)
	}
	cat := &schemas.Catalog{Entries: []*schemas.CatalogEntry{
		{Outbox: "o", EventType: "OrderCreated", Major: 1, Subject: "outbox.event.Order-shop.v1.OrderCreated", PayloadFormat: spec.FormatAvro, Source: []byte(v1Avsc), Schema: s1},
		{Outbox: "o", EventType: "OrderCreated", Major: 2, Subject: "outbox.event.Order-shop.OrderCreated", PayloadFormat: spec.FormatAvro, Source: []byte(orderAvsc), Schema: s},
	}}
	tab := table(t, spec.Postgres, spec.FormatAvro, events) // declares OrderCreated v1 and v2
	w, err := outbox.NewWriter(tab, outbox.WithSchemas(outbox.RegistryByEventType(reg, cat, "o")))
	if err != nil {
		t.Fatal(err)
	}
	ev := outbox.Event{AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 2,
		Value: orderCreated{OrderID: "o-1", Cents: 1250}}

	// Registry down at start: Preload fails, naming each version.
	down.Store(true)
	err = w.Preload(ctx)
	if !errors.Is(err, outbox.ErrSchema) || !errors.Is(err, registry.ErrUnreachable) {
		t.Fatalf("Preload (registry down) = %v, want ErrSchema and registry.ErrUnreachable", err)
	}
	for _, want := range []string{"OrderCreated v1", "OrderCreated v2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Preload error lacks %q: %v", want, err)
		}
	}

	// Up, but the schemas are not registered: not ready either.
	down.Store(false)
	if err := w.Preload(ctx); !errors.Is(err, outbox.ErrSchema) || !errors.Is(err, registry.ErrSubjectNotFound) {
		t.Fatalf("Preload (not registered) = %v, want ErrSchema and registry.ErrSubjectNotFound", err)
	}

	// Registered: Preload succeeds, and Writes then work with the registry down.
	var ids []int
	for _, e := range cat.Entries {
		got, err := reg.Register(ctx, e.Subject, string(e.Source))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got.ID)
	}
	if err := w.Preload(ctx); err != nil {
		t.Fatalf("Preload = %v", err)
	}
	down.Store(true)
	f := &fakeTx{}
	if _, err := w.Write(ctx, f, ev); err != nil {
		t.Fatalf("Write after Preload with the registry down: %v", err)
	}
	if id, _, _ := outbox.ParseWireFormat(payloadArg(t, tab, f.calls[0])); int(id) != ids[1] {
		t.Fatalf("schema id %d, want %d", id, ids[1])
	}
	if err := w.Preload(ctx); err != nil {
		t.Fatalf("Preload again (cached, registry down) = %v", err)
	}
}

// TestWriterPreloadNothingToWarm: a JSON outbox, a writer without a schema
// source, or pinned schemas need no registry: Preload is nil.
func TestWriterPreloadNothingToWarm(t *testing.T) {
	ctx := context.Background()
	s, err := avro.Parse([]byte(orderAvsc))
	if err != nil {
		t.Fatal(err)
	}
	down := &fakeLookup{err: registry.ErrUnreachable}
	cat := &schemas.Catalog{}
	tests := []struct {
		name string
		tab  outbox.Table
		opts []outbox.Option
	}{
		{"json", table(t, spec.Postgres, spec.FormatJSON, events), []outbox.Option{outbox.WithSchemas(outbox.RegistryByEventType(down, cat, "o"))}},
		{"no source", table(t, spec.Postgres, spec.FormatAvro, events), nil},
		{"pinned", table(t, spec.Postgres, spec.FormatAvro, events), []outbox.Option{
			outbox.WithPinnedSchema("OrderCreated", 1, 1, s), outbox.WithPinnedSchema("OrderCreated", 2, 2, s),
			outbox.WithSchemas(outbox.RegistryByEventType(down, cat, "o"))}},
		{"no declared events", table(t, spec.Postgres, spec.FormatAvro, ""), []outbox.Option{outbox.WithSchemas(outbox.RegistryByEventType(down, cat, "o"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := outbox.NewWriter(tt.tab, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Preload(ctx); err != nil {
				t.Errorf("Preload = %v, want nil", err)
			}
		})
	}
	if n := down.calls.Load(); n != 0 {
		t.Errorf("registry asked %d times", n)
	}
}
