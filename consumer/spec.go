package consumer

import "github.com/outboxctl/outboxctl/spec"

// ForOutbox returns c with the header names of outbox o of a loaded spec
// (o.Headers), so that the Router reads exactly the headers the connector
// generated from the same spec places. A header the spec turns off keeps the
// default name; it is then simply absent from the records (the event type
// falls back to the Avro record name, the version to the only registered
// one).
func (c RouterConfig) ForOutbox(o *spec.Outbox) RouterConfig {
	if h := o.Headers.EventTypeHeader(); h != "" {
		c.EventTypeHeader = h
	}
	if h := o.Headers.SchemaVersionHeader(); h != "" {
		c.SchemaVersionHeader = h
	}
	return c
}
