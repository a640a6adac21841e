package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/outboxctl/outboxctl/consumer"
)

// errNotBillable marks an order billing can never invoice: a poison event.
var errNotBillable = errors.New("order not billable")

// registerBilling is billing: OrderPlaced v2 is handled, v1 is upcast to v2
// (v1 had no currency: it was always euro), and a poison event (a negative
// amount) is dead-lettered at once instead of blocking its partition. The
// reader schemas of v1 and v2 come from the spec (consumer.FromSpec); the
// invoice is written with pgx in the inbox transaction (ev.PgxTx()).
func registerBilling(r *consumer.Router, logger *slog.Logger) error {
	// wiring:handlers:begin
	err := consumer.Handle(r, eventType, 2, func(ctx context.Context, ev consumer.Event[OrderPlacedV2]) error {
		if ev.Payload.AmountCents < 0 {
			return consumer.Permanent(fmt.Errorf("%w: order %s has amount %d", errNotBillable, ev.Payload.OrderID, ev.Payload.AmountCents))
		}
		if _, err := ev.PgxTx().Exec(ctx, `INSERT INTO invoices (order_id, event_id, amount_cents, currency, written_version) VALUES ($1, $2, $3, $4, $5)`,
			ev.Payload.OrderID, ev.EventID, ev.Payload.AmountCents, ev.Payload.Currency, ev.WrittenVersion); err != nil {
			return err
		}
		logger.InfoContext(ctx, "invoice recorded", "order_id", ev.Payload.OrderID, "event_id", ev.EventID, "written_version", ev.WrittenVersion)
		return nil
	})
	if err != nil {
		return err
	}
	return consumer.Upcast(r, eventType, 1, func(_ context.Context, ev consumer.Event[OrderPlacedV1]) (OrderPlacedV2, error) {
		return OrderPlacedV2{OrderID: ev.Payload.OrderID, Customer: ev.Payload.Customer, AmountCents: ev.Payload.AmountCents, Currency: "EUR"}, nil
	})
	// wiring:handlers:end
}
