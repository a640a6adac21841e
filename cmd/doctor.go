package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/provisioning"
)

type doctorOptions struct {
	Files     []string
	Output    string
	NoConnect bool
	NoTopics  bool
	Connect   connectFlags
	// SummaryFile is --summary-file: the findings in Markdown are
	// appended to it.
	SummaryFile string
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
	addConnectFlags(fs, &opts.Connect)
	summaryFlag(fs, &opts.SummaryFile)
	return c
}

func runDoctor(ctx context.Context, env *Env, opts *doctorOptions) error {
	if err := findings.CheckFormat(opts.Output); err != nil {
		return UsageError(err)
	}
	targets, lookup, err := specTargets(env, opts.Files)
	if err != nil {
		return err
	}
	popts := provisioning.Options{Lookup: lookup}
	in := provisioning.HealthInput{
		Targets: targets,
		Preflight: func(ctx context.Context, t provisioning.Target) ([]provisioning.Finding, error) {
			s, err := provisioning.OpenSession(ctx, adminDSNs(env), t.Outbox)
			if err != nil {
				return nil, err
			}
			defer s.Close()
			if err := s.ConnectDB(); err != nil {
				return nil, err
			}
			f, err := provisioning.Inspect(ctx, s.DB, t, s.Missing)
			if err != nil {
				return nil, err
			}
			return provisioning.Check(t, f, popts), nil
		},
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
		admin, err := newKafkaAdmin(env.Settings.BootstrapServers)
		if err != nil {
			return err
		}
		defer admin.Close()
		in.Admin = provisioning.WithRequestTimeout(admin, timeout)
	}
	rep := provisioning.Health(ctx, in)
	if rep.Findings == nil {
		rep.Findings = []provisioning.Finding{}
	}
	switch opts.Output {
	case findings.FormatJSON:
		if err := findings.WriteJSON(env.IO.Out, rep); err != nil {
			return err
		}
	case findings.FormatGitHubActions:
		if err := findings.PrintGitHubActions(env.IO.Out, provisioning.Findings(rep.Findings)); err != nil {
			return err
		}
	default:
		var b strings.Builder
		renderProvisionFindings(&b, rep.Findings)
		if len(rep.Errors) > 0 {
			fmt.Fprintf(&b, "%d checks could not run (see stderr)\n", len(rep.Errors))
		}
		io.WriteString(env.IO.Out, b.String())
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
