//go:build integration

package consumertest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/consumer/inbox/inboxtest"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// A handler that writes through Event.Tx and reads its own write back
// behaves with DBInbox as in production: the read sees the row, a
// redelivery is skipped, a failure after the write rolls back the effect and
// the mark together. The same handler under the in-memory Inbox fails with
// ErrNoDatabase instead of silently reading nothing.
func TestDBInbox(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		s := itest.Require(t, itest.Postgres)
		db := itest.PostgresDatabase(t, s.PostgresDSN, "consumertest_inbox_"+itest.Suffix())
		runDBInbox(t, db, inbox.Postgres, `INSERT INTO invoices (event_id, order_id) VALUES ($1, $2)`, `SELECT count(*) FROM invoices WHERE order_id = $1`)
	})
	t.Run("mariadb", func(t *testing.T) {
		s := itest.Require(t, itest.MariaDB)
		db := itest.MariaDBDatabase(t, s.MariaDBDSN, "consumertest_inbox_"+itest.Suffix())
		runDBInbox(t, db, inbox.MySQL, `INSERT INTO invoices (event_id, order_id) VALUES (?, ?)`, `SELECT count(*) FROM invoices WHERE order_id = ?`)
	})
}

func runDBInbox(t *testing.T, db *sql.DB, dialect inbox.Dialect, insert, count string) {
	ctx := context.Background()
	in, err := consumertest.NewDBInbox(ctx, db, dialect)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := in.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Run("conformance", func(t *testing.T) {
		inboxtest.Run(t, in, inboxtest.Features{BlocksConcurrentDuplicates: true, RejectsInvalidKeys: true})
	})
	if _, err := db.ExecContext(ctx, `CREATE TABLE invoices (event_id varchar(64) PRIMARY KEY, order_id varchar(64) NOT NULL)`); err != nil {
		t.Fatal(err)
	}

	// The handler writes the invoice, then reads back how many invoices
	// its order has, through the same transaction.
	seen := map[string]int{}
	handler := func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		order, _ := ev.Payload["orderId"].(string)
		if _, err := ev.Tx.ExecContext(ctx, insert, ev.EventID, order); err != nil {
			return err
		}
		var n int
		if err := ev.Tx.QueryRowContext(ctx, count, order).Scan(&n); err != nil {
			return err
		}
		seen[ev.EventID] = n
		if ev.Payload["fail"] == true {
			return consumertest.ErrInjected
		}
		return nil
	}
	newRouter := func(store inbox.Store) *consumer.Router {
		r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store, ConsumerGroup: "billing"})
		if err != nil {
			t.Fatal(err)
		}
		if err := consumer.Handle(r, "OrderCreated", 1, handler); err != nil {
			t.Fatal(err)
		}
		return r
	}
	p, err := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(n int, payload string) *consumer.Message {
		return p.MustRecord(consumertest.Row{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(payload)})
	}
	first, second, failing := rec(1, `{"orderId":"o-1"}`), rec(2, `{"orderId":"o-1"}`), rec(3, `{"orderId":"o-1","fail":true}`)

	r := newRouter(in)
	errs := consumertest.Run(ctx, r, first, second, first, failing)
	for i, want := range []error{nil, nil, nil, consumertest.ErrInjected} {
		if !errors.Is(errs[i], want) || (want == nil) != (errs[i] == nil) {
			t.Errorf("record %d: err %v, want %v", i, errs[i], want)
		}
	}
	id := func(m *consumer.Message) string { v, _ := m.Header("id"); return string(v) }
	// The reads saw the handler's own writes: 1, then 2 (the redelivery of
	// the first was skipped by the inbox, so its count stays 1), then 3
	// inside the transaction that rolled back.
	if seen[id(first)] != 1 || seen[id(second)] != 2 || seen[id(failing)] != 3 {
		t.Errorf("counts read through Event.Tx: %v, want 1, 2, 3", seen)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM invoices`).Scan(&n); err != nil || n != 2 {
		t.Errorf("invoices committed: %d (%v), want 2", n, err)
	}
	for m, want := range map[*consumer.Message]bool{first: true, second: true, failing: false} {
		if got := in.Processed("billing", id(m)); got != want {
			t.Errorf("mark of %s = %v, want %v", id(m), got, want)
		}
	}

	// The same handler with the in-memory inbox: an error, not zero rows.
	mem := consumertest.NewInbox()
	defer mem.Close()
	if err := newRouter(mem).Process(ctx, rec(4, `{"orderId":"o-2"}`)); !errors.Is(err, consumertest.ErrNoDatabase) {
		t.Errorf("in-memory inbox: %v, want ErrNoDatabase", err)
	}
}
