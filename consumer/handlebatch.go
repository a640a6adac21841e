package consumer

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"runtime/debug"
)

// HandleBatch registers fn for records of eventType with major version
// majorVersion, as Handle does, but fn receives the decoded events as a
// slice, so that it can write their effects in one statement (a multi-row
// INSERT, an INSERT … SELECT FROM unnest($1::text[], …), COPY) or one
// pgx.Batch instead of one round trip per record.
//
// In batch mode (ConsumerConfig.Batch, Router.ProcessBatch) fn gets each
// run of consecutive records of the batch that are for this registration
// (directly or through an Upcast chain that ends in it), in offset order,
// in one call, inside the batch's inbox transaction tx, after their inbox
// marks: the records the inbox finds to be duplicates are not in evs. A
// record of the batch for another handler ends the run: fn is called for
// the run first, so effects are written in record order. Everywhere else
// (Process, a Router without an Inbox, and the one-record-at-a-time replay
// of a failed batch) fn gets one event per call, in that record's
// transaction (tx is nil without an Inbox).
//
// An error (or a panic) of fn fails the whole batch (ErrBatchFailed): the
// transaction is rolled back and the Consumer runs the records again one at a time, where
// Retry retries and DLQ dead-letters each record alone. In batch mode the
// middleware chain runs for each record when it is collected, not around
// fn: a Timeout or tracing middleware, and the Observer's handler-call
// timing, do not cover the writes of fn there (the inbox transaction's
// InboxTimeout does).
//
// Every Event in evs has Tx set to tx. fn must not keep evs (or their
// payloads' slices) after it returns. Options and errors are Handle's.
func HandleBatch[T any](r *Router, eventType string, majorVersion int, fn func(ctx context.Context, tx *sql.Tx, evs []Event[T]) error, opts ...HandlerOption) error {
	if eventType == "" || fn == nil || majorVersion < 0 {
		return fmt.Errorf("%w: handle batch: need an event type, a major version >= 0 and a function", ErrInvalidConfig)
	}
	var o handlerOptions
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return fmt.Errorf("handle batch %s v%d: %w", eventType, majorVersion, err)
		}
	}
	if err := checkBinding(reflect.TypeFor[T](), o); err != nil {
		return fmt.Errorf("handle batch %s v%d: %w", eventType, majorVersion, err)
	}
	b := &batchFunc[T]{fn: fn}
	each := func(ctx context.Context, ev Event[T]) error {
		var s *batchSink
		if ev.Message != nil {
			s = ev.Message.chain.sink
		}
		if s == nil {
			return fn(ctx, ev.Tx, []Event[T]{ev})
		}
		return b.collect(ctx, s, ev)
	}
	return registerHandler(r, eventType, majorVersion, each, true, o)
}

// batchFunc is one HandleBatch registration.
type batchFunc[T any] struct {
	fn func(ctx context.Context, tx *sql.Tx, evs []Event[T]) error
}

// collect adds ev to the run of s, after flushing the run of another
// registration.
func (b *batchFunc[T]) collect(ctx context.Context, s *batchSink, ev Event[T]) error {
	if s.owner != b {
		if err := s.flush(ctx); err != nil {
			return err
		}
		evs := &[]Event[T]{}
		tx := ev.Tx
		s.owner, s.evs = b, evs
		s.run = func(ctx context.Context) error { return b.fn(ctx, tx, *evs) }
	}
	evs := s.evs.(*[]Event[T])
	*evs = append(*evs, ev)
	return nil
}

// batchSink is the run of records of one ProcessBatch that a HandleBatch
// function has collected and not written yet.
type batchSink struct {
	owner any                             // the *batchFunc[T] of the run
	evs   any                             // its *[]Event[T]
	run   func(ctx context.Context) error // calls it with the run
}

// flush calls the function of the run collected, if any, and empties s.
// Safe on a nil s. A panic of the function is its error (a *PanicError):
// the flush runs outside the middleware chain of the records it writes (at
// the end of the batch, or in the chain of the next record), so Recover
// cannot be relied on there; the batch rolls back and its records run one
// at a time, where the chain handles the panic as configured.
func (s *batchSink) flush(ctx context.Context) (err error) {
	if s == nil || s.run == nil {
		return nil
	}
	run := s.run
	s.owner, s.evs, s.run = nil, nil, nil
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return run(ctx)
}
