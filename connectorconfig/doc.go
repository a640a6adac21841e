// Package connectorconfig turns an outbox spec into Debezium 3.6 connector
// configurations (PostgreSQL, MySQL, MariaDB) with the Outbox EventRouter,
// and validates them with Debezium-aware rules.
//
// Start with Generate, Connector and Validate.
//
// # Generate
//
// Generate(spec, Options) returns one Connector per outbox, in spec order,
// every value derived from the spec alone (deterministic; renderers sort the
// keys). The configs set, with the reason kept in Connector.Reasons:
//
//   - topic.prefix, tasks.max=1, table.include.list of the outbox table only;
//   - PostgreSQL: plugin.name=pgoutput (3.6 still defaults to decoderbufs),
//     slot and publication names derived from the connector name
//     (lower case, [a-z0-9_], at most 63 characters, see PGIdentifier),
//     publication.autocreate.mode=filtered;
//   - MySQL/MariaDB: database.server.id = ServerIDBase + FNV-1a(name) mod
//     ServerIDRange, moved to the next free id on a clash within the spec;
//     database.include.list, schema.history.internal.kafka.* (one topic per
//     connector, only the captured table's DDL), include.schema.changes=false;
//   - snapshot.mode=no_data unless the spec asks otherwise: a data snapshot
//     would re-publish every row still in the outbox table;
//   - skipped.operations=t (a truncate fails the EventRouter task),
//     tombstones.on.delete=false;
//   - heartbeats (connector.heartbeat, default 10s; "off" turns them off):
//     heartbeat.interval.ms, and for PostgreSQL heartbeat.action.query =
//     PGHeartbeatQuery with its messages excluded from publishing
//     (message.prefix.exclude.list). A Debezium PostgreSQL heartbeat only
//     repeats the LSN of the last captured change, so without the query a
//     slot whose outbox table is quiet retains all WAL the rest of the
//     server writes (TestIntegrationHeartbeatMovesSlot shows both on the
//     real stack; rule SLOT_CAN_STALL flags configs without it);
//   - key.converter StringConverter; for avro payloads the Confluent
//     wire-format bytes pass through untouched: BinaryDataConverter with a
//     JSON delegate for the heartbeat records when heartbeats are on
//     (ByteArrayConverter cannot write them), ByteArrayConverter when off;
//     StringConverter for json payloads (the JSON text is written as is;
//     JsonConverter would double-encode it);
//   - the EventRouter as transform "outbox" with a TopicNameMatches
//     predicate on the outbox topic, the column names, routing, the event
//     type and schema version as headers (table.fields.additional.placement),
//     the optional timestamp and trace-context columns;
//   - the latency (poll 10 ms, batch 2048, queue 8192) or throughput (poll
//     100 ms, batch 8192, queue 32768) profile, tuned with outboxctl bench
//     (the figures are in each key's reason and docs/benchmarks.md);
//   - connector overrides last.
//
// Secrets: with Options.Lookup, ${env:…}/${file:…} references are resolved;
// without it they stay as written. Connector.Sensitive lists the keys to
// mask; MaskedConfig, WriteJSON, WriteJSONObject and WriteYAML never print
// a resolved secret.
//
// # Connectors files
//
// WriteJSON, WriteJSONObject and WriteYAML write the connectors file that
// plan and deploy accept; ReadConnectors reads it back. A masked value on
// input is a *MaskedValueError (ErrMaskedValue): deploying it would write
// the mask over the real secret. Files meant to be deployed are written
// without a Lookup, so they keep the ${env:…}/${file:…} references, which
// ReadConnectors resolves. ScanFolder sorts a folder of desired state into
// connectors files and outbox spec files by content (spec.WalkFolder's walk,
// as spec.Load reads folders); CheckUniqueNames refuses a connector
// declared twice.
//
// # Validate
//
// Validate runs the local rules (Rules lists them) over generated
// connectors and returns every Finding with the spec file:line:col of the
// key it is about. The rules cover what Kafka Connect's validate endpoint
// misses: EventRouter enums and placement grammar, route.topic.regex under
// java.util.regex rules (see package internal/javaregex for the approximation),
// route.topic.replacement group references, keys renamed or removed between
// Debezium 1.x and 3.6, removed snapshot modes, slot and publication names,
// slot/publication and server-id clashes, schema history settings, include
// lists and predicates that miss the outbox table, the payload column type
// and converter against the payload format, truncates, topic.prefix and
// queue sizes, connector names (Kafka Connect's rules and what its REST API
// can address: ValidConnectorName), every topic a connector writes to
// (routed topics of the spec's event types through eventrouter.RouteTopic,
// heartbeat, schema history: Kafka's Topic.validate in ValidTopicName, and
// '.'/'_' collisions), the .avsc files the spec names (read and parsed
// strictly) and the registry subjects they get. Each rule has a fixture pair
// in testdata/rules/<ID>.
//
// ValidateServer asks Kafka Connect (PUT
// /connector-plugins/{class}/config/validate) and maps its per-key errors
// back to the spec lines.
//
// # Versions
//
// The configs target Debezium 3.6.1. The MariaDB connector of the dev stack
// is 3.5.0: the keys generated here mean the same there. Three rule
// verdicts are 3.6-specific: KEY_RENAMED flags
// table.fields.additional.error.on.missing (still honoured by a 3.5
// EventRouter), ENUM_INVALID accepts table.field.additional.missing (ignored by
// 3.5), and SNAPSHOT_MODE_INVALID rejects snapshot.mode=never, which the 3.5 binlog
// connectors still accept. The snapshot-mode enums were checked against the
// stack's validate endpoint (PostgreSQL 3.6.1: always, initial, initial_only,
// no_data, when_needed, configuration_based, custom; MySQL 3.6.1 adds
// recovery); the same endpoint accepts invalid EventRouter enums, regexes
// and placements, which is why the ER rules exist.
package connectorconfig
