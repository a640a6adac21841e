//go:build integration

package inbox_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/consumer/inbox/inboxtest"
	"github.com/outboxctl/outboxctl/internal/itest"
)

var features = inboxtest.Features{BlocksConcurrentDuplicates: true, RejectsInvalidKeys: true}

func TestPostgresInbox(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	db := itest.PostgresDatabase(t, s.PostgresDSN, "inbox_pg_"+itest.Suffix())
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	runDialect(t, db, store)
}

func TestMariaDBInbox(t *testing.T) {
	s := itest.Require(t, itest.MariaDB)
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, "inbox_maria_"+itest.Suffix())
	store, err := inbox.NewMySQL(db, "")
	if err != nil {
		t.Fatal(err)
	}
	runDialect(t, db, store)
}

func runDialect(t *testing.T, db *sql.DB, store *inbox.SQLStore) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	// Idempotent DDL.
	if err := store.CreateTable(ctx); err != nil {
		t.Fatalf("second CreateTable: %v", err)
	}
	inboxtest.Run(t, store, features)

	t.Run("IsProcessedAndDeleteOlderThan", func(t *testing.T) {
		tx, err := store.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.MarkProcessed(ctx, tx, "cleanup", "evt-1"); err != nil {
			t.Fatal(err)
		}
		if ok, err := store.IsProcessed(ctx, "cleanup", "evt-1"); err != nil || ok {
			t.Fatalf("uncommitted mark visible outside its transaction: %v %v", ok, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if ok, err := store.IsProcessed(ctx, "cleanup", "evt-1"); err != nil || !ok {
			t.Fatalf("IsProcessed = %v, %v; want true", ok, err)
		}
		// A fresh mark is younger than an hour: not deleted.
		if _, err := store.DeleteOlderThan(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
		if ok, _ := store.IsProcessed(ctx, "cleanup", "evt-1"); !ok {
			t.Fatal("DeleteOlderThan(1h) deleted a fresh mark")
		}
		time.Sleep(20 * time.Millisecond)
		n, err := store.DeleteOlderThan(ctx, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if n < 1 {
			t.Fatalf("DeleteOlderThan(1ms) deleted %d rows, want >= 1", n)
		}
		if ok, _ := store.IsProcessed(ctx, "cleanup", "evt-1"); ok {
			t.Fatal("mark still there after DeleteOlderThan")
		}
	})
}
