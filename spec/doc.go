// Package spec reads the outbox spec: the one declarative file (or folder of
// files) from which outboxctl derives the Debezium connector configs, the
// outbox table DDL, the Avro subjects, the outbox writer and the consumer's
// type registry. Every other package reads outboxes through this one.
//
// Start with Load, the Spec and Outbox types, and Outbox.ColumnContract.
// Spec.Outbox picks one outbox by name (the only one when no name is given);
// its *OutboxNotFoundError names the outboxes the spec has.
//
// # Format
//
// A spec document declares apiVersion "outboxctl.dev/v1alpha1" (kind
// "OutboxSpec" is optional) and a list of outboxes. A file may hold several
// documents separated by "---"; Load takes several files and folders (every
// *.yaml/*.yml below a folder, in lexical order) and merges them:
//
//	apiVersion: outboxctl.dev/v1alpha1
//	kafka:
//	  bootstrapServers: kafka:9092        # as Connect sees it (MySQL/MariaDB schema history)
//	outboxes:
//	  - name: orders                      # unique across all files
//	    database:
//	      kind: postgres                  # postgres | mysql | mariadb
//	      connection:
//	        host: pg
//	        port: 5432                    # default 5432 / 3306
//	        user: dbz
//	        password: ${env:ORDERS_DB_PASSWORD}
//	        dbname: orders
//	    schema: public                    # PG schema (default public) or MySQL database (default dbname)
//	    table: outbox                     # default outbox
//	    payloadFormat: avro               # avro (Confluent wire-format bytes) | json
//	    delivery: at-least-once           # at-least-once | exactly-once (KIP-618 transactions)
//	    topics:                           # replication of the topics provision creates
//	      replicationFactor: 3            # default: the broker's
//	      minInsyncReplicas: 2            # default: the broker's
//	    columns:                          # Debezium's defaults
//	      id: id
//	      aggregateType: aggregatetype
//	      aggregateId: aggregateid
//	      type: type
//	      payload: payload
//	      timestamp: created_at           # optional: the record timestamp
//	      tracing: tracingspancontext     # optional: trace context column
//	      schemaVersion: schemaversion    # default; "" drops the column and header
//	    routing:
//	      byField: aggregatetype          # route.by.field
//	      topicRegex: (?<routedByValue>.*)  # route.topic.regex, a Java regex
//	      topicReplacement: outbox.event.${routedByValue}
//	    headers:
//	      eventType: eventType            # type column as a header ("" to drop)
//	      schemaVersion: schemaVersion    # schema version column as a header
//	      traceContext: ""                # tracing column as a header (off)
//	    placements:                       # more table.fields.additional.placement entries
//	      - {column: tenant, placement: header, alias: tenant}
//	    events:
//	      - name: OrderCreated            # value of the type column
//	        aggregate: Order              # value of the aggregate type column
//	        subjectStrategy: TopicRecordNameStrategy
//	        versions:
//	          - {major: 1, schema: schemas/order/OrderCreated.v1.avsc}
//	          - {major: 2, schema: schemas/order/OrderCreated.v2.avsc}
//	    connector:
//	      name: orders-outbox             # default <outbox>-outbox; offsets are keyed by it
//	      topicPrefix: orders             # default: the outbox name
//	      profile: latency                # latency | throughput
//	      snapshot: no_data               # snapshot.mode; no_data does not re-publish old rows
//	      state: running                  # running | paused | stopped
//	      heartbeat: 10s                  # heartbeat.interval.ms; off: none (keeps a quiet outbox's slot moving)
//	      slotName: orders_outbox         # postgres; default derived from the name
//	      publicationName: orders_outbox_pub
//	      serverId: 184054                # mysql/mariadb; default derived from the name
//	      schemaHistoryTopic: schema-history.orders
//	      overrides:                      # raw connector keys, applied last ("" removes a key)
//	        poll.interval.ms: "50"
//	    consumers:                        # consumer groups with a dead-letter topic
//	      - group: billing                # ConsumerConfig.GroupID
//	        dlqTopic: billing.dlq         # consumer.DLQ{Topic}; provision creates it
//	        partitions: 1                 # default: the broker's num.partitions
//
// The JSON Schema of a document is spec/outbox.schema.json (JSONSchema
// derives it from the Go types); add
// "# yaml-language-server: $schema=<path>/outbox.schema.json" to a spec for
// editor completion.
//
// # Positions and errors
//
// The parser works on yaml.v3 nodes, so every object and key keeps its
// file:line:col (Node.PosOf). Unknown keys, wrong types, bad enum values,
// literal passwords and duplicate outbox or connector names (across files,
// naming both places) are errors. Load reports all of them at once as an
// ErrorList sorted by position; errors.Is(err, ErrInvalidSpec) holds.
// Rules about the generated connector configs (route regex, slot names,
// server ids, …) are not load errors: connectorconfig.Validate reports them
// as findings.
//
// # Secrets
//
// A password is never a literal. ${env:NAME} and ${file:PATH} are resolved
// at generate time through a Lookup the caller injects (the library never
// reads the environment); Kafka Connect config-provider placeholders such as
// ${file:/opt/secrets.properties:pg.password} or ${secrets:db/pg:password}
// (anything else of the form ${provider:…}) are passed to Connect untouched.
// The same holds for every connector.overrides key that IsSecretKey names
// (database.sslpassword, ….ssl.key.password, …): one list masks them in
// output and refuses their literals; in a sasl.jaas.config each password,
// secret and token option must be a placeholder.
//
// # Subjects
//
// Event types and their major versions are data here (name, aggregate,
// subject strategy, schema file). Mapping them to Schema Registry subjects is
// the schemas package's job; this package does not import it.
package spec
