package provisioning

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/internal/redact"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/spec"
)

// Execer runs provisioning statements (*sql.DB, *sql.Conn).
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// PlanDatabase returns the step that creates t's database when it does not
// exist (ok=false when it exists). server is a connection to the server
// (for PostgreSQL: any database, such as postgres).
func PlanDatabase(ctx context.Context, server Querier, o *spec.Outbox) (step Step, missing bool, err error) {
	kind := o.Database.Kind
	name := o.Schema
	q := `SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?`
	if kind == spec.Postgres {
		name = o.Database.Connection.DBName
		q = `SELECT count(*) FROM pg_database WHERE datname = $1`
	}
	var n int
	if err := server.QueryRowContext(ctx, q, name).Scan(&n); err != nil {
		return Step{}, false, fmt.Errorf("%w: outbox %s: database %s: %w", ErrInspect, o.Name, name, err)
	}
	if n > 0 {
		return Step{}, false, nil
	}
	return CreateDatabaseStep(o), true, nil
}

// CreateDatabaseStep is the step that creates o's database (pure).
func CreateDatabaseStep(o *spec.Outbox) Step {
	kind := o.Database.Kind
	name := o.Schema
	if kind == spec.Postgres {
		name = o.Database.Connection.DBName
	}
	stmt := "CREATE DATABASE " + sqlident.Quote(kind, name)
	if kind != spec.Postgres {
		stmt = "CREATE DATABASE IF NOT EXISTS " + sqlident.Quote(kind, name) + " CHARACTER SET utf8mb4"
	}
	return Step{ID: "create-database", Outbox: o.Name, Description: "create database " + name, SQL: stmt, Display: stmt, Fixes: []string{IDDatabaseMissing}}
}

// SpecSteps are the steps that provision t on an empty server, computed from
// the spec alone (no connection; pure): the database, the outbox table, for
// PostgreSQL the publication, and the connector user. Against a real server
// some of them may already be done; Plan tells which.
func SpecSteps(t Target, opts Options) ([]Step, []Finding) {
	o := t.Outbox
	f := &Facts{Kind: o.Database.Kind, DatabaseMissing: true, MariaDB: o.Database.Kind == spec.MariaDB}
	steps, fs := PlanSteps(t, f, opts)
	return append([]Step{CreateDatabaseStep(o)}, steps...), fs
}

// Plan inspects t's database and returns the steps that provision it (the
// outbox table, for PostgreSQL the publication, the connector user with
// least privileges) and the preflight findings that no step resolves
// (server settings, slots, drift of an existing table). Nothing is
// changed. q must be connected to the outbox's database (PostgreSQL); with
// databaseMissing set it may be any connection to the server and every
// object in the database is planned as new.
func Plan(ctx context.Context, q Querier, t Target, databaseMissing bool, opts Options) ([]Step, []Finding, error) {
	f, err := Inspect(ctx, q, t, databaseMissing)
	if err != nil {
		return nil, nil, err
	}
	steps, extra := PlanSteps(t, f, opts)
	all := append(Check(t, f, opts), extra...)
	fixed := map[string]bool{IDDatabaseMissing: true}
	for _, s := range steps {
		for _, id := range s.Fixes {
			fixed[id] = true
		}
	}
	var out []Finding
	for _, fd := range all {
		if !fixed[fd.Rule] {
			out = append(out, fd)
		}
	}
	sortFindings(out)
	return steps, out, nil
}

// PlanSteps computes the provisioning steps from the facts (pure). The
// findings it returns are about what it cannot plan (an unresolvable
// password).
func PlanSteps(t Target, f *Facts, opts Options) ([]Step, []Finding) {
	p := &planner{t: t, f: f, opts: opts, fs: &findings{outbox: t.Outbox.Name}}
	o := t.Outbox
	fresh := f.DatabaseMissing || f.Table == nil
	if fresh {
		for _, stmt := range outboxddl.CreateTable(o) {
			p.add("create-table", "create outbox table "+o.QualifiedTable(), stmt, "", IDTableMissing)
		}
	}
	// the relay's NOTIFY trigger, also on an existing table without it (or
	// with another channel); replacing it is idempotent
	if ddl := NotifyDDL(o, f.Version); len(ddl) > 0 && (fresh || f.Table.NotifyChannel != o.Relay.Notify) {
		for _, stmt := range ddl {
			p.add("relay-notify", "NOTIFY trigger of "+o.QualifiedTable()+" on channel "+o.Relay.Notify, stmt, "", IDRelayNotify)
		}
	}
	for _, stmt := range PartitionDDL(t.Outbox, opts.now()) {
		p.add("create-partitions", "ensure the partitions of "+t.Outbox.QualifiedTable()+" exist (idempotent)", stmt, "")
	}
	if t.Outbox.Database.Kind == spec.Postgres {
		p.postgres()
	} else {
		p.binlog()
	}
	return p.steps, p.fs.list
}

type planner struct {
	t     Target
	f     *Facts
	opts  Options
	steps []Step
	fs    *findings
}

func (p *planner) add(id, desc, stmt, display string, fixes ...string) {
	if display == "" {
		display = stmt
	}
	p.steps = append(p.steps, Step{ID: id, Outbox: p.t.Outbox.Name, Description: desc, SQL: stmt, Display: display, Fixes: fixes})
}

// password resolves the spec's password reference; ok=false adds a finding.
func (p *planner) password() (string, bool) {
	cn := p.t.Outbox.Database.Connection
	subject := "user " + cn.User
	if cn.Password == "" {
		p.fs.add(IDUserPassword, SeverityWarning, subject, "set database.connection.password to ${env:NAME} or ${file:PATH}", "the spec gives no password reference: the user is not created")
		return "", false
	}
	sec, err := spec.ParseSecret(cn.Password)
	if err != nil || sec.Kind == spec.SecretProvider || p.opts.Lookup == nil {
		p.fs.add(IDUserPassword, SeverityWarning, subject, "create the user yourself with the password Connect resolves, or use ${env:NAME} / ${file:PATH}",
			"password %s is resolved by Kafka Connect, not here: the user is not created", cn.Password)
		return "", false
	}
	pw, err := p.opts.Lookup.Resolve(cn.Password)
	if err != nil {
		p.fs.add(IDUserPassword, SeverityWarning, subject, "export the variable or create the file", "%v: the user is not created", err)
		return "", false
	}
	return pw, true
}

const masked = "'" + redact.Mask + "'"

func pgString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// viaRoot is the publication option that publishes a partitioned outbox's
// partition inserts as the root table, the one the connector's
// table.include.list names.
func viaRoot(o *spec.Outbox) string {
	if o.Partitioned() {
		return ", publish_via_partition_root = true"
	}
	return ""
}

func (p *planner) postgres() {
	o := p.t.Outbox
	kind := o.Database.Kind
	q := func(s string) string { return sqlident.Quote(kind, s) }
	qt := outboxddl.QualifiedTable(o)
	f := p.f
	pub := p.t.Config("publication.name")
	if pub != "" {
		switch {
		case f.Publication == nil:
			p.add("create-publication", "create publication "+pub+" for the outbox table (inserts only)",
				fmt.Sprintf("CREATE PUBLICATION %s FOR TABLE %s WITH (publish = 'insert'%s)", q(pub), qt, viaRoot(o)), "", IDPGPublicationAbsent)
		case !f.Publication.AllTables:
			covered := false
			for _, tb := range f.Publication.Tables {
				covered = covered || tb == o.QualifiedTable()
			}
			if !covered {
				p.add("alter-publication", "add the outbox table to publication "+pub,
					fmt.Sprintf("ALTER PUBLICATION %s ADD TABLE %s", q(pub), qt), "", IDPGPublicationTable)
			}
		}
		if f.Publication != nil && !f.Publication.Insert {
			p.add("alter-publication", "publish inserts in "+pub, fmt.Sprintf("ALTER PUBLICATION %s SET (publish = 'insert')", q(pub)), "", IDPGPublicationInsert)
		}
	}
	user := o.Database.Connection.User
	u := f.User
	if u == nil {
		pw, ok := p.password()
		if !ok {
			return
		}
		stmt := fmt.Sprintf("CREATE ROLE %s WITH LOGIN REPLICATION PASSWORD ", q(user))
		p.add("create-user", "create replication role "+user+" (LOGIN REPLICATION)", stmt+pgString(pw), stmt+masked, IDUserMissing)
		u = &User{Name: user, Login: true, Replication: true}
	} else if !u.Superuser && (!u.Login || !u.Replication) {
		p.add("alter-user", "give role "+user+" LOGIN REPLICATION", fmt.Sprintf("ALTER ROLE %s WITH LOGIN REPLICATION", q(user)), "", IDUserLogin, IDUserReplication)
	}
	if u.Superuser {
		return
	}
	if !u.CanSelect {
		p.add("grant", "let "+user+" read the outbox table", fmt.Sprintf("GRANT USAGE ON SCHEMA %s TO %s", q(o.Schema), q(user)), "", IDUserSelect)
		p.add("grant", "let "+user+" read the outbox table", fmt.Sprintf("GRANT SELECT ON %s TO %s", qt, q(user)), "", IDUserSelect)
	}
	mode := p.t.Config("publication.autocreate.mode")
	if (mode == "" || mode == "filtered") && pub != "" && (!u.OwnsTable || !u.OwnsPublication) {
		// Debezium's filtered mode runs ALTER PUBLICATION … SET TABLE on
		// every start: the user must own the publication and the table. A
		// shared NOLOGIN owner group (Debezium's documented approach) gives
		// it that without making it the sole owner.
		group := OwnerGroup(pub)
		prevOwner := "CURRENT_USER"
		if f.Table != nil && f.Table.Owner != "" {
			prevOwner = q(f.Table.Owner)
		}
		p.add("owner-group", "create owner group "+group, createRoleIfMissing(group), "", IDUserOwnership)
		p.add("owner-group", "make "+user+" a member of "+group, fmt.Sprintf("GRANT %s TO %s", q(group), q(user)), "", IDUserOwnership)
		if f.Table == nil || f.Table.Owner != group {
			p.add("owner-group", "keep the table's current owner a member of "+group, fmt.Sprintf("GRANT %s TO %s", q(group), prevOwner), "", IDUserOwnership)
		}
		p.add("owner-group", "hand the outbox table to "+group, fmt.Sprintf("ALTER TABLE %s OWNER TO %s", qt, q(group)), "", IDUserOwnership)
		p.add("owner-group", "hand publication "+pub+" to "+group, fmt.Sprintf("ALTER PUBLICATION %s OWNER TO %s", q(pub), q(group)), "", IDUserOwnership)
	}
}

// createRoleIfMissing is the statement that creates the NOLOGIN role name
// unless it exists (CREATE ROLE has no IF NOT EXISTS): a DO block whose
// body is dollar-quoted with a tag that does not occur in it, whatever
// name holds ("$$", quotes, a would-be tag).
func createRoleIfMissing(name string) string {
	body := fmt.Sprintf("BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = %s) THEN CREATE ROLE %s NOLOGIN; END IF; END", pgString(name), sqlident.Quote(spec.Postgres, name))
	return "DO " + dollarQuote(body)
}

// dollarQuote quotes body as a PostgreSQL dollar-quoted string with a tag
// ($outboxctl$, $outboxctl1$, …) that does not occur in body.
func dollarQuote(body string) string {
	tag := "$outboxctl$"
	for i := 1; strings.Contains(body, tag); i++ {
		tag = fmt.Sprintf("$outboxctl%d$", i)
	}
	return tag + body + tag
}

// OwnerGroup is the name of the NOLOGIN role that owns the outbox table and
// publication when publication.autocreate.mode=filtered: the publication
// name with "_owner" (at most 63 characters).
func OwnerGroup(publication string) string {
	g := publication + "_owner"
	if len(g) > 63 {
		g = publication[:63-len("_owner")] + "_owner"
	}
	return g
}

func (p *planner) binlog() {
	o := p.t.Outbox
	f := p.f
	user := o.Database.Connection.User
	u := f.User
	host := p.opts.userHost()
	if u == nil {
		pw, ok := p.password()
		if !ok {
			return
		}
		stmt := fmt.Sprintf("CREATE USER IF NOT EXISTS %s IDENTIFIED BY ", mysqlAccount(user, host))
		p.add("create-user", "create user "+mysqlAccount(user, host), stmt+mysqlString(pw), stmt+masked, IDUserMissing)
		u = &User{Name: user, Host: host}
	}
	var missing []string
	for _, g := range requiredGrants(f.MariaDB || o.Database.Kind == spec.MariaDB) {
		if !hasPriv(u.Global, g) {
			missing = append(missing, g)
		}
	}
	acct := mysqlAccount(user, u.Host)
	if len(missing) > 0 {
		p.add("grant", "grant the binlog privileges to "+acct, fmt.Sprintf("GRANT %s ON *.* TO %s", strings.Join(missing, ", "), acct), "", IDUserGrants)
	}
	if !u.CanSelect {
		p.add("grant", "let "+acct+" read the outbox database", fmt.Sprintf("GRANT SELECT ON %s.* TO %s", sqlident.Quote(o.Database.Kind, o.Schema), acct), "", IDUserGrants)
	}
}

// Apply executes steps in order and stops at the first failure. Every step
// is idempotent or planned only when needed, so Apply after a partial
// failure and a new Plan converges. Errors wrap ErrApply and show the
// masked statement, never the password.
func Apply(ctx context.Context, db Execer, steps []Step) error {
	for i, s := range steps {
		if _, err := db.ExecContext(ctx, s.SQL); err != nil {
			return fmt.Errorf("%w: outbox %s: step %d (%s) %s: %w", ErrApply, s.Outbox, i+1, s.ID, s.Display, scrub(err, s))
		}
	}
	return nil
}

// scrub removes the statement's secrets from a driver error (drivers may
// echo the statement).
func scrub(err error, s Step) error {
	if s.SQL == s.Display || !strings.Contains(err.Error(), s.SQL) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), s.SQL, s.Display))
}
