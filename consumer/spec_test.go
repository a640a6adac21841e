package consumer_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/spec"
)

// One spec drives both sides: the connector generated from it places the
// renamed headers, and a Router configured ForOutbox reads them.
func TestForOutboxWithGeneratedConfig(t *testing.T) {
	for _, kind := range []string{"postgres", "mariadb"} {
		t.Run(kind, func(t *testing.T) {
			sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: ` + kind + `
      connection: {host: db, user: u, dbname: shop}
    payloadFormat: json
    headers: {eventType: x-event-type, schemaVersion: x-major}
`)})
			if err != nil {
				t.Fatal(err)
			}
			cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: "kafka:9092"})
			if err != nil {
				t.Fatal(err)
			}
			p, err := consumertest.NewPipeline(cs[0].Config)
			if err != nil {
				t.Fatal(err)
			}
			if kind == "mariadb" {
				p.Table = "shop.outbox"
			}
			m, err := p.Record(consumertest.Row{ID: "0190f0a5-0000-7000-8000-000000000001", AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 2, Payload: []byte(`{"orderId": "o-1"}`)})
			if err != nil || m == nil {
				t.Fatalf("record: %v (dropped: %v)", err, m == nil)
			}
			if v, _ := m.Header("x-event-type"); string(v) != "OrderCreated" {
				t.Fatalf("generated config does not place x-event-type: headers %v", m.Headers)
			}

			var got consumer.Meta
			r, _ := consumer.NewRouter(consumer.RouterConfig{Unknown: consumer.UnknownFail}.ForOutbox(&sp.Outboxes[0]))
			must(t, consumer.Handle(r, "OrderCreated", 2, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
				got = ev.Meta
				return nil
			}))
			if err := r.Process(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			if got.EventType != "OrderCreated" || got.Version != 2 {
				t.Errorf("meta = %+v", got)
			}
			// With the default header names the same record is unknown.
			r2, _ := consumer.NewRouter(consumer.RouterConfig{Unknown: consumer.UnknownFail})
			must(t, consumer.Handle(r2, "OrderCreated", 2, func(context.Context, consumer.Event[map[string]any]) error { return nil }))
			if err := r2.Process(context.Background(), m); err == nil {
				t.Error("default header names read the renamed headers")
			}
		})
	}
}
