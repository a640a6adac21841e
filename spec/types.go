package spec

import (
	"fmt"
	"io/fs"
	"time"
)

// APIVersion is the apiVersion every outbox spec document declares.
const APIVersion = "outboxctl.dev/v1alpha1"

// Kind is the optional kind of a spec document.
const Kind = "OutboxSpec"

// Pos is a position in a spec file. Lines and columns start at 1; a zero Pos
// means "not from a file" (a default).
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// IsZero reports whether p is unknown.
func (p Pos) IsZero() bool { return p.Line == 0 }

// String renders p as file:line:col.
func (p Pos) String() string {
	if p.IsZero() {
		if p.File != "" {
			return p.File
		}
		return "<default>"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Node is embedded in every spec object: it records where the object and
// each of its keys were declared.
type Node struct {
	// Pos is where the object itself starts.
	Pos  Pos `yaml:"-" json:"-"`
	keys map[string]Pos
}

// PosOf returns the position of the value of key (a YAML key of this object,
// or "overrides.<config key>" for connector overrides). It falls back to the
// object's own position when the key was not written in the file.
func (n Node) PosOf(key string) Pos {
	if p, ok := n.keys[key]; ok {
		return p
	}
	return n.Pos
}

// Has reports whether key was written in the file (not defaulted).
func (n Node) Has(key string) bool {
	_, ok := n.keys[key]
	return ok
}

func (n *Node) setKey(key string, p Pos) {
	if n.keys == nil {
		n.keys = map[string]Pos{}
	}
	n.keys[key] = p
}

// Spec is a loaded, merged and defaulted outbox spec: every outbox of every
// file given to Load.
type Spec struct {
	// Files are the files that were read, in load order.
	Files []string `yaml:"-" json:"files"`
	// Skipped are the files and hidden folders below a folder given to Load
	// that are not outbox specs and were not read.
	Skipped []string `yaml:"-" json:"skipped,omitempty"`
	// Kafka holds the Kafka settings shared by the outboxes (merged across
	// files).
	Kafka Kafka `yaml:"kafka" json:"kafka"`
	// Outboxes in load order.
	Outboxes []Outbox `yaml:"outboxes" json:"outboxes"`
}

// document is one YAML document of a spec file.
type document struct {
	Node       `yaml:"-"`
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Kafka      Kafka    `yaml:"kafka"`
	Outboxes   []Outbox `yaml:"outboxes"`
}

// Kafka are the Kafka settings the connectors need.
type Kafka struct {
	Node `yaml:"-"`
	// BootstrapServers as Kafka Connect (the schema history of MySQL and
	// MariaDB connectors) sees them.
	BootstrapServers string `yaml:"bootstrapServers" json:"bootstrapServers,omitempty"`
	// Brokers is the number of brokers of the Kafka cluster the outboxes
	// publish to (0: not stated). With 3 or more, validate warns about
	// topics replicated fewer than 3 times (TOPIC_UNDER_REPLICATED).
	Brokers int `yaml:"brokers" json:"brokers,omitempty"`
}

// Database kinds.
const (
	Postgres = "postgres"
	MySQL    = "mysql"
	MariaDB  = "mariadb"
)

// Payload formats.
const (
	// FormatAvro: the payload column holds Avro bytes in Confluent wire
	// format (magic byte, schema id, datum), passed through untouched.
	FormatAvro = "avro"
	// FormatJSON: the payload column holds JSON text; the record value is
	// that JSON text, not a JSON string literal.
	FormatJSON = "json"
)

// Profiles of the polling and batching settings.
const (
	ProfileLatency    = "latency"
	ProfileThroughput = "throughput"
)

// DefaultHeartbeat is the default connector.heartbeat.
const DefaultHeartbeat = "10s"

// Connector states.
const (
	StateRunning = "running"
	StatePaused  = "paused"
	StateStopped = "stopped"
)

// Outbox is one outbox table and the connector that captures it.
type Outbox struct {
	Node `yaml:"-"`
	// fsys is the fs.FS of LoadFS (nil: schema files are on disk).
	fsys fs.FS
	// Name identifies the outbox in the spec (unique across all files).
	Name     string   `yaml:"name" json:"name"`
	Database Database `yaml:"database" json:"database"`
	// Schema is the PostgreSQL schema (default "public") or, for MySQL and
	// MariaDB, the database (default: connection.dbname).
	Schema string `yaml:"schema" json:"schema"`
	// Table is the outbox table name (default "outbox").
	Table string `yaml:"table" json:"table"`
	// Columns are the outbox column names (Debezium's defaults).
	Columns Columns `yaml:"columns" json:"columns"`
	// PayloadFormat is "avro" or "json" (default "avro").
	PayloadFormat string `yaml:"payloadFormat" json:"payloadFormat"`
	// Routing is how the EventRouter picks the topic.
	Routing Routing `yaml:"routing" json:"routing"`
	// Headers are the Kafka headers the EventRouter adds from columns.
	Headers Headers `yaml:"headers" json:"headers"`
	// Placements are further table.fields.additional.placement entries.
	Placements []Placement `yaml:"placements" json:"placements,omitempty"`
	// Events are the event types written to this outbox.
	Events []EventType `yaml:"events" json:"events,omitempty"`
	// Connector is the Debezium connector that captures the outbox.
	Connector ConnectorSpec `yaml:"connector" json:"connector"`
	// Relay, when set, makes the polling relay (`outboxctl relay`) the
	// outbox's publisher instead of the connector: plan and deploy leave no
	// connector for it (see RelaySpec).
	Relay *RelaySpec `yaml:"relay" json:"relay,omitempty"`
	// Writer states how the application writes the outbox (see WriterSpec).
	Writer *WriterSpec `yaml:"writer" json:"writer,omitempty"`
	// Partitioning, when set, partitions the PostgreSQL outbox table by
	// its timestamp column (see PartitioningSpec).
	Partitioning *PartitioningSpec `yaml:"partitioning" json:"partitioning,omitempty"`
	// Consumers are the consumer groups of the outbox's events that have
	// a dead-letter topic (see ConsumerSpec); provision creates the
	// topics.
	Consumers []ConsumerSpec `yaml:"consumers" json:"consumers,omitempty"`
	// Delivery is at-least-once (default) or exactly-once (see
	// DeliveryExactlyOnce).
	Delivery string `yaml:"delivery" json:"delivery"`
	// Topics are the replication settings of the outbox's topics (see
	// TopicsSpec).
	Topics *TopicsSpec `yaml:"topics" json:"topics,omitempty"`
	// Retention is how long an outbox that keeps rows after publishing
	// keeps them (a duration: "24h", "72h"): the age the oldest kept row
	// may reach before doctor and the OutboxKeptRowTooOld alert report
	// that cleanup does not keep up (see RetentionPeriod).
	Retention string `yaml:"retention" json:"retention,omitempty"`
}

// WriterSpec states how the application's writer (package outbox) uses the
// outbox table, for the checks that depend on it.
type WriterSpec struct {
	Node `yaml:"-"`
	// DeleteAfterInsert is true when the writer deletes each row in the
	// transaction that inserted it (outbox.WithDeleteAfterInsert): the
	// connector still captures the insert and the table stays empty. The
	// polling relay cannot see such rows, so it refuses this outbox.
	DeleteAfterInsert bool `yaml:"deleteAfterInsert" json:"deleteAfterInsert,omitempty"`
}

// DeletesAfterInsert reports whether the outbox's writer deletes each row in
// the transaction that inserted it.
func (o *Outbox) DeletesAfterInsert() bool { return o.Writer != nil && o.Writer.DeleteAfterInsert }

// QualifiedTable is schema.table (PostgreSQL) or database.table (MySQL).
func (o *Outbox) QualifiedTable() string { return o.Schema + "." + o.Table }

// Database is the outbox's database.
type Database struct {
	Node `yaml:"-"`
	// Kind is postgres, mysql or mariadb.
	Kind       string     `yaml:"kind" json:"kind"`
	Connection Connection `yaml:"connection" json:"connection"`
}

// Connection is how Debezium (inside Kafka Connect) reaches the database.
type Connection struct {
	Node `yaml:"-"`
	Host string `yaml:"host" json:"host"`
	// Port defaults to 5432 (postgres) or 3306.
	Port int    `yaml:"port" json:"port"`
	User string `yaml:"user" json:"user"`
	// Password is a reference, never a literal: ${env:NAME}, ${file:PATH}
	// (resolved at generate time), or a Kafka Connect config-provider
	// placeholder such as ${file:/opt/secrets.properties:pg.password} or
	// ${secrets:...} (passed through untouched).
	Password string `yaml:"password" json:"password,omitempty"`
	// DBName is the database name (required for postgres).
	DBName string `yaml:"dbname" json:"dbname,omitempty"`
}

// Columns are the outbox column names. Empty optional columns are off.
type Columns struct {
	Node          `yaml:"-"`
	ID            string `yaml:"id" json:"id"`
	AggregateType string `yaml:"aggregateType" json:"aggregateType"`
	AggregateID   string `yaml:"aggregateId" json:"aggregateId"`
	Type          string `yaml:"type" json:"type"`
	Payload       string `yaml:"payload" json:"payload"`
	// Timestamp, when set, is the column that supplies the Kafka record
	// timestamp (table.field.event.timestamp). Off by default.
	Timestamp string `yaml:"timestamp" json:"timestamp,omitempty"`
	// Tracing, when set, is the trace-context column
	// (tracing.span.context.field, conventionally "tracingspancontext").
	Tracing string `yaml:"tracing" json:"tracing,omitempty"`
	// SchemaVersion is the INT column holding the event's schema major
	// version (default "schemaversion"; set "" to drop it).
	SchemaVersion *string `yaml:"schemaVersion" json:"schemaVersion,omitempty"`
	// PayloadType overrides the SQL type of the payload column, for an
	// existing table (default: see ColumnContract).
	PayloadType string `yaml:"payloadType" json:"payloadType,omitempty"`
}

// SchemaVersionColumn returns the schema version column ("" when off).
func (c Columns) SchemaVersionColumn() string {
	if c.SchemaVersion == nil {
		return ""
	}
	return *c.SchemaVersion
}

// Routing is the EventRouter's topic routing.
type Routing struct {
	Node `yaml:"-"`
	// ByField is route.by.field (default: the aggregateType column).
	ByField string `yaml:"byField" json:"byField"`
	// TopicRegex is route.topic.regex, a Java regex (default: Debezium's
	// "(?<routedByValue>.*)", not written to the config).
	TopicRegex string `yaml:"topicRegex" json:"topicRegex,omitempty"`
	// TopicReplacement is route.topic.replacement (default
	// "outbox.event.${routedByValue}").
	TopicReplacement string `yaml:"topicReplacement" json:"topicReplacement"`
}

// DefaultTopicReplacement is the EventRouter's route.topic.replacement
// when the key is absent, and so Routing.TopicReplacement's default. It
// is defined here, not in eventrouter, so that spec imports nothing from
// the module; eventrouter.DefaultRouteTopicReplacement is this constant.
// The topic a Routing routes a value to is eventrouter.RoutingTopic.
const DefaultTopicReplacement = "outbox.event.${routedByValue}"

// RouteValue is the value the EventRouter routes events of type ev by
// when route.by.field is byField: the event's aggregate for the aggregate
// type column, its name for the type column. ok is false for another
// column (the value is then not known from the spec) or an event without
// an aggregate.
func (o *Outbox) RouteValue(byField string, ev *EventType) (value string, ok bool) {
	switch byField {
	case o.Columns.AggregateType:
		return ev.Aggregate, ev.Aggregate != ""
	case o.Columns.Type:
		return ev.Name, ev.Name != ""
	}
	return "", false
}

// RouteValuePos is where the value RouteValue returns is written.
func (o *Outbox) RouteValuePos(byField string, ev *EventType) Pos {
	if byField == o.Columns.Type && byField != o.Columns.AggregateType {
		return ev.PosOf("name")
	}
	return ev.PosOf("aggregate")
}

// Headers names the Kafka headers filled from outbox columns. An empty name
// turns the header off.
type Headers struct {
	Node `yaml:"-"`
	// EventType is the header carrying the type column (default "eventType").
	EventType *string `yaml:"eventType" json:"eventType,omitempty"`
	// SchemaVersion is the header carrying the schema version column
	// (default "schemaVersion"; off when the column is off).
	SchemaVersion *string `yaml:"schemaVersion" json:"schemaVersion,omitempty"`
	// TraceContext is the header carrying the tracing column (off by
	// default; the tracing column is still used for OpenTelemetry spans).
	TraceContext string `yaml:"traceContext" json:"traceContext,omitempty"`
}

// EventTypeHeader returns the event type header name ("" when off).
func (h Headers) EventTypeHeader() string {
	if h.EventType == nil {
		return ""
	}
	return *h.EventType
}

// SchemaVersionHeader returns the schema version header name ("" when off).
func (h Headers) SchemaVersionHeader() string {
	if h.SchemaVersion == nil {
		return ""
	}
	return *h.SchemaVersion
}

// Placement is one table.fields.additional.placement entry.
type Placement struct {
	Node   `yaml:"-"`
	Column string `yaml:"column" json:"column"`
	// Placement is header, envelope or partition.
	Placement string `yaml:"placement" json:"placement"`
	// Alias is the header or field name (default: the column).
	Alias string `yaml:"alias" json:"alias,omitempty"`
}

// Subject name strategies.
const (
	TopicRecordNameStrategy = "TopicRecordNameStrategy"
	TopicNameStrategy       = "TopicNameStrategy"
	RecordNameStrategy      = "RecordNameStrategy"
)

// EventType is one event type written to an outbox.
type EventType struct {
	Node `yaml:"-"`
	// Name is the value of the type column, for example "OrderCreated".
	Name string `yaml:"name" json:"name"`
	// Aggregate is the value of the aggregate type column (the routed
	// topic's seed), for example "Order".
	Aggregate string `yaml:"aggregate" json:"aggregate"`
	// SubjectStrategy is TopicRecordNameStrategy (default),
	// TopicNameStrategy or RecordNameStrategy.
	SubjectStrategy string `yaml:"subjectStrategy" json:"subjectStrategy"`
	// Versions are the major versions, each with its schema file.
	Versions []EventVersion `yaml:"versions" json:"versions"`
}

// EventVersion is one major version of an event type.
type EventVersion struct {
	Node  `yaml:"-"`
	Major int `yaml:"major" json:"major"`
	// Schema is the schema file, relative to the spec file's folder as
	// written; SchemaPath is it resolved against that folder.
	Schema     string `yaml:"schema" json:"schema"`
	SchemaPath string `yaml:"-" json:"schemaPath"`
}

// ConnectorSpec is the connector that captures an outbox.
type ConnectorSpec struct {
	Node `yaml:"-"`
	// Name is the Kafka Connect connector name (default: "<outbox>-outbox").
	// Offsets are keyed by it: never rename a deployed connector.
	Name string `yaml:"name" json:"name"`
	// TopicPrefix is topic.prefix (default: the outbox name).
	TopicPrefix string `yaml:"topicPrefix" json:"topicPrefix"`
	// Profile is latency (default) or throughput.
	Profile string `yaml:"profile" json:"profile"`
	// Snapshot is snapshot.mode (default "no_data": existing outbox rows are
	// not re-published).
	Snapshot string `yaml:"snapshot" json:"snapshot"`
	// State is running (default), paused or stopped.
	State string `yaml:"state" json:"state"`
	// Heartbeat is heartbeat.interval.ms as a duration ("10s", "1m"; "0" or
	// "off" turns heartbeats off). Default 10s: without heartbeats a quiet
	// outbox table never moves the connector's position, so a PostgreSQL
	// slot retains WAL without bound while other tables and databases write,
	// and a binlog position can fall behind the purged binlogs.
	Heartbeat string `yaml:"heartbeat" json:"heartbeat"`
	// HeartbeatInterval is Heartbeat parsed (0: off).
	HeartbeatInterval time.Duration `yaml:"-" json:"-"`
	// SlotName and PublicationName (postgres) default to names derived from
	// the connector name.
	SlotName        string `yaml:"slotName" json:"slotName,omitempty"`
	PublicationName string `yaml:"publicationName" json:"publicationName,omitempty"`
	// ServerID (mysql, mariadb) defaults to a hash of the connector name.
	ServerID int64 `yaml:"serverId" json:"serverId,omitempty"`
	// SchemaHistoryTopic (mysql, mariadb) defaults to
	// "schema-history.<topicPrefix>".
	SchemaHistoryTopic string `yaml:"schemaHistoryTopic" json:"schemaHistoryTopic,omitempty"`
	// Overrides are raw connector config keys, applied last. Values are
	// written as strings.
	Overrides map[string]string `yaml:"overrides" json:"overrides,omitempty"`
}
