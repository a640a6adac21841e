package provisioning

import findingsmodel "github.com/outboxctl/outboxctl/findings"

// Rules is the registry of the rule IDs of doctor's and provision's
// findings: for each its severity (the most severe a finding of it can
// have), what it checks and how a finding is fixed. A finding's own Hint is
// the precise statement for the object found; Hint here is the general fix.
// TestRulesRegistry keeps it and the IDs the code reports in step.
var Rules = findingsmodel.Rules{
	// Server settings and slots (PostgreSQL).
	{ID: IDPGWalLevel, Severity: SeverityError, Purpose: "wal_level is not logical: Debezium cannot decode the WAL", Hint: "ALTER SYSTEM SET wal_level = logical; restart PostgreSQL (RDS: rds.logical_replication=1)"},
	{ID: IDPGSlotsExhausted, Severity: SeverityError, Purpose: "max_replication_slots leaves no slot free for the connector", Hint: "raise max_replication_slots (restart needed) or drop unused slots"},
	{ID: IDPGWalSenders, Severity: SeverityError, Purpose: "max_wal_senders leaves no WAL sender free for the connector", Hint: "raise max_wal_senders (restart needed)"},
	{ID: IDPGSlotInactive, Severity: SeverityWarning, Purpose: "the connector's slot exists but nothing reads it: it retains WAL", Hint: "start the connector, or drop the slot if it is abandoned; consider max_slot_wal_keep_size"},
	{ID: IDPGSlotActive, Severity: SeverityInfo, Purpose: "the connector's slot exists and is read (a note: the connector streams)"},
	{ID: IDPGSlotLost, Severity: SeverityError, Purpose: "the slot's WAL was removed (wal_status lost): events written meanwhile are gone", Hint: "drop the slot and let the connector re-create it"},
	{ID: IDPGSlotMismatch, Severity: SeverityError, Purpose: "the slot name is taken by another plugin, database or connector", Hint: "set connector.slotName to a name unique in the cluster, or drop the stale slot"},
	{ID: IDPGSlotRetainedWAL, Severity: SeverityError, Purpose: "a slot retains more WAL than --max-retained-wal", Hint: "start or fix the connector; drop the slot if it is abandoned; set max_slot_wal_keep_size"},
	{ID: IDPGPublicationAbsent, Severity: SeverityError, Purpose: "the connector's publication does not exist", Hint: "outboxctl provision --database"},
	{ID: IDPGPublicationAll, Severity: SeverityError, Purpose: "the publication is FOR ALL TABLES: every table's changes are decoded", Hint: "drop the publication, then outboxctl provision --database"},
	{ID: IDPGPublicationTable, Severity: SeverityError, Purpose: "the publication does not include the outbox table: nothing is published", Hint: "ALTER PUBLICATION … ADD TABLE <outbox table>"},
	{ID: IDPGPublicationExtra, Severity: SeverityInfo, Purpose: "the publication includes tables besides the outbox table"},
	{ID: IDPGPublicationInsert, Severity: SeverityError, Purpose: "the publication does not publish inserts", Hint: "ALTER PUBLICATION … SET (publish = 'insert')"},
	{ID: IDPGReplicaIdentity, Severity: SeverityWarning, Purpose: "replica identity without a primary key: deleting published rows (cleanup) fails while the publication publishes deletes", Hint: "ALTER TABLE … ADD PRIMARY KEY (id), or create the publication with publish = 'insert'"},
	{ID: IDPGAutocreate, Severity: SeverityInfo, Purpose: "Debezium would create the publication itself (publication.autocreate.mode)", Hint: "connector.overrides: {publication.autocreate.mode: disabled}"},

	// Server settings (MySQL, MariaDB).
	{ID: IDBinlogOff, Severity: SeverityError, Purpose: "the binlog is off: Debezium has nothing to read", Hint: "start the server with log-bin (RDS: enable automated backups)"},
	{ID: IDBinlogFormat, Severity: SeverityError, Purpose: "binlog_format is not ROW", Hint: "SET GLOBAL binlog_format = 'ROW' (and in the server config)"},
	{ID: IDBinlogRowImage, Severity: SeverityError, Purpose: "binlog_row_image is not FULL: rows arrive without all columns", Hint: "SET GLOBAL binlog_row_image = 'FULL' (and in the server config)"},
	{ID: IDBinlogServerID, Severity: SeverityError, Purpose: "the server has no server-id", Hint: "set server-id to a unique non-zero value in the server config"},
	{ID: IDBinlogServerClash, Severity: SeverityError, Purpose: "connector.serverId is used by the server or a replica", Hint: "set connector.serverId to an id no server or replica uses"},
	{ID: IDBinlogGTID, Severity: SeverityInfo, Purpose: "GTIDs are off: they are recommended for failover", Hint: "gtid_mode=ON and enforce_gtid_consistency=ON"},
	{ID: IDBinlogRetention, Severity: SeverityWarning, Purpose: "the binlog is kept shorter than the minimum retention: a stopped connector loses its position", Hint: "SET GLOBAL binlog_expire_logs_seconds = <at least the minimum>"},
	{ID: IDBinlogPartialJSON, Severity: SeverityError, Purpose: "binlog_row_value_options=PARTIAL_JSON: JSON payloads arrive as diffs", Hint: "SET GLOBAL binlog_row_value_options = ''"},
	{ID: IDBinlogCompress, Severity: SeverityError, Purpose: "compressed binlog events (log_bin_compress): Debezium does not support them", Hint: "SET GLOBAL log_bin_compress = OFF"},

	// The database, the outbox table and the relay's needs.
	{ID: IDDatabaseMissing, Severity: SeverityError, Purpose: "the spec's database does not exist", Hint: "outboxctl provision --database"},
	{ID: IDTableMissing, Severity: SeverityError, Purpose: "the outbox table does not exist", Hint: "outboxctl provision --database"},
	{ID: IDTableColumnMissing, Severity: SeverityError, Purpose: "a column of the spec's contract is missing from the outbox table", Hint: "ALTER TABLE … ADD COLUMN …"},
	{ID: IDTableColumnType, Severity: SeverityError, Purpose: "a column's type differs from the contract (an error when the EventRouter would mangle it)", Hint: "ALTER TABLE … ALTER COLUMN … TYPE …, or change the spec's columns"},
	{ID: IDTableColumnNull, Severity: SeverityWarning, Purpose: "a column's nullability differs from the contract", Hint: "ALTER TABLE … ALTER COLUMN … DROP NOT NULL"},
	{ID: IDTableExtraColumn, Severity: SeverityError, Purpose: "a column outside the contract is NOT NULL without a default: the writer's INSERTs fail", Hint: "give it a default, make it nullable or drop it"},
	{ID: IDTableNoPrimaryKey, Severity: SeverityWarning, Purpose: "the outbox table has no primary key", Hint: "add a primary key on the id column"},
	{ID: IDRelayNoPrimaryKey, Severity: SeverityError, Purpose: "the relay deletes or marks published rows by primary key, and the table has none", Hint: "ALTER TABLE … ADD PRIMARY KEY (…)"},
	{ID: IDRelayOrderColumn, Severity: SeverityError, Purpose: "the relay's order column is missing or nullable", Hint: "add the column NOT NULL (outboxctl provision creates it with the table), or set relay.orderColumn"},
	{ID: IDRelayNotify, Severity: SeverityWarning, Purpose: "the relay listens for notifications and the table has no notify trigger: it falls back to polling", Hint: "outboxctl provision --database"},
	{ID: IDOutboxTable, Severity: SeverityInfo, Purpose: "the outbox table's size, rows and oldest row (a note)"},
	{ID: IDOutboxOldestRow, Severity: SeverityError, Purpose: "the oldest outbox row is older than --max-oldest-row-age (--max-unpublished-row-age for a relay outbox)", Hint: "start or fix what publishes or deletes the rows (connector, relay, cleanup)"},

	// The connector user.
	{ID: IDUserMissing, Severity: SeverityError, Purpose: "the connector user does not exist", Hint: "outboxctl provision --database"},
	{ID: IDUserReplication, Severity: SeverityError, Purpose: "the connector user lacks REPLICATION (PostgreSQL) or the replication grants", Hint: "ALTER ROLE … REPLICATION"},
	{ID: IDUserLogin, Severity: SeverityError, Purpose: "the connector role cannot log in", Hint: "ALTER ROLE … LOGIN"},
	{ID: IDUserSelect, Severity: SeverityError, Purpose: "the connector user cannot SELECT the outbox table (snapshots fail)", Hint: "GRANT SELECT ON <outbox table> TO …"},
	{ID: IDUserOwnership, Severity: SeverityError, Purpose: "publication.autocreate.mode=filtered needs ownership of the publication and the table, and the connector role has neither", Hint: "outboxctl provision --database (a shared owner group), or publication.autocreate.mode=disabled"},
	{ID: IDUserGrants, Severity: SeverityError, Purpose: "the MySQL/MariaDB connector account lacks a privilege Debezium needs", Hint: "outboxctl provision --database"},
	{ID: IDUserPassword, Severity: SeverityWarning, Purpose: "the connector user's password cannot be resolved here: the user is not created", Hint: "set database.connection.password to ${env:NAME} or ${file:PATH}, or create the user yourself"},
	{ID: IDUserSuperuser, Severity: SeverityInfo, Purpose: "the connector user is a superuser", Hint: "provision a dedicated LOGIN REPLICATION role"},

	// Connect and Kafka.
	{ID: IDConnectorNotFound, Severity: SeverityError, Purpose: "the connector is not deployed (or the workers, just restarted, have not read their internal topics yet)", Hint: ConnectorMissingHint},
	{ID: IDConnectorState, Severity: SeverityError, Purpose: "the connector or one of its tasks is not RUNNING", Hint: "outboxctl status / restart"},
	{ID: IDConnectWorkerGone, Severity: SeverityWarning, Purpose: "the status topic says a task RUNNING on a worker that does not answer: the worker died, and Connect moves its tasks only after scheduled.rebalance.max.delay.ms", Hint: RebalanceDelayHint},
	{ID: IDTopicMissing, Severity: SeverityWarning, Purpose: "a topic the outbox needs does not exist", Hint: "outboxctl provision --topics"},
	{ID: IDTopicPartitions, Severity: SeverityError, Purpose: "a topic has other partitions than the spec asks", Hint: "recreate the topic (adding partitions moves aggregates to other partitions)"},
	{ID: IDTopicConfig, Severity: SeverityError, Purpose: "a topic's config breaks its role (schema history retention or cleanup.policy)", Hint: "kafka-configs --alter --add-config …"},
	{ID: IDTopicRouting, Severity: SeverityWarning, Purpose: "the routed topics cannot be derived from the spec (routing by another column, or a topic regex that fails)", Hint: "create the routed topics yourself"},
	{ID: IDConsumerLag, Severity: SeverityError, Purpose: "a consumer group lags more than --max-consumer-lag on a partition", Hint: "scale or fix the consumers of the group"},
}
