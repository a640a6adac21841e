package spec

import (
	"encoding/json"
	"reflect"
	"strings"
)

// schemaDocs are the descriptions of the JSON Schema, keyed by
// "Type.yamlKey".
var schemaDocs = map[string]string{
	"document.apiVersion":              "Spec format version: " + APIVersion,
	"document.kind":                    "Optional: " + Kind,
	"document.kafka":                   "Kafka settings shared by the outboxes",
	"document.outboxes":                "The outbox tables and their connectors",
	"Kafka.bootstrapServers":           "Bootstrap servers as Kafka Connect sees them (schema history of MySQL/MariaDB connectors)",
	"Kafka.brokers":                    "Number of brokers of the Kafka cluster (optional); with 3 or more, validate warns about topics replicated fewer than 3 times",
	"Outbox.name":                      "Outbox name, unique across all spec files",
	"Outbox.database":                  "The database holding the outbox table",
	"Outbox.schema":                    "PostgreSQL schema (default public) or MySQL/MariaDB database (default connection.dbname)",
	"Outbox.table":                     "Outbox table (default outbox)",
	"Outbox.columns":                   "Outbox column names (Debezium's defaults)",
	"Outbox.payloadFormat":             "avro: Confluent wire-format bytes passed through; json: JSON text, written as JSON (default avro)",
	"Outbox.routing":                   "EventRouter topic routing",
	"Outbox.headers":                   "Kafka headers filled from outbox columns",
	"Outbox.placements":                "Further table.fields.additional.placement entries",
	"Outbox.events":                    "Event types written to this outbox",
	"Outbox.connector":                 "The Debezium connector capturing this outbox",
	"Outbox.relay":                     "Publish with the polling relay (outboxctl relay) instead of the connector: plan/deploy leave no connector for this outbox",
	"Outbox.writer":                    "How the application's writer uses the table (checked by validate)",
	"Outbox.partitioning":              "postgres: partition the outbox table by range of its timestamp column (provision creates partitions ahead, cleanup drops published ones)",
	"Outbox.consumers":                 "Consumer groups of the outbox's events with a dead-letter topic: provision creates the topics",
	"Outbox.delivery":                  "at-least-once (default) or exactly-once: the connector writes records and offsets in one Kafka transaction per poll (needs workers with exactly.once.source.support=enabled, and read_committed consumers)",
	"Outbox.topics":                    "Replication of the topics provision creates for this outbox",
	"TopicsSpec.replicationFactor":     "Replication factor of the outbox's topics (default: the broker's; 3 in production)",
	"TopicsSpec.minInsyncReplicas":     "min.insync.replicas of the outbox's topics (default: the broker's; 2 with a replication factor of 3)",
	"Outbox.retention":                 "outboxes that keep rows: how long they are kept (a duration such as 24h); the age doctor and the OutboxKeptRowTooOld alert allow the oldest row (default: doctor's and the exporter's --max-oldest-row-age, 24h), and the age past which outboxctl cleanup deletes rows when --older-than is not given (default 1h)",
	"ConsumerSpec.group":               "Consumer group (ConsumerConfig.GroupID)",
	"ConsumerSpec.dlqTopic":            "Dead-letter topic of the group's DLQ middleware; provision creates it, and the consumer refuses to start without it",
	"ConsumerSpec.partitions":          "Partitions of the dead-letter topic (default: the broker's num.partitions)",
	"PartitioningSpec.interval":        "Range of one partition: hour or day (default day)",
	"PartitioningSpec.ahead":           "Future partitions provision keeps created (default 3)",
	"WriterSpec.deleteAfterInsert":     "The writer deletes each row in its inserting transaction: the table stays empty; the polling relay cannot publish such an outbox",
	"RelaySpec.orderColumn":            "Column giving the publish order, the user's responsibility (default: the database-assigned order, relay_tx/relay_seq)",
	"RelaySpec.pollInterval":           "Time between polls (default 1s)",
	"RelaySpec.batch":                  "Rows per poll (default 100)",
	"RelaySpec.notify":                 "postgres: NOTIFY channel; provisioning adds an insert trigger and the relay LISTENs on it",
	"RelaySpec.booleanColumns":         "mysql, mariadb: BOOLEAN (tinyint(1)) columns the connector delivers as booleans because it read the table's CREATE TABLE in the binlog (created after the connector started); the relay publishes them as booleans too",
	"RelaySpec.jsonColumns":            "mariadb: JSON (longtext) columns the connector delivers as io.debezium.data.Json because it read the table's CREATE TABLE in the binlog (created after the connector started); the relay publishes them so too",
	"Database.kind":                    "Database kind",
	"Database.connection":              "How Debezium reaches the database",
	"Connection.host":                  "Host as Kafka Connect sees it",
	"Connection.port":                  "Port (default 5432 or 3306)",
	"Connection.user":                  "User",
	"Connection.password":              "A reference, never a literal: ${env:NAME}, ${file:PATH}, or a Connect config-provider placeholder such as ${file:/path:key}",
	"Connection.dbname":                "Database name (required for postgres)",
	"Columns.id":                       "Event id column (default id), sent as header id",
	"Columns.aggregateType":            "Aggregate type column (default aggregatetype), the default route field",
	"Columns.aggregateId":              "Aggregate id column (default aggregateid), the record key",
	"Columns.type":                     "Event type column (default type)",
	"Columns.payload":                  "Payload column (default payload)",
	"Columns.timestamp":                "Optional column supplying the record timestamp",
	"Columns.tracing":                  "Optional trace-context column (conventionally tracingspancontext)",
	"Columns.schemaVersion":            "Schema major version column (default schemaversion; empty to drop)",
	"Columns.payloadType":              "SQL type of an existing payload column, when it differs from the default",
	"Routing.byField":                  "route.by.field (default: the aggregate type column)",
	"Routing.topicRegex":               "route.topic.regex, a Java regex (default (?<routedByValue>.*))",
	"Routing.topicReplacement":         "route.topic.replacement (default outbox.event.${routedByValue})",
	"Headers.eventType":                "Header carrying the event type (default eventType; empty to drop)",
	"Headers.schemaVersion":            "Header carrying the schema version (default schemaVersion; empty to drop)",
	"Headers.traceContext":             "Header carrying the trace-context column (off by default)",
	"Placement.column":                 "Column",
	"Placement.placement":              "header, envelope or partition",
	"Placement.alias":                  "Header or field name (default: the column)",
	"EventType.name":                   "Event type (value of the type column)",
	"EventType.aggregate":              "Aggregate type (value of the aggregate type column)",
	"EventType.subjectStrategy":        "Subject name strategy (default TopicRecordNameStrategy)",
	"EventType.versions":               "Major versions",
	"EventVersion.major":               "Major version (>= 1)",
	"EventVersion.schema":              "Avro schema file, relative to the spec file",
	"ConnectorSpec.name":               "Kafka Connect connector name (default <outbox>-outbox); offsets are keyed by it",
	"ConnectorSpec.topicPrefix":        "topic.prefix (default: the outbox name)",
	"ConnectorSpec.profile":            "Polling and batching profile (default latency)",
	"ConnectorSpec.snapshot":           "snapshot.mode (default no_data: existing rows are not re-published)",
	"ConnectorSpec.state":              "Desired state (default running)",
	"ConnectorSpec.heartbeat":          "heartbeat.interval.ms as a duration (default 10s; 0 or off: no heartbeats); keeps a quiet outbox's slot or binlog position moving",
	"ConnectorSpec.slotName":           "PostgreSQL replication slot (default derived from the connector name)",
	"ConnectorSpec.publicationName":    "PostgreSQL publication (default derived from the connector name)",
	"ConnectorSpec.serverId":           "MySQL/MariaDB database.server.id (default derived from the connector name)",
	"ConnectorSpec.schemaHistoryTopic": "MySQL/MariaDB schema history topic (default schema-history.<topicPrefix>)",
	"ConnectorSpec.overrides":          "Raw connector config keys applied last; an empty value removes a key",
}

var schemaEnums = map[string][]string{
	"Database.kind":             {Postgres, MySQL, MariaDB},
	"Outbox.payloadFormat":      {FormatAvro, FormatJSON},
	"ConnectorSpec.profile":     {ProfileLatency, ProfileThroughput},
	"Outbox.delivery":           {DeliveryAtLeastOnce, DeliveryExactlyOnce},
	"ConnectorSpec.state":       {StateRunning, StatePaused, StateStopped},
	"EventType.subjectStrategy": {TopicRecordNameStrategy, TopicNameStrategy, RecordNameStrategy},
	"Placement.placement":       {"header", "envelope", "partition"},
	"document.kind":             {Kind},
	"document.apiVersion":       {APIVersion},
}

// JSONSchema returns the JSON Schema (draft 2020-12) of a spec document,
// derived from the Go types so that it cannot drift from the parser. It is
// published as spec/outbox.schema.json for editor completion.
func JSONSchema() []byte {
	defs := map[string]any{}
	root := schemaOf(reflect.TypeOf(document{}), defs)
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://outboxctl.dev/schemas/outbox.schema.json",
		"title":   "outboxctl outbox spec (" + APIVersion + ")",
		"$defs":   defs,
	}
	for k, v := range root.(map[string]any) {
		doc[k] = v
	}
	doc["required"] = []string{"apiVersion"}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n')
}

func schemaOf(t reflect.Type, defs map[string]any) any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), defs)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []string{"string", "number", "boolean"}}}
	}
	props := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		key := strings.Split(tag, ",")[0]
		var p map[string]any
		if ft := derefType(f.Type); ft.Kind() == reflect.Struct {
			if _, ok := defs[ft.Name()]; !ok {
				defs[ft.Name()] = nil // break cycles
				defs[ft.Name()] = schemaOf(ft, defs)
			}
			p = map[string]any{"$ref": "#/$defs/" + ft.Name()}
			if d := schemaDocs[t.Name()+"."+key]; d != "" {
				p = map[string]any{"allOf": []any{p}, "description": d}
			}
		} else {
			p = schemaOf(f.Type, defs).(map[string]any)
			if d := schemaDocs[t.Name()+"."+key]; d != "" {
				p["description"] = d
			}
			if e := schemaEnums[t.Name()+"."+key]; e != nil {
				p["enum"] = e
			}
		}
		props[key] = p
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
}

func derefType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}
