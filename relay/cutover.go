package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
)

// ErrCutover: a cutover step did not complete (the connector failed, or
// the context ended while waiting for a step).
var ErrCutover = errors.New("cutover step not completed")

// CutoverToCDC checks, one by one, the steps that move the outbox from the
// relay to the Debezium connector (deployed by the operator, with the same
// connector config, while the relay still runs), waiting for each:
//
//  1. the connector and its task are RUNNING;
//  2. the connector streams: Kafka Connect holds offsets for it (Debezium
//     commits them once it reads the log; with heartbeats on, a quiet
//     outbox too);
//  3. every relay is stopped: the cutover takes the outbox's advisory lock
//     (and keeps it until Close, so that no standby starts publishing again);
//  4. the rows still in the table are published once more (Drain). Rows of
//     the overlap window are then published twice with the same event id,
//     by the relay or this drain and by the connector; the consumers' inbox
//     absorbs them. No row is left unpublished.
//
// step receives a line per completed step. The cutover waits as long as ctx
// lets it; an error unwraps to ErrCutover (or to the drain's error).
func (r *Relay) CutoverToCDC(ctx context.Context, cc *connect.Client, connector string, step func(string)) error {
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
			case <-time.After(r.opts.PollInterval):
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
	if err := poll("every relay of "+r.t.qualified()+" is stopped (its lock is free; held by the cutover now)", func() (bool, error) {
		ok, err := r.lock.tryAcquire(ctx, r.db)
		if err != nil {
			r.logf("relay: %v", err)
		}
		return ok, nil
	}); err != nil {
		return err
	}
	before := r.Stats().Published
	if err := r.Drain(ctx); err != nil {
		return err
	}
	step(fmt.Sprintf("rows left in %s published once more: %d (the connector may have published them too; same event ids)", r.t.qualified(), r.Stats().Published-before))
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

// CutoverToRelay checks, one by one, the steps that move the outbox from
// the Debezium connector to the relay, waiting for each:
//
//  1. the connector is stopped (STOPPED or PAUSED, or deleted), so that
//     the two do not publish at once;
//  2. the rows in the table are counted: the relay publishes each of them,
//     so rows the connector already published are published again with the
//     same event id (the inbox absorbs them), and none is lost.
//
// The writer must not delete its rows after inserting them (delete-after-
// insert keeps the table empty under CDC, and the relay would never see
// them): the project's writer never does; a custom writer must turn it off
// before the connector stops. Start the relay after this returns.
func (r *Relay) CutoverToRelay(ctx context.Context, cc *connect.Client, connector string, step func(string)) error {
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
		case <-time.After(r.opts.PollInterval):
		}
	}
	var n int64
	if err := r.db.QueryRowContext(ctx, "SELECT count(*) FROM "+r.t.from()).Scan(&n); err != nil {
		return fmt.Errorf("%w: count rows: %v", ErrDatabase, err)
	}
	step(fmt.Sprintf("%d rows in %s: the relay publishes them (again, for those the connector published: same event ids); start it now", n, r.t.qualified()))
	return nil
}
