package inbox_test

import (
	"context"
	"database/sql"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// The consumer's inbox over a pgx pool: RouterConfig.Inbox is a
// database/sql Store, so open the database/sql view of the pool (it shares
// the pool's connections) and give it to NewPostgres. Handlers write their
// effect in ev.Tx, the inbox's *sql.Tx. (The README's pgx example; compiled,
// not run: it needs a database.)
func Example_pgxPool() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://billing@localhost:5432/billing")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	db := stdlib.OpenDBFromPool(pool)
	store, err := inbox.NewPostgres(db, inbox.DefaultTable)
	if err != nil {
		log.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		log.Fatal(err)
	}
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		log.Fatal(err)
	}
	err = consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		var tx *sql.Tx = ev.Tx
		_, err := tx.ExecContext(ctx, "INSERT INTO invoices (order_id) VALUES ($1)", ev.Payload["orderId"])
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}
