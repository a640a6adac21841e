//go:build integration

package provisioning

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestCreateRoleIfMissingRealPostgres runs the owner group's DO block on
// the real PostgreSQL for names with "$$", a would-be tag and quotes:
// each creates the role (twice: the second run is a no-op).
func TestCreateRoleIfMissingRealPostgres(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	sfx := itest.Suffix()
	db, err := sql.Open("pgx", s.PostgresDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, name := range []string{"inj$$" + sfx + "_owner", "a$outboxctl$" + sfx, `q'"$` + sfx} {
		t.Cleanup(func() { _, _ = db.ExecContext(ctx, `DROP ROLE IF EXISTS `+quoteIdentForTest(name)) })
		for i := 0; i < 2; i++ {
			if _, err := db.ExecContext(ctx, createRoleIfMissing(name)); err != nil {
				t.Fatalf("%q (run %d): %v\n%s", name, i+1, err, createRoleIfMissing(name))
			}
		}
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", name).Scan(&n); err != nil || n != 1 {
			t.Errorf("%q: %d roles (%v), want 1", name, n, err)
		}
	}
}

func quoteIdentForTest(s string) string {
	out := `"`
	for _, r := range s {
		if r == '"' {
			out += `"`
		}
		out += string(r)
	}
	return out + `"`
}
