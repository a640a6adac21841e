//go:build integration

package inbox_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
)

func TestPostgresMarkProcessedBatch(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	db := itest.PostgresDatabase(t, s.PostgresDSN, "inbox_pgb_"+itest.Suffix())
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	markBatch(t, db, store)
}

func TestMariaDBMarkProcessedBatch(t *testing.T) {
	s := itest.Require(t, itest.MariaDB)
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, "inbox_mab_"+itest.Suffix())
	store, err := inbox.NewMySQL(db, "")
	if err != nil {
		t.Fatal(err)
	}
	markBatch(t, db, store)
}

// markBatch: a batch mark reports the ids committed before (and an id's
// second occurrence) as processed, commits with its transaction and rolls
// back with it.
func markBatch(t *testing.T, db *sql.DB, store *inbox.SQLStore) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	mark := func(ids []string, commit bool) []bool {
		t.Helper()
		tx, err := store.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		dups, err := store.MarkProcessedBatch(ctx, tx, "g", ids)
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		return dups
	}
	if got := mark([]string{"a", "b"}, true); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("first batch = %v, want all new", got)
	}
	if got := mark([]string{"c", "a", "d", "c"}, false); !slices.Equal(got, []bool{false, true, false, true}) {
		t.Errorf("second batch (rolled back) = %v, want a processed and c's repeat a duplicate", got)
	}
	if got := mark([]string{"c", "d"}, true); !slices.Equal(got, []bool{false, false}) {
		t.Errorf("after the rollback = %v, want c and d new", got)
	}
	// ids that mean something in an array literal (PostgreSQL passes the
	// batch as one text[]) stay plain text
	odd := []string{`NULL`, `a,b`, `{x}`, `q"uote`, `back\slash`, ` sp ace `, `"`, `\`, `ü€`}
	if got := mark(append(odd, `a,b`), true); !slices.Equal(got, append(make([]bool, len(odd)), true)) {
		t.Errorf("odd ids = %v, want all new but the repeat", got)
	}
	if got := mark(append([]string{"e"}, odd...), true); !slices.Equal(got, append([]bool{false}, slices.Repeat([]bool{true}, len(odd))...)) {
		t.Errorf("odd ids again = %v, want all processed but e", got)
	}
	for _, id := range append([]string{"a", "b", "c", "d", "e"}, odd...) {
		if ok, err := store.IsProcessed(ctx, "g", id); err != nil || !ok {
			t.Errorf("IsProcessed(%s) = %v, %v", id, ok, err)
		}
	}
	if ok, err := store.IsProcessed(ctx, "g", "a,b,"); err != nil || ok {
		t.Errorf("IsProcessed(a,b,) = %v, %v: want false", ok, err)
	}
	tx, err := store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := store.MarkProcessedBatch(ctx, tx, "g", []string{"ok", ""}); err == nil {
		t.Error("an empty id in a batch was accepted")
	}
}
