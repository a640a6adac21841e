//go:build cgo

package consumer_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/spec"
)

const appSpec = `apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: 127.0.0.1:9
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: h, port: 5432, user: u, password: "${env:PW}", dbname: d}
    payloadFormat: avro
    headers:
      eventType: x-type
    consumers:
      - {group: shipping, dlqTopic: shop.shipping.dlq}
    routing:
      topicReplacement: shop.${routedByValue}
    events:
      - name: Placed
        aggregate: Order
        versions:
          - {major: 1, schema: schemas/p1.avsc}
          - {major: 2, schema: schemas/p2.avsc}
`

type placedV1 struct {
	ID string `avro:"id"`
}

type placedV2 struct {
	ID       string `avro:"id"`
	Currency string `avro:"currency"`
}

// appFS is a spec and its schemas in an fs.FS only (as an embed.FS holds
// them): nothing on disk.
func appFS() fstest.MapFS {
	return fstest.MapFS{
		"svc/outbox.yaml":     {Data: []byte(appSpec)},
		"svc/schemas/p1.avsc": {Data: []byte(`{"type":"record","name":"Placed","namespace":"v1","fields":[{"name":"id","type":"string"}]}`)},
		"svc/schemas/p2.avsc": {Data: []byte(`{"type":"record","name":"Placed","namespace":"v2","fields":[{"name":"id","type":"string"},{"name":"currency","type":"string"}]}`)},
	}
}

type declaring struct {
	declared map[string][]string
}

func (d *declaring) ObserveRecord(context.Context, *consumer.Message, consumer.Observation) {}
func (d *declaring) Declare(topic string, types ...string) {
	d.declared[topic] = append(d.declared[topic], types...)
}

type nopProducer struct{}

func (nopProducer) Produce(context.Context, *consumer.Message) error { return nil }

func TestFromSpec(t *testing.T) {
	sp, err := spec.LoadFS(appFS(), "svc/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	obs := &declaring{declared: map[string][]string{}}
	app, err := consumer.FromSpec(sp, "orders", consumer.Options{
		GroupID: "billing", DLQTopic: "shop.dlq", DLQProducer: nopProducer{}, Observer: obs,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if want := []string{"shop.Order"}; !slices.Equal(app.Topics, want) {
		t.Errorf("Topics = %v, want %v", app.Topics, want)
	}
	cfg := app.Config()
	if cfg.GroupID != "billing" || cfg.Client.BootstrapServers != "127.0.0.1:9" || !slices.Equal(cfg.Topics, app.Topics) {
		t.Errorf("ConsumerConfig = group %q, bootstrap %q, topics %v", cfg.GroupID, cfg.Client.BootstrapServers, cfg.Topics)
	}
	if got := obs.declared["shop.Order"]; !slices.Equal(got, []string{"Placed"}) {
		t.Errorf("declared %v, want Placed on shop.Order", obs.declared)
	}
	if got := app.Router.DLQTopics(); !slices.Equal(got, []string{"shop.dlq"}) {
		t.Errorf("DLQTopics = %v", got)
	}
	// The reader schemas come from the spec's files (in the fs.FS): no
	// schema in code, and a payload type that does not fit is refused.
	if err := consumer.Handle(app.Router, "Placed", 2, func(context.Context, consumer.Event[placedV2]) error { return nil }); err != nil {
		t.Fatal(err)
	}
	err = consumer.Upcast(app.Router, "Placed", 1, func(_ context.Context, ev consumer.Event[placedV2]) (placedV2, error) { return ev.Payload, nil })
	if !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("upcast from a v1 type that does not fit the v1 schema: %v, want ErrInvalidConfig", err)
	}
	if err := consumer.Upcast(app.Router, "Placed", 1, func(_ context.Context, ev consumer.Event[placedV1]) (placedV2, error) {
		return placedV2{ID: ev.Payload.ID, Currency: "EUR"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(app.Router, "Shipped", 1, func(context.Context, consumer.Event[placedV1]) error { return nil }); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("handler of an undeclared type: %v, want ErrInvalidConfig", err)
	}
}

// TestFromSpecDLQFromSpec: without Options.DLQTopic, the dead-letter
// topic the outbox's consumers section declares for the group is used.
func TestFromSpecDLQFromSpec(t *testing.T) {
	sp, err := spec.LoadFS(appFS(), "svc/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for group, want := range map[string][]string{"shipping": {"shop.shipping.dlq"}, "billing": nil} {
		app, err := consumer.FromSpec(sp, "orders", consumer.Options{GroupID: group, DLQProducer: nopProducer{}})
		if err != nil {
			t.Fatal(err)
		}
		if got := app.Router.DLQTopics(); !slices.Equal(got, want) {
			t.Errorf("group %s: DLQTopics = %v, want %v", group, got, want)
		}
		app.Close()
	}
}

func TestFromSpecErrors(t *testing.T) {
	sp, err := spec.LoadFS(appFS(), "svc/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		outbox string
		o      consumer.Options
	}{
		"no group":      {"orders", consumer.Options{}},
		"no outbox":     {"nope", consumer.Options{GroupID: "g"}},
		"invalid retry": {"orders", consumer.Options{GroupID: "g", Retry: consumer.Retry{MaxAttempts: -1}}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := consumer.FromSpec(sp, tc.outbox, tc.o); !errors.Is(err, consumer.ErrInvalidConfig) {
				t.Errorf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// TestFromSpecMetricsAtZero: with consumerprom as the Observer, the series
// of the outbox's event types exist at 0 before the first record.
func TestFromSpecMetricsAtZero(t *testing.T) {
	sp, err := spec.LoadFS(appFS(), "svc/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := consumerprom.New(consumerprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	app, err := consumer.FromSpec(sp, "orders", consumer.Options{GroupID: "billing", Observer: metrics})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{
		`outboxctl_consumer_processed_total{event_type="Placed",topic="shop.Order"} 0`,
		`outboxctl_consumer_dead_lettered_total{event_type="Placed",topic="shop.Order"} 0`,
	} {
		if !strings.Contains(rec.Body.String(), want+"\n") {
			t.Errorf("metrics lack %q:\n%s", want, rec.Body)
		}
	}
}
