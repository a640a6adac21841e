package consumer

import (
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/outboxctl/outboxctl/consumer/inbox"
)

// Default header names. They match what `outboxctl generate` configures with
// the spec's defaults (spec.Headers: "eventType" and "schemaVersion", placed
// with table.fields.additional.placement) and what the EventRouter always
// adds (the event id as header "id").
const (
	DefaultIDHeader            = "id"
	DefaultEventTypeHeader     = "eventType"
	DefaultSchemaVersionHeader = "schemaVersion"
)

// Header is one Kafka record header. Several headers may share a key; order
// is the record's order.
type Header struct {
	Key   string
	Value []byte
}

// Message is one Kafka record as the Router sees it: the raw record plus what
// the Router parsed from it (Meta, filled before the middleware chain runs)
// and the current delivery attempt.
type Message struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte
	// Value is nil for a Kafka tombstone.
	Value     []byte
	Headers   []Header
	Timestamp time.Time

	// Meta is what the Router read from the headers and key. Middleware may
	// read it; it is filled by Router.Process before the chain runs.
	Meta Meta
	// Attempt is the 1-based attempt number of the current handler run
	// (the Retry middleware advances it; 1 without Retry).
	Attempt int

	chain chainInfo // set by Router.Process and the DLQ middleware
	// probeDLQ is the topic a DLQ middleware reports to checkMiddleware's
	// probe (never set on a record).
	probeDLQ string
	// metaErr is what parseMeta found wrong with the headers (Router.Process).
	metaErr error
}

// Header returns the value of the last header named key (the EventRouter
// appends placements after its own headers, so the last one wins, as the
// Debezium docs advise for "id").
func (m *Message) Header(key string) ([]byte, bool) {
	for i := len(m.Headers) - 1; i >= 0; i-- {
		if m.Headers[i].Key == key {
			return m.Headers[i].Value, true
		}
	}
	return nil, false
}

// Meta is the routing information of one outbox event.
type Meta struct {
	// EventID is the outbox row id (header "id"), the inbox's
	// deduplication key. Empty when the record has no id header.
	EventID string
	// EventType is the type column (event type header, or the Avro writer
	// record name when the header is absent).
	EventType string
	// Version is the schema major version of the payload. In a handler's
	// Event it is the major the handler was registered for: the version
	// delivered, which is higher than WrittenVersion when upcasters ran
	// (see Upcast), and the handler's major when the record has no schema
	// version header. In Message.Meta, which middleware reads, it is the
	// version written (the schema version header; 0 when absent).
	Version int
	// WrittenVersion is the major version the producer wrote: the schema
	// version header, 0 when absent. It equals Version unless the payload
	// was upcast or the record had no version header.
	WrittenVersion int
	// AggregateID is the record key (the aggregate id column) as text.
	AggregateID string
	// SchemaID is the registry id of the Avro writer schema (Confluent wire
	// format), 0 for JSON payloads.
	SchemaID int
	// Tombstone is true for a record with a null value.
	Tombstone bool
}

// Event is what a typed handler receives: the decoded payload, the event's
// metadata and, when the Router has an inbox, the consumer's own database
// transaction. Writes made through Tx commit together with the inbox mark;
// the Router commits or rolls back Tx, the handler must not.
type Event[T any] struct {
	Meta
	// Payload is the decoded value (the zero T for a tombstone).
	Payload T
	// Tx is the inbox transaction (nil when the Router has no inbox).
	Tx *sql.Tx
	// Message is the raw record.
	Message *Message
}

// PgxTx returns the inbox transaction as a pgx.Tx when the Router's Inbox
// is an inbox.PgxPoolStore (a pgx service's inbox on its pgxpool), nil
// otherwise. Writes through it commit together with the inbox mark, as
// those through Tx; the Router ends the transaction, so its Commit and
// Rollback return inbox.ErrTxOwned (its Begin makes a savepoint).
func (e Event[T]) PgxTx() pgx.Tx {
	t, _ := inbox.PgxTxOf(e.Tx)
	return t
}
