// Package connectorconfig turns an outbox spec into Debezium connector
// configurations (PostgreSQL, MySQL, MariaDB) with the Outbox EventRouter,
// validates them with Debezium-aware rules, and previews the records the
// EventRouter emits.
package connectorconfig
