package consumer_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
)

// The registry client is a schemasource.ByID through RegistryByID; writer
// schemas are fetched once per id, and a failed fetch is retried on the next
// record (not cached).
func TestRegistrySchemas(t *testing.T) {
	fake := srfake.New()
	defer fake.Close()
	client, err := registry.NewClient(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg, err := client.Register(ctx, "outbox.event.Order-com.acme.order.OrderCreated", writerV1)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(writerV1)
	if err != nil {
		t.Fatal(err)
	}
	wire := make([]byte, 5)
	binary.BigEndian.PutUint32(wire[1:], uint32(reg.ID))
	wire, err = codec.BinaryFromNative(wire, writerDatum(nil))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatAvro))
	rec := func() *consumer.Message {
		return p.MustRecord(consumertest.Row{ID: "00000000-0000-4000-8000-000000000001", AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Payload: wire})
	}

	r, _ := consumer.NewRouter(consumer.RouterConfig{Schemas: consumer.RegistryByID(client)})
	var got []OrderCreated
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		got = append(got, ev.Payload)
		return nil
	}, consumer.ReaderSchema(readerV1)))

	before := len(fake.Requests())
	fake.FailNext(500, "text/html", "<html>bad gateway</html>")
	if err := r.Process(ctx, rec()); !errors.Is(err, consumer.ErrSchema) || consumer.IsPermanent(err) {
		t.Fatalf("registry failing: Process = %v, want a non-permanent ErrSchema", err)
	}
	for i := 0; i < 3; i++ {
		if err := r.Process(ctx, rec()); err != nil {
			t.Fatalf("Process: %v", err)
		}
	}
	if len(got) != 3 || got[0].Currency != "EUR" || got[0].Amount != 1250 {
		t.Fatalf("payloads = %+v", got)
	}
	fetches := 0
	for _, req := range fake.Requests()[before:] {
		if strings.Contains(req, "/schemas/ids/") {
			fetches++
		}
	}
	if fetches != 2 {
		t.Errorf("%d schema-by-id requests, want 2 (one failed, then one cached for every later record): %v", fetches, fake.Requests())
	}
}

// The consumer's schema source has one name, schemasource.ByID; the
// deprecated consumer.SchemaSource and consumer.RegistrySchemas still
// compile and fetch as RegistryByID (issue 28 item 4).
func TestDeprecatedSchemaSourceNames(t *testing.T) {
	var old consumer.SchemaSource = &consumertest.Registry{}
	var now schemasource.ByID = old // same type: assignable both ways
	old = now
	_ = old
	fake := srfake.New()
	defer fake.Close()
	client, err := registry.NewClient(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg, err := client.Register(ctx, "outbox.event.Order-com.acme.order.OrderCreated", writerV1)
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]schemasource.ByID{
		"RegistryByID":    consumer.RegistryByID(client),
		"RegistrySchemas": consumer.RegistrySchemas(client),
	} {
		got, err := src.SchemaByID(ctx, reg.ID)
		if err != nil || !strings.Contains(got, "OrderCreated") {
			t.Errorf("%s: SchemaByID(%d) = %q, %v; want the registered schema", name, reg.ID, got, err)
		}
		if _, err := src.SchemaByID(ctx, reg.ID+1000); !consumer.IsPermanent(err) || !errors.Is(err, registry.ErrSchemaNotFound) {
			t.Errorf("%s: unknown id: err = %v, want a permanent registry.ErrSchemaNotFound", name, err)
		}
	}
}
