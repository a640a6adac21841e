// Package logattr holds the slog attribute keys that the consumer, the relay
// and the other long-running components of the SDK use for the same
// things, so that one log query finds a record in all of them.
package logattr

import "log/slog"

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

// Record returns the attributes that place a Kafka record.
func Record(topic string, partition int32, offset int64) []slog.Attr {
	return []slog.Attr{slog.String(Topic, topic), slog.Int(Partition, int(partition)), slog.Int64(Offset, offset)}
}

// Event returns the attributes of an outbox event.
func Event(id, eventType string, version int) []slog.Attr {
	return []slog.Attr{slog.String(EventID, id), slog.String(EventType, eventType), slog.Int(Version, version)}
}
