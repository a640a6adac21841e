// Package cutover moves an outbox between the polling relay (package
// relay) and the Debezium connector, step by step: ToCDC and ToRelay. It is
// the one part of the relay that talks to Kafka Connect, so that package
// relay does not import the Connect client (outboxctl relay cutover).
package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/relay"
)

var (
	// ErrCutover: a cutover step did not complete (the connector failed,
	// or the context ended while waiting for a step).
	ErrCutover = errors.New("cutover step not completed")
	// ErrDeleteAfterInsert: the cutover to the relay saw rows inserted
	// into the outbox table that never stayed there: the writer deletes
	// each row in its inserting transaction, so the relay would never see
	// them.
	ErrDeleteAfterInsert = errors.New("the writer deletes outbox rows in their inserting transaction")
)

// ToCDC checks, one by one, the steps that move the outbox from the
// relay to the Debezium connector (deployed by the operator, with the same
// connector config, while the relay still runs), waiting for each:
//
//  1. the connector and its task are RUNNING;
//  2. the connector streams: Kafka Connect holds offsets for it (Debezium
//     commits them once it reads the log; with heartbeats on, a quiet
//     outbox too);
//  3. the relays are fenced: a marker in the outbox table's comment
//     (relay.FenceMarker) that every relay reads before it takes the lock,
//     and the active relay at least once a second: a fenced relay stays (or
//     becomes) a standby and never publishes, until ToRelay removes
//     the marker. The fence outlives the cutover, so a standby that nobody
//     stopped cannot take over once it exits;
//  4. no relay publishes any more: the cutover takes the outbox's advisory
//     lock (and keeps it until r.Close);
//  5. the rows still in the table are published once more (Drain). Rows of
//     the overlap window are then published twice with the same event id,
//     by the relay or this drain and by the connector; the consumers' inbox
//     absorbs them. No row is left unpublished.
//
// step receives a line per completed step. The cutover waits as long as ctx
// lets it; an error unwraps to ErrCutover (or to the drain's error).
func ToCDC(ctx context.Context, r *relay.Relay, cc *connect.Client, connector string, step func(string)) error {
	poll := func(what string, check func() (bool, error)) error {
		for {
			ok, err := check()
			if err != nil {
				return fmt.Errorf("%w: %s: %v", ErrCutover, what, err)
			}
			if ok {
				step(what)
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w: %s: %v", ErrCutover, what, ctx.Err())
			case <-time.After(r.PollInterval()):
			}
		}
	}
	if err := poll("connector "+connector+" is RUNNING", func() (bool, error) {
		st, err := cc.Status(ctx, connector)
		if err != nil {
			if errors.Is(err, connect.ErrNotFound) {
				return false, nil // not deployed yet
			}
			return false, err
		}
		for _, tk := range st.Tasks {
			if tk.State == connect.StateFailed {
				return false, fmt.Errorf("task %d FAILED: %s", tk.ID, firstLine(tk.Trace))
			}
		}
		return st.Connector.State == connect.StateRunning && len(st.Tasks) > 0 && allRunning(st), nil
	}); err != nil {
		return err
	}
	if err := poll("connector "+connector+" streams (offsets committed)", func() (bool, error) {
		o, err := cc.Offsets(ctx, connector)
		if err != nil {
			return false, err
		}
		return len(o.Offsets) > 0, nil
	}); err != nil {
		return err
	}
	// The fence: from now on no relay takes the lock, and the one holding
	// it gives it up within a second, whether or not it was stopped; it
	// stays after this returns, until ToRelay lifts it.
	if err := r.Fence(ctx); err != nil {
		return fmt.Errorf("%w: fence the relays of %s: %v", ErrCutover, r.Table(), err)
	}
	step("relays of " + r.Table() + " fenced (table comment " + relay.FenceMarker + "): none publishes again until relay cutover --to relay")
	if err := poll("every relay of "+r.Table()+" has stopped publishing (its lock is free; held by the cutover now)", func() (bool, error) {
		ok, err := r.TryLock(ctx)
		if err != nil {
			r.Logf("relay: %v", err)
		}
		return ok, nil
	}); err != nil {
		return err
	}
	before := r.Stats().Published
	if err := r.Drain(ctx); err != nil {
		return err
	}
	step(fmt.Sprintf("rows left in %s published once more: %d (the connector may have published them too; same event ids)", r.Table(), r.Stats().Published-before))
	return nil
}

func allRunning(st connect.Status) bool {
	for _, tk := range st.Tasks {
		if tk.State != connect.StateRunning {
			return false
		}
	}
	return true
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// DefaultObserve is the default observation window of ToRelay's
// delete-after-insert check.
const DefaultObserve = 5 * time.Second

// ToRelayOptions tune ToRelay.
type ToRelayOptions struct {
	// Observe is how long the table is watched for the writer's
	// delete-after-insert before the connector stops (default
	// DefaultObserve; negative: no live check).
	Observe time.Duration
}

// ToRelay checks, one by one, the steps that move the outbox from
// the Debezium connector to the relay, waiting for each:
//
//  1. the writer does not delete its rows after inserting them: the table
//     is watched for opts.Observe while the writer writes (and the connector
//     still runs). Under CDC delete-after-insert keeps the table from
//     growing, and once the connector stops those rows would be deleted
//     unseen. A table that grows passes. On PostgreSQL the table's insert
//     counter (pg_stat_user_tables.n_tup_ins) tells a quiet outbox from one
//     whose inserted rows vanish: the latter fails with
//     ErrDeleteAfterInsert, before anything else. On MySQL and MariaDB,
//     which keep no such counter, a table that does not grow is only
//     reported (a warning step);
//  2. the connector is stopped (STOPPED or PAUSED, or deleted), so that
//     the two do not publish at once;
//  3. the fence of ToCDC is removed from the table's comment, so
//     that relays may lead again;
//  4. the rows in the table are counted: the relay publishes each of them,
//     so rows the connector already published are published again with the
//     same event id (the inbox absorbs them), and none is lost.
//
// Start the relay after this returns. The spec's writer.deleteAfterInsert
// is the caller's to check (outboxctl relay cutover refuses it).
func ToRelay(ctx context.Context, r *relay.Relay, cc *connect.Client, connector string, opts ToRelayOptions, step func(string)) error {
	if opts.Observe == 0 {
		opts.Observe = DefaultObserve
	}
	if opts.Observe > 0 {
		msg, err := checkNoDeleteAfterInsert(ctx, r, opts.Observe)
		if err != nil {
			return err
		}
		step(msg)
	}
	for {
		st, err := cc.Status(ctx, connector)
		if errors.Is(err, connect.ErrNotFound) {
			step("connector " + connector + " is not deployed")
			break
		}
		if err != nil {
			return fmt.Errorf("%w: connector %s: %v", ErrCutover, connector, err)
		}
		if s := st.Connector.State; s == connect.StateStopped || s == connect.StatePaused {
			step("connector " + connector + " is " + s)
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: waiting for connector %s to stop (state %s): %v", ErrCutover, connector, st.Connector.State, ctx.Err())
		case <-time.After(r.PollInterval()):
		}
	}
	if err := r.LiftFence(ctx); err != nil {
		return fmt.Errorf("%w: lift the fence of %s: %v", ErrCutover, r.Table(), err)
	}
	step("the fence of relay cutover --to cdc is lifted from " + r.Table() + " (if it was there): relays may publish")
	n, err := r.CountRows(ctx)
	if err != nil {
		return err
	}
	step(fmt.Sprintf("%d rows in %s: the relay publishes them (again, for those the connector published: same event ids); start it now", n, r.Table()))
	return nil
}

// checkNoDeleteAfterInsert watches the table for window: more rows than at
// its start mean the writer keeps them. A table that never grew while its
// insert counter (PostgreSQL) did means the inserted rows were deleted at
// once.
func checkNoDeleteAfterInsert(ctx context.Context, r *relay.Relay, window time.Duration) (string, error) {
	before, counted := r.InsertCount(ctx)
	tick := window / 50
	if tick < 20*time.Millisecond {
		tick = 20 * time.Millisecond
	}
	start, err := r.CountRows(ctx)
	if err != nil {
		return "", err
	}
	var maxRows int64
	for end := time.Now().Add(window); time.Now().Before(end); {
		n, err := r.CountRows(ctx)
		if err != nil {
			return "", err
		}
		maxRows = max(maxRows, n-start)
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%w: delete-after-insert check: %v", ErrCutover, ctx.Err())
		case <-time.After(tick):
		}
	}
	if maxRows > 0 {
		return fmt.Sprintf("rows stay in %s (up to %d new ones seen in %s): the writer does not delete after insert", r.Table(), maxRows, window), nil
	}
	if !counted {
		return fmt.Sprintf("WARNING: %s did not grow in %s: no rows written, or the writer deletes them after insert (not told apart on %s); make sure delete-after-insert is off before the connector stops", r.Table(), window, r.Kind()), nil
	}
	// PostgreSQL reports a transaction's counts at most once a second
	// after it ends: give the counter that long to catch up.
	time.Sleep(1500 * time.Millisecond)
	after, _ := r.InsertCount(ctx)
	if d := after - before; d > 0 {
		return "", fmt.Errorf("%w: %d rows were inserted into %s in %s and the table never grew: turn delete-after-insert off in the writer, then cut over (the relay would never see those rows)", ErrDeleteAfterInsert, d, r.Table(), window)
	}
	return fmt.Sprintf("WARNING: no rows written to %s in %s: delete-after-insert not checked live; make sure it is off before the connector stops", r.Table(), window), nil
}
