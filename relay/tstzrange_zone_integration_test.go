//go:build integration

package relay_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
)

// A tstzrange column under Options.WorkerTimeZone: the relay reads the
// column's text in its own session's zone (here America/St_Johns, set on
// the database, so that old bounds carry local mean time's seconds) and
// publishes the bounds as PostgreSQL prints them under SET TIME ZONE to
// the worker's zone, what the connector delivers from a worker JVM in
// that zone. The oracle is the same server's text under that zone (the
// stack's Connect workers run in UTC).
func TestRelayTstzrangeWorkerTimeZone(t *testing.T) {
	for _, zone := range []string{"Europe/Paris", "Asia/Kolkata", "Africa/Monrovia", "Australia/Lord_Howe"} {
		t.Run(zone, func(t *testing.T) {
			f := newFixture(t, sides[0], map[string]string{
				"transforms.outbox.table.fields.additional.placement": "type:header:eventType,r:header:r",
			})
			for _, q := range []string{
				"ALTER TABLE outbox ADD COLUMN r tstzrange",
				"ALTER DATABASE " + f.dbName + " SET timezone = 'America/St_Johns'",
			} {
				if _, err := f.db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			// sessions opened from now on read in St. John's
			f.db.SetMaxIdleConns(0)
			f.db.SetMaxIdleConns(2)
			var session string
			if err := f.db.QueryRow("SHOW timezone").Scan(&session); err != nil || session != "America/St_Johns" {
				t.Fatalf("the relay's session zone: %q, %v", session, err)
			}
			ranges := []string{
				"[1850-01-01 00:00:00+00,1912-06-30 12:00:00.25+00]",
				"(2024-03-31 00:59:59.5+00,2024-10-27 01:00:00+00)",
				"[2024-04-06 15:45:00+00,)",
			}
			var want []string
			ctx := context.Background()
			conn, err := f.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET TIME ZONE '"+zone+"'"); err != nil {
				t.Fatal(err)
			}
			for _, rg := range ranges {
				id := itest.UUID(t)
				f.insert(f.db, id, "Order", "1", `{}`)
				if _, err := f.db.Exec("UPDATE outbox SET r = $1 WHERE id = $2", rg, id); err != nil {
					t.Fatal(err)
				}
				var text string
				if err := conn.QueryRowContext(ctx, "SELECT r::text FROM outbox WHERE id = $1", id).Scan(&text); err != nil {
					t.Fatal(err)
				}
				want = append(want, text)
			}
			r := f.relay(relay.Options{WorkerTimeZone: zone})
			if err := r.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			for i, m := range f.read(len(ranges)) {
				if got := header(m, "r"); got != want[i] {
					t.Errorf("%s: header r %q; PostgreSQL under SET TIME ZONE '%s' prints %q", ranges[i], got, zone, want[i])
				} else {
					t.Logf("%s: %s", ranges[i], got)
				}
			}
		})
	}
}
