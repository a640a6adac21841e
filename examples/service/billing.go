package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerotel"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

// errNotBillable marks an order billing can never invoice: a poison event.
var errNotBillable = errors.New("order not billable")

// newRouter is billing: OrderPlaced v2 is handled, v1 is upcast to v2 (v1
// had no currency: it was always euro), and a poison event (a negative
// amount) is dead-lettered at once instead of blocking its partition.
func newRouter(ob *spec.Outbox, reg *registry.Client, store inbox.Store, metrics *consumerprom.Metrics,
	producer *kafka.Producer, cfg config, logger *slog.Logger) (*consumer.Router, error) {
	router, err := consumer.NewRouter(consumer.RouterConfig{
		Schemas: consumer.RegistryByID(reg), Inbox: store, // the inbox consumer group is the Consumer's GroupID
		Observer: metrics, Logger: logger,
	}.ForOutbox(ob))
	if err != nil {
		return nil, err
	}
	err = router.Use(
		consumer.DLQ{Topic: cfg.DLQTopic, Producer: consumer.NewKafkaProducer(producer)}.Middleware,
		consumer.Retry{MaxAttempts: 3, InitialInterval: 100 * time.Millisecond, MaxInterval: 2 * time.Second}.Middleware,
		consumerotel.Middleware(consumerotel.Config{ConsumerGroup: cfg.GroupID}),
		consumer.Timeout(30*time.Second),
		consumer.Recover(),
	)
	if err != nil {
		return nil, err
	}
	err = consumer.Handle(router, eventType, 2, func(ctx context.Context, ev consumer.Event[OrderPlacedV2]) error {
		if ev.Payload.AmountCents < 0 {
			return consumer.Permanent(fmt.Errorf("%w: order %s has amount %d", errNotBillable, ev.Payload.OrderID, ev.Payload.AmountCents))
		}
		if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices (order_id, event_id, amount_cents, currency, written_version) VALUES ($1, $2, $3, $4, $5)`,
			ev.Payload.OrderID, ev.EventID, ev.Payload.AmountCents, ev.Payload.Currency, ev.WrittenVersion); err != nil {
			return err
		}
		logger.InfoContext(ctx, "invoice recorded", "order_id", ev.Payload.OrderID, "event_id", ev.EventID, "written_version", ev.WrittenVersion)
		return nil
	}, consumer.ReaderSchemaFromSpec(ob, eventType, 2))
	if err != nil {
		return nil, err
	}
	err = consumer.Upcast(router, eventType, 1, func(_ context.Context, ev consumer.Event[OrderPlacedV1]) (OrderPlacedV2, error) {
		return OrderPlacedV2{OrderID: ev.Payload.OrderID, Customer: ev.Payload.Customer, AmountCents: ev.Payload.AmountCents, Currency: "EUR"}, nil
	}, consumer.ReaderSchemaFromSpec(ob, eventType, 1))
	if err != nil {
		return nil, err
	}
	return router, nil
}
