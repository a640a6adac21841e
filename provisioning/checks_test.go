package provisioning_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// healthyPG are the facts of a provisioned PostgreSQL outbox.
func healthyPG(t *testing.T, tg provisioning.Target) *provisioning.Facts {
	var cols []provisioning.Column
	for _, c := range tg.Outbox.ColumnContract() {
		cols = append(cols, provisioning.Column{Name: c.Name, Type: provisioning.NormalizeType(spec.Postgres, c.SQLType), Nullable: c.Nullable})
	}
	// the relay's database-assigned order, as provision creates it
	cols = append(cols, provisioning.Column{Name: spec.RelayTxColumn, Type: "bigint", HasDefault: true}, provisioning.Column{Name: spec.RelaySeqColumn, Type: "bigint", HasDefault: true})
	return &provisioning.Facts{
		Kind: spec.Postgres, WalLevel: "logical",
		MaxReplicationSlots: 10, ReplicationSlotsUsed: 1, MaxWalSenders: 10, WalSendersUsed: 1,
		Publication: &provisioning.Publication{Name: tg.Config("publication.name"), Tables: []string{"public.outbox"}, Insert: true, Owner: "grp"},
		Table:       &provisioning.Table{Columns: cols, ReplicaIdentity: "d", HasPrimaryKey: true, Owner: "grp"},
		User:        &provisioning.User{Name: "dbz", Login: true, Replication: true, CanSelect: true, OwnsTable: true, OwnsPublication: true},
	}
}

func healthyBinlog(t *testing.T, tg provisioning.Target, mariadb bool) *provisioning.Facts {
	var cols []provisioning.Column
	for _, c := range tg.Outbox.ColumnContract() {
		cols = append(cols, provisioning.Column{Name: c.Name, Type: c.SQLType, Nullable: c.Nullable})
	}
	global := []string{"RELOAD", "SHOW DATABASES", "REPLICATION SLAVE", "REPLICATION CLIENT"}
	if mariadb {
		global[3] = "BINLOG MONITOR"
	}
	return &provisioning.Facts{
		Kind: tg.Outbox.Database.Kind, MariaDB: mariadb,
		Variables: map[string]string{"log_bin": "ON", "binlog_format": "ROW", "binlog_row_image": "FULL", "server_id": "1",
			"gtid_mode": "ON", "binlog_expire_logs_seconds": "2592000"},
		Table: &provisioning.Table{Columns: cols, HasPrimaryKey: true},
		User:  &provisioning.User{Name: "dbz", Host: "%", Global: global, OnDatabase: []string{"SELECT"}, CanSelect: true},
	}
}

func ids(fs []provisioning.Finding, min provisioning.Severity) []string {
	var out []string
	for _, f := range fs {
		if min == provisioning.SeverityInfo || f.Severity == provisioning.SeverityError || min == provisioning.SeverityWarning && f.Severity == provisioning.SeverityWarning {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestCheckPostgres(t *testing.T) {
	tg := target(t, spec.Postgres, "    connector: {overrides: {publication.autocreate.mode: disabled}}\n")
	cases := []struct {
		name   string
		mutate func(f *provisioning.Facts)
		want   []string // error and warning finding IDs
	}{
		{"healthy", func(f *provisioning.Facts) {}, nil},
		{"wal_level replica", func(f *provisioning.Facts) { f.WalLevel = "replica" }, []string{provisioning.IDPGWalLevel}},
		{"slots exhausted", func(f *provisioning.Facts) { f.ReplicationSlotsUsed = 10 }, []string{provisioning.IDPGSlotsExhausted}},
		{"slots exhausted but ours exists", func(f *provisioning.Facts) {
			f.ReplicationSlotsUsed = 10
			f.Slot = &provisioning.Slot{Name: "orders_outbox", Plugin: "pgoutput", Database: "shop", Active: true}
		}, nil},
		{"inactive slot retains WAL", func(f *provisioning.Facts) {
			f.Slot = &provisioning.Slot{Name: "orders_outbox", Plugin: "pgoutput", Database: "shop", RetainedBytes: 3 << 30}
		}, []string{provisioning.IDPGSlotInactive}},
		{"lost slot", func(f *provisioning.Facts) {
			f.Slot = &provisioning.Slot{Name: "orders_outbox", Plugin: "pgoutput", Database: "shop", WalStatus: "lost"}
		}, []string{provisioning.IDPGSlotLost}},
		{"slot of another plugin and db", func(f *provisioning.Facts) {
			f.Slot = &provisioning.Slot{Name: "orders_outbox", Plugin: "decoderbufs", Database: "other", Active: true}
		}, []string{provisioning.IDPGSlotMismatch}},
		{"publication missing (mode disabled: error)", func(f *provisioning.Facts) { f.Publication = nil }, []string{provisioning.IDPGPublicationAbsent}},
		{"publication misses the table", func(f *provisioning.Facts) { f.Publication.Tables = []string{"public.other"} }, []string{provisioning.IDPGPublicationTable}},
		{"publication without inserts", func(f *provisioning.Facts) { f.Publication.Insert = false }, []string{provisioning.IDPGPublicationInsert}},
		{"no primary key, deletes published", func(f *provisioning.Facts) {
			f.Table.HasPrimaryKey = false
			f.Publication.Delete = true
		}, []string{provisioning.IDPGReplicaIdentity, provisioning.IDTableNoPrimaryKey}},
		{"user missing", func(f *provisioning.Facts) { f.User = nil }, []string{provisioning.IDUserMissing}},
		{"user without replication and select", func(f *provisioning.Facts) {
			f.User.Replication = false
			f.User.CanSelect = false
		}, []string{provisioning.IDUserReplication, provisioning.IDUserSelect}},
		{"table missing", func(f *provisioning.Facts) { f.Table = nil }, []string{provisioning.IDTableMissing}},
		{"payload drift jsonb vs bytea", func(f *provisioning.Facts) { f.Table.Columns[4].Type = "jsonb" }, []string{provisioning.IDTableColumnType}},
		{"column missing", func(f *provisioning.Facts) { f.Table.Columns = f.Table.Columns[:5] }, []string{provisioning.IDTableColumnMissing}},
		{"extra not-null column", func(f *provisioning.Facts) {
			f.Table.Columns = append(f.Table.Columns, provisioning.Column{Name: "tenant", Type: "text"})
		}, []string{provisioning.IDTableExtraColumn}},
		{"payload NOT NULL", func(f *provisioning.Facts) { f.Table.Columns[4].Nullable = false }, []string{provisioning.IDTableColumnNull}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := healthyPG(t, tg)
			tc.mutate(f)
			fs := provisioning.Check(tg, f, provisioning.Options{})
			got := ids(fs, provisioning.SeverityWarning)
			want := append([]string(nil), tc.want...)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings = %v, want %v\n%v", got, want, fs)
			}
			for _, f := range fs {
				if f.Outbox != "orders" || f.Message == "" || f.Subject == "" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
			if provisioning.Failed(fs) != slices.ContainsFunc(fs, func(f provisioning.Finding) bool { return f.Severity == provisioning.SeverityError }) {
				t.Error("Failed disagrees with the severities")
			}
		})
	}
}

func TestCheckInactiveSlotReportsLag(t *testing.T) {
	tg := target(t, spec.Postgres, "")
	f := healthyPG(t, tg)
	f.Slot = &provisioning.Slot{Name: "orders_outbox", Plugin: "pgoutput", Database: "shop", RetainedBytes: 3 << 30}
	for _, fd := range provisioning.Check(tg, f, provisioning.Options{}) {
		if fd.Rule == provisioning.IDPGSlotInactive && !strings.Contains(fd.Message, "3.0 GiB") {
			t.Errorf("message %q does not give the retained WAL", fd.Message)
		}
	}
}

func TestCheckFilteredModeNeedsOwnership(t *testing.T) {
	tg := target(t, spec.Postgres, "") // generated: publication.autocreate.mode=filtered
	f := healthyPG(t, tg)
	f.User.OwnsTable = false
	got := ids(provisioning.Check(tg, f, provisioning.Options{}), provisioning.SeverityWarning)
	if !slices.Equal(got, []string{provisioning.IDUserOwnership}) {
		t.Errorf("findings = %v, want USER_NOT_OWNER", got)
	}
	steps, _ := provisioning.PlanSteps(tg, f, provisioning.Options{})
	var sqls []string
	for _, s := range steps {
		sqls = append(sqls, s.Display)
	}
	all := strings.Join(sqls, "\n")
	for _, want := range []string{"CREATE ROLE \"orders_outbox_pub_owner\" NOLOGIN", "GRANT \"orders_outbox_pub_owner\" TO \"dbz\"", "ALTER TABLE \"public\".\"outbox\" OWNER TO", "ALTER PUBLICATION \"orders_outbox_pub\" OWNER TO"} {
		if !strings.Contains(all, want) {
			t.Errorf("plan misses %q:\n%s", want, all)
		}
	}
}

func TestCheckBinlog(t *testing.T) {
	cases := []struct {
		name    string
		kind    string
		mariadb bool
		mutate  func(f *provisioning.Facts, tg provisioning.Target)
		want    []string
	}{
		{"healthy mysql", spec.MySQL, false, func(*provisioning.Facts, provisioning.Target) {}, nil},
		{"healthy mariadb", spec.MariaDB, true, func(*provisioning.Facts, provisioning.Target) {}, nil},
		{"binlog off", spec.MySQL, false, func(f *provisioning.Facts, _ provisioning.Target) { f.Variables["log_bin"] = "OFF" }, []string{provisioning.IDBinlogOff}},
		{"statement format", spec.MariaDB, true, func(f *provisioning.Facts, _ provisioning.Target) { f.Variables["binlog_format"] = "MIXED" }, []string{provisioning.IDBinlogFormat}},
		{"minimal row image", spec.MySQL, false, func(f *provisioning.Facts, _ provisioning.Target) { f.Variables["binlog_row_image"] = "MINIMAL" }, []string{provisioning.IDBinlogRowImage}},
		{"server id 0", spec.MySQL, false, func(f *provisioning.Facts, _ provisioning.Target) { f.Variables["server_id"] = "0" }, []string{provisioning.IDBinlogServerID}},
		{"server id clash", spec.MariaDB, true, func(f *provisioning.Facts, tg provisioning.Target) {
			f.Variables["server_id"] = tg.Config("database.server.id")
		}, []string{provisioning.IDBinlogServerClash}},
		{"short retention (expire_logs_days)", spec.MariaDB, true, func(f *provisioning.Facts, _ provisioning.Target) {
			f.Variables["binlog_expire_logs_seconds"] = "0"
			f.Variables["expire_logs_days"] = "1.000000"
		}, []string{provisioning.IDBinlogRetention}},
		{"partial json", spec.MySQL, false, func(f *provisioning.Facts, _ provisioning.Target) {
			f.Variables["binlog_row_value_options"] = "PARTIAL_JSON"
		}, []string{provisioning.IDBinlogPartialJSON}},
		{"compressed binlog", spec.MariaDB, true, func(f *provisioning.Facts, _ provisioning.Target) { f.Variables["log_bin_compress"] = "ON" }, []string{provisioning.IDBinlogCompress}},
		{"missing grants", spec.MySQL, false, func(f *provisioning.Facts, _ provisioning.Target) {
			f.User.Global = []string{"SELECT"}
		}, []string{provisioning.IDUserGrants}},
		{"mariadb accepts REPLICATION CLIENT as BINLOG MONITOR", spec.MariaDB, true, func(f *provisioning.Facts, _ provisioning.Target) {
			f.User.Global = []string{"RELOAD", "SHOW DATABASES", "REPLICATION REPLICA", "REPLICATION CLIENT"}
		}, nil},
		{"all privileges", spec.MySQL, false, func(f *provisioning.Facts, _ provisioning.Target) {
			f.User.Global = []string{"ALL PRIVILEGES"}
		}, nil},
		{"mariadb json column is longtext", spec.MariaDB, true, func(f *provisioning.Facts, _ provisioning.Target) {}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg := target(t, tc.kind, "    payloadFormat: json\n")
			f := healthyBinlog(t, tg, tc.mariadb)
			tc.mutate(f, tg)
			got := ids(provisioning.Check(tg, f, provisioning.Options{MinBinlogRetention: 48 * time.Hour}), provisioning.SeverityWarning)
			want := append([]string(nil), tc.want...)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings = %v, want %v", got, want)
			}
		})
	}
}

func TestPlanStepsFreshDatabase(t *testing.T) {
	lookup := &spec.Lookup{Env: func(string) (string, bool) { return "s3cr'et", true }}
	for _, kind := range []string{spec.Postgres, spec.MariaDB} {
		t.Run(kind, func(t *testing.T) {
			tg := target(t, kind, "")
			steps, fs := provisioning.PlanSteps(tg, &provisioning.Facts{Kind: kind, MariaDB: kind == spec.MariaDB, DatabaseMissing: true}, provisioning.Options{Lookup: lookup})
			if len(fs) != 0 {
				t.Errorf("findings: %v", fs)
			}
			var out strings.Builder
			for _, s := range steps {
				if strings.Contains(s.Display, "s3cr") {
					t.Errorf("step %s displays the password", s.ID)
				}
				if s.ID == "create-user" && !strings.Contains(s.SQL, "'s3cr''et'") {
					t.Errorf("create-user SQL does not carry the quoted password")
				}
				out.WriteString("-- " + s.ID + ": " + s.Description + "\n" + s.Display + ";\n")
			}
			assertGolden(t, "plan.sql", out.String())
		})
	}
}

func TestPlanStepsUnresolvablePassword(t *testing.T) {
	doc := "    connector: {}\n"
	tg := target(t, spec.MariaDB, doc)
	tg.Outbox.Database.Connection.Password = "${file:/opt/secrets.properties:db.password}"
	steps, fs := provisioning.PlanSteps(tg, &provisioning.Facts{Kind: spec.MariaDB, MariaDB: true}, provisioning.Options{})
	for _, s := range steps {
		if s.ID == "create-user" {
			t.Error("a user was planned without a resolvable password")
		}
	}
	if len(fs) != 1 || fs[0].Rule != provisioning.IDUserPassword {
		t.Errorf("findings = %v, want USER_PASSWORD_UNRESOLVED", fs)
	}
}

// TestSpecSteps: the spec-only plan (provision --dry-run) is the database
// step plus the steps of a fresh database, computed without a connection.
func TestSpecSteps(t *testing.T) {
	lookup := &spec.Lookup{Env: func(string) (string, bool) { return "pw", true }}
	for _, kind := range []string{spec.Postgres, spec.MariaDB} {
		t.Run(kind, func(t *testing.T) {
			tg := target(t, kind, "")
			steps, fs := provisioning.SpecSteps(tg, provisioning.Options{Lookup: lookup})
			fresh, _ := provisioning.PlanSteps(tg, &provisioning.Facts{Kind: kind, MariaDB: kind == spec.MariaDB, DatabaseMissing: true}, provisioning.Options{Lookup: lookup})
			if len(fs) != 0 || len(steps) != len(fresh)+1 || steps[0].ID != "create-database" || !strings.HasPrefix(steps[0].SQL, "CREATE DATABASE") {
				t.Fatalf("steps = %+v, findings %v", steps, fs)
			}
			var idsGot []string
			for _, s := range steps {
				idsGot = append(idsGot, s.ID)
			}
			for _, want := range []string{"create-table", "create-user"} {
				if !slices.Contains(idsGot, want) {
					t.Errorf("steps %v lack %s", idsGot, want)
				}
			}
		})
	}
}

// A relay-published outbox: the live table needs a primary key (an error,
// not the CDC warning) and a NOT NULL order column.
func TestCheckRelayTable(t *testing.T) {
	for _, tc := range []struct {
		name, relay string
		mutate      func(f *provisioning.Facts)
		want        []string
		subject     string
	}{
		{"healthy", "{}", func(*provisioning.Facts) {}, nil, ""},
		{"no primary key", "{}", func(f *provisioning.Facts) { f.Table.HasPrimaryKey = false }, []string{provisioning.IDRelayNoPrimaryKey}, "table public.outbox"},
		{"id column nullable", "{orderColumn: id}", func(f *provisioning.Facts) { f.Table.Columns[0].Nullable = true }, []string{provisioning.IDRelayOrderColumn}, "column public.outbox.id"},
		{"no database-assigned order", "{}", func(f *provisioning.Facts) {
			f.Table.Columns = slices.DeleteFunc(f.Table.Columns, func(c provisioning.Column) bool { return c.Name == spec.RelaySeqColumn })
		}, []string{provisioning.IDRelayOrderColumn}, "table public.outbox"},
		{"order column dropped", "{orderColumn: aggregateid}", func(f *provisioning.Facts) {
			f.Table.Columns = slices.DeleteFunc(f.Table.Columns, func(c provisioning.Column) bool { return c.Name == "aggregateid" })
		}, []string{provisioning.IDRelayOrderColumn, provisioning.IDTableColumnMissing}, "column public.outbox.aggregateid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := target(t, spec.Postgres, "    relay: "+tc.relay+"\n    connector: {overrides: {publication.autocreate.mode: disabled}}\n")
			f := healthyPG(t, tg)
			if tg.Outbox.Columns.ID != f.Table.Columns[0].Name {
				t.Fatalf("first contract column %s, want the id column", f.Table.Columns[0].Name)
			}
			tc.mutate(f)
			fs := provisioning.Check(tg, f, provisioning.Options{})
			got := ids(fs, provisioning.SeverityWarning)
			want := append([]string(nil), tc.want...)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings = %v, want %v\n%v", got, want, fs)
			}
			for _, fd := range fs {
				if strings.HasPrefix(fd.Rule, "RELAY_") && (fd.Severity != provisioning.SeverityError || fd.Subject != tc.subject || !strings.Contains(fd.Message, "public.outbox")) {
					t.Errorf("finding %+v: want an error about %s naming the table", fd, tc.subject)
				}
			}
		})
	}
}

// TestSlotMismatch: the slot check doctor and cleanup share compares the
// slot's plugin with the connector config's plugin.name (pgoutput when
// unset) and its database with the outbox's.
func TestSlotMismatch(t *testing.T) {
	tg := target(t, spec.Postgres, "")
	decoderbufs := tg
	decoderbufs.Connector.Config = map[string]string{"plugin.name": "decoderbufs"}
	cases := []struct {
		name string
		tg   provisioning.Target
		slot provisioning.Slot
		want int
	}{
		{"ours", tg, provisioning.Slot{Name: "s", Plugin: "pgoutput", Database: "shop"}, 0},
		{"other database", tg, provisioning.Slot{Name: "s", Plugin: "pgoutput", Database: "billing"}, 1},
		{"other plugin", tg, provisioning.Slot{Name: "s", Plugin: "wal2json", Database: "shop"}, 1},
		{"physical slot", tg, provisioning.Slot{Name: "s"}, 1},
		{"deployed decoderbufs", decoderbufs, provisioning.Slot{Name: "s", Plugin: "decoderbufs", Database: "shop"}, 0},
		{"deployed decoderbufs, pgoutput slot", decoderbufs, provisioning.Slot{Name: "s", Plugin: "pgoutput", Database: "shop"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := provisioning.SlotMismatch(tc.tg, &tc.slot)
			if len(fs) != tc.want {
				t.Fatalf("findings %v, want %d", fs, tc.want)
			}
			for _, f := range fs {
				if f.Rule != provisioning.IDPGSlotMismatch || f.Severity != provisioning.SeverityError || f.Outbox != "orders" {
					t.Errorf("finding %+v", f)
				}
			}
		})
	}
}

func TestPublicationCovers(t *testing.T) {
	p := &provisioning.Publication{Tables: []string{"public.other", "public.outbox"}}
	if !p.Covers("public.outbox") || p.Covers("app.outbox") {
		t.Error("Covers by the table list")
	}
	if !(&provisioning.Publication{AllTables: true}).Covers("app.outbox") {
		t.Error("FOR ALL TABLES covers every table")
	}
}

// TestCheckRulesEachReported: the rules no other unit test reaches are
// reported, with their registry's severity, when their condition holds.
func TestCheckRulesEachReported(t *testing.T) {
	disabled := "    connector: {overrides: {publication.autocreate.mode: disabled}}\n"
	cases := []struct {
		name, kind, extra string
		mutate            func(f *provisioning.Facts)
		want              string
		sev               provisioning.Severity
	}{
		{"database missing", spec.Postgres, disabled, func(f *provisioning.Facts) { f.DatabaseMissing = true }, provisioning.IDDatabaseMissing, provisioning.SeverityError},
		{"wal senders exhausted", spec.Postgres, disabled, func(f *provisioning.Facts) { f.WalSendersUsed = 10 }, provisioning.IDPGWalSenders, provisioning.SeverityError},
		{"active slot", spec.Postgres, disabled, func(f *provisioning.Facts) {
			f.Slot = &provisioning.Slot{Name: "orders_outbox", Plugin: "pgoutput", Database: "shop", Active: true}
		}, provisioning.IDPGSlotActive, provisioning.SeverityInfo},
		{"publication for all tables (mode disabled: a note)", spec.Postgres, disabled, func(f *provisioning.Facts) { f.Publication.AllTables = true }, provisioning.IDPGPublicationAll, provisioning.SeverityInfo},
		{"publication with other tables", spec.Postgres, disabled, func(f *provisioning.Facts) {
			f.Publication.Tables = append(f.Publication.Tables, "public.other")
		}, provisioning.IDPGPublicationExtra, provisioning.SeverityInfo},
		{"autocreate mode filtered", spec.Postgres, "", func(f *provisioning.Facts) {}, provisioning.IDPGAutocreate, provisioning.SeverityInfo},
		{"superuser", spec.Postgres, disabled, func(f *provisioning.Facts) { f.User.Superuser = true }, provisioning.IDUserSuperuser, provisioning.SeverityInfo},
		{"role without login", spec.Postgres, disabled, func(f *provisioning.Facts) { f.User.Login = false }, provisioning.IDUserLogin, provisioning.SeverityError},
		{"gtid off", spec.MySQL, "    payloadFormat: json\n", func(f *provisioning.Facts) { f.Variables["gtid_mode"] = "OFF" }, provisioning.IDBinlogGTID, provisioning.SeverityInfo},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tg := target(t, tc.kind, tc.extra)
			var f *provisioning.Facts
			if tc.kind == spec.Postgres {
				f = healthyPG(t, tg)
			} else {
				f = healthyBinlog(t, tg, false)
			}
			tc.mutate(f)
			fs := provisioning.Check(tg, f, provisioning.Options{})
			i := slices.IndexFunc(fs, func(fd provisioning.Finding) bool { return fd.Rule == tc.want })
			if i < 0 {
				t.Fatalf("no %s finding in %v", tc.want, fs)
			}
			if fs[i].Severity != tc.sev || fs[i].Subject == "" || fs[i].Message == "" {
				t.Errorf("finding %+v, want severity %s with a subject and message", fs[i], tc.sev)
			}
			if r, ok := provisioning.Rules.Lookup(tc.want); !ok || !r.Severity.AtLeast(fs[i].Severity) {
				t.Errorf("%s: registry entry %+v (found %v) is less severe than the finding", tc.want, r, ok)
			}
		})
	}
}
