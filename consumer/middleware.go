package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/outboxctl/outboxctl/internal/logattr"
)

// Handler is the untyped form of a handler that middleware wraps. It returns
// nil when the record is done.
type Handler func(ctx context.Context, m *Message) error

// Middleware wraps a Handler. For example, a logging middleware:
//
//	func logging(next consumer.Handler) consumer.Handler {
//		return func(ctx context.Context, m *consumer.Message) error {
//			err := next(ctx, m)
//			log.Printf("%s %s: %v", m.Meta.EventType, m.Meta.EventID, err)
//			return err
//		}
//	}
type Middleware func(next Handler) Handler

// ErrMiddlewareOrder: Router.Use was given a chain in the wrong order: a
// DLQ added after (inside) a Retry, or a tracing middleware (Tracing,
// consumerotel.Middleware) added before (outside) a Retry. It wraps
// ErrInvalidConfig.
var ErrMiddlewareOrder = fmt.Errorf("%w: middleware order", ErrInvalidConfig)

// Tracing marks mw as a tracing middleware (one span per handler call), so
// that Router.Use can check that it comes after Retry, where it sees each
// attempt. consumerotel.Middleware is marked. Tracing(nil) is nil.
func Tracing(mw Middleware) Middleware {
	if mw == nil {
		return nil
	}
	return tracingMiddleware{mw}.Middleware
}

type tracingMiddleware struct{ mw Middleware }

func (t tracingMiddleware) Middleware(next Handler) Handler { return t.mw(next) }

// middlewareKind is what Use's order check knows of a middleware.
type middlewareKind int

const (
	kindOther middlewareKind = iota
	kindRetry
	kindDLQ
	kindTracing
)

func (k middlewareKind) String() string {
	return [...]string{"middleware", "Retry", "DLQ", "tracing"}[k]
}

// The code pointers of the method values Retry.Middleware, DLQ.Middleware
// and tracingMiddleware.Middleware: the same for every receiver, so they
// identify the standard middleware whatever its configuration.
var (
	retryCode   = reflect.ValueOf(Retry{}.Middleware).Pointer()
	dlqCode     = reflect.ValueOf(DLQ{}.Middleware).Pointer()
	tracingCode = reflect.ValueOf(tracingMiddleware{}.Middleware).Pointer()
)

func kindOf(mw Middleware) middlewareKind {
	switch reflect.ValueOf(mw).Pointer() {
	case retryCode:
		return kindRetry
	case dlqCode:
		return kindDLQ
	case tracingCode:
		return kindTracing
	}
	return kindOther
}

// checkOrder checks the chain mws (outermost first): no DLQ inside a Retry,
// no tracing outside a Retry. The error names the positions (from 1).
func checkOrder(mws []Middleware) error {
	firstRetry, firstTracing := 0, 0
	for i, mw := range mws {
		switch kindOf(mw) {
		case kindRetry:
			if firstTracing > 0 {
				return fmt.Errorf("%w: Retry (middleware %d) is added after tracing (middleware %d); add tracing after Retry so that it sees each attempt", ErrMiddlewareOrder, i+1, firstTracing)
			}
			if firstRetry == 0 {
				firstRetry = i + 1
			}
		case kindDLQ:
			if firstRetry > 0 {
				return fmt.Errorf("%w: DLQ (middleware %d) is added after Retry (middleware %d); add DLQ before Retry so that it gets what the retries could not fix", ErrMiddlewareOrder, i+1, firstRetry)
			}
		case kindTracing:
			if firstTracing == 0 {
				firstTracing = i + 1
			}
		}
	}
	return nil
}

// Retry retries a failing handler with exponential backoff. It does not retry
// permanent errors (Permanent, decode errors, unknown event types), stop
// errors (Stop) nor errors for which ShouldRetry returns false, and stops
// when ctx is cancelled. It sets Message.Attempt for each attempt. A
// transient error (IsTransient) that is still failing after MaxAttempts is
// returned as it is: the DLQ middleware does not dead-letter it, and the
// Consumer pauses the partition and delivers the record again later.
//
// With no interval set (Retry{MaxAttempts: 5}) it never retries in a hot
// loop: the waits are DefaultRetryInitialInterval (100ms), doubling, capped at
// DefaultRetryMaxInterval (10s), each shortened by a random part of up to
// DefaultRetryJitter (20%) so that consumers failing together do not retry in
// step.
//
// Use it as router.Use(retry.Middleware), or build it with NewRetry; both
// check Validate.
type Retry struct {
	// MaxAttempts is the number of runs including the first (>= 1).
	MaxAttempts int
	// InitialInterval is the wait after the first failure (>= 0; 0 means
	// DefaultRetryInitialInterval, or MaxInterval if that is smaller).
	InitialInterval time.Duration
	// MaxInterval caps the wait (else >= InitialInterval). 0 means
	// DefaultRetryMaxInterval when InitialInterval is 0 too, else no cap.
	MaxInterval time.Duration
	// Multiplier grows the wait after each failure (0 means 2; else >= 1).
	Multiplier float64
	// Jitter shortens each wait by a random fraction of up to Jitter (in
	// [0, 1]): the wait after the n-th failure is in
	// [Delay(n)*(1-Jitter), Delay(n)]. 0 means no jitter when an interval
	// is set, DefaultRetryJitter when none is.
	Jitter float64
	// ShouldRetry, if set, decides whether a non-permanent error is retried.
	ShouldRetry func(err error) bool
	// OnRetry, if set, is called before each wait.
	OnRetry func(ctx context.Context, m *Message, err error, delay time.Duration)
}

// Validate checks the fields. Errors wrap ErrInvalidConfig.
func (r Retry) Validate() error {
	switch {
	case r.MaxAttempts < 1:
		return fmt.Errorf("%w: retry: MaxAttempts = %d, want >= 1", ErrInvalidConfig, r.MaxAttempts)
	case r.InitialInterval < 0:
		return fmt.Errorf("%w: retry: InitialInterval = %s, want >= 0", ErrInvalidConfig, r.InitialInterval)
	case r.MaxInterval < 0 || (r.MaxInterval > 0 && r.MaxInterval < r.InitialInterval):
		return fmt.Errorf("%w: retry: MaxInterval = %s, want 0 or >= InitialInterval (%s)", ErrInvalidConfig, r.MaxInterval, r.InitialInterval)
	case r.Multiplier != 0 && (r.Multiplier < 1 || math.IsNaN(r.Multiplier) || math.IsInf(r.Multiplier, 0)):
		return fmt.Errorf("%w: retry: Multiplier = %g, want 0 or >= 1", ErrInvalidConfig, r.Multiplier)
	case !(r.Jitter >= 0 && r.Jitter <= 1):
		return fmt.Errorf("%w: retry: Jitter = %g, want in [0, 1]", ErrInvalidConfig, r.Jitter)
	}
	return nil
}

// The backoff of a Retry that sets no interval (Retry{MaxAttempts: n}).
const (
	DefaultRetryInitialInterval = 100 * time.Millisecond
	DefaultRetryMaxInterval     = 10 * time.Second
	DefaultRetryJitter          = 0.2
)

// withDefaults returns r with the default backoff filled in.
func (r Retry) withDefaults() Retry {
	if r.InitialInterval > 0 {
		return r
	}
	if r.MaxInterval == 0 {
		r.MaxInterval = DefaultRetryMaxInterval
		if r.Jitter == 0 {
			r.Jitter = DefaultRetryJitter
		}
	}
	r.InitialInterval = min(DefaultRetryInitialInterval, r.MaxInterval)
	return r
}

// Delay returns the longest wait after the n-th failed attempt (n >= 1),
// before jitter (see Wait), with the defaults applied.
func (r Retry) Delay(n int) time.Duration {
	r = r.withDefaults()
	mult := r.Multiplier
	if mult == 0 {
		mult = 2
	}
	d := float64(r.InitialInterval) * math.Pow(mult, float64(n-1))
	if r.MaxInterval > 0 && d > float64(r.MaxInterval) {
		return r.MaxInterval
	}
	if d > math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d)
}

// Wait returns the wait the middleware makes after the n-th failed attempt:
// Delay(n) shortened by a random fraction of up to the jitter.
func (r Retry) Wait(n int) time.Duration {
	d := r.Delay(n)
	j := r.withDefaults().Jitter
	if j <= 0 || d <= 0 {
		return d
	}
	return d - time.Duration(rand.Float64()*j*float64(d))
}

// NewRetry returns r's middleware, or r's Validate error.
func NewRetry(r Retry) (Middleware, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r.Middleware, nil
}

// Middleware is the Retry middleware. An invalid Retry panics when the
// middleware is built; Router.Use turns that into its error (and NewRetry
// returns the Validate error without building anything), so an invalid
// Retry is an error when the router is built, never at run time.
func (r Retry) Middleware(next Handler) Handler {
	if err := r.Validate(); err != nil {
		panic(configPanic{err})
	}
	return func(ctx context.Context, m *Message) error {
		if m.chain.batch {
			// In a batch one failure rolls back the batch, whose records
			// then run one at a time: retry them there.
			return next(ctx, m)
		}
		stopping := draining(ctx)
		for attempt := 1; ; attempt++ {
			m.Attempt = attempt
			err := next(ctx, m)
			if err == nil || attempt >= r.MaxAttempts || ctx.Err() != nil {
				return err
			}
			if IsStop(err) || (IsPermanent(err) && !IsTransient(err)) {
				return err
			}
			if r.ShouldRetry != nil && !r.ShouldRetry(err) {
				return err
			}
			d := r.Wait(attempt)
			m.chain.router.observe(ctx, m, Observation{Kind: ObservedRetried, Err: err})
			if r.OnRetry != nil {
				r.OnRetry(ctx, m, err, d)
			}
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return err
			case <-stopping: // the Consumer drains: no further attempt
				t.Stop()
				return err
			case <-t.C:
			}
		}
	}
}

// Timeout gives each handler run a context with deadline d. Handlers must
// honour ctx: the middleware does not abandon a running handler. An error
// returned after the deadline passed wraps ErrTimeout. Under an inbox, a
// deadline that passes while the transaction is open (a database that does
// not answer) is transient: never dead-lettered, the partition waits.
func Timeout(d time.Duration) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, m *Message) error {
			tctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			err := next(tctx, m)
			if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%w after %s: %w", ErrTimeout, d, err)
			}
			return err
		}
	}
}

// PanicError is a recovered handler panic. It unwraps to ErrPanic.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("%s: %v", ErrPanic, e.Value) }

// Unwrap returns ErrPanic.
func (e *PanicError) Unwrap() error { return ErrPanic }

// Recover turns a panic in the handler (or in middleware added after it) into
// a *PanicError with the stack. It is not permanent: Retry retries it.
func Recover() Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, m *Message) (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = &PanicError{Value: p, Stack: debug.Stack()}
				}
			}()
			return next(ctx, m)
		}
	}
}

// Hooks calls functions around each record, for metrics and logging. Added
// first (outermost) it sees the final outcome of every record; added after
// Retry it sees every attempt.
type Hooks struct {
	OnStart func(ctx context.Context, m *Message)
	OnDone  func(ctx context.Context, m *Message, err error, elapsed time.Duration)
}

// Middleware is the Hooks middleware.
func (h Hooks) Middleware(next Handler) Handler {
	return func(ctx context.Context, m *Message) error {
		if h.OnStart != nil {
			h.OnStart(ctx, m)
		}
		start := time.Now()
		err := next(ctx, m)
		if h.OnDone != nil {
			h.OnDone(ctx, m, err, time.Since(start))
		}
		return err
	}
}

// Headers the DLQ middleware adds to a dead-lettered record, after the
// record's own headers.
const (
	HeaderDLQError     = "outbox.dlq.error"
	HeaderDLQAttempts  = "outbox.dlq.attempts"
	HeaderDLQReason    = "outbox.dlq.reason" // "permanent" or "failed"
	HeaderDLQTopic     = "outbox.dlq.original.topic"
	HeaderDLQPartition = "outbox.dlq.original.partition"
	HeaderDLQOffset    = "outbox.dlq.original.offset"
)

// Producer writes one record and returns when it is durably written (the
// broker acknowledged it). NewKafkaProducer adapts a confluent-kafka-go
// producer; consumertest.Producer records in memory (for tests).
type Producer interface {
	Produce(ctx context.Context, m *Message) error
}

// DLQ sends records whose handling failed to a dead-letter topic and reports
// them done, so that one poison record does not block its partition. The
// dead-letter record has the original key, value and headers plus the
// HeaderDLQ* headers. If producing fails, the original error and the produce
// error are both returned and the record is not done (it is redelivered, not
// lost).
//
// Each dead-lettered record is logged at WARN to RouterConfig.Logger, with
// its topic, partition, offset, event id, type and version, the DLQ topic,
// the reason ("permanent" or "failed"), the attempts and the error.
//
// Never dead-lettered, whatever Filter says: transient errors (IsTransient:
// registry or inbox database unreachable; the partition waits instead, so
// the order per aggregate holds), stop errors (IsStop) and errors from a
// cancelled ctx (shutdown).
//
// Put it outside Retry: router.Use(dlq.Middleware, retry.Middleware), or
// build it with NewDLQ; both check Validate.
type DLQ struct {
	// Topic is the dead-letter topic (required).
	Topic string
	// Producer writes the dead-letter record (required).
	Producer Producer
	// Filter, if set, decides which of the other errors are dead-lettered;
	// the rest are returned (the record is redelivered). The default
	// dead-letters every error that is not transient nor a stop.
	Filter func(err error) bool
	// OnSent, if set, is called after a record was dead-lettered.
	OnSent func(ctx context.Context, m *Message, err error)
}

// Validate checks the fields. Errors wrap ErrInvalidConfig.
func (d DLQ) Validate() error {
	if d.Topic == "" {
		return fmt.Errorf("%w: dlq: Topic is required", ErrInvalidConfig)
	}
	if d.Producer == nil {
		return fmt.Errorf("%w: dlq: Producer is required", ErrInvalidConfig)
	}
	return nil
}

// NewDLQ returns d's middleware, or d's Validate error.
func NewDLQ(d DLQ) (Middleware, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d.Middleware, nil
}

// Middleware is the DLQ middleware. An invalid DLQ panics when the
// middleware is built; Router.Use turns that into its error (and NewDLQ
// returns the Validate error), so an invalid DLQ is an error when the router
// is built, never at run time.
func (d DLQ) Middleware(next Handler) Handler {
	if err := d.Validate(); err != nil {
		panic(configPanic{err})
	}
	if isProbe(next) { // built by Router.Use: tell it the topic
		_ = next(context.Background(), &Message{probeDLQ: d.Topic})
	}
	return func(ctx context.Context, m *Message) error {
		m.chain.dlq = true
		err := next(ctx, m)
		if err == nil || ctx.Err() != nil || IsTransient(err) || IsStop(err) || m.chain.batch {
			// In a batch a failure rolls the batch back and its records
			// run again one at a time: dead-letter them there.
			return err
		}
		if d.Filter != nil && !d.Filter(err) {
			return err
		}
		if perr := d.Producer.Produce(ctx, d.Record(m, err)); perr != nil {
			return errors.Join(err, fmt.Errorf("dlq: produce to %s: %w", d.Topic, perr))
		}
		if r := m.chain.router; r != nil {
			r.stats.deadLettered.Add(1)
			r.observe(ctx, m, Observation{Kind: ObservedDeadLettered})
			r.cfg.Logger.WarnContext(ctx, "consumer: record dead-lettered", append(recordAttrs(m),
				slog.String("dlq_topic", d.Topic), slog.String("reason", dlqReason(err)), slog.Int(logattr.Attempt, max(m.Attempt, 1)),
				slog.String(logattr.Error, err.Error()))...)
		}
		if d.OnSent != nil {
			d.OnSent(ctx, m, err)
		}
		return nil
	}
}

// Record builds the dead-letter record for m failing with err.
func (d DLQ) Record(m *Message, err error) *Message {
	attempts := m.Attempt
	if attempts < 1 {
		attempts = 1
	}
	reason := dlqReason(err)
	h := make([]Header, 0, len(m.Headers)+6)
	for _, x := range m.Headers {
		h = append(h, Header{Key: x.Key, Value: append([]byte(nil), x.Value...)})
	}
	h = append(h,
		Header{HeaderDLQError, []byte(err.Error())},
		Header{HeaderDLQAttempts, []byte(strconv.Itoa(attempts))},
		Header{HeaderDLQReason, []byte(reason)},
		Header{HeaderDLQTopic, []byte(m.Topic)},
		Header{HeaderDLQPartition, []byte(strconv.Itoa(int(m.Partition)))},
		Header{HeaderDLQOffset, []byte(strconv.FormatInt(m.Offset, 10))},
	)
	return &Message{
		Topic:     d.Topic,
		Partition: -1,
		Offset:    -1,
		Key:       m.Key,
		Value:     m.Value,
		Headers:   h,
		Timestamp: m.Timestamp,
	}
}

// dlqReason is the HeaderDLQReason of err: "permanent" or "failed".
func dlqReason(err error) string {
	if IsPermanent(err) {
		return "permanent"
	}
	return "failed"
}

// drainKey is the context key of the lane's stop channel: Retry does not
// start another attempt once it is closed (shutdown or revocation).
type drainKey struct{}

// draining returns a channel closed when the Consumer stops the record's
// lane (nil outside a Consumer).
func draining(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(drainKey{}).(<-chan struct{})
	return ch
}
