// Package e2e holds the end-to-end tests of the real pipeline (build tag
// "integration"): a database transaction writes an outbox row, Debezium reads
// it from the WAL or binlog, the Outbox EventRouter routes it, and a Kafka
// consumer sees it; plus the Schema Registry round trip. Run them with
// `make test`, which brings the native stack up first.
package e2e
