// Package outboxddl renders the SQL that creates an outbox table, its NOTIFY
// trigger and its partitions, exactly as `outboxctl provision` runs it. It
// imports no Kafka client, so test helpers (outbox/outboxtest,
// internal/itest) create tables with it without pulling in librdkafka;
// package provisioning plans and runs these statements.
package outboxddl

import (
	"fmt"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/spec"
)

// QualifiedTable is the quoted schema.table (PostgreSQL) or database.table
// (MySQL, MariaDB) of an outbox.
func QualifiedTable(o *spec.Outbox) string {
	q := func(s string) string { return sqlident.Quote(o.Database.Kind, s) }
	if o.Schema == "" {
		return q(o.Table)
	}
	return q(o.Schema) + "." + q(o.Table)
}

// indexName is the name of the timestamp index of an outbox table (at most
// 63 characters, PostgreSQL's identifier limit; MySQL allows 64).
func indexName(o *spec.Outbox) string {
	n := o.Table + "_" + o.Columns.Timestamp + "_idx"
	if len(n) > 63 {
		n = n[len(n)-63:]
	}
	return n
}

// Table returns the statements that create the outbox table of o, in
// exactly the column contract (spec.Outbox.ColumnContract), idempotently:
//
//   - CREATE TABLE IF NOT EXISTS with the contract's columns and types, in
//     contract order, NOT NULL except the payload and tracing columns, and
//     the id column as primary key (REPLICA IDENTITY DEFAULT is then enough
//     on PostgreSQL);
//   - with a timestamp column: a default of the current UTC time (PostgreSQL)
//     or CURRENT_TIMESTAMP(6) (MySQL, MariaDB: the session time zone), and an
//     index on it, for `outboxctl cleanup`, which deletes published rows by age;
//   - MySQL and MariaDB: InnoDB, utf8mb4;
//   - the database-assigned publish order of the polling relay, after the
//     contract's columns (OrderColumns): on PostgreSQL relay_tx (the
//     inserting transaction's id) and relay_seq (a bigserial), with an index
//     on both; on MySQL and MariaDB relay_seq, AUTO_INCREMENT, with an index.
//     The EventRouter ignores them, so they are there for every outbox: a
//     cutover from CDC to the relay needs no ALTER TABLE.
//
// No other index: Debezium reads the WAL/binlog, never the table, and the
// writer only inserts. With relay.notify, the NOTIFY trigger follows
// (Notify).
func Table(o *spec.Outbox) []string {
	return append(CreateTable(o), Notify(o, "")...)
}

// CreateTable is Table without the NOTIFY trigger.
func CreateTable(o *spec.Outbox) []string {
	kind := o.Database.Kind
	q := func(s string) string { return sqlident.Quote(kind, s) }
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", QualifiedTable(o))
	var idCol string
	for _, c := range o.ColumnContract() {
		fmt.Fprintf(&b, "  %s %s", q(c.Name), c.SQLType)
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
		if c.Role == spec.RoleTimestamp {
			if kind == spec.Postgres {
				b.WriteString(" DEFAULT (now() AT TIME ZONE 'UTC')")
			} else {
				b.WriteString(" DEFAULT CURRENT_TIMESTAMP(6)")
			}
		}
		if c.Role == spec.RoleID {
			idCol = c.Name
		}
		b.WriteString(",\n")
	}
	for _, c := range OrderColumns(kind) {
		fmt.Fprintf(&b, "  %s,\n", c)
	}
	if kind != spec.Postgres && o.Columns.Timestamp != "" {
		fmt.Fprintf(&b, "  KEY %s (%s),\n", q(indexName(o)), q(o.Columns.Timestamp))
	}
	if kind != spec.Postgres {
		fmt.Fprintf(&b, "  KEY %s (%s),\n", q(orderIndexName(o)), q(spec.RelaySeqColumn))
	}
	if o.Partitioned() {
		// A partitioned table's primary key must hold the partition key.
		fmt.Fprintf(&b, "  PRIMARY KEY (%s, %s)\n) PARTITION BY RANGE (%s)", q(idCol), q(o.Columns.Timestamp), q(o.Columns.Timestamp))
	} else {
		fmt.Fprintf(&b, "  PRIMARY KEY (%s)\n)", q(idCol))
	}
	if kind != spec.Postgres {
		b.WriteString(" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
	}
	stmts := []string{b.String()}
	if kind == spec.Postgres && o.Columns.Timestamp != "" {
		stmts = append(stmts, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", q(indexName(o)), QualifiedTable(o), q(o.Columns.Timestamp)))
	}
	if kind == spec.Postgres {
		stmts = append(stmts, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s, %s)", q(orderIndexName(o)), QualifiedTable(o), q(spec.RelayTxColumn), q(spec.RelaySeqColumn)))
	}
	return stmts
}

// OrderColumns are the column definitions of the relay's database-assigned
// publish order (spec.RelayTxColumn, spec.RelaySeqColumn) for a database
// kind, as CREATE TABLE and ALTER TABLE … ADD COLUMN take them.
func OrderColumns(kind string) []string {
	q := func(s string) string { return sqlident.Quote(kind, s) }
	if kind == spec.Postgres {
		return []string{
			q(spec.RelayTxColumn) + " bigint NOT NULL DEFAULT txid_current()",
			q(spec.RelaySeqColumn) + " bigserial NOT NULL",
		}
	}
	return []string{q(spec.RelaySeqColumn) + " bigint NOT NULL AUTO_INCREMENT"}
}

// orderIndexName is the name of the index on the relay's order columns.
func orderIndexName(o *spec.Outbox) string {
	n := o.Table + "_relay_order_idx"
	if len(n) > 63 {
		n = n[len(n)-63:]
	}
	return n
}

// PartitionName is the name of o's partition that starts at start (UTC):
// <table>_pYYYYMMDD for day partitions, <table>_pYYYYMMDDHH for hours.
func PartitionName(o *spec.Outbox, start time.Time) string {
	layout := "20060102"
	if o.Partitioning.Interval == spec.PartitionHour {
		layout = "2006010215"
	}
	n := o.Table + "_p" + start.UTC().Format(layout)
	if len(n) > 63 {
		n = n[len(n)-63:]
	}
	return n
}

// Partitions returns the statements that create the partitions of a
// partitioned outbox around now: the previous interval (rows of
// transactions that began before the boundary), the current one and
// partitioning.ahead more, idempotently. The bounds are UTC wall-clock
// times, as the writer stores the timestamp column. Nil for an outbox
// that is not partitioned.
func Partitions(o *spec.Outbox, now time.Time) []string {
	if !o.Partitioned() {
		return nil
	}
	step := o.Partitioning.PartitionInterval()
	cur := now.UTC().Truncate(step)
	q := func(s string) string { return sqlident.Quote(o.Database.Kind, s) }
	var out []string
	for i := -1; i <= o.Partitioning.PartitionsAhead(); i++ {
		from := cur.Add(time.Duration(i) * step)
		to := from.Add(step)
		name := q(PartitionName(o, from))
		if o.Schema != "" {
			name = q(o.Schema) + "." + name
		}
		out = append(out, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES FROM ('%s') TO ('%s')",
			name, QualifiedTable(o), from.Format("2006-01-02 15:04:05"), to.Format("2006-01-02 15:04:05")))
	}
	return out
}

// Notify returns the statements of the relay's wake-up (postgres, with
// relay.notify in the spec): a trigger function that NOTIFYs the channel
// and a statement-level AFTER INSERT trigger on the outbox table. NOTIFY is
// delivered at commit, when the rows are visible to the relay. Nil when the
// spec asks for none. The statements replace an existing function and
// trigger: with serverVersion (server_version) below 14, which lacks CREATE
// OR REPLACE TRIGGER, the trigger is dropped if it exists and created again;
// "" means 14 or later.
func Notify(o *spec.Outbox, serverVersion string) []string {
	if o.Relay == nil || o.Relay.Notify == "" || o.Database.Kind != spec.Postgres {
		return nil
	}
	q := func(s string) string { return sqlident.Quote(o.Database.Kind, s) }
	name := NotifyTrigger(o)
	fn := q(name)
	if o.Schema != "" {
		fn = q(o.Schema) + "." + fn
	}
	stmts := []string{fmt.Sprintf("CREATE OR REPLACE FUNCTION %s() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('%s', ''); RETURN NULL; END $$", fn, o.Relay.Notify)}
	create := fmt.Sprintf("TRIGGER %s AFTER INSERT ON %s FOR EACH STATEMENT EXECUTE FUNCTION %s()", q(name), QualifiedTable(o), fn)
	if m := pgMajor(serverVersion); m > 0 && m < 14 {
		return append(stmts, fmt.Sprintf("DROP TRIGGER IF EXISTS %s ON %s", q(name), QualifiedTable(o)), "CREATE "+create)
	}
	return append(stmts, "CREATE OR REPLACE "+create)
}

// NotifyTrigger is the name of the NOTIFY trigger and of its function.
func NotifyTrigger(o *spec.Outbox) string {
	name := o.Table + "_relay_notify"
	if len(name) > 63 {
		name = name[len(name)-63:]
	}
	return name
}

// pgMajor is the major version of a PostgreSQL server_version ("15.8",
// "13.4 (Debian …)", "16beta1"); 0 when it does not start with one.
func pgMajor(v string) int {
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
