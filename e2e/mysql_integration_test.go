//go:build integration

package e2e

import (
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestMySQLAvailable reports whether a MySQL 8 server is part of the stack.
// No MySQL 8 server can be installed from the registries this project's
// machines reach (see README), so on the native stack this test is reported
// as not run (skipped with "MYSQL NOT RUN"); with docker-compose.yml, or
// OUTBOX_MYSQL_DSN pointing at a server, it checks that the server answers
// and that its binlog is usable by Debezium.
func TestMySQLAvailable(t *testing.T) {
	s := itest.Require(t, itest.MySQL)
	db := itest.MariaDBDatabase(t, s.MySQLDSN, "e2e_mysql_"+itest.Suffix())
	var name, value string
	if err := db.QueryRow(`SHOW VARIABLES LIKE 'binlog_format'`).Scan(&name, &value); err != nil {
		t.Fatal(err)
	}
	if value != "ROW" {
		t.Errorf("binlog_format = %s, want ROW", value)
	}
}
