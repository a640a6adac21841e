package relay

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error of this package unwraps to one of them (a
// row the EventRouter fails on unwraps to eventrouter.ErrTaskFailed too).
var (
	// ErrConfig: the connector config, or the outbox table it names, is one
	// the relay cannot honour (an unsupported converter or column type, no
	// table.include.list, a missing table or column). Returned by New.
	ErrConfig = errors.New("relay cannot honour the connector config")
	// ErrRowFailed: a row the real connector task would fail on; the relay
	// stops on it and leaves it (and the rows after it) in the table.
	ErrRowFailed = errors.New("outbox row fails the EventRouter")
	// ErrKafka: publishing failed; the rows not acknowledged stay in the
	// table. Alone it is retriable (Kafka unreachable, a missing topic, a
	// timeout): Run retries after the poll interval. With ErrRejected or
	// ErrProducerFatal it is not, and Run stops.
	ErrKafka = errors.New("kafka publish failed")
	// ErrRejected: the broker rejected a record for good (too large for
	// its topic, a timestamp out of the broker's bounds, not authorized,
	// an invalid topic or record; a *RejectedError). With
	// errors.tolerance=none the Debezium task fails on it: the relay stops,
	// and the row stays. With errors.tolerance=all the row is skipped.
	ErrRejected = errors.New("the broker rejected a record")
	// ErrProducerFatal: the Kafka producer raised a fatal error (for the
	// idempotent producer: a sequence or epoch the broker refuses); it
	// cannot publish any more. The relay stops; the rows not acknowledged
	// stay, and a new relay publishes them, in order.
	ErrProducerFatal = errors.New("fatal Kafka producer error")
	// ErrDatabase: reading or deleting outbox rows failed.
	ErrDatabase = errors.New("outbox database error")
	// ErrHeldBack: Drain's context ended while committed rows waited behind
	// a transaction that began writing before them and is still open
	// (PostgreSQL, database-assigned order); they are published once it
	// ends.
	ErrHeldBack = errors.New("outbox rows wait for an open transaction")
	// ErrFenced: the outbox table carries the fence of `relay cutover --to
	// cdc` (the connector publishes it): no relay leads until `relay
	// cutover --to relay` lifts it (Drain; Run stays a standby).
	ErrFenced = errors.New("the outbox is published by CDC (relay cutover --to cdc); relay cutover --to relay lifts the fence")
	// ErrNotDeleted: the rows the relay deleted (or marked) after
	// publishing are not the rows it published (a row was gone, or the key
	// matched none); Run stops with it, unwrapping to ErrDatabase too.
	ErrNotDeleted = errors.New("published rows were not deleted")
	// ErrLocked: another relay holds the outbox's lock (Drain only; Run
	// waits as a standby).
	ErrLocked = errors.New("another relay holds the outbox lock")
	// ErrNoDSN: DSN cannot build a DSN from the connector config (no
	// database.hostname, or a password only Kafka Connect resolves).
	ErrNoDSN = errors.New("no DSN in the connector config")
)

// ConfigError is a start-time problem. It unwraps to ErrConfig and to the
// cause (for example an eventrouter.ConfigError).
type ConfigError struct {
	Msg string
	Err error
}

func (e *ConfigError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns ErrConfig and the cause.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConfig, e.Err}
	}
	return []error{ErrConfig}
}

func configErr(err error, format string, args ...any) error {
	return &ConfigError{Msg: fmt.Sprintf(format, args...), Err: err}
}

// RowError is a row the relay stops on. Err is the *eventrouter.TaskError
// the Debezium task would fail with (its text is the task's exception and
// message), or another emulator error.
type RowError struct {
	// Key is the row's primary key, as text.
	Key string
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("outbox row %s: %v", e.Key, e.Err) }

// Unwrap returns ErrRowFailed and the cause.
func (e *RowError) Unwrap() []error { return []error{ErrRowFailed, e.Err} }

// RejectedError is a record the broker rejected for good. It unwraps to
// ErrKafka, ErrRejected and the broker's error (a kafka.Error).
type RejectedError struct {
	// Key is the row's primary key, as text.
	Key string
	// EventID is the row's event id (table.field.event.id), as text.
	EventID string
	// Topic is the record's topic.
	Topic string
	Err   error
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("outbox row %s (event id %s): the broker rejected its record for topic %s: %v", e.Key, e.EventID, e.Topic, e.Err)
}

// Unwrap returns ErrKafka, ErrRejected and the broker's error.
func (e *RejectedError) Unwrap() []error { return []error{ErrKafka, ErrRejected, e.Err} }
