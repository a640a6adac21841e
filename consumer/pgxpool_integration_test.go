//go:build integration

package consumer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/consumer/inbox/inboxtest"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestPgxPoolInboxRouter: a Router whose Inbox is an inbox.PgxPoolStore on a
// real pgxpool gives the handler the inbox transaction as a pgx.Tx
// (Event.PgxTx): its writes commit with the inbox mark, roll back with a
// failed attempt, a redelivery is skipped, Commit is refused, a nested
// Begin is a savepoint, and every connection goes back to the pool.
func TestPgxPoolInboxRouter(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	name := "inbox_pgxpool_" + itest.Suffix()
	db := itest.PostgresDatabase(t, s.PostgresDSN, name)
	pool := itest.PostgresPool(t, s.PostgresDSN, name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := inbox.NewPgxPool(pool, "")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("Conformance", func(t *testing.T) {
		inboxtest.Run(t, store, inboxtest.Features{BlocksConcurrentDuplicates: true, RejectsInvalidKeys: true})
	})
	if _, err := db.ExecContext(ctx, `CREATE TABLE effects (event_id text PRIMARY KEY, note text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store, ConsumerGroup: "billing"})
	if err != nil {
		t.Fatal(err)
	}
	failFirst := true
	var ownedErr, nestedErr error
	err = consumer.Handle(r, "Placed", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		tx := ev.PgxTx()
		if tx == nil {
			return consumer.Permanent(errors.New("Event.PgxTx() is nil with a PgxPoolStore inbox"))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO effects (event_id, note) VALUES ($1, 'pgx')`, ev.EventID); err != nil {
			return err
		}
		// A nested transaction is a savepoint: its rollback undoes only
		// its own write.
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := sp.Exec(ctx, `INSERT INTO effects (event_id, note) VALUES ($1, 'nested')`, ev.EventID+"-nested"); err != nil {
			return err
		}
		nestedErr = sp.Rollback(ctx)
		// The same transaction through database/sql sees the pgx write.
		var n int
		if err := ev.Tx.QueryRowContext(ctx, `SELECT count(*) FROM effects WHERE event_id = $1`, ev.EventID).Scan(&n); err != nil || n != 1 {
			return consumer.Permanent(errors.New("ev.Tx does not see the pgx write: not one transaction"))
		}
		ownedErr = tx.Commit(ctx)
		if failFirst {
			failFirst = false
			return errors.New("first attempt fails")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	if err != nil {
		t.Fatal(err)
	}
	const id = "0190a0c8-7a8c-7cc1-8b5e-000000000001"
	m := p.MustRecord(consumertest.Row{ID: id, AggregateType: "Order", AggregateID: "o1", Type: "Placed", SchemaVersion: 1, Payload: []byte(`{"n": 1}`)})
	count := func() int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM effects`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := r.Process(ctx, m); err == nil {
		t.Fatal("first attempt: no error")
	}
	if n := count(); n != 0 {
		t.Fatalf("%d effect rows after a failed attempt, want 0 (rolled back with the mark)", n)
	}
	if ok, _ := store.IsProcessed(ctx, "billing", id); ok {
		t.Fatal("marked after a failed attempt")
	}
	if err := r.Process(ctx, m); err != nil {
		t.Fatal(err)
	}
	if err := r.Process(ctx, m); err != nil { // redelivered: the inbox skips it
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d effect rows, want 1 (the nested write rolled back, the redelivery skipped)", n)
	}
	if ok, _ := store.IsProcessed(ctx, "billing", id); !ok {
		t.Fatal("not marked after the handled attempt")
	}
	if st := r.Stats(); st.Duplicates != 1 {
		t.Errorf("Stats.Duplicates = %d, want 1", st.Duplicates)
	}
	if !errors.Is(ownedErr, inbox.ErrTxOwned) {
		t.Errorf("PgxTx().Commit = %v, want ErrTxOwned", ownedErr)
	}
	if nestedErr != nil {
		t.Errorf("savepoint rollback: %v", nestedErr)
	}
	// Each transaction's connection goes back to the pool.
	deadline := time.Now().Add(5 * time.Second)
	for pool.Stat().AcquiredConns() != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("%d pool connections still acquired", n)
	}
}
