package itest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// CreateOutboxTable creates o's outbox table in db with the statements
// provisioning.TableDDL renders (the table `outboxctl provision` creates),
// failing the test on error. The schema (PostgreSQL) or database (MySQL,
// MariaDB) must exist; the table goes away with it.
func CreateOutboxTable(t testing.TB, db *sql.DB, o *spec.Outbox) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, q := range provisioning.TableDDL(o) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("create outbox table: %s: %v", q, err)
		}
	}
}
