package cmd

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/outboxctl/outboxctl/internal/settings"
	"io"
	"strings"

	_ "github.com/go-sql-driver/mysql" // MySQL / MariaDB driver
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

type provisionOptions struct {
	Files             []string
	DryRun            bool
	Topics            bool
	Database          bool
	Output            string
	Partitions        int
	ReplicationFactor int
	UserHost          string
	Live              bool
}

func newProvisionCmd(env *Env) *cobra.Command {
	opts := &provisionOptions{}
	c := &cobra.Command{
		Use:   "provision [-f outbox.yaml] [--dry-run] [--database] [--topics] [-o text|json]",
		Short: "Create the outbox tables, publications, replication users and Kafka topics of a spec",
		Long: `Provision prepares what each outbox of the spec needs, idempotently:

  --database  the database (if missing), the outbox table in the spec's column
              contract, for PostgreSQL the publication the connector names,
              and the connector's user with least privileges (PostgreSQL:
              LOGIN REPLICATION, SELECT, and with publication.autocreate.mode
              filtered a shared owner group; MySQL/MariaDB: RELOAD, SHOW
              DATABASES, REPLICATION SLAVE, REPLICATION CLIENT/BINLOG MONITOR
              and SELECT on the outbox database). The password comes from the
              spec's ${env:…} or ${file:…} reference and is never printed.
  --topics    the routed topics (one per aggregate type) and the schema
              history topic of MySQL/MariaDB connectors (1 partition,
              cleanup.policy=delete, retention.ms=-1).

Without either flag both are provisioned. --dry-run prints, from the spec
alone and without connecting to anything, every step and topic an empty
server needs (with the SQL; passwords masked). --dry-run --live instead
inspects the databases, prints only the missing steps and asks the broker to
validate the topic creations; neither changes anything. The admin
connections come from OUTBOX_PG_DSN, OUTBOX_MARIADB_DSN, OUTBOX_MYSQL_DSN and
OUTBOX_BOOTSTRAP_SERVERS. Preflight findings that provisioning cannot fix
(wal_level, binlog settings) are reported; errors among them exit 3.`,
		Example: `  $ outboxctl provision -f examples/outbox.yaml --dry-run
  $ outboxctl provision -f examples/outbox.yaml --dry-run --live --topics
  $ outboxctl provision -f examples/outbox.yaml --database -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runProvision(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "print what would be done (with the SQL) from the spec alone, connecting to nothing, and change nothing")
	fs.BoolVar(&opts.Live, "live", false, "with --dry-run: compare with the live databases and have the broker validate the topic creations (needs the admin connections)")
	fs.BoolVar(&opts.Database, "database", false, "provision the databases only")
	fs.BoolVar(&opts.Topics, "topics", false, "provision the Kafka topics only")
	fs.StringVarP(&opts.Output, "output", "o", "text", "output format: text or json")
	fs.IntVar(&opts.Partitions, "partitions", 0, "partitions of routed topics (default: the broker's num.partitions)")
	fs.IntVar(&opts.ReplicationFactor, "replication-factor", 0, "replication factor of created topics (default: the broker's)")
	fs.StringVar(&opts.UserHost, "user-host", "%", "MySQL/MariaDB account host of created users")
	return c
}

// outboxResult is the provisioning of one outbox's database.
type outboxResult struct {
	Outbox  string              `json:"outbox"`
	Kind    string              `json:"kind"`
	Steps   []provisioning.Step `json:"steps"`
	Applied bool                `json:"applied"`
}

type provisionReport struct {
	DryRun bool `json:"dryRun"`
	// FromSpec: computed from the spec alone (--dry-run without --live).
	FromSpec  bool                       `json:"fromSpec,omitempty"`
	Databases []outboxResult             `json:"databases,omitempty"`
	Topics    []provisioning.TopicResult `json:"topics,omitempty"`
	Findings  []provisioning.Finding     `json:"findings"`
}

// specTargets loads the spec and pairs each outbox with its generated
// connector (secrets resolved).
func specTargets(env *Env, files []string) ([]provisioning.Target, *spec.Lookup, error) {
	s, err := loadSpec(env, files)
	if err != nil {
		return nil, nil, err
	}
	lookup := envLookup(env)
	ts, err := provisioning.Targets(s, genOptions(env, lookup, nil))
	if err != nil {
		if errors.Is(err, spec.ErrSecretUnresolved) {
			return nil, nil, UsageError(err)
		}
		return nil, nil, err
	}
	return ts, lookup, nil
}

// adminDB opens the admin connection for an outbox: the server connection
// from the settings and, for PostgreSQL, a connection to the outbox's
// database (nil while it does not exist).
func adminDB(env *Env, o *spec.Outbox) (driver, dsn string) {
	switch o.Database.Kind {
	case spec.Postgres:
		return "pgx", env.Settings.PostgresDSN
	case spec.MySQL:
		return "mysql", env.Settings.MySQLDSN
	}
	return "mysql", env.Settings.MariaDBDSN
}

// dbSession is an open admin session for one outbox.
type dbSession struct {
	server, db *sql.DB
	missing    bool
	create     *provisioning.Step
}

func (s *dbSession) close() {
	if s.db != nil && s.db != s.server {
		s.db.Close()
	}
	s.server.Close()
}

func openSession(ctx context.Context, env *Env, o *spec.Outbox) (*dbSession, error) {
	driver, dsn := adminDB(env, o)
	server, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("outbox %s: %w", o.Name, err)
	}
	s := &dbSession{server: server, db: server}
	step, missing, err := provisioning.PlanDatabase(ctx, server, o)
	if err != nil {
		server.Close()
		return nil, err
	}
	s.missing = missing
	if missing {
		s.create = &step
	}
	return s, nil
}

// connectDB opens the per-database connection (PostgreSQL).
func (s *dbSession) connectDB(env *Env, o *spec.Outbox) error {
	if o.Database.Kind != spec.Postgres || s.missing {
		return nil
	}
	_, dsn := adminDB(env, o)
	db, err := sql.Open("pgx", settings.PostgresDSNWithDatabase(dsn, o.Database.Connection.DBName))
	if err != nil {
		return err
	}
	s.db = db
	return nil
}

func runProvision(ctx context.Context, env *Env, opts *provisionOptions) error {
	if opts.Output != "text" && opts.Output != "json" {
		return UsageError(fmt.Errorf("unknown output format %q: use text or json", opts.Output))
	}
	targets, lookup, err := specTargets(env, opts.Files)
	if err != nil {
		return err
	}
	doDB, doTopics := opts.Database || !opts.Topics, opts.Topics || !opts.Database
	popts := provisioning.Options{Lookup: lookup, UserHost: opts.UserHost}
	rep := provisionReport{DryRun: opts.DryRun}
	if opts.DryRun && !opts.Live {
		return provisionFromSpec(env, opts, targets, popts, doDB, doTopics)
	}
	if doDB {
		for _, t := range targets {
			res, fs, err := provisionDatabase(ctx, env, t, popts, opts.DryRun)
			if err != nil {
				return err
			}
			rep.Databases = append(rep.Databases, res)
			rep.Findings = append(rep.Findings, fs...)
		}
	}
	if doTopics {
		specs, fs := provisioning.TopicSpecs(targets, provisioning.TopicOptions{Partitions: opts.Partitions, ReplicationFactor: opts.ReplicationFactor})
		rep.Findings = append(rep.Findings, fs...)
		timeout, err := env.requestTimeout()
		if err != nil {
			return err
		}
		admin, err := newKafkaAdmin(env.Settings.BootstrapServers)
		if err != nil {
			return err
		}
		defer admin.Close()
		results, fs, err := provisioning.EnsureTopics(ctx, provisioning.WithRequestTimeout(admin, timeout), specs, opts.DryRun)
		if err != nil {
			return admin.wrap(err, env.Settings.BootstrapServers)
		}
		rep.Topics = results
		rep.Findings = append(rep.Findings, fs...)
	}
	if rep.Findings == nil {
		rep.Findings = []provisioning.Finding{}
	}
	if err := renderProvision(env.IO.Out, opts.Output, rep); err != nil {
		return err
	}
	if provisioning.Failed(rep.Findings) {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

// provisionFromSpec is provision --dry-run without --live: every step an
// empty server would need and every topic, from the spec alone, with no
// connection to a database or broker.
func provisionFromSpec(env *Env, opts *provisionOptions, targets []provisioning.Target, popts provisioning.Options, doDB, doTopics bool) error {
	rep := provisionReport{DryRun: true, FromSpec: true, Findings: []provisioning.Finding{}}
	if doDB {
		for _, t := range targets {
			steps, fs := provisioning.SpecSteps(t, popts)
			rep.Databases = append(rep.Databases, outboxResult{Outbox: t.Outbox.Name, Kind: t.Outbox.Database.Kind, Steps: steps})
			rep.Findings = append(rep.Findings, fs...)
		}
	}
	if doTopics {
		specs, fs := provisioning.TopicSpecs(targets, provisioning.TopicOptions{Partitions: opts.Partitions, ReplicationFactor: opts.ReplicationFactor})
		rep.Findings = append(rep.Findings, fs...)
		for _, s := range specs {
			rep.Topics = append(rep.Topics, provisioning.TopicResult{TopicSpec: s, Action: "create"})
		}
	}
	if opts.Output == "text" {
		fmt.Fprintln(env.IO.ErrOut, "outboxctl: --dry-run from the spec alone (no database or broker asked): what an empty server needs; steps already done are skipped by a real run; --live compares with the servers")
	}
	if err := renderProvision(env.IO.Out, opts.Output, rep); err != nil {
		return err
	}
	if provisioning.Failed(rep.Findings) {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

func provisionDatabase(ctx context.Context, env *Env, t provisioning.Target, popts provisioning.Options, dryRun bool) (outboxResult, []provisioning.Finding, error) {
	o := t.Outbox
	res := outboxResult{Outbox: o.Name, Kind: o.Database.Kind, Steps: []provisioning.Step{}}
	s, err := openSession(ctx, env, o)
	if err != nil {
		return res, nil, err
	}
	defer s.close()
	if s.create != nil {
		res.Steps = append(res.Steps, *s.create)
		if !dryRun {
			fmt.Fprintf(env.IO.ErrOut, "outbox %s: %s\n", o.Name, s.create.Description)
			if err := provisioning.Apply(ctx, s.server, []provisioning.Step{*s.create}); err != nil {
				return res, nil, err
			}
			s.missing = false
		}
	}
	if err := s.connectDB(env, o); err != nil {
		return res, nil, err
	}
	steps, fs, err := provisioning.Plan(ctx, s.db, t, s.missing, popts)
	if err != nil {
		return res, nil, err
	}
	res.Steps = append(res.Steps, steps...)
	if !dryRun && len(steps) > 0 {
		fmt.Fprintf(env.IO.ErrOut, "outbox %s: applying %d steps\n", o.Name, len(steps))
		if err := provisioning.Apply(ctx, s.db, steps); err != nil {
			return res, fs, err
		}
	}
	res.Applied = !dryRun
	return res, fs, nil
}

func renderProvision(w io.Writer, format string, rep provisionReport) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	var b strings.Builder
	verb := "applied"
	if rep.DryRun {
		verb = "would apply"
	}
	for _, d := range rep.Databases {
		if len(d.Steps) == 0 {
			fmt.Fprintf(&b, "outbox %s (%s): database up to date\n", d.Outbox, d.Kind)
			continue
		}
		fmt.Fprintf(&b, "outbox %s (%s): %s %d steps\n", d.Outbox, d.Kind, verb, len(d.Steps))
		for _, s := range d.Steps {
			fmt.Fprintf(&b, "+ %s: %s\n", s.ID, s.Description)
			if rep.DryRun {
				for _, l := range strings.Split(s.Display, "\n") {
					fmt.Fprintf(&b, "    %s\n", l)
				}
			}
		}
	}
	b.WriteString(provisioning.RenderTopicResults(rep.Topics))
	renderProvisionFindings(&b, rep.Findings)
	_, err := io.WriteString(w, b.String())
	return err
}

func renderProvisionFindings(b *strings.Builder, fs []provisioning.Finding) {
	counts := map[provisioning.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
		fmt.Fprintf(b, "%s %s [%s] %s: %s\n", f.Severity, f.ID, f.Outbox, f.Subject, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(b, "    fix: %s\n", f.Fix)
		}
	}
	fmt.Fprintf(b, "%d errors, %d warnings, %d notes\n", counts[provisioning.SeverityError], counts[provisioning.SeverityWarning], counts[provisioning.SeverityInfo])
}
