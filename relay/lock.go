package relay

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
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
	// noFence: the holder is the cutover to CDC itself, which sets the
	// fence and drains under it. fenceAt is when the fence was last read.
	noFence bool
	fenceAt time.Time
}

// FenceMarker in the outbox table's comment says the outbox is published
// by CDC: set by Fence (cutover.ToCDC), removed by LiftFence
// (cutover.ToRelay). A relay does not take the lock while it is there, and
// a relay holding the lock gives it up within freshFor of its appearance,
// so no relay publishes beside the connector after a cutover, whether or
// not it was stopped.
const FenceMarker = "[outboxctl: published by cdc, relays fenced]"

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
	if fenced, err := l.fenced(ctx); err != nil || fenced {
		l.release()
		if err != nil {
			return false, err
		}
		return false, fmt.Errorf("%w: %s", ErrFenced, l.t.qualified())
	}
	return true, nil
}

// comment reads the outbox table's comment on q.
func (t *table) comment(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (string, error) {
	var c string
	var err error
	if t.pg() {
		err = q.QueryRowContext(ctx, "SELECT coalesce(obj_description(to_regclass($1), 'pg_class'), '')", t.from()).Scan(&c)
	} else {
		err = q.QueryRowContext(ctx, "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", t.schema, t.name).Scan(&c)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil // no table: no fence (New refuses a missing table)
		}
	}
	if err != nil {
		return "", fmt.Errorf("%w: read the comment of %s: %v", ErrDatabase, t.qualified(), err)
	}
	return c, nil
}

// errNotOwner: the lock's session answers but does not hold the lock.
var errNotOwner = errors.New("the relay's database session does not hold its advisory lock although it took it: a connection pooler in transaction mode (PgBouncer pool_mode=transaction, ProxySQL multiplexing) runs the relay's statements on other server sessions, and session locks do not work through it; connect the relay to the database directly, or through session pooling")

// fenced reads the fence on the lock's session, and checks that the
// session holds the lock (errNotOwner otherwise: behind a transaction
// pooler the statements run on other server sessions, or the lock was
// released under the relay).
func (l *lock) fenced(ctx context.Context) (bool, error) {
	var own bool
	var err error
	if l.t.pg() {
		k := uint64(pgKey(l.name))
		err = l.conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND classid = $1 AND objid = $2 AND objsubid = 1)`,
			int64(uint32(k>>32)), int64(uint32(k))).Scan(&own)
	} else {
		err = l.conn.QueryRowContext(ctx, "SELECT coalesce(IS_USED_LOCK(?) = CONNECTION_ID(), 0)", mysqlName(l.name)).Scan(&own)
	}
	if err != nil {
		return false, fmt.Errorf("%w: check lock %s: %v", ErrDatabase, l.name, err)
	}
	if !own {
		return false, fmt.Errorf("%w: %s: %w", ErrDatabase, l.t.qualified(), errNotOwner)
	}
	l.fenceAt = time.Now()
	if l.noFence {
		return false, nil
	}
	c, err := l.t.comment(ctx, l.conn)
	if err != nil {
		return false, err
	}
	return strings.Contains(c, FenceMarker), nil
}

// setFence adds (on) or removes the fence marker in the table's comment,
// keeping the rest of the comment. PostgreSQL needs the table's owner
// (COMMENT ON TABLE); MySQL and MariaDB ALTER privilege (ALTER TABLE …
// COMMENT, metadata only).
func (t *table) setFence(ctx context.Context, db *sql.DB, on bool) error {
	c, err := t.comment(ctx, db)
	if err != nil {
		return err
	}
	c = strings.TrimSpace(strings.ReplaceAll(c, FenceMarker, ""))
	if on {
		c = strings.TrimSpace(c + " " + FenceMarker)
	}
	var q string
	if t.pg() {
		lit := "NULL"
		if c != "" {
			lit = "'" + strings.ReplaceAll(c, "'", "''") + "'" // standard_conforming_strings
		}
		q = "COMMENT ON TABLE " + t.from() + " IS " + lit
	} else {
		q = "ALTER TABLE " + t.from() + " COMMENT = '" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(c) + "'"
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%w: mark %s in the comment of %s: %v", ErrDatabase, FenceMarker, t.qualified(), err)
	}
	return nil
}

// held checks that the lock's session is still alive (the lock is the
// session's); a dead session means the lock is lost. At most every
// freshFor it reads the fence (which pings the session too): a fenced
// holder gives the lock up (ErrFenced).
func (l *lock) held(ctx context.Context) (bool, error) {
	if l.conn == nil {
		return false, nil
	}
	if time.Since(l.fenceAt) >= freshFor {
		fenced, err := l.fenced(ctx)
		if errors.Is(err, errNotOwner) {
			_ = l.conn.Raw(func(any) error { return driver.ErrBadConn }) // never back to the pool
			l.conn.Close()
			l.conn = nil
			return false, err
		}
		if err != nil {
			l.conn.Close()
			l.conn = nil
			return false, nil
		}
		if fenced {
			l.release()
			return false, fmt.Errorf("%w: %s", ErrFenced, l.t.qualified())
		}
		return true, nil
	}
	if !l.okAt.IsZero() && time.Since(l.okAt) < freshFor {
		return true, nil
	}
	if err := l.conn.PingContext(ctx); err != nil {
		l.conn.Close()
		l.conn = nil
		return false, nil
	}
	return true, nil
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
