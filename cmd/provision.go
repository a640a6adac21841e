package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	_ "github.com/go-sql-driver/mysql" // MySQL / MariaDB driver
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/provisioning/kafkaadmin"
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
		Use:   "provision [-f outbox.yaml] [--dry-run] [--database] [--topics] [-o text|json|yaml]",
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
  --topics    the routed topics (one per aggregate type), the schema
              history topic of MySQL/MariaDB connectors (1 partition,
              cleanup.policy=delete, retention.ms=-1), the heartbeat topic
              and the consumers' dead-letter topics; each with the outbox's
              topics.replicationFactor (unless --replication-factor) and
              topics.minInsyncReplicas.

Without either flag both are provisioned. --dry-run prints, from the spec
alone and without connecting to anything, every step and topic an empty
server needs (with the SQL; passwords masked). --dry-run --live instead
inspects the databases, prints only the missing steps and asks the broker to
validate the topic creations; neither changes anything. The admin
connections come from OUTBOXCTL_PG_DSN, OUTBOXCTL_MARIADB_DSN,
OUTBOXCTL_MYSQL_DSN and OUTBOXCTL_BOOTSTRAP_SERVERS, else the context
(outboxctl context --help); a secured cluster takes the --kafka-* flags or
OUTBOXCTL_KAFKA_* variables (SASL_SSL, SCRAM, a CA; passwords as env:NAME or
file:PATH; see outboxctl help environment). Before the first step,
validate's blocking rules run on the spec: an error finding (a name no step
can use, for example) exits 3 with nothing changed. Preflight findings that
provisioning cannot fix (wal_level, binlog settings) are reported; errors among them exit 3.`,
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
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	fs.IntVar(&opts.Partitions, "partitions", 0, "partitions of routed topics (default: the broker's num.partitions)")
	fs.IntVar(&opts.ReplicationFactor, "replication-factor", 0, "replication factor of created topics (default: the outbox's topics.replicationFactor, else the broker's)")
	fs.StringVar(&opts.UserHost, "user-host", "%", "MySQL/MariaDB account host of created users")
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

// specTargets loads the spec and pairs each outbox with its generated
// connector (secrets resolved).
func specTargets(env *Env, files []string) ([]provisioning.Target, *spec.Lookup, error) {
	s, err := loadSpec(env, files)
	if err != nil {
		return nil, nil, err
	}
	return specTargetsOf(env, s)
}

// specTargetsOf is specTargets of a loaded spec.
func specTargetsOf(env *Env, s *spec.Spec) ([]provisioning.Target, *spec.Lookup, error) {
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

// adminDSNs are the admin connections of the settings.
func adminDSNs(env *Env) provisioning.AdminDSNs {
	return provisioning.AdminDSNs{Postgres: env.Settings.PostgresDSN, MySQL: env.Settings.MySQLDSN, MariaDB: env.Settings.MariaDBDSN}
}

// adminDB is the driver and admin DSN of an outbox's database server.
func adminDB(env *Env, o *spec.Outbox) (driver, dsn string) {
	return adminDSNs(env).For(o.Database.Kind)
}

func runProvision(ctx context.Context, env *Env, opts *provisionOptions) error {
	if opts.Partitions < 0 || opts.Partitions > provisioning.MaxPartitions {
		return UsageError(fmt.Errorf("--partitions %d: want 1..%d, or 0 for the broker's num.partitions", opts.Partitions, provisioning.MaxPartitions))
	}
	if opts.ReplicationFactor < 0 || opts.ReplicationFactor > provisioning.MaxReplicationFactor {
		return UsageError(fmt.Errorf("--replication-factor %d: want 1..%d, or 0 for the broker default", opts.ReplicationFactor, provisioning.MaxReplicationFactor))
	}
	if err := env.applyDatabaseContext(); err != nil {
		return err
	}
	s, err := loadSpec(env, opts.Files)
	if err != nil {
		return err
	}
	if !opts.DryRun {
		// validate's blocking rules first: a name no step can use must
		// not stop provisioning halfway.
		if err := preflightSpec(env, s, "provision"); err != nil {
			return err
		}
	}
	targets, lookup, err := specTargetsOf(env, s)
	if err != nil {
		return err
	}
	req := provisioning.Request{
		Targets:  targets,
		Options:  provisioning.Options{Lookup: lookup, UserHost: opts.UserHost},
		Database: opts.Database || !opts.Topics,
		Topics:   opts.Topics || !opts.Database,
		Topic:    provisioning.TopicOptions{Partitions: opts.Partitions, ReplicationFactor: opts.ReplicationFactor},
		DryRun:   opts.DryRun,
		DSNs:     adminDSNs(env),
		Progress: env.IO.ErrOut,
	}
	var rep provisioning.Result
	if opts.DryRun && !opts.Live {
		rep = provisioning.SpecResult(req)
		if opts.Output == "text" {
			fmt.Fprintln(env.IO.ErrOut, "outboxctl: --dry-run from the spec alone (no database or broker asked): what an empty server needs; steps already done are skipped by a real run; --live compares with the servers")
		}
	} else {
		var admin *kafkaAdmin
		defer func() {
			if admin != nil {
				admin.Close()
			}
		}()
		req.OpenAdmin = func() (provisioning.TopicAdmin, error) {
			timeout, err := env.requestTimeout()
			if err != nil {
				return nil, err
			}
			a, _, err := env.openKafkaAdmin(&opts.Kafka)
			if err != nil {
				return nil, err
			}
			admin = a
			return provisioning.WithRequestTimeout(kafkaadmin.New(a), timeout), nil
		}
		rep, err = provisioning.Provision(ctx, req)
		if err != nil {
			if admin != nil {
				// The topics come last: the error is the broker's.
				return admin.wrap(err)
			}
			return err
		}
	}
	if err := renderProvision(env.IO.Out, opts.Output, rep); err != nil {
		return err
	}
	if provisioning.Failed(rep.Findings) {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

func renderProvision(w io.Writer, format string, rep provisioning.Result) error {
	if isStructured(format) {
		return writeAs(w, format, func(w io.Writer) error { return findings.WriteJSON(w, rep) })
	}
	return provisioning.RenderText(w, rep)
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
