package consumer_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/internal/testfs"
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

// loadEventsSpec writes a spec whose outbox declares OrderCreated v1 and v2
// with schema files (plus files for the error cases) and loads it.
func loadEventsSpec(t *testing.T) *spec.Outbox {
	t.Helper()
	sp := loadSpecFiles(t, map[string]string{
		"outbox.yaml": `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: db, user: u, dbname: shop}
    events:
      - name: OrderCreated
        aggregate: Order
        versions:
          - {major: 1, schema: schemas/OrderCreated.v1.avsc}
          - {major: 2, schema: schemas/OrderCreated.v2.avsc}
      - name: Broken
        aggregate: Order
        versions:
          - {major: 1, schema: schemas/missing.avsc}
          - {major: 2, schema: schemas/string.avsc}
          - {major: 3, schema: schemas/bad.avsc}
`,
		"schemas/OrderCreated.v1.avsc": readerUpV1,
		"schemas/OrderCreated.v2.avsc": schemaUpV2,
		"schemas/string.avsc":          `"string"`,
		"schemas/bad.avsc":             `{"type":"record","name":"X","fields":[{"name":"a","type":"strin"}]}`,
	})
	return &sp.Outboxes[0]
}

// loadSpecFiles writes files (path: text) into a fresh directory and loads
// its outbox.yaml.
func loadSpecFiles(t *testing.T, files map[string]string) *spec.Spec {
	t.Helper()
	dir := testfs.Write(t, files)
	sp, err := spec.Load(filepath.Join(dir, "outbox.yaml"))
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	return sp
}

// Reader schemas from the spec's .avsc files: v1 records written with an
// older v1 writer are resolved to the spec's v1 schema (the currency default
// appears), then upcast to v2.
func TestReaderSchemaFromSpec(t *testing.T) {
	o := loadEventsSpec(t)
	k := newKit(t)
	r := k.router(consumer.RouterConfig{Unknown: consumer.UnknownFail}.ForOutbox(o))
	var got []upV2
	must(t, consumer.Handle(r, "OrderCreated", 2, func(_ context.Context, ev consumer.Event[upV2]) error {
		got = append(got, ev.Payload)
		return nil
	}, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 2)))
	must(t, consumer.Upcast(r, "OrderCreated", 1, v1to2, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 1)))
	errs := consumertest.Run(context.Background(), r,
		k.avroRecord("OrderCreated", 1, writerUpV1, map[string]any{"orderId": "o-1", "amount": int32(2)}),
		k.avroRecord("OrderCreated", 2, schemaUpV2, map[string]any{"orderId": "o-2", "total": map[string]any{"cents": int64(9), "currency": "CHF"}}))
	if i, err := consumertest.FirstError(errs); err != nil {
		t.Fatalf("record %d: %v", i, err)
	}
	want := []upV2{{"o-1", money{200, "EUR"}}, {"o-2", money{9, "CHF"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("payloads %+v, want %+v", got, want)
	}

	h := func(context.Context, consumer.Event[map[string]any]) error { return nil }
	for _, c := range []struct {
		name      string
		eventType string
		major     int
		want      string
	}{
		{"unknown event type", "OrderPaid", 1, `no event type "OrderPaid"`},
		{"unknown major", "OrderCreated", 3, "no schema for OrderCreated v3"},
		{"missing file", "Broken", 1, "missing.avsc"},
		{"not a record", "Broken", 2, "is a string schema, want a record"},
		{"does not parse", "Broken", 3, "strin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := k.router(consumer.RouterConfig{})
			err := consumer.Handle(r, c.eventType, 7, h, consumer.ReaderSchemaFromSpec(o, c.eventType, c.major))
			if !errors.Is(err, consumer.ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want ErrInvalidConfig mentioning %q", err, c.want)
			}
		})
	}
}
