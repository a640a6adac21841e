package relay

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/logattr"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/spec"
)

// Defaults of Options.
const (
	DefaultBatch          = 100
	DefaultPollInterval   = time.Second
	DefaultMessageTimeout = 30 * time.Second
	// DefaultMaxDatabaseOutage is how long Run retries a database that
	// fails before it returns ErrDatabase.
	DefaultMaxDatabaseOutage = time.Minute
)

// Options configure a Relay. The connector config (New's argument) says
// what the records look like; Options say how the relay runs.
type Options struct {
	// BootstrapServers are the Kafka brokers (required).
	BootstrapServers string
	// Security is the connection's security (TLS, SASL/PLAIN,
	// SASL/SCRAM; default PLAINTEXT), see kafkaclient.Config.
	Security kafkaclient.Security
	// Kafka are further librdkafka producer settings (client.id, …).
	// enable.idempotence, acks and partitioner are the relay's and
	// cannot be overridden.
	Kafka map[string]string
	// Transform is the EventRouter's alias in transforms (default: the only one).
	Transform string
	// Worker are the Connect worker's converter settings, applied when the
	// connector sets none (eventrouter.ParseOptions.Worker).
	Worker map[string]string
	// EventRouterVersion is eventrouter.Version36 (default) or Version35
	// (the MariaDB 3.5.0 connector plugin's own EventRouter).
	EventRouterVersion string
	// OrderColumn is the column rows are published in the order of
	// (default: the event id column, table.field.event.id; the project's
	// writer makes time-ordered UUIDv7 ids).
	OrderColumn string
	// MarkColumn, when set, is a nullable timestamp column the relay sets
	// to the current time for a published row, instead of deleting it; the
	// relay reads the rows where it is NULL.
	MarkColumn string
	// Filter, when its Column is set, restricts the relay to the rows
	// whose Column equals Value (for example the aggregate type column):
	// the other rows are neither read, published nor deleted. A filtered
	// relay takes a lock of its own (per table and Value), so it never
	// stands by for, nor blocks, the table's unfiltered relay; keeping two
	// publishers off the same rows is then the caller's job (outboxctl
	// bench --publisher relay uses it for its own aggregate type).
	Filter Filter
	// Batch is the number of rows per poll (default DefaultBatch).
	Batch int
	// PollInterval is the time between polls when the table is drained
	// (default DefaultPollInterval). A standby retries the lock as often.
	PollInterval time.Duration
	// MessageTimeout bounds a publish attempt (librdkafka message.timeout.ms;
	// default DefaultMessageTimeout); the rows of a failed attempt stay.
	MessageTimeout time.Duration
	// Wake, when not nil, wakes the relay before the poll interval is over
	// (for example PostgreSQL LISTEN, see Listen).
	Wake <-chan struct{}
	// Logf receives the relay's log lines (nil: none).
	Logf func(format string, args ...any)
	// Logger, when set, receives the relay's log lines as structured
	// records with the outbox table, and for a row its key and event id
	// (internal/logattr keys), and at debug level one line per published
	// record with its topic, partition and offset. Logf still gets every
	// line when both are set.
	Logger *slog.Logger
	// OnBatch, if set, is called after each batch (poll) with its duration
	// and the number of rows it read; relay/relayprom records it.
	OnBatch func(table string, d time.Duration, rows int)
	// Now is the clock (nil: time.Now); it gives the envelope ts_ms.
	Now func() time.Time
	// Producer, when set, publishes instead of the relay's own
	// *kafka.Producer (then BootstrapServers, Security, Kafka and
	// MessageTimeout are not used for it, and the producer should have the
	// relay's settings: enable.idempotence, acks=all, murmur2_random). The
	// relay owns it and closes it in Close. For tests: relaytest.Producer.
	// Without NewProducer it is never recreated (see NewProducer).
	Producer Producer
	// NewProducer, when set, makes the relay's producer instead of its own
	// *kafka.Producer: the first one (unless Producer is set) and each
	// replacement. The relay closes and recreates its producer when a
	// publish attempt got no acknowledgement at all and every record
	// failed locally (message timed out, timed out in queue, queue full):
	// a librdkafka producer can stay stuck so after a broker restart
	// (librdkafka #3009). A Producer supplied without NewProducer is kept.
	NewProducer func() (Producer, error)
	// BooleanColumns (MySQL / MariaDB) are tinyint(1) columns the
	// connector delivers as Connect booleans: those its schema took from a
	// CREATE TABLE (or ALTER TABLE) ... BOOLEAN it read in the binlog, i.e.
	// a table created or a column added after the connector started.
	// From the catalog (and from SHOW CREATE TABLE, which a snapshot of
	// the schema reads) such a column is tinyint(1), an int16, so the
	// relay cannot tell: list them here to publish true / false (any
	// non-zero value true) as the connector does. A name that is not a
	// tinyint(1) column of the table is an ErrConfig, and so is the option
	// on PostgreSQL.
	BooleanColumns []string
	// JSONColumns (MariaDB) are JSON columns the connector delivers as
	// io.debezium.data.Json strings: those its schema took from a CREATE
	// TABLE (or ALTER TABLE) ... JSON it read in the binlog. MariaDB's
	// JSON is LONGTEXT, which the catalog and SHOW CREATE TABLE (a schema
	// snapshot: a plain string) print, so the relay cannot tell: list them
	// here to publish the text with the Json schema name as the connector
	// does. A name that is not a longtext column of the table is an
	// ErrConfig, and so is the option on PostgreSQL and MySQL.
	JSONColumns []string
	// WorkerTimeZone is the Connect worker JVM's default time zone, the
	// one a PostgreSQL tstzrange column's text is printed in (the driver
	// sets it as the replication session's TimeZone): "" (UTC), UTC and
	// IANA zone names are modelled (eventrouter.WorkerLocation); a custom
	// GMT±hh:mm ID refuses a tstzrange column (ErrConfig).
	WorkerTimeZone string
	// MaxDatabaseOutage bounds how long Run retries (every poll interval)
	// a database that keeps failing: once no statement has succeeded for
	// that long, Run returns the last error (ErrDatabase), as a Debezium
	// task fails once its retries are exhausted. Default
	// DefaultMaxDatabaseOutage; negative: retry for ever.
	MaxDatabaseOutage time.Duration
}

// Filter is Options.Filter: the rows whose Column equals Value.
type Filter struct {
	Column string
	Value  string
}

// Stats are the relay's counters since New.
type Stats struct {
	// Published rows: acknowledged by the broker and deleted (or marked).
	Published int64
	// Dropped rows: the EventRouter drops them (errors.tolerance=all),
	// counted once while they stay in the table (they are not deleted, as
	// under Debezium; a relay restarted counts them again), plus records
	// the broker rejected under errors.tolerance=all (deleted).
	Dropped int64
	// Failed publish attempts (Kafka errors); their rows stay.
	Failed int64
	// ProducerRestarts: the times the relay closed and recreated its
	// producer after an attempt whose records all timed out locally (see
	// Options.NewProducer).
	ProducerRestarts int64
	// Batches run.
	Batches int64
	// LastBatch is the duration of the last batch.
	LastBatch time.Duration
	// Leader reports whether this relay holds the lock.
	Leader bool
	// HeldBack (PostgreSQL, database-assigned order) is the number of
	// committed rows the last drained poll left because a transaction that
	// began writing before them (any transaction of the server holding a
	// transaction id) is still open; they are published once it ends.
	HeldBack int64
	// OldestPending is the age of the oldest unpublished row: with a
	// timestamp column (table.field.event.timestamp), the database's clock
	// minus the oldest row's timestamp (UTC; refreshed at most once a
	// second); else the relay's clock minus the UUIDv7 time of the first row
	// the last batch read (0 for another id). 0 when the table was drained.
	// Rows the EventRouter dropped, left in the table, do not count.
	OldestPending time.Duration
}

// Relay publishes the rows of one outbox table as the Debezium connector
// with the EventRouter would. Not safe for concurrent use (one Run or
// Drain at a time); Stats may be called at any time.
type Relay struct {
	db       *sql.DB
	cfg      eventrouter.Config
	router   *eventrouter.Router
	t        *table
	opts     Options
	orderCol string
	runID    string
	producer Producer
	fatal    chan struct{} // closed on the producer's fatal error
	stopLogs func()        // stops forwarding librdkafka's log lines (own producer only)
	// oldStopLogs stop the log forwarders of recreated producers once
	// those are closed.
	oldStopLogs []func()
	lock        lock
	query       string
	args        []any
	pkIdx       []int
	// orderBy are the columns of the publish order (the order column, then
	// the rest of the primary key); the SELECT ends with them again, raw
	// (keyPos), for the DELETE and the keyset position.
	orderBy []string
	keyPos  []int // index in orderBy of each primary key column
	where   []string
	after   []any // keyset position within a pass (nil: from the start)
	// ahead is the next batch, read while the broker acknowledged the
	// previous one (read-ahead; nil: none).
	ahead *polled
	// dropped rows logged in this pass and the previous one: each is
	// logged (and counted) once while it stays in the table.
	dropSeen, dropPrev map[string]bool

	// fatalOnce closes fatal (the drains of recreated producers share it).
	fatalOnce sync.Once
	// makeProducer recreates the producer (nil: the caller's, kept);
	// restart, when set, is why the next attempt recreates it first.
	makeProducer func() (Producer, error)
	restart      error

	// heldQuery (PostgreSQL, database-assigned order) counts the committed
	// rows the horizon holds back; heldXmin is the horizon last logged.
	heldQuery string
	heldXmin  int64
	// fenced: the last lock attempt met the cutover's fence (logged once).
	fenced bool
	// dbFailingSince is when the database began failing (zero: it answers).
	dbFailingSince time.Time
	// ageQuery reads the age of the oldest pending row by the database's
	// clock and the timestamp column ("" without one); ageAt is when it
	// last ran.
	ageQuery string
	ageAt    time.Time

	closed bool

	// testHook, when set (by tests), is called at a batch's windows (see
	// SetTestHook in export_test.go).
	testHook func(point string)

	mu    sync.Mutex
	stats Stats
}

// New checks that the relay can honour conf (the connector config
// Debezium would get, as `outboxctl route preview` takes it) against the
// outbox table in db, and creates the Kafka producer. db is the outbox's
// database (pgx stdlib for PostgreSQL, go-sql-driver for MySQL and
// MariaDB). Errors unwrap to ErrConfig (the config or table cannot be
// honoured), ErrDatabase or ErrKafka.
func New(ctx context.Context, db *sql.DB, conf map[string]string, opts Options) (*Relay, error) {
	cfg, err := parseConfig(conf, opts)
	if err != nil {
		return nil, err
	}
	schema, name, err := tableOf(conf)
	if err != nil {
		return nil, err
	}
	t, err := loadTable(ctx, db, cfg.Connector, cfg.ColumnSettings, schema, name, opts.BooleanColumns, opts.JSONColumns)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if opts.BootstrapServers == "" && opts.Producer == nil && opts.NewProducer == nil {
		return nil, configErr(nil, "no Kafka bootstrap servers")
	}
	r := &Relay{db: db, cfg: cfg, router: eventrouter.NewRouter(cfg), t: t, opts: opts, runID: newUUID()}
	if len(t.pk) == 0 {
		return nil, configErr(nil, "outbox table %s has no primary key: the relay deletes (or marks) published rows by it", t.qualified())
	}
	orderCols, horizon, err := r.publishOrder()
	if err != nil {
		return nil, err
	}
	if err := r.checkTable(); err != nil {
		return nil, err
	}
	if err := r.buildQueries(orderCols, horizon); err != nil {
		return nil, err
	}
	r.lock = lock{t: t, name: lockName(t, opts.Filter)}
	if err := r.startProducer(); err != nil {
		return nil, err
	}
	return r, nil
}

// parseConfig reads the connector config as the EventRouter does, for an
// outbox the relay can read.
func parseConfig(conf map[string]string, opts Options) (eventrouter.Config, error) {
	cfg, err := eventrouter.ParseConfigWithOptions(conf, opts.Transform, eventrouter.ParseOptions{Worker: opts.Worker, EventRouterVersion: opts.EventRouterVersion, WorkerTimeZone: opts.WorkerTimeZone})
	if err != nil {
		return eventrouter.Config{}, configErr(err, "connector config")
	}
	switch cfg.Connector {
	case eventrouter.Postgres, eventrouter.MySQL, eventrouter.MariaDB:
	default:
		return eventrouter.Config{}, configErr(nil, "connector.class=%q: the relay reads PostgreSQL, MySQL and MariaDB outboxes", cfg.ConnectorClass)
	}
	if cfg.TopicPrefix == "" {
		return eventrouter.Config{}, configErr(nil, "topic.prefix is not set")
	}
	return cfg, nil
}

// withDefaults fills the options left zero.
func (opts Options) withDefaults() Options {
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.MessageTimeout <= 0 {
		opts.MessageTimeout = DefaultMessageTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxDatabaseOutage == 0 {
		opts.MaxDatabaseOutage = DefaultMaxDatabaseOutage
	}
	return opts
}

// publishOrder picks the publish order: the column given, else the
// database-assigned order (spec.RelayTxColumn, spec.RelaySeqColumn), which
// depends on no client clock; a table without it is refused
// (docs/relay.md, "Order"). horizon is the transaction id column that
// holds rows back on PostgreSQL ("" elsewhere).
func (r *Relay) publishOrder() (orderCols []string, horizon string, err error) {
	t, opts := r.t, r.opts
	if r.orderCol = opts.OrderColumn; r.orderCol != "" {
		switch c := t.col(r.orderCol); {
		case c == nil:
			return nil, "", configErr(nil, "order column %s is not a column of %s", r.orderCol, t.qualified())
		case c.nullable:
			return nil, "", configErr(nil, "order column %s of %s is nullable: want a NOT NULL column (rows with NULL have no place in the publish order)", r.orderCol, t.qualified())
		}
		orderCols = []string{r.orderCol}
	} else if ok, alter := t.dbOrder(); !ok {
		return nil, "", configErr(nil, "outbox table %s has no database-assigned publish order: add it with `%s` (outboxctl provision creates it with the table), or give the order column explicitly (--order-column, relay.orderColumn: then the per-aggregate order is the writer's to guarantee)", t.qualified(), alter)
	} else if t.pg() {
		orderCols = []string{spec.RelayTxColumn, spec.RelaySeqColumn}
		// Only rows of transactions below the oldest one still open: every
		// transaction with a lower id has ended, so no row can later
		// commit in front of what is published.
		horizon = t.quote(spec.RelayTxColumn)
	} else {
		orderCols = []string{spec.RelaySeqColumn}
	}
	r.orderCol = orderCols[0]
	return orderCols, horizon, nil
}

// checkTable checks the mark column and that the EventRouter routes the
// table's change events: it passes them through when its predicate does
// not apply to the table's topic, and that record (a Debezium envelope) is
// not emulated.
func (r *Relay) checkTable() error {
	t, opts := r.t, r.opts
	if opts.MarkColumn != "" {
		if c := t.col(opts.MarkColumn); c == nil || !c.nullable {
			return configErr(nil, "mark column %s must be a nullable column of %s", opts.MarkColumn, t.qualified())
		}
	}
	probe, _ := eventrouter.Route(r.cfg, eventrouter.ChangeEvent{Op: eventrouter.OpCreate, Table: t.qualified()})
	if probe.PassThrough {
		return configErr(nil, "%s", probe.Reason+" (the relay publishes only what the EventRouter routes)")
	}
	return nil
}

// buildQueries builds the poll query (its columns, conditions, keyset
// order and batch), the held-back and oldest-age queries, in phases: the
// conditions of the options, the queries over every unpublished row (the
// oldest age, the rows the horizon holds back), the publish order's keys,
// and the poll's SELECT.
func (r *Relay) buildQueries(orderCols []string, horizon string) error {
	conds, err := r.conditions()
	if err != nil {
		return err
	}
	r.ageQuery = r.oldestAgeQuery(conds)
	if horizon != "" {
		r.heldQuery = r.heldBackQuery(conds, horizon)
		conds = append(conds, horizon+" < "+snapshotXmin)
	}
	r.where = conds
	r.orderBy, r.keyPos = publishKeys(orderCols, r.t.pk)
	r.pkIdx = r.t.keyColumns()
	r.query = r.pollSelect()
	return nil
}

// snapshotXmin is PostgreSQL's horizon: the oldest transaction still open.
const snapshotXmin = "txid_snapshot_xmin(txid_current_snapshot())"

// conditions are the options' conditions on the rows to publish (not yet
// marked, the filter's value), their parameters set in r.args.
func (r *Relay) conditions() ([]string, error) {
	t, opts := r.t, r.opts
	var conds []string
	if opts.MarkColumn != "" {
		conds = append(conds, t.quote(opts.MarkColumn)+" IS NULL")
	}
	if f := opts.Filter; f.Column != "" {
		if t.col(f.Column) == nil {
			return nil, configErr(nil, "filter column %s is not a column of %s", f.Column, t.qualified())
		}
		r.args = append(r.args, f.Value)
		conds = append(conds, t.quote(f.Column)+" = "+t.placeholder(len(r.args)))
	}
	return conds, nil
}

// heldBackQuery counts the rows under conds that the horizon holds back
// (PostgreSQL): committed after the oldest open transaction began, below
// the horizon of the last poll (its parameter follows r.args).
func (r *Relay) heldBackQuery(conds []string, horizon string) string {
	t := r.t
	held := append(slices.Clone(conds), horizon+" >= "+snapshotXmin, horizon+" < "+t.placeholder(len(r.args)+1))
	return fmt.Sprintf("SELECT count(*), %s FROM %s WHERE %s", snapshotXmin, t.from(), strings.Join(held, " AND "))
}

// oldestAgeQuery reads the age in microseconds of the oldest row under
// conds (the held back ones too) by the database's clock, from the
// EventRouter's timestamp column when it is a wall-clock timestamp in UTC,
// as the writer and the column default fill it; "" without one.
func (r *Relay) oldestAgeQuery(conds []string) string {
	t := r.t
	c := t.col(r.cfg.FieldTimestamp)
	if c == nil || (c.schema.Name != eventrouter.NameTimestamp && c.schema.Name != eventrouter.NameMicroTimestamp && c.schema.Name != eventrouter.NameNanoTimestamp) {
		return ""
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	q := t.quote(c.name)
	if t.pg() {
		return fmt.Sprintf("SELECT (EXTRACT(EPOCH FROM ((now() AT TIME ZONE 'UTC') - MIN(%s))) * 1000000)::bigint FROM %s%s", q, t.from(), where)
	}
	return fmt.Sprintf("SELECT TIMESTAMPDIFF(MICROSECOND, MIN(%s), UTC_TIMESTAMP(6)) FROM %s%s", q, t.from(), where)
}

// publishKeys are the columns of the publish order, the order columns
// then the rest of the primary key pk, and the index in them of each
// primary key column.
func publishKeys(orderCols, pk []string) (orderBy []string, keyPos []int) {
	orderBy = slices.Clone(orderCols)
	for _, k := range pk {
		if !slices.Contains(orderCols, k) {
			orderBy = append(orderBy, k)
		}
	}
	for _, k := range pk {
		keyPos = append(keyPos, slices.Index(orderBy, k))
	}
	return orderBy, keyPos
}

// pollSelect is the poll's SELECT with a %s for its WHERE clause: every
// column (selectExpr), then the publish order's columns raw (rawExpr) for
// the keyset position and the DELETE, in the publish order, one batch.
func (r *Relay) pollSelect() string {
	t := r.t
	var exprs, order []string
	for _, c := range t.cols {
		exprs = append(exprs, t.selectExpr(c))
	}
	for i, o := range r.orderBy {
		exprs = append(exprs, t.rawExpr(o)+" AS "+t.quote(fmt.Sprintf("outboxctl_key_%d", i)))
		order = append(order, t.quote(o))
	}
	return fmt.Sprintf("SELECT %s FROM %s%%s ORDER BY %s LIMIT %d", strings.Join(exprs, ", "), t.from(), strings.Join(order, ", "), r.opts.Batch)
}

// startProducer creates the producer (unless Options.Producer gives it)
// and drains its events.
func (r *Relay) startProducer() error {
	opts := r.opts
	if r.makeProducer = opts.NewProducer; r.makeProducer == nil && opts.Producer == nil {
		r.makeProducer = func() (Producer, error) { return r.newProducer(opts) }
	}
	if r.producer = opts.Producer; r.producer == nil {
		var err error
		if r.producer, err = r.createProducer(); err != nil {
			return err
		}
	}
	r.fatal = make(chan struct{})
	go r.drainEvents(r.producer.Events())
	return nil
}

// newProducer creates the relay's own producer from opts.
func (r *Relay) newProducer(opts Options) (*kafka.Producer, error) {
	props := maps.Clone(opts.Kafka)
	delete(props, "bootstrap.servers") // BootstrapServers wins
	pc, err := kafkaclient.Config{BootstrapServers: opts.BootstrapServers, Security: opts.Security, Properties: props}.ConfigMap()
	if err != nil {
		return nil, configErr(err, "kafka producer")
	}
	pc["enable.idempotence"] = true
	pc["acks"] = "all"
	// Kafka's Java producer partitions a keyed record by murmur2 of the key
	// bytes, as Kafka Connect's does; librdkafka's default (crc32) differs.
	pc["partitioner"] = "murmur2_random"
	pc["message.timeout.ms"] = int(opts.MessageTimeout / time.Millisecond)
	// A batch is produced whole and then waited for, so the producer has
	// nothing to gain from lingering (librdkafka's default is 5 ms, added
	// to every batch); a linger.ms the caller sets wins.
	if _, ok := props["linger.ms"]; !ok {
		if _, ok := props["queue.buffering.max.ms"]; !ok {
			pc["linger.ms"] = 0
		}
	}
	// librdkafka's log lines go to Logger at debug level, never to stderr.
	stop := kafkaclient.ForwardLogs(pc, func(format string, args ...any) { r.logAttrs(slog.LevelDebug, format, args) })
	p, err := kafka.NewProducer(&pc)
	if err != nil {
		stop()
		return nil, fmt.Errorf("%w: producer: %v", ErrKafka, err)
	}
	if r.stopLogs != nil { // a recreation: the old producer's forwarder stops with it
		r.oldStopLogs = append(r.oldStopLogs, r.stopLogs)
	}
	r.stopLogs = stop
	return p, nil
}

// createProducer calls r.makeProducer; its errors unwrap to ErrKafka (or
// ErrConfig).
func (r *Relay) createProducer() (Producer, error) {
	p, err := r.makeProducer()
	switch {
	case err != nil && (errors.Is(err, ErrKafka) || errors.Is(err, ErrConfig)):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: producer: %w", ErrKafka, err)
	case p == nil:
		return nil, fmt.Errorf("%w: producer: Options.NewProducer returned none", ErrKafka)
	}
	return p, nil
}

// drainEvents drains the producer's event channel (errors, stats) until
// Close. A fatal error closes r.fatal: Run stops on it.
func (r *Relay) drainEvents(events chan kafka.Event) {
	for ev := range events {
		e, ok := ev.(kafka.Error)
		switch {
		case !ok:
		case e.IsFatal():
			r.logAttrs(slog.LevelError, "kafka: fatal producer error: %v (the relay stops)", []any{e})
			r.fatalOnce.Do(func() { close(r.fatal) })
		case e.Code() == kafka.ErrAllBrokersDown || e.Code() == kafka.ErrTransport:
		default:
			if se := kafkaclient.Classify(e); se != nil {
				r.logf("kafka: %v", se) // names the cause: authentication or TLS
				continue
			}
			r.logf("kafka: %v", e)
		}
	}
}

// fatalErr is the producer's fatal error as the relay returns it, or nil.
func (r *Relay) fatalErr() error {
	if err := r.producer.GetFatalError(); err != nil {
		return fmt.Errorf("%w: %w: %v (the rows not acknowledged stay; a new relay publishes them)", ErrKafka, ErrProducerFatal, err)
	}
	return nil
}

// Table is the outbox table the relay reads, as Debezium names it.
func (r *Relay) Table() string { return r.t.qualified() }

// RunID is the __debezium.context.runId of this relay's records (random per
// New, as per task start).
func (r *Relay) RunID() string { return r.runID }

// Stats returns the counters.
func (r *Relay) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Close releases the lock and closes the producer (after flushing it).
func (r *Relay) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.lock.release()
	r.producer.Flush(int(r.opts.MessageTimeout / time.Millisecond))
	r.producer.Close()
	if r.stopLogs != nil {
		r.stopLogs()
	}
	for _, stop := range r.oldStopLogs {
		stop()
	}
}

func (r *Relay) logf(format string, args ...any) {
	r.logAttrs(slog.LevelInfo, format, args)
}

// logAttrs logs the line format/args to Logf and, with attrs and the
// table, to Logger.
func (r *Relay) logAttrs(level slog.Level, format string, args []any, attrs ...slog.Attr) {
	if r.opts.Logf != nil && level >= slog.LevelInfo {
		r.opts.Logf(format, args...)
	}
	if l := r.opts.Logger; l != nil && l.Enabled(context.Background(), level) {
		l.LogAttrs(context.Background(), level, fmt.Sprintf(format, args...), append(attrs, slog.String(logattr.Table, r.t.qualified()))...)
	}
}

// rowAttrs are the log attributes of a row.
func rowAttrs(p pending) []slog.Attr {
	return []slog.Attr{slog.String(logattr.Key, keyText(p.key)), slog.String(logattr.EventID, fmt.Sprint(p.eventID))}
}

// Run publishes until ctx is done or a row fails the EventRouter. Only the
// relay holding the outbox's lock publishes; the others are standbys that
// retry the lock every poll interval and take over when its holder's
// database session ends. A retriable Kafka error leaves the rows that the
// broker did not acknowledge in the table; they are retried after the poll
// interval, in order. A database error is retried too, until the database
// has failed for Options.MaxDatabaseOutage. Run returns nil when ctx is
// cancelled (after deleting the rows of the batch in flight that the
// broker acknowledged), else an error unwrapping to ErrRowFailed,
// ErrRejected (a record the broker rejects for good, with
// errors.tolerance=none: a *RejectedError), ErrProducerFatal (a fatal
// producer error), ErrNotDeleted (the rows deleted after publishing are
// not those published), or ErrDatabase once the outage lasted
// MaxDatabaseOutage. In each case the rows not published stay in the
// table.
func (r *Relay) Run(ctx context.Context) error {
	for {
		if ctx.Err() != nil {
			return nil
		}
		leader, err := r.lead(ctx)
		if err != nil && !errors.Is(err, ErrFenced) { // lead logs the fence once
			r.logf("relay: %v", err)
		}
		// a standby's lock attempt is its statement; a leader's is its batch
		if (err != nil || !leader) && r.outageOver(err) {
			return r.outageErr(err)
		}
		if leader {
			n, err := r.batch(ctx)
			if err == nil {
				r.outageOver(nil)
			}
			switch {
			case err == nil && n == r.opts.Batch:
				continue // more rows are pending
			case err == nil:
				r.checkHeldBack(ctx, math.MaxInt64)
			case errors.Is(err, ErrRowFailed), errors.Is(err, ErrRejected), errors.Is(err, ErrProducerFatal), errors.Is(err, ErrNotDeleted):
				return err
			case ctx.Err() != nil:
				return nil
			default:
				r.logf("relay: %v (rows stay; retrying in %s)", err, r.opts.PollInterval)
			}
			if r.outageOver(err) {
				return r.outageErr(err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.opts.PollInterval):
		case <-r.opts.Wake:
		case <-r.fatal:
			if err := r.fatalErr(); err != nil {
				return err
			}
			return fmt.Errorf("%w: %w", ErrKafka, ErrProducerFatal)
		}
	}
}

// outageOver tracks database failures across Run's attempts: err (nil, or
// the error of the latest lead or batch) ends the outage when the database
// answered, starts or continues it when it unwraps to ErrDatabase. It
// reports whether the outage has lasted Options.MaxDatabaseOutage.
func (r *Relay) outageOver(err error) bool {
	if !errors.Is(err, ErrDatabase) {
		if err == nil || !errors.Is(err, ErrFenced) {
			r.dbFailingSince = time.Time{}
		}
		return false
	}
	if r.dbFailingSince.IsZero() {
		r.dbFailingSince = time.Now()
	}
	return r.opts.MaxDatabaseOutage > 0 && time.Since(r.dbFailingSince) >= r.opts.MaxDatabaseOutage
}

func (r *Relay) outageErr(err error) error {
	return fmt.Errorf("database of %s failing for %s (MaxDatabaseOutage), giving up: %w", r.t.qualified(), time.Since(r.dbFailingSince).Round(time.Millisecond), err)
}

// lead takes (or checks) the lock.
func (r *Relay) lead(ctx context.Context) (bool, error) {
	was := r.lock.conn != nil
	if was {
		ok, err := r.lock.held(ctx)
		if ok {
			return true, nil
		}
		if err == nil {
			r.logf("relay: lost the lock of %s (session ended): standby", r.t.qualified())
		}
	}
	ok, err := r.lock.tryAcquire(ctx, r.db)
	switch fenced := errors.Is(err, ErrFenced); {
	case fenced && !r.fenced:
		r.fenced = true
		r.logf("relay: %v: standby, not publishing", err)
	case ok && r.fenced:
		r.fenced = false
		r.logf("relay: the fence of %s is gone", r.t.qualified())
	}
	if ok && !was {
		r.logf("relay: holding the lock of %s: publishing", r.t.qualified())
	}
	r.mu.Lock()
	r.stats.Leader = ok
	r.mu.Unlock()
	return ok, err
}

// checkHeldBack counts, after a poll that drained the table, the committed
// rows the horizon holds back, and logs when an open transaction starts (or
// stops) holding them back. No-op without the database-assigned order on
// PostgreSQL.
//
// It counts only rows of transactions below before (math.MaxInt64: all).
func (r *Relay) checkHeldBack(ctx context.Context, before int64) int64 {
	if r.heldQuery == "" || r.lock.conn == nil {
		return 0
	}
	var n, xmin int64
	if err := r.lock.conn.QueryRowContext(ctx, r.heldQuery, append(slices.Clone(r.args), before)...).Scan(&n, &xmin); err != nil {
		return 0 // the next batch reports a database that fails
	}
	r.mu.Lock()
	r.stats.HeldBack = n
	r.mu.Unlock()
	switch {
	case n > 0 && xmin != r.heldXmin:
		var who string
		_ = r.lock.conn.QueryRowContext(ctx, `SELECT format('pid %s, open for %s, %s', pid, date_trunc('second', now() - xact_start), state)
FROM pg_stat_activity WHERE backend_xid = ($1::bigint % 4294967296)::text::xid`, xmin).Scan(&who)
		r.logAttrs(slog.LevelWarn, "relay: %d committed rows of %s wait for the open transaction %d (%s): rows are published in transaction order, and it began writing first", []any{n, r.t.qualified(), xmin, who})
		r.heldXmin = xmin
	case n == 0 && r.heldXmin != 0:
		r.heldXmin = 0
	}
	return n
}

// Drain publishes every row pending now and returns (the --once mode). It
// fails with ErrLocked when another relay holds the lock. With the
// database-assigned order on PostgreSQL, rows committed before Drain began
// that wait behind a transaction open then are waited for (every poll
// interval, as long as ctx lets it; the wait is logged with the blocking
// session); rows of transactions that begin later are not.
func (r *Relay) Drain(ctx context.Context) error {
	ok, err := r.lead(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s", ErrLocked, r.t.qualified())
	}
	before := int64(math.MaxInt64)
	if r.heldQuery != "" {
		// every transaction that can hold rows committed by now has an id
		// below the current snapshot's xmax
		if err := r.lock.conn.QueryRowContext(ctx, "SELECT txid_snapshot_xmax(txid_current_snapshot())").Scan(&before); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrDatabase, r.t.qualified(), err)
		}
	}
	for {
		n, err := r.batch(ctx)
		if err != nil {
			return err
		}
		if n == r.opts.Batch {
			continue
		}
		held := r.checkHeldBack(ctx, before)
		if held == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %d rows of %s wait for a transaction that began writing before them and is still open: %v", ErrHeldBack, held, r.t.qualified(), ctx.Err())
		case <-time.After(r.opts.PollInterval):
		}
	}
}

// pending is one row of a batch.
type pending struct {
	key     []any // as the EventRouter gets it
	pos     []any // the order key as scanned (rawKey)
	eventID any
	rec     *eventrouter.Record // nil: dropped, or rejected by the broker
	stays   bool                // dropped by the EventRouter: left in the table
	reason  string
}

// batch publishes the oldest rows (at most Batch) and deletes (or marks)
// those the broker acknowledged. It returns the number of rows read. There
// is no watermark: every batch reads the oldest rows still in the table, so
// a row whose transaction committed late is read by the next poll.
func (r *Relay) batch(ctx context.Context) (n int, err error) {
	start := time.Now()
	defer func() {
		d := time.Since(start)
		r.mu.Lock()
		r.stats.Batches++
		r.stats.LastBatch = d
		r.mu.Unlock()
		if r.opts.OnBatch != nil {
			r.opts.OnBatch(r.t.qualified(), d, n)
		}
	}()
	conn := r.lock.conn
	r.lock.okAt = time.Time{} // set again once the session has answered
	var cur polled
	if a := r.ahead; a != nil && a.conn == conn && slices.Equal(a.after, r.after) {
		cur = *a // read while the previous batch's acks came in
	} else {
		cur = r.poll(ctx, conn, r.after)
	}
	r.ahead = nil
	if cur.err != nil {
		return 0, cur.err
	}
	n, batch, stop := cur.n, cur.batch, cur.stop
	r.lock.okAt = time.Now()
	r.pendingAge(ctx, conn, batch)
	// Read-ahead: a full batch routed whole continues the pass, so the next
	// SELECT (from this batch's last row: the rows in flight are excluded)
	// runs on the session while the broker acknowledges this batch. Its
	// rows are produced only after this batch is acknowledged and deleted,
	// so the order per aggregate is kept; the read-ahead is dropped when
	// this batch does not end cleanly.
	var next chan polled
	produced := func() {
		if n != r.opts.Batch || stop != nil || len(batch) == 0 {
			return
		}
		next = make(chan polled, 1)
		after := batch[len(batch)-1].pos
		go func() {
			r.hook("read-ahead")
			next <- r.poll(ctx, conn, after)
		}()
	}
	done, perr := r.publishThen(batch, produced)
	var ahead *polled
	if next != nil {
		a := <-next // the session is free again
		if a.err == nil && ctx.Err() == nil {
			ahead = &a
		}
	}
	r.hook("acked")
	// The broker has the records: delete them even when ctx is cancelled
	// (a graceful stop), or they would be published again.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := r.remove(rctx, conn, done); err != nil {
		r.lock.okAt = time.Time{}
		r.after = nil
		return n, err
	}
	if perr != nil {
		r.after = nil
		return n, perr
	}
	if stop != nil {
		r.after = nil
		return n, stop
	}
	r.advance(n, batch)
	if ahead != nil && slices.Equal(ahead.after, r.after) {
		r.ahead = ahead
	}
	return n, nil
}

// polled is the result of one poll: the rows read (n), those routed
// (batch; up to the first row the EventRouter failed on, stop), or the
// database's error.
type polled struct {
	conn  *sql.Conn // the session it was read on
	after []any     // the keyset position it was read from
	n     int
	batch []pending
	stop  error
	err   error
}

// poll reads and routes the oldest rows (at most Batch) after the keyset
// position after (nil: from the start) on conn.
func (r *Relay) poll(ctx context.Context, conn *sql.Conn, after []any) polled {
	res := polled{conn: conn, after: after}
	query, args := r.pollQuery(after)
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		res.err = fmt.Errorf("%w: poll %s: %v", ErrDatabase, r.t.qualified(), err)
		return res
	}
	for rows.Next() {
		res.n++
		dests := make([]any, len(r.t.cols), len(r.t.cols)+len(r.orderBy))
		for i, c := range r.t.cols {
			dests[i] = scanDest(c)
		}
		for range r.orderBy {
			dests = append(dests, new(any))
		}
		if err := rows.Scan(dests...); err != nil {
			rows.Close()
			return polled{err: fmt.Errorf("%w: read %s: %v", ErrDatabase, r.t.qualified(), err)}
		}
		if res.stop != nil {
			continue
		}
		p, err := r.route(dests[:len(r.t.cols)])
		if err != nil {
			res.stop = err
			continue
		}
		p.pos = r.rawKey(dests[len(r.t.cols):])
		res.batch = append(res.batch, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return polled{err: fmt.Errorf("%w: read %s: %v", ErrDatabase, r.t.qualified(), err)}
	}
	return res
}

// removeTimeout bounds the DELETE (or UPDATE) of a published batch, which
// runs on after its context is cancelled.
const removeTimeout = 15 * time.Second

// pollQuery is the batch's SELECT: from the keyset position after, if any.
func (r *Relay) pollQuery(after []any) (string, []any) {
	conds, args := r.where, r.args
	if after != nil {
		args = append([]any{}, r.args...)
		// (a, b) > (x, y) as a > x OR (a = x AND b > y), placeholders in
		// text order (MySQL's are positional)
		var gtFrom func(i int) string
		gtFrom = func(i int) string {
			q := r.t.quote(r.orderBy[i])
			args = append(args, after[i])
			gt := q + " > " + r.t.placeholder(len(args))
			if i == len(r.orderBy)-1 {
				return gt
			}
			args = append(args, after[i])
			eq := q + " = " + r.t.placeholder(len(args))
			return "(" + gt + " OR (" + eq + " AND " + gtFrom(i+1) + "))"
		}
		conds = append(append([]string{}, conds...), gtFrom(0))
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return fmt.Sprintf(r.query, where), args
}

// advance moves the keyset position of the pass past a batch that was
// done whole: rows left in the table (dropped ones) are not read again
// before the pass ends. A batch shorter than Batch ends the pass; the next
// one starts from the oldest row again (no watermark: a row whose
// transaction committed late is read then).
func (r *Relay) advance(n int, batch []pending) {
	if n < r.opts.Batch || len(batch) == 0 {
		r.after = nil
		r.dropPrev, r.dropSeen = r.dropSeen, nil
		return
	}
	r.after = batch[len(batch)-1].pos
}

// rawKey is the raw order key of a row as scanned: the values bound to
// the DELETE and the keyset position, as the database gave them (no
// Connect conversion); text for every type but binary ones.
func (r *Relay) rawKey(dests []any) []any {
	out := make([]any, len(dests))
	for i, d := range dests {
		v := *d.(*any)
		if b, ok := v.([]byte); ok && r.t.col(r.orderBy[i]).schema.Type != eventrouter.Bytes {
			v = string(b)
		}
		out[i] = v
	}
	return out
}

// pendingAge sets Stats.OldestPending from a batch: 0 when it is empty;
// else, with a timestamp column (table.field.event.timestamp), the
// database's clock minus the oldest pending row's timestamp (read at most
// once per freshFor; the writer fills the column from its clock unless it
// leaves it to the column default), else the relay's clock minus the first
// row's UUIDv7 id time (0 for another id).
func (r *Relay) pendingAge(ctx context.Context, conn *sql.Conn, batch []pending) {
	var age time.Duration
	switch {
	case len(batch) == 0:
	case r.ageQuery != "":
		if time.Since(r.ageAt) < freshFor {
			return // keep the last value
		}
		var micros sql.NullInt64
		if err := conn.QueryRowContext(ctx, r.ageQuery, r.args...).Scan(&micros); err != nil || !micros.Valid {
			return
		}
		r.ageAt = time.Now()
		age = max(0, time.Duration(micros.Int64)*time.Microsecond)
	default:
		for _, p := range batch {
			if p.stays {
				continue // a dropped row left in the table is not pending
			}
			if ts, ok := uuidV7Time(p.eventID); ok {
				age = r.opts.Now().Sub(ts)
			}
			break
		}
	}
	r.mu.Lock()
	r.stats.OldestPending = age
	r.mu.Unlock()
}

// route builds the change event Debezium would hand the EventRouter for a
// row (an insert) and runs it.
func (r *Relay) route(dests []any) (pending, error) {
	ev := eventrouter.ChangeEvent{Op: eventrouter.OpCreate, Table: r.t.qualified(), RunID: r.runID, KeyColumns: r.t.pk}
	ts := r.opts.Now().UnixMilli()
	ev.TsMs = &ts
	var p pending
	for i, c := range r.t.cols {
		v, err := r.t.connectValue(c, dests[i])
		var te *eventrouter.TaskError
		if errors.As(err, &te) {
			// a value converter throws under
			// event.converting.failure.handling.mode=fail: the connector
			// fails on this row, whatever errors.tolerance says
			if ev.ConnectorError == nil {
				ev.ConnectorError = te
			}
			v, err = nil, nil
		}
		if err != nil {
			return p, err
		}
		ev.After = append(ev.After, eventrouter.Column{Name: c.name, Schema: c.schema, Value: v})
	}
	for _, i := range r.pkIdx {
		p.key = append(p.key, ev.After[i].Value)
	}
	for _, c := range ev.After {
		if c.Name == r.cfg.FieldEventID {
			p.eventID = c.Value
		}
	}
	res, err := r.router.Route(ev)
	for _, l := range res.Logs {
		r.logf("eventrouter: %s", l)
	}
	if err != nil {
		return p, &RowError{Key: keyText(p.key), Err: err}
	}
	switch {
	case res.PassThrough:
		return p, &RowError{Key: keyText(p.key), Err: fmt.Errorf("%w: %s", eventrouter.ErrUnsupported, res.Reason)}
	case res.Dropped:
		p.reason, p.stays = res.Reason, true
		if r.firstDrop(p) {
			r.logAttrs(slog.LevelInfo, "relay: row %s dropped (it stays in the table): %s", []any{keyText(p.key), res.Reason}, rowAttrs(p)...)
		}
	default:
		p.rec = res.Record
	}
	return p, nil
}

// publish produces the batch's records and waits for every delivery
// report. It returns the rows that are done: acknowledged by the broker,
// dropped by the EventRouter, or (errors.tolerance=all) rejected by the
// broker for good. The others stay for the next attempt: a record that
// failed and the rows not produced after a Produce error. An acknowledged
// record is done even when an earlier one failed: publishing it again would
// only add a duplicate (within a partition the idempotent producer keeps
// the order, so a failed record's later records of the same partition
// normally fail with it).
//
// The error is, by precedence: the producer's fatal error (ErrProducerFatal),
// the first record the broker rejected for good with errors.tolerance=none
// (a *RejectedError), the first retriable error (ErrKafka alone).
func (r *Relay) publish(batch []pending) ([]pending, error) {
	return r.publishThen(batch, nil)
}

// publishThen is publish, calling produced (if not nil) once every record
// of the batch was handed to the producer without an error, before the
// wait for the delivery reports.
func (r *Relay) publishThen(batch []pending, produced func()) ([]pending, error) {
	if err := r.recreateProducer(); err != nil {
		return nil, err
	}
	ch := make(chan kafka.Event, len(batch)+1)
	sent := 0
	unsent := len(batch) // the rows from here on were not produced
	ok := make([]bool, len(batch))
	var rejected, retry error
	var stall stalled
	// fail classifies the error of row i's record.
	fail := func(i int, err error) {
		stall.fail(err)
		var ke kafka.Error
		if !errors.As(err, &ke) || ke.IsFatal() || ke.Code() == kafka.ErrFatal || retriable(ke) {
			if retry == nil {
				retry = err
			}
			return
		}
		p := batch[i]
		if r.cfg.ErrorsTolerance == "all" {
			// Connect with errors.tolerance=all skips a record the broker
			// rejects (for example a timestamp too far in the future).
			r.logAttrs(slog.LevelWarn, "relay: row %s skipped (errors.tolerance=all): %v", []any{keyText(p.key), err}, rowAttrs(p)...)
			batch[i].rec, batch[i].reason = nil, "rejected by the broker: "+err.Error()
			ok[i] = true
			return
		}
		if rejected == nil {
			rejected = &RejectedError{Key: keyText(p.key), EventID: fmt.Sprint(p.eventID), Topic: p.rec.Topic, Err: err}
			r.logAttrs(slog.LevelError, "relay: %v", []any{rejected}, append(rowAttrs(p), slog.String(logattr.Topic, p.rec.Topic))...)
		}
	}
	for i, p := range batch {
		if p.rec == nil {
			ok[i] = true
			continue
		}
		m := message(p.rec)
		m.Opaque = i
		if err := r.producer.Produce(m, ch); err != nil {
			// queue full, a record over message.max.bytes, a fatal error…
			fail(i, err)
			if ok[i] { // skipped (errors.tolerance=all)
				continue
			}
			unsent = i // this row and the rest stay
			break
		}
		sent++
	}
	if produced != nil && unsent == len(batch) && rejected == nil && retry == nil {
		produced()
	}
	for j := 0; j < sent; j++ {
		m, isMsg := (<-ch).(*kafka.Message)
		if !isMsg {
			continue
		}
		i := m.Opaque.(int)
		if err := m.TopicPartition.Error; err != nil {
			fail(i, err)
			continue
		}
		ok[i] = true
		stall.acked = true
		if r.opts.Logger != nil {
			tp := m.TopicPartition
			r.logAttrs(slog.LevelDebug, "relay: row %s published", []any{keyText(batch[i].key)},
				append(rowAttrs(batch[i]), slog.String(logattr.Topic, *tp.Topic), slog.Int(logattr.Partition, int(tp.Partition)), slog.Int64(logattr.Offset, int64(tp.Offset)))...)
		}
	}
	var done []pending
	for i := range batch[:unsent] {
		if ok[i] {
			done = append(done, batch[i])
		}
	}
	err := r.fatalErr()
	switch {
	case err != nil:
	case rejected != nil:
		err = rejected
	case retry != nil:
		err = fmt.Errorf("%w: %v", ErrKafka, retry)
		r.restart = stall.reason()
	}
	if err != nil {
		r.mu.Lock()
		r.stats.Failed++
		r.mu.Unlock()
	}
	return done, err
}

// stalled tells, over a publish attempt, whether the producer looks stuck:
// nothing acknowledged, and every record failed locally without an answer
// of the broker (timed out, or the queue full).
type stalled struct {
	acked, other bool
	first        error
}

func (s *stalled) fail(err error) {
	var ke kafka.Error
	if !errors.As(err, &ke) {
		s.other = true
		return
	}
	switch ke.Code() {
	case kafka.ErrMsgTimedOut, kafka.ErrTimedOutQueue, kafka.ErrQueueFull:
		if s.first == nil {
			s.first = err
		}
	default:
		s.other = true
	}
}

// reason is the error of a stuck attempt, or nil.
func (s *stalled) reason() error {
	if s.acked || s.other {
		return nil
	}
	return s.first
}

// recreateProducer closes and recreates the producer when the last attempt
// found it stuck (r.restart) and the relay can (r.makeProducer): librdkafka's
// producer can stay so after a broker restart, every record timing out while
// the broker is back (librdkafka #3009). The new producer has a new
// idempotent producer id: records of the failed attempts that reached the
// broker after all are published again (at least once). A failed creation
// keeps the old producer and is retried before the next attempt.
func (r *Relay) recreateProducer() error {
	if r.restart == nil || r.makeProducer == nil {
		return nil
	}
	p, err := r.createProducer()
	if err != nil {
		return fmt.Errorf("recreate the stuck producer: %w (rows stay)", err)
	}
	r.logAttrs(slog.LevelWarn, "relay: recreating the Kafka producer: the last attempt got no acknowledgement, every record failed locally (%v); the rows stay and are published again in order", []any{r.restart})
	old := r.producer
	r.producer, r.restart = p, nil
	old.Close()
	for _, stop := range r.oldStopLogs {
		stop()
	}
	r.oldStopLogs = nil
	go r.drainEvents(p.Events())
	r.mu.Lock()
	r.stats.ProducerRestarts++
	r.mu.Unlock()
	return nil
}

// retriable: the broker may accept the record later (Kafka down, a
// timeout, a missing topic or partition leader, not enough replicas), as
// Kafka's Java producer in Connect retries it. The permanent errors are
// the rejections of the record itself, named here: too large, invalid,
// a timestamp out of bounds, a topic that is invalid or not authorized.
func retriable(e kafka.Error) bool {
	switch e.Code() {
	case kafka.ErrMsgSizeTooLarge, // MESSAGE_TOO_LARGE, or over the producer's message.max.bytes
		kafka.ErrInvalidMsgSize,
		kafka.ErrRecordListTooLarge,
		kafka.ErrInvalidRecord,
		kafka.ErrInvalidTimestamp, // log.message.timestamp.{before,after}.max.ms
		kafka.ErrTopicException,   // INVALID_TOPIC_EXCEPTION
		kafka.ErrTopicAuthorizationFailed,
		kafka.ErrClusterAuthorizationFailed,
		kafka.ErrTransactionalIDAuthorizationFailed,
		kafka.ErrUnsupportedForMessageFormat,
		kafka.ErrUnsupportedCompressionType,
		kafka.ErrPolicyViolation,
		kafka.ErrInvalidArg:
		return false
	}
	return true
}

func message(rec *eventrouter.Record) *kafka.Message {
	// a Java identity hash in the text (PlaceholderIdentityHash) gets
	// random digits: as arbitrary as the connector's, which differ per JVM
	next := mrand.Uint32
	m := &kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &rec.Topic, Partition: kafka.PartitionAny},
		Key: eventrouter.FillIdentityHashes(rec.Key, rec.KeyHashes, next), Value: eventrouter.FillIdentityHashes(rec.Value, rec.ValueHashes, next)}
	if rec.Partition != nil {
		m.TopicPartition.Partition = *rec.Partition
	}
	for _, h := range rec.Headers {
		m.Headers = append(m.Headers, kafka.Header{Key: h.Key, Value: eventrouter.FillIdentityHashes(h.Value, h.Hashes, next)})
	}
	if rec.Timestamp != nil {
		m.Timestamp = time.UnixMilli(*rec.Timestamp)
		m.TimestampType = kafka.TimestampCreateTime
	}
	return m
}

// remove deletes (or marks) the done rows by their primary key as scanned,
// except those the EventRouter dropped (they stay, as under Debezium). The
// rows hit must be the rows published, else ErrNotDeleted.
func (r *Relay) remove(ctx context.Context, conn *sql.Conn, done []pending) error {
	var del []pending
	var pub int64
	for _, p := range done {
		if !p.stays {
			del = append(del, p)
		}
		if p.rec != nil {
			pub++
		}
	}
	r.mu.Lock()
	r.stats.Dropped += int64(len(del)) - pub // rejected by the broker (errors.tolerance=all)
	r.mu.Unlock()
	if len(del) == 0 {
		return nil
	}
	r.hook("delete")
	t := r.t
	hit, err := r.removeRows(ctx, conn, del)
	if err != nil {
		return fmt.Errorf("%w: delete published rows of %s (they will be published again): %v", ErrDatabase, t.qualified(), err)
	}
	if hit != int64(len(del)) {
		return fmt.Errorf("%w: %w: %s: %d of %d published rows deleted (first key %s); stopping", ErrDatabase, ErrNotDeleted, t.qualified(), hit, len(del), keyText(del[0].key))
	}
	r.mu.Lock()
	r.stats.Published += pub
	r.mu.Unlock()
	return nil
}

// removeRows deletes (or marks) rows by their primary key as scanned and
// returns the number of rows hit. PostgreSQL: one statement with an IN
// list of keys. MySQL/MariaDB: one statement per row by its whole primary
// key, in one transaction: a unique lookup locks that row only, whereas
// a range scan (an IN or OR list) also locks the next index record, which
// can be a writer's uncommitted insert, and then waits for that writer.
func (r *Relay) removeRows(ctx context.Context, conn *sql.Conn, rows []pending) (int64, error) {
	t := r.t
	var cols []string
	for _, k := range t.pk {
		cols = append(cols, t.quote(k))
	}
	stmt := "DELETE FROM " + t.from() + " WHERE "
	if r.opts.MarkColumn != "" {
		stmt = "UPDATE " + t.from() + " SET " + t.quote(r.opts.MarkColumn) + " = CURRENT_TIMESTAMP WHERE "
	}
	if t.pg() {
		var items []string
		var args []any
		for _, p := range rows {
			var ph []string
			for _, j := range r.keyPos {
				args = append(args, p.pos[j])
				ph = append(ph, t.placeholder(len(args)))
			}
			items = append(items, "("+strings.Join(ph, ", ")+")")
		}
		res, err := conn.ExecContext(ctx, stmt+"("+strings.Join(cols, ", ")+") IN ("+strings.Join(items, ", ")+")", args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	ps, err := tx.PrepareContext(ctx, stmt+strings.Join(cols, " = ? AND ")+" = ?")
	if err != nil {
		return 0, err
	}
	defer ps.Close()
	var hit int64
	args := make([]any, len(r.keyPos))
	for _, p := range rows {
		for i, j := range r.keyPos {
			args[i] = p.pos[j]
		}
		res, err := ps.ExecContext(ctx, args...)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		hit += n
	}
	return hit, tx.Commit()
}

// firstDrop reports whether a dropped row is new to this pass and the
// previous one (and counts it).
func (r *Relay) firstDrop(p pending) bool {
	k := keyText(p.key)
	if r.dropSeen == nil {
		r.dropSeen = map[string]bool{}
	}
	seen := r.dropSeen[k] || r.dropPrev[k]
	r.dropSeen[k] = true
	if seen {
		return false
	}
	r.mu.Lock()
	r.stats.Dropped++
	r.mu.Unlock()
	return true
}

// hook calls the test seam, if any.
func (r *Relay) hook(point string) {
	if r.testHook != nil {
		r.testHook(point)
	}
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// uuidV7Time is the timestamp of a UUIDv7 (its first 48 bits, Unix ms).
func uuidV7Time(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok || len(s) != 36 || s[14] != '7' {
		return time.Time{}, false
	}
	var ms int64
	for _, c := range strings.ReplaceAll(s[:13], "-", "") {
		d := strings.IndexRune("0123456789abcdef", c|0x20)
		if d < 0 {
			return time.Time{}, false
		}
		ms = ms<<4 | int64(d)
	}
	return time.UnixMilli(ms), true
}
