//go:build integration

package inbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/consumer/inbox/inboxtest"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestPostgresPgxInbox runs the conformance suite on PgxStore (pgxpool,
// pgx.Tx), then checks the batch mark, the clean-up and that a pgx mark and
// a database/sql mark are the same row of the same table.
func TestPostgresPgxInbox(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	name := "inbox_pgx_" + itest.Suffix()
	db := itest.PostgresDatabase(t, s.PostgresDSN, name)
	pool := itest.PostgresPool(t, s.PostgresDSN, name)
	store, err := inbox.NewPgx(pool, "", pgx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	inboxtest.RunPgx(t, store, features)

	t.Run("BatchCleanupAndInterop", func(t *testing.T) {
		tx, err := store.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		dups, err := store.MarkProcessedBatch(ctx, tx, "pgx", []string{"a", "b", "a"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(dups, []bool{false, false, true}) {
			t.Fatalf("batch = %v, want [false false true]", dups)
		}
		if ok, _ := store.IsProcessed(ctx, "pgx", "a"); ok {
			t.Fatal("uncommitted pgx mark visible outside its transaction")
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		sqlStore, err := inbox.NewPostgres(db, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"a", "b"} {
			if ok, err := sqlStore.IsProcessed(ctx, "pgx", id); err != nil || !ok {
				t.Fatalf("database/sql store does not see pgx mark %s: %v %v", id, ok, err)
			}
		}
		stx, err := sqlStore.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if dup, err := sqlStore.MarkProcessed(ctx, stx, "pgx", "a"); err != nil || !dup {
			t.Fatalf("database/sql mark of a pgx-marked id: dup=%v err=%v, want duplicate", dup, err)
		}
		_ = stx.Rollback()
		time.Sleep(20 * time.Millisecond)
		n, err := store.DeleteOlderThan(ctx, time.Millisecond)
		if err != nil || n < 2 {
			t.Fatalf("DeleteOlderThan = %d, %v; want >= 2", n, err)
		}
		if ok, _ := store.IsProcessed(ctx, "pgx", "a"); ok {
			t.Fatal("mark still there after DeleteOlderThan")
		}
	})
}

// TestPostgresInboxOverPgxPool: the Router's database/sql Store over a pgx
// pool (stdlib.OpenDBFromPool), as PgxStore's doc suggests, passes the
// same suite, and sees PgxStore's marks.
func TestPostgresInboxOverPgxPool(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	name := "inbox_pgxsql_" + itest.Suffix()
	itest.PostgresDatabase(t, s.PostgresDSN, name)
	pool := itest.PostgresPool(t, s.PostgresDSN, name)
	db := stdlib.OpenDBFromPool(pool)
	t.Cleanup(func() { db.Close() })
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	inboxtest.Run(t, store, features)
	ps, err := inbox.NewPgx(pool, "", pgx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ps.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ps.MarkProcessed(ctx, tx, "both", "e1"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.IsProcessed(ctx, "both", "e1"); err != nil || !ok {
		t.Fatalf("database/sql view of the pool does not see the pgx mark: %v %v", ok, err)
	}
}
