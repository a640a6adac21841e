package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/provisioning/kafkaadmin"
)

type doctorOptions struct {
	Files     []string
	Output    string
	NoConnect bool
	NoTopics  bool
	Connect   connectFlags
	Kafka     kafkaClientFlags
	// Thresholds (see the help).
	MaxRetainedWAL       string
	MaxOldestRowAge      time.Duration
	MaxUnpublishedRowAge time.Duration
	MaxConsumerLag       int64
	Groups               []string
	// SummaryFile is --summary-file: the findings in Markdown are
	// appended to it.
	SummaryFile string
}

func newDoctorCmd(env *Env) *cobra.Command {
	opts := &doctorOptions{}
	c := &cobra.Command{
		Use:   "doctor [-f outbox.yaml] [-o text|json|yaml|github-actions]",
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
                         after publishing need outboxctl cleanup); an
                         outbox's "retention: 72h" in the spec replaces it
                         for that outbox, here and in the exporter
  --max-unpublished-row-age
                         age of the oldest row of a relay outbox, an
                         unpublished row (default 15m)
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
	addOutputFlag(c, &opts.Output, formatText, checkFormats...)
	fs.BoolVar(&opts.NoConnect, "no-connect", false, "skip the Kafka Connect checks")
	fs.BoolVar(&opts.NoTopics, "no-topics", false, "skip the Kafka topic checks")
	fs.StringVar(&opts.MaxRetainedWAL, "max-retained-wal", "1GiB", "WAL a replication slot may retain (bytes, or with KB, MB, GB, KiB, MiB, GiB; 0: no threshold)")
	fs.DurationVar(&opts.MaxOldestRowAge, "max-oldest-row-age", provisioning.DefaultMaxOldestRowAge, "age the oldest outbox row may reach (0: no threshold)")
	fs.DurationVar(&opts.MaxUnpublishedRowAge, "max-unpublished-row-age", provisioning.DefaultMaxUnpublishedRowAge, "age the oldest row of a relay outbox (unpublished) may reach (0: no threshold)")
	fs.Int64Var(&opts.MaxConsumerLag, "max-consumer-lag", provisioning.DefaultMaxConsumerLag, "records a consumer group may lag on one partition (0: no threshold)")
	fs.StringArrayVar(&opts.Groups, "group", nil, "consumer group whose lag to report (repeatable)")
	addConnectFlags(fs, &opts.Connect)
	addKafkaClientFlags(fs, &opts.Kafka)
	summaryFlag(fs, &opts.SummaryFile)
	return c
}

func runDoctor(ctx context.Context, env *Env, opts *doctorOptions) error {
	if err := env.applyDatabaseContext(); err != nil {
		return err
	}
	maxWAL, err := parseByteSize(opts.MaxRetainedWAL)
	if err != nil {
		return UsageError(fmt.Errorf("--max-retained-wal: %w", err))
	}
	if opts.MaxOldestRowAge < 0 || opts.MaxUnpublishedRowAge < 0 || opts.MaxConsumerLag < 0 {
		return UsageError(fmt.Errorf("--max-oldest-row-age, --max-unpublished-row-age and --max-consumer-lag must not be negative"))
	}
	if opts.NoTopics && len(opts.Groups) > 0 {
		return UsageError(fmt.Errorf("--group needs Kafka: drop --no-topics"))
	}
	th := provisioning.Thresholds{MaxRetainedWAL: maxWAL, MaxOldestRowAge: opts.MaxOldestRowAge,
		MaxUnpublishedRowAge: opts.MaxUnpublishedRowAge, MaxConsumerLag: opts.MaxConsumerLag}
	targets, lookup, err := specTargets(env, opts.Files)
	if err != nil {
		return err
	}
	popts := provisioning.Options{Lookup: lookup}
	in := provisioning.HealthInput{
		Targets:        targets,
		Preflight:      provisioning.DatabasePreflight(adminDSNs(env), popts, th),
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
		admin, _, err := env.openKafkaAdmin(&opts.Kafka)
		if err != nil {
			return err
		}
		defer admin.Close()
		ka := kafkaadmin.New(admin)
		in.Admin = provisioning.WithRequestTimeout(ka, timeout)
		in.Lag = provisioning.WithLagRequestTimeout(ka, timeout)
	}
	rep := provisioning.Health(ctx, in)
	if rep.Findings == nil {
		rep.Findings = []provisioning.Finding{}
	}
	switch opts.Output {
	case formatJSON, formatYAML:
		if err := writeAs(env.IO.Out, opts.Output, func(w io.Writer) error { return findings.WriteJSON(w, rep) }); err != nil {
			return err
		}
	case findings.FormatGitHubActions:
		if err := findings.PrintGitHubActions(env.IO.Out, provisioning.Findings(rep.Findings)); err != nil {
			return err
		}
	default:
		if err := provisioning.RenderReportText(env.IO.Out, rep); err != nil {
			return err
		}
	}
	if err := appendSummary(opts.SummaryFile, func(w io.Writer) error {
		return findings.PrintSummary(w, "outboxctl doctor", provisioning.Findings(rep.Findings))
	}); err != nil {
		return err
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
