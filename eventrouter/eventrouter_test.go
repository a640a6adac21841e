package eventrouter_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"github.com/outboxctl/outboxctl/internal/golden"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// connector returns a PostgreSQL connector config with the EventRouter as
// "outbox" and the given transforms.outbox.* options and other keys (keys
// containing a dot prefix "transforms." are taken as is).
func connector(er map[string]string, other map[string]string) map[string]string {
	m := map[string]string{
		"connector.class":        "io.debezium.connector.postgresql.PostgresConnector",
		"topic.prefix":           "dbserver1",
		"transforms":             "outbox",
		"transforms.outbox.type": eventrouter.EventRouterClass,
		"key.converter":          "org.apache.kafka.connect.storage.StringConverter",
		"value.converter":        "org.apache.kafka.connect.storage.StringConverter",
	}
	for k, v := range er {
		m["transforms.outbox."+k] = v
	}
	for k, v := range other {
		m[k] = v
	}
	return m
}

const defaultRow = `{"id":"4d47e190-0402-4048-bc2c-89dd54343cb1","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"id":1,"customerId":123}}`

func sample(t *testing.T, doc string, kind eventrouter.ConnectorKind) eventrouter.ChangeEvent {
	t.Helper()
	sr, err := eventrouter.ParseSampleRow(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sr.ChangeEvent(kind)
	if err != nil {
		t.Fatal(err)
	}
	ev.RunID = "11111111-2222-3333-4444-555555555555"
	return ev
}

// view is the golden rendering of a Result.
type view struct {
	Dropped     bool         `json:"dropped,omitempty"`
	PassThrough bool         `json:"passThrough,omitempty"`
	Reason      string       `json:"reason,omitempty"`
	Error       string       `json:"error,omitempty"`
	Logs        []string     `json:"logs,omitempty"`
	Topic       string       `json:"topic,omitempty"`
	Partition   *int32       `json:"partition,omitempty"`
	Key         *string      `json:"key,omitempty"`
	Headers     []headerView `json:"headers,omitempty"`
	Value       *string      `json:"value,omitempty"`
	Timestamp   *int64       `json:"timestamp,omitempty"`
	TsSource    string       `json:"timestampSource,omitempty"`
}

type headerView struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

func show(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	if !eventrouter.IsText(b) {
		s = "base64:" + base64.StdEncoding.EncodeToString(b)
	}
	return &s
}

func render(res eventrouter.Result, err error) string {
	v := view{Dropped: res.Dropped, PassThrough: res.PassThrough, Reason: res.Reason, Logs: res.Logs}
	if err != nil {
		v.Error = err.Error()
	}
	if r := res.Record; r != nil {
		v.Topic, v.Partition, v.Key, v.Value, v.Timestamp, v.TsSource = r.Topic, r.Partition, show(r.Key), show(r.Value), r.Timestamp, r.TimestampSource
		for _, h := range r.Headers {
			v.Headers = append(v.Headers, headerView{h.Key, show(h.Value)})
		}
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b) + "\n"
}

func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", strings.ReplaceAll(filepath.Dir(t.Name()), "/", "_"), name+".golden")
	golden.Assert(t, path, []byte(got))
}

// TestRoute is the operation / edge-case matrix of the EventRouter (ops,
// tombstones, invalid operations) and its options, each rendered to a
// golden file.
func TestRoute(t *testing.T) {
	jsonSchemas := map[string]string{"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true"}
	jsonPlain := map[string]string{"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
		"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false"}
	tests := []struct {
		name  string
		er    map[string]string
		other map[string]string
		row   string // sample row document
		kind  eventrouter.ConnectorKind
		// wantErr: Route must fail with ErrTaskFailed containing this
		wantErr string
	}{
		{name: "insert_defaults", row: `{"op":"c","columns":{"id":"uuid not null"},"row":` + defaultRow + `}`},
		{name: "snapshot_read_like_insert", row: `{"op":"r","columns":{"id":"uuid not null"},"row":` + defaultRow + `}`},
		{name: "update_warn", row: `{"op":"u","row":` + defaultRow + `}`},
		{name: "update_error", er: map[string]string{"table.op.invalid.behavior": "error"}, row: `{"op":"u","row":` + defaultRow + `}`},
		{name: "update_fatal", er: map[string]string{"table.op.invalid.behavior": "FATAL"}, row: `{"op":"u","row":` + defaultRow + `}`, wantErr: "Unexpected update message received Struct{id=4d47e190-0402-4048-bc2c-89dd54343cb1}, fail."},
		{name: "update_fatal_tolerated", er: map[string]string{"table.op.invalid.behavior": "fatal"}, other: map[string]string{"errors.tolerance": "all"}, row: `{"op":"u","row":` + defaultRow + `}`},
		{name: "delete", row: `{"op":"d"}`},
		{name: "truncate", row: `{"op":"t"}`, wantErr: "Only Struct objects supported for [Read Outbox Event], found: null"},
		{name: "jsonb_normalized", row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{"zeta":1,"a":[1,2.50,1e2],"bb":{"y":"\u00e9\n","x":null},"a":7}}}`},
		{name: "json_schemas_enable", other: jsonSchemas, row: `{"columns":{"id":"uuid not null","aggregateid":"varchar not null"},"row":` + defaultRow + `}`},
		{name: "json_schemaless_double_encoded", other: jsonPlain, row: `{"row":` + defaultRow + `}`},
		{name: "null_payload_string_converter", row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":null}}`},
		{name: "null_payload_json_converter", other: jsonPlain, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":null}}`},
		{name: "null_payload_tombstone", er: map[string]string{"route.tombstone.on.empty.payload": "true"}, other: jsonSchemas, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":null}}`},
		{name: "blank_payload_tombstone", er: map[string]string{"route.tombstone.on.empty.payload": "true"}, other: jsonSchemas, row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":" \t\n"}}`},
		{name: "empty_bytes_not_tombstone", er: map[string]string{"route.tombstone.on.empty.payload": "true"}, other: map[string]string{"value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"}, row: `{"columns":{"payload":"bytea"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":""}}`},
		{name: "bytes_payload_json", other: jsonSchemas, row: `{"columns":{"payload":"bytea"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"hex:00ff"}}`},
		{name: "bytes_payload_string_converter_garbage", row: `{"columns":{"payload":"bytea"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"hex:00ff10"}}`},
		{name: "string_payload_bytearray_fails", other: map[string]string{"value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"}, row: `{"row":` + defaultRow + `}`, wantErr: "Invalid schema type for ByteArrayConverter: STRING"},
		{name: "renamed_columns", er: map[string]string{"table.field.event.id": "event_id", "table.field.event.key": "agg_id", "table.field.event.payload": "body", "route.by.field": "agg_type"},
			row: `{"columns":{"body":"text"},"row":{"event_id":"x-1","agg_type":"Customer","agg_id":"c-9","body":"{\"n\":1}"}}`},
		{name: "placements_header_envelope_partition", er: map[string]string{"table.fields.additional.placement": " type : HEADER : eventType ,type:envelope:eventType,part:partition,id:header"}, other: jsonSchemas,
			row: `{"columns":{"id":"uuid not null","part":"int4"},"row":{"id":"4d47e190-0402-4048-bc2c-89dd54343cb1","aggregatetype":"Order","aggregateid":"1","type":"OrderCreated","payload":{"a":1},"part":2}}`},
		{name: "placement_trailing_colon_alias_is_column", er: map[string]string{"table.fields.additional.placement": "type:header:"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{}}}`},
		{name: "placement_unknown_keyword_npe", er: map[string]string{"table.fields.additional.placement": "type:foo"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{}}}`, wantErr: "NullPointerException"},
		{name: "placement_missing_column_error", er: map[string]string{"table.fields.additional.placement": "nosuch:header"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`, wantErr: "nosuch is not a valid field name"},
		{name: "placement_missing_envelope_error", er: map[string]string{"table.fields.additional.placement": "nosuch:envelope"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`, wantErr: "Unable to find field nosuch in event"},
		{name: "placement_missing_ignore", er: map[string]string{"table.fields.additional.placement": "nosuch:envelope,nosuch:header", "table.field.additional.missing": "ignore"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`},
		{name: "partition_not_int32", er: map[string]string{"table.fields.additional.placement": "part:partition"}, row: `{"columns":{"part":"int8"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{},"part":1}}`, wantErr: "Field 'part' is not of type INT32"},
		{name: "envelope_schema_version", er: map[string]string{"table.fields.additional.placement": "type:envelope", "table.field.event.schema.version": "v"}, other: jsonSchemas,
			row: `{"columns":{"v":"int4"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"v":3}}`},
		{name: "envelope_column_default", er: map[string]string{"table.fields.additional.placement": "deleted:envelope"}, other: jsonSchemas,
			row: `{"columns":{"deleted":{"type":"boolean","nullable":false,"default":false}},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":null,"deleted":null}}`},
		{name: "envelope_string_converter_struct", er: map[string]string{"table.fields.additional.placement": "type:envelope:eventType"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1}}}`},
		{name: "regex_routing", er: map[string]string{"route.topic.regex": `(?<kind>[A-Z][a-z]+)_(?<rest>.*)`, "route.topic.replacement": `events.${kind}.$2`}, row: `{"row":{"id":"e1","aggregatetype":"Order_eu","aggregateid":"1","payload":{}}}`},
		// \$ is a literal '$', which Kafka refuses in a topic name: the
		// task fails (Topic.validate's InvalidTopicException).
		{name: "regex_routing_invalid_topic", er: map[string]string{"route.topic.regex": `(?<kind>[A-Z][a-z]+)_(?<rest>.*)`, "route.topic.replacement": `events.${kind}.$2\$`}, row: `{"row":{"id":"e1","aggregatetype":"Order_eu","aggregateid":"1","payload":{}}}`,
			wantErr: `InvalidTopicException: Topic name is invalid: 'events.Order.eu$' contains one or more characters other than ASCII alphanumerics`},
		{name: "invalid_topic_space_slash", row: `{"row":{"id":"e1","aggregatetype":"Or der/x","aggregateid":"1","payload":{}}}`,
			wantErr: `producer: org.apache.kafka.common.errors.InvalidTopicException: Topic name is invalid: 'outbox.event.Or der/x' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`},
		// With Connect's topic creation the task fails describing the topic
		// (the trace of Kafka Connect 4.3.1 for this row).
		{name: "invalid_topic_topic_creation", other: map[string]string{"topic.creation.default.partitions": "-1", "topic.creation.default.replication.factor": "-1"},
			row:     `{"row":{"id":"e1","aggregatetype":"Or der/x","aggregateid":"1","payload":{}}}`,
			wantErr: `producer: org.apache.kafka.connect.errors.ConnectException: Error while attempting to describe topics 'outbox.event.Or der/x' (caused by org.apache.kafka.common.errors.InvalidTopicException: The request attempted to perform an operation on an invalid topic.)`},
		{name: "invalid_topic_too_long", row: `{"row":{"id":"e1","aggregatetype":"` + strings.Repeat("x", 300) + `","aggregateid":"1","payload":{}}}`,
			wantErr: "' is longer than the max allowed length 249"},
		{name: "regex_no_match_raw_value", er: map[string]string{"route.topic.regex": `[A-Z]+`, "route.topic.replacement": `x.$0`}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`},
		{name: "regex_bad_group_reference", er: map[string]string{"route.topic.replacement": `t.${nosuch}`}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`, wantErr: "No group with name {nosuch}"},
		{name: "route_value_null_npe", row: `{"row":{"id":"e1","aggregatetype":null,"aggregateid":"1","payload":{}}}`, wantErr: "NullPointerException"},
		{name: "route_value_not_string", row: `{"row":{"id":"e1","aggregatetype":5,"aggregateid":"1","payload":{}}}`, wantErr: "Field 'aggregatetype' is not of type STRING"},
		{name: "non_outbox_table", row: `{"row":{"id":1,"name":"x"}}`, wantErr: "Unable to find payload field payload in event"},
		{name: "missing_id_column", row: `{"row":{"aggregatetype":"Order","aggregateid":"1","payload":{}}}`, wantErr: "id is not a valid field name"},
		{name: "missing_key_column", row: `{"row":{"id":"e1","aggregatetype":"Order","payload":{}}}`, wantErr: "aggregateid is not a valid field name"},
		{name: "null_key", other: map[string]string{"key.converter": "org.apache.kafka.connect.json.JsonConverter"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":null,"payload":{}}}`},
		{name: "int_key_and_id", other: jsonPlain, row: `{"row":{"id":42,"aggregatetype":"Order","aggregateid":7,"payload":{}}}`},
		{name: "timestamp_millis", er: map[string]string{"table.field.event.timestamp": "ts"}, row: `{"columns":{"ts":"timestamp(3)"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{},"ts":"2019-03-24 20:52:59"}}`},
		{name: "timestamp_micros_truncated", er: map[string]string{"table.field.event.timestamp": "ts"}, row: `{"columns":{"ts":"timestamp"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{},"ts":"2019-03-24 20:52:59.123999"}}`},
		{name: "timestamp_null_falls_back", er: map[string]string{"table.field.event.timestamp": "ts"}, row: `{"tsMs":1700000000000,"columns":{"ts":"timestamp"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{},"ts":null}}`},
		{name: "timestamp_timestamptz_fails", er: map[string]string{"table.field.event.timestamp": "ts"}, row: `{"columns":{"ts":"timestamptz"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{},"ts":"2019-03-24T20:52:59Z"}}`, wantErr: "Field 'ts' is not of type INT64"},
		{name: "timestamp_bigint_fails", er: map[string]string{"table.field.event.timestamp": "ts"}, row: `{"columns":{"ts":"int8"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{},"ts":1}}`, wantErr: "Unsupported field type INT64 (without logical schema name)"},
		{name: "timestamp_key_empty", er: map[string]string{"table.field.event.timestamp": ""}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`, wantErr: "Unable to find timestamp field  in event"},
		{name: "timestamp_missing_column", er: map[string]string{"table.field.event.timestamp": "ts"}, row: `{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{}}}`, wantErr: "Unable to find timestamp field ts in event"},
		{name: "expand_json", er: map[string]string{"table.expand.json.payload": "true"}, other: jsonSchemas,
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"id\":1,\"big\":3000000000,\"f\":1.5,\"e\":1e20,\"n\":null,\"z\":[],\"o\":{\"k\":\"v\"},\"arr\":[{\"a\":1},{\"a\":2}],\"dup\":1,\"dup\":2} trailing"}}`},
		{name: "expand_json_merge_not_optional", er: map[string]string{"table.expand.json.payload": "true"}, other: jsonSchemas,
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"arr\":[{\"a\":1},{\"b\":\"x\"}]}"}}`},
		{name: "expand_json_optional_bytes", er: map[string]string{"table.expand.json.payload": "true", "table.json.payload.null.behavior": "optional_bytes"}, other: jsonSchemas,
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"n\":null,\"s\":\"x\"}"}}`},
		{name: "expand_json_mixed_numbers_unchanged", er: map[string]string{"table.expand.json.payload": "true"}, other: jsonPlain,
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"a\":[1,2.0]}"}}`},
		{name: "expand_json_bigint_value_fails", er: map[string]string{"table.expand.json.payload": "true"}, other: jsonPlain,
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"a\":12345678901234567890}"}}`, wantErr: "Invalid type for STRUCT: class java.lang.String"},
		{name: "expand_json_top_array_string_converter", er: map[string]string{"table.expand.json.payload": "true"},
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"[1,2]"}}`},
		{name: "expand_json_top_array_envelope_fails", er: map[string]string{"table.expand.json.payload": "true", "table.fields.additional.placement": "type:envelope"},
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"[1,2]"}}`, wantErr: "Invalid Java object for schema with type ARRAY"},
		{name: "expand_json_bytes_warns", er: map[string]string{"table.expand.json.payload": "true"}, other: map[string]string{"value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"},
			row: `{"columns":{"payload":"bytea"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{}"}}`},
		{name: "expand_json_avro_field_names", er: map[string]string{"table.expand.json.payload": "true", "field.name.adjustment.mode": "avro"}, other: jsonSchemas,
			row: `{"columns":{"payload":"text"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"1a-b\":1,\"ok\":2}"}}`},
		{name: "header_converter_json", other: map[string]string{"header.converter": "org.apache.kafka.connect.json.JsonConverter", "extended.headers.enabled": "false"}, row: `{"columns":{"id":"uuid not null"},"row":` + defaultRow + `}`},
		{name: "extended_headers_disabled", other: map[string]string{"extended.headers.enabled": "false"}, row: `{"row":` + defaultRow + `}`},
		{name: "binary_data_converter_passthrough", other: map[string]string{"value.converter": "io.debezium.converters.BinaryDataConverter"}, row: `{"columns":{"payload":"bytea"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"base64:AAECAw=="}}`},
		{name: "mariadb_defaults", kind: eventrouter.MariaDB, other: map[string]string{"connector.class": "io.debezium.connector.mariadb.MariaDbConnector"},
			row: `{"table":"shop.outbox","columns":{"payload":"json","created":"datetime(6)"},"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":{"b":1,"a":2},"created":"2024-01-01 00:00:00.5"}}`},
		{name: "predicate_not_matching", other: map[string]string{"transforms.outbox.predicate": "onlyOutbox", "predicates": "onlyOutbox",
			"predicates.onlyOutbox.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "predicates.onlyOutbox.pattern": `dbserver1\.public\.other`},
			row: `{"row":` + defaultRow + `}`},
		{name: "predicate_matching", other: map[string]string{"transforms.outbox.predicate": "onlyOutbox", "predicates": "onlyOutbox",
			"predicates.onlyOutbox.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "predicates.onlyOutbox.pattern": `dbserver1\.public\.outboxevent`},
			row: `{"row":` + defaultRow + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := eventrouter.ParseConfig(connector(tt.er, tt.other), "outbox")
			if err != nil {
				t.Fatalf("ParseConfig: %v", err)
			}
			ev := sample(t, tt.row, tt.kind)
			res, err := eventrouter.Route(cfg, ev)
			if tt.wantErr != "" {
				if !errors.Is(err, eventrouter.ErrTaskFailed) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want task failure containing %q, got %v", tt.wantErr, err)
				}
			} else if err != nil {
				t.Fatalf("Route: %v", err)
			}
			assertGolden(t, tt.name, render(res, err))
		})
	}
}

func TestRouteSpecialRecords(t *testing.T) {
	cfg, err := eventrouter.ParseConfig(connector(nil, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := eventrouter.Route(cfg, eventrouter.ChangeEvent{Op: "d", Table: "public.outboxevent", Tombstone: true})
	if err != nil || !res.Dropped || !strings.Contains(res.Reason, "tombstone") {
		t.Errorf("tombstone: got %+v, %v", res, err)
	}
	res, err = eventrouter.Route(cfg, eventrouter.ChangeEvent{NotEnvelope: "heartbeat"})
	if err != nil || !res.PassThrough || res.Record != nil {
		t.Errorf("heartbeat: got %+v, %v", res, err)
	}
}

// TestRouterSchemaNameCache: without schema.version the envelope schema is
// cached by payload schema, so a later aggregate type reuses the first name.
func TestRouterSchemaNameCache(t *testing.T) {
	cfg, err := eventrouter.ParseConfig(connector(map[string]string{"table.fields.additional.placement": "type:envelope"},
		map[string]string{"value.converter": "org.apache.kafka.connect.json.JsonConverter"}), "outbox")
	if err != nil {
		t.Fatal(err)
	}
	r := eventrouter.NewRouter(cfg)
	names := []string{}
	for _, agg := range []string{"Order", "Customer"} {
		res, err := r.Route(sample(t, `{"row":{"id":"e1","aggregatetype":"`+agg+`","aggregateid":"1","type":"T","payload":{"a":1}}}`, ""))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, res.Record.Connect.ValueSchema.Name)
	}
	want := "dbserver1.public.outboxevent.Order.Value"
	if names[0] != want || names[1] != want {
		t.Errorf("schema names %v, want both %s", names, want)
	}
	// a fresh task names it after Customer
	res, _ := eventrouter.Route(cfg, sample(t, `{"row":{"id":"e1","aggregatetype":"Customer","aggregateid":"1","type":"T","payload":{"a":1}}}`, ""))
	if got := res.Record.Connect.ValueSchema.Name; got != "dbserver1.public.outboxevent.Customer.Value" {
		t.Errorf("fresh router: %s", got)
	}
}

func TestErrorsTolerance(t *testing.T) {
	cfg, err := eventrouter.ParseConfig(connector(nil, map[string]string{"errors.tolerance": "all"}), "outbox")
	if err != nil {
		t.Fatal(err)
	}
	res, err := eventrouter.Route(cfg, sample(t, `{"row":{"id":1,"name":"x"}}`, ""))
	if err != nil || !res.Dropped || !strings.Contains(res.Reason, "Unable to find payload field") {
		t.Errorf("got %+v, %v", res, err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		er   map[string]string
		oth  map[string]string
		want string
	}{
		{"placement_one_part", map[string]string{"table.fields.additional.placement": "type"}, nil, "pairs or trios"},
		{"placement_four_parts", map[string]string{"table.fields.additional.placement": "a:b:c:d"}, nil, "pairs or trios"},
		{"placement_leading_comma", map[string]string{"table.fields.additional.placement": ",type:header"}, nil, "pairs or trios"},
		{"placement_empty", map[string]string{"table.fields.additional.placement": ""}, nil, "pairs or trios"},
		{"invalid_op_enum", map[string]string{"table.op.invalid.behavior": "drop"}, nil, "Value must be one of warn, error, fatal"},
		{"missing_enum", map[string]string{"table.field.additional.missing": "skip"}, nil, "error, ignore"},
		{"null_behavior_enum", map[string]string{"table.json.payload.null.behavior": "x"}, nil, "ignore, optional_bytes"},
		{"boolean", map[string]string{"route.tombstone.on.empty.payload": "yes"}, nil, "either true or false"},
		{"regex_syntax", map[string]string{"route.topic.regex": "(unclosed"}, nil, "does not compile"},
		{"regex_lookahead", map[string]string{"route.topic.regex": "(?=x).*"}, nil, "lookaround"},
		{"regex_backreference", map[string]string{"route.topic.regex": `(a)\1`}, nil, "backreference"},
		{"converter_unknown", nil, map[string]string{"value.converter": "io.confluent.connect.avro.AvroConverter"}, "not emulated"},
		{"errors_tolerance", nil, map[string]string{"errors.tolerance": "some"}, "none, all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := eventrouter.ParseConfig(connector(tt.er, tt.oth), "outbox")
			var ce *eventrouter.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want ConfigError containing %q, got %v", tt.want, err)
			}
		})
	}
	if _, err := eventrouter.ParseConfig(map[string]string{"transforms": "a"}, ""); !errors.Is(err, eventrouter.ErrInvalidConfig) {
		t.Errorf("no EventRouter: %v", err)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := eventrouter.ParseConfig(map[string]string{
		"transforms": "unwrap,outbox", "transforms.outbox.type": eventrouter.EventRouterClass,
		"transforms.outbox.table.fields.additional.error.on.missing": "false",
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Alias != "outbox" || cfg.FieldEventID != "id" || cfg.FieldEventKey != "aggregateid" || cfg.FieldPayload != "payload" ||
		cfg.RouteByField != "aggregatetype" || cfg.RouteTopicRegex != "(?<routedByValue>.*)" || cfg.RouteReplacement != "outbox.event.${routedByValue}" ||
		cfg.InvalidOp != eventrouter.InvalidOpWarn || cfg.AdditionalMissing != "error" || !cfg.ExtendedHeaders ||
		cfg.KeyConverter.Kind != eventrouter.JSONConverter || !cfg.KeyConverter.SchemasEnable || cfg.HeaderConverter.Kind != eventrouter.SimpleHeaderConverter {
		t.Errorf("defaults: %+v", cfg)
	}
	if len(cfg.Warnings) != 2 {
		t.Errorf("want warnings for the unwrap transform and error.on.missing, got %q", cfg.Warnings)
	}
	// 3.5: error.on.missing is honoured
	cfg, err = eventrouter.ParseConfigWithOptions(map[string]string{
		"transforms": "outbox", "transforms.outbox.type": eventrouter.EventRouterClass,
		"transforms.outbox.table.fields.additional.error.on.missing": "false",
	}, "", eventrouter.ParseOptions{EventRouterVersion: eventrouter.Version35})
	if err != nil || cfg.AdditionalMissing != "ignore" {
		t.Errorf("3.5: %v %+v", err, cfg.AdditionalMissing)
	}
	// worker converters apply when the connector sets none
	cfg, _ = eventrouter.ParseConfigWithWorker(map[string]string{"transforms": "outbox", "transforms.outbox.type": eventrouter.EventRouterClass, "key.converter.schemas.enable": "true"}, "",
		map[string]string{"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false", "value.converter": "StringConverter"})
	if cfg.KeyConverter.SchemasEnable || cfg.KeyConverter.Source != "worker" || cfg.ValueConverter.Kind != eventrouter.StringConverter {
		t.Errorf("worker converters: %+v %+v", cfg.KeyConverter, cfg.ValueConverter)
	}
}

func TestNormalizeJSONB(t *testing.T) {
	tests := map[string]string{
		`{"b":1,"a":2,"aa":[1,2.50,1e2,-0,1.5e-3,100e-2]}`: `{"a": 2, "b": 1, "aa": [1, 2.50, 100, 0, 0.0015, 1.00]}`,
		`{"k":1,"k":2}`:                    `{"k": 2}`,
		`"\u00e9\u0001/"`:                  "\"é\\u0001/\"",
		` [ {} , [] , null , true ] `:      `[{}, [], null, true]`,
		`{"zz":{"y":1,"x":{"b":0,"a":0}}}`: `{"zz": {"x": {"a": 0, "b": 0}, "y": 1}}`,
	}
	for in, want := range tests {
		got, err := eventrouter.NormalizeJSONB(in)
		if err != nil || got != want {
			t.Errorf("NormalizeJSONB(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := eventrouter.NormalizeJSONB(`{"a":1} x`); err == nil {
		t.Error("trailing content accepted")
	}
}

func TestColumnSchema(t *testing.T) {
	tests := []struct {
		kind eventrouter.ConnectorKind
		typ  string
		want string // type/name
	}{
		{eventrouter.Postgres, "uuid", "string/io.debezium.data.Uuid"},
		{eventrouter.Postgres, "jsonb", "string/io.debezium.data.Json"},
		{eventrouter.Postgres, "timestamp(3)", "int64/io.debezium.time.Timestamp"},
		{eventrouter.Postgres, "timestamp(4)", "int64/io.debezium.time.MicroTimestamp"},
		{eventrouter.Postgres, "timestamp", "int64/io.debezium.time.MicroTimestamp"},
		{eventrouter.Postgres, "timestamptz", "string/io.debezium.time.ZonedTimestamp"},
		{eventrouter.Postgres, "bytea", "bytes/"},
		{eventrouter.Postgres, "character varying(20)", "string/"},
		{eventrouter.MariaDB, "json", "string/"},
		{eventrouter.MySQL, "json", "string/io.debezium.data.Json"},
		{eventrouter.MariaDB, "datetime(3)", "int64/io.debezium.time.Timestamp"},
		{eventrouter.MariaDB, "datetime(6)", "int64/io.debezium.time.MicroTimestamp"},
		{eventrouter.MariaDB, "longblob", "bytes/"},
		{eventrouter.MariaDB, "int", "int32/"},
		// BinlogValueConverters widens the unsigned integers
		{eventrouter.MariaDB, "tinyint(3) unsigned", "int16/"},
		{eventrouter.MariaDB, "smallint unsigned", "int32/"},
		{eventrouter.MySQL, "mediumint(8) unsigned", "int32/"},
		{eventrouter.MariaDB, "int(10) unsigned", "int64/"},
		{eventrouter.MariaDB, "INT UNSIGNED", "int64/"},
		{eventrouter.MariaDB, "bigint(20) unsigned", "int64/"},
	}
	for _, tt := range tests {
		s, err := eventrouter.ColumnSchema(tt.kind, tt.typ, true)
		if err != nil {
			t.Errorf("%s %s: %v", tt.kind, tt.typ, err)
			continue
		}
		if got := string(s.Type) + "/" + s.Name; got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.kind, tt.typ, got, tt.want)
		}
	}
	// types it does not model are refused (never guessed): ErrUnsupported,
	// as a *ColumnTypeError naming the type
	for _, tt := range []struct {
		kind eventrouter.ConnectorKind
		typ  string
	}{
		{eventrouter.MariaDB, "hstore"}, {eventrouter.MariaDB, "money"}, {eventrouter.Postgres, "interval second to day"}, {eventrouter.Postgres, "interval(7)"},
		{eventrouter.MariaDB, "xml"}, {eventrouter.Postgres, "interval[][]"}, {eventrouter.Postgres, "xml[]"}, {eventrouter.MariaDB, "int[]"},
		{eventrouter.MariaDB, "set"}, {eventrouter.MariaDB, "enum"}, {eventrouter.MariaDB, "enum('x"},
		{eventrouter.Postgres, "txid_snapshot[]"}, {eventrouter.Postgres, "year"}, {eventrouter.MariaDB, "timetz"},
		{eventrouter.MariaDB, "inet6"}, {eventrouter.Postgres, "int zerofill"},
		{eventrouter.MySQL, "uuid"}, {eventrouter.MariaDB, "inet4"},
	} {
		_, err := eventrouter.ColumnSchema(tt.kind, tt.typ, true)
		var cte *eventrouter.ColumnTypeError
		if !errors.Is(err, eventrouter.ErrUnsupported) || !errors.As(err, &cte) || cte.Type != tt.typ {
			t.Errorf("%s %s: %v, want a *ColumnTypeError unwrapping to ErrUnsupported", tt.kind, tt.typ, err)
		}
	}
	// every type the list names is modelled
	for _, kind := range []eventrouter.ConnectorKind{eventrouter.Postgres, eventrouter.MySQL, eventrouter.MariaDB} {
		if len(eventrouter.ModelledColumnTypes(kind)) == 0 {
			t.Errorf("%s: no modelled types", kind)
		}
		for _, typ := range eventrouter.ModelledColumnTypes(kind) {
			typ = strings.NewReplacer("(p,s)", "(10,2)", "(p)", "(3)", "(n)", "(5)").Replace(typ)
			if eventrouter.ColumnDropped(kind, typ) {
				// modelled as left out of the record: no schema
				if _, err := eventrouter.ColumnSchema(kind, typ, true); err == nil {
					t.Errorf("%s %s is dropped but has a schema", kind, typ)
				}
				continue
			}
			if _, err := eventrouter.ColumnSchema(kind, typ, true); err != nil && !errors.Is(err, eventrouter.ErrColumnDropped) {
				t.Errorf("%s %s is listed as modelled: %v", kind, typ, err)
			}
		}
	}
}

func TestRouteTopic(t *testing.T) {
	for _, c := range []struct {
		regex, repl, value, want string
		matched                  bool
	}{
		{"", "outbox.event.${routedByValue}", "Order", "outbox.event.Order", true},
		{"(?<routedByValue>.*)", "events.${routedByValue}", "Payment", "events.Payment", true},
		{"(?<agg>[A-Z][a-z]+)Aggregate", "svc.${agg}", "OrderAggregate", "svc.Order", true},
		{"(?<agg>[A-Z][a-z]+)Aggregate", "svc.${agg}", "order", "order", false}, // no match: the raw value
		{"(.*)", "t.$1", "X", "t.X", true},
		{"(.*)", `t.$1x\$`, "X", "t.Xx$", true}, // Java: group 1, then literal "x$"
		{"(.*)", "t.$12", "X", "t.X2", true},    // no group 12: group 1, then "2"
	} {
		got, matched, err := eventrouter.RouteTopic(c.regex, c.repl, c.value)
		if err != nil || got != c.want || matched != c.matched {
			t.Errorf("RouteTopic(%q, %q, %q) = %q, %v, %v; want %q, %v", c.regex, c.repl, c.value, got, matched, err, c.want, c.matched)
		}
	}
	var ce *eventrouter.ConfigError
	if _, _, err := eventrouter.RouteTopic(`(?<x>a)\k<x>`, "t", "aa"); !errors.As(err, &ce) || !errors.Is(err, eventrouter.ErrUnsupported) {
		t.Errorf("a back-reference: %v, want a ConfigError for ErrUnsupported", err)
	}
	if _, _, err := eventrouter.RouteTopic(`(?<routed_by>.*)`, "t", "a"); !errors.As(err, &ce) || !errors.Is(err, eventrouter.ErrInvalidConfig) {
		t.Errorf("a group name Java rejects: %v, want a ConfigError for ErrInvalidConfig", err)
	}
	if _, _, err := eventrouter.RouteTopic("(.*)", "t.$2", "a"); !errors.Is(err, eventrouter.ErrTaskFailed) {
		t.Errorf("a missing group: %v, want ErrTaskFailed", err)
	}
}

func TestEnumOptionLookup(t *testing.T) {
	o := eventrouter.OptionOpInvalidBehavior
	for in, want := range map[string]string{
		"warn": "warn", " FATAL ": "fatal", "\x01Error\t": "error", // Java's trim strips controls
		"\u00a0warn": "", "warning": "", "": "", // but not U+00A0
	} {
		got, ok := o.Lookup(in)
		if got != want || ok != (want != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	// Java's equalsIgnoreCase compares upper cases: ſ (long s) is 's'.
	if got, ok := eventrouter.OptionTombstoneOnEmpty.Lookup("falſe"); !ok || got != "false" {
		t.Errorf(`Lookup("falſe") = %q, %v; want "false"`, got, ok)
	}
	keys := map[string]bool{}
	for _, e := range eventrouter.EnumOptions() {
		if keys[e.Key] || len(e.Values) < 2 {
			t.Errorf("option %s listed twice or with fewer than 2 values", e.Key)
		}
		keys[e.Key] = true
		if _, ok := e.Lookup(e.Default); !ok {
			t.Errorf("%s: default %q is not a value", e.Key, e.Default)
		}
	}
}

func TestParsePlacements(t *testing.T) {
	got := eventrouter.ParsePlacements(" type : HEADER :eventType,id:envelope,bad, :partition:x,a:b:c:d,")
	want := []eventrouter.PlacementEntry{
		{Item: " type : HEADER :eventType", Parts: 3, Valid: true, HasAlias: true,
			Field: eventrouter.AdditionalField{Column: "type", Raw: "HEADER", Placement: eventrouter.PlacementHeader, Alias: "eventType"}},
		{Item: "id:envelope", Parts: 2, Valid: true,
			Field: eventrouter.AdditionalField{Column: "id", Raw: "envelope", Placement: eventrouter.PlacementEnvelope, Alias: "id"}},
		{Item: "bad", Parts: 1},
		{Item: " :partition:x", Parts: 3, Valid: true, HasAlias: true,
			Field: eventrouter.AdditionalField{Column: "", Raw: "partition", Placement: eventrouter.PlacementPartition, Alias: "x"}},
		{Item: "a:b:c:d", Parts: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParsePlacements =\n%+v\nwant\n%+v", got, want)
	}
	// Java's String.split: "" is one empty entry, "," none.
	if n := len(eventrouter.ParsePlacements("")); n != 1 {
		t.Errorf(`ParsePlacements("") has %d entries, want 1`, n)
	}
	if n := len(eventrouter.ParsePlacements(",")); n != 0 {
		t.Errorf(`ParsePlacements(",") has %d entries, want 0`, n)
	}
}

// PostgreSQL prints timestamptz in one canonical form whatever the input
// was, and PostgresValueConverter passes it on as ZonedTimestamp: in UTC,
// ISO-8601, with the column's scale in fraction digits (6 when none is
// declared, none for 0), after PostgreSQL's rounding to that scale.
func TestColumnValuePostgresTimestamptz(t *testing.T) {
	for _, tt := range []struct{ typ, in, want string }{
		{"timestamptz", "2024-01-01 10:00:00+02", "2024-01-01T08:00:00.000000Z"},
		{"timestamptz", "2024-01-01T10:00:00.5+02:00", "2024-01-01T08:00:00.500000Z"},
		{"timestamptz", "2024-01-01 10:00:00.123456789Z", "2024-01-01T10:00:00.123457Z"},
		{"timestamptz", "2024-01-01 10:00:00", "2024-01-01T10:00:00.000000Z"},
		{"timestamp with time zone", "2024-01-01 00:30:00-0130", "2024-01-01T02:00:00.000000Z"},
		{"timestamptz(3)", "2024-01-01 10:00:00.1234+00", "2024-01-01T10:00:00.123Z"},
		{"timestamptz(3)", "2024-01-01 10:00:00.9995+00", "2024-01-01T10:00:01.000Z"},
		{"timestamptz(0)", "2024-12-31 23:59:59.5+00", "2025-01-01T00:00:00Z"},
		{"timestamptz(0)", "2024-01-01 10:00:00.4+00", "2024-01-01T10:00:00Z"},
		{"timestamptz(1)", "1999-06-01 10:00:00.25+00", "1999-06-01T10:00:00.2Z"}, // before 2000 a tie rounds down
		{"timestamptz(1)", "2001-06-01 10:00:00.25+00", "2001-06-01T10:00:00.3Z"},
	} {
		s, err := eventrouter.ColumnSchema(eventrouter.Postgres, tt.typ, true)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(tt.in)
		got, err := eventrouter.ColumnValue(eventrouter.Postgres, tt.typ, s, raw)
		if err != nil || got != tt.want {
			t.Errorf("%s %q = %v, %v; want %q", tt.typ, tt.in, got, err, tt.want)
		}
	}
	s, _ := eventrouter.ColumnSchema(eventrouter.Postgres, "timestamptz", true)
	if _, err := eventrouter.ColumnValue(eventrouter.Postgres, "timestamptz", s, json.RawMessage(`"yesterday-ish"`)); !errors.Is(err, eventrouter.ErrInvalidEvent) {
		t.Errorf("an unparsable timestamptz: %v, want ErrInvalidEvent", err)
	}
}

// Column values as the connectors deliver them, whatever form the input
// had: PostgreSQL rounds a timestamp to the column's precision and prints
// a uuid in lower case; MySQL / MariaDB truncate a datetime or timestamp
// to the column's precision; BIGINT UNSIGNED is the binlog's signed long.
func TestColumnValueCanonical(t *testing.T) {
	for _, tt := range []struct {
		kind     eventrouter.ConnectorKind
		typ, in  string
		want     any
		wantFail bool
	}{
		{eventrouter.Postgres, "uuid", `"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", false},
		{eventrouter.Postgres, "uuid", `"{a0eebc999c0b4ef8bb6d6bb9bd380a11}"`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", false},
		{eventrouter.Postgres, "uuid", `"a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11"`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", false},
		{eventrouter.Postgres, "uuid", `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1"`, nil, true},
		{eventrouter.Postgres, "uuid", `"a0eeb-c999c0b4ef8bb6d6bb9bd380a11"`, nil, true},
		// timestamp(3) → millis, rounded half away from zero (after 2000)
		{eventrouter.Postgres, "timestamp(3)", `"2024-03-01 12:34:56.7895"`, int64(1709296496790), false},
		{eventrouter.Postgres, "timestamp(3)", `"2024-03-01 12:34:56.7894"`, int64(1709296496789), false},
		{eventrouter.Postgres, "timestamp(0)", `"2024-12-31 23:59:59.5"`, int64(1735689600000), false},
		{eventrouter.Postgres, "timestamp", `"2024-03-01 12:34:56.1234567"`, int64(1709296496123457), false},
		{eventrouter.Postgres, "timestamp(4)", `"2024-03-01 12:34:56.12345"`, int64(1709296496123500), false},
		// MariaDB truncates
		{eventrouter.MariaDB, "datetime(3)", `"2024-03-01 12:34:56.7899"`, int64(1709296496789), false},
		{eventrouter.MariaDB, "datetime", `"2024-03-01 12:34:56.9"`, int64(1709296496000), false},
		{eventrouter.MariaDB, "datetime(6)", `"2024-03-01 12:34:56.1234569"`, int64(1709296496123456), false},
		{eventrouter.MariaDB, "timestamp", `"2024-03-01 12:34:56.9"`, "2024-03-01T12:34:56Z", false},
		{eventrouter.MariaDB, "timestamp(3)", `"2024-03-01 12:34:56"`, "2024-03-01T12:34:56.000Z", false},
		{eventrouter.MariaDB, "timestamp(3)", `"2024-03-01T12:34:56.98765"`, "2024-03-01T12:34:56.987Z", false},
		{eventrouter.MariaDB, "timestamp", `"not a time"`, nil, true},
		// MySQL / MariaDB BINARY(n) is padded with zero bytes
		{eventrouter.MariaDB, "binary(4)", `"hex:01"`, "\x01\x00\x00\x00", false},
		{eventrouter.MariaDB, "varbinary(4)", `"hex:01"`, "\x01", false},
		{eventrouter.Postgres, "bytea", `"hex:01"`, "\x01", false},
		// unsigned bounds
		{eventrouter.MariaDB, "tinyint(3) unsigned", `255`, int16(255), false},
		{eventrouter.MariaDB, "smallint(5) unsigned", `65535`, int32(65535), false},
		{eventrouter.MariaDB, "mediumint(8) unsigned", `16777215`, int32(16777215), false},
		{eventrouter.MariaDB, "int(10) unsigned", `4294967295`, int64(4294967295), false},
		{eventrouter.MariaDB, "bigint(20) unsigned", `18446744073709551615`, int64(-1), false},
		{eventrouter.MariaDB, "bigint(20) unsigned", `"9223372036854775808"`, int64(-9223372036854775808), false},
		{eventrouter.MariaDB, "bigint(20) unsigned", `0`, int64(0), false},
		{eventrouter.MariaDB, "bigint(20) unsigned", `-1`, nil, true},
	} {
		s, err := eventrouter.ColumnSchema(tt.kind, tt.typ, true)
		if err != nil {
			t.Fatal(err)
		}
		got, err := eventrouter.ColumnValue(tt.kind, tt.typ, s, json.RawMessage(tt.in))
		if tt.wantFail {
			if err == nil {
				t.Errorf("%s %s %s = %v, want an error", tt.kind, tt.typ, tt.in, got)
			}
			continue
		}
		if b, ok := got.([]byte); ok {
			got = string(b)
		}
		if err != nil || got != tt.want {
			t.Errorf("%s %s %s = %#v, %v; want %#v", tt.kind, tt.typ, tt.in, got, err, tt.want)
		}
	}
}

// A connector setting that changes a column's value in a way the emulator
// does not model is refused for that column (and only for the columns it
// changes), naming the column and the setting.
func TestChangeEventForSettings(t *testing.T) {
	row := `{"columns":{"raw":"bytea","at":"timestamp(3)","n":"int8"},"row":{"id":"1","raw":"hex:00","at":"2024-01-01 00:00:00","n":1}}`
	for _, tc := range []struct {
		conf    map[string]string
		setting string // "" routes
	}{
		{map[string]string{}, ""},
		{map[string]string{"binary.handling.mode": "BYTES", "time.precision.mode": "adaptive_time_microseconds"}, ""},
		{map[string]string{"bigint.unsigned.handling.mode": "precise"}, ""}, // PostgreSQL: no unsigned columns
		{map[string]string{"binary.handling.mode": "hex"}, ""},
		{map[string]string{"binary.handling.mode": "base32"}, "binary.handling.mode"},
		{map[string]string{"time.precision.mode": " IsoString"}, ""}, // every mode the connectors accept is modelled
	} {
		conf := map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "p",
			"transforms": "outbox", "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter"}
		for k, v := range tc.conf {
			conf[k] = v
		}
		cfg, err := eventrouter.ParseConfig(conf, "outbox")
		if err != nil {
			t.Fatal(err)
		}
		sr, err := eventrouter.ParseSampleRow(strings.NewReader(row))
		if err != nil {
			t.Fatal(err)
		}
		_, err = sr.ChangeEventFor(cfg)
		var se *eventrouter.SettingError
		switch {
		case tc.setting == "" && err != nil:
			t.Errorf("%v: %v", tc.conf, err)
		case tc.setting != "" && (!errors.As(err, &se) || se.Setting != tc.setting || !errors.Is(err, eventrouter.ErrUnsupported)):
			t.Errorf("%v: %v, want a SettingError for %s", tc.conf, err, tc.setting)
		}
	}
}
