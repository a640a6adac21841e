// Package logattr holds the slog attribute keys that the consumer, the relay
// and the other long-running components of the SDK use for the same
// things, so that one log query finds a record in all of them.
package logattr

// Attribute keys.
const (
	Topic     = "topic"
	Partition = "partition"
	Offset    = "offset"
	EventID   = "event_id"
	EventType = "event_type"
	Version   = "version"
	Key       = "key"   // the record key (aggregate id)
	Table     = "table" // the outbox table, schema-qualified
	Attempt   = "attempt"
	Error     = "error"
)
