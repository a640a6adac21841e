package consumer

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/outboxctl/outboxctl/internal/logattr"
)

// Observer is told what happens to the records a Router processes: the hook
// that metrics build on (consumer/consumerprom implements it for
// Prometheus), with no metrics dependency in this package. Set it in
// RouterConfig.Observer.
//
// ObserveRecord is called from the partitions' lanes concurrently: it must
// be safe for concurrent use and quick. m is valid only during the call.
type Observer interface {
	ObserveRecord(ctx context.Context, m *Message, o Observation)
}

// Observation is one thing that happened to a record.
type Observation struct {
	Kind ObservationKind
	// Err is the error of ObservedHandlerCall, ObservedRetried and
	// ObservedFailed (nil otherwise, and nil for a handler call that
	// succeeded).
	Err error
	// Elapsed is the handler call's duration (ObservedHandlerCall only).
	Elapsed time.Duration
	// Step is the inbox step that ObservedInboxTimeout interrupted:
	// "begin", "mark", "handler" or "commit" (empty otherwise).
	Step string
}

// ObservationKind says what an Observation is about.
type ObservationKind uint8

const (
	// ObservedHandlerCall: the handler returned (once per attempt; not
	// for duplicates and unknown records, whose handler does not run).
	ObservedHandlerCall ObservationKind = iota + 1
	// ObservedHandled: the handler succeeded and its inbox transaction
	// committed (Stats.Handled). In a batch, once the batch committed.
	ObservedHandled
	// ObservedDuplicate: the inbox skipped the record (Stats.Duplicates).
	ObservedDuplicate
	// ObservedUnknownSkipped: no handler, skipped under UnknownSkip
	// (Stats.UnknownSkipped).
	ObservedUnknownSkipped
	// ObservedDeadLettered: the DLQ middleware wrote the record to the
	// dead-letter topic (Stats.DeadLettered).
	ObservedDeadLettered
	// ObservedRetried: the Retry middleware runs the handler again after
	// Err.
	ObservedRetried
	// ObservedFailed: Process returned Err, so the record is not done (it
	// is delivered again, or the Consumer stops at it).
	ObservedFailed
	// ObservedInboxTimeout: the record's inbox transaction did not end
	// within RouterConfig.InboxTimeout (a database that does not answer);
	// Step says where it was. It was rolled back and the record fails
	// with a transient error wrapping ErrInboxTimeout (ObservedFailed
	// follows): the partition is paused and the record run again.
	ObservedInboxTimeout
)

func (k ObservationKind) String() string {
	switch k {
	case ObservedHandlerCall:
		return "handler_call"
	case ObservedHandled:
		return "handled"
	case ObservedDuplicate:
		return "duplicate"
	case ObservedUnknownSkipped:
		return "unknown_skipped"
	case ObservedDeadLettered:
		return "dead_lettered"
	case ObservedRetried:
		return "retried"
	case ObservedFailed:
		return "failed"
	case ObservedInboxTimeout:
		return "inbox_timeout"
	}
	return "unknown"
}

// observe tells the Router's Observer, if any.
func (r *Router) observe(ctx context.Context, m *Message, o Observation) {
	if r != nil && r.cfg.Observer != nil {
		r.cfg.Observer.ObserveRecord(ctx, m, o)
	}
}

// handled counts a record whose handler succeeded.
func (r *Router) handled(ctx context.Context, m *Message) {
	r.stats.handled.Add(1)
	r.observe(ctx, m, Observation{Kind: ObservedHandled})
}

// callHandler runs the bound handler call, timed for the Observer.
func (r *Router) callHandler(ctx context.Context, m *Message, call boundCall, tx *sql.Tx) error {
	if r.cfg.Observer == nil {
		return call.call(ctx, tx)
	}
	start := time.Now()
	err := call.call(ctx, tx)
	r.cfg.Observer.ObserveRecord(ctx, m, Observation{Kind: ObservedHandlerCall, Err: err, Elapsed: time.Since(start)})
	return err
}

// recordAttrs are the log attributes of m (internal/logattr keys).
func recordAttrs(m *Message) []any {
	return []any{
		slog.String(logattr.Topic, m.Topic), slog.Int(logattr.Partition, int(m.Partition)), slog.Int64(logattr.Offset, m.Offset),
		slog.String(logattr.EventID, m.Meta.EventID), slog.String(logattr.EventType, m.Meta.EventType), slog.Int(logattr.Version, m.Meta.Version),
	}
}
