package cmd

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/outboxctl/outboxctl/internal/settings"
	"io"
	"strconv"
	"strings"
	"time"

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
	Kafka             kafkaClientFlags
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
OUTBOX_BOOTSTRAP_SERVERS, else the context (outboxctl context --help); a
secured cluster takes the --kafka-* flags or OUTBOX_KAFKA_* variables
(SASL_SSL, SCRAM, a CA; passwords as env:NAME or file:PATH). Preflight findings that provisioning cannot fix
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
	addKafkaClientFlags(fs, &opts.Kafka)
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
	if err := env.applyDatabaseContext(); err != nil {
		return err
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
		kc, err := env.kafkaConfig(&opts.Kafka, "")
		if err != nil {
			return err
		}
		admin, err := newKafkaAdmin(kc)
		if err != nil {
			return err
		}
		defer admin.Close()
		results, fs, err := provisioning.EnsureTopics(ctx, provisioning.WithRequestTimeout(admin, timeout), specs, opts.DryRun)
		if err != nil {
			return admin.wrap(err)
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

type doctorOptions struct {
	Files           []string
	Output          string
	NoConnect       bool
	NoTopics        bool
	Connect         connectFlags
	MaxRetainedWAL  string
	MaxOldestRowAge time.Duration
	MaxConsumerLag  int64
	Groups          []string
	Kafka           kafkaClientFlags
}

func newDoctorCmd(env *Env) *cobra.Command {
	opts := &doctorOptions{}
	c := &cobra.Command{
		Use:   "doctor [-f outbox.yaml] [-o text|json|github-actions]",
		Short: "Check databases, connectors and topics of an outbox spec",
		Long: `Doctor runs the preflight checks of every outbox (PostgreSQL: wal_level,
slot and WAL sender headroom, the slot's retained WAL, the publication, replica
identity, the user's privileges; MySQL/MariaDB: log_bin, binlog_format=ROW,
binlog_row_image=FULL, server ids, GTID mode, binlog retention, grants; the
outbox table against the spec's column contract), then the connector's status
on Kafka Connect and the topics. Nothing is changed.

It also reports the operational state, each an error past its threshold
(0 turns a threshold off; the measurement stays as info):
  --max-retained-wal     WAL a PostgreSQL slot retains (default 1GiB)
  --max-oldest-row-age   age of the oldest outbox row, by the timestamp
                         column or the UUIDv7 id (default 24h: rows kept
                         after publishing need outboxctl cleanup)
  --max-consumer-lag     records a --group is behind on one partition
                         (default 10000)
The outbox table's size and row estimate are reported as info.

Exit codes: 0 healthy, 3 when a check fails (an error finding), 1 when a
service cannot be reached.`,
		Example: `  $ outboxctl doctor -f examples/outbox.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDoctor(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVarP(&opts.Output, "output", "o", "text", "output format: text, json or github-actions")
	fs.BoolVar(&opts.NoConnect, "no-connect", false, "skip the Kafka Connect checks")
	fs.BoolVar(&opts.NoTopics, "no-topics", false, "skip the Kafka topic checks")
	fs.StringVar(&opts.MaxRetainedWAL, "max-retained-wal", "1GiB", "WAL a replication slot may retain (bytes, or with KB, MB, GB, KiB, MiB, GiB; 0: no threshold)")
	fs.DurationVar(&opts.MaxOldestRowAge, "max-oldest-row-age", provisioning.DefaultMaxOldestRowAge, "age the oldest outbox row may reach (0: no threshold)")
	fs.Int64Var(&opts.MaxConsumerLag, "max-consumer-lag", provisioning.DefaultMaxConsumerLag, "records a consumer group may lag on one partition (0: no threshold)")
	fs.StringArrayVar(&opts.Groups, "group", nil, "consumer group whose lag to report (repeatable)")
	addConnectFlags(fs, &opts.Connect)
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

func runDoctor(ctx context.Context, env *Env, opts *doctorOptions) error {
	switch opts.Output {
	case "text", "json", "github-actions":
	default:
		return UsageError(fmt.Errorf("unknown output format %q: use text, json or github-actions", opts.Output))
	}
	if err := env.applyDatabaseContext(); err != nil {
		return err
	}
	maxWAL, err := parseByteSize(opts.MaxRetainedWAL)
	if err != nil {
		return UsageError(fmt.Errorf("--max-retained-wal: %w", err))
	}
	if opts.MaxOldestRowAge < 0 || opts.MaxConsumerLag < 0 {
		return UsageError(fmt.Errorf("--max-oldest-row-age and --max-consumer-lag must not be negative"))
	}
	if opts.NoTopics && len(opts.Groups) > 0 {
		return UsageError(fmt.Errorf("--group needs Kafka: drop --no-topics"))
	}
	th := provisioning.Thresholds{MaxRetainedWAL: maxWAL, MaxOldestRowAge: opts.MaxOldestRowAge, MaxConsumerLag: opts.MaxConsumerLag}
	targets, lookup, err := specTargets(env, opts.Files)
	if err != nil {
		return err
	}
	popts := provisioning.Options{Lookup: lookup}
	in := provisioning.HealthInput{
		Targets: targets,
		Preflight: func(ctx context.Context, t provisioning.Target) ([]provisioning.Finding, error) {
			s, err := openSession(ctx, env, t.Outbox)
			if err != nil {
				return nil, err
			}
			defer s.close()
			if err := s.connectDB(env, t.Outbox); err != nil {
				return nil, err
			}
			f, err := provisioning.Inspect(ctx, s.db, t, s.missing)
			if err != nil {
				return nil, err
			}
			fs := provisioning.Check(t, f, popts)
			var st *provisioning.TableStats
			if !s.missing {
				if st, err = provisioning.InspectTableStats(ctx, s.db, t); err != nil {
					return fs, err
				}
			}
			return append(fs, provisioning.CheckThresholds(t, f, st, th)...), nil
		},
		Groups:         opts.Groups,
		MaxConsumerLag: opts.MaxConsumerLag,
	}
	if !opts.NoConnect {
		client, err := connectClient(env, &opts.Connect)
		if err != nil {
			return err
		}
		in.Connect = client
	}
	if !opts.NoTopics {
		timeout, err := env.requestTimeout()
		if err != nil {
			return err
		}
		kc, err := env.kafkaConfig(&opts.Kafka, "")
		if err != nil {
			return err
		}
		admin, err := newKafkaAdmin(kc)
		if err != nil {
			return err
		}
		defer admin.Close()
		in.Admin = provisioning.WithRequestTimeout(admin, timeout)
		in.Lag = provisioning.WithLagRequestTimeout(admin.AdminClient, timeout)
	}
	rep := provisioning.Health(ctx, in)
	if rep.Findings == nil {
		rep.Findings = []provisioning.Finding{}
	}
	switch opts.Output {
	case "json":
		enc := json.NewEncoder(env.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	case "github-actions":
		for _, f := range rep.Findings {
			level := map[provisioning.Severity]string{provisioning.SeverityError: "error", provisioning.SeverityWarning: "warning"}[f.Severity]
			if level == "" {
				level = "notice"
			}
			msg := f.Outbox + ": " + f.Subject + ": " + f.Message
			if f.Fix != "" {
				msg += "\nfix: " + f.Fix
			}
			fmt.Fprintf(env.IO.Out, "::%s title=%s::%s\n", level, ghProp(f.ID), ghData(msg))
		}
	default:
		var b strings.Builder
		renderProvisionFindings(&b, rep.Findings)
		for _, l := range rep.Lag {
			fmt.Fprintf(&b, "lag\t%s\t%s\t%d\t%d\n", l.Group, l.Topic, l.Partition, l.Lag)
		}
		if len(rep.Errors) > 0 {
			fmt.Fprintf(&b, "%d checks could not run (see stderr)\n", len(rep.Errors))
		}
		io.WriteString(env.IO.Out, b.String())
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: %s\n", e)
	}
	if len(rep.Errors) > 0 {
		return WithExitCode(ExitError, SilentExit(ExitError))
	}
	if rep.Failed {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

// parseByteSize reads a size: a number of bytes, or one with a unit (KB,
// MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024).
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q: want bytes such as 1073741824, 512MiB or 1GiB", s)
	}
	return n * mult, nil
}
