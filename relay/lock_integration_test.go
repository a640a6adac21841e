//go:build integration

package relay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// An unlock that fails (here: the session does not hold the lock it is
// asked to release, so the lock it does hold stays) must not return the
// session to the pool: the pooled session would keep the lock, and every
// standby out, for as long as the pool keeps it.
func TestLockReleaseFailureDiscardsSession(t *testing.T) {
	s := itest.Require(t, itest.Postgres, itest.MariaDB)
	sfx := strings.ToLower(itest.Suffix())
	for _, kind := range []eventrouter.ConnectorKind{eventrouter.Postgres, eventrouter.MariaDB} {
		t.Run(string(kind), func(t *testing.T) {
			db := itest.PostgresDatabase(t, s.PostgresDSN, "relay_lock_"+sfx)
			if kind == eventrouter.MariaDB {
				db = itest.MariaDBDatabase(t, s.MariaDBDSN, "relay_lock_"+sfx)
			}
			db.SetMaxIdleConns(4)
			tb := &table{kind: kind, schema: "s", name: "outbox_" + sfx}
			held := lock{t: tb, name: lockName(tb, Filter{})}
			ctx := context.Background()
			if ok, err := held.tryAcquire(ctx, db); !ok || err != nil {
				t.Fatalf("take the lock: %v %v", ok, err)
			}
			// The unlock names another lock: the server reports it was not
			// held, and the session keeps the real one.
			held.name += ":other"
			held.release()
			// Keep the pool's idle session (the lock holder, if it went
			// back to the pool) busy, so that the next lock attempt runs
			// in another session, as a standby's would.
			idle, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer idle.Close()
			other := lock{t: tb, name: lockName(tb, Filter{})}
			ok, err := other.tryAcquire(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatal("after a failed unlock the lock is still held: the session that holds it went back to the pool")
			}
			other.release()
		})
	}
}

// A session that answers but no longer holds the lock (what the relay sees
// behind a transaction pooler such as PgBouncer in pool_mode=transaction,
// where its statements run on other server sessions; simulated here by
// releasing the lock under it) is not taken for the leader: held reports
// the lock lost, with an error naming the pooler.
func TestLockNotOwnedIsDetected(t *testing.T) {
	s := itest.Require(t, itest.Postgres, itest.MariaDB)
	sfx := strings.ToLower(itest.Suffix())
	for _, kind := range []eventrouter.ConnectorKind{eventrouter.Postgres, eventrouter.MariaDB} {
		t.Run(string(kind), func(t *testing.T) {
			db := itest.PostgresDatabase(t, s.PostgresDSN, "relay_own_"+sfx)
			unlockAll := "SELECT pg_advisory_unlock_all()"
			if kind == eventrouter.MariaDB {
				db = itest.MariaDBDatabase(t, s.MariaDBDSN, "relay_own_"+sfx)
				unlockAll = "SELECT RELEASE_ALL_LOCKS()"
			}
			tb := &table{kind: kind, schema: "s", name: "outbox_" + sfx}
			l := lock{t: tb, name: lockName(tb, Filter{})}
			ctx := context.Background()
			if ok, err := l.tryAcquire(ctx, db); !ok || err != nil {
				t.Fatalf("take the lock: %v %v", ok, err)
			}
			if ok, err := l.held(ctx); !ok || err != nil {
				t.Fatalf("held right after taking it: %v %v", ok, err)
			}
			if _, err := l.conn.ExecContext(ctx, unlockAll); err != nil {
				t.Fatal(err)
			}
			l.fenceAt, l.okAt = time.Time{}, time.Time{} // the next check is due
			ok, err := l.held(ctx)
			if ok || !errors.Is(err, errNotOwner) || !strings.Contains(err.Error(), "PgBouncer") {
				t.Fatalf("held after the lock was released under the session: %v, %v; want false and the pooler error", ok, err)
			}
		})
	}
}
