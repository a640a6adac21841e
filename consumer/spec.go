package consumer

import (
	"fmt"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/spec"
)

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

// ReaderSchemaFromSpec is ReaderSchema with the schema file that outbox o of
// a loaded spec declares for eventType and major version major
// (events[].versions[].schema, read from its SchemaPath), so the consumer
// reads with the very .avsc the producer's schemas are checked against and
// no schema text is pasted into code:
//
//	consumer.Handle(r, "OrderCreated", 2, h, consumer.ReaderSchemaFromSpec(&sp.Outboxes[0], "OrderCreated", 2))
//
// The file is read and parsed (strictly, as `outboxctl schema check` does)
// when the option is applied, at Handle or Upcast. Errors wrap
// ErrInvalidConfig: the outbox declares no such event type or major version,
// the file cannot be read, or it is not an Avro record schema.
func ReaderSchemaFromSpec(o *spec.Outbox, eventType string, major int) HandlerOption {
	return func(opts *handlerOptions) error {
		s, err := specReader(o, eventType, major)
		if err != nil {
			return err
		}
		opts.reader = s
		return nil
	}
}

// specReader is the reader schema outbox o declares for eventType's major
// version major (nil when that version names no schema file). The file is
// read with spec.Outbox.ReadSchema (from disk, or from the fs.FS of
// spec.LoadFS) and parsed strictly.
func specReader(o *spec.Outbox, eventType string, major int) (avro.Schema, error) {
	if o == nil {
		return nil, fmt.Errorf("%w: reader schema from spec: nil outbox", ErrInvalidConfig)
	}
	known := false
	for i := range o.Events {
		known = known || o.Events[i].Name == eventType
	}
	if !known {
		return nil, fmt.Errorf("%w: reader schema from spec: outbox %q declares no event type %q", ErrInvalidConfig, o.Name, eventType)
	}
	v := o.Version(eventType, major)
	if v == nil || v.SchemaPath == "" {
		return nil, fmt.Errorf("%w: reader schema from spec: outbox %q declares no schema for %s v%d", ErrInvalidConfig, o.Name, eventType, major)
	}
	data, err := o.ReadSchema(v)
	if err != nil {
		return nil, fmt.Errorf("%w: reader schema from spec: %s v%d: %w", ErrInvalidConfig, eventType, major, err)
	}
	s, err := avro.ParseWith(data, avro.Options{File: v.SchemaPath})
	if err != nil {
		return nil, fmt.Errorf("%w: reader schema from spec: %s v%d: %w", ErrInvalidConfig, eventType, major, err)
	}
	if _, ok := s.(*avro.Record); !ok {
		return nil, fmt.Errorf("%w: reader schema from spec: %s v%d: %s is a %s schema, want a record", ErrInvalidConfig, eventType, major, v.SchemaPath, s.Type())
	}
	return s, nil
}

// RouterFromSpec is NewRouter for the records of spec outbox o: cfg with
// o's header names (ForOutbox) and Outbox set to o, so Handle and Upcast
// take each reader schema from o's .avsc files.
func RouterFromSpec(o *spec.Outbox, cfg RouterConfig) (*Router, error) {
	if o == nil {
		return nil, fmt.Errorf("%w: router from spec: nil outbox", ErrInvalidConfig)
	}
	cfg = cfg.ForOutbox(o)
	cfg.Outbox = o
	return NewRouter(cfg)
}
