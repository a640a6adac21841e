// Package sqlident quotes SQL identifiers for the databases an outbox
// lives in. It is the one place that knows the quoting rules, used by the
// writer (outbox), provisioning, the relay, cleanup and verify.
package sqlident

import (
	"strings"

	"github.com/outboxctl/outboxctl/spec"
)

// Quote quotes name for the database kind (spec.Postgres, spec.MySQL,
// spec.MariaDB): "name" for PostgreSQL, `name` for MySQL and MariaDB, with
// the quote character inside name doubled.
func Quote(kind, name string) string {
	if kind == spec.Postgres {
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
