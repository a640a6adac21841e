//go:build cgo

package consumer_test

import (
	"context"
	"embed"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerotel"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/spec"
)

//go:embed testdata/fromspec
var specFS embed.FS

type OrderCreatedV1 struct {
	OrderID string `avro:"orderId"`
	Amount  int64  `avro:"amount"`
}

type OrderCreatedV2 struct {
	OrderID  string `avro:"orderId"`
	Amount   int64  `avro:"amount"`
	Currency string `avro:"currency"`
}

// The short form (the README's consumer): one call from the embedded spec
// gives the topics, the header names, the reader schemas of v1 and v2 and
// the chain DLQ, Retry (backoff with jitter), tracing, Recover; the inbox
// runs on the pgx pool and the handler writes with pgx in its transaction.
// Compiled, not run: it needs the stack.
func Example_fromSpec() {
	ctx := context.Background()
	// wiring:readme:begin
	sp, _ := spec.LoadFS(specFS, "testdata/fromspec/outbox.yaml") // //go:embed: no file on disk at run time
	pool, _ := pgxpool.New(ctx, "postgres://billing@127.0.0.1:15432/billing")
	store, _ := inbox.NewPgxPool(pool, "") // the inbox on the pgx pool
	_ = store.CreateTable(ctx)
	metrics, _ := consumerprom.New(consumerprom.Config{})
	app, _ := consumer.FromSpec(sp, "orders", consumer.Options{
		GroupID: "billing", Kafka: kafkaclient.Config{BootstrapServers: "127.0.0.1:19092"},
		RegistryURL: "http://127.0.0.1:18081/apis/ccompat/v7", Inbox: store, DLQTopic: "orders.dlq",
		Retry:    consumer.Retry{MaxAttempts: 5}, // 100ms doubling to 10s, 20% jitter
		Tracing:  consumerotel.Middleware(consumerotel.Config{ConsumerGroup: "billing"}),
		Observer: metrics, // series of OrderCreated exist at 0 from the start
	})
	_ = consumer.Handle(app.Router, "OrderCreated", 2, func(ctx context.Context, ev consumer.Event[OrderCreatedV2]) error {
		_, err := ev.PgxTx().Exec(ctx, "INSERT INTO invoices (order_id, currency) VALUES ($1, $2)", ev.Payload.OrderID, ev.Payload.Currency)
		return err
	})
	_ = consumer.Upcast(app.Router, "OrderCreated", 1, func(_ context.Context, ev consumer.Event[OrderCreatedV1]) (OrderCreatedV2, error) {
		return OrderCreatedV2{OrderID: ev.Payload.OrderID, Amount: ev.Payload.Amount, Currency: "EUR"}, nil
	})
	http.Handle("/metrics", metrics.Handler())
	_ = app.Run(ctx)
	// wiring:readme:end
}
