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
