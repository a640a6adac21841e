package provisioning

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// AdminDSNs are the admin connections of the database servers, one per
// kind (outboxctl reads them from OUTBOX_PG_DSN, OUTBOX_MYSQL_DSN and
// OUTBOX_MARIADB_DSN). The program registers the database/sql drivers
// "pgx" and "mysql".
type AdminDSNs struct {
	Postgres, MySQL, MariaDB string
}

// For returns the driver and admin DSN of a database kind.
func (a AdminDSNs) For(kind string) (driver, dsn string) {
	switch kind {
	case spec.Postgres:
		return "pgx", a.Postgres
	case spec.MySQL:
		return "mysql", a.MySQL
	}
	return "mysql", a.MariaDB
}

// Session is an open admin session for one outbox: the server connection
// and, once ConnectDB ran, the connection to the outbox's database (for
// MySQL/MariaDB the same connection).
type Session struct {
	Server, DB *sql.DB
	// Missing: the outbox's database does not exist (yet).
	Missing bool
	// Create is the step that creates the missing database (nil if it
	// exists).
	Create *Step

	outbox *spec.Outbox
	dsn    string
}

// OpenSession opens the admin connection of o's server and checks whether
// o's database exists.
func OpenSession(ctx context.Context, dsns AdminDSNs, o *spec.Outbox) (*Session, error) {
	driver, dsn := dsns.For(o.Database.Kind)
	server, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("outbox %s: %w", o.Name, err)
	}
	s := &Session{Server: server, DB: server, outbox: o, dsn: dsn}
	step, missing, err := PlanDatabase(ctx, server, o)
	if err != nil {
		server.Close()
		return nil, err
	}
	s.Missing = missing
	if missing {
		s.Create = &step
	}
	return s, nil
}

// ConnectDB opens the connection to the outbox's database (PostgreSQL,
// once the database exists); it does nothing otherwise.
func (s *Session) ConnectDB() error {
	if s.outbox.Database.Kind != spec.Postgres || s.Missing {
		return nil
	}
	db, err := sql.Open("pgx", settings.PostgresDSNWithDatabase(s.dsn, s.outbox.Database.Connection.DBName))
	if err != nil {
		return err
	}
	s.DB = db
	return nil
}

// Close closes the session's connections.
func (s *Session) Close() {
	if s.DB != nil && s.DB != s.Server {
		s.DB.Close()
	}
	s.Server.Close()
}

// DatabaseResult is the provisioning of one outbox's database.
type DatabaseResult struct {
	Outbox  string `json:"outbox"`
	Kind    string `json:"kind"`
	Steps   []Step `json:"steps"`
	Applied bool   `json:"applied"`
}

// Result is what Provision did or, on a dry run, would do (the JSON of
// outboxctl provision).
type Result struct {
	DryRun bool `json:"dryRun"`
	// FromSpec: computed from the spec alone (SpecResult).
	FromSpec  bool             `json:"fromSpec,omitempty"`
	Databases []DatabaseResult `json:"databases,omitempty"`
	Topics    []TopicResult    `json:"topics,omitempty"`
	Findings  []Finding        `json:"findings"`
}

// Request says what Provision provisions.
type Request struct {
	Targets []Target
	Options Options
	// Database and Topics choose what is provisioned.
	Database, Topics bool
	Topic            TopicOptions
	// DryRun inspects and plans but changes nothing (topic creations are
	// validated by the broker).
	DryRun bool
	// DSNs are the admin connections of the databases.
	DSNs AdminDSNs
	// OpenAdmin opens the Kafka admin client, once and only when Topics is
	// set, after the databases are done; the caller closes it.
	OpenAdmin func() (TopicAdmin, error)
	// Progress gets a line per change applied (nil: none).
	Progress io.Writer
}

// Provision provisions the databases (creating a missing database first,
// then reconnecting to it) and then the topics of the request's targets.
// A failed preflight check is a finding (see Failed), not an error.
func Provision(ctx context.Context, req Request) (Result, error) {
	res := Result{DryRun: req.DryRun}
	if req.Topics {
		if err := req.Topic.Validate(); err != nil {
			return res, err
		}
	}
	if req.Database {
		if err := res.addDatabases(req.Targets, func(t Target) (DatabaseResult, []Finding, error) {
			return provisionDatabase(ctx, req, t)
		}); err != nil {
			return res, err
		}
	}
	if req.Topics {
		if err := res.addTopics(req.Targets, req.Topic, func(specs []TopicSpec) ([]TopicResult, []Finding, error) {
			admin, err := req.OpenAdmin()
			if err != nil {
				return nil, nil, err
			}
			return EnsureTopics(ctx, admin, specs, req.DryRun)
		}); err != nil {
			return res, err
		}
	}
	if res.Findings == nil {
		res.Findings = []Finding{}
	}
	return res, nil
}

func provisionDatabase(ctx context.Context, req Request, t Target) (DatabaseResult, []Finding, error) {
	o := t.Outbox
	res := DatabaseResult{Outbox: o.Name, Kind: o.Database.Kind, Steps: []Step{}}
	s, err := OpenSession(ctx, req.DSNs, o)
	if err != nil {
		return res, nil, err
	}
	defer s.Close()
	if s.Create != nil {
		res.Steps = append(res.Steps, *s.Create)
		if !req.DryRun {
			req.progress("outbox %s: %s\n", o.Name, s.Create.Description)
			if err := Apply(ctx, s.Server, []Step{*s.Create}); err != nil {
				return res, nil, err
			}
			s.Missing = false
		}
	}
	if err := s.ConnectDB(); err != nil {
		return res, nil, err
	}
	steps, fs, err := Plan(ctx, s.DB, t, s.Missing, req.Options)
	if err != nil {
		return res, nil, err
	}
	res.Steps = append(res.Steps, steps...)
	if !req.DryRun && len(steps) > 0 {
		if len(res.Steps) > len(steps) {
			// The database was created first: count it, as the report does.
			req.progress("outbox %s: applying %d more steps (%d in all)\n", o.Name, len(steps), len(res.Steps))
		} else {
			req.progress("outbox %s: applying %d steps\n", o.Name, len(steps))
		}
		if err := Apply(ctx, s.DB, steps); err != nil {
			return res, fs, err
		}
	}
	res.Applied = !req.DryRun
	return res, fs, nil
}

func (req Request) progress(format string, a ...any) {
	if req.Progress != nil {
		fmt.Fprintf(req.Progress, format, a...)
	}
}

// SpecResult is a dry run from the spec alone: every step an empty server
// would need and every topic, with no connection to a database or broker.
func SpecResult(req Request) Result {
	res := Result{DryRun: true, FromSpec: true, Findings: []Finding{}}
	if req.Database {
		_ = res.addDatabases(req.Targets, func(t Target) (DatabaseResult, []Finding, error) {
			steps, fs := SpecSteps(t, req.Options)
			return DatabaseResult{Outbox: t.Outbox.Name, Kind: t.Outbox.Database.Kind, Steps: steps}, fs, nil
		})
	}
	if req.Topics {
		_ = res.addTopics(req.Targets, req.Topic, func(specs []TopicSpec) ([]TopicResult, []Finding, error) {
			var out []TopicResult
			for _, s := range specs {
				out = append(out, TopicResult{TopicSpec: s, Action: "create"})
			}
			return out, nil, nil
		})
	}
	return res
}

// addDatabases adds the database result and findings of every target, as
// db gives them, stopping at db's first error.
func (res *Result) addDatabases(targets []Target, db func(Target) (DatabaseResult, []Finding, error)) error {
	for _, t := range targets {
		d, fs, err := db(t)
		if err != nil {
			return err
		}
		res.Databases = append(res.Databases, d)
		res.Findings = append(res.Findings, fs...)
	}
	return nil
}

// addTopics adds the topics of the targets (TopicSpecs with opts) with
// their findings, and the results and findings topics gives for them.
func (res *Result) addTopics(targets []Target, opts TopicOptions, topics func([]TopicSpec) ([]TopicResult, []Finding, error)) error {
	specs, fs := TopicSpecs(targets, opts)
	res.Findings = append(res.Findings, fs...)
	results, fs, err := topics(specs)
	if err != nil {
		return err
	}
	res.Topics = results
	res.Findings = append(res.Findings, fs...)
	return nil
}
