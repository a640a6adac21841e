// Package consumer is the Go SDK that downstream services import to consume
// events that the Debezium Outbox EventRouter routed to Kafka: it decodes each
// record, resolves an Avro writer schema to the handler's reader schema,
// dispatches to a typed handler per event type and major version, and runs it
// with retries, a dead-letter topic and a durable inbox in the consumer's own
// database transaction.
//
// # The short form: one call from the spec
//
// FromSpec(spec, outboxName, Options{GroupID: ..., Inbox: ..., DLQTopic:
// ..., Tracing: ..., Observer: ...}) returns an App whose Router is
// configured from the spec: the topics, the header names, the reader
// schema of each (event type, major version) from the outbox's .avsc files
// (also from an embed.FS, with spec.LoadFS), the registry client, the inbox
// group and the chain DLQ, Retry, tracing, Timeout, Recover. Register
// handlers and upcasters on App.Router by type and version only, then
// App.Run(ctx). For a pgx service, inbox.NewPgxPool is the inbox on its
// pgxpool and Event.PgxTx the handler's pgx.Tx. RouterFromSpec is the
// Router alone; the long form below stays for other chains.
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
//     transaction in which the handler writes its business effect (PgxTx:
//     the same transaction as a pgx.Tx, with inbox.PgxPoolStore).
//   - Consumer: NewConsumer(ConsumerConfig, router) and Run(ctx): a
//     confluent-kafka-go group consumer with manual commits after processing.
//     Its connection is ConsumerConfig.Client, the kafkaclient.Config that
//     producers take too (the older BootstrapServers and Security fields
//     are deprecated).
//
// # Building without cgo
//
// Only the Kafka runtime needs confluent-kafka-go, and so cgo (librdkafka):
// Consumer, ConsumerConfig, Batch, NewConsumer, KafkaProducer,
// NewKafkaProducer, FromSpec and App are in files built with the cgo build
// tag. With
// CGO_ENABLED=0 the package still builds, with the Router, Handle, Upcast,
// the middleware, the inbox and every type a handler sees, so a service
// can test its handlers (consumertest, inbox, consumerprom, consumerotel)
// or run the Router on records from another client without a C
// toolchain. A program that calls NewConsumer needs cgo, as before.
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
// id from RouterConfig.Schemas (a schemasource.ByID: RegistryByID(client)
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
// Decode failures, unknown event types (with UnknownDLQ) and records without
// an id under an inbox are permanent errors (IsPermanent): Retry does not
// retry them and DLQ dead-letters them at once. See Failures for the whole
// table.
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
// Use checks the order: a DLQ after a Retry, or tracing (consumerotel)
// before a Retry, is an ErrMiddlewareOrder error.
//
// Retry{MaxAttempts: n} with no interval set backs off from 100ms,
// doubling, capped at 10s, with 20% jitter (DefaultRetryInitialInterval,
// DefaultRetryMaxInterval, DefaultRetryJitter); it never retries in a hot
// loop.
//
// p is a Producer, e.g. consumer.NewKafkaProducer over
// kafkaclient.NewProducer with the consumer's connection
// (the kafkaclient.Config of ConsumerConfig.Client).
//
// For tracing add consumerotel.Middleware(cfg) after Retry (one span per
// handler call, continuing the record's trace context).
//
// # Logs and metrics
//
// The package imports no metrics or tracing library. Logs go to
// ConsumerConfig.Logger and RouterConfig.Logger (log/slog) with the keys
// topic, partition, offset, event_id, event_type and version. Metrics come
// from RouterConfig.Observer, told every outcome of every record (handled,
// duplicate, unknown skipped, dead-lettered, retried, failed) and every
// handler call's duration, and from ConsumerConfig.OnStatistics,
// librdkafka's statistics JSON (with statistics.interval.ms set), which
// carries the consumer lag per partition. consumer/consumerprom implements
// both for Prometheus.
//
// Each dead-lettered record is logged at WARN (RouterConfig.Logger) with
// the keys above, the DLQ topic and the reason. The DLQ topics must exist:
// Run checks them in the cluster's metadata when it starts and returns
// ErrDLQTopicMissing for a missing one (create them with `outboxctl
// provision`, from the spec's consumers section). The DLQ record carries
// the original key, value and headers plus
// outbox.dlq.error, outbox.dlq.attempts, outbox.dlq.reason and the original
// topic, partition and offset. A failed DLQ write keeps the record
// undelivered rather than losing it; a transient error (a registry or
// database outage) is never dead-lettered.
//
// Use checks what it is given: a nil middleware, or a Retry or DLQ whose
// Validate fails, is an error of Use (NewRetry and NewDLQ return the same
// error when they build the middleware), and a Router with such an error
// refuses to Process and to be given to NewConsumer. An invalid chain never
// runs.
//
// # Inbox
//
// With RouterConfig.Inbox (inbox.SQLStore for PostgreSQL or MariaDB/MySQL)
// every handler runs in a transaction that first inserts (consumer group,
// event id) into the inbox table. The consumer group is the Consumer's
// ConsumerConfig.GroupID (RouterConfig.ConsumerGroup needs to be set only
// for a Router fed by Process directly). A redelivered event finds its mark
// and is skipped; a failing handler rolls back its writes and the mark together.
// Write through Event.Tx, never through another connection, or the effect is
// not covered. Effects outside the database (HTTP calls, e-mails) are not
// made idempotent by the inbox.
//
// # Delivery
//
// The Consumer gives each assigned partition its own lane: a goroutine and
// a queue that run the partition's records one after the other in offset
// order, so per-partition, and hence per-aggregate, order is kept while
// partitions run in parallel (at most ConsumerConfig.MaxConcurrentPartitions
// at a time; default: all). A partition's offset is committed only up to
// the records that succeeded (at-least-once): it never moves past a record
// that failed. A failing record pauses its partition (librdkafka pause and
// resume; the poll loop never sleeps) and is run again by its lane after
// RedeliveryBackoff, doubled per failure up to MaxRedeliveryBackoff and
// jittered; the records after it wait, the other partitions keep their
// pace. A lane holding QueueSize records pauses its partition too
// (backpressure) until it is down to half. The done offsets are committed
// every CommitInterval in the background, one commit at a time: a slow or
// frozen group coordinator delays the commits, not the records.
//
// With ConsumerConfig.Batch{MaxRecords: N, MaxWait: T} a lane runs up to N
// records of its partition (waiting at most T for them) in one inbox
// transaction with their marks (Router.ProcessBatch). If one of them
// fails, the batch rolls back and its records run again one at a time, so
// that a poison record costs one batch and is dead-lettered alone. The
// default is one record per transaction. A handler registered with
// HandleBatch instead of Handle receives each run of its records of the
// batch in one call, with the batch's transaction, so that it writes
// their effects in one statement (a multi-row INSERT, unnest arrays, COPY)
// or one pgx.Batch: a batch then costs a few round trips (begin, the marks,
// the effects, commit) instead of one per record and statement.
//
// A member that dies without leaving the group (kill -9) holds its
// partitions until its session times out (session.timeout.ms, 45 s by
// default; about 77 s in all). ConsumerConfig.InstanceID (static
// membership, off by default: only the deployment knows a stable and
// unique name) lets the restarted member take them back at once; two live
// members with one InstanceID fence each other. Until the first assignment
// arrives Run logs a WARN every AssignmentWarnAfter (10s) that says so.
//
// The Consumer reads with isolation.level=read_committed: records of an
// exactly-once outbox's aborted transactions (a Connect task killed in the
// middle of one) are never delivered. An isolation.level=read_uncommitted
// override fails Validate with ErrReadUncommitted unless
// ConsumerConfig.ReadUncommitted says it is meant.
//
// Revoked partitions drain: their lanes finish the record in processing,
// for at most RevokeTimeout, and their done offsets are committed before
// the partitions are given up (unless the assignment was lost). When Run's
// ctx is cancelled, the records in processing finish and commit within
// DrainTimeout; their handler context is not cancelled before that (it is
// Run's context without its cancellation), so a handler that returned nil
// commits its inbox transaction. Then the consumer commits and closes.
//
// # Failures
//
// Every failure is one of three kinds. Permanent (IsPermanent): no retry
// can fix the record; Retry does not retry it and DLQ dead-letters it at
// once with the reason. Transient (IsTransient): a dependency is down; Retry
// retries it, DLQ never dead-letters it (whatever Filter says), and the
// Consumer pauses the partition and runs the record again with capped,
// jittered backoff until it succeeds, so the order per aggregate holds and
// nothing is lost. Stop (IsStop): the Consumer stops at the record; Run
// returns an error wrapping ErrStopped after committing what is done before
// it. Errors of none of the three (a handler's own error) are retried by
// Retry, then dead-lettered as "failed" by DLQ, or without a DLQ retried by
// the Consumer like a transient one.
//
//	what happens                                      kind       outcome
//	------------------------------------------------  ---------  ------------------------------------------
//	registry: schema id unknown (404, code 40403)     permanent  DLQ, reason names the id and the code
//	registry: schema is PROTOBUF or JSON              permanent  DLQ, "schema N is PROTOBUF, not AVRO"
//	registry: schema has references                   permanent  DLQ, "schema N has K schema references"
//	registry unreachable, timeout or 5xx              transient  partition paused and retried; never DLQ
//	registry: any other error (401, 403, …)           transient  partition paused and retried; never DLQ
//	no schema source for an Avro record               stop       Run returns ErrStopped + ErrSchema
//	value does not decode (framing, Avro, JSON)       permanent  DLQ (ErrDecode)
//	no id header under an inbox                       permanent  DLQ (ErrNoEventID)
//	inbox database unreachable: begin, mark, commit   transient  partition paused and retried; never DLQ
//	inbox database does not answer (packets dropped): transient  after RouterConfig.InboxTimeout (30s):
//	  begin, mark, handler or commit past the                    rolled back, WARN with the step, Observer
//	  transaction's deadline                                     ObservedInboxTimeout, partition paused and
//	                                                             retried (ErrInboxTimeout); never DLQ
//	handler error inside the inbox transaction that   transient  partition paused and retried; never DLQ
//	  IsConnectionError, or its deadline passed
//	unknown type or version, UnknownSkip              -          skipped, committed, logged, Stats().UnknownSkipped
//	unknown type or version, UnknownDLQ               permanent  DLQ, logged, Stats().UnknownDeadLettered
//	unknown type or version, UnknownStop              stop       Run returns ErrStopped + ErrUnknownEventType
//	unknown, no policy set (UnknownDefault)           -          as UnknownDLQ with a DLQ in the chain, else UnknownStop
//	handler returns Permanent(err) / Transient(err)   as marked  as above
//	handler returns another error                     -          Retry, then DLQ "failed"; no DLQ: redelivered
//	handler panics (with Recover)                     -          as another error (ErrPanic)
//	DLQ write fails                                   -          not done, redelivered (both errors reported)
//	DLQ topic does not exist when Run starts          config     Run returns ErrDLQTopicMissing at once
//	shutdown (Run's ctx cancelled)                    -          in-flight records finish within DrainTimeout, commit
//	handler still running after DrainTimeout          -          its ctx is cancelled, its offset not committed
//	invalid Retry{} or DLQ{} (or nil) given to Use    config     Use returns ErrInvalidConfig; nothing runs
//
// The offset of a partition never passes a record that did not succeed or
// was not dead-lettered: a failed record stays at the head of its lane
// (there is no seek that could fail), and only its lane's done offset is
// committed.
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
