// Package provisioning prepares and checks everything an outbox needs
// outside the application: the outbox table in the spec's column contract,
// the PostgreSQL publication, the connector's database user with least
// privileges, the Kafka topics, and the health of the whole pipeline.
//
// # Types to learn first
//
//   - Target: one spec outbox with the connector config connectorconfig
//     generated for it (Targets builds them). Slot, publication, server id
//     and schema history topic are read from that config, so what is
//     provisioned is what the connector uses.
//   - Finding: a preflight or health result (rule ID, severity, subject,
//     message, hint). Findings are values; Failed reports an error among
//     them. Its JSON keys are the findings model's, "rule" and "hint"; the
//     earlier "id" and "fix" are written too, as deprecated aliases, for one
//     release. Rules is the registry of the rule IDs: severity, purpose and
//     fix of each (outboxctl help rules).
//   - Step: one idempotent SQL action, with Display (secrets masked) for
//     --dry-run output.
//
// # Database: Plan, then Apply
//
//	targets, _ := provisioning.Targets(s, connectorconfig.Options{Lookup: lookup})
//	steps, findings, err := provisioning.Plan(ctx, adminDB, targets[0], false, provisioning.Options{Lookup: lookup})
//	// print steps[i].Display for a dry run, or:
//	err = provisioning.Apply(ctx, adminDB, steps)
//
// Plan is Inspect (read the catalog into Facts) + Check (pure preflight
// checks) + PlanSteps (pure planning); findings a step resolves are dropped.
// PlanDatabase plans the CREATE DATABASE that must run on a server
// connection first. SpecSteps plans everything an empty server needs from
// the spec alone, with no connection (provision --dry-run). What gets
// planned:
//
//   - The outbox table: TableDDL, CREATE TABLE IF NOT EXISTS with the
//     contract's columns and types (spec.Outbox.ColumnContract: uuid/varchar(36)
//     id, varchar(255) routing columns, bytea/longblob for avro, jsonb/json/
//     longtext for json payloads, optional timestamp(6)/datetime(6) with an
//     index for cleanup, tracing and schema version columns), primary key on
//     the id.
//   - PostgreSQL publication: CREATE PUBLICATION <publication.name> FOR TABLE
//     <outbox> WITH (publish = 'insert'): the EventRouter only routes inserts,
//     and cleanup DELETEs then need no replica identity.
//   - PostgreSQL user: CREATE ROLE … LOGIN REPLICATION, USAGE on the schema,
//     SELECT on the table. With publication.autocreate.mode=filtered (the
//     generator's default) Debezium runs ALTER PUBLICATION … SET TABLE on
//     every start, which needs ownership of the publication and the table:
//     the plan then creates a NOLOGIN owner group (OwnerGroup), makes the
//     user and the table's previous owner members, and hands the table and
//     publication to it (Debezium's documented shared-owner setup). With
//     publication.autocreate.mode=disabled (connector.overrides) the user
//     needs LOGIN REPLICATION and SELECT only.
//   - MySQL/MariaDB user: CREATE USER … and GRANT RELOAD, SHOW DATABASES,
//     REPLICATION SLAVE, REPLICATION CLIENT (MariaDB ≥ 10.5: BINLOG MONITOR,
//     the same right's new name) ON *.*, plus SELECT on the outbox database
//     only.
//   - The password comes only from the spec's secret reference
//     (${env:…}/${file:…}, resolved with Options.Lookup). A Kafka Connect
//     config-provider placeholder cannot be resolved here: the user is not
//     created and a USER_PASSWORD_UNRESOLVED finding says so. An existing
//     user's password is never changed.
//
// # Preflight checks (Check)
//
// PostgreSQL: wal_level=logical, free replication slots and WAL senders, the
// connector's slot (plugin, database, active; an inactive slot retains WAL
// and is reported with the amount; a lost slot is an error), the
// publication (exists, not FOR ALL TABLES in filtered mode, covers the
// table, publishes inserts), replica identity, the user's LOGIN,
// REPLICATION, SELECT and ownership. MySQL/MariaDB: log_bin, binlog_format=ROW,
// binlog_row_image=FULL, server_id ≠ 0 and ≠ the connector's
// database.server.id, gtid_mode (MySQL), binlog_row_value_options,
// log_bin_compress (MariaDB), binlog retention (Options.MinBinlogRetention),
// the grants. Both: the table against the contract (missing columns, type
// drift after NormalizeType, nullability, extra NOT NULL columns the writer
// cannot fill, primary key).
//
// # Kafka topics
//
// TopicSpecs derives the routed topics (route.topic.replacement applied to
// each aggregate type of the spec's events, eventrouter.RoutingTopic), the schema
// history topic of MySQL/MariaDB connectors (1 partition,
// cleanup.policy=delete, retention.ms=-1) and the heartbeat topic of
// connectors with heartbeats (1 partition), and the dead-letter topic of each
// consumer in the spec's consumers section (its partitions, default the
// broker's; a consumer refuses to start without it). EnsureTopics creates
// the missing ones through any TopicAdmin (kafkaadmin.New of a
// *kafka.AdminClient), validating only for a dry run; an existing topic
// with another partition count or a history topic with finite retention is
// a finding, not an error.
//
// # Health
//
// Health runs, per target, the database preflight, the Kafka Connect status
// of its connector (ConnectorHealth, plain net/http) and the topic checks,
// and returns one Report. DatabasePreflight is the database part as doctor
// runs it (Inspect, Check, InspectTableStats, CheckThresholds over an admin
// session). outboxctl doctor prints the Report (RenderReportText, or its
// JSON) and exits 3 when it failed; provision prints its Result with
// RenderText. Both renderers live in render.go, beside RenderTopicResults.
//
// # cgo
//
// The package builds with CGO_ENABLED=0: TopicAdmin and LagAdmin are
// declared with its own types (NewTopic, CreateResult, TopicPartition,
// PartitionOffset), so what imports provisioning for its SQL checks (the
// exporter: SlotFacts, InspectTableStats, ReadBinlogFacts, beside
// ConsumerLag) needs no cgo either. The one implementation over
// confluent-kafka-go, which binds librdkafka, is the subpackage kafkaadmin
// (kafkaadmin.New of a *kafka.AdminClient); it alone needs cgo.
//
// # Deprovision
//
// InspectRemoval lists, per target, every object provision and deploy made
// (connector, replication slot, publication, the connector's role and the
// publication's owner group, the topics of TopicSpecs and their registry
// subjects, TopicSubjects) as an Item with a status: present, absent, or
// kept (a superuser or the admin connection's own role, or a role or topic
// one of DeprovisionRequest.Others uses too). Deprovision then
// removes the present ones in that order through ConnectorRemover,
// TopicRemover and SubjectRemover, and stops at the first failure (that
// item failed, the later ones not done; the error wraps ErrDeprovision).
// The outbox table and its rows are kept.
//
// # What it does not do
//
// It does not change server settings (wal_level, binlog format: they need a
// restart and an operator), drop anything but through Deprovision, or
// deploy connectors (see the deploy command).
package provisioning
