// Package consumertest runs a consumer.Router without Kafka or a schema
// registry: it builds records exactly as the Debezium EventRouter would route
// an outbox row (through the eventrouter emulator), keeps Avro schemas in an
// in-memory registry, and records dead-lettered records.
//
// Start with Pipeline (rows in, routed records out), Registry (register a
// writer schema, encode a datum in Confluent wire format) and Producer (the
// in-memory DLQ producer). For the inbox, Inbox is in memory (it records the
// handler's statements and refuses queries with ErrNoDatabase) and
// NewDBInbox is the production inbox over a database the test supplies, for
// handlers that read what they wrote through Event.Tx.
package consumertest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/wire"
)

// Formats of the payload column.
const (
	FormatJSON = "json"
	FormatAvro = "avro"
)

// ConnectorConfig returns a minimal connector config of kind ("postgres",
// "mysql" or "mariadb") as `outboxctl generate` shapes it for payload format
// (FormatJSON or FormatAvro): EventRouter alias "outbox", the key with
// StringConverter, the value with StringConverter (json) or
// ByteArrayConverter (avro), and the type and schemaversion columns placed as
// headers eventType and schemaVersion. Pipeline also accepts any other
// connector config, for example a generated one.
func ConnectorConfig(kind, format string) map[string]string {
	class := map[string]string{
		"postgres": "io.debezium.connector.postgresql.PostgresConnector",
		"mysql":    "io.debezium.connector.mysql.MySqlConnector",
		"mariadb":  "io.debezium.connector.mariadb.MariaDbConnector",
	}[kind]
	value := "org.apache.kafka.connect.storage.StringConverter"
	if format == FormatAvro {
		value = "org.apache.kafka.connect.converters.ByteArrayConverter"
	}
	return map[string]string{
		"connector.class":        class,
		"topic.prefix":           "outboxtest",
		"transforms":             "outbox",
		"transforms.outbox.type": eventrouter.EventRouterClass,
		"transforms.outbox.table.fields.additional.placement": "type:header:" + consumer.DefaultEventTypeHeader + ",schemaversion:header:" + consumer.DefaultSchemaVersionHeader,
		"key.converter":        "org.apache.kafka.connect.storage.StringConverter",
		"value.converter":      value,
		"tombstones.on.delete": "false",
	}
}

// Row is one outbox row.
type Row struct {
	ID            string // the event id (a UUID for PostgreSQL's uuid column)
	AggregateType string
	AggregateID   string
	Type          string
	// SchemaVersion is the schemaversion column (0: NULL).
	SchemaVersion int
	// Payload is the payload column: JSON text (json format) or Confluent
	// wire-format bytes (avro format); nil is NULL.
	Payload []byte
}

// Pipeline turns outbox rows into the records Kafka would hold, through the
// eventrouter emulator with a connector config. Offsets count up per topic
// and partition. It is safe for concurrent use.
type Pipeline struct {
	cfg    eventrouter.Config
	format string
	// Table is the captured table, "<schema>.<table>" on PostgreSQL
	// (default "public.outbox") or "<database>.<table>" on MySQL and
	// MariaDB (default "app.outbox"). It names the CDC topic a predicate
	// of the connector config may match.
	Table string
	// SchemaVersionColumn is the schema version column (default
	// "schemaversion"), filled from Row.SchemaVersion.
	SchemaVersionColumn string

	mu      sync.Mutex
	offsets map[string]int64
	clock   time.Time
}

// NewPipeline parses a connector config (see ConnectorConfig). The payload
// format follows the value converter: ByteArrayConverter or
// BinaryDataConverter mean avro, anything else json.
func NewPipeline(connectorConfig map[string]string) (*Pipeline, error) {
	cfg, err := eventrouter.ParseConfig(connectorConfig, "")
	if err != nil {
		return nil, fmt.Errorf("consumertest: %w", err)
	}
	format := FormatJSON
	if k := cfg.ValueConverter.Kind; k == eventrouter.ByteArrayConverter || k == eventrouter.BinaryDataConverter {
		format = FormatAvro
	}
	table := "public.outbox"
	if cfg.Connector != eventrouter.Postgres {
		table = "app.outbox"
	}
	return &Pipeline{cfg: cfg, format: format, Table: table, SchemaVersionColumn: "schemaversion",
		offsets: map[string]int64{}, clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, nil
}

// Format returns the payload format (FormatJSON or FormatAvro).
func (p *Pipeline) Format() string { return p.format }

func (p *Pipeline) sqlTypes() (id, text, payload, version string) {
	switch p.cfg.Connector {
	case eventrouter.Postgres:
		payload = "jsonb"
		if p.format == FormatAvro {
			payload = "bytea"
		}
		return "uuid", "varchar(255)", payload, "int4"
	case eventrouter.MySQL:
		payload = "json"
	default:
		payload = "longtext"
	}
	if p.format == FormatAvro {
		payload = "longblob"
	}
	return "varchar(36)", "varchar(255)", payload, "int"
}

// Record routes one inserted row and returns the record Kafka would hold, or
// nil when the EventRouter drops it. Errors are the emulator's (for example a
// task that would fail on this row).
func (p *Pipeline) Record(row Row) (*consumer.Message, error) {
	idT, textT, payloadT, verT := p.sqlTypes()
	var cols []eventrouter.Column
	add := func(name, sqlType string, nullable bool, raw any) error {
		for _, c := range cols {
			if c.Name == name {
				return nil
			}
		}
		s, err := eventrouter.ColumnSchema(p.cfg.Connector, sqlType, nullable)
		if err != nil {
			return err
		}
		b, err := json.Marshal(raw)
		if err != nil {
			return err
		}
		v, err := eventrouter.ColumnValue(p.cfg.Connector, sqlType, s, b)
		if err != nil {
			return fmt.Errorf("column %s: %w", name, err)
		}
		cols = append(cols, eventrouter.Column{Name: name, Schema: s, Value: v})
		return nil
	}
	var payload any
	if row.Payload != nil {
		if p.format == FormatAvro {
			payload = "base64:" + base64.StdEncoding.EncodeToString(row.Payload)
		} else {
			payload = json.RawMessage(row.Payload)
		}
	}
	var version any
	if row.SchemaVersion != 0 {
		version = row.SchemaVersion
	}
	steps := []struct {
		name, typ string
		nullable  bool
		v         any
	}{
		{p.cfg.FieldEventID, idT, false, row.ID},
		{p.cfg.RouteByField, textT, false, row.AggregateType},
		{p.cfg.FieldEventKey, textT, false, row.AggregateID},
		{p.cfg.FieldEventType, textT, false, row.Type},
		{p.cfg.FieldPayload, payloadT, true, payload},
		{p.SchemaVersionColumn, verT, true, version},
	}
	for _, s := range steps {
		if s.name == "" {
			continue
		}
		if err := add(s.name, s.typ, s.nullable, s.v); err != nil {
			return nil, fmt.Errorf("consumertest: %w", err)
		}
	}
	p.mu.Lock()
	p.clock = p.clock.Add(time.Millisecond)
	ts := p.clock.UnixMilli()
	p.mu.Unlock()
	res, err := eventrouter.Route(p.cfg, eventrouter.ChangeEvent{Op: "c", Table: p.Table, After: cols, TsMs: &ts, RunID: "00000000-0000-0000-0000-000000000000"})
	if err != nil {
		return nil, fmt.Errorf("consumertest: route: %w", err)
	}
	if res.Dropped || res.Record == nil {
		return nil, nil
	}
	r := res.Record
	var part int32
	if r.Partition != nil {
		part = *r.Partition
	}
	p.mu.Lock()
	k := r.Topic + "/" + strconv.Itoa(int(part))
	off := p.offsets[k]
	p.offsets[k] = off + 1
	p.mu.Unlock()
	m := &consumer.Message{Topic: r.Topic, Partition: part, Offset: off, Key: r.Key, Value: r.Value, Timestamp: time.UnixMilli(ts).UTC()}
	if r.Timestamp != nil {
		m.Timestamp = time.UnixMilli(*r.Timestamp).UTC()
	}
	for _, h := range r.Headers {
		m.Headers = append(m.Headers, consumer.Header{Key: h.Key, Value: h.Value})
	}
	return m, nil
}

// MustRecord is Record that panics on an error or a dropped row (for
// examples and tests).
func (p *Pipeline) MustRecord(row Row) *consumer.Message {
	m, err := p.Record(row)
	if err != nil {
		panic(err)
	}
	if m == nil {
		panic("consumertest: row dropped by the EventRouter")
	}
	return m
}

// Registry is an in-memory schema registry: a schemasource.ByID. Ids
// start at 1; registering the same text again returns the same id. It is safe
// for concurrent use.
type Registry struct {
	mu      sync.Mutex
	schemas []string
	codecs  []*goavro.Codec
	// Err, when set, is returned by SchemaByID (a registry outage).
	Err error
}

// Register stores an Avro schema text and returns its id.
func (r *Registry) Register(avsc string) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range r.schemas {
		if s == avsc {
			return i + 1, nil
		}
	}
	c, err := goavro.NewCodec(avsc)
	if err != nil {
		return 0, fmt.Errorf("consumertest: register: %w", err)
	}
	r.schemas = append(r.schemas, avsc)
	r.codecs = append(r.codecs, c)
	return len(r.schemas), nil
}

// SchemaByID implements schemasource.ByID. An id that was not
// registered is registry.ErrSchemaNotFound, as the registry client returns
// it, so the Router treats it as permanent (dead-lettered); Err, when set,
// is returned as it is (transient for the Router, like an outage).
func (r *Registry) SchemaByID(_ context.Context, id int) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Err != nil {
		return "", r.Err
	}
	if id < 1 || id > len(r.schemas) {
		return "", fmt.Errorf("%w: schema %d", registry.ErrSchemaNotFound, id)
	}
	return r.schemas[id-1], nil
}

// Encode writes native (goavro's native form: map[string]any for records,
// map{"branch": v} for non-null union values) with schema id in Confluent
// wire format: magic byte 0, the id as 4 big-endian bytes, the Avro binary.
func (r *Registry) Encode(id int, native any) ([]byte, error) {
	r.mu.Lock()
	if id < 1 || id > len(r.codecs) {
		r.mu.Unlock()
		return nil, fmt.Errorf("consumertest: encode: schema %d not registered", id)
	}
	c := r.codecs[id-1]
	r.mu.Unlock()
	return c.BinaryFromNative(wire.AppendHeader(make([]byte, 0, 64), uint32(id)), native)
}

// MustEncode is Encode that panics on error.
func (r *Registry) MustEncode(id int, native any) []byte {
	b, err := r.Encode(id, native)
	if err != nil {
		panic(err)
	}
	return b
}

// Producer is an in-memory consumer.Producer for a DLQ. Err, when set, makes
// Produce fail. It is safe for concurrent use.
type Producer struct {
	mu      sync.Mutex
	records []*consumer.Message
	Err     error
}

// Produce records m (or fails with Err).
func (p *Producer) Produce(_ context.Context, m *consumer.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Err != nil {
		return p.Err
	}
	p.records = append(p.records, m)
	return nil
}

// Records returns the produced records in order.
func (p *Producer) Records() []*consumer.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*consumer.Message(nil), p.records...)
}

// Run processes records through r in order, as one partition's consumer
// would, and returns the error of each (nil: done, the offset would be
// committed). Unlike the real Consumer it does not redeliver failed records.
func Run(ctx context.Context, r *consumer.Router, records ...*consumer.Message) []error {
	errs := make([]error, len(records))
	for i, m := range records {
		errs[i] = r.Process(ctx, m)
	}
	return errs
}

// FirstError returns the first non-nil error of errs with its index, or -1.
func FirstError(errs []error) (int, error) {
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// ErrInjected is a convenient error for handlers in tests.
var ErrInjected = errors.New("injected failure")
