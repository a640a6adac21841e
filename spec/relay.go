package spec

import (
	"fmt"
	"regexp"
	"time"
)

// RelaySpec is the polling relay as an outbox's publisher. The relay
// publishes the records the connector config generated for the outbox
// would produce; the connector itself is not deployed.
type RelaySpec struct {
	Node `yaml:"-"`
	// OrderColumn is the column rows are published in the order of; the
	// per-aggregate order is then the user's to guarantee. Default: the
	// database-assigned order (RelayTxColumn, RelaySeqColumn), which depends
	// on no client clock.
	OrderColumn string `yaml:"orderColumn" json:"orderColumn,omitempty"`
	// PollInterval is the time between polls ("1s" default, "100ms").
	PollInterval string `yaml:"pollInterval" json:"pollInterval,omitempty"`
	// Batch is the number of rows per poll (default 100).
	Batch int `yaml:"batch" json:"batch,omitempty"`
	// Notify (postgres) is a NOTIFY channel: provisioning adds a trigger to
	// the outbox table that notifies it on insert, and the relay LISTENs on
	// it to wake up before the poll interval.
	Notify string `yaml:"notify" json:"notify,omitempty"`
	// BooleanColumns (mysql, mariadb) are BOOLEAN (tinyint(1)) columns of
	// the outbox table that the connector delivers as booleans because it
	// learnt the table from a CREATE TABLE in the binlog (the table was
	// created after the connector started); the relay reads the catalog's
	// tinyint(1) and publishes them as booleans too
	// (relay.Options.BooleanColumns).
	BooleanColumns []string `yaml:"booleanColumns" json:"booleanColumns,omitempty"`
	// JSONColumns (mariadb) are JSON (LONGTEXT) columns of the outbox table
	// that the connector delivers as io.debezium.data.Json because it
	// learnt the table from a CREATE TABLE in the binlog; the relay reads
	// the catalog's longtext and publishes them with the Json schema name
	// too (relay.Options.JSONColumns).
	JSONColumns []string `yaml:"jsonColumns" json:"jsonColumns,omitempty"`
}

// The database-assigned publish order of an outbox table (see
// docs/relay.md, "Order"): provisioning adds these columns to every outbox
// table, and the relay publishes in their order by default.
//
//   - PostgreSQL: RelayTxColumn bigint NOT NULL DEFAULT txid_current() (the
//     inserting transaction's id) and RelaySeqColumn bigserial (insert order
//     within the transaction); the relay reads only rows whose transaction
//     id is below the oldest transaction still open, ordered by (tx, seq).
//   - MySQL, MariaDB: RelaySeqColumn BIGINT NOT NULL AUTO_INCREMENT (with an
//     index), allocated at insert.
//
// The Debezium EventRouter ignores them (they are in no placement).
const (
	RelayTxColumn  = "relay_tx"
	RelaySeqColumn = "relay_seq"
)

// RelayPublished reports whether the polling relay publishes the outbox
// (then no connector is deployed for it).
func (o *Outbox) RelayPublished() bool { return o.Relay != nil }

var channelRe = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// checkRelay checks the relay block of o against its column contract.
func checkRelay(o *Outbox, errs *ErrorList) {
	r := o.Relay
	if r == nil {
		return
	}
	if o.DeletesAfterInsert() {
		errs.add(o.Writer.PosOf("deleteAfterInsert"), fmt.Sprintf("outbox %q: writer.deleteAfterInsert cannot go with relay: the polling relay never sees a row deleted in its own transaction (publish this outbox with the connector, or turn deleteAfterInsert off)", o.Name))
	}
	if r.OrderColumn != "" {
		found := false
		for _, c := range o.ColumnContract() {
			found = found || (c.Name == r.OrderColumn && !c.Nullable)
		}
		if !found {
			errs.add(r.PosOf("orderColumn"), fmt.Sprintf("outbox %q: relay.orderColumn %q: want a NOT NULL column of the outbox table (the id or timestamp column)", o.Name, r.OrderColumn))
		}
	}
	if r.PollInterval != "" {
		if d, err := time.ParseDuration(r.PollInterval); err != nil || d <= 0 {
			errs.add(r.PosOf("pollInterval"), fmt.Sprintf("outbox %q: relay.pollInterval %q: want a positive duration such as 100ms or 1s", o.Name, r.PollInterval))
		}
	}
	if r.Batch < 0 {
		errs.add(r.PosOf("batch"), fmt.Sprintf("outbox %q: relay.batch %d: want a positive number of rows", o.Name, r.Batch))
	}
	if len(r.BooleanColumns) > 0 {
		if o.Database.Kind == Postgres {
			errs.add(r.PosOf("booleanColumns"), fmt.Sprintf("outbox %q: relay.booleanColumns is for a mysql or mariadb outbox (postgres has a boolean type)", o.Name))
		}
		checkRelayColumns(o, "booleanColumns", r.BooleanColumns, errs)
	}
	if len(r.JSONColumns) > 0 {
		if o.Database.Kind != MariaDB {
			errs.add(r.PosOf("jsonColumns"), fmt.Sprintf("outbox %q: relay.jsonColumns is for a mariadb outbox (postgres and mysql have a JSON type)", o.Name))
		}
		checkRelayColumns(o, "jsonColumns", r.JSONColumns, errs)
	}
	if r.Notify != "" {
		if o.Database.Kind != Postgres {
			errs.add(r.PosOf("notify"), fmt.Sprintf("outbox %q: relay.notify needs a postgres outbox (LISTEN/NOTIFY)", o.Name))
		} else if !channelRe.MatchString(r.Notify) {
			errs.add(r.PosOf("notify"), fmt.Sprintf("outbox %q: relay.notify %q: want a lower-case identifier", o.Name, r.Notify))
		}
	}
}

// checkRelayColumns reports each of names (relay.<key>) that is not a
// column of the outbox table.
func checkRelayColumns(o *Outbox, key string, names []string, errs *ErrorList) {
	for _, n := range names {
		found := false
		for _, c := range o.ColumnContract() {
			found = found || c.Name == n
		}
		if !found {
			errs.add(o.Relay.PosOf(key), fmt.Sprintf("outbox %q: relay.%s %q: not a column of the outbox table", o.Name, key, n))
		}
	}
}
