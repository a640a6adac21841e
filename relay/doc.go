// Package relay is a polling publisher for an outbox table: it reads the
// rows and publishes each one as exactly the Kafka record the Debezium
// connector with the outbox EventRouter would produce under the same
// connector config (topic, partition, key bytes, headers in order, value
// bytes, timestamp; only __debezium.context.runId differs, as it does
// between two task starts). It builds the change event Debezium would hand
// the EventRouter from the row (column schemas from the catalog, as the
// connector derives them) and runs it through the eventrouter package; it
// is not a second EventRouter.
//
// New takes the connector config (the map `outboxctl route preview` takes)
// and the outbox's *sql.DB (pgx stdlib for PostgreSQL, go-sql-driver for
// MySQL and MariaDB); what the relay cannot honour (a converter the
// emulator lacks, a table or column missing, a column type it does not map)
// is an ErrConfig there. Run polls until its context ends; Drain publishes
// what is pending and returns.
//
// Delivery: an idempotent producer (enable.idempotence, acks=all, Kafka's
// murmur2 partitioner for keyed records, as the Java producer of Kafka
// Connect). A row is deleted (or, with Options.MarkColumn, marked) only
// after the broker acknowledged its record: at least once. A batch is the
// oldest rows by the order column (default: the event id; the project's
// writer makes time-ordered UUIDv7 ids); there is no watermark, so a row
// whose transaction commits late is read by the next poll. When a record
// fails, it and every later row of the batch stay, and the next attempt
// republishes them in order.
//
// Several relays: one is active, holding a session-level advisory lock
// named after the table (pg_try_advisory_lock, GET_LOCK); the others are
// standbys that retry the lock every poll interval and take over when the
// active relay's database session ends (exit, crash, network loss). That
// keeps the per-aggregate order of one publisher; a takeover can publish
// the in-flight rows of the old relay a second time, in order.
//
// A row the real task fails on (a NULL routing column, a timestamp column
// of the wrong type, …) stops the relay with the same *eventrouter.TaskError
// (ErrRowFailed); the row stays. A row the EventRouter drops
// (errors.tolerance=all) stays in the table unpublished, as under Debezium,
// and is logged once; the poll pages past it (keyset on the order key
// within a pass). A Kafka error (ErrKafka) leaves the rows for the next
// poll. Published rows are deleted by their primary key as read; when the
// rows hit are not the rows published, the relay stops (ErrNotDeleted). A
// cancelled Run finishes the delete of the batch in flight first.
//
// See docs/relay.md for the limits of polling compared to CDC.
package relay
