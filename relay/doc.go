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
// MySQL and MariaDB; DSN gives the driver and DSN from the connector
// config's database.* settings, ParseSpec the spec's relay: settings); what the relay cannot honour (a converter the
// emulator lacks, a table or column missing, a column of a type not in
// eventrouter.ModelledColumnTypes, the list route preview uses) is an
// ErrConfig there, naming the column and its type. Run polls until its context ends; Drain publishes
// what is pending and returns.
//
// Delivery: an idempotent producer (enable.idempotence, acks=all, Kafka's
// murmur2 partitioner for keyed records, as the Java producer of Kafka
// Connect). A row is deleted (or, with Options.MarkColumn, marked) only
// after the broker acknowledged its record: at least once. A batch is the
// first rows in the publish order. By default that order is assigned by the
// database, never by a client clock (columns spec.RelayTxColumn and
// spec.RelaySeqColumn, which outboxddl creates with the table; New refuses a
// table without them unless Options.OrderColumn is set): on PostgreSQL the
// inserting transaction's id then the insert order, reading only rows of
// transactions below the oldest transaction still open, so a transaction
// that began writing first is never overtaken (Stats.HeldBack, a log line
// naming the open session); on MySQL and MariaDB AUTO_INCREMENT, with no
// horizon (a row whose transaction commits late is read by the next poll).
// See docs/relay.md ("Order") for when this equals commit order. When a record
// fails, it and the rows not produced after it stay, and the next attempt
// republishes them in order; the records the broker acknowledged are
// deleted even when an earlier one of the batch failed, so none is
// published twice. The producer is a Producer (default: a *kafka.Producer
// with these settings; relaytest.Producer for tests without a broker).
//
// Several relays: one is active, holding a session-level advisory lock
// named after the table (pg_try_advisory_lock, GET_LOCK); the others are
// standbys that retry the lock every poll interval and take over when the
// active relay's database session ends (exit, crash, network loss). That
// keeps the per-aggregate order of one publisher; a takeover can publish
// the in-flight rows of the old relay a second time, in order.
// Session locks need one server session: behind a transaction pooler
// (PgBouncer pool_mode=transaction) they break. The holder checks at least
// once a second that its session holds the lock and stops publishing with
// an error naming the pooler when it does not. After the cutover to CDC
// (package relay/cutover, ToCDC) a fence in the table's comment keeps
// every relay from leading (ErrFenced) until cutover.ToRelay lifts it.
// Run returns ErrDatabase once the database has failed for
// Options.MaxDatabaseOutage.
//
// A row the real task fails on (a NULL routing column, a timestamp column
// of the wrong type, …) stops the relay with the same *eventrouter.TaskError
// (ErrRowFailed); the row stays. A row the EventRouter drops
// (errors.tolerance=all) stays in the table unpublished, as under Debezium,
// and is logged once; the poll pages past it (keyset on the order key
// within a pass). A retriable Kafka error (ErrKafka) leaves the rows for the
// next poll. A record the broker rejects for good (too large, a timestamp
// out of the broker's bounds, not authorized, an invalid record or topic)
// stops the relay with a *RejectedError (ErrRejected) under
// errors.tolerance=none, as it fails the task; under errors.tolerance=all
// its row is deleted unpublished. A fatal producer error stops the relay
// (ErrProducerFatal). Published rows are deleted by their primary key as
// read (PostgreSQL: one DELETE per batch with an IN list of keys; MySQL and
// MariaDB: one DELETE per row by its whole key, in one transaction, so that
// no range lock waits on a writer's uncommitted insert); when the rows hit
// are not the rows published, the relay stops (ErrNotDeleted). A cancelled
// Run finishes the delete of the batch in flight first.
//
// Read-ahead: once every record of a full batch is handed to the producer,
// the next batch's SELECT (from that batch's last row, so the rows in
// flight are not read again) runs on the session while the broker
// acknowledges the batch; its records are produced only after the batch is
// acknowledged and deleted, so the order per aggregate is that of one batch
// at a time. A read-ahead is dropped when its batch does not end cleanly
// (a Kafka or database error, a row that fails, the lock lost, ctx done).
// An attempt that got no acknowledgement and whose records all failed
// locally (message timed out, timed out in queue, queue full) makes the
// relay close and recreate its own producer before the next attempt (a
// librdkafka producer can stay stuck so after a broker restart; logged at
// WARN, Stats.ProducerRestarts); a caller's Options.Producer is recreated
// only through Options.NewProducer. The new producer's idempotence state
// is fresh: records of the failed attempt that reached the broker after
// all are published again (at least once, in order).
//
// See docs/relay.md for the limits of polling compared to CDC.
package relay
