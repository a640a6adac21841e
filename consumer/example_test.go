package consumer_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// A JSON outbox: a typed handler per event type and major version.
func ExampleHandle() {
	router, _ := consumer.NewRouter(consumer.RouterConfig{})

	type OrderCreated struct {
		OrderID string `json:"orderId"`
		Amount  int    `json:"amount"`
	}
	_ = consumer.Handle(router, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		fmt.Printf("order %s: %d (event %s, aggregate %s)\n", ev.Payload.OrderID, ev.Payload.Amount, ev.EventID, ev.AggregateID)
		return nil
	})

	// The record the EventRouter routes for this outbox row.
	pipeline, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	record := pipeline.MustRecord(consumertest.Row{
		ID: "0190f0a5-7c1e-7a3b-9c1d-2f4e5a6b7c8d", AggregateType: "Order", AggregateID: "o-42",
		Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{"orderId": "o-42", "amount": 1250}`),
	})
	fmt.Println(record.Topic)
	if err := router.Process(context.Background(), record); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// outbox.event.Order
	// order o-42: 1250 (event 0190f0a5-7c1e-7a3b-9c1d-2f4e5a6b7c8d, aggregate o-42)
}

// An Avro outbox: the producer wrote with an older schema; the handler reads
// with its evolved reader schema (a new field with a default, int promoted to
// long).
func ExampleReaderSchema() {
	registry := &consumertest.Registry{}
	writerID, _ := registry.Register(`{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[
		{"name":"orderId","type":"string"},{"name":"amount","type":"int"}]}`)

	router, _ := consumer.NewRouter(consumer.RouterConfig{Schemas: registry})
	type OrderCreated struct {
		OrderID  string `avro:"orderId"`
		Amount   int64  `avro:"amount"`
		Currency string `avro:"currency"`
	}
	_ = consumer.Handle(router, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		fmt.Printf("%+v (writer schema %d)\n", ev.Payload, ev.SchemaID)
		return nil
	}, consumer.ReaderSchema(`{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[
		{"name":"orderId","type":"string"},{"name":"amount","type":"long"},
		{"name":"currency","type":"string","default":"EUR"}]}`))

	pipeline, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatAvro))
	record := pipeline.MustRecord(consumertest.Row{
		ID: "0190f0a5-7c1e-7a3b-9c1d-2f4e5a6b7c8e", AggregateType: "Order", AggregateID: "o-7",
		Type: "OrderCreated", SchemaVersion: 1,
		Payload: registry.MustEncode(writerID, map[string]any{"orderId": "o-7", "amount": int32(99)}),
	})
	if err := router.Process(context.Background(), record); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// {OrderID:o-7 Amount:99 Currency:EUR} (writer schema 1)
}

// A service that handles only OrderCreated v2 and upcasts v1 events: the v1
// record is resolved to the v1 reader schema (its currency default), upcast,
// and handed to the v2 handler with Meta telling both versions. In a real
// service the reader schemas come from the spec:
// consumer.ReaderSchemaFromSpec(&spec.Outboxes[0], "OrderCreated", 1).
func ExampleUpcast() {
	registry := &consumertest.Registry{}
	v1, _ := registry.Register(`{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[
		{"name":"orderId","type":"string"},{"name":"amount","type":"int"}]}`)
	v2, _ := registry.Register(`{"type":"record","name":"OrderCreated","namespace":"com.acme.v2","fields":[
		{"name":"orderId","type":"string"},{"name":"cents","type":"long"},{"name":"currency","type":"string"}]}`)

	type OrderCreatedV1 struct {
		OrderID  string `avro:"orderId"`
		Amount   int64  `avro:"amount"`
		Currency string `avro:"currency"`
	}
	type OrderCreatedV2 struct {
		OrderID  string `avro:"orderId"`
		Cents    int64  `avro:"cents"`
		Currency string `avro:"currency"`
	}
	router, _ := consumer.NewRouter(consumer.RouterConfig{Schemas: registry})
	// The handler first, then the upcaster to its version.
	if err := consumer.Handle(router, "OrderCreated", 2, func(ctx context.Context, ev consumer.Event[OrderCreatedV2]) error {
		fmt.Printf("%+v (written as v%d, delivered as v%d)\n", ev.Payload, ev.WrittenVersion, ev.Version)
		return nil
	}); err != nil {
		fmt.Println(err)
	}
	if err := consumer.Upcast(router, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreatedV1]) (OrderCreatedV2, error) {
		return OrderCreatedV2{OrderID: ev.Payload.OrderID, Cents: ev.Payload.Amount * 100, Currency: ev.Payload.Currency}, nil
	}, consumer.ReaderSchema(`{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[
		{"name":"orderId","type":"string"},{"name":"amount","type":"long"},
		{"name":"currency","type":"string","default":"EUR"}]}`)); err != nil {
		fmt.Println(err)
	}

	pipeline, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatAvro))
	for _, row := range []consumertest.Row{
		{ID: "0190f0a5-0000-7000-8000-000000000011", AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1,
			Payload: registry.MustEncode(v1, map[string]any{"orderId": "o-1", "amount": int32(12)})},
		{ID: "0190f0a5-0000-7000-8000-000000000012", AggregateType: "Order", AggregateID: "o-2", Type: "OrderCreated", SchemaVersion: 2,
			Payload: registry.MustEncode(v2, map[string]any{"orderId": "o-2", "cents": int64(990), "currency": "CHF"})},
	} {
		if err := router.Process(context.Background(), pipeline.MustRecord(row)); err != nil {
			fmt.Println("error:", err)
		}
	}

	// A link without its target is refused when it is registered.
	err := consumer.Upcast(router, "OrderShipped", 1, func(ctx context.Context, ev consumer.Event[OrderCreatedV1]) (OrderCreatedV2, error) {
		return OrderCreatedV2{}, nil
	})
	fmt.Println(errors.Is(err, consumer.ErrUpcastChain))
	// Output:
	// {OrderID:o-1 Cents:1200 Currency:EUR} (written as v1, delivered as v2)
	// {OrderID:o-2 Cents:990 Currency:CHF} (written as v2, delivered as v2)
	// true
}

// Retries, then the dead-letter topic; a redelivered event is skipped by the
// inbox.
func ExampleDLQ() {
	dlqProducer := &consumertest.Producer{} // consumer.NewKafkaProducer(p) in production
	inbox := consumertest.NewInbox()        // inbox.NewPostgres(db, "") in production
	defer inbox.Close()

	router, _ := consumer.NewRouter(consumer.RouterConfig{Inbox: inbox, ConsumerGroup: "billing"})
	router.Use(
		consumer.DLQ{Topic: "billing.dlq", Producer: dlqProducer}.Middleware,
		consumer.Retry{MaxAttempts: 3, InitialInterval: time.Millisecond}.Middleware,
		consumer.Recover(),
	)
	_ = consumer.Handle(router, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		if ev.Payload["amount"].(float64) < 0 {
			return fmt.Errorf("negative amount")
		}
		// The business effect, in the inbox transaction.
		_, err := ev.Tx.ExecContext(ctx, "INSERT INTO invoices (order_id) VALUES (?)", ev.Payload["orderId"])
		return err
	})

	pipeline, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	good := pipeline.MustRecord(consumertest.Row{ID: "0190f0a5-0000-7000-8000-000000000001", AggregateType: "Order", AggregateID: "o-1",
		Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{"orderId": "o-1", "amount": 5}`)})
	bad := pipeline.MustRecord(consumertest.Row{ID: "0190f0a5-0000-7000-8000-000000000002", AggregateType: "Order", AggregateID: "o-2",
		Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{"orderId": "o-2", "amount": -1}`)})

	// The good record is delivered twice (say, the consumer crashed before
	// committing its offset).
	errs := consumertest.Run(context.Background(), router, good, bad, good)
	fmt.Println("errors:", errs)
	fmt.Println("invoices written:", len(inbox.Committed()))
	for _, r := range dlqProducer.Records() {
		e, _ := r.Header(consumer.HeaderDLQError)
		a, _ := r.Header(consumer.HeaderDLQAttempts)
		fmt.Printf("dead-lettered %s to %s: %s after %s attempts\n", r.Key, r.Topic, e, a)
	}
	// Output:
	// errors: [<nil> <nil> <nil>]
	// invoices written: 1
	// dead-lettered o-2 to billing.dlq: negative amount after 3 attempts
}

// Wiring a service: registry, inbox in the service's PostgreSQL, DLQ producer,
// and the group consumer. (Not run: it needs Kafka, a registry and a
// database.)
func ExampleConsumer() {
	ctx := context.Background()
	db, _ := sql.Open("pgx", "postgres://app@db:5432/billing")
	store, _ := inbox.NewPostgres(db, "")
	_ = store.CreateTable(ctx) // or add store.CreateTableSQL() to your migrations

	reg, _ := registry.NewClient("http://registry:8081")
	router, _ := consumer.NewRouter(consumer.RouterConfig{
		Schemas: consumer.RegistryByID(reg),
		Inbox:   store, // ConsumerGroup: NewConsumer sets it to GroupID
	})
	p, _ := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "kafka:9092", "enable.idempotence": true})
	defer p.Close()
	router.Use(
		consumer.DLQ{Topic: "billing.dlq", Producer: consumer.NewKafkaProducer(p)}.Middleware,
		consumer.Retry{MaxAttempts: 5, InitialInterval: 200 * time.Millisecond, MaxInterval: 10 * time.Second}.Middleware,
		consumer.Timeout(30*time.Second),
		consumer.Recover(),
	)
	_ = consumer.Handle(router, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		_, err := ev.Tx.ExecContext(ctx, "INSERT INTO invoices (order_id) VALUES ($1)", ev.Payload["orderId"])
		return err
	})

	c, err := consumer.NewConsumer(consumer.ConsumerConfig{
		Client:  kafkaclient.Config{BootstrapServers: "kafka:9092"},
		GroupID: "billing", Topics: []string{"outbox.event.Order"},
		OnError: func(err error) { fmt.Println(err) },
	}, router)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = c.Run(ctx) // until ctx is cancelled
}
