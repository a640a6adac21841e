package outbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/outbox/dialect"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
	"github.com/outboxctl/outboxctl/schemas/wire"
	"github.com/outboxctl/outboxctl/spec"
)

// Sentinel errors. Every error of Write and WriteAll wraps one of them.
var (
	// ErrInvalidEvent: the event breaks the column contract (a missing
	// required field, a malformed id, a payload that is not JSON for a json
	// outbox or not Confluent wire format for an avro outbox, an event type
	// or major version the spec does not declare).
	ErrInvalidEvent = errors.New("invalid outbox event")
	// ErrInvalidTable: the Table cannot be written to (unknown dialect,
	// missing required column role).
	ErrInvalidTable = errors.New("invalid outbox table")
	// ErrInsert: the database rejected the INSERT.
	ErrInsert = errors.New("insert outbox event")
)

// Execer is what Write needs from the caller: *sql.Tx, *sql.DB and *sql.Conn
// all satisfy it; for pgx (pgx.Tx, pgxpool) wrap the transaction with Pgx. Pass the transaction that writes the business rows, so
// the event is committed (and published) exactly when they are.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Table is an outbox table as the writer sees it: where it is, its SQL
// dialect, its payload format and its columns in the spec's column
// contract (spec.Outbox.ColumnContract). Build it with TableFor.
type Table struct {
	// Dialect is dialect.Postgres, dialect.MySQL or dialect.MariaDB (the
	// values of spec.Postgres, spec.MySQL and spec.MariaDB, which can be
	// given too).
	Dialect dialect.Dialect
	// Schema is the PostgreSQL schema or the MySQL/MariaDB database; empty
	// leaves the table name unqualified.
	Schema string
	// Name is the table name.
	Name string
	// PayloadFormat is spec.FormatAvro or spec.FormatJSON.
	PayloadFormat string
	// Columns are the contract's columns, in table order.
	Columns []spec.Column
	// DeleteAfterInsert: the writer deletes each row in the statement after
	// its INSERT, in the same transaction (spec writer.deleteAfterInsert;
	// WithDeleteAfterInsert turns it on too).
	DeleteAfterInsert bool
	// Events are the event types the spec declares. When not empty, Write
	// rejects an event whose (type, aggregate type, major version) is not
	// declared.
	Events []spec.EventType
}

// TableFor derives the writer's Table from one outbox of a loaded spec.
func TableFor(o *spec.Outbox) Table {
	return Table{
		Dialect:       dialect.Dialect(o.Database.Kind),
		Schema:        o.Schema,
		Name:          o.Table,
		PayloadFormat: o.PayloadFormat,
		Columns:       o.ColumnContract(),
		Events:        o.Events,

		DeleteAfterInsert: o.DeletesAfterInsert(),
	}
}

// Event is one outbox row.
type Event struct {
	// ID is the event id (header "id" of the routed record). Empty: the
	// writer generates a UUID version 7 (time-ordered, so the primary key
	// index stays append-mostly). A given ID must be a UUID in its
	// canonical 36-character form.
	ID string
	// AggregateType routes the event: the topic is
	// outbox.event.<AggregateType> with the default routing.
	AggregateType string
	// AggregateID is the record key: events of one aggregate stay in order.
	AggregateID string
	// Type is the event type, for example "OrderCreated" (header eventType).
	Type string
	// Payload is the record value: Confluent wire-format Avro bytes for an
	// avro outbox (see AvroEncoder), JSON text for a json outbox. Nil
	// writes NULL (the routed record then has a null value).
	Payload []byte
	// Value is the payload as a Go value, instead of Payload (a typed
	// write): on an avro outbox it is encoded with the writer schema of
	// (Type, SchemaVersion) (WithSchemas, WithPinnedSchema) into wire
	// format; on a json outbox with EncodeJSON. A value that does not fit
	// the schema is ErrInvalidEvent, and a schema that cannot be found
	// ErrSchema, before anything is written. Setting both Value and
	// Payload is ErrInvalidEvent.
	Value any
	// SchemaVersion is the event type's major version (header
	// schemaVersion). Required when the table has the schema version column.
	SchemaVersion int
	// TraceContext is the raw value of the tracing column, when the table
	// has one (java.util.Properties text such as "traceparent=00-…").
	// Empty: the writer takes the trace context from the ctx of Write (see
	// WithTraceContext and ContextWithTraceparent).
	TraceContext string
	// Timestamp fills the timestamp column, when the table has one. Zero:
	// the writer's clock. It is stored in UTC with microsecond precision.
	Timestamp time.Time
}

// Option configures a Writer.
type Option func(*Writer)

// WithIDGenerator replaces the UUIDv7 generator used for events without an ID.
func WithIDGenerator(gen func() (string, error)) Option {
	return func(w *Writer) { w.newID = gen }
}

// WithClock replaces time.Now for the timestamp column.
func WithClock(now func() time.Time) Option {
	return func(w *Writer) { w.now = now }
}

// WithBatchSize caps how many rows one INSERT of WriteAll carries. The
// default is no cap: one statement for as many rows as the statement limits
// allow (see WriteAll).
func WithBatchSize(n int) Option {
	return func(w *Writer) {
		if n > 0 {
			w.batch = n
		}
	}
}

// WithDeleteAfterInsert makes the writer delete each row right after
// inserting it, in the same transaction, overriding the default of
// Table.DeleteAfterInsert (false unless the spec's
// writer.deleteAfterInsert says so). Debezium still reads the insert from
// the log and routes it; the EventRouter drops the delete, and the
// generated connector (tombstones.on.delete=false) emits no tombstone, so
// each event is one record and the table stays empty. Write and WriteAll
// then run two statements per call (per statement chunk of WriteAll);
// pass a transaction, so that a failure between them leaves nothing. The
// polling relay cannot publish such an outbox (spec validation refuses the
// pair).
func WithDeleteAfterInsert() Option {
	return func(w *Writer) { w.table.DeleteAfterInsert = true }
}

// AllowUndeclaredEvents turns off the check against the spec's declared
// event types.
func AllowUndeclaredEvents() Option {
	return func(w *Writer) { w.declared = nil }
}

// Writer inserts outbox events in the caller's transaction. It is safe for
// concurrent use.
type Writer struct {
	table    Table
	newID    func() (string, error)
	now      func() time.Time
	batch    int // WithBatchSize; 0: no cap
	roles    []string
	declared map[string]spec.EventType
	insert   string // INSERT for one row
	trace    TraceContextFunc
	schemas  schemasource.ByEventType
	pinned   map[schemaKey]resolvedSchema
	log      *slog.Logger
	logged   sync.Map // schemaKey -> true: resolution logged
	tracing  bool     // the table has a tracing column
}

// NewWriter returns a Writer for t. It fails (ErrInvalidTable) when the
// dialect is unknown or a required column (id, aggregate type, aggregate id,
// type, payload) is missing.
func NewWriter(t Table, opts ...Option) (*Writer, error) {
	if !t.Dialect.Valid() {
		return nil, fmt.Errorf("%w: dialect %q: want postgres, mysql or mariadb", ErrInvalidTable, t.Dialect)
	}
	if t.Name == "" {
		return nil, fmt.Errorf("%w: no table name", ErrInvalidTable)
	}
	if t.PayloadFormat != spec.FormatAvro && t.PayloadFormat != spec.FormatJSON {
		return nil, fmt.Errorf("%w: payload format %q: want avro or json", ErrInvalidTable, t.PayloadFormat)
	}
	w := &Writer{table: t, newID: NewUUIDv7, now: time.Now, trace: contextTrace}
	have := map[string]bool{}
	for _, c := range t.Columns {
		if c.Name == "" {
			return nil, fmt.Errorf("%w: column of role %s has no name", ErrInvalidTable, c.Role)
		}
		have[c.Role] = true
		w.tracing = w.tracing || c.Role == spec.RoleTracing
		w.roles = append(w.roles, c.Role)
	}
	for _, r := range []string{spec.RoleID, spec.RoleAggregateType, spec.RoleAggregateID, spec.RoleType, spec.RolePayload} {
		if !have[r] {
			return nil, fmt.Errorf("%w: table %s has no %s column", ErrInvalidTable, t.Name, r)
		}
	}
	if len(t.Events) > 0 {
		w.declared = map[string]spec.EventType{}
		for _, e := range t.Events {
			w.declared[e.Name] = e
		}
	}
	for _, o := range opts {
		o(w)
	}
	w.insert = w.insertSQL(1)
	return w, nil
}

// Table returns the table the writer writes to.
func (w *Writer) Table() Table { return w.table }

// DeleteSQL returns the DELETE statement Write executes after the INSERT
// with WithDeleteAfterInsert, "" without.
func (w *Writer) DeleteSQL() string {
	if !w.table.DeleteAfterInsert {
		return ""
	}
	return w.deleteSQL(1)
}

// deleteSQL deletes n rows by id.
func (w *Writer) deleteSQL(n int) string {
	t := &w.table
	var idCol string
	for _, c := range t.Columns {
		if c.Role == spec.RoleID {
			idCol = c.Name
		}
	}
	var b strings.Builder
	b.WriteString("DELETE FROM " + w.qualified() + " WHERE " + sqlident.Quote(string(t.Dialect), idCol) + " IN (")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		if t.Dialect == spec.Postgres {
			b.WriteString("$" + strconv.Itoa(i))
		} else {
			b.WriteString("?")
		}
	}
	b.WriteString(")")
	return b.String()
}

// InsertSQL returns the INSERT statement Write executes (one row).
func (w *Writer) InsertSQL() string { return w.insert }

// Write validates e, fills its defaults (ID, Timestamp) and inserts it with
// ex, which should be the caller's transaction. It returns the event id.
func (w *Writer) Write(ctx context.Context, ex Execer, e Event) (string, error) {
	args, id, err := w.row(ctx, e)
	if err != nil {
		return "", err
	}
	if _, err := ex.ExecContext(ctx, w.insert, args...); err != nil {
		return "", fmt.Errorf("%w: event %s into %s: %w", ErrInsert, id, w.qualified(), err)
	}
	if w.table.DeleteAfterInsert {
		if _, err := ex.ExecContext(ctx, w.deleteSQL(1), id); err != nil {
			return "", fmt.Errorf("%w: delete event %s after insert from %s: %w", ErrInsert, id, w.qualified(), err)
		}
	}
	return id, nil
}

// WriteAll inserts events in one multi-row INSERT, in order: the rows'
// database-assigned order (the relay's relay_seq) is the events' order.
// Every event is validated before anything is written. It returns the event
// ids in order. With WithDeleteAfterInsert, one DELETE of the inserted ids
// follows.
//
// One statement carries at most 65,535 parameters (PostgreSQL's and
// MySQL's limit; 65,535 / columns rows: 8,191 with all eight contract
// columns), 8 MiB of argument bytes (well under MySQL's and MariaDB's
// max_allowed_packet) and WithBatchSize rows when it is set; more events
// take one INSERT (and DELETE) per such chunk. Use it inside the caller's
// transaction: a failure in a later statement leaves the earlier ones
// written until the transaction is rolled back. An INSERT error names the
// event (index and id) when the database's message names its id (a
// duplicate id), else the range of events of the failed statement.
func (w *Writer) WriteAll(ctx context.Context, ex Execer, events []Event) ([]string, error) {
	ids := make([]string, 0, len(events))
	rows := make([][]any, 0, len(events))
	for i, e := range events {
		args, id, err := w.row(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		ids = append(ids, id)
		rows = append(rows, args)
	}
	for _, c := range w.chunks(rows) {
		start, end := c[0], c[1]
		q := w.insert
		if end-start > 1 {
			q = w.insertSQL(end - start)
		}
		args := make([]any, 0, (end-start)*len(w.roles))
		for _, r := range rows[start:end] {
			args = append(args, r...)
		}
		if _, err := ex.ExecContext(ctx, q, args...); err != nil {
			return nil, fmt.Errorf("%w: %s into %s: %w", ErrInsert, culprit(err, ids, start, end), w.qualified(), err)
		}
		if w.table.DeleteAfterInsert {
			batch := make([]any, 0, end-start)
			for _, id := range ids[start:end] {
				batch = append(batch, id)
			}
			if _, err := ex.ExecContext(ctx, w.deleteSQL(end-start), batch...); err != nil {
				return nil, fmt.Errorf("%w: delete %s after insert from %s: %w", ErrInsert, culprit(err, ids, start, end), w.qualified(), err)
			}
		}
	}
	return ids, nil
}

// The limits of one statement of WriteAll.
const (
	// maxParams: PostgreSQL's extended protocol and MySQL's/MariaDB's
	// prepared statements count parameters in 16 bits.
	maxParams = 65535
	// maxStatementBytes bounds the argument bytes of one statement, below
	// MariaDB's default max_allowed_packet (16 MiB).
	maxStatementBytes = 8 << 20
)

// chunks splits rows into the [start, end) ranges WriteAll sends as one
// statement each: as many rows as fit in maxParams parameters and
// maxStatementBytes argument bytes, and at most WithBatchSize rows when
// set; at least one row each.
func (w *Writer) chunks(rows [][]any) [][2]int {
	per := maxParams / max(len(w.roles), 1)
	if w.batch > 0 && w.batch < per {
		per = w.batch
	}
	var out [][2]int
	start, size := 0, 0
	for i, r := range rows {
		n := argBytes(r)
		if i > start && (i-start == per || size+n > maxStatementBytes) {
			out = append(out, [2]int{start, i})
			start, size = i, 0
		}
		size += n
	}
	if start < len(rows) {
		out = append(out, [2]int{start, len(rows)})
	}
	return out
}

// argBytes approximates the bytes a row's arguments take on the wire.
func argBytes(r []any) int {
	n := 0
	for _, a := range r {
		switch v := a.(type) {
		case string:
			n += len(v)
		case []byte:
			n += len(v)
		default:
			n += 8
		}
	}
	return n
}

// culprit names the event of ids[start:end] that a failed statement's error
// names by its id (a duplicate key: PostgreSQL's detail "Key (id)=(…)
// already exists", MySQL's "Duplicate entry '…'"), else the range.
func culprit(err error, ids []string, start, end int) string {
	text := err.Error()
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		text += " " + pg.Detail
	}
	text = strings.ToLower(text)
	for i := start; i < end; i++ {
		if strings.Contains(text, ids[i]) {
			return fmt.Sprintf("event %d (%s) of events %d..%d", i, ids[i], start, end-1)
		}
	}
	if end-start == 1 {
		return fmt.Sprintf("event %d (%s)", start, ids[start])
	}
	return fmt.Sprintf("events %d..%d", start, end-1)
}

// row validates e and returns the INSERT arguments in column order.
func (w *Writer) row(ctx context.Context, e Event) ([]any, string, error) {
	t := &w.table
	bad := func(format string, a ...any) ([]any, string, error) {
		return nil, "", fmt.Errorf("%w: "+format, append([]any{ErrInvalidEvent}, a...)...)
	}
	if e.ID == "" {
		id, err := w.newID()
		if err != nil {
			return nil, "", fmt.Errorf("%w: generate id: %w", ErrInvalidEvent, err)
		}
		e.ID = id
	} else if !IsUUID(e.ID) {
		return bad("id %q is not a canonical UUID (8-4-4-4-12 hex digits)", e.ID)
	}
	if e.AggregateType == "" {
		return bad("event %s: aggregate type is required (it routes the event)", e.ID)
	}
	if e.AggregateID == "" {
		return bad("event %s: aggregate id is required (it is the record key)", e.ID)
	}
	if e.Type == "" {
		return bad("event %s: type is required", e.ID)
	}
	for _, f := range []struct{ name, v string }{{"aggregate type", e.AggregateType}, {"aggregate id", e.AggregateID}, {"type", e.Type}} {
		if len(f.v) > 255 {
			return bad("event %s: %s is %d bytes long, the column holds 255", e.ID, f.name, len(f.v))
		}
	}
	if e.Payload != nil {
		switch t.PayloadFormat {
		case spec.FormatJSON:
			if !json.Valid(e.Payload) {
				return bad("event %s: payload is not valid JSON (json outbox)", e.ID)
			}
		case spec.FormatAvro:
			if _, _, err := wire.Parse(e.Payload); err != nil {
				return bad("event %s: payload: %v (avro outbox: encode it with an AvroEncoder)", e.ID, err)
			}
		}
	}
	hasVersion := false
	for _, r := range w.roles {
		hasVersion = hasVersion || r == spec.RoleSchemaVersion
	}
	if hasVersion && e.SchemaVersion < 1 {
		return bad("event %s (%s): schema version (major, >= 1) is required", e.ID, e.Type)
	}
	if w.declared != nil {
		et, ok := w.declared[e.Type]
		if !ok {
			return bad("event %s: type %q is not declared in the spec's events of outbox table %s", e.ID, e.Type, w.qualified())
		}
		if et.Aggregate != "" && et.Aggregate != e.AggregateType {
			return bad("event %s: type %q belongs to aggregate %q, not %q", e.ID, e.Type, et.Aggregate, e.AggregateType)
		}
		if hasVersion {
			found := false
			for _, v := range et.Versions {
				found = found || v.Major == e.SchemaVersion
			}
			if !found {
				return bad("event %s: %s has no major version %d in the spec", e.ID, e.Type, e.SchemaVersion)
			}
		}
	}
	if e.Value != nil {
		if e.Payload != nil {
			return bad("event %s: both Value and Payload are set", e.ID)
		}
		p, err := w.encodeValue(ctx, &e)
		if err != nil {
			return nil, "", err
		}
		e.Payload = p
	}
	if w.tracing {
		tc, err := w.traceColumn(ctx, e.TraceContext)
		if err != nil {
			return nil, "", fmt.Errorf("event %s: %w", e.ID, err)
		}
		e.TraceContext = tc
	}
	ts := e.Timestamp
	if ts.IsZero() {
		ts = w.now()
	}
	ts = ts.UTC().Truncate(time.Microsecond)
	args := make([]any, 0, len(w.roles))
	for _, r := range w.roles {
		switch r {
		case spec.RoleID:
			args = append(args, strings.ToLower(e.ID))
		case spec.RoleAggregateType:
			args = append(args, e.AggregateType)
		case spec.RoleAggregateID:
			args = append(args, e.AggregateID)
		case spec.RoleType:
			args = append(args, e.Type)
		case spec.RolePayload:
			switch {
			case e.Payload == nil:
				args = append(args, nil)
			case t.PayloadFormat == spec.FormatJSON:
				args = append(args, string(e.Payload))
			default:
				args = append(args, e.Payload)
			}
		case spec.RoleTimestamp:
			args = append(args, ts)
		case spec.RoleTracing:
			if e.TraceContext == "" {
				args = append(args, nil)
			} else {
				args = append(args, e.TraceContext)
			}
		case spec.RoleSchemaVersion:
			args = append(args, e.SchemaVersion)
		default:
			return nil, "", fmt.Errorf("%w: unknown column role %q", ErrInvalidTable, r)
		}
	}
	return args, strings.ToLower(e.ID), nil
}

// QuoteIdent quotes an identifier for the dialect: "name" for PostgreSQL,
// `name` for MySQL and MariaDB.
//
// Deprecated: kept for callers of the SDK; it is the module's one
// identifier quoting (internal/sqlident), which provisioning, the relay,
// cleanup and verify use without importing outbox.
func QuoteIdent(dialect, name string) string { return sqlident.Quote(dialect, name) }

func (w *Writer) qualified() string {
	t := &w.table
	if t.Schema == "" {
		return sqlident.Quote(string(t.Dialect), t.Name)
	}
	return sqlident.Quote(string(t.Dialect), t.Schema) + "." + sqlident.Quote(string(t.Dialect), t.Name)
}

func (w *Writer) insertSQL(rows int) string {
	t := &w.table
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(w.qualified())
	b.WriteString(" (")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlident.Quote(string(t.Dialect), c.Name))
	}
	b.WriteString(") VALUES ")
	n := 0
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for i := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			n++
			if t.Dialect == spec.Postgres {
				b.WriteString("$" + strconv.Itoa(n))
			} else {
				b.WriteString("?")
			}
		}
		b.WriteString(")")
	}
	return b.String()
}
