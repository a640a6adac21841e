package inbox_test

import (
	"context"
	"database/sql"
	"log"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// The consumer's inbox over a pgx pool: NewPgxPool is a RouterConfig.Inbox
// whose handlers get the inbox transaction as a pgx.Tx (ev.PgxTx()); their
// writes commit together with the inbox mark. (The README's pgx example;
// compiled, not run: it needs a database.)
func Example_pgxPool() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://billing@localhost:5432/billing")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	store, err := inbox.NewPgxPool(pool, inbox.DefaultTable)
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
		var tx pgx.Tx = ev.PgxTx()
		_, err := tx.Exec(ctx, "INSERT INTO invoices (order_id) VALUES ($1)", ev.Payload["orderId"])
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}

// The database/sql view of a pgx pool works too: handlers then write
// through ev.Tx, a *sql.Tx.
func Example_pgxPoolSQL() {
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
