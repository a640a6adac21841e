package consumer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync/atomic"
)

// Stats counts the outcomes of the records the Router processed. Every
// record that ends without running its handler to a commit is counted
// somewhere, so none is silent.
type Stats struct {
	// Handled: the handler returned nil (and its inbox transaction
	// committed).
	Handled int64
	// Duplicates: skipped by the inbox (already processed).
	Duplicates int64
	// UnknownSkipped: no handler, skipped (UnknownSkip).
	UnknownSkipped int64
	// UnknownDeadLettered: no handler, returned as a permanent error to be
	// dead-lettered (UnknownDLQ, or the default with a DLQ).
	UnknownDeadLettered int64
	// UnknownStopped: no handler, returned as a StopError (UnknownStop, or
	// the default without a DLQ).
	UnknownStopped int64
	// DeadLettered: records the DLQ middleware of this Router wrote to the
	// dead-letter topic (any reason).
	DeadLettered int64
	// Canaries: canary records (CanaryEventType, written by `outboxctl
	// verify`) skipped; they never reach a handler.
	Canaries int64
}

type routerStats struct {
	handled, duplicates, unknownSkipped, unknownDLQ, unknownStopped, deadLettered, canaries atomic.Int64
}

// Stats returns the counters since NewRouter. Safe for concurrent use.
func (r *Router) Stats() Stats {
	return Stats{
		Handled:             r.stats.handled.Load(),
		Duplicates:          r.stats.duplicates.Load(),
		UnknownSkipped:      r.stats.unknownSkipped.Load(),
		UnknownDeadLettered: r.stats.unknownDLQ.Load(),
		UnknownStopped:      r.stats.unknownStopped.Load(),
		DeadLettered:        r.stats.deadLettered.Load(),
		Canaries:            r.stats.canaries.Load(),
	}
}

// chainInfo is what the middleware chain tells the Router about one
// Process call: whether a DLQ middleware is in it (for UnknownDefault) and
// where to count a dead-lettered record. It lives in the Message, so it
// costs no allocation.
type chainInfo struct {
	router *Router
	dlq    bool
	batch  bool       // the record runs in a batch (Router.ProcessBatch)
	tx     *sql.Tx    // the batch's inbox transaction
	mark   mark       // what the batch's mark statement found for the record
	sink   *batchSink // the batch's records collected for HandleBatch
	// outcome in a batch, counted (and reported) once the batch committed
	outcome outcome
}

type outcome uint8

const (
	outcomeNone outcome = iota
	outcomeHandled
	outcomeDuplicate
	outcomeSkipped
	outcomeCanary
)

// unknown applies the UnknownPolicy to a record without a handler.
func (r *Router) unknown(ctx context.Context, m *Message) error {
	var err error
	if m.Meta.EventType == "" {
		err = fmt.Errorf("%w: %s/%d@%d: no %s header", ErrNoEventType, m.Topic, m.Partition, m.Offset, r.cfg.EventTypeHeader)
	} else {
		err = fmt.Errorf("%w: %s v%d (%s/%d@%d)", ErrUnknownEventType, m.Meta.EventType, m.Meta.Version, m.Topic, m.Partition, m.Offset)
	}
	policy := r.cfg.Unknown
	if policy == UnknownDefault {
		policy = UnknownStop
		if m.chain.dlq {
			policy = UnknownDLQ
		}
	}
	attrs := append(recordAttrs(m), slog.String("policy", policy.String()))
	switch policy {
	case UnknownSkip:
		if m.chain.batch {
			m.chain.outcome = outcomeSkipped // reported once the batch committed
			return nil
		}
		r.skipped(ctx, m)
		return nil
	case UnknownDLQ:
		r.stats.unknownDLQ.Add(1)
		r.cfg.Logger.WarnContext(ctx, "consumer: no handler for a record, dead-lettering it", attrs...)
		return Permanent(err)
	default:
		r.stats.unknownStopped.Add(1)
		r.cfg.Logger.ErrorContext(ctx, "consumer: no handler for a record, stopping", attrs...)
		return Stop(err)
	}
}

// skipped counts, logs and reports a record skipped as unknown.
func (r *Router) skipped(ctx context.Context, m *Message) {
	r.stats.unknownSkipped.Add(1)
	r.cfg.Logger.InfoContext(ctx, "consumer: skipped a record without a handler",
		append(recordAttrs(m), slog.String("policy", UnknownSkip.String()))...)
	r.observe(ctx, m, Observation{Kind: ObservedUnknownSkipped})
	if r.cfg.OnUnknown != nil {
		r.cfg.OnUnknown(ctx, m)
	}
}

// duplicate counts and reports a record the inbox skipped.
func (r *Router) duplicate(ctx context.Context, m *Message) {
	r.stats.duplicates.Add(1)
	r.observe(ctx, m, Observation{Kind: ObservedDuplicate})
	if r.cfg.OnDuplicate != nil {
		r.cfg.OnDuplicate(ctx, m)
	}
}

// handlerTxError classifies the error of a handler that ran in an inbox
// transaction: a connection failure, or a deadline that passed while the
// transaction was open, is transient (the database, not the record, is
// the problem).
func handlerTxError(ctx context.Context, err error) error {
	if IsTransient(err) || IsPermanent(err) || IsStop(err) {
		return err
	}
	if IsConnectionError(err) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Transient(err)
	}
	return err
}

// configPanic is what Retry.Middleware and DLQ.Middleware panic with when
// their configuration is invalid; Router.Use recovers it into an error.
type configPanic struct{ err error }

// checkMiddleware builds mw once around a probe handler (that only a DLQ
// middleware calls, at build time, with its topic) and reports an invalid configuration (nil, or a configPanic), and the
// dead-letter topic of a DLQ middleware ("" for any other).
func checkMiddleware(mw Middleware) (dlqTopic string, err error) {
	if mw == nil {
		return "", fmt.Errorf("%w: nil middleware", ErrInvalidConfig)
	}
	defer func() {
		if p := recover(); p != nil {
			cp, ok := p.(configPanic)
			if !ok {
				panic(p)
			}
			err = cp.err
		}
	}()
	if h := mw(newProbe(&dlqTopic)); h == nil {
		return "", fmt.Errorf("%w: middleware returned a nil handler", ErrInvalidConfig)
	}
	return dlqTopic, nil
}

// newProbe is the handler that checkMiddleware builds a middleware around.
// DLQ.Middleware, built around it, calls it once with its topic (and
// never calls it otherwise), so that the Router knows its DLQ topics. It
// is not inlined: an inlined copy would have a closure of its own code.
//
//go:noinline
func newProbe(dlqTopic *string) Handler {
	return func(_ context.Context, m *Message) error {
		if m != nil && m.probeDLQ != "" {
			*dlqTopic = m.probeDLQ
		}
		return nil
	}
}

// probePC is the code of newProbe's handlers: every handler it returns
// shares it.
var probePC = reflect.ValueOf(newProbe(nil)).Pointer()

// isProbe reports whether h is a handler of newProbe.
func isProbe(h Handler) bool { return reflect.ValueOf(h).Pointer() == probePC }
