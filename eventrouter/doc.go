// Package eventrouter is an exact emulator of Debezium 3.6.1's outbox
// EventRouter SMT (io.debezium.transforms.outbox.EventRouter) plus the Kafka
// Connect converters that serialize its output. For a sample outbox row and
// a connector config it computes the record that lands in Kafka: topic,
// partition, key bytes, headers in order, value bytes (nil for a tombstone)
// and timestamp; or that the event is dropped; or the error the real task
// fails with. It is the one place where EventRouter semantics live: the
// route preview command, the consumer test kit and the polling relay build
// on it.
//
// Start with three things:
//
//   - ParseConfig reads a connector config map (transforms.<alias>.*,
//     key.converter, value.converter, header.converter, errors.tolerance,
//     topic.prefix, extended.headers.enabled) into a Config, with the
//     EventRouter's defaults and the validation it runs when the task starts.
//     ParseConfigWithWorker takes the worker's converter settings too.
//   - ChangeEvent is what the connector hands to the SMT: the op and the row
//     image as columns with their Connect schemas. ColumnSchema maps SQL
//     column types to the schemas the PostgreSQL, MySQL and MariaDB
//     connectors build, and SampleRow (ParseSampleRow) is the JSON sample
//     row format of `outboxctl route preview`.
//   - Route (or a Router, which keeps the per-task schema caches across
//     events) returns a Result: Dropped with a Reason, PassThrough, or a
//     Record. An error that unwraps to ErrTaskFailed is a *TaskError naming
//     the Java exception, its message and the pipeline stage.
//
// What the emulation covers (eventrouter.md §1–§5, checked against the
// Debezium and Kafka sources and, by the integration test in this package,
// against the real connectors): the filter stage (tombstones, non-envelope
// records, deletes, updates under table.op.invalid.behavior), the event id
// header, additional field placements (header, envelope, partition, with
// aliases, table.field.additional.missing), JSON payload expansion with
// Jackson's number rules and the schema-replaced-but-value-not quirk, the
// envelope value schema name and its caches, route.tombstone.on.empty.payload,
// the record key, route.by.field with Kafka's RegexRouter (Java regex
// translated to RE2, Java replacement syntax), the timestamp column, the
// __debezium.context.* headers, errors.tolerance, a TopicNameMatches
// predicate; and JsonConverter (schemas on and off, byte-exact: field order,
// Java number formatting, base64 bytes, Jackson string escaping),
// StringConverter, ByteArrayConverter, BinaryDataConverter and
// SimpleHeaderConverter.
//
// What it deliberately does not do: run other transforms of the chain,
// serialize a passed-through Debezium envelope, emulate Avro or Protobuf
// converters, or produce tracing headers (they need an OpenTelemetry SDK on
// the Connect worker; without one the EventRouter adds none). The
// __debezium.context.runId header is random per task start; unless
// ChangeEvent.RunID is set it is a placeholder marked Volatile.
package eventrouter
