//go:build integration

package eventrouter_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"database/sql"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// The differential test runs the same outbox rows through the emulator and
// through the real pipeline (Debezium connector + EventRouter + converters +
// Kafka) on PostgreSQL and MariaDB and compares every field of every record.
//
// Each variant is one connector config; its ops are inserted in order
// after a warm-up row has been seen (the connector is streaming), then a
// sentinel row; once the sentinel arrives (plus a grace period) the records
// are compared per event id: topic, partition (when the emulator sets one),
// key bytes, headers in order (name and value bytes; the runId value only
// for presence), value bytes (nil = tombstone), timestamp (when the emulator
// knows it). An op the emulator drops must produce nothing.

// col is an outbox table column, with its SQL type per database.
type col struct {
	name      string
	pg, maria string
	notNull   bool
	pk        bool
	def       string // JSON value of the column default ("" for none)
	// pgDef, mariaDef: the DEFAULT clause as SQL, per database ("" for
	// none); the emulator gets it as the sample's defaultExpression
	pgDef, mariaDef string
	// mariaModel: the column type the emulator gets on MariaDB when it is
	// not the DDL's (eventrouter.MariaDBBinlogJSON for a JSON column of a
	// lateDDL table)
	mariaModel string
	// pgModel: the column type the emulator gets on PostgreSQL when it
	// is not the DDL's (enum('a','b') for a CREATE TYPE … AS ENUM type)
	pgModel string
	// pgTypeName: the column type's catalog name the emulator gets as
	// the sample's databaseType (_mood for an enum array), "" for none
	pgTypeName string
}

// sqlDefault is the column's DEFAULT expression on the database of kind.
func (c col) sqlDefault(kind eventrouter.ConnectorKind) string {
	if kind == eventrouter.Postgres {
		return c.pgDef
	}
	return c.mariaDef
}

// op is one statement: insert a row, update its payload column, delete it.
type op struct {
	name string // case name
	kind string // insert | update | delete
	row  string // JSON object; "$ID" is replaced by the case's event id, "$R" by the run suffix, "$r" by its lower-case form
	set  string // update: JSON object of new values
}

type variant struct {
	name string
	cols []col
	er   map[string]string // transforms.outbox.* (without the prefix)
	conn map[string]string // other connector keys (converters, errors.tolerance, ...)
	base string            // a routable row (warm-up and sentinel)
	ops  []op
	pre  []op // inserted before the connector starts: snapshot reads (set snapshot.mode in conn)
	// gen, when set, is an outbox spec fragment (payloadFormat, columns…):
	// the connector config is connectorconfig.Generate's and the table is
	// the spec's column contract; cols, er and conn are not used.
	gen   string
	parts int // partitions of the pre-created topics (default 1)
	// lateDDL: on MariaDB the table is created once the connector runs,
	// so that its schema comes from the binlog's CREATE TABLE
	lateDDL bool
	// pgSetup: statements run on PostgreSQL before the table is created
	// (CREATE EXTENSION), so that the connector's type registry knows
	// the types when it starts
	pgSetup []string
	// relaySkip: cases the relay run does not compare, with the reason
	// (a snapshot read whose value differs from the streamed one the
	// relay publishes)
	relaySkip map[string]string
	// this variant's records (why, for the log)
}

var defaultCols = []col{
	{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
	{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
	{name: "aggregateid", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
	{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
	{name: "payload", pg: "jsonb", maria: "json"},
}

func withCols(extra ...col) []col { return append(append([]col{}, defaultCols...), extra...) }

func replaceCol(cols []col, c col) []col {
	out := append([]col{}, cols...)
	for i := range out {
		if out[i].name == c.name {
			out[i] = c
		}
	}
	return out
}

var stringConv = map[string]string{
	"key.converter":    "org.apache.kafka.connect.storage.StringConverter",
	"value.converter":  "org.apache.kafka.connect.storage.StringConverter",
	"errors.tolerance": "all",
}

const baseRow = `{"id":"$ID","aggregatetype":"Sentinel$R","aggregateid":"s","type":"Ping","payload":{"ping":true}}`

// variantSets are more variants, registered by init in the
// differential_*_integration_test.go files (one file per topic keeps the
// lists apart); variants() appends them in registration order.
var variantSets []func() []variant

func variants() []variant {
	vs := baseVariants()
	for _, f := range variantSets {
		vs = append(vs, f()...)
	}
	return vs
}

func baseVariants() []variant {
	textPayload := replaceCol(defaultCols, col{name: "payload", pg: "text", maria: "longtext"})
	return []variant{
		{
			name: "defaults_string", cols: defaultCols, conn: stringConv, base: baseRow,
			ops: []op{
				{name: "json_payload", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"1","type":"OrderCreated","payload":{"id":1,"customerId":123,"name":"Ünï \"q\" <&>"}}`},
				{name: "jsonb_key_order", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"2","type":"OrderCreated","payload":{"zeta":1,"a":[1,2.50,1e2],"bb":{"y":true,"x":null}}}`},
				{name: "jsonb_unicode_escapes", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"6","type":"OrderCreated","payload":{"u":"\u00e9\u0001","t":"a\tb","s":"\/x","n":-0.0}}`},
				{name: "null_payload_string_conv", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"3","type":"OrderCreated","payload":null}`},
				{name: "update_warn", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"4","type":"OrderCreated","payload":{"v":1}}`},
				{name: "update_warn", kind: "update", set: `{"payload":{"v":2}}`},
				{name: "delete_dropped", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"5","type":"OrderCreated","payload":{"v":1}}`},
				{name: "delete_dropped", kind: "delete"},
			},
		},
		{
			// no converters on the connector: the worker's (JsonConverter, schemas off)
			name: "worker_json_schemaless", cols: defaultCols, conn: map[string]string{"errors.tolerance": "all"}, base: baseRow,
			ops: []op{
				{name: "json_double_encoded", kind: "insert", row: `{"id":"$ID","aggregatetype":"Customer$R","aggregateid":"c-1","type":"CustomerCreated","payload":{"name":"x","tags":["a","b"]}}`},
				{name: "json_key_escaping", kind: "insert", row: `{"id":"$ID","aggregatetype":"Customer$R","aggregateid":"a\"b\\c<é>\u0001","type":"CustomerCreated","payload":{"x":1}}`},
				{name: "null_payload_json_conv", kind: "insert", row: `{"id":"$ID","aggregatetype":"Customer$R","aggregateid":"c-2","type":"CustomerCreated","payload":null}`},
			},
		},
		{
			name: "renamed_envelope_timestamp",
			cols: []col{
				{name: "event_id", pg: "varchar(64)", maria: "varchar(64)", notNull: true, pk: true},
				{name: "agg_type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "agg_id", pg: "varchar(255)", maria: "varchar(255)"},
				{name: "event_type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "body", pg: "text", maria: "longtext"},
				{name: "created_at", pg: "timestamp(3)", maria: "datetime(3)"},
			},
			er: map[string]string{
				"table.field.event.id": "event_id", "table.field.event.key": "agg_id", "table.field.event.payload": "body",
				"route.by.field": "agg_type", "table.field.event.timestamp": "created_at",
				"table.fields.additional.placement": "event_type:header:eventType, event_type:ENVELOPE:type,agg_id:header",
				"route.topic.replacement":           "dt$R.renamed.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"event_id":"$ID","agg_type":"Sentinel","agg_id":"s","event_type":"Ping","body":"{}","created_at":"2024-01-01 00:00:00"}`,
			ops: []op{
				{name: "renamed_text_timestamp_ms", kind: "insert", row: `{"event_id":"$ID","agg_type":"Order","agg_id":"o-1","event_type":"OrderCreated","body":"{\"a\": 1}","created_at":"2024-03-01 12:34:56.789"}`},
				{name: "null_key_schema_name_cache", kind: "insert", row: `{"event_id":"$ID","agg_type":"Customer","agg_id":null,"event_type":"CustomerCreated","body":"x","created_at":"2024-03-01 12:34:57.001"}`},
				{name: "blank_payload_no_tombstone", kind: "insert", row: `{"event_id":"$ID","agg_type":"Order","agg_id":"o-2","event_type":"OrderCreated","body":"   ","created_at":"2024-12-31 23:59:59.999"}`},
				{name: "null_timestamp_uses_ts_ms", kind: "insert", row: `{"event_id":"$ID","agg_type":"Order","agg_id":"o-3","event_type":"OrderCreated","body":"{}","created_at":null}`},
			},
		},
		{
			name: "regex_tombstones", cols: textPayload, conn: stringConv,
			er: map[string]string{
				"route.topic.regex":                `(?<kind>[A-Z][a-z]+)_(?<rest>[a-z0-9]+)`,
				"route.topic.replacement":          `dt$R.${kind}.ev-$2`,
				"route.tombstone.on.empty.payload": "true",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel_$r","aggregateid":"s","type":"Ping","payload":"ping"}`,
			ops: []op{
				{name: "regex_matches", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order_$r","aggregateid":"1","type":"OrderCreated","payload":"{\"id\":1}"}`},
				{name: "regex_no_match_raw_topic", kind: "insert", row: `{"id":"$ID","aggregatetype":"nomatch$R","aggregateid":"2","type":"OrderCreated","payload":"p"}`},
				{name: "null_payload_tombstone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order_$r","aggregateid":"3","type":"OrderDeleted","payload":null}`},
				{name: "blank_payload_tombstone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order_$r","aggregateid":"4","type":"OrderDeleted","payload":"  \t "}`},
				{name: "empty_object_not_tombstone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order_$r","aggregateid":"5","type":"OrderCreated","payload":"{}"}`},
			},
		},
		{
			name: "expand_json", cols: textPayload,
			er:   map[string]string{"table.expand.json.payload": "true", "route.topic.replacement": "dt$R.expand.${routedByValue}"},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"{\"ping\":true}"}`,
			ops: []op{
				{name: "expand_nested", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"{\"id\":1,\"big\":3000000000,\"f\":1.5,\"e\":1e20,\"s\":\"x\",\"n\":null,\"o\":{\"k\":\"v\",\"z\":[]},\"arr\":[{\"a\":1},{\"a\":2}],\"ints\":[1,2,3],\"dup\":1,\"dup\":2}"}`},
				{name: "expand_java_doubles", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"6","type":"T","payload":"{\"d1\":0.1,\"d2\":1e-5,\"d3\":123456789.123,\"d4\":5e-324,\"d5\":-0.0,\"d6\":100.0,\"d7\":1e7,\"d8\":0.001,\"d9\":2.2250738585072014E-308}"}`},
				{name: "expand_not_json", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"hello"}`},
				{name: "expand_top_array_fails", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":"[1,2]"}`},
				{name: "expand_null_payload", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":null}`},
				{name: "expand_bad_json", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":"{bad"}`},
			},
		},
		{
			name: "bytes_partition", parts: 3,
			cols: replaceCol(withCols(
				col{name: "part", pg: "int4", maria: "int"},
				col{name: "version", pg: "int4", maria: "int"},
			), col{name: "payload", pg: "bytea", maria: "longblob"}),
			er: map[string]string{
				"table.fields.additional.placement": "part:partition,type:header:eventType,version:header:v",
				"route.tombstone.on.empty.payload":  "true",
				"route.topic.replacement":           "dt$R.bytes.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"ping","part":0,"version":1}`,
			ops: []op{
				{name: "bytes_payload_partition", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":"hex:00ff10c3a9","part":2,"version":3}`},
				{name: "empty_bytes_not_tombstone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"OrderCreated","payload":"","part":null,"version":null}`},
				{name: "null_bytes_tombstone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"OrderDeleted","payload":null,"part":1,"version":4}`},
			},
		},
		{
			name: "error_op_missing_ignore_json_headers", cols: defaultCols,
			er: map[string]string{
				"table.op.invalid.behavior":                "error",
				"table.field.additional.missing":           "ignore", // 3.6
				"table.fields.additional.error.on.missing": "false",  // 3.5 (MariaDB plugin)
				"table.fields.additional.placement":        "nosuch:header,type:header:eventType",
				"route.topic.replacement":                  "dt$R.err.${routedByValue}",
			},
			conn: map[string]string{
				"extended.headers.enabled": "false",
				"header.converter":         "org.apache.kafka.connect.json.JsonConverter",
				"key.converter":            "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{"ping":true}}`,
			ops: []op{
				{name: "missing_header_column_ignored", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"a":1}}`},
				{name: "update_error_dropped", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"OrderCreated","payload":{"a":2}}`},
				{name: "update_error_dropped", kind: "update", set: `{"payload":{"a":3}}`},
				{name: "delete_error_dropped", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"OrderCreated","payload":{"a":4}}`},
				{name: "delete_error_dropped", kind: "delete"},
			},
		},
		{
			// 3.6: the missing envelope column is left out (value = Struct{payload=…}
			// under StringConverter); 3.5 (MariaDB plugin): NullPointerException, task FAILED
			name: "missing_envelope_column", cols: defaultCols,
			er: map[string]string{
				"table.field.additional.missing":           "ignore",
				"table.fields.additional.error.on.missing": "false",
				"table.fields.additional.placement":        "nosuch2:envelope:n2,type:envelope:eventType",
				"route.topic.replacement":                  "dt$R.menv.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
			},
			base: baseRow,
			ops: []op{
				{name: "envelope_missing_column_struct_tostring", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"a":1}}`},
			},
		},
		{
			// also: a tracing span context column changes nothing without an
			// OpenTelemetry SDK on the worker
			name: "fatal_tolerated", cols: withCols(col{name: "tracingspancontext", pg: "varchar(512)", maria: "varchar(512)"}), conn: stringConv,
			er:   map[string]string{"table.op.invalid.behavior": "fatal", "route.topic.replacement": "dt$R.fataltol.${routedByValue}"},
			base: baseRow,
			ops: []op{
				{name: "update_fatal_tolerated", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"a":1}}`},
				{name: "update_fatal_tolerated", kind: "update", set: `{"payload":{"a":2}}`},
				{name: "after_tolerated_failure_tracing_column", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"OrderCreated","payload":{"a":3},"tracingspancontext":"traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`},
			},
		},
		{
			name: "fatal_fails_task", cols: defaultCols,
			er: map[string]string{"table.op.invalid.behavior": "fatal", "route.topic.replacement": "dt$R.fatal.${routedByValue}"},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
			},
			base: baseRow,
			ops: []op{
				{name: "update_fatal_fails", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"a":1}}`},
				{name: "update_fatal_fails", kind: "update", set: `{"payload":{"a":2}}`},
			},
		},
		{
			name: "schema_defaults_char_bytes_header",
			cols: []col{
				{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
				{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "aggregateid", pg: "char(8)", maria: "char(8)", notNull: true},
				{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "payload", pg: "json", maria: "longtext"},
				{name: "status", pg: "varchar(20)", maria: "varchar(20)", notNull: true, def: `"new"`},
				{name: "raw", pg: "bytea", maria: "blob"},
			},
			er: map[string]string{
				"table.fields.additional.placement": "status:envelope,raw:header,aggregateid:header:k",
				"route.topic.replacement":           "dt$R.schema.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"{}","status":"new","raw":null}`,
			ops: []op{
				{name: "json_text_kept_default_in_schema_char_key", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"ab","type":"T","payload":"{\"b\": 1,  \"a\": [1, 2]}","status":"new","raw":"hex:00ff7f"}`},
				{name: "bytes_header_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"abcdefgh","type":"T","payload":null,"status":"paid","raw":null}`},
			},
		},
		{
			// A NULL in a column with a DEFAULT: Debezium puts the default
			// (for a function default a placeholder) in the column schema and
			// the EventRouter's Struct.get hands it on instead of the NULL:
			// payload, key, header and envelope placements.
			name: "null_in_defaulted_columns",
			cols: []col{
				{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
				{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "aggregateid", pg: "varchar(255)", maria: "varchar(255)", pgDef: "'k-default'", mariaDef: "'k-default'"},
				{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "payload", pg: "text", maria: "longtext", pgDef: "'fallback'", mariaDef: "'fallback'"},
				{name: "d_int", pg: "int4", maria: "int", pgDef: "7", mariaDef: "7"},
				{name: "d_neg", pg: "int8", maria: "bigint", pgDef: "-42", mariaDef: "-42"},
				{name: "d_bool", pg: "boolean", maria: "tinyint(1)", pgDef: "true", mariaDef: "TRUE"},
				{name: "d_json", pg: "jsonb", maria: "json", pgDef: `'{"b": 1, "a": [1, 2]}'`, mariaDef: `'{"b": 1, "a": [1, 2]}'`},
				{name: "d_ts", pg: "timestamp(3)", maria: "datetime(3)", pgDef: "now()", mariaDef: "current_timestamp(3)"},
				{name: "d_uuid", pg: "uuid", maria: "varchar(36)", pgDef: "gen_random_uuid()", mariaDef: "uuid()"},
				{name: "d_txt", pg: "varchar(20)", maria: "varchar(20)", pgDef: "''", mariaDef: "''"},
				{name: "d_null", pg: "varchar(20)", maria: "varchar(20)", pgDef: "NULL", mariaDef: "NULL"},
			},
			er: map[string]string{
				"table.fields.additional.placement": "d_int:header:dInt,d_bool:header:dBool,d_uuid:header:dUuid,d_txt:header:dTxt,d_null:header:dNull,d_json:envelope:dJson,d_ts:envelope:dTs,d_neg:envelope:dNeg,d_int:envelope:dIntEnv",
				"route.topic.replacement":           "dt$R.defaults.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"p","d_int":1,"d_neg":1,"d_bool":false,"d_json":{},"d_ts":"2024-01-01 00:00:00","d_uuid":"5f0c7e37-07a5-4a5e-9a43-6a8d6b1f0c11","d_txt":"t","d_null":"n"}`,
			ops: []op{
				{name: "all_null_take_defaults", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":null,"type":"OrderCreated","payload":null,"d_int":null,"d_neg":null,"d_bool":null,"d_json":null,"d_ts":null,"d_uuid":null,"d_txt":null,"d_null":null}`},
				{name: "values_override_defaults", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"o-2","type":"OrderCreated","payload":"{\"x\":1}","d_int":3,"d_neg":5,"d_bool":false,"d_json":{"z":true},"d_ts":"2024-02-03 04:05:06.789","d_uuid":"0b4f4d5e-2c7a-4d55-b1f5-1b2c3d4e5f60","d_txt":"set","d_null":"v"}`},
				{name: "some_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"o-3","type":"OrderCreated","payload":"{}","d_int":null,"d_neg":9,"d_bool":null,"d_json":{"k":1},"d_ts":null,"d_uuid":"0b4f4d5e-2c7a-4d55-b1f5-1b2c3d4e5f61","d_txt":null,"d_null":null}`},
			},
		},
		{
			// headers-only (StringConverter), JSON header converter: a NULL
			// payload in a jsonb / json column with DEFAULT '{}' is "{}",
			// not a tombstone; header schemas carry the defaults
			name: "null_payload_defaulted_tombstone_json_headers",
			cols: []col{
				{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
				{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "aggregateid", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "payload", pg: "jsonb", maria: "json", pgDef: "'{}'::jsonb", mariaDef: "'{}'"},
				{name: "d_int", pg: "int2", maria: "smallint", pgDef: "'5'::smallint", mariaDef: "5"},
				{name: "d_ts", pg: "timestamp", maria: "datetime(6)", pgDef: "CURRENT_TIMESTAMP", mariaDef: "now(6)"},
				{name: "d_txt", pg: "text", maria: "varchar(50)", pgDef: "'it''s'", mariaDef: "'it''s'"},
				{name: "e_char", pg: "char(8)", maria: "char(8)", pgDef: "'ab'", mariaDef: "'ab'"},
				{name: "e_bool", pg: "boolean", maria: "tinyint(1)", pgDef: "'yes'", mariaDef: "FALSE"},
				{name: "e_expr", pg: "int4", maria: "int", pgDef: "(1+1)", mariaDef: "(1+1)"},
				{name: "e_uuid", pg: "uuid", maria: "varchar(36)", pgDef: "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", mariaDef: "'x-y'"},
				{name: "e_date", pg: "date", maria: "date", pgDef: "CURRENT_DATE", mariaDef: "'2024-01-02'"},
				{name: "e_f8", pg: "float8", maria: "double", pgDef: "1.5", mariaDef: "1.5"},
				{name: "e_tz", pg: "timestamptz", maria: "datetime", pgDef: "now()", mariaDef: "'2024-01-02 03:04:05'"},
				{name: "e_tz3", pg: "timestamptz(3)", maria: "datetime(3)", pgDef: "CURRENT_TIMESTAMP", mariaDef: "'2024-01-02 03:04:05.5'"},
				{name: "e_tz0", pg: "timestamptz(0)", maria: "datetime(6)", pgDef: "now()", mariaDef: "'2024-01-02 03:04:05.123456'"},
			},
			er: map[string]string{
				"table.fields.additional.placement": "d_int:header:dInt,d_ts:header:dTs,d_txt:header:dTxt,e_char:header,e_bool:header,e_expr:header,e_uuid:header,e_date:header,e_f8:header,e_tz:header,e_tz3:header,e_tz0:header",
				"route.tombstone.on.empty.payload":  "true",
				"route.topic.replacement":           "dt$R.deftomb.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
				"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{"p":1},"d_int":1,"d_ts":"2024-01-01 00:00:00","d_txt":"x","e_char":null,"e_bool":null,"e_expr":null,"e_uuid":null,"e_date":null,"e_f8":null,"e_tz":null,"e_tz3":null,"e_tz0":null}`,
			ops: []op{
				{name: "null_payload_is_default_not_tombstone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderDeleted","payload":null,"d_int":null,"d_ts":null,"d_txt":null,"e_char":null,"e_bool":null,"e_expr":null,"e_uuid":null,"e_date":null,"e_f8":null,"e_tz":null,"e_tz3":null,"e_tz0":null}`},
				{name: "set_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"OrderCreated","payload":{"a":1},"d_int":2,"d_ts":"2024-05-06 07:08:09.123456","d_txt":"y","e_char":"cd","e_bool":true,"e_expr":4,"e_uuid":null,"e_date":"2024-06-07","e_f8":2.25,"e_tz":null,"e_tz3":null,"e_tz0":null}`},
			},
		},
		{
			// column defaults given as JSON values (col.def): Debezium's
			// rules still apply (char(n) defaults are not padded, a quote
			// cuts a PostgreSQL literal short, bytea has no default)
			name: "json_defaults_debezium_rules",
			cols: withCols(
				col{name: "d_char", pg: "char(8)", maria: "char(8)", def: `"ab"`},
				col{name: "d_quote", pg: "varchar(20)", maria: "varchar(20)", def: `"it's"`},
				col{name: "d_bs", pg: "varchar(20)", maria: "varchar(20)", def: `"a\\b"`},
				col{name: "d_bytes", pg: "bytea", maria: "blob", def: `"hex:00ff"`},
				col{name: "d_json", pg: "json", maria: "longtext", def: `{"b": 1,  "a": "x"}`},
			),
			er: map[string]string{
				"table.fields.additional.placement": "d_char:header,d_quote:header,d_bs:header,d_bytes:header,d_json:header",
				"route.topic.replacement":           "dt$R.jsondef.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
				"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"d_char":"x","d_quote":"x","d_bs":"x","d_bytes":"x","d_json":{}}`,
			ops: []op{
				{name: "json_defaults_all_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"d_char":null,"d_quote":null,"d_bs":null,"d_bytes":null,"d_json":null}`},
				{name: "json_defaults_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"d_char":"cd","d_quote":"q","d_bs":"b","d_bytes":"hex:01","d_json":{"z":1}}`},
			},
		},
		{
			// the typed getters (getString, getInt32, getInt64) return the
			// raw NULL, not the column default: route.by.field, the schema
			// version, the partition and the timestamp
			name: "typed_getters_ignore_defaults", parts: 2,
			cols: []col{
				{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
				{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", pgDef: "'Fallback'", mariaDef: "'Fallback'"},
				{name: "aggregateid", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "payload", pg: "jsonb", maria: "json"},
				{name: "created_at", pg: "timestamp(3)", maria: "datetime(3)", pgDef: "now()", mariaDef: "current_timestamp(3)"},
				{name: "version", pg: "int4", maria: "int", pgDef: "3", mariaDef: "3"},
				{name: "part", pg: "int4", maria: "int", pgDef: "1", mariaDef: "1"},
			},
			er: map[string]string{
				"table.field.event.timestamp":       "created_at",
				"table.field.event.schema.version":  "version",
				"table.fields.additional.placement": "part:partition,type:envelope:type,version:envelope:v",
				"route.topic.replacement":           "dt$R.typed.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"created_at":"2024-01-01 00:00:00","version":1,"part":0}`,
			ops: []op{
				{name: "typed_nulls_stay_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"o-1","type":"OrderCreated","payload":{"a":1},"created_at":null,"version":null,"part":null}`},
				{name: "typed_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"o-2","type":"OrderCreated","payload":{"a":2},"created_at":"2024-03-04 05:06:07.089","version":2,"part":1}`},
				{name: "null_route_by_field_not_defaulted", kind: "insert", row: `{"id":"$ID","aggregatetype":null,"aggregateid":"o-3","type":"OrderCreated","payload":{"a":3},"created_at":null,"version":1,"part":0}`},
			},
		},
		{
			name: "zoned_timestamp_fails", cols: withCols(col{name: "created_at", pg: "timestamptz", maria: "timestamp"}),
			er:   map[string]string{"table.field.event.timestamp": "created_at"},
			conn: map[string]string{"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter"},
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"created_at":"2024-01-01 00:00:00"}`,
			ops: []op{
				{name: "timestamptz_column_fails_task", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"created_at":"2024-01-01 00:00:00"}`},
			},
		},
		{
			name: "snapshot_initial_republishes", cols: defaultCols,
			er: map[string]string{"route.topic.replacement": "dt$R.snap.${routedByValue}"},
			conn: map[string]string{
				"snapshot.mode": "initial",
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
				"errors.tolerance": "all",
			},
			base: baseRow,
			pre: []op{
				{name: "snapshot_read_routed", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"old-1","type":"OrderCreated","payload":{"old":1}}`},
				{name: "snapshot_read_routed_2", kind: "insert", row: `{"id":"$ID","aggregatetype":"Customer","aggregateid":"old-2","type":"CustomerCreated","payload":null}`},
			},
			ops: []op{
				{name: "insert_after_snapshot", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"new-1","type":"OrderCreated","payload":{"new":1}}`},
			},
		},
		{
			// the connector config generated from an outbox spec (Avro bytes payload)
			name: "generated_avro",
			gen:  "    payloadFormat: avro\n    columns:\n      timestamp: created_at\n      tracing: tracingspancontext",
			base: `{"id":"$ID","aggregatetype":"Sentinel$R","aggregateid":"s","type":"Ping","payload":"hex:00000000010a","schemaversion":1,"created_at":"2024-06-01 00:00:00","tracingspancontext":null}`,
			ops: []op{
				{name: "generated_avro_bytes", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"o-1","type":"OrderCreated","payload":"hex:0000000001020a4f7264","schemaversion":2,"created_at":"2024-06-01 10:20:30.123456","tracingspancontext":"traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}`},
				{name: "generated_avro_update_dropped", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"o-2","type":"OrderCreated","payload":"hex:00","schemaversion":1,"created_at":"2024-06-01 10:20:31","tracingspancontext":null}`},
				{name: "generated_avro_update_dropped", kind: "update", set: `{"payload":"hex:01"}`},
				{name: "generated_avro_delete_dropped", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order$R","aggregateid":"o-3","type":"OrderCreated","payload":"hex:00","schemaversion":1,"created_at":"2024-06-01 10:20:32","tracingspancontext":null}`},
				{name: "generated_avro_delete_dropped", kind: "delete"},
			},
		},
		{
			// the connector config generated from an outbox spec (JSON payload)
			name: "generated_json",
			gen:  "    payloadFormat: json",
			base: `{"id":"$ID","aggregatetype":"Sentinel$R","aggregateid":"s","type":"Ping","payload":{"ping":true},"schemaversion":1}`,
			ops: []op{
				{name: "generated_json_payload", kind: "insert", row: `{"id":"$ID","aggregatetype":"Payment$R","aggregateid":"p-1","type":"PaymentCaptured","payload":{"currency":"EUR","amount":12.5,"lines":[{"sku":"a"}]},"schemaversion":3}`},
				{name: "generated_json_null_payload", kind: "insert", row: `{"id":"$ID","aggregatetype":"Payment$R","aggregateid":"p-2","type":"PaymentVoided","payload":null,"schemaversion":1}`},
			},
		},
		{
			// #31: typed columns in every placement, as the connectors'
			// value converters deliver them: inputs in non-canonical form
			// (upper-case uuid), more fraction digits than the column keeps
			// (PostgreSQL rounds, MariaDB truncates), unsigned bounds
			// (MariaDB widens; BIGINT UNSIGNED wraps), NULLs
			name: "typed_columns_placements", parts: 2,
			cols: withCols(
				col{name: "t_uuid", pg: "uuid", maria: "varchar(36)"},
				col{name: "t_ts", pg: "timestamp(3)", maria: "datetime(3)"},
				col{name: "t_ts6", pg: "timestamp", maria: "datetime(6)"},
				col{name: "t_ts0", pg: "timestamp(0)", maria: "datetime"},
				col{name: "t_tz", pg: "timestamptz(3)", maria: "timestamp(3)"},
				col{name: "t_tz0", pg: "timestamptz", maria: "timestamp"},
				col{name: "t_u8", pg: "int2", maria: "tinyint unsigned"},
				col{name: "t_u16", pg: "int4", maria: "smallint unsigned"},
				col{name: "t_u24", pg: "int4", maria: "mediumint unsigned"},
				col{name: "t_u32", pg: "int8", maria: "int unsigned"},
				col{name: "t_u64", pg: "text", maria: "bigint unsigned"},    // PostgreSQL has no unsigned bigint
				col{name: "t_part", pg: "int4", maria: "smallint unsigned"}, // int32 on both: partition takes it
				col{name: "t_bin", pg: "bytea", maria: "binary(4)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_uuid",
				"table.field.event.timestamp":       "t_ts",
				"table.field.event.schema.version":  "t_u24", // mediumint unsigned: int32
				"table.fields.additional.placement": "t_uuid:header,t_ts:header,t_ts6:header,t_ts0:envelope,t_tz:header,t_tz:envelope:tz,t_tz0:header,t_u8:header,t_u16:envelope,t_u24:header,t_u32:header,t_u32:envelope:u32,t_u64:header,t_u64:envelope:u64,t_part:partition,t_bin:header",
				"route.topic.replacement":           "dt$R.typed2.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_uuid":null,"t_ts":"2024-01-01 00:00:00","t_ts6":null,"t_ts0":null,"t_tz":null,"t_tz0":null,"t_u8":null,"t_u16":null,"t_u24":null,"t_u32":null,"t_u64":null,"t_part":0,"t_bin":null}`,
			ops: []op{
				{name: "typed_non_canonical_excess_precision", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_uuid":"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11","t_ts":"2024-03-01 12:34:56.7895","t_ts6":"2024-03-01 12:34:56.1234567","t_ts0":"2024-03-01 12:34:56.5","t_tz":"2024-03-01 12:34:56.98765","t_tz0":"2024-03-01 12:34:56.5","t_u8":255,"t_u16":65535,"t_u24":16777215,"t_u32":4294967295,"t_u64":18446744073709551615,"t_part":1,"t_bin":"hex:01"}`},
				{name: "typed_lower_bounds_zero_fraction", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_uuid":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12","t_ts":"2024-03-01 12:34:56","t_ts6":"2024-03-01 12:34:56","t_ts0":"2024-03-01 12:34:56","t_tz":"2024-03-01 12:34:56","t_tz0":"2024-03-01 12:34:56","t_u8":0,"t_u16":0,"t_u24":0,"t_u32":0,"t_u64":9223372036854775808,"t_part":0,"t_bin":"hex:01020304"}`},
				{name: "typed_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_uuid":null,"t_ts":null,"t_ts6":null,"t_ts0":null,"t_tz":null,"t_tz0":null,"t_u8":null,"t_u16":null,"t_u24":null,"t_u32":null,"t_u64":null,"t_part":null,"t_bin":null}`},
			},
		},
		{
			// #31: time-of-day, year, enum, set and bit columns in the key,
			// headers and envelope fields; each column of a type one
			// database lacks is text / varchar on the other
			name: "typed_time_enum_bit",
			cols: withCols(
				col{name: "t_time", pg: "time(3)", maria: "time(3)"},
				col{name: "t_time6", pg: "time", maria: "time(6)"},
				col{name: "t_time0", pg: "time(0)", maria: "time"},
				col{name: "t_tz", pg: "timetz", maria: "varchar(64)"},
				col{name: "t_year", pg: "text", maria: "year"},
				col{name: "t_enum", pg: "text", maria: "enum('new','Paid','x y')"},
				col{name: "t_set", pg: "text", maria: "set('a','b','c')"},
				col{name: "t_bit", pg: "text", maria: "bit(1)"},
				col{name: "t_bits", pg: "text", maria: "bit(10)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_enum",
				"table.fields.additional.placement": "t_time:header,t_time6:header,t_time0:header,t_tz:header,t_year:header,t_enum:header,t_set:header,t_bit:header,t_bits:header,t_time:envelope:tm,t_tz:envelope:tz,t_set:envelope:s,t_bits:envelope:b",
				"route.topic.replacement":           "dt$R.misc.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_time":null,"t_time6":null,"t_time0":null,"t_tz":null,"t_year":null,"t_enum":null,"t_set":null,"t_bit":null,"t_bits":null}`,
			ops: []op{
				{name: "misc_non_canonical_excess_precision", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_time":"12:34:56.7895","t_time6":"23:59:59.9999995","t_time0":"12:34:56.5","t_tz":"10:00:00.5+02","t_year":"24","t_enum":"PAID","t_set":"c,a","t_bit":1,"t_bits":517}`},
				{name: "misc_bounds", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_time":"00:00:00","t_time6":"24:00:00","t_time0":"23:59:59","t_tz":"23:30:00-05:30","t_year":0,"t_enum":1,"t_set":"","t_bit":0,"t_bits":1023}`},
				{name: "misc_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_time":null,"t_time6":null,"t_time0":null,"t_tz":null,"t_year":null,"t_enum":null,"t_set":null,"t_bit":null,"t_bits":null}`},
			},
		},
		{
			// #31: the typed getters on the new types: route.by.field reads
			// an enum (a string), the schema version a year (an int32)
			name: "typed_getters_enum_year",
			cols: withCols(
				col{name: "t_enum", pg: "varchar(16)", maria: "enum('Order','Customer')"},
				col{name: "t_year", pg: "int4", maria: "year"},
			),
			er: map[string]string{
				"route.by.field":                    "t_enum",
				"table.field.event.schema.version":  "t_year",
				"table.fields.additional.placement": "t_year:header",
				"route.topic.replacement":           "dt$R.get.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"A","aggregateid":"s","type":"Ping","payload":{},"t_enum":"Customer","t_year":2001}`,
			ops: []op{
				{name: "route_by_enum_version_year", kind: "insert", row: `{"id":"$ID","aggregatetype":"A","aggregateid":"1","type":"T","payload":{"a":1},"t_enum":"Order","t_year":2024}`},
				{name: "route_by_enum_null_year", kind: "insert", row: `{"id":"$ID","aggregatetype":"A","aggregateid":"2","type":"T","payload":{"a":2},"t_enum":"Customer","t_year":null}`},
			},
		},
		{
			// a decimal in the partition placement: getInt32 on a Decimal
			// (BYTES) fails the task
			name: "decimal_partition_fails", cols: withCols(col{name: "t_dec", pg: "numeric(10,2)", maria: "decimal(10,2)"}),
			er:   map[string]string{"table.fields.additional.placement": "t_dec:partition"},
			conn: map[string]string{"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter"},
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_dec":"1.00"}`,
			ops: []op{
				{name: "decimal_partition_fails_task", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_dec":"1.00"}`},
			},
		},
		{
			// a MicroTime (time of day, int64) as the event timestamp
			name: "micro_time_timestamp_fails", cols: withCols(col{name: "t_tm", pg: "time", maria: "time(6)"}),
			er:   map[string]string{"table.field.event.timestamp": "t_tm"},
			conn: map[string]string{"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter"},
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_tm":"01:02:03.000004"}`,
			ops: []op{
				{name: "micro_time_timestamp_fails_task", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_tm":"01:02:03.000004"}`},
			},
		},
		{
			// #31 item 3: MariaDB BOOLEAN is tinyint(1). A schema read from
			// SHOW CREATE TABLE (the snapshot of the schema: the other
			// variants, whose tables exist before the connector starts)
			// gives int16; a CREATE TABLE ... BOOLEAN the connector's DDL
			// parser reads from the binlog gives boolean, any non-zero
			// value true. Preview models the first as "tinyint(1)", the
			// second as "boolean"; the relay reads the catalog
			// (tinyint(1)) and is told the second by
			// relay.Options.BooleanColumns (the columns declared
			// "boolean" here).
			name: "boolean_from_binlog_ddl", lateDDL: true,
			// the payload is longtext: a MariaDB JSON column read from the
			// binlog's DDL is a string io.debezium.data.Json (seen on the
			// stack), which the emulator does not model (it models the
			// LONGTEXT that SHOW CREATE TABLE prints: a plain string)
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "jsonb", maria: "longtext"}), col{name: "t_bool", pg: "boolean", maria: "boolean"}),
			er: map[string]string{
				"table.fields.additional.placement": "t_bool:header,t_bool:envelope:flag",
				"route.topic.replacement":           "dt$R.bool.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"s","type":"Ping","payload":{},"t_bool":false}`,
			ops: []op{
				{name: "bool_true", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_bool":true}`},
				{name: "bool_false", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"t_bool":false}`},
				{name: "bool_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{},"t_bool":null}`},
			},
		},
		{
			// #31: a MariaDB JSON column learnt from the binlog's CREATE
			// TABLE (lateDDL) is io.debezium.data.Json (the emulator's
			// eventrouter.MariaDBBinlogJSON, the relay's
			// Options.JSONColumns), the text as stored (not normalized:
			// blanks and key order kept); in the payload, a header with
			// its schema and the envelope; on PostgreSQL jsonb
			name: "json_from_binlog_ddl", lateDDL: true,
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "jsonb", maria: "json", mariaModel: eventrouter.MariaDBBinlogJSON}),
				col{name: "t_js", pg: "jsonb", maria: "json", mariaModel: eventrouter.MariaDBBinlogJSON}),
			er: map[string]string{
				"table.fields.additional.placement": "t_js:header,t_js:envelope:js",
				"route.topic.replacement":           "dt$R.bjson.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"s","type":"Ping","payload":{},"t_js":{}}`,
			ops: []op{
				{name: "json_binlog_text", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"{\"b\": 1,  \"a\": [1, 2]}","t_js":"[1,\"x\"]"}`},
				{name: "json_binlog_scalar", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"\"s\"","t_js":"1.50"}`},
				{name: "json_binlog_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"k":"v"},"t_js":null}`},
			},
		},
		{
			// a BOOLEAN (tinyint(1)) learnt from the binlog's CREATE TABLE
			// holding other values than 0 and 1: the connector's boolean
			// converter makes any non-zero value true; the relay reads it
			// as (col <> 0) (relay.Options.BooleanColumns). On PostgreSQL
			// the column is an int2
			name: "boolean_nonzero_from_binlog_ddl", lateDDL: true,
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "jsonb", maria: "longtext"}), col{name: "t_bool", pg: "int2", maria: "boolean"}),
			er: map[string]string{
				"table.fields.additional.placement": "t_bool:header,t_bool:envelope:flag",
				"route.topic.replacement":           "dt$R.boolnz.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"s","type":"Ping","payload":{},"t_bool":0}`,
			ops: []op{
				{name: "bool_nonzero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_bool":5}`},
				{name: "bool_negative", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"t_bool":-128}`},
				{name: "bool_zero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{},"t_bool":0}`},
			},
		},
		{
			// #31 item 2: the scalar types in the key, headers and envelope:
			// floats (Java Float/Double.toString and JsonConverter), 16- and
			// 64-bit bounds, MariaDB tinyint(1) as SHOW CREATE TABLE gives
			// it (int16), dates before the epoch, bytes, char(n), json text
			name: "typed_scalars",
			cols: withCols(
				col{name: "t_f4", pg: "float4", maria: "float"},
				col{name: "t_f8", pg: "float8", maria: "double"},
				col{name: "t_i2", pg: "int2", maria: "smallint"},
				col{name: "t_i8", pg: "int8", maria: "bigint"},
				col{name: "t_bool", pg: "bool", maria: "tinyint(1)"},
				col{name: "t_date", pg: "date", maria: "date"},
				col{name: "t_bin", pg: "bytea", maria: "varbinary(8)"},
				col{name: "t_char", pg: "char(5)", maria: "char(5)"},
				col{name: "t_js", pg: "json", maria: "longtext"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_f4",
				"table.fields.additional.placement": "t_f4:header,t_f8:header,t_i2:header,t_i8:header,t_bool:header,t_date:header,t_bin:header,t_char:header,t_js:header,t_f4:envelope:f4,t_f8:envelope:f8,t_date:envelope:d,t_char:envelope:c,t_bool:envelope:b",
				"route.topic.replacement":           "dt$R.scalar.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_f4":null,"t_f8":null,"t_i2":null,"t_i8":null,"t_bool":null,"t_date":null,"t_bin":null,"t_char":null,"t_js":null}`,
			ops: []op{
				{name: "scalars_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_f4":1.1,"t_f8":0.1,"t_i2":-32768,"t_i8":9223372036854775807,"t_bool":true,"t_date":"2024-02-29","t_bin":"hex:00ff","t_char":"ab","t_js":{"b":1,"a":[2.50,"x"]}}`},
				{name: "scalars_bounds", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_f4":1e-7,"t_f8":1e-300,"t_i2":32767,"t_i8":-9223372036854775808,"t_bool":false,"t_date":"1969-12-31","t_bin":"","t_char":"abcde","t_js":[1,2]}`},
				{name: "scalars_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_f4":null,"t_f8":null,"t_i2":null,"t_i8":null,"t_bool":null,"t_date":null,"t_bin":null,"t_char":null,"t_js":null}`},
			},
		},
		{
			// decimals under decimal.handling.mode=string in the payload
			// (rounded to the scale, plain text) and in route.by.field
			// (getString takes the string; 41.5 rounds to 42)
			name: "decimal_payload_route_by",
			cols: []col{
				{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
				{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "aggregateid", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
				{name: "payload", pg: "numeric(12,3)", maria: "decimal(12,3)"},
				{name: "t_route", pg: "numeric(4)", maria: "decimal(4)", notNull: true},
			},
			er: map[string]string{
				"route.by.field":          "t_route",
				"route.topic.replacement": "dt$R.decroute.${routedByValue}",
			},
			conn: stringKeyJSON(false, "decimal.handling.mode", "string"),
			base: `{"id":"$ID","aggregatetype":"A","aggregateid":"s","type":"Ping","payload":"1","t_route":9}`,
			ops: []op{
				{name: "decimal_string_payload_routed", kind: "insert", row: `{"id":"$ID","aggregatetype":"A","aggregateid":"1","type":"T","payload":"-12.3456","t_route":"41.5"}`},
				{name: "decimal_string_null_payload", kind: "insert", row: `{"id":"$ID","aggregatetype":"A","aggregateid":"2","type":"T","payload":null,"t_route":7}`},
			},
		},
		{
			// #31: PostgreSQL interval (interval.handling.mode=numeric:
			// io.debezium.time.MicroDuration, 30.4375-day months, doubles);
			// on MariaDB the column is text
			name: "pg_interval",
			cols: withCols(col{name: "t_iv", pg: "interval", maria: "varchar(64)"}),
			er: map[string]string{
				"table.fields.additional.placement": "t_iv:header,t_iv:envelope:iv",
				"route.topic.replacement":           "dt$R.iv.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"s","type":"Ping","payload":{},"t_iv":"00:00:00"}`,
			ops: []op{
				{name: "interval_all_units", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_iv":"1 year 2 mons 3 days 04:05:06.123456"}`},
				{name: "interval_negative_days", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"t_iv":"-1 days +02:00:00"}`},
				{name: "interval_negative_time", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{},"t_iv":"-00:00:06.5"}`},
				{name: "interval_months", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{},"t_iv":"1 year 1 mon"}`},
				{name: "interval_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":{},"t_iv":null}`},
			},
		},
		{
			// #31 (remaining types): PostgreSQL money (precise: a Decimal
			// of scale 2), bit(1) / varbit(1) (boolean), bit(n) / varbit(n)
			// (io.debezium.data.Bits, minimal little-endian bytes), xml
			// (io.debezium.data.Xml, the declaration as xml_out prints it)
			// and interval(p) in the key, payload, headers and envelope;
			// on MariaDB the columns are text
			name: "pg_money_bit_xml",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "xml", maria: "longtext"}),
				col{name: "t_money", pg: "money", maria: "varchar(32)"},
				col{name: "t_bit1", pg: "bit(1)", maria: "varchar(32)"},
				col{name: "t_bits", pg: "bit(10)", maria: "varchar(32)"},
				col{name: "t_vbits", pg: "varbit(16)", maria: "varchar(32)"},
				col{name: "t_vbit1", pg: "varbit(1)", maria: "varchar(32)"},
				col{name: "t_iv3", pg: "interval(3)", maria: "varchar(64)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_money",
				"table.fields.additional.placement": "t_money:header,t_bit1:header,t_bits:header,t_vbits:header,t_vbit1:header,t_iv3:header,t_money:envelope:m,t_bits:envelope:b,t_vbits:envelope:vb,t_iv3:envelope:iv",
				"route.topic.replacement":           "dt$R.pgt.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"<p/>","t_money":"1","t_bit1":null,"t_bits":null,"t_vbits":null,"t_vbit1":null,"t_iv3":null}`,
			ops: []op{
				{name: "pgtypes_non_canonical_excess_precision", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a b=\"1\">x &amp; y</a>","t_money":"-$1,234.565","t_bit1":"1","t_bits":"1000000101","t_vbits":"101","t_vbit1":"0","t_iv3":"1 day 00:00:01.2345"}`},
				{name: "pgtypes_bounds_zero_bits_standalone", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"<?xml version='1.0' standalone='yes'?><r/>","t_money":"92233720368547758.07","t_bit1":"0","t_bits":"0000000000","t_vbits":"","t_vbit1":"1","t_iv3":"-00:00:59.9995"}`},
				{name: "pgtypes_plain_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":"text <b>mixed</b> content","t_money":"0.004","t_bit1":null,"t_bits":"1111111111","t_vbits":"1000000000000001","t_vbit1":null,"t_iv3":"1 year 2 mons"}`},
				{name: "pgtypes_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":null,"t_money":null,"t_bit1":null,"t_bits":null,"t_vbits":null,"t_vbit1":null,"t_iv3":null}`},
			},
		},
		{
			// the typed getters on the new types: route.by.field reads an
			// xml column (a string; the declaration dropped), the key a
			// money column under decimal.handling.mode=string
			name: "xml_route_by_money_key",
			cols: withCols(
				col{name: "t_xml", pg: "xml", maria: "longtext", notNull: true},
				col{name: "t_money", pg: "money", maria: "varchar(32)"},
			),
			er: map[string]string{
				"route.by.field":          "t_xml",
				"table.field.event.key":   "t_money",
				"route.topic.replacement": "dt$R.xr.${routedByValue}",
			},
			conn: stringKeyJSON(false, "decimal.handling.mode", "string"),
			base: `{"id":"$ID","aggregatetype":"A","aggregateid":"s","type":"Ping","payload":{},"t_xml":"Customer","t_money":"1"}`,
			ops: []op{
				{name: "route_by_xml_declaration_dropped", kind: "insert", row: `{"id":"$ID","aggregatetype":"A","aggregateid":"1","type":"T","payload":{"a":1},"t_xml":"<?xml version=\"1.0\"?>\nOrder","t_money":"-$1,000.005"}`},
				{name: "route_by_xml_null_money_key", kind: "insert", row: `{"id":"$ID","aggregatetype":"A","aggregateid":"2","type":"T","payload":{"a":2},"t_xml":"Order","t_money":null}`},
			},
		},
		{
			// an interval (MicroDuration, int64) as the event timestamp: the
			// task fails (on MariaDB a varchar: it fails too)
			name: "interval_timestamp_fails", cols: withCols(col{name: "t_iv", pg: "interval(3)", maria: "varchar(32)"}),
			er:   map[string]string{"table.field.event.timestamp": "t_iv"},
			conn: map[string]string{"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter"},
			base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_iv":"00:00:01"}`,
			ops: []op{
				{name: "interval_timestamp_fails_task", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_iv":"00:00:01"}`},
			},
		},
		{
			// the other placements of the remaining PostgreSQL types: money
			// as the payload (a Decimal under JsonConverter with schemas),
			// bit(n) as the key (JsonConverter with schemas: base64 and the
			// Bits schema), varbit(1) in the envelope, xml in a header; on
			// MariaDB the columns are text
			name: "pg_types_key_payload",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "money", maria: "varchar(32)"}),
				col{name: "t_bits", pg: "bit(12)", maria: "varchar(32)"},
				col{name: "t_vbit1", pg: "varbit(1)", maria: "varchar(32)"},
				col{name: "t_xml", pg: "xml", maria: "longtext"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_bits",
				"table.fields.additional.placement": "t_xml:header,t_vbit1:envelope:flag",
				"route.topic.replacement":           "dt$R.pgk.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"1","t_bits":"000000000001","t_vbit1":"1","t_xml":"<s/>"}`,
			ops: []op{
				{name: "money_payload_bits_key", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"$12,345,678.905","t_bits":"100000000001","t_vbit1":"1","t_xml":"<?xml version=\"1.0\" standalone=\"no\"?>\n<a>é &lt;</a>"}`},
				{name: "money_negative_payload_zero_key", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"-0.01","t_bits":"000000000000","t_vbit1":"0","t_xml":"<?xml version=\"1.0\"?><b/>"}`},
				{name: "money_null_payload_tombstone_null_key", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_bits":null,"t_vbit1":null,"t_xml":null}`},
			},
		},
		{
			// #31 (network types): PostgreSQL inet, cidr, macaddr and
			// macaddr8 as the connector delivers them (plain strings,
			// PostgreSQL's output form of the stored value) in the key
			// (StringConverter), the payload, headers (JsonConverter) and
			// the envelope; non-canonical inputs (abbreviated cidr,
			// dash-separated and upper-case MACs, a 6-byte macaddr8,
			// uncompressed IPv6), masks and NULL; on MariaDB the columns
			// are text
			name: "pg_net_types",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "cidr", maria: "varchar(64)"}),
				col{name: "t_inet", pg: "inet", maria: "varchar(64)"},
				col{name: "t_mac", pg: "macaddr", maria: "varchar(64)"},
				col{name: "t_mac8", pg: "macaddr8", maria: "varchar(64)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_inet",
				"table.fields.additional.placement": "t_inet:header,payload:header,t_mac:header,t_mac8:header,t_mac:envelope:mac,t_mac8:envelope:mac8,t_inet:envelope:ip",
				"route.topic.replacement":           "dt$R.net.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"10.0.0.0/8","t_inet":"1.2.3.4","t_mac":"08:00:2b:01:02:03","t_mac8":"08:00:2b:01:02:03:04:05"}`,
			ops: []op{
				{name: "net_non_canonical", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"10.1/16","t_inet":"192.168.0.1/32","t_mac":"08-00-2B-01-02-03","t_mac8":"08:00:2b:01:02:03"}`},
				{name: "net_ipv6_masks", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"2001:DB8::/32","t_inet":"2001:0db8:0:0:0:0:0:1/64","t_mac":"0800.2b01.0203","t_mac8":"0800-2b01-0203-0405"}`},
				{name: "net_mapped_classful", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":"192.168.1","t_inet":"::ffff:10.0.0.1","t_mac":"08002b:010203","t_mac8":"08002b0102030405"}`},
				{name: "net_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":null,"t_inet":null,"t_mac":null,"t_mac8":null}`},
			},
		},
		{
			// #31 (arrays): PostgreSQL one-dimensional arrays (a Connect
			// ARRAY of optional elements) in the key (StringConverter:
			// List.toString), the payload, headers and the envelope
			// (JsonConverter with schemas); non-canonical literals (blanks,
			// upper-case uuids, quoted elements), NULL elements, empty
			// arrays and NULL; on MariaDB the columns are text
			name: "pg_arrays",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "text[]", maria: "varchar(200)"}),
				col{name: "t_ints", pg: "int4[]", maria: "varchar(200)"},
				col{name: "t_i8s", pg: "bigint[]", maria: "varchar(200)"},
				col{name: "t_i2s", pg: "smallint[]", maria: "varchar(200)"},
				col{name: "t_bools", pg: "boolean[]", maria: "varchar(200)"},
				col{name: "t_vcs", pg: "varchar(20)[]", maria: "varchar(200)"},
				col{name: "t_uuids", pg: "uuid[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_ints",
				"table.fields.additional.placement": "t_ints:header,t_i8s:header,t_bools:header,t_vcs:header,t_uuids:header,t_i2s:envelope:i2,t_vcs:envelope:vc,t_uuids:envelope:u",
				"route.topic.replacement":           "dt$R.arr.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"{p}","t_ints":"{0}","t_i8s":null,"t_i2s":null,"t_bools":null,"t_vcs":null,"t_uuids":null}`,
			ops: []op{
				{name: "arrays_non_canonical", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"{ a b ,\"c,\\\"d\",\"NULL\",NULL}","t_ints":"{ 1 , -2 ,NULL}","t_i8s":"{9223372036854775807,-9223372036854775808}","t_i2s":"{32767}","t_bools":"{t,FALSE,null}","t_vcs":"{\"x y\",é}","t_uuids":"{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11,NULL}"}`},
				{name: "arrays_empty", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"{}","t_ints":"{}","t_i8s":"{}","t_i2s":"{}","t_bools":"{}","t_vcs":"{}","t_uuids":"{}"}`},
				{name: "arrays_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_ints":null,"t_i8s":null,"t_i2s":null,"t_bools":null,"t_vcs":null,"t_uuids":null}`},
			},
		},
		{
			// arrays under the worker's SimpleHeaderConverter
			// (Values.convertToString: [1,2,null], strings quoted) and a
			// JsonConverter key with schemas
			name: "pg_arrays_simple_headers",
			cols: withCols(
				col{name: "t_ints", pg: "integer[]", maria: "varchar(200)"},
				col{name: "t_txt", pg: "text[]", maria: "varchar(200)"},
				col{name: "t_bools", pg: "bool[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_txt",
				"table.fields.additional.placement": "t_ints:header,t_txt:header,t_bools:header",
				"route.topic.replacement":           "dt$R.arrs.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_ints":"{0}","t_txt":"{s}","t_bools":null}`,
			ops: []op{
				{name: "arrays_simple_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_ints":"{1,NULL,3}","t_txt":"{\"q\\\"x\",\"back\\\\slash\",plain}","t_bools":"{true,f}"}`},
				{name: "arrays_simple_empty_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_ints":"{}","t_txt":null,"t_bools":"{NULL}"}`},
			},
		},
		{
			// #31 (ranges): PostgreSQL int4range, int8range and daterange
			// as the connector delivers them (plain strings, the canonical
			// [lower,upper) PostgreSQL prints) in the key, payload, headers
			// and envelope; non-canonical bounds, empty ranges, infinite
			// bounds, NULL; on MariaDB the columns are text
			name: "pg_ranges",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "int8range", maria: "varchar(64)"}),
				col{name: "t_r4", pg: "int4range", maria: "varchar(64)"},
				col{name: "t_dr", pg: "daterange", maria: "varchar(64)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_r4",
				"table.fields.additional.placement": "t_r4:header,t_dr:header,payload:header,t_dr:envelope:dr,t_r4:envelope:r4",
				"route.topic.replacement":           "dt$R.rng.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"[0,1)","t_r4":"[0,1)","t_dr":"[2024-01-01,2024-01-02)"}`,
			ops: []op{
				{name: "ranges_non_canonical", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"(1,9223372036854775806]","t_r4":" [ 1 , 5 ] ","t_dr":"(2024-01-31,2024-02-29]"}`},
				{name: "ranges_empty_infinite", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"(,)","t_r4":"(4,5)","t_dr":"[2024-01-01,)"}`},
				{name: "ranges_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_r4":null,"t_dr":null}`},
			},
		},
		{
			// numrange and tsrange (not discrete: brackets kept; numeric_out's
			// scale, ISO timestamps quoted) in the key, payload, headers and
			// envelope; on MariaDB the columns are text
			name: "pg_ranges_num_ts",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "tsrange", maria: "varchar(80)"}),
				col{name: "t_nr", pg: "numrange", maria: "varchar(80)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_nr",
				"table.fields.additional.placement": "t_nr:header,payload:header,t_nr:envelope:nr",
				"route.topic.replacement":           "dt$R.rngn.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"[2024-01-01,2024-01-02)","t_nr":"[0,1)"}`,
			ops: []op{
				{name: "ranges_num_ts_non_canonical", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"[2024-01-01T10:00:00.500,\"2024-01-02 00:00:00\"]","t_nr":"(1e2, 1.50e3]"}`},
				{name: "ranges_num_ts_empty_infinite", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":"[2024-01-01,)","t_nr":"(1.0,1.00)"}`},
				{name: "ranges_num_ts_scale_zero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":"(,)","t_nr":"[-0.00,0.0100]"}`},
				{name: "ranges_num_ts_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":null,"t_nr":null}`},
			},
		},
		{
			// float4[], float8[] and date[] (arrays of optional float /
			// double / io.debezium.time.Date): the
			// key under StringConverter (List.toString: Float.toString), a
			// SimpleHeaderConverter header and the envelope; on MariaDB the
			// columns are text
			name: "pg_float_arrays",
			cols: withCols(
				col{name: "t_f4s", pg: "float4[]", maria: "varchar(200)"},
				col{name: "t_f8s", pg: "double precision[]", maria: "varchar(200)"},
				col{name: "t_ds", pg: "date[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_f4s",
				"table.fields.additional.placement": "t_f4s:header,t_f8s:header,t_f8s:envelope:f8s,t_ds:header,t_ds:envelope:ds",
				"route.topic.replacement":           "dt$R.farr.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_f4s":"{0}","t_f8s":null,"t_ds":null}`,
			ops: []op{
				{name: "float_arrays_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_f4s":"{1.1, -0 ,NULL,1e-7}","t_f8s":"{0.1,1e-300,-2.5E+10}","t_ds":"{2024-02-29,1969-12-31,NULL}"}`},
				{name: "float_arrays_empty_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_f4s":"{}","t_f8s":null,"t_ds":"{}"}`},
			},
		},
		specialNumericVariant("numeric_special_string", "string"),
		specialNumericVariant("numeric_special_double", "double"),
		specialNumericVariant("numeric_special_precise", "precise"),
		{
			// hstore under hstore.handling.mode=json (the default): Jackson's
			// JSON of the java.util.HashMap the driver's HStoreConverter
			// fills, keys in HashMap order (14 keys: the table resized to
			// 32), escapes, NULL values, non-ASCII keys, an empty hstore and
			// a NULL column, in the key (StringConverter), a header with its
			// schema (io.debezium.data.Json) and the envelope; on MariaDB
			// the column is text
			name:    "pg_hstore",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS hstore"},
			cols:    withCols(col{name: "t_h", pg: "hstore", maria: "varchar(400)"}),
			er: map[string]string{
				"table.field.event.key":             "t_h",
				"table.fields.additional.placement": "t_h:header,t_h:envelope:h",
				"route.topic.replacement":           "dt$R.hst.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_h":"a=>1"}`,
			ops: []op{
				{name: "hstore_order", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_h":"zeta=>1, c=>3, b=>2, aa=>NULL, q=>\"x y\", longer_key=>v, k2=>\"\", Aa=>1, BB=>2, é=>accent, \"a b\"=>sp, x=>NuLL, n=>\"NULL\", m=>\"q\\\"\\\\\""}`},
				{name: "hstore_empty", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_h":""}`},
				{name: "hstore_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_h":null}`},
				{name: "hstore_two", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_h":"\"b\" => \"2\" , \"a\"=>\"1\""}`},
			},
		},
		{
			// tstzrange: bounds printed in the replication session's time
			// zone (the Connect worker JVM's, UTC on the stack): offsets
			// converted, brackets kept, empty on equal instants; in the key
			// (StringConverter), a header and the envelope; on MariaDB the
			// column is text
			name: "pg_tstzrange",
			cols: withCols(col{name: "t_tz", pg: "tstzrange", maria: "varchar(120)"}),
			er: map[string]string{
				"table.field.event.key":             "t_tz",
				"table.fields.additional.placement": "t_tz:header,t_tz:envelope:tz",
				"route.topic.replacement":           "dt$R.tzr.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_tz":"[2024-01-01 00:00:00+00,)"}`,
			ops: []op{
				{name: "tstzrange_offsets", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_tz":"[2024-01-01 10:00:00.500+02,\"2024-07-01T23:30:00-05:30\"]"}`},
				{name: "tstzrange_empty_infinite", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_tz":"(2024-01-01 10:00+01,2024-01-01 09:00Z)"}`},
				{name: "tstzrange_unbounded", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_tz":"(,2024-02-29 12:00:00.123456+0100]"}`},
				{name: "tstzrange_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_tz":null}`},
			},
		},
		numericArrayVariant("pg_numeric_arrays_precise", "precise"),
		numericArrayVariant("pg_numeric_arrays_string", "string"),
		numericArrayVariant("pg_numeric_arrays_double", "double"),
		{
			// #31 (remaining types): MariaDB UNSIGNED ZEROFILL integers,
			// widened as the unsigned ones (the value, not the padded
			// text); smallint zerofill is an int32, so the partition takes
			// it; on PostgreSQL the columns are the same widths
			name: "zerofill_integers", parts: 2,
			cols: withCols(
				col{name: "t_z8", pg: "int2", maria: "tinyint(3) unsigned zerofill"},
				col{name: "t_z16", pg: "int4", maria: "smallint zerofill"},
				col{name: "t_z32", pg: "int8", maria: "int(5) unsigned zerofill"},
				col{name: "t_z64", pg: "text", maria: "bigint unsigned zerofill"},
				col{name: "t_zd", pg: "int8", maria: "int(4) unsigned zerofill", pgDef: "7", mariaDef: "7"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_z32",
				"table.fields.additional.placement": "t_z8:header,t_z16:header,t_z32:header,t_z64:header,t_zd:header,t_z8:envelope:z8,t_z64:envelope:z64,t_z16:partition",
				"route.topic.replacement":           "dt$R.zf.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_z8":1,"t_z16":0,"t_z32":1,"t_z64":"1","t_zd":1}`,
			ops: []op{
				{name: "zerofill_padded_small", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_z8":7,"t_z16":1,"t_z32":42,"t_z64":"5","t_zd":3}`},
				{name: "zerofill_upper_bounds", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_z8":255,"t_z16":1,"t_z32":4294967295,"t_z64":"18446744073709551615","t_zd":9999}`},
				{name: "zerofill_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":null,"t_z8":null,"t_z16":null,"t_z32":null,"t_z64":null,"t_zd":null}`},
			},
		},
		decimalVariant("decimal_precise", "precise", false, jsonConverters(true)),
		decimalVariant("decimal_precise_string_conv", "precise", false, map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
		}),
		decimalVariant("decimal_string", "string", true, map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
		decimalVariant("decimal_double", "double", true, map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "false",
		}),
		{
			name: "schema_version_micro_timestamp",
			cols: withCols(
				col{name: "version", pg: "int4", maria: "int"},
				col{name: "created_at", pg: "timestamp", maria: "datetime(6)"},
			),
			er: map[string]string{
				"table.field.event.schema.version":  "version",
				"table.field.event.timestamp":       "created_at",
				"table.fields.additional.placement": "aggregatetype:envelope:aggType,type:header",
				"route.topic.replacement":           "dt$R.ver.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{"ping":true},"version":9,"created_at":"2024-01-01 00:00:00"}`,
			ops: []op{
				{name: "schema_version_1_micros", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"a":1},"version":1,"created_at":"2024-05-06 07:08:09.123456"}`},
				{name: "schema_version_2", kind: "insert", row: `{"id":"$ID","aggregatetype":"Customer","aggregateid":"2","type":"CustomerCreated","payload":{"b":"x"},"version":2,"created_at":"2024-05-06 07:08:10.000001"}`},
			},
		},
	}
}

// ---------------------------------------------------------------- harness

type dbSide struct {
	kind eventrouter.ConnectorKind
	name string
}

// runDifferential has one caller, TestDifferentialRelay: each variant
// first compares the emulator with the real EventRouter (the SUMMARY
// lines), then replays its rows through the relay. A separate emulator-only
// test ran the same variants again; with some 440 cases per database it
// doubled the package's time and was dropped.

// afterVariant runs after a variant's real records were compared, with the
// connector still registered (the relay differential test replays the rows).
type afterVariant func(ctx context.Context, h *harness, cons *kafka.Consumer, got []*kafka.Message)

func runDifferential(t *testing.T, after afterVariant) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres, itest.MariaDB)
	run := randSuffix()
	worker := map[string]string{ // the stack's worker converters (devstack/stack.sh)
		"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
	}
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}

	sem := make(chan struct{}, 4)
	var mu sync.Mutex
	summary := map[string][2]int{}
	for _, side := range []dbSide{{eventrouter.Postgres, "postgres"}, {eventrouter.MariaDB, "mariadb"}} {
		side := side
		t.Run(side.name, func(t *testing.T) {
			db := newScratchDB(t, s, side, run)
			for vi, v := range variants() {
				vi, v := vi, v
				t.Run(v.name, func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					h := &harness{t: t, s: s, side: side, db: db, v: v, run: run, idx: vi, worker: worker, admin: admin, connect: cc, after: after}
					pass, total := h.runVariant()
					mu.Lock()
					c := summary[side.name]
					c[0] += pass
					c[1] += total
					summary[side.name] = c
					mu.Unlock()
				})
			}
		})
	}
	for k, c := range summary {
		t.Logf("SUMMARY %s: %d/%d cases matched the real EventRouter", k, c[0], c[1])
	}
}

type scratchDB struct {
	name  string
	pg    *pgx.Conn
	maria *sql.DB
	mu    sync.Mutex
}

func (d *scratchDB) exec(ctx context.Context, q string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pg != nil {
		_, err := d.pg.Exec(ctx, q)
		return err
	}
	_, err := d.maria.ExecContext(ctx, q)
	return err
}

func newScratchDB(t *testing.T, s settings.Settings, side dbSide, run string) *scratchDB {
	ctx := context.Background()
	name := "er_diff_" + strings.ToLower(run)
	d := &scratchDB{name: name}
	switch side.kind {
	case eventrouter.Postgres:
		admin, err := pgx.Connect(ctx, s.PostgresDSN)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		if d.pg, err = pgx.Connect(ctx, settings.PostgresDSNWithDatabase(s.PostgresDSN, name)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			d.pg.Close(ctx)
			// slots are dropped with the connector (slot.drop.on.stop); drop leftovers
			for i := 0; i < 20; i++ {
				_, _ = admin.Exec(ctx, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = $1 AND NOT active", name)
				var n int
				_ = admin.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE database = $1", name).Scan(&n)
				if n == 0 {
					break
				}
				time.Sleep(time.Second)
			}
			if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
				t.Logf("cleanup: drop database %s: %v", name, err)
			}
			admin.Close(ctx)
		})
	case eventrouter.MariaDB:
		cfg, err := mysql.ParseDSN(s.MariaDBDSN)
		if err != nil {
			t.Fatal(err)
		}
		root, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := root.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		cfg.DBName = name
		if d.maria, err = sql.Open("mysql", cfg.FormatDSN()); err != nil {
			t.Fatal(err)
		}
		d.maria.SetMaxOpenConns(1)
		t.Cleanup(func() {
			d.maria.Close()
			if _, err := root.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
				t.Logf("cleanup: drop database %s: %v", name, err)
			}
			root.Close()
		})
	}
	return d
}

type harness struct {
	t      *testing.T
	s      settings.Settings
	side   dbSide
	db     *scratchDB
	v      variant
	run    string
	idx    int
	worker map[string]string
	admin  *kafka.AdminClient
	// connect is the project's Connect client (rebalance answers retried).
	connect *connect.Client

	table     string
	connector string
	prefix    string
	cfg       eventrouter.Config
	router    *eventrouter.Router
	topics    map[string]bool // routed topics: created, consumed, deleted
	// deleteOnly are other topics of the connector (schema history): deleted
	deleteOnly         map[string]bool
	tombstonesOnDelete bool
	expected           map[string][]expectedRec // event id (emulated id header bytes) -> records
	caseOf             map[string]string        // id header bytes -> case name
	dropped            map[string]string        // case -> reason for dropped ops
	idCol              string

	failCase      string            // the case whose op fails the task
	caseKeyByID   map[string]string // event id -> emulated id header bytes
	caseByEventID map[string]string // event id -> case name
	rows          map[string]string // event id -> inserted row JSON

	after    afterVariant
	conf     map[string]string // the connector config
	inserted []string          // every inserted row JSON, in insert order
}

type expectedRec struct {
	caseName string
	rec      *eventrouter.Record
}

// subst fills a row or option template: $ID is the event id, $R a token
// unique to the run, database and variant (so that no two variants share a
// topic), $r its lower-case form.
func (h *harness) subst(s, id string) string {
	s = strings.ReplaceAll(s, "$ID", id)
	s = strings.ReplaceAll(s, "$R", strings.ToUpper(h.prefix))
	return strings.ReplaceAll(s, "$r", strings.ToLower(h.prefix))
}

// sentinelTimeout bounds the wait for a variant's sentinel record. With
// some 220 variants per database creating and deleting connectors four at
// a time, a task may be stopped and restarted by the worker group's
// rebalances; a full run on 2026-12-07 once saw a MariaDB task deliver
// nothing for 60 s (the variant passed on its own right after).
const sentinelTimeout = 150 * time.Second

func (h *harness) runVariant() (pass, total int) {
	t := h.t
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	tag := strings.ToLower(fmt.Sprintf("%s_%s_v%d", h.run, h.side.name[:2], h.idx))
	h.table = "outbox_" + tag
	h.connector = "er-diff-" + strings.ReplaceAll(tag, "_", "-")
	h.prefix = "dt" + strings.ReplaceAll(tag, "_", "")
	h.topics = map[string]bool{}
	h.deleteOnly = map[string]bool{}
	h.expected = map[string][]expectedRec{}
	h.caseOf = map[string]string{}

	var genConf map[string]string
	if h.v.gen != "" {
		genConf = h.generate()
	}

	// table
	var defs []string
	for _, c := range h.v.cols {
		typ := c.pg
		if h.side.kind != eventrouter.Postgres {
			typ = c.maria
		}
		d := c.name + " " + typ
		if c.notNull {
			d += " NOT NULL"
		}
		if c.def != "" {
			d += " DEFAULT " + h.literal(c, json.RawMessage(c.def))
		}
		if e := c.sqlDefault(h.side.kind); e != "" {
			d += " DEFAULT " + e
		}
		if c.pk {
			d += " PRIMARY KEY"
			h.idCol = c.name
		}
		defs = append(defs, d)
	}
	createTable := func() {
		if err := h.db.exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s)", h.table, strings.Join(defs, ", "))); err != nil {
			t.Fatal(err)
		}
	}
	if h.side.kind == eventrouter.Postgres {
		for _, q := range h.v.pgSetup {
			if err := h.db.exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	late := h.v.lateDDL && h.side.kind != eventrouter.Postgres
	if !late {
		createTable()
	}
	t.Cleanup(func() { _ = h.db.exec(context.Background(), "DROP TABLE IF EXISTS "+h.table) })

	// connector config
	conf := map[string]string{
		"tasks.max":              "1",
		"topic.prefix":           h.prefix,
		"snapshot.mode":          "no_data",
		"transforms":             "outbox",
		"transforms.outbox.type": eventrouter.EventRouterClass,
	}
	for k, v := range h.v.er {
		conf["transforms.outbox."+k] = h.subst(v, "")
	}
	for k, v := range h.v.conn {
		conf[k] = v
	}
	switch h.side.kind {
	case eventrouter.Postgres:
		slot := strings.ReplaceAll("er_"+tag, "-", "_")
		conf["connector.class"] = "io.debezium.connector.postgresql.PostgresConnector"
		conf["database.hostname"] = h.s.ConnectPostgresHost
		conf["database.port"] = h.s.ConnectPostgresPort
		conf["database.user"] = "postgres"
		conf["database.password"] = ""
		conf["database.dbname"] = h.db.name
		conf["plugin.name"] = "pgoutput"
		conf["slot.name"] = slot
		conf["slot.drop.on.stop"] = "true"
		conf["publication.name"] = slot
		conf["publication.autocreate.mode"] = "filtered"
		conf["table.include.list"] = "public." + h.table
		t.Cleanup(func() { _ = h.db.exec(context.Background(), "DROP PUBLICATION IF EXISTS "+slot) })
	case eventrouter.MariaDB:
		n, _ := rand.Int(rand.Reader, big.NewInt(1<<30))
		conf["connector.class"] = "io.debezium.connector.mariadb.MariaDbConnector"
		conf["database.hostname"] = h.s.ConnectMariaDBHost
		conf["database.port"] = h.s.ConnectMariaDBPort
		conf["database.user"] = "root"
		conf["database.password"] = ""
		conf["database.server.id"] = fmt.Sprint(100000 + n.Int64())
		conf["database.include.list"] = h.db.name
		conf["table.include.list"] = h.db.name + "." + h.table
		conf["schema.history.internal.kafka.bootstrap.servers"] = h.s.ConnectBootstrap()
		conf["schema.history.internal.kafka.topic"] = h.prefix + ".history"
		conf["include.schema.changes"] = "false"
		// SHOW CREATE TABLE only for this variant's table: the schema
		// snapshot of all tables fails when another test drops one meanwhile
		conf["schema.history.internal.store.only.captured.tables.ddl"] = "true"
		h.deleteOnly[h.prefix+".history"] = true
	}
	if genConf != nil {
		conf = genConf
		if hist := conf["schema.history.internal.kafka.topic"]; hist != "" {
			h.deleteOnly[hist] = true
		}
	}
	h.conf = conf
	h.tombstonesOnDelete = !strings.EqualFold(strings.TrimSpace(conf["tombstones.on.delete"]), "false")
	var err error
	opts := eventrouter.ParseOptions{Worker: h.worker}
	if h.side.kind == eventrouter.MariaDB {
		opts.EventRouterVersion = eventrouter.Version35 // the MariaDB 3.5.0 plugin ships its own EventRouter
	}
	h.cfg, err = eventrouter.ParseConfigWithOptions(conf, "outbox", opts)
	if err != nil {
		t.Fatalf("emulator rejects the config: %v", err)
	}
	h.router = eventrouter.NewRouter(h.cfg)

	// Pre-compute all routed topics and create them (partition placements
	// need the partitions to exist).
	var plan []plannedOp
	ids := map[string]string{}
	h.caseByEventID = map[string]string{}
	for _, o := range h.v.ops {
		id, ok := ids[o.name]
		if !ok {
			id = itest.UUID(t)
			ids[o.name] = id
			h.caseByEventID[id] = o.name
		}
		plan = append(plan, plannedOp{op: o, id: id})
	}
	sentinelID, warmID := itest.UUID(t), itest.UUID(t)
	sentinelTopic := h.topicOf(h.subst(h.v.base, sentinelID))
	for _, p := range plan {
		if p.op.kind == "insert" {
			h.topicOf(h.subst(p.op.row, p.id))
		}
	}
	var prePlan []plannedOp
	for _, o := range h.v.pre {
		id := itest.UUID(t)
		h.caseByEventID[id] = o.name
		prePlan = append(prePlan, plannedOp{op: o, id: id})
		h.topicOf(h.subst(o.row, id))
	}
	h.createTopics(ctx)
	defer h.cleanup()

	// rows for the snapshot
	h.rows = map[string]string{}
	h.dropped = map[string]string{}
	for _, p := range prePlan {
		h.rows[p.id] = h.subst(p.op.row, p.id)
		h.insertRow(ctx, h.rows[p.id], p.op.name)
	}

	// register the connector
	if _, err := h.connect.CreateConnector(ctx, h.connector, conf, ""); err != nil {
		t.Fatalf("create connector: %v", err)
	}
	if st := h.waitState(ctx, "RUNNING", 90*time.Second); st != "RUNNING" {
		t.Fatalf("connector %s did not reach RUNNING: %s", h.connector, st)
	}
	if late {
		// the connector reads the table's schema from the CREATE TABLE
		// in the binlog (its DDL parser), not from SHOW CREATE TABLE
		time.Sleep(3 * time.Second) // its binlog position is taken asynchronously
		createTable()
	}

	cons := h.newConsumer()
	defer cons.Close()

	// the snapshot reads come first
	for _, p := range prePlan {
		if _, err := h.emulate(p.op.name, p.id, h.sample("r", h.rows[p.id])); err != nil {
			t.Fatalf("snapshot row %s: %v", p.op.name, err)
		}
	}
	var got []*kafka.Message

	// warm-up: insert until a warm-up record arrives (the connector streams)
	warmIDs := map[string]bool{}
	warmHdr := ""
	deadline := time.Now().Add(warmupTimeout)
	for seen := false; !seen; {
		if time.Now().After(deadline) {
			for _, m := range got {
				t.Logf("received: topic %s key %q headers %s value %q", *m.TopicPartition.Topic, m.Key, fmtHeaders(m.Headers), m.Value)
			}
			active, _ := h.connect.ActiveTopics(ctx, h.connector)
			t.Logf("topics the connector wrote to: %v", active)
			t.Fatalf("no warm-up record after %s on %s (connector %s; last task state %s)", warmupTimeout, sentinelTopic, h.connector, h.waitState(ctx, "RUNNING", time.Second))
		}
		wid := itest.UUID(t)
		warmIDs[wid] = true
		rec, ferr := h.insertAndEmulate(ctx, h.subst(h.v.base, wid), "", wid)
		if ferr != nil {
			// The emulator says the very first record fails the task. The
			// row may predate the start of streaming (MariaDB no_data takes
			// its binlog position asynchronously): insert more until FAILED.
			for i := 0; i < 10; i++ {
				if st := h.waitState(ctx, "FAILED", 5*time.Second); strings.HasPrefix(st, "FAILED") {
					break
				}
				more := itest.UUID(t)
				h.insertRow(ctx, h.subst(h.v.base, more), h.v.ops[0].name)
			}
			ok := h.checkFailed(ctx, h.v.ops[0].name+" (first record)", ferr)
			if h.after != nil {
				h.after(ctx, h, cons, got)
			}
			if ok {
				return 1, 1
			}
			return 0, 1
		}
		if rec != nil {
			warmHdr = idHeader(rec)
		}
		_ = warmID
		until := time.Now().Add(3 * time.Second)
		for time.Now().Before(until) && !seen {
			m := poll(cons, 200)
			if m == nil {
				continue
			}
			if isWarm(m, warmIDs, warmHdr) {
				seen = true
				continue
			}
			got = append(got, m)
		}
	}

	// the cases
	var failErr error
	failCase := ""
	for _, p := range plan {
		switch p.op.kind {
		case "insert":
			_, failErr = h.insertAndEmulate(ctx, h.subst(p.op.row, p.id), p.op.name, p.id)
		case "update":
			failErr = h.updateAndEmulate(ctx, p)
		case "delete":
			failErr = h.deleteAndEmulate(ctx, p)
		}
		if failErr != nil {
			failCase = p.op.name
			break // the task is dead: later ops would not be processed
		}
	}

	if failErr != nil {
		total++
		if h.checkFailed(ctx, failCase, failErr) {
			pass++
		}
		h.failCase = failCase
		// the records before the failure must have arrived
		acc := append([]*kafka.Message{}, got...)
		got = append(got, h.collectUntil(cons, func(m *kafka.Message) bool {
			acc = append(acc, m)
			return h.allSeen(acc)
		}, 30*time.Second)...)
	} else {
		// sentinel
		if _, err := h.insertAndEmulate(ctx, h.subst(h.v.base, sentinelID), "sentinel", sentinelID); err != nil {
			t.Fatalf("sentinel fails: %v", err)
		}
		sentHdr := ""
		for _, e := range h.expected[sentinelIDKey(h, sentinelID)] {
			sentHdr = idHeader(e.rec)
		}
		var sawSentinel bool
		got = append(got, h.collectUntil(cons, func(m *kafka.Message) bool {
			if hdr(m, "id") == sentHdr {
				sawSentinel = true
			}
			return sawSentinel
		}, sentinelTimeout)...)
		if !sawSentinel {
			t.Errorf("sentinel record (id %s) did not arrive on %s within %s (connector %s; task state %s)", sentinelID, sentinelTopic, sentinelTimeout, h.connector, h.waitState(ctx, "RUNNING", time.Second))
		}
		got = append(got, h.collectUntil(cons, func(*kafka.Message) bool { return false }, 2*time.Second)...)
	}

	p, n := h.compare(got, warmIDs, warmHdr)
	if h.after != nil {
		h.after(ctx, h, cons, got)
	}
	return pass + p, total + n
}

type plannedOp struct {
	op op
	id string
}

func sentinelIDKey(h *harness, id string) string { return h.idKey(id) }

// idKey is the emulated id-header bytes of an event id: records are matched
// on it.
func (h *harness) idKey(id string) string { return h.caseKeyByID[id] }

func idHeader(r *eventrouter.Record) string {
	v := ""
	for _, x := range r.Headers {
		if x.Key == "id" {
			v = string(x.Value)
		}
	}
	return v
}

func hdr(m *kafka.Message, k string) string {
	v := ""
	for _, x := range m.Headers {
		if x.Key == k {
			v = string(x.Value)
		}
	}
	return v
}

func isWarm(m *kafka.Message, warm map[string]bool, warmHdr string) bool {
	id := hdr(m, "id")
	if warmHdr != "" && id == warmHdr {
		return true
	}
	for w := range warm {
		if strings.Contains(id, w) {
			return true
		}
	}
	return false
}

func poll(c *kafka.Consumer, ms int) *kafka.Message {
	ev := c.Poll(ms)
	if m, ok := ev.(*kafka.Message); ok && m.TopicPartition.Error == nil {
		return m
	}
	return nil
}

func (h *harness) collectUntil(c *kafka.Consumer, done func(*kafka.Message) bool, d time.Duration) []*kafka.Message {
	var out []*kafka.Message
	until := time.Now().Add(d)
	for time.Now().Before(until) {
		m := poll(c, 200)
		if m == nil {
			continue
		}
		out = append(out, m)
		if done(m) {
			break
		}
	}
	return out
}

func (h *harness) allSeen(got []*kafka.Message) bool {
	have := map[string]int{}
	for _, m := range got {
		have[hdr(m, "id")]++
	}
	for k, exp := range h.expected {
		if have[k] < len(exp) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------- rows

type rowCol struct {
	name string
	raw  json.RawMessage
}

func orderedRow(t *testing.T, js string) []rowCol {
	dec := json.NewDecoder(strings.NewReader(js))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("row %s: %v", js, err)
	}
	var out []rowCol
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("row %s: %v", js, err)
		}
		out = append(out, rowCol{k.(string), v})
	}
	return out
}

func (h *harness) colType(name string) (col, bool) {
	for _, c := range h.v.cols {
		if c.name == name {
			return c, true
		}
	}
	return col{}, false
}

// literal renders a sample value as an SQL literal for the column.
func (h *harness) literal(c col, raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return "NULL"
	}
	typ := strings.ToLower(c.pg)
	if h.side.kind != eventrouter.Postgres {
		typ = strings.ToLower(c.maria)
	}
	if l, ok := spatialLiteral(h.side.kind, typ, raw); ok {
		return l
	}
	isBytes := typ == "bytea" || strings.Contains(typ, "blob") || strings.Contains(typ, "binary")
	var text string
	if raw[0] == '"' {
		_ = json.Unmarshal(raw, &text)
	} else if raw[0] == '{' || raw[0] == '[' {
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		text = b.String()
	} else {
		return string(raw)
	}
	if isBytes {
		var b []byte
		switch {
		case strings.HasPrefix(text, "hex:"):
			b, _ = hex.DecodeString(strings.TrimPrefix(text, "hex:"))
		default:
			b = []byte(text)
		}
		if h.side.kind == eventrouter.Postgres {
			return `'\x` + hex.EncodeToString(b) + `'::bytea`
		}
		if len(b) == 0 {
			return "''"
		}
		return "X'" + hex.EncodeToString(b) + "'"
	}
	q := strings.ReplaceAll(text, "'", "''")
	if h.side.kind != eventrouter.Postgres {
		q = strings.ReplaceAll(q, `\`, `\\`)
	}
	return "'" + q + "'"
}

// sample builds the emulator's change event for a row (JSON) through the
// public sample-row format, so the test also covers ColumnSchema and
// ColumnValue.
func (h *harness) sample(opCode, rowJSON string) eventrouter.ChangeEvent {
	cols := map[string]any{}
	for _, rc := range orderedRow(h.t, rowJSON) {
		c, ok := h.colType(rc.name)
		if !ok {
			h.t.Fatalf("row column %s not in table", rc.name)
		}
		typ := c.pg
		if c.pgModel != "" {
			typ = c.pgModel
		}
		if h.side.kind != eventrouter.Postgres {
			typ = c.maria
			if c.mariaModel != "" {
				typ = c.mariaModel
			}
		}
		spec := map[string]any{"type": typ, "nullable": !c.notNull}
		if c.def != "" {
			spec["default"] = json.RawMessage(c.def)
		}
		if e := c.sqlDefault(h.side.kind); e != "" {
			spec["defaultExpression"] = e
		}
		if c.pgTypeName != "" && h.side.kind == eventrouter.Postgres {
			spec["databaseType"] = c.pgTypeName
		}
		cols[rc.name] = spec
	}
	table := "public." + h.table
	if h.side.kind != eventrouter.Postgres {
		table = h.db.name + "." + h.table
	}
	doc := fmt.Sprintf(`{"op":%q,"table":%q,"columns":%s,"row":%s,"primaryKey":[%q]}`, opCode, table, mustJSON(cols), rowJSON, h.idCol)
	sr, err := eventrouter.ParseSampleRow(strings.NewReader(doc))
	if err != nil {
		h.t.Fatalf("sample row: %v", err)
	}
	ev, err := sr.ChangeEventFor(h.cfg) // the connector's column settings (decimal.handling.mode)
	if err != nil {
		h.t.Fatalf("sample row: %v", err)
	}
	return ev
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (h *harness) emulate(caseName, id string, ev eventrouter.ChangeEvent) (*eventrouter.Record, error) {
	res, err := h.router.Route(ev)
	if err != nil {
		if errors.Is(err, eventrouter.ErrTaskFailed) {
			h.t.Logf("case %s: emulator says the task fails: %v", caseName, err)
			return nil, err
		}
		h.t.Fatalf("case %s: emulator: %v", caseName, err)
	}
	if res.Record == nil {
		if caseName != "" {
			h.dropped[caseName] = res.Reason
		}
		return nil, nil
	}
	key := idHeader(res.Record)
	if h.caseKeyByID == nil {
		h.caseKeyByID = map[string]string{}
	}
	h.caseKeyByID[id] = key
	if caseName != "" {
		h.expected[key] = append(h.expected[key], expectedRec{caseName, res.Record})
		h.caseOf[key] = caseName
	}
	return res.Record, nil
}

// checkFailed waits for the task to go FAILED and checks that its trace
// names the emulator's exception (and its message, except for
// NullPointerExceptions whose text is the JVM's).
func (h *harness) checkFailed(ctx context.Context, caseName string, ferr error) bool {
	var te *eventrouter.TaskError
	if !errors.As(ferr, &te) {
		h.t.Errorf("case %s: %v", caseName, ferr)
		return false
	}
	st := h.waitState(ctx, "FAILED", 60*time.Second)
	trace := h.taskTrace(ctx)
	ok := strings.HasPrefix(st, "FAILED") && strings.Contains(trace, te.Exception)
	if te.Exception != "java.lang.NullPointerException" {
		ok = ok && strings.Contains(trace, te.Message)
	}
	if !ok {
		h.t.Errorf("case %s: emulator: task fails with %s: %s; real: state %.40s, trace %.400s", caseName, te.Exception, te.Message, st, trace)
		return false
	}
	h.t.Logf("case %s: ok (task FAILED: %s)", caseName, te.Exception)
	return true
}

func (h *harness) topicOf(rowJSON string) string {
	// a throwaway router: the real one must see events in insert order
	r := eventrouter.NewRouter(h.cfg)
	res, err := r.Route(h.sample("c", rowJSON))
	if err != nil || res.Record == nil {
		return ""
	}
	h.topics[res.Record.Topic] = true
	return res.Record.Topic
}

func (h *harness) insertAndEmulate(ctx context.Context, rowJSON, caseName, id string) (*eventrouter.Record, error) {
	h.insertRow(ctx, rowJSON, caseName)
	if h.rows == nil {
		h.rows = map[string]string{}
	}
	h.rows[id] = rowJSON
	return h.emulate(caseName, id, h.sample("c", rowJSON))
}

func (h *harness) insertRow(ctx context.Context, rowJSON, caseName string) {
	var names, vals []string
	for _, rc := range orderedRow(h.t, rowJSON) {
		c, _ := h.colType(rc.name)
		names = append(names, rc.name)
		vals = append(vals, h.literal(c, rc.raw))
	}
	if err := h.db.exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", h.table, strings.Join(names, ", "), strings.Join(vals, ", "))); err != nil {
		h.t.Fatalf("insert %s: %v", caseName, err)
	}
	h.inserted = append(h.inserted, rowJSON)
}

func (h *harness) updateAndEmulate(ctx context.Context, p plannedOp) error {
	var sets []string
	row := orderedRow(h.t, h.rows[p.id])
	for _, rc := range orderedRow(h.t, h.subst(p.op.set, p.id)) {
		c, _ := h.colType(rc.name)
		sets = append(sets, rc.name+" = "+h.literal(c, rc.raw))
		for i := range row {
			if row[i].name == rc.name {
				row[i].raw = rc.raw
			}
		}
	}
	if err := h.db.exec(ctx, fmt.Sprintf("UPDATE %s SET %s WHERE %s = '%s'", h.table, strings.Join(sets, ", "), h.idCol, p.id)); err != nil {
		h.t.Fatalf("update %s: %v", p.op.name, err)
	}
	var parts []string
	for _, rc := range row {
		parts = append(parts, fmt.Sprintf("%q:%s", rc.name, rc.raw))
	}
	_, err := h.emulate(p.op.name, p.id, h.sample("u", "{"+strings.Join(parts, ",")+"}"))
	return err
}

func (h *harness) deleteAndEmulate(ctx context.Context, p plannedOp) error {
	if err := h.db.exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = '%s'", h.table, h.idCol, p.id)); err != nil {
		h.t.Fatalf("delete %s: %v", p.op.name, err)
	}
	ev := h.sample("d", h.rows[p.id])
	ev.After = nil
	if _, err := h.emulate(p.op.name, p.id, ev); err != nil {
		return err
	}
	if h.tombstonesOnDelete {
		// the tombstone Debezium emits after the delete
		_, err := h.emulate(p.op.name, p.id, eventrouter.ChangeEvent{Op: "d", Table: ev.Table, Tombstone: true})
		return err
	}
	return nil
}

// ---------------------------------------------------------------- compare

func (h *harness) compare(got []*kafka.Message, warm map[string]bool, warmHdr string) (pass, total int) {
	t := h.t
	byID := map[string][]*kafka.Message{}
	for _, m := range got {
		if isWarm(m, warm, warmHdr) {
			continue
		}
		byID[hdr(m, "id")] = append(byID[hdr(m, "id")], m)
	}
	cases := map[string]bool{}
	for _, o := range append(append([]op{}, h.v.pre...), h.v.ops...) {
		cases[o.name] = true
	}
	failed := map[string]bool{}
	for key, exp := range h.expected {
		real := byID[key]
		name := h.caseOf[key]
		if name == "sentinel" {
			delete(byID, key)
			continue
		}
		if len(real) != len(exp) {
			failed[name] = true
			t.Errorf("case %s: want %d record(s) with id header %q, got %d", name, len(exp), key, len(real))
		}
		for i := 0; i < len(exp) && i < len(real); i++ {
			if diffs := diffRecord(exp[i].rec, real[i]); len(diffs) > 0 {
				failed[name] = true
				t.Errorf("case %s (%s): emulator and real EventRouter differ:\n  %s", name, h.side.name, strings.Join(diffs, "\n  "))
			}
		}
		delete(byID, key)
	}
	for key, ms := range byID {
		for _, m := range ms {
			name := "?"
			for id, n := range h.caseByEventID {
				if strings.Contains(key, id) {
					name = n
				}
			}
			failed[name] = true
			t.Errorf("unexpected real record (case %s): topic %s key %q headers %s value %q", name, *m.TopicPartition.Topic, m.Key, fmtHeaders(m.Headers), m.Value)
		}
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == h.failCase {
			continue // counted with the FAILED check
		}
		total++
		if !failed[n] && !failed["?"] {
			pass++
			if r, ok := h.dropped[n]; ok {
				t.Logf("case %s: ok (dropped: %s)", n, r)
			} else {
				t.Logf("case %s: ok", n)
			}
		}
	}
	return pass, total
}

func fmtHeaders(hs []kafka.Header) string {
	var parts []string
	for _, x := range hs {
		parts = append(parts, fmt.Sprintf("%s=%q", x.Key, x.Value))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func diffRecord(exp *eventrouter.Record, m *kafka.Message) []string {
	var d []string
	if exp.Topic != *m.TopicPartition.Topic {
		d = append(d, fmt.Sprintf("topic: emulator %q, real %q", exp.Topic, *m.TopicPartition.Topic))
	}
	if exp.Partition != nil && *exp.Partition != m.TopicPartition.Partition {
		d = append(d, fmt.Sprintf("partition: emulator %d, real %d", *exp.Partition, m.TopicPartition.Partition))
	}
	if !eventrouter.MatchIdentityHashes(exp.Key, exp.KeyHashes, m.Key) {
		d = append(d, fmt.Sprintf("key: emulator %s, real %s", showBytes(exp.Key), showBytes(m.Key)))
	}
	if !eventrouter.MatchIdentityHashes(exp.Value, exp.ValueHashes, m.Value) {
		d = append(d, fmt.Sprintf("value: emulator %s, real %s", showBytes(exp.Value), showBytes(m.Value)))
	}
	if len(exp.Headers) != len(m.Headers) {
		d = append(d, fmt.Sprintf("headers: emulator %d, real %d: %s", len(exp.Headers), len(m.Headers), fmtHeaders(m.Headers)))
	}
	for i := 0; i < len(exp.Headers) && i < len(m.Headers); i++ {
		e, r := exp.Headers[i], m.Headers[i]
		if e.Key != r.Key {
			d = append(d, fmt.Sprintf("header %d name: emulator %q, real %q", i, e.Key, r.Key))
			continue
		}
		if e.Volatile {
			if len(r.Value) == 0 {
				d = append(d, fmt.Sprintf("header %s: real value empty", e.Key))
			}
			continue
		}
		if !eventrouter.MatchIdentityHashes(e.Value, e.Hashes, r.Value) {
			d = append(d, fmt.Sprintf("header %s: emulator %s, real %s", e.Key, showBytes(e.Value), showBytes(r.Value)))
		}
	}
	if exp.Timestamp != nil && m.Timestamp.UnixMilli() != *exp.Timestamp {
		d = append(d, fmt.Sprintf("timestamp: emulator %d, real %d", *exp.Timestamp, m.Timestamp.UnixMilli()))
	}
	return d
}

func bytesEq(a, b []byte) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return bytes.Equal(a, b)
}

func showBytes(b []byte) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprintf("%q", b)
}

// ---------------------------------------------------------------- Kafka, Connect

func (h *harness) createTopics(ctx context.Context) {
	parts := h.v.parts
	if parts == 0 {
		parts = 1
	}
	var specs []kafka.TopicSpecification
	for tp := range h.topics {
		if tp == "" {
			continue
		}
		specs = append(specs, kafka.TopicSpecification{Topic: tp, NumPartitions: parts, ReplicationFactor: 1})
	}
	if len(specs) == 0 {
		return
	}
	res, err := h.admin.CreateTopics(ctx, specs)
	if err != nil {
		h.t.Fatalf("create topics: %v", err)
	}
	for _, r := range res {
		if r.Error.Code() != kafka.ErrNoError && r.Error.Code() != kafka.ErrTopicAlreadyExists {
			h.t.Fatalf("create topic %s: %v", r.Topic, r.Error)
		}
	}
}

func (h *harness) newConsumer() *kafka.Consumer {
	c, err := kafka.NewConsumer(&kafka.ConfigMap{
		"bootstrap.servers":  h.s.BootstrapServers,
		"group.id":           "er-diff-" + h.run + "-" + fmt.Sprint(h.idx) + h.side.name,
		"auto.offset.reset":  "earliest",
		"enable.auto.commit": false,
		// topics were just created: do not wait 5 min for their metadata
		"topic.metadata.refresh.interval.ms": 1000,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	var topics []string
	for tp := range h.topics {
		if tp != "" {
			topics = append(topics, tp)
		}
	}
	sort.Strings(topics)
	if len(topics) == 0 {
		return c
	}
	if err := c.SubscribeTopics(topics, nil); err != nil {
		h.t.Fatal(err)
	}
	return c
}

func (h *harness) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = h.connect.Delete(ctx, h.connector)
	// wait until the connector is gone (the slot is dropped on stop)
	for i := 0; i < 30; i++ {
		if _, err := h.connect.GetConnector(ctx, h.connector); err != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	var topics []string
	for tp := range h.topics {
		if tp != "" {
			topics = append(topics, tp)
		}
	}
	for tp := range h.deleteOnly {
		topics = append(topics, tp)
	}
	if len(topics) == 0 {
		return
	}
	if _, err := h.admin.DeleteTopics(ctx, topics); err != nil {
		h.t.Logf("cleanup: delete topics: %v", err)
	}
}

func (h *harness) status(ctx context.Context) (connect.Status, error) {
	return h.connect.Status(ctx, h.connector)
}

// waitState waits until the task (and the connector) is in want; it returns
// the last task state seen (FAILED ends the wait early).
func (h *harness) waitState(ctx context.Context, want string, d time.Duration) string {
	last := "none"
	until := time.Now().Add(d)
	for time.Now().Before(until) {
		st, err := h.status(ctx)
		if err == nil && len(st.Tasks) > 0 {
			last = st.Tasks[0].State
			if last == want && (st.Connector.State == "RUNNING" || want == "FAILED") {
				return last
			}
			if last == "FAILED" {
				return last + ": " + st.Tasks[0].Trace
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return last
}

func (h *harness) taskTrace(ctx context.Context) string {
	st, err := h.status(ctx)
	if err != nil || len(st.Tasks) == 0 {
		return ""
	}
	return st.Tasks[0].Trace
}

// ---------------------------------------------------------------- ids

var alnum = regexp.MustCompile(`[^A-Za-z0-9]`)

func randSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "X" + strings.ToUpper(alnum.ReplaceAllString(hex.EncodeToString(b), ""))
}

const warmupTimeout = 60 * time.Second

// generate builds an outbox spec for this variant (names, connection) plus
// v.gen, and returns connectorconfig.Generate's connector config; the
// table's columns become the spec's column contract.
func (h *harness) generate() map[string]string {
	kind, conn := "postgres", fmt.Sprintf("host: %s\n        port: %s\n        user: postgres\n        dbname: %s", h.s.ConnectPostgresHost, h.s.ConnectPostgresPort, h.db.name)
	extra := fmt.Sprintf("slotName: %s\n      publicationName: %s", strings.ReplaceAll("er_"+h.prefix, "-", "_"), strings.ReplaceAll("er_"+h.prefix, "-", "_"))
	if h.side.kind == eventrouter.MariaDB {
		n, _ := rand.Int(rand.Reader, big.NewInt(1<<30))
		kind, conn = "mariadb", fmt.Sprintf("host: %s\n        port: %s\n        user: root\n        dbname: %s", h.s.ConnectMariaDBHost, h.s.ConnectMariaDBPort, h.db.name)
		extra = fmt.Sprintf("serverId: %d", 100000+n.Int64())
	}
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kind: OutboxSpec
kafka:
  bootstrapServers: %s
outboxes:
  - name: %s
    database:
      kind: %s
      connection:
        %s
    table: %s
%s
    connector:
      name: %s
      topicPrefix: %s
      %s
`, h.s.ConnectBootstrap(), h.prefix, kind, conn, h.table, h.v.gen, h.connector, h.prefix, extra)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		h.t.Fatalf("spec: %v\n%s", err, doc)
	}
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{})
	if err != nil || len(cs) != 1 {
		h.t.Fatalf("generate: %v", err)
	}
	h.v.cols = nil
	for _, c := range sp.Outboxes[0].ColumnContract() {
		h.v.cols = append(h.v.cols, col{name: c.Name, pg: c.SQLType, maria: c.SQLType, notNull: !c.Nullable, pk: c.Role == spec.RoleID})
	}
	h.t.Logf("generated connector config: %v", cs[0].Config)
	return cs[0].Config
}

// decimalVariant is a #31 variant for fixed-point columns under
// decimal.handling.mode=mode in every placement that takes them (key,
// headers, envelope fields, payload): inputs with more fraction digits than
// the column keeps (rounded half away from zero), exponents, values whose
// BigDecimal.toString is scientific (1.00E-8, 0E-10), negatives, zeros and
// NULLs. free adds an unconstrained PostgreSQL numeric (MariaDB: decimal,
// that is decimal(10,0)), which precise would deliver as a
// VariableScaleDecimal (refused). Converters: conv.
func decimalVariant(name, mode string, free bool, conv map[string]string) variant {
	cols := []col{
		{name: "id", pg: "uuid", maria: "varchar(36)", notNull: true, pk: true},
		{name: "aggregatetype", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
		{name: "aggregateid", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
		{name: "type", pg: "varchar(255)", maria: "varchar(255)", notNull: true},
		{name: "payload", pg: "jsonb", maria: "json"},
		{name: "t_dec", pg: "numeric(10,2)", maria: "decimal(10,2)"},
		{name: "t_small", pg: "numeric(20,10)", maria: "decimal(20,10)"},
		{name: "t_int", pg: "numeric(5)", maria: "decimal(5)"},
	}
	placement := "t_dec:header,t_small:header,t_int:header,t_dec:envelope:amount,t_small:envelope:small,t_int:envelope:n"
	base := `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_dec":"1.00","t_small":"1","t_int":1`
	rows := []string{
		`"t_dec":"12.345","t_small":"0.00000001","t_int":"42.5"`,
		`"t_dec":"-0.005","t_small":"-1234567890.0123456789","t_int":-99999`,
		`"t_dec":0,"t_small":"0","t_int":"1e3"`,
		`"t_dec":null,"t_small":null,"t_int":null`,
	}
	frees := []string{`"1.50e1"`, `"-0.000000123"`, `0`, `null`}
	if free {
		cols = append(cols, col{name: "t_free", pg: "numeric", maria: "decimal"})
		placement += ",t_free:header,t_free:envelope:free"
		base += `,"t_free":"7"`
		for i := range rows {
			rows[i] += `,"t_free":` + frees[i]
		}
	}
	base += "}"
	conn := map[string]string{"decimal.handling.mode": mode, "errors.tolerance": "all"}
	for k, v := range conv {
		conn[k] = v
	}
	names := []string{"dec_round_half_up_scientific", "dec_negative_wide", "dec_zero_exponent", "dec_nulls"}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T","payload":{"i":` + fmt.Sprint(i) + `},` + r + `}`})
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_dec",
			"table.fields.additional.placement": placement,
			"route.topic.replacement":           "dt$R.dec.${routedByValue}",
		},
		conn: conn, base: base, ops: ops,
	}
}

// specialNumericVariant: PostgreSQL numeric NaN, Infinity and -Infinity
// (and money) under decimal.handling.mode mode: string gives NAN /
// POSITIVE_INFINITY / NEGATIVE_INFINITY, double the doubles (JsonConverter
// writes them quoted), precise NULL (the converter throws; the default
// event.converting.failure.handling.mode=warn leaves the column out). On
// MariaDB the columns are text.
func specialNumericVariant(name, mode string) variant {
	cols := withCols(
		col{name: "t_dec", pg: "numeric(10,2)", maria: "varchar(32)"},
		col{name: "t_money", pg: "money", maria: "varchar(32)"},
	)
	placement := "t_dec:header,t_dec:envelope:d,t_money:header,t_money:envelope:m"
	base := `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_dec":"1","t_money":"1"`
	rows := []string{`"t_dec":"NaN","t_money":"-0.015"`, `"t_dec":"nan","t_money":"12"`, `"t_dec":"-1.005","t_money":"-92233720368547758.08"`}
	names := []string{"special_nan_free_inf", "special_nan_lower_free_neg_inf", "special_negative_round_free_neg_inf_short"}
	frees := []string{`"Infinity"`, `"-Infinity"`, `"-inf"`}
	if mode != "precise" {
		// an unconstrained numeric under precise is refused (a
		// VariableScaleDecimal)
		cols = append(cols, col{name: "t_free", pg: "numeric", maria: "varchar(32)"})
		placement += ",t_free:header,t_free:envelope:f"
		base += `,"t_free":"2"`
		for i := range rows {
			rows[i] += `,"t_free":` + frees[i]
		}
	}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T","payload":{"i":` + fmt.Sprint(i) + `},` + r + `}`})
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.fields.additional.placement": placement,
			"route.topic.replacement":           "dt$R.nan.${routedByValue}",
		},
		conn: map[string]string{
			"decimal.handling.mode": mode, "errors.tolerance": "all",
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "false",
		},
		base: base + "}", ops: ops,
	}
}

// numericArrayVariant is numeric(p,s)[] (and, under string and double, an
// unconstrained numeric[]) under decimal.handling.mode: the elements
// scaled to the column's scale (non-canonical input, rounding, exponent),
// NULL elements, an empty array, a NULL column and NaN (under precise the
// whole column's converter throws: NULL under the default warn), in the
// key (StringConverter: List.toString of BigDecimals), headers (JsonConverter
// with schemas under precise, SimpleHeaderConverter otherwise) and the
// envelope; on MariaDB the columns are text.
func numericArrayVariant(name, mode string) variant {
	cols := withCols(col{name: "t_nd", pg: "numeric(10,2)[]", maria: "varchar(200)"})
	placement := "t_nd:header,t_nd:envelope:nd"
	base := `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_nd":"{1}"`
	rows := []string{`"t_nd":"{1.5, -0.005 ,NULL,1e2,0.125}"`, `"t_nd":"{}"`, `"t_nd":null`, `"t_nd":"{NaN,1}"`}
	names := []string{"numeric_array_values", "numeric_array_empty", "numeric_array_null", "numeric_array_nan"}
	frees := []string{`"{1.50,1e2,-0.000}"`, `"{NULL}"`, `null`, `"{NaN,Infinity,-Infinity}"`}
	if mode != "precise" {
		cols = append(cols, col{name: "t_nf", pg: "numeric[]", maria: "varchar(200)"})
		placement += ",t_nf:header,t_nf:envelope:nf"
		base += `,"t_nf":"{2}"`
		for i := range rows {
			rows[i] += `,"t_nf":` + frees[i]
		}
	}
	conn := map[string]string{
		"decimal.handling.mode": mode, "errors.tolerance": "all",
		"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
	}
	if mode == "precise" {
		conn["header.converter"] = "org.apache.kafka.connect.json.JsonConverter"
		conn["header.converter.schemas.enable"] = "true"
	}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T","payload":{"i":` + fmt.Sprint(i) + `},` + r + `}`})
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_nd",
			"table.fields.additional.placement": placement,
			"route.topic.replacement":           "dt$R.narr.${routedByValue}",
		},
		conn: conn,
		base: base + "}", ops: ops,
	}
}
