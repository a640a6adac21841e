// Package consumer is the Go SDK that downstream services import to consume
// events that the Debezium Outbox EventRouter routed to Kafka: it decodes each
// record, resolves an Avro writer schema to the handler's reader schema,
// dispatches to a typed handler per event type and major version, and runs it
// with retries, a dead-letter topic and a durable inbox in the consumer's own
// database transaction.
//
// # Types to learn first
//
//   - Router: NewRouter(RouterConfig), then Handle[T](router, eventType,
//     majorVersion, func(ctx, Event[T]) error) per event, Upcast[From,
//     To](router, eventType, fromMajor, fn) to bring older major versions to
//     a handler's, and Use(...) for middleware. Router.Process runs one
//     record; it is what the Consumer calls and what tests call (see
//     consumertest).
//   - Event[T]: the decoded payload, Meta (event id, type, version delivered
//     and version written, aggregate id, writer schema id) and Tx, the inbox
//     transaction in which the handler writes its business effect.
//   - Consumer: NewConsumer(ConsumerConfig, router) and Run(ctx): a
//     confluent-kafka-go group consumer with manual commits after processing.
//
// # What a record looks like
//
// With the connector config `outboxctl generate` writes, a record of the
// routed topic outbox.event.<aggregate type> has the aggregate id as its key
// (StringConverter), the payload column as its value (raw JSON text with
// StringConverter, or Avro in Confluent wire format passed through by
// ByteArrayConverter), and headers: the Debezium context headers, "id" (the
// event id), then "eventType" and "schemaVersion" (placements of the type and
// schemaversion columns). If the spec renames them, configure the Router from
// the same spec: RouterConfig{…}.ForOutbox(&spec.Outboxes[i]).
//
// # Decoding
//
// The event type is the eventType header; without it, an Avro payload's
// writer record full name (then its simple name) is used. The major version
// is the schemaVersion header; without it (or with a null one) a record
// matches the only version registered for its type (an upcaster counts as a
// registration of its major).
//
// A value starting with the magic byte 0 is Avro in Confluent wire format:
// the 4-byte big-endian schema id selects the writer schema, fetched once per
// id from RouterConfig.Schemas (a SchemaSource: RegistrySchemas(client)
// over the schemas/registry client) and cached; the datum is resolved to the
// handler's ReaderSchema (promotions, defaults, enum defaults, aliases, as
// Avro Java resolves them) and stored into T. Magic byte 1 (schema GUIDs) is
// rejected. The datum is decoded straight into T by a plan compiled once
// per (writer schema id, reader schema, T) (schemas/avrobind; no
// intermediate maps). ReaderSchemaFromSpec takes the reader schema from the
// spec's .avsc file for the event type and major version instead of a pasted
// string. T may be:
//
//   - a struct (or a pointer to one): fields by `avro:"name"` tag, else the
//     Go field name (exact, then case-insensitive); nested records into
//     nested structs, arrays into slices, maps into map[string]X, unions
//     into the branch value (null into a nil pointer), enums into strings,
//     bytes and fixed into []byte (fixed also [N]byte), logical types as
//     time.Time, time.Duration and *big.Rat. A Go type must hold its schema
//     type without loss: int32, int64 or int for an int, int64 or int for a
//     long, and so on (see schemas/avrobind);
//   - any or map[string]any, also as a field: plain values, records and
//     maps as map[string]any, arrays as []any, unions unwrapped.
//
// With a ReaderSchema, Handle checks T against it: a struct field whose tag
// (or name) matches no field of the reader record, or whose Go type cannot
// hold the field's type, is an ErrInvalidConfig naming the Go field and the
// schema. Tag a field `avro:"-"` to leave it out on purpose, or pass
// AllowUnmappedFields() to allow every unmapped field (type checks stay).
//
// Any other value is JSON, decoded with encoding/json into T, with the same
// field names as Avro: a struct field is named by its `json` tag if it has
// one, else by its `avro` tag, else by its Go name; keys match exactly, then
// case-insensitively, and `avro:"-"` without a json tag skips the field for
// JSON too. So one struct with avro tags reads both payload formats. A JSON string
// that holds JSON (JsonConverter without schemas on a text column) and a Kafka
// Connect {"schema","payload"} envelope are unwrapped first. A Kafka
// tombstone reaches the handler with Meta.Tombstone set and a zero payload.
//
// Decode failures, unknown event types (with UnknownFail) and records without
// an id under an inbox are permanent errors (IsPermanent): Retry does not
// retry them and DLQ dead-letters them at once.
//
// # Upcasting
//
// A service that handles only the newest major version of an event type
// registers its handler for that version and an upcaster per older one,
// each a function from major k to k+1:
//
//	consumer.Handle(r, "OrderCreated", 3, handleV3, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 3))
//	consumer.Upcast(r, "OrderCreated", 2, v2toV3, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 2))
//	consumer.Upcast(r, "OrderCreated", 1, v1toV2, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 1))
//
// A v1 record is decoded as within any major version (its writer schema
// resolved to the v1 reader schema, into the upcaster's From type), then
// v1toV2 and v2toV3 run and handleV3 gets the result. The chain is typed:
// each upcaster's To must be the payload type of what is registered at k+1,
// and that must be registered first (register from the handler down).
// Upcast checks both at registration and fails with ErrUpcastChain, so a
// missing link never reaches run time. A major version is either handled or
// upcast (ErrDuplicateHandler otherwise).
//
// The handler's Meta.Version is its own major (the version delivered);
// Meta.WrittenVersion is the major in the record's schema version header.
// Each upcaster sees its own major as Version. Upcasters run inside the
// inbox transaction after the duplicate check, so a redelivered event is not
// upcast again; an upcaster's error is the record's error (Permanent or
// not, as for a handler). Tombstones skip the upcasters.
//
// # Middleware
//
// Middleware wraps the untyped Handler, Watermill style; the first added is
// the outermost. The recommended chain:
//
//	router.Use(
//		consumer.Hooks{OnDone: metrics}.Middleware,                 // every outcome
//		consumer.DLQ{Topic: "orders.dlq", Producer: p}.Middleware,  // poison records
//		consumer.Retry{MaxAttempts: 5, InitialInterval: 100 * time.Millisecond,
//			MaxInterval: 5 * time.Second}.Middleware,               // transient failures
//		consumer.Timeout(30*time.Second),                           // per attempt
//		consumer.Recover(),                                         // panic -> error
//	)
//
// The DLQ record carries the original key, value and headers plus
// outbox.dlq.error, outbox.dlq.attempts, outbox.dlq.reason and the original
// topic, partition and offset. A failed DLQ write keeps the record
// undelivered rather than losing it; a registry outage is not dead-lettered
// by default.
//
// # Inbox
//
// With RouterConfig.Inbox (inbox.SQLStore for PostgreSQL or MariaDB/MySQL)
// every handler runs in a transaction that first inserts (consumer group,
// event id) into the inbox table. A redelivered event finds its mark and is
// skipped; a failing handler rolls back its writes and the mark together.
// Write through Event.Tx, never through another connection, or the effect is
// not covered. Effects outside the database (HTTP calls, e-mails) are not
// made idempotent by the inbox.
//
// # Delivery
//
// The Consumer commits an offset only after Process returned nil for the
// record (at-least-once). It processes one record at a time in poll order,
// so per-partition, and hence per-aggregate, order is kept; a failing record
// is redelivered (its partition is sought back) and blocks the records after
// it in its partition until it succeeds or is dead-lettered.
//
// # What this package does not do
//
//   - It does not produce outbox events (package outbox writes the outbox
//     rows; Debezium does the rest).
//   - It is not a broker abstraction: Kafka only, through confluent-kafka-go.
//   - It does not register schemas or check compatibility (package schemas
//     and `outboxctl schema check` do, before deploy).
//   - No exactly-once: effects outside the inbox transaction can repeat.
//   - No parallelism within a partition, and no downcasting: an upcaster
//     goes from major k to k+1 only, and a record newer than every handler
//     of its type is unknown.
//   - Protobuf, JSON Schema and Avro single-object encoding are not decoded.
package consumer
