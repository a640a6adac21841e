package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/logattr"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/resolve"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
	"github.com/outboxctl/outboxctl/schemas/wire"
	"github.com/outboxctl/outboxctl/spec"
)

// SchemaSource gives writer schemas, as Avro JSON text, by their registry
// id (the id in the Confluent wire header): schemasource.ByID.
// RegistryByID adapts a schemas/registry Client to it (the Client's
// SchemaByID returns a *registry.Schema, not text); tests use
// consumertest.Registry. Implementations must be safe for concurrent use;
// the Router caches the parsed schema per id, so they need not cache. An
// error marked with Permanent or Transient keeps its class; otherwise an
// error wrapping registry.ErrSchemaNotFound is permanent and any other
// transient (see ErrSchema).
//
// Deprecated: use schemasource.ByID, the same type.
type SchemaSource = schemasource.ByID

// UnknownPolicy says what the Router does with a record for which no handler
// is registered (unknown event type, unknown major version, or no event type
// at all). No outcome is silent: every such record is logged
// (RouterConfig.Logger) and counted (Router.Stats).
type UnknownPolicy int

const (
	// UnknownDefault, the zero value: UnknownDLQ when the record runs
	// through a DLQ middleware, UnknownStop otherwise.
	UnknownDefault UnknownPolicy = iota
	// UnknownSkip logs the record, calls RouterConfig.OnUnknown and skips
	// it: its offset is committed as if it had been handled. Choose it for
	// a topic that carries more event types than the service cares about.
	UnknownSkip
	// UnknownDLQ makes Process return a permanent error that wraps
	// ErrUnknownEventType (or ErrNoEventType), so a DLQ middleware sends
	// the record to the dead-letter topic. Without a DLQ the record stays
	// undelivered and its partition waits.
	UnknownDLQ
	// UnknownStop makes Process return a StopError wrapping
	// ErrUnknownEventType (or ErrNoEventType): the Consumer commits what is
	// done before the record, never the record itself, and Run returns the
	// error. Deploy a service that knows the type, then start again.
	UnknownStop
)

// UnknownFail is the former name of UnknownDLQ.
const UnknownFail = UnknownDLQ

func (p UnknownPolicy) String() string {
	switch p {
	case UnknownDefault:
		return "default"
	case UnknownSkip:
		return "skip"
	case UnknownDLQ:
		return "dlq"
	case UnknownStop:
		return "stop"
	}
	return "UnknownPolicy(" + strconv.Itoa(int(p)) + ")"
}

// RouterConfig configures a Router. The zero value is valid for JSON
// payloads without an inbox.
type RouterConfig struct {
	// Schemas fetches Avro writer schemas by id. Required when an Avro
	// (Confluent wire format) record arrives; without it such a record
	// fails with ErrSchema as a StopError (a Consumer stops at it).
	Schemas schemasource.ByID

	// IDHeader, EventTypeHeader and SchemaVersionHeader are the header
	// names (default DefaultIDHeader, DefaultEventTypeHeader,
	// DefaultSchemaVersionHeader: the names `outboxctl generate` uses with
	// the spec's defaults). Set them to the spec's headers when it renames
	// them.
	IDHeader            string
	EventTypeHeader     string
	SchemaVersionHeader string

	// Unknown is the policy for records without a handler (default
	// UnknownDefault: dead-letter when a DLQ middleware is in the chain,
	// stop otherwise). OnUnknown, if set, is called for each skipped
	// record (UnknownSkip).
	Unknown   UnknownPolicy
	OnUnknown func(ctx context.Context, m *Message)

	// Logger receives a line for every record skipped, dead-lettered or
	// stopped on as unknown (default slog.Default()).
	Logger *slog.Logger

	// Inbox, when set, makes every handler run in a database transaction
	// from Inbox.Begin in which the event id is first marked processed for
	// ConsumerGroup: a redelivered event (same id header) is skipped, and
	// the handler's writes through Event.Tx commit together with the mark.
	Inbox inbox.Store
	// ConsumerGroup names this consumer in the inbox. Leave it empty when
	// the Router is run by a Consumer: NewConsumer sets it to
	// ConsumerConfig.GroupID, and a non-empty ConsumerGroup that differs
	// from GroupID is an ErrInvalidConfig error there. A Router with an
	// Inbox that is fed by Process directly (no Consumer) must set it:
	// Process and ProcessBatch fail with ErrInvalidConfig without it.
	ConsumerGroup string
	// OnDuplicate, if set, is called for each record the inbox skipped.
	OnDuplicate func(ctx context.Context, m *Message)
	// InboxTimeout bounds each inbox transaction, from begin through the
	// mark and the handler to the commit (one batch of ProcessBatch
	// counts as one transaction), with a context deadline (default
	// DefaultInboxTimeout; negative: no bound). A database that stops
	// answering (packets dropped: no error, no reset) would otherwise hold
	// the partition's lane for as long as TCP retransmits, minutes. When
	// the deadline passes the transaction is rolled back (the driver
	// closes the connection that got no answer: pgx and
	// go-sql-driver/mysql do, so database/sql does not reuse it), a WARN
	// line names the record and the step, the Observer gets
	// ObservedInboxTimeout, and the record fails with a transient error
	// wrapping ErrInboxTimeout: the Consumer pauses the partition and runs
	// the record again. With a driver that ignores the deadline the lane
	// cannot be freed, but the stall is still logged and observed once,
	// 5 s (at most InboxTimeout) after the deadline. Set it above your
	// slowest handler.
	InboxTimeout time.Duration

	// Observer, if set, is told every outcome of every record and the
	// duration of every handler call, for metrics (see Observer and
	// consumer/consumerprom).
	Observer Observer

	// Outbox, if set, is the spec outbox whose records the Router reads
	// (RouterFromSpec and FromSpec set it): Handle and Upcast then take
	// the reader schema of each (event type, major version) from the
	// outbox's .avsc file when no ReaderSchema option is given, and a
	// registration of a type or major version the outbox does not declare
	// is an ErrInvalidConfig error.
	Outbox *spec.Outbox
}

// Validate checks the configuration. Errors wrap ErrInvalidConfig.
// An Inbox without a ConsumerGroup is valid here: the group may come from
// the Consumer (see RouterConfig.ConsumerGroup).
func (c RouterConfig) Validate() error {
	if c.Unknown < UnknownDefault || c.Unknown > UnknownStop {
		return fmt.Errorf("%w: router: unknown UnknownPolicy %d", ErrInvalidConfig, c.Unknown)
	}
	return nil
}

// Router dispatches routed outbox records to typed handlers registered with
// Handle, through a middleware chain added with Use.
//
// Register handlers and middleware before the first Process call; after that
// a Router is safe for concurrent use by several goroutines.
type Router struct {
	cfg        RouterConfig
	mu         sync.RWMutex
	handlers   map[handlerKey]*entry
	types      map[string]registeredType // by event type
	inner      Handler                   // r.handleParsed, the innermost Handler
	middleware []Middleware

	writers sync.Map       // schema id -> avro.Schema
	cache   resolve.Cache  // generic path: any, map[string]any
	plans   avrobind.Cache // typed path (typed.go)
	// legacyDecode sends every Avro payload through the generic path
	// (benchmarks of the old path).
	legacyDecode bool

	stats routerStats
	// dlqTopics are the topics of the DLQ middleware given to Use.
	dlqTopics []string
	// err is the first invalid middleware given to Use: Process and
	// NewConsumer return it.
	err error
}

// registeredType is what the Router knows of one registered event type.
type registeredType struct {
	name   string // the registered string, reused for Meta.EventType
	majors []int  // registered major versions
}

type handlerKey struct {
	eventType string
	version   int
}

type entry struct {
	eventType string
	version   int
	reader    avro.Schema
	// in is the payload type of the registration (Handle's T, Upcast's
	// From); deliver runs its step with a decoded payload (upcast.go).
	in      reflect.Type
	deliver deliverFunc
	upcast  bool // registered by Upcast
	// batched: the step that finally handles the payload is a HandleBatch
	// function (for an upcaster: the one its chain ends in), which collects
	// the records of a batch instead of writing at once.
	batched bool
	// decode decodes m's value into the handler's T and returns the bound
	// handler call (release it after the call).
	decode func(ctx context.Context, r *Router, m *Message) (boundCall, error)
}

// NewRouter returns a Router with cfg (see RouterConfig.Validate).
func NewRouter(cfg RouterConfig) (*Router, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.IDHeader == "" {
		cfg.IDHeader = DefaultIDHeader
	}
	if cfg.EventTypeHeader == "" {
		cfg.EventTypeHeader = DefaultEventTypeHeader
	}
	if cfg.SchemaVersionHeader == "" {
		cfg.SchemaVersionHeader = DefaultSchemaVersionHeader
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Router{cfg: cfg, handlers: map[handlerKey]*entry{}, types: map[string]registeredType{}}
	r.inner = r.handleParsed
	return r, nil
}

// Use appends middleware. The first middleware added is the outermost: it
// sees what the ones added after it return. The recommended order is
// Use(hooks, dlq, retry, Timeout(d), Recover()): a panic becomes an error,
// each attempt has its own timeout, retries run first and the DLQ gets what
// they could not fix.
//
// Use checks the middleware when it is added: a nil one, or a Retry or DLQ
// whose Validate fails (Retry{}.Middleware, DLQ{}.Middleware), is an error
// wrapping ErrInvalidConfig, and the Router stays unusable: Process and
// NewConsumer return that error, so an invalid chain never runs. NewRetry
// and NewDLQ check the same when the middleware is built.
//
// Use also checks the order of the whole chain, over all its calls: a DLQ
// added after a Retry (the DLQ would dead-letter at the first failure and
// the Retry never retry), or a tracing middleware (Tracing,
// consumerotel.Middleware) added before a Retry (one span for all
// attempts), is an ErrMiddlewareOrder error and leaves the Router unusable
// as above. Other middleware can go anywhere.
func (r *Router) Use(mw ...Middleware) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var topics []string
	for i, m := range mw {
		topic, err := checkMiddleware(m)
		if err != nil {
			err = fmt.Errorf("router: use middleware %d: %w", len(r.middleware)+i+1, err)
			if r.err == nil {
				r.err = err
			}
			return err
		}
		if topic != "" {
			topics = append(topics, topic)
		}
	}
	chain := append(append([]Middleware(nil), r.middleware...), mw...)
	if err := checkOrder(chain); err != nil {
		err = fmt.Errorf("router: use: %w", err)
		if r.err == nil {
			r.err = err
		}
		return err
	}
	r.middleware = chain
	r.dlqTopics = append(r.dlqTopics, topics...)
	return nil
}

// DLQTopics returns the dead-letter topics of the DLQ middleware given to
// Use (the Consumer checks that they exist when Run starts).
func (r *Router) DLQTopics() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.dlqTopics)
}

// Err returns the error of an invalid middleware given to Use (nil when
// the Router is usable).
func (r *Router) Err() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.err
}

// bindGroup makes groupID, the Kafka consumer group of the Consumer that
// runs r, the inbox's consumer group: an empty RouterConfig.ConsumerGroup
// takes it, a different one is an ErrInvalidConfig error naming both.
func (r *Router) bindGroup(groupID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.cfg.ConsumerGroup {
	case "":
		r.cfg.ConsumerGroup = groupID
	case groupID:
	default:
		return fmt.Errorf("%w: consumer: RouterConfig.ConsumerGroup %q differs from ConsumerConfig.GroupID %q (leave ConsumerGroup empty to use GroupID)", ErrInvalidConfig, r.cfg.ConsumerGroup, groupID)
	}
	return nil
}

// errNoGroup is the error of an inbox transaction without a consumer group.
func errNoGroup() error {
	return fmt.Errorf("%w: router: ConsumerGroup is required with an Inbox when the Router is not run by a Consumer (which sets it to its GroupID)", ErrInvalidConfig)
}

// HandlerOption configures one handler registration.
type HandlerOption func(*handlerOptions) error

type handlerOptions struct {
	reader        avro.Schema
	link          *upcastLink // set by Upcast
	allowUnmapped bool
}

// ReaderSchema sets the handler's Avro reader schema (an .avsc text): Avro
// payloads are resolved from their writer schema to it (schemas/resolve)
// before they are stored in T. Without it an Avro payload is read with its
// writer schema as is.
func ReaderSchema(avsc string) HandlerOption {
	return func(o *handlerOptions) error {
		s, err := avro.Parse([]byte(avsc))
		if err != nil {
			return fmt.Errorf("%w: reader schema: %w", ErrInvalidConfig, err)
		}
		o.reader = s
		return nil
	}
}

// Handle registers fn for records of eventType with major version
// majorVersion. T is what the payload decodes into:
//
//   - JSON payloads: encoding/json into T (a JSON string that holds JSON,
//     from a JsonConverter without schemas, is unwrapped once; so is a Kafka
//     Connect {"schema":…,"payload":…} envelope);
//   - Avro payloads (Confluent wire format): writer schema by id from
//     RouterConfig.Schemas, resolved to the ReaderSchema option, then stored
//     into T: a struct with `avro:"field"` tags, map[string]any or any (see
//     the package doc for the type mapping).
//
// majorVersion 0 means "no version": it matches records without a schema
// version header. A record without that header also matches the only major
// version registered for its type.
//
// The Event's Meta.Version is majorVersion and Meta.WrittenVersion the
// record's schema version header; Upcast brings older major versions to fn.
//
// Errors: ErrDuplicateHandler for a second registration of the same type and
// version (a Handle or an Upcast), ErrInvalidConfig for a bad option or,
// with a ReaderSchema, a T that does not fit it (see AllowUnmappedFields).
func Handle[T any](r *Router, eventType string, majorVersion int, fn func(ctx context.Context, ev Event[T]) error, opts ...HandlerOption) error {
	if eventType == "" || fn == nil || majorVersion < 0 {
		return fmt.Errorf("%w: handle: need an event type, a major version >= 0 and a function", ErrInvalidConfig)
	}
	var o handlerOptions
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return fmt.Errorf("handle %s v%d: %w", eventType, majorVersion, err)
		}
	}
	if v := r.cfg.Outbox.Version(eventType, majorVersion); o.reader == nil && r.cfg.Outbox != nil && (v == nil || v.SchemaPath != "") {
		reader, err := specReader(r.cfg.Outbox, eventType, majorVersion)
		if err != nil {
			return fmt.Errorf("handle %s v%d: %w", eventType, majorVersion, err)
		}
		o.reader = reader
	}
	if err := checkBinding(reflect.TypeFor[T](), o); err != nil {
		return fmt.Errorf("handle %s v%d: %w", eventType, majorVersion, err)
	}
	return registerHandler(r, eventType, majorVersion, fn, false, o)
}

// registerHandler is Handle after its checks; batched: fn collects the records of
// a batch (HandleBatch).
func registerHandler[T any](r *Router, eventType string, majorVersion int, fn func(ctx context.Context, ev Event[T]) error, batched bool, o handlerOptions) error {
	e := &entry{eventType: eventType, version: majorVersion, reader: o.reader, in: reflect.TypeFor[T](), deliver: handlerDeliver(majorVersion, fn), batched: batched}
	calls := &sync.Pool{New: func() any { return &pendingCall[T]{fn: fn, major: majorVersion} }}
	e.decode = func(ctx context.Context, r *Router, m *Message) (boundCall, error) {
		p := calls.Get().(*pendingCall[T])
		p.m, p.pool, p.batched = m, calls, e.batched
		if !m.Meta.Tombstone {
			if err := r.decodeInto(ctx, m, e.reader, &p.payload); err != nil {
				p.release()
				return nil, err
			}
		}
		return p, nil
	}
	return r.register(e, o)
}

// Process runs one record through the middleware chain and the handler. A nil
// error means the record is done (handled, skipped as unknown, or skipped as a
// duplicate by the inbox) and its offset may be committed. An error means it
// is not: the Consumer redelivers it, or stops at it for a StopError. Errors
// are classified with IsPermanent, IsTransient and IsStop (see the package
// guide's failure table).
//
// Process fills m.Meta from the headers and key, and sets m.Attempt to 1 if
// it is 0.
func (r *Router) Process(ctx context.Context, m *Message) error {
	if m.Attempt == 0 {
		m.Attempt = 1
	}
	r.mu.RLock()
	mws, buildErr := r.middleware, r.err
	if buildErr == nil {
		m.metaErr = r.parseMeta(m) // under the same read lock
	}
	r.mu.RUnlock()
	if buildErr != nil {
		return buildErr
	}
	err := r.run(ctx, m, mws, chainInfo{router: r})
	if err != nil {
		r.observe(ctx, m, Observation{Kind: ObservedFailed, Err: err})
	}
	return err
}

// run gives m the chain ci and sends m through the middleware mws to its
// handler. The caller has filled m.Meta and m.metaErr (parseMeta):
// metadata that do not parse fail inside the middleware, so that Retry and
// DLQ see that error as any other.
func (r *Router) run(ctx context.Context, m *Message, mws []Middleware, ci chainInfo) error {
	m.chain = ci
	h := r.inner
	if h == nil { // a Router not made by NewRouter
		h = r.handleParsed
	}
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h(ctx, m)
}

// handleParsed is the innermost Handler of every chain (Router.inner): the
// metadata error of parseMeta, else dispatch.
func (r *Router) handleParsed(ctx context.Context, m *Message) error {
	if m.metaErr != nil {
		return m.metaErr
	}
	return r.dispatch(ctx, m)
}

// parseMeta fills m.Meta from what needs no registry: headers, key, framing.
// The key and the id header share one allocation, and an event type that a
// handler is registered for is the registered string (no allocation).
// r.mu must be held (read).
func (r *Router) parseMeta(m *Message) error {
	m.Meta = Meta{Tombstone: m.Value == nil}
	id, _ := m.Header(r.cfg.IDHeader)
	m.Meta.AggregateID, m.Meta.EventID = twoStrings(m.Key, id)
	if v, ok := m.Header(r.cfg.EventTypeHeader); ok {
		m.Meta.EventType = r.typeName(v)
	}
	if v, ok := m.Header(r.cfg.SchemaVersionHeader); ok && len(v) > 0 {
		n, err := strconv.Atoi(strings.TrimSpace(string(v)))
		if err != nil || n < 0 {
			return decodeError(m, fmt.Errorf("header %s = %q is not a major version", r.cfg.SchemaVersionHeader, v))
		}
		m.Meta.Version = n
		m.Meta.WrittenVersion = n
	}
	if len(m.Value) > 0 {
		switch m.Value[0] {
		case wire.Magic:
			id, _, err := wire.Parse(m.Value)
			if err != nil {
				return decodeError(m, err)
			}
			m.Meta.SchemaID = int(id)
		case 0x01:
			return decodeError(m, errors.New("confluent wire format with magic byte 1 (schema GUID) is not supported"))
		}
	}
	return nil
}

func (r *Router) dispatch(ctx context.Context, m *Message) error {
	if m.Meta.EventType == CanaryEventType {
		return r.canary(m)
	}
	if m.Meta.EventType == "" && m.Meta.SchemaID != 0 {
		w, err := r.writer(ctx, m)
		if err != nil {
			return err
		}
		if n, ok := w.(avro.NamedSchema); ok {
			m.Meta.EventType = n.FullName()
		}
	}
	e := r.lookup(m.Meta.EventType, m.Meta.Version, m)
	if e == nil {
		return r.unknown(ctx, m)
	}
	call, err := e.decode(ctx, r, m)
	if err != nil {
		return err
	}
	defer call.release()
	if r.cfg.Inbox == nil {
		if err := r.callHandler(ctx, m, call, nil); err != nil {
			return err
		}
		r.handled(ctx, m)
		return nil
	}
	return r.inInbox(ctx, m, call)
}

func (r *Router) lookup(eventType string, version int, m *Message) *entry {
	if eventType == "" {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	try := func(t string) *entry {
		if e, ok := r.handlers[handlerKey{t, version}]; ok {
			return e
		}
		if v, _ := m.Header(r.cfg.SchemaVersionHeader); len(v) == 0 {
			if vs := r.types[t].majors; len(vs) == 1 {
				return r.handlers[handlerKey{t, vs[0]}]
			}
		}
		return nil
	}
	if e := try(eventType); e != nil {
		return e
	}
	// An Avro record name falls back to its simple name.
	if i := strings.LastIndexByte(eventType, '.'); i >= 0 && m.Meta.SchemaID != 0 {
		return try(eventType[i+1:])
	}
	return nil
}

func (r *Router) inInbox(ctx context.Context, m *Message, call boundCall) (err error) {
	if m.Meta.EventID == "" {
		return Permanent(fmt.Errorf("%w: %s/%d@%d: no %s header", ErrNoEventID, m.Topic, m.Partition, m.Offset, r.cfg.IDHeader))
	}
	if m.chain.tx != nil {
		return r.inBatchTx(ctx, m, call)
	}
	if r.cfg.ConsumerGroup == "" {
		return errNoGroup()
	}
	w := r.watchInbox(ctx, m)
	defer w.end()
	ctx = w.ctx
	defer func() {
		if err != nil {
			err = w.timedOut(err)
		}
	}()
	tx, err := r.cfg.Inbox.Begin(ctx)
	if err != nil {
		return Transient(fmt.Errorf("inbox: begin: %w", err))
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	w.at(stepMark)
	dup, err := r.cfg.Inbox.MarkProcessed(ctx, tx, r.cfg.ConsumerGroup, m.Meta.EventID)
	if err != nil {
		if errors.Is(err, inbox.ErrInvalidKey) {
			return Permanent(fmt.Errorf("inbox: mark %s: %w", m.Meta.EventID, err))
		}
		return Transient(fmt.Errorf("inbox: mark %s: %w", m.Meta.EventID, err))
	}
	if dup {
		r.duplicate(ctx, m)
		return nil // deferred rollback
	}
	w.at(stepHandler)
	if err := r.callHandler(ctx, m, call, tx); err != nil {
		return handlerTxError(ctx, err)
	}
	done = true
	w.at(stepCommit)
	if err := tx.Commit(); err != nil {
		return Transient(fmt.Errorf("inbox: commit %s: %w", m.Meta.EventID, err))
	}
	r.handled(ctx, m)
	return nil
}

// DefaultInboxTimeout is RouterConfig.InboxTimeout's default.
const DefaultInboxTimeout = 30 * time.Second

// The steps of an inbox transaction, named in the log line and the
// Observation of an inbox timeout.
const (
	stepBegin int32 = iota
	stepMark
	stepHandler
	stepCommit
)

var stepNames = [...]string{"begin", "mark", "handler", "commit"}

// inboxWatch bounds one inbox transaction by InboxTimeout and reports its
// stall once: when the transaction returns an error after its deadline
// (timedOut), or, with a driver that ignores the deadline, when it has not
// returned inboxGrace after it (the lane still waits for the driver then,
// but the stall is logged and counted).
type inboxWatch struct {
	r        *Router
	parent   context.Context
	ctx      context.Context // parent with the deadline
	cancel   context.CancelFunc
	stop     func() bool // stops the watchdog
	m        *Message    // the record, or the first of the batch
	batch    int         // records in the transaction
	timeout  time.Duration
	step     atomic.Int32
	ended    atomic.Bool
	reported atomic.Bool
}

// inboxGrace is how long after its deadline an inbox transaction that
// has not returned is reported as blocked in a driver that ignores the
// context (at most; InboxTimeout when shorter).
const inboxGrace = 5 * time.Second

// watchInbox starts watching the inbox transaction of ms (one record, or
// a batch) under ctx.
func (r *Router) watchInbox(ctx context.Context, ms ...*Message) *inboxWatch {
	w := &inboxWatch{r: r, parent: ctx, ctx: ctx, cancel: func() {}, stop: func() bool { return true }, batch: len(ms), timeout: r.cfg.InboxTimeout}
	if len(ms) > 0 {
		w.m = ms[0]
	}
	if w.timeout == 0 {
		w.timeout = DefaultInboxTimeout
	}
	if w.timeout < 0 {
		return w
	}
	w.ctx, w.cancel = context.WithTimeout(ctx, w.timeout)
	w.stop = context.AfterFunc(w.ctx, func() {
		if !errors.Is(w.ctx.Err(), context.DeadlineExceeded) || w.parent.Err() != nil {
			return
		}
		time.AfterFunc(min(inboxGrace, w.timeout), func() {
			if !w.ended.Load() {
				w.report(nil, "consumer: inbox transaction timed out and the database driver ignores the deadline: the partition's lane waits for the driver (rolled back and run again once it returns)")
			}
		})
	})
	return w
}

// at records the step the transaction is in.
func (w *inboxWatch) at(step int32) { w.step.Store(step) }

// end stops the watch when the transaction returned.
func (w *inboxWatch) end() {
	w.ended.Store(true)
	w.stop()
	w.cancel()
}

// timedOut turns err, the error of the transaction, into a transient
// ErrInboxTimeout when the transaction's own deadline passed while its
// parent did not end (and reports it, once). Any other err is returned as
// it is.
func (w *inboxWatch) timedOut(err error) error {
	if w.parent.Err() != nil || !errors.Is(w.ctx.Err(), context.DeadlineExceeded) || IsStop(err) {
		return err
	}
	w.report(err, "consumer: inbox transaction timed out (the database does not answer): rolled back, the partition waits and the record is run again")
	return Transient(fmt.Errorf("%w after %s in %s: %w", ErrInboxTimeout, w.timeout, stepNames[w.step.Load()], err))
}

// report logs the stall (WARN, with the record and the step) and tells
// the Observer, once per transaction.
func (w *inboxWatch) report(err error, msg string) {
	if !w.reported.CompareAndSwap(false, true) {
		return
	}
	step := stepNames[w.step.Load()]
	attrs := []any{slog.String("step", step), slog.Duration("timeout", w.timeout)}
	if err != nil {
		attrs = append(attrs, slog.String(logattr.Error, err.Error()))
	}
	if w.batch > 1 {
		attrs = append(attrs, slog.Int("batch", w.batch))
	}
	if w.m != nil {
		attrs = append(recordAttrs(w.m), attrs...)
	}
	w.r.cfg.Logger.Warn(msg, attrs...)
	if w.m != nil {
		w.r.observe(w.parent, w.m, Observation{Kind: ObservedInboxTimeout, Err: err, Step: step})
	}
}

// writer returns the parsed writer schema of m (cached per id).
func (r *Router) writer(ctx context.Context, m *Message) (avro.Schema, error) {
	id := m.Meta.SchemaID
	if w, ok := r.writers.Load(id); ok {
		return w.(avro.Schema), nil
	}
	if r.cfg.Schemas == nil {
		// A configuration error: no record with a schema id can be read.
		return nil, Stop(fmt.Errorf("%w: id %d: the router has no schema source (RouterConfig.Schemas)", ErrSchema, id))
	}
	text, err := r.cfg.Schemas.SchemaByID(ctx, id)
	if err != nil {
		return nil, schemaError(fmt.Errorf("%w: id %d: %w", ErrSchema, id, err))
	}
	// Schemas stored in a registry are parsed leniently, as the registry
	// itself does for schemas it already holds.
	w, err := avro.ParseWith([]byte(text), avro.Lenient())
	if err != nil {
		return nil, Permanent(fmt.Errorf("%w: id %d: %w", ErrSchema, id, err))
	}
	r.writers.Store(id, w)
	return w, nil
}

// decodeInto decodes m's value into *dst (dst is a non-nil pointer to T).
func (r *Router) decodeInto(ctx context.Context, m *Message, reader avro.Schema, dst any) error {
	if m.Meta.SchemaID != 0 {
		return r.decodeAvro(ctx, m, reader, dst)
	}
	if err := decodeJSON(m.Value, dst); err != nil {
		return decodeError(m, fmt.Errorf("json into %T: %w", dst, err))
	}
	return nil
}
