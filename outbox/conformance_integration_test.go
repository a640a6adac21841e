//go:build integration

package outbox_test

import (
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox/outboxtest"
	"github.com/outboxctl/outboxctl/spec"
)

func TestConformancePostgres(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	db := itest.PostgresDatabase(t, s.PostgresDSN, "outboxtest_"+itest.Suffix())
	outboxtest.Run(t, db, spec.Postgres)
}

// TestConformancePostgresPgx runs the same suite with the writer's
// statements sent through pgx (pgxpool, pgx.Tx) via outbox.Pgx.
func TestConformancePostgresPgx(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	name := "outboxtest_pgx_" + itest.Suffix()
	db := itest.PostgresDatabase(t, s.PostgresDSN, name)
	outboxtest.RunWith(t, db, spec.Postgres, outboxtest.PgxConn(itest.PostgresPool(t, s.PostgresDSN, name)))
}

func TestConformanceMariaDB(t *testing.T) {
	s := itest.Require(t, itest.MariaDB)
	db := itest.MariaDBDatabase(t, s.MariaDBDSN, "outboxtest_"+itest.Suffix())
	outboxtest.Run(t, db, spec.MariaDB)
}

func TestConformanceMySQL(t *testing.T) {
	s := itest.Require(t, itest.MySQL)
	db := itest.MariaDBDatabase(t, s.MySQLDSN, "outboxtest_"+itest.Suffix())
	outboxtest.Run(t, db, spec.MySQL)
}
