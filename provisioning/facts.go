package provisioning

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/spec"
)

// Querier is what Inspect reads the catalog with (*sql.DB, *sql.Conn, *sql.Tx).
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Facts are what Inspect read from the database: the input of the pure
// functions Check and PlanSteps. Nil pointers mean "does not exist".
type Facts struct {
	Kind    string `json:"kind"`
	Version string `json:"version"`
	// DatabaseMissing: the outbox's database does not exist yet (nothing in
	// it was inspected).
	DatabaseMissing bool `json:"databaseMissing,omitempty"`

	// PostgreSQL.
	WalLevel             string       `json:"walLevel,omitempty"`
	MaxReplicationSlots  int          `json:"maxReplicationSlots,omitempty"`
	ReplicationSlotsUsed int          `json:"replicationSlotsUsed,omitempty"`
	MaxWalSenders        int          `json:"maxWalSenders,omitempty"`
	WalSendersUsed       int          `json:"walSendersUsed,omitempty"`
	Slot                 *Slot        `json:"slot,omitempty"`
	Publication          *Publication `json:"publication,omitempty"`

	// MySQL and MariaDB: the global variables that matter (lower-case
	// names, as SHOW GLOBAL VARIABLES gives them).
	Variables map[string]string `json:"variables,omitempty"`
	MariaDB   bool              `json:"mariadb,omitempty"`

	Table *Table `json:"table,omitempty"`
	User  *User  `json:"user,omitempty"`
}

// Slot is a PostgreSQL replication slot.
type Slot struct {
	Name     string `json:"name"`
	Plugin   string `json:"plugin"`
	Database string `json:"database"`
	Active   bool   `json:"active"`
	// WalStatus is reserved, extended, unreserved or lost.
	WalStatus string `json:"walStatus"`
	// RetainedBytes is the WAL the slot holds back (current LSN − restart LSN).
	RetainedBytes int64 `json:"retainedBytes"`
	// ConfirmedFlushLagBytes is current LSN − confirmed_flush_lsn: the WAL
	// the consumer (the connector) has not confirmed yet.
	ConfirmedFlushLagBytes int64 `json:"confirmedFlushLagBytes"`
	// ConfirmedFlushLSN is the slot's confirmed_flush_lsn as PostgreSQL
	// prints it ("" when the slot has none yet): the exporter tells from
	// it when the consumer last confirmed.
	ConfirmedFlushLSN string `json:"confirmedFlushLsn,omitempty"`
	// SafeWalSize is pg_replication_slots.safe_wal_size: the WAL that can
	// still be written before the slot is in danger of being lost
	// (PostgreSQL 13+); nil when max_slot_wal_keep_size is -1 (unlimited)
	// or the slot is already lost.
	SafeWalSize *int64 `json:"safeWalSize,omitempty"`
}

// SlotFacts reads the replication slot name (nil, nil when it does not
// exist). It is the one query for slot facts: doctor (Inspect) and the
// exporter read slots through it. Any role may run it.
func SlotFacts(ctx context.Context, q Querier, name string) (*Slot, error) {
	s := Slot{Name: name}
	var safe sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT COALESCE(plugin, ''), COALESCE(database, ''), active, COALESCE(wal_status, ''),
		COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn), 0)::bigint,
		COALESCE(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0)::bigint,
		COALESCE(confirmed_flush_lsn::text, ''), safe_wal_size
		FROM pg_replication_slots WHERE slot_name = $1`, name).
		Scan(&s.Plugin, &s.Database, &s.Active, &s.WalStatus, &s.RetainedBytes, &s.ConfirmedFlushLagBytes,
			&s.ConfirmedFlushLSN, &safe)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("replication slot %s: %w", name, err)
	}
	if safe.Valid {
		s.SafeWalSize = &safe.Int64
	}
	return &s, nil
}

// Publication is a PostgreSQL publication.
type Publication struct {
	Name      string `json:"name"`
	AllTables bool   `json:"allTables"`
	// Tables are schema.table, unquoted.
	Tables                           []string `json:"tables"`
	Insert, Update, Delete, Truncate bool
	Owner                            string `json:"owner"`
}

// Covers reports whether p publishes the table qt (schema.table,
// unquoted, as pg_publication_tables names it): it is FOR ALL TABLES or
// lists qt.
func (p *Publication) Covers(qt string) bool {
	if p.AllTables {
		return true
	}
	for _, tb := range p.Tables {
		if tb == qt {
			return true
		}
	}
	return false
}

// PublicationFacts reads the publication name and its tables (nil, nil
// when it does not exist), through a connection to the publication's
// database. It is the one query for publication facts: doctor (Inspect)
// and cleanup read publications through it.
func PublicationFacts(ctx context.Context, q Querier, name string) (*Publication, error) {
	p := Publication{Name: name}
	err := q.QueryRowContext(ctx, `SELECT puballtables, pubinsert, pubupdate, pubdelete, pubtruncate, pg_get_userbyid(pubowner)
		FROM pg_publication WHERE pubname = $1`, name).
		Scan(&p.AllTables, &p.Insert, &p.Update, &p.Delete, &p.Truncate, &p.Owner)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("publication %s: %w", name, err)
	}
	if p.AllTables {
		return &p, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT schemaname || '.' || tablename FROM pg_publication_tables WHERE pubname = $1 ORDER BY 1`, name)
	if err != nil {
		return nil, fmt.Errorf("publication %s tables: %w", name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		p.Tables = append(p.Tables, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Table is the actual outbox table.
type Table struct {
	Columns []Column `json:"columns"`
	// ReplicaIdentity (PostgreSQL): d (default), n (nothing), f (full), i (index).
	ReplicaIdentity string `json:"replicaIdentity,omitempty"`
	HasPrimaryKey   bool   `json:"hasPrimaryKey"`
	Owner           string `json:"owner,omitempty"`
	// NotifyChannel (PostgreSQL, relay.notify in the spec) is the channel
	// the table's relay NOTIFY trigger notifies; "" when there is no such
	// trigger (or its function is not the provisioned one).
	NotifyChannel string `json:"notifyChannel,omitempty"`
}

// Column is an actual column.
type Column struct {
	Name string `json:"name"`
	// Type as the catalog renders it (format_type, COLUMN_TYPE).
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	// HasDefault: the column has a default value (or, on MySQL and
	// MariaDB, is AUTO_INCREMENT).
	HasDefault bool `json:"hasDefault"`
}

// User is the connector's database user.
type User struct {
	Name string `json:"name"`
	// PostgreSQL role attributes.
	Superuser   bool `json:"superuser,omitempty"`
	Login       bool `json:"login,omitempty"`
	Replication bool `json:"replication,omitempty"`
	// CanSelect: SELECT on the outbox table.
	CanSelect bool `json:"canSelect"`
	// OwnsTable / OwnsPublication: the role is (a member of) the owner, as
	// publication.autocreate.mode=filtered needs to ALTER the publication.
	OwnsTable       bool `json:"ownsTable,omitempty"`
	OwnsPublication bool `json:"ownsPublication,omitempty"`
	// MySQL and MariaDB: the account's host and its global and database
	// privileges (upper case).
	Host       string   `json:"host,omitempty"`
	Global     []string `json:"global,omitempty"`
	OnDatabase []string `json:"onDatabase,omitempty"`
}

// Inspect reads the facts about t's database that the checks and the plan
// need, through an administrative connection q. For PostgreSQL q must be
// connected to the outbox's database (or set databaseMissing when it does
// not exist yet: only server-wide facts are read then). Errors wrap
// ErrInspect.
func Inspect(ctx context.Context, q Querier, t Target, databaseMissing bool) (*Facts, error) {
	var f *Facts
	var err error
	if t.Outbox.Database.Kind == spec.Postgres {
		f, err = inspectPostgres(ctx, q, t, databaseMissing)
	} else {
		f, err = inspectBinlog(ctx, q, t, databaseMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: outbox %s: %w", ErrInspect, t.Outbox.Name, err)
	}
	f.DatabaseMissing = databaseMissing
	return f, nil
}

func pgQualified(o *spec.Outbox) string { return outboxddl.QualifiedTable(o) }

func inspectPostgres(ctx context.Context, q Querier, t Target, dbMissing bool) (*Facts, error) {
	f := &Facts{Kind: spec.Postgres}
	err := q.QueryRowContext(ctx, `SELECT current_setting('server_version'), current_setting('wal_level'),
		current_setting('max_replication_slots')::int, (SELECT count(*) FROM pg_replication_slots)::int,
		current_setting('max_wal_senders')::int, (SELECT count(*) FROM pg_stat_replication)::int`).
		Scan(&f.Version, &f.WalLevel, &f.MaxReplicationSlots, &f.ReplicationSlotsUsed, &f.MaxWalSenders, &f.WalSendersUsed)
	if err != nil {
		return nil, fmt.Errorf("server settings: %w", err)
	}
	if slot := t.Config("slot.name"); slot != "" {
		s, err := SlotFacts(ctx, q, slot)
		if err != nil {
			return nil, err
		}
		f.Slot = s
	}
	user := t.Outbox.Database.Connection.User
	if user != "" {
		u := User{Name: user}
		err := q.QueryRowContext(ctx, `SELECT rolsuper, rolcanlogin, rolreplication FROM pg_roles WHERE rolname = $1`, user).
			Scan(&u.Superuser, &u.Login, &u.Replication)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("role %s: %w", user, err)
		default:
			f.User = &u
		}
	}
	if dbMissing {
		return f, nil
	}
	if pub := t.Config("publication.name"); pub != "" {
		p, err := PublicationFacts(ctx, q, pub)
		if err != nil {
			return nil, err
		}
		f.Publication = p
	}
	qt := pgQualified(t.Outbox)
	var tb Table
	err = q.QueryRowContext(ctx, `SELECT c.relreplident::text, pg_get_userbyid(c.relowner),
		EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)
		FROM pg_class c WHERE c.oid = to_regclass($1)`, qt).Scan(&tb.ReplicaIdentity, &tb.Owner, &tb.HasPrimaryKey)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return f, nil
	case err != nil:
		return nil, fmt.Errorf("table %s: %w", qt, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, a.atthasdef
		FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, qt)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", qt, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Column
		if err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &c.HasDefault); err != nil {
			return nil, err
		}
		tb.Columns = append(tb.Columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if o := t.Outbox; o.Relay != nil && o.Relay.Notify != "" {
		var src string
		err := q.QueryRowContext(ctx, `SELECT p.prosrc FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid
			WHERE tg.tgrelid = to_regclass($1) AND tg.tgname = $2 AND NOT tg.tgisinternal`, qt, outboxddl.NotifyTrigger(o)).Scan(&src)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("notify trigger of %s: %w", qt, err)
		default:
			if m := notifyCall.FindStringSubmatch(src); m != nil {
				tb.NotifyChannel = m[1]
			}
		}
	}
	f.Table = &tb
	if f.User != nil {
		u := f.User
		if err := q.QueryRowContext(ctx, `SELECT has_table_privilege($1, to_regclass($2), 'SELECT'), pg_has_role($1, $3, 'USAGE')`, u.Name, qt, tb.Owner).
			Scan(&u.CanSelect, &u.OwnsTable); err != nil {
			return nil, fmt.Errorf("privileges of %s: %w", u.Name, err)
		}
		if f.Publication != nil {
			if err := q.QueryRowContext(ctx, `SELECT pg_has_role($1, $2, 'USAGE')`, u.Name, f.Publication.Owner).Scan(&u.OwnsPublication); err != nil {
				return nil, fmt.Errorf("privileges of %s: %w", u.Name, err)
			}
		}
	}
	return f, nil
}

// notifyCall finds the channel in the body of NotifyDDL's function.
var notifyCall = regexp.MustCompile(`pg_notify\('([^']*)'`)

// binlogVariables are the global variables the binlog checks read.
var binlogVariables = []string{
	"log_bin", "binlog_format", "binlog_row_image", "server_id", "gtid_mode", "enforce_gtid_consistency",
	"binlog_expire_logs_seconds", "expire_logs_days", "binlog_row_value_options", "log_bin_compress", "gtid_strict_mode",
}

func inspectBinlog(ctx context.Context, q Querier, t Target, dbMissing bool) (*Facts, error) {
	f := &Facts{Kind: t.Outbox.Database.Kind, Variables: map[string]string{}}
	if err := q.QueryRowContext(ctx, `SELECT VERSION()`).Scan(&f.Version); err != nil {
		return nil, fmt.Errorf("version: %w", err)
	}
	f.MariaDB = strings.Contains(strings.ToLower(f.Version), "mariadb")
	in := "'" + strings.Join(binlogVariables, "', '") + "'"
	rows, err := q.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+in+")")
	if err != nil {
		return nil, fmt.Errorf("global variables: %w", err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, err
		}
		f.Variables[strings.ToLower(k)] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	o := t.Outbox
	if !dbMissing {
		rows, err := q.QueryContext(ctx, `SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES', COLUMN_DEFAULT IS NOT NULL OR EXTRA LIKE '%auto_increment%'
			FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, o.Schema, o.Table)
		if err != nil {
			return nil, fmt.Errorf("columns of %s: %w", o.QualifiedTable(), err)
		}
		var tb Table
		for rows.Next() {
			var c Column
			if err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &c.HasDefault); err != nil {
				rows.Close()
				return nil, err
			}
			tb.Columns = append(tb.Columns, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(tb.Columns) > 0 {
			var n int
			if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS
				WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_TYPE = 'PRIMARY KEY'`, o.Schema, o.Table).Scan(&n); err != nil {
				return nil, fmt.Errorf("primary key of %s: %w", o.QualifiedTable(), err)
			}
			tb.HasPrimaryKey = n > 0
			f.Table = &tb
		}
	}
	user := o.Database.Connection.User
	if user == "" {
		return f, nil
	}
	hrows, err := q.QueryContext(ctx, `SELECT Host FROM mysql.user WHERE User = ?`, user)
	if err != nil {
		return nil, fmt.Errorf("accounts of %s: %w", user, err)
	}
	var hosts []string
	for hrows.Next() {
		var h string
		if err := hrows.Scan(&h); err != nil {
			hrows.Close()
			return nil, err
		}
		hosts = append(hosts, h)
	}
	hrows.Close()
	if err := hrows.Err(); err != nil {
		return nil, err
	}
	host := pickHost(hosts)
	if host == "" {
		return f, nil
	}
	u := &User{Name: user, Host: host}
	grows, err := q.QueryContext(ctx, "SHOW GRANTS FOR "+mysqlAccount(user, host))
	if err != nil {
		return nil, fmt.Errorf("grants of %s: %w", mysqlAccount(user, host), err)
	}
	defer grows.Close()
	for grows.Next() {
		var g string
		if err := grows.Scan(&g); err != nil {
			return nil, err
		}
		privs, on, ok := parseGrant(g)
		if !ok {
			continue
		}
		switch strings.ReplaceAll(on, "`", "") {
		case "*.*":
			u.Global = append(u.Global, privs...)
		case o.Schema + ".*":
			u.OnDatabase = append(u.OnDatabase, privs...)
		}
	}
	if err := grows.Err(); err != nil {
		return nil, err
	}
	u.CanSelect = hasPriv(u.Global, "SELECT") || hasPriv(u.OnDatabase, "SELECT")
	f.User = u
	return f, nil
}

// pickHost chooses the account a connector's user name stands for: '%'
// first (any host), then localhost, then the first one.
func pickHost(hosts []string) string {
	for _, want := range []string{"%", "localhost", "127.0.0.1"} {
		for _, h := range hosts {
			if h == want {
				return h
			}
		}
	}
	if len(hosts) > 0 {
		return hosts[0]
	}
	return ""
}

var grantRe = regexp.MustCompile(`(?i)^GRANT (.+?) ON (\S+) TO `)

// parseGrant splits a SHOW GRANTS line into its privileges (upper case) and
// its ON clause.
func parseGrant(line string) (privs []string, on string, ok bool) {
	m := grantRe.FindStringSubmatch(line)
	if m == nil {
		return nil, "", false
	}
	for _, p := range strings.Split(m[1], ",") {
		p = strings.ToUpper(strings.TrimSpace(p))
		if i := strings.Index(p, "("); i > 0 { // column privileges
			p = strings.TrimSpace(p[:i])
		}
		privs = append(privs, p)
	}
	return privs, m[2], true
}

// privAliases are privilege names that MySQL and MariaDB versions spell
// differently for the same right.
var privAliases = map[string][]string{
	"REPLICATION SLAVE":  {"REPLICATION REPLICA"},
	"REPLICATION CLIENT": {"BINLOG MONITOR"},
	"BINLOG MONITOR":     {"REPLICATION CLIENT"},
}

func hasPriv(have []string, want string) bool {
	for _, h := range have {
		if h == want || h == "ALL PRIVILEGES" || h == "ALL" {
			return true
		}
		for _, a := range privAliases[want] {
			if h == a {
				return true
			}
		}
	}
	return false
}

func mysqlString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}

func mysqlAccount(user, host string) string { return mysqlString(user) + "@" + mysqlString(host) }

func atoi64(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}
