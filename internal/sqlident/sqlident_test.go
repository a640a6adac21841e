package sqlident_test

import (
	"testing"

	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/spec"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ kind, name, want string }{
		{spec.Postgres, "outbox", `"outbox"`},
		{spec.Postgres, `a"b`, `"a""b"`},
		{spec.MySQL, "outbox", "`outbox`"},
		{spec.MariaDB, "a`b", "`a``b`"},
	} {
		if got := sqlident.Quote(tc.kind, tc.name); got != tc.want {
			t.Errorf("Quote(%q, %q) = %s, want %s", tc.kind, tc.name, got, tc.want)
		}
	}
}
