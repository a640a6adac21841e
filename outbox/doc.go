// Package outbox is the application side of the transactional outbox: it
// inserts events into the outbox table in the caller's own database
// transaction, in exactly the column contract that outboxctl's provisioning
// creates and its generated Debezium connector reads
// (spec.Outbox.ColumnContract is that contract, in one place).
//
// # Types to learn first
//
//   - Table: where the outbox is and what its columns are. Derive it from the
//     spec with TableFor, never by hand.
//   - Writer: NewWriter(table) once, then Write (one event) or WriteAll
//     (one multi-row INSERT for all its events, up to 65,535 parameters per
//     statement, in order) with the transaction that also writes the
//     business rows: a *sql.Tx, or a pgx.Tx wrapped with Pgx (pgxpool
//     through it). Commit publishes both; rollback publishes neither.
//   - Event: aggregate type (routes the topic), aggregate id (the record
//     key), type and major schema version (headers eventType and
//     schemaVersion), payload (the record value), optional trace context and
//     timestamp.
//   - Typed writes: Event.Value, a Go value, instead of Payload. On an avro
//     outbox it is encoded (schemas/avrobind.Encode, the consumer's field
//     mapping) with the schema of (Type, SchemaVersion) from a
//     schemasource.ByEventType: RegistryByEventType looks the id up once in the registry,
//     under the spec catalog's subject, and caches it; WithPinnedSchema pins
//     one. On a json outbox EncodeJSON names fields as the consumer reads
//     them. A value that does not fit is ErrInvalidEvent, a schema not
//     found ErrSchema, both before anything is written.
//   - The registry dependency: a typed avro write needs its version's
//     schema id, so until RegistryByEventType has looked it up once, a registry
//     outage fails the Write (ErrSchema wrapping registry.ErrUnreachable).
//     Writer.Preload looks up every declared version at once: call it at
//     start and from the readiness probe, so the service is not ready
//     rather than ready but unable to write. After that the ids are cached
//     and the registry can be down. Raw Payload writes and pinned schemas
//     need no registry.
//   - AvroEncoder: for avro outboxes written by hand, turns a goavro datum
//     into Confluent wire format (magic byte 0, 4-byte schema id, Avro
//     binary; package schemas/wire), the bytes that Debezium's
//     ByteArrayConverter passes to Kafka untouched.
//   - WithDeleteAfterInsert (or the spec's writer.deleteAfterInsert):
//     each row is deleted in its inserting transaction. Debezium still
//     routes the insert, the EventRouter drops the delete, and the
//     generated connector (tombstones.on.delete=false) emits no
//     tombstone: one record per event, and the table stays empty.
//
// # Usage
//
//	s, _ := spec.Load("outbox.yaml")
//	w, err := outbox.NewWriter(outbox.TableFor(&s.Outboxes[0]))
//	...
//	tx, _ := db.BeginTx(ctx, nil)
//	tx.ExecContext(ctx, "INSERT INTO orders ...")
//	id, err := w.Write(ctx, tx, outbox.Event{
//		AggregateType: "Order", AggregateID: orderID,
//		Type: "OrderCreated", SchemaVersion: 2, Value: OrderCreated{...},
//	})
//	tx.Commit()
//
// # Trace context
//
// When the table has a tracing column (spec columns.tracing, the
// EventRouter's tracing.span.context.field), Write fills it from the ctx it
// is given, as java.util.Properties text ("traceparent=00-…", one
// key=value line per field), which Debezium's tracing reads as the parent
// span, and which spec headers.traceContext copies into a record header.
// The core package imports no tracing library; the exact hook is:
//
//	type TraceContextFunc func(ctx context.Context) map[string]string
//	func WithTraceContext(f TraceContextFunc) Option
//
// f returns the W3C Trace Context fields of ctx ("traceparent", optionally
// "tracestate" and whatever else a propagator injects), or nil for none.
// outbox/outboxotel provides f from an OpenTelemetry propagator. Without
// WithTraceContext the writer reads a traceparent set with
// ContextWithTraceparent(ctx, traceparent, tracestate). A malformed
// traceparent is ErrInvalidEvent; a raw Event.TraceContext wins over both.
//
// # What the writer guarantees
//
//   - Event ids default to UUID version 7 (RFC 9562): time-ordered, so the
//     primary key index stays append-mostly, and unique without
//     coordination. A caller-given id must be a canonical UUID; it is stored
//     in lower case (PostgreSQL's uuid output), so header "id" is the same on
//     every dialect.
//   - Placeholders follow the dialect: $1, $2, … on PostgreSQL, ? on MySQL
//     and MariaDB. Identifiers are quoted ("…" or `…`).
//   - JSON payloads are checked to be JSON and sent as text (PostgreSQL
//     stores jsonb, which normalises whitespace and key order; MySQL json,
//     MariaDB longtext keep or compact it). Avro payloads are checked to be
//     in wire format and stored byte for byte (bytea, longblob).
//   - The timestamp column gets Event.Timestamp or the writer's clock, in
//     UTC with microsecond precision (Debezium's MicroTimestamp, which the
//     EventRouter uses as the record timestamp).
//   - When the spec declares event types, an undeclared type, a type of
//     another aggregate or an undeclared major version is rejected before
//     anything is written (AllowUndeclaredEvents turns this off).
//   - Errors wrap ErrInvalidEvent (nothing written), ErrInvalidTable or
//     ErrInsert (the database refused; roll the transaction back).
//
// # What it does not do
//
// It does not publish anything itself, retry, or clean up published rows
// (beyond delete-after-insert): it is one INSERT (and DELETE) in your
// transaction, and Debezium does the rest. It does not register schemas
// (outboxctl schema register does); it only looks their ids up. It imports
// no tracing library (see Trace context).
//
// The conformance suite in outbox/outboxtest runs the writer against real
// PostgreSQL, MariaDB and MySQL.
package outbox
