package provisioning

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/spec"
)

// Finding (rule) IDs. Each is documented in Rules, the registry.
const (
	IDTableMissing       = "TABLE_MISSING"
	IDTableColumnMissing = "TABLE_COLUMN_MISSING"
	IDTableColumnType    = "TABLE_COLUMN_TYPE"
	IDTableColumnNull    = "TABLE_COLUMN_NULLABILITY"
	IDTableExtraColumn   = "TABLE_EXTRA_COLUMN"
	IDTableNoPrimaryKey  = "TABLE_NO_PRIMARY_KEY"
	// The polling relay (spec relay:) deletes or marks published rows by
	// the primary key and reads them in the order column's order.
	IDRelayNoPrimaryKey = "RELAY_NO_PRIMARY_KEY"
	IDRelayOrderColumn  = "RELAY_ORDER_COLUMN"
	IDRelayNotify       = "RELAY_NOTIFY_TRIGGER"

	IDPGWalLevel          = "PG_WAL_LEVEL"
	IDPGSlotsExhausted    = "PG_SLOTS_EXHAUSTED"
	IDPGWalSenders        = "PG_WAL_SENDERS_EXHAUSTED"
	IDPGSlotInactive      = "PG_SLOT_INACTIVE"
	IDPGSlotActive        = "PG_SLOT_ACTIVE"
	IDPGSlotLost          = "PG_SLOT_LOST"
	IDPGSlotMismatch      = "PG_SLOT_MISMATCH"
	IDPGPublicationAbsent = "PG_PUBLICATION_MISSING"
	IDPGPublicationAll    = "PG_PUBLICATION_ALL_TABLES"
	IDPGPublicationTable  = "PG_PUBLICATION_TABLE_MISSING"
	IDPGPublicationExtra  = "PG_PUBLICATION_EXTRA_TABLES"
	IDPGPublicationInsert = "PG_PUBLICATION_NO_INSERT"
	IDPGReplicaIdentity   = "PG_REPLICA_IDENTITY"
	IDPGAutocreate        = "PG_PUBLICATION_AUTOCREATE"

	IDBinlogOff         = "BINLOG_OFF"
	IDBinlogFormat      = "BINLOG_FORMAT"
	IDBinlogRowImage    = "BINLOG_ROW_IMAGE"
	IDBinlogServerID    = "BINLOG_SERVER_ID"
	IDBinlogServerClash = "BINLOG_SERVER_ID_CLASH"
	IDBinlogGTID        = "BINLOG_GTID_MODE"
	IDBinlogRetention   = "BINLOG_RETENTION"
	IDBinlogPartialJSON = "BINLOG_ROW_VALUE_OPTIONS"
	IDBinlogCompress    = "BINLOG_COMPRESS"

	IDUserMissing       = "USER_MISSING"
	IDUserReplication   = "USER_NO_REPLICATION"
	IDUserLogin         = "USER_NO_LOGIN"
	IDUserSelect        = "USER_NO_SELECT"
	IDUserOwnership     = "USER_NOT_OWNER"
	IDUserGrants        = "USER_GRANTS"
	IDUserPassword      = "USER_PASSWORD_UNRESOLVED"
	IDUserSuperuser     = "USER_SUPERUSER"
	IDDatabaseMissing   = "DATABASE_MISSING"
	IDConnectorNotFound = "CONNECTOR_MISSING"
	IDConnectorState    = "CONNECTOR_NOT_RUNNING"
	IDConnectWorkerGone = "CONNECT_WORKER_UNREACHABLE"
	IDTopicMissing      = "TOPIC_MISSING"
	IDTopicPartitions   = "TOPIC_PARTITIONS"
	IDTopicConfig       = "TOPIC_CONFIG"
	IDTopicRouting      = "TOPIC_ROUTING"
)

// Options tune Plan, Check and the topic functions.
type Options struct {
	// Lookup resolves the spec's password reference for the replication
	// user (${env:…}, ${file:…}). A Connect config-provider placeholder
	// cannot be resolved here: the user is then not created (a finding says
	// so).
	Lookup *spec.Lookup
	// UserHost is the MySQL/MariaDB account host of a created user (default "%").
	UserHost string
	// MinBinlogRetention is the binlog retention below which a warning is
	// reported (default 72h: a connector down over a weekend must find its
	// binlog position).
	MinBinlogRetention time.Duration
	// Now is the clock the partitions of a partitioned outbox are planned
	// by (default time.Now).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o Options) userHost() string {
	if o.UserHost == "" {
		return "%"
	}
	return o.UserHost
}

func (o Options) minRetention() time.Duration {
	if o.MinBinlogRetention == 0 {
		return 72 * time.Hour
	}
	return o.MinBinlogRetention
}

type findings struct {
	outbox string
	list   []Finding
}

func (fs *findings) add(id string, sev Severity, subject, fix, format string, a ...any) {
	fs.list = append(fs.list, Finding{Rule: id, Severity: sev, Outbox: fs.outbox, Subject: subject, Message: fmt.Sprintf(format, a...), Hint: fix})
}

// Check runs the preflight checks of t against the facts: server settings,
// slot, publication, table (the contract vs the actual columns: drift is a
// finding) and the connector user's privileges. It is pure: Inspect reads
// the facts.
func Check(t Target, f *Facts, opts Options) []Finding {
	fs := &findings{outbox: t.Outbox.Name}
	if f.DatabaseMissing {
		db := t.Outbox.Database.Connection.DBName
		if t.Outbox.Database.Kind != spec.Postgres {
			db = t.Outbox.Schema
		}
		fs.add(IDDatabaseMissing, SeverityError, db, "outboxctl provision --database", "database %s does not exist", db)
	}
	if t.Outbox.Database.Kind == spec.Postgres {
		checkPostgres(fs, t, f)
	} else {
		checkBinlog(fs, t, f, opts)
	}
	if !f.DatabaseMissing {
		checkTable(fs, t, f)
	}
	sortFindings(fs.list)
	return fs.list
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// SlotMismatch returns the PG_SLOT_MISMATCH findings of slot s for t: a
// slot whose plugin is not the connector's plugin.name (pgoutput when
// unset in t's config) or that belongs to another database than the
// outbox's (slot names are cluster-wide). Nil when s is t's slot. Doctor
// reports them; cleanup refuses to trust such a slot.
func SlotMismatch(t Target, s *Slot) []Finding {
	fs := &findings{outbox: t.Outbox.Name}
	subject := "slot " + s.Name
	plugin := t.Config("plugin.name")
	if plugin == "" {
		plugin = "pgoutput"
	}
	if s.Plugin != plugin {
		fs.add(IDPGSlotMismatch, SeverityError, subject, "drop the slot (SELECT pg_drop_replication_slot('"+s.Name+"')) or set another slotName",
			"slot uses plugin %q, the connector uses %s", s.Plugin, plugin)
	}
	if db := t.Outbox.Database.Connection.DBName; s.Database != "" && s.Database != db {
		fs.add(IDPGSlotMismatch, SeverityError, subject, "set connector.slotName to a name unique in the cluster",
			"slot belongs to database %q, the outbox is in %q (slot names are cluster-wide)", s.Database, db)
	}
	return fs.list
}

func checkPostgres(fs *findings, t Target, f *Facts) {
	o := t.Outbox
	if f.WalLevel != "logical" {
		fs.add(IDPGWalLevel, SeverityError, "wal_level", "ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL (RDS: rds.logical_replication=1)",
			"wal_level is %q, logical decoding needs \"logical\"", f.WalLevel)
	}
	slotName := t.Config("slot.name")
	if f.Slot == nil {
		if f.MaxReplicationSlots > 0 && f.ReplicationSlotsUsed >= f.MaxReplicationSlots {
			fs.add(IDPGSlotsExhausted, SeverityError, "max_replication_slots", "raise max_replication_slots (restart needed) or drop unused slots",
				"all %d replication slots are in use; the connector cannot create slot %s", f.MaxReplicationSlots, slotName)
		}
		if f.MaxWalSenders > 0 && f.WalSendersUsed >= f.MaxWalSenders {
			fs.add(IDPGWalSenders, SeverityError, "max_wal_senders", "raise max_wal_senders (restart needed)",
				"all %d WAL senders are in use; the connector cannot stream", f.MaxWalSenders)
		}
	} else {
		s := f.Slot
		subject := "slot " + s.Name
		fs.list = append(fs.list, SlotMismatch(t, s)...)
		switch {
		case s.WalStatus == "lost":
			fs.add(IDPGSlotLost, SeverityError, subject, "drop the slot and let the connector re-create it (events written while it was lost are not published)",
				"slot's WAL is lost (max_slot_wal_keep_size exceeded)")
		case s.Active:
			fs.add(IDPGSlotActive, SeverityInfo, subject, "", "slot is active (a connector streams from it), %s of WAL retained", humanBytes(s.RetainedBytes))
		default:
			fs.add(IDPGSlotInactive, SeverityWarning, subject, "start the connector, or drop the slot if it is abandoned; consider max_slot_wal_keep_size",
				"slot is inactive and retains %s of WAL (it grows until a connector confirms it)", humanBytes(s.RetainedBytes))
		}
	}
	mode := t.Config("publication.autocreate.mode")
	if mode == "" {
		mode = "all_tables"
	}
	pubName := t.Config("publication.name")
	qt := o.QualifiedTable()
	if p := f.Publication; p == nil {
		if !f.DatabaseMissing {
			sev := SeverityWarning
			if mode == "disabled" {
				sev = SeverityError
			}
			fs.add(IDPGPublicationAbsent, sev, "publication "+pubName, "outboxctl provision --database",
				"publication does not exist (publication.autocreate.mode=%s: the connector %s)", mode,
				map[bool]string{true: "fails", false: "creates it, which needs CREATE on the database and table ownership"}[mode == "disabled"])
		}
	} else {
		subject := "publication " + p.Name
		if p.AllTables {
			sev := SeverityInfo
			if mode == "filtered" {
				sev = SeverityError
			}
			fs.add(IDPGPublicationAll, sev, subject, "DROP PUBLICATION "+p.Name+"; then outboxctl provision --database",
				"publication is FOR ALL TABLES (mode %s: Debezium refuses to alter it)", mode)
		} else {
			var extra []string
			for _, tb := range p.Tables {
				if tb != qt {
					extra = append(extra, tb)
				}
			}
			if !p.Covers(qt) {
				fs.add(IDPGPublicationTable, SeverityError, subject, "ALTER PUBLICATION "+p.Name+" ADD TABLE "+qt,
					"publication does not cover the outbox table %s (it has %s)", qt, listOrNone(p.Tables))
			}
			if len(extra) > 0 {
				msg := "the connector's table.include.list filters their events"
				if mode == "filtered" {
					msg = "mode filtered: the connector resets the publication to the outbox table on start"
				}
				fs.add(IDPGPublicationExtra, SeverityInfo, subject, "", "publication also covers %s (%s)", strings.Join(extra, ", "), msg)
			}
		}
		if !p.Insert {
			fs.add(IDPGPublicationInsert, SeverityError, subject, "ALTER PUBLICATION "+p.Name+" SET (publish = 'insert')",
				"publication does not publish inserts: no event would be captured")
		}
	}
	if tb := f.Table; tb != nil && !f.DatabaseMissing {
		publishesChanges := f.Publication == nil || f.Publication.Update || f.Publication.Delete
		if publishesChanges && (tb.ReplicaIdentity == "n" || tb.ReplicaIdentity == "d" && !tb.HasPrimaryKey) {
			fs.add(IDPGReplicaIdentity, SeverityWarning, "table "+qt, "ALTER TABLE "+qt+" ADD PRIMARY KEY (id), or create the publication with publish = 'insert'",
				"replica identity %s without a primary key: DELETEs of published rows (cleanup) fail while the publication publishes deletes", map[string]string{"n": "NOTHING", "d": "DEFAULT"}[tb.ReplicaIdentity])
		}
	}
	user := o.Database.Connection.User
	u := f.User
	if u == nil {
		fs.add(IDUserMissing, SeverityError, "user "+user, "outboxctl provision --database", "role %s does not exist", user)
		return
	}
	subject := "user " + user
	if u.Superuser {
		fs.add(IDUserSuperuser, SeverityInfo, subject, "provision a dedicated LOGIN REPLICATION role", "the connector connects as a superuser (works, but not least privilege)")
		return
	}
	if !u.Login {
		fs.add(IDUserLogin, SeverityError, subject, "ALTER ROLE "+user+" LOGIN", "role cannot log in")
	}
	if !u.Replication {
		fs.add(IDUserReplication, SeverityError, subject, "ALTER ROLE "+user+" REPLICATION", "role lacks the REPLICATION attribute (needed to create and stream the slot)")
	}
	if f.Table != nil && !u.CanSelect {
		fs.add(IDUserSelect, SeverityError, subject, "GRANT SELECT ON "+qt+" TO "+user, "role has no SELECT on %s", qt)
	}
	if mode == "filtered" && f.Table != nil && (!u.OwnsTable || f.Publication != nil && !u.OwnsPublication) {
		fs.add(IDUserOwnership, SeverityError, subject, "outboxctl provision --database (a shared owner group), or set publication.autocreate.mode=disabled in connector.overrides",
			"publication.autocreate.mode=filtered makes the connector run ALTER PUBLICATION … SET TABLE on every start, which needs ownership of the publication and the table; role owns neither through membership")
	}
	if mode != "disabled" {
		fs.add(IDPGAutocreate, SeverityInfo, "publication.autocreate.mode", "connector.overrides: {publication.autocreate.mode: disabled}",
			"mode %s: with a provisioned publication, mode disabled lets the connector run with LOGIN REPLICATION and SELECT only", mode)
	}
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// requiredGrants are the global privileges of the Debezium MySQL/MariaDB
// user (SELECT is checked on the outbox database).
func requiredGrants(mariadb bool) []string {
	if mariadb {
		return []string{"RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "BINLOG MONITOR"}
	}
	return []string{"RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT"}
}

func checkBinlog(fs *findings, t Target, f *Facts, opts Options) {
	v := func(k string) string { return strings.ToUpper(strings.TrimSpace(f.Variables[k])) }
	on := func(k string) bool { s := v(k); return s == "ON" || s == "1" }
	if !on("log_bin") {
		fs.add(IDBinlogOff, SeverityError, "log_bin", "start the server with log-bin (RDS: enable automated backups)", "binary logging is off")
	}
	if s := v("binlog_format"); s != "ROW" {
		fs.add(IDBinlogFormat, SeverityError, "binlog_format", "SET GLOBAL binlog_format = 'ROW' (and in the server config)", "binlog_format is %q, Debezium needs ROW", s)
	}
	if s := v("binlog_row_image"); s != "" && s != "FULL" {
		fs.add(IDBinlogRowImage, SeverityError, "binlog_row_image", "SET GLOBAL binlog_row_image = 'FULL' (and in the server config)", "binlog_row_image is %q, Debezium needs FULL", s)
	}
	sid, _ := atoi64(f.Variables["server_id"])
	if sid == 0 {
		fs.add(IDBinlogServerID, SeverityError, "server_id", "set server-id to a unique non-zero value in the server config", "server_id is 0")
	}
	if cid := t.Config("database.server.id"); cid != "" && cid == strconv.FormatInt(sid, 10) {
		fs.add(IDBinlogServerClash, SeverityError, "database.server.id", "set connector.serverId to an id no server or replica uses",
			"the connector's database.server.id %s equals the server's server_id", cid)
	}
	if !f.MariaDB && t.Outbox.Database.Kind == spec.MySQL {
		if s := v("gtid_mode"); s != "ON" {
			fs.add(IDBinlogGTID, SeverityInfo, "gtid_mode", "gtid_mode=ON and enforce_gtid_consistency=ON", "gtid_mode is %q: GTIDs are recommended for failover", s)
		}
		if s := v("binlog_row_value_options"); strings.Contains(s, "PARTIAL_JSON") {
			fs.add(IDBinlogPartialJSON, SeverityError, "binlog_row_value_options", "SET GLOBAL binlog_row_value_options = ''", "binlog_row_value_options is PARTIAL_JSON")
		}
	}
	if f.MariaDB && on("log_bin_compress") {
		fs.add(IDBinlogCompress, SeverityError, "log_bin_compress", "SET GLOBAL log_bin_compress = OFF", "compressed binlog events are not supported by Debezium")
	}
	secs, _ := atoi64(f.Variables["binlog_expire_logs_seconds"])
	if secs == 0 {
		if d, err := strconv.ParseFloat(strings.TrimSpace(f.Variables["expire_logs_days"]), 64); err == nil {
			secs = int64(d * 86400)
		}
	}
	if secs > 0 && time.Duration(secs)*time.Second < opts.minRetention() {
		fs.add(IDBinlogRetention, SeverityWarning, "binlog_expire_logs_seconds", fmt.Sprintf("SET GLOBAL binlog_expire_logs_seconds = %d", int64(opts.minRetention().Seconds())),
			"binlogs expire after %s: a connector down longer loses its position (and events)", time.Duration(secs)*time.Second)
	}
	user := t.Outbox.Database.Connection.User
	u := f.User
	if u == nil {
		fs.add(IDUserMissing, SeverityError, "user "+user, "outboxctl provision --database", "account %s does not exist", user)
		return
	}
	var missing []string
	for _, p := range requiredGrants(f.MariaDB) {
		if !hasPriv(u.Global, p) {
			missing = append(missing, p)
		}
	}
	if !u.CanSelect {
		missing = append(missing, "SELECT ON "+t.Outbox.Schema+".*")
	}
	if len(missing) > 0 {
		fs.add(IDUserGrants, SeverityError, "user "+mysqlAccount(user, u.Host), "outboxctl provision --database",
			"account lacks %s", strings.Join(missing, ", "))
	}
}

var intWidth = regexp.MustCompile(`^(tinyint|smallint|mediumint|int|bigint)\(\d+\)`)

// NormalizeType maps a SQL type to the form the catalog renders, so that the
// contract's types compare with the actual ones: PostgreSQL format_type
// (character varying(255), timestamp(6) without time zone, integer) and
// MySQL/MariaDB COLUMN_TYPE (int without display width; MariaDB json is
// longtext).
func NormalizeType(kind, typ string) string {
	s := strings.ToLower(strings.Join(strings.Fields(typ), " "))
	if kind == spec.Postgres {
		switch {
		case strings.HasPrefix(s, "varchar"):
			s = "character varying" + strings.TrimPrefix(s, "varchar")
		case s == "int" || s == "int4":
			s = "integer"
		case s == "int8":
			s = "bigint"
		case s == "timestamptz":
			s = "timestamp with time zone"
		case strings.HasPrefix(s, "timestamp") && !strings.Contains(s, "with"):
			s += " without time zone"
		}
		return s
	}
	s = intWidth.ReplaceAllString(s, "$1")
	if kind == spec.MariaDB && s == "json" {
		s = "longtext"
	}
	if s == "integer" {
		s = "int"
	}
	return s
}

func checkTable(fs *findings, t Target, f *Facts) {
	o := t.Outbox
	kind := o.Database.Kind
	qt := o.QualifiedTable()
	if f.Table == nil {
		fs.add(IDTableMissing, SeverityError, "table "+qt, "outboxctl provision --database", "outbox table %s does not exist", qt)
		return
	}
	find := func(name string) *Column {
		for i := range f.Table.Columns {
			c := &f.Table.Columns[i]
			if c.Name == name || kind != spec.Postgres && strings.EqualFold(c.Name, name) {
				return c
			}
		}
		return nil
	}
	contract := map[string]bool{}
	for _, want := range o.ColumnContract() {
		contract[strings.ToLower(want.Name)] = true
		subject := "column " + qt + "." + want.Name
		got := find(want.Name)
		if got == nil {
			fs.add(IDTableColumnMissing, SeverityError, subject, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", qt, want.Name, want.SQLType),
				"the %s column %s is missing (the spec's column contract has it)", want.Role, want.Name)
			continue
		}
		if NormalizeType(kind, got.Type) != NormalizeType(kind, want.SQLType) {
			hint := "change the column type, or set columns.payloadType in the spec to the existing type"
			if want.Role != spec.RolePayload {
				hint = fmt.Sprintf("ALTER TABLE %s ALTER/MODIFY COLUMN %s %s", qt, want.Name, want.SQLType)
			}
			sev := SeverityWarning
			if want.Role == spec.RolePayload || want.Role == spec.RoleTimestamp || want.Role == spec.RoleSchemaVersion {
				// The converter, the EventRouter's timestamp rules and the
				// INT32 schema version depend on these types.
				sev = SeverityError
			}
			fs.add(IDTableColumnType, sev, subject, hint, "type is %s, the contract says %s", got.Type, want.SQLType)
		}
		if want.Nullable && !got.Nullable {
			fs.add(IDTableColumnNull, SeverityWarning, subject, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL", qt, want.Name),
				"column is NOT NULL, the contract allows NULL (events without %s fail to insert)", want.Role)
		}
	}
	for _, c := range f.Table.Columns {
		if contract[strings.ToLower(c.Name)] {
			continue
		}
		if !c.Nullable && !c.HasDefault {
			fs.add(IDTableExtraColumn, SeverityError, "column "+qt+"."+c.Name, "give it a default, make it nullable or drop it",
				"column %s is not in the contract and is NOT NULL without a default: the writer's INSERTs fail", c.Name)
		}
	}
	if o.RelayPublished() {
		checkRelayTable(fs, o, f.Table, find)
		if n := o.Relay.Notify; n != "" && kind == spec.Postgres && f.Table.NotifyChannel != n {
			have := "there is no NOTIFY trigger"
			if f.Table.NotifyChannel != "" {
				have = fmt.Sprintf("its trigger notifies %q", f.Table.NotifyChannel)
			}
			fs.add(IDRelayNotify, SeverityWarning, "table "+qt, "outboxctl provision --database",
				"relay.notify is %q but %s: the relay wakes up by polling only", n, have)
		}
		return
	}
	if !f.Table.HasPrimaryKey {
		fs.add(IDTableNoPrimaryKey, SeverityWarning, "table "+qt, "add a primary key on the id column", "the outbox table has no primary key (duplicate event ids go unnoticed)")
	}
}

// checkRelayTable checks the live table against what the polling relay
// needs (relay.New refuses to start without them, exit 2): a primary key,
// by which it deletes or marks published rows, and a NOT NULL order column.
func checkRelayTable(fs *findings, o *spec.Outbox, tb *Table, find func(string) *Column) {
	qt := o.QualifiedTable()
	if !tb.HasPrimaryKey {
		fs.add(IDRelayNoPrimaryKey, SeverityError, "table "+qt, fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)", qt, o.Columns.ID),
			"outbox table %s has no primary key: the relay deletes (or marks) published rows by it", qt)
	}
	col, from := o.Relay.OrderColumn, "relay.orderColumn"
	if col == "" {
		// The relay's default: the database-assigned order.
		want := []string{spec.RelaySeqColumn}
		if o.Database.Kind == spec.Postgres {
			want = []string{spec.RelayTxColumn, spec.RelaySeqColumn}
		}
		for _, w := range want {
			if c := find(w); c == nil || c.Nullable {
				fs.add(IDRelayOrderColumn, SeverityError, "table "+qt, "outboxctl provision creates the columns with the table; on an existing table add them (the relay's error names the ALTER TABLE), or set relay.orderColumn",
					"outbox table %s lacks the relay's database-assigned order (NOT NULL %s): the relay refuses to start without it or relay.orderColumn", qt, strings.Join(want, ", "))
				return
			}
		}
		return
	}
	subject := "column " + qt + "." + col
	switch c := find(col); {
	case c == nil:
		fs.add(IDRelayOrderColumn, SeverityError, subject, "add the column, or set relay.orderColumn to a NOT NULL column of the table",
			"order column %s (%s) is not a column of %s", col, from, qt)
	case c.Nullable:
		fs.add(IDRelayOrderColumn, SeverityError, subject, fmt.Sprintf("ALTER TABLE %s ALTER/MODIFY COLUMN %s … NOT NULL", qt, col),
			"order column %s (%s) of %s is nullable: rows with NULL have no place in the publish order", col, from, qt)
	}
}
