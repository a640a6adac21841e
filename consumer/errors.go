package consumer

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by the Router, its middleware and the
// Consumer wrap one of them (or the handler's own error).
var (
	// ErrUnknownEventType: no handler is registered for the event type and
	// major version (returned with UnknownDLQ, wrapped in a PermanentError,
	// and with UnknownStop, wrapped in a StopError; UnknownSkip skips).
	ErrUnknownEventType = errors.New("no handler for event type")
	// ErrNoEventType: the record carries no event type header and the
	// payload is not Avro (so there is no record name to fall back on).
	ErrNoEventType = errors.New("record has no event type")
	// ErrNoEventID: the Router has an inbox and the record has no id header.
	ErrNoEventID = errors.New("record has no event id")
	// ErrDecode: the value cannot be decoded (bad Confluent framing,
	// bytes that are not a datum of the writer schema, JSON that does not
	// fit T, a writer schema that cannot be resolved to the reader's).
	ErrDecode = errors.New("cannot decode event")
	// ErrSchema: the writer schema could not be fetched from the registry.
	// It is transient (the registry may answer on the next attempt) unless
	// the registry says the id does not exist, the schema is not Avro or
	// it has references: those are permanent. Without a schema source it
	// is a StopError.
	ErrSchema = errors.New("cannot get writer schema")
	// ErrPanic: the handler panicked (see Recover).
	ErrPanic = errors.New("handler panicked")
	// ErrTimeout: the handler did not return within Timeout.
	ErrTimeout = errors.New("handler timed out")
	// ErrInboxTimeout: an inbox transaction (begin, mark, handler,
	// commit) did not end within RouterConfig.InboxTimeout; it is
	// transient (the partition is paused and the record run again).
	ErrInboxTimeout = errors.New("inbox transaction timed out")
	// ErrDuplicateHandler: Handle was called twice for one event type and
	// major version.
	ErrDuplicateHandler = errors.New("handler already registered")
	// ErrUpcastChain: Upcast for major k found nothing registered for k+1
	// (a missing link in the chain), or k+1 takes another payload type than
	// the upcaster returns.
	ErrUpcastChain = errors.New("broken upcast chain")
	// ErrDLQTopicMissing: a DLQ middleware's topic does not exist on the
	// cluster when the Consumer starts (Run returns it at once, instead
	// of a later surprise: a broker without topic auto-creation refuses
	// every dead-letter write). Create it with `outboxctl provision`
	// (the spec's consumers section) or your own tooling.
	ErrDLQTopicMissing = errors.New("dead-letter topic does not exist")
	// ErrInvalidConfig: a RouterConfig, Retry, DLQ or ConsumerConfig is
	// not valid.
	ErrInvalidConfig = errors.New("invalid consumer config")
	// ErrReadUncommitted: a ConsumerConfig sets
	// isolation.level=read_uncommitted without ConsumerConfig.ReadUncommitted
	// (Validate's error wraps it and ErrInvalidConfig).
	ErrReadUncommitted = errors.New("read_uncommitted needs ConsumerConfig.ReadUncommitted")
)

// PermanentError marks an error that no retry can fix (a payload that does
// not decode, an unknown event type). Retry does not retry it; DLQ sends the
// record on at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err so that Retry gives up on it at once. Handlers return
// Permanent(err) for failures that will not go away. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err (or an error it wraps) is a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// decodeError is a permanent ErrDecode with the record's place.
func decodeError(m *Message, err error) error {
	return Permanent(fmt.Errorf("%w: %s/%d@%d: %w", ErrDecode, m.Topic, m.Partition, m.Offset, err))
}

// ErrStopped: the Consumer stopped because a record asked it to (see Stop,
// UnknownStop). Run returns an error wrapping it and the record's own error.
var ErrStopped = errors.New("consumer stopped")

// TransientError marks an error that is expected to go away without any
// change to the record: the registry cannot be reached or answers 5xx, the
// inbox database cannot be reached, a transaction failed for a connection
// reason or timed out. Retry retries it; DLQ never dead-letters it, even
// after Retry gave up; the Consumer pauses the record's partition and
// delivers the record again with a capped, jittered backoff until it
// succeeds, so the order per partition (and per aggregate) holds.
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *TransientError) Unwrap() error { return e.Err }

// Transient wraps err so that it is retried and never dead-lettered.
// Handlers return Transient(err) for failures of a dependency that will
// come back. Transient(nil) is nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &TransientError{Err: err}
}

// IsTransient reports whether err (or an error it wraps) is a
// TransientError. A transient error is never dead-lettered, even when it
// also wraps a PermanentError.
func IsTransient(err error) bool {
	var p *TransientError
	return errors.As(err, &p)
}

// StopError marks an error after which the Consumer must stop: it does not
// commit the record's offset, lets the other partitions' records in flight
// finish and commit, and Run returns an error wrapping ErrStopped and Err.
// Retry does not retry it and DLQ does not dead-letter it.
type StopError struct{ Err error }

func (e *StopError) Error() string { return e.Err.Error() }

// Unwrap returns ErrStopped and the wrapped error.
func (e *StopError) Unwrap() []error { return []error{ErrStopped, e.Err} }

// Stop wraps err so that the Consumer stops at the record. Stop(nil) is nil.
func Stop(err error) error {
	if err == nil {
		return nil
	}
	return &StopError{Err: err}
}

// IsStop reports whether err (or an error it wraps) is a StopError.
func IsStop(err error) bool {
	var s *StopError
	return errors.As(err, &s)
}
