package relay

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"hash/fnv"
	"time"
)

// lock is the outbox's leader lock: a session-level advisory lock
// (pg_try_advisory_lock / GET_LOCK) held on a dedicated connection. The lock
// lives as long as the session: a relay that dies (kill -9, network loss)
// releases it with its connection, and a standby takes it.
type lock struct {
	t    *table
	name string
	conn *sql.Conn
	// okAt is when a statement on conn last succeeded (zero after a
	// failure): the session, and with it the lock, was alive then.
	okAt time.Time
}

// freshFor is how long a successful statement on the lock's connection
// stands for a ping: a batch that follows at once needs no extra round
// trip to know the session (and so the lock) is still there. A session
// that died since fails the batch's own statements, which resets okAt.
const freshFor = time.Second

// lockName is the lock's name: one per outbox table (and, for PostgreSQL,
// per database, since advisory locks are per database); a filtered relay
// (Options.Filter) has one per table, column and value.
func lockName(t *table, f Filter) string {
	n := "outboxctl-relay:" + string(t.kind) + ":" + t.qualified()
	if f.Column != "" {
		n += ":" + f.Column + "=" + f.Value
	}
	return n
}

// pgKey is the bigint key of a PostgreSQL advisory lock for name.
func pgKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// mysqlName is a GET_LOCK name (at most 64 characters, server-wide).
func mysqlName(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return fmt.Sprintf("outboxctl-relay-%016x", h.Sum64())
}

// tryAcquire takes the lock if it is free. It returns false when another
// session holds it.
func (l *lock) tryAcquire(ctx context.Context, db *sql.DB) (bool, error) {
	if l.conn != nil {
		return true, nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("%w: lock connection: %v", ErrDatabase, err)
	}
	var ok sql.NullBool
	if l.t.pg() {
		err = conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", pgKey(l.name)).Scan(&ok)
	} else {
		var n sql.NullInt64
		err = conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", mysqlName(l.name)).Scan(&n)
		ok = sql.NullBool{Bool: n.Valid && n.Int64 == 1, Valid: true}
	}
	if err != nil {
		conn.Close()
		return false, fmt.Errorf("%w: take lock %s: %v", ErrDatabase, l.name, err)
	}
	if !ok.Bool {
		conn.Close()
		return false, nil
	}
	l.conn = conn
	return true, nil
}

// held checks that the lock's session is still alive (the lock is the
// session's); a dead session means the lock is lost.
func (l *lock) held(ctx context.Context) bool {
	if l.conn == nil {
		return false
	}
	if !l.okAt.IsZero() && time.Since(l.okAt) < freshFor {
		return true
	}
	if err := l.conn.PingContext(ctx); err != nil {
		l.conn.Close()
		l.conn = nil
		return false
	}
	return true
}

// release gives the lock back. When the unlock fails (an error, or the
// server says the session did not hold it) the connection is discarded,
// not returned to the pool: a pooled session still holding the lock would
// keep every standby out for as long as the pool keeps it.
func (l *lock) release() {
	if l.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ok sql.NullBool
	var err error
	if l.t.pg() {
		err = l.conn.QueryRowContext(ctx, "SELECT pg_advisory_unlock($1)", pgKey(l.name)).Scan(&ok)
	} else {
		var n sql.NullInt64
		err = l.conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", mysqlName(l.name)).Scan(&n)
		ok = sql.NullBool{Bool: n.Valid && n.Int64 == 1, Valid: true}
	}
	if err != nil || !ok.Bool {
		// driver.ErrBadConn from Raw makes database/sql close the session
		// (and with it every lock it holds) instead of pooling it.
		_ = l.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	l.conn.Close()
	l.conn = nil
}
