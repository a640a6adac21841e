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
)

// The registry client is a SchemaSource through RegistrySchemas; writer
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

	r, _ := consumer.NewRouter(consumer.RouterConfig{Schemas: consumer.RegistrySchemas(client)})
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
