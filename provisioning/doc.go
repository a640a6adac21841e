// Package provisioning prepares the infrastructure an outbox needs: the
// outbox table, the PostgreSQL publication and replication user, the MariaDB
// and MySQL binlog preflight checks, and the Kafka topics.
package provisioning
