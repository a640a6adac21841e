package relay

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// The methods below are the relay's part of a cutover between the relay
// and the Debezium connector (package relay/cutover, which also talks to
// Kafka Connect, so that relay need not import its client).

// Fence marks the outbox table as published by CDC (FenceMarker in its
// comment): from now on no relay takes the outbox's lock, and the one
// holding it gives it up within a second. This relay alone ignores the
// fence, so that it can take the lock and drain under it. The fence stays
// until LiftFence.
func (r *Relay) Fence(ctx context.Context) error {
	r.lock.noFence = true
	return r.t.setFence(ctx, r.db, true)
}

// LiftFence removes FenceMarker from the outbox table's comment (if it is
// there): relays may lead again.
func (r *Relay) LiftFence(ctx context.Context) error {
	return r.t.setFence(ctx, r.db, false)
}

// TryLock takes the outbox's lock if it is free (and keeps it until
// Close); false when another relay holds it. An error unwraps to
// ErrDatabase or ErrFenced.
func (r *Relay) TryLock(ctx context.Context) (bool, error) {
	return r.lock.tryAcquire(ctx, r.db)
}

// CountRows counts the rows in the outbox table.
func (r *Relay) CountRows(ctx context.Context) (int64, error) {
	var n int64
	if err := r.db.QueryRowContext(ctx, "SELECT count(*) FROM "+r.t.from()).Scan(&n); err != nil {
		return 0, fmt.Errorf("%w: count rows: %v", ErrDatabase, err)
	}
	return n, nil
}

// InsertCount is the table's insert counter on PostgreSQL
// (pg_stat_user_tables.n_tup_ins); false on MySQL and MariaDB, which keep
// none, or when it cannot be read.
func (r *Relay) InsertCount(ctx context.Context) (int64, bool) {
	if !r.t.pg() {
		return 0, false
	}
	var n sql.NullInt64
	err := r.db.QueryRowContext(ctx, "SELECT n_tup_ins FROM pg_stat_user_tables WHERE relid = to_regclass($1)", r.t.from()).Scan(&n)
	return n.Int64, err == nil && n.Valid
}

// Kind is the outbox database's connector kind (the connector config's
// class).
func (r *Relay) Kind() eventrouter.ConnectorKind { return r.t.kind }

// PollInterval is Options.PollInterval (with its default).
func (r *Relay) PollInterval() time.Duration { return r.opts.PollInterval }

// Logf logs a line through Options.Logf and Options.Logger.
func (r *Relay) Logf(format string, args ...any) { r.logf(format, args...) }
