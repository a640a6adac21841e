package itest

import (
	"context"
	"database/sql"
	"github.com/outboxctl/outboxctl/outbox"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/spec"
)

// CreateOutboxTable creates o's outbox table in db with the statements
// outboxddl.Table renders (the table `outboxctl provision` creates),
// failing the test on error. The schema (PostgreSQL) or database (MySQL,
// MariaDB) must exist; the table goes away with it.
func CreateOutboxTable(t testing.TB, db *sql.DB, o *spec.Outbox) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, q := range outboxddl.Table(o) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("create outbox table: %s: %v", q, err)
		}
	}
}

// UUID returns a fresh event id, as the outbox writer makes them
// (outbox.NewUUIDv7).
func UUID(t testing.TB) string {
	t.Helper()
	id, err := outbox.NewUUIDv7()
	if err != nil {
		t.Fatal(err)
	}
	return id
}
