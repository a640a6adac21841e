package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/spec"
)

type validateOptions struct {
	Files            []string
	Output           string
	Server           bool
	FailOn           string
	BootstrapServers kafkaFlags
	Connect          connectFlags
	SummaryFile      string
}

func newValidateCmd(env *Env) *cobra.Command {
	opts := &validateOptions{}
	c := &cobra.Command{
		Use:   "validate [-f outbox.yaml|dir]... [-o text|json|yaml|github-actions] [--server]",
		Short: "Check an outbox spec and its generated connector configs with Debezium-aware rules",
		Long: `Validate loads the outbox spec, generates the connector configs and runs
every local rule over them (see "outboxctl validate --list-rules"): EventRouter
enums, the placement grammar, route.topic.regex under Java's regex rules, keys
renamed or removed between Debezium 1.x and 3.6, slot names, server ids,
include lists, payload column type against the converter, connector, topic
and subject names (Kafka Connect's and Kafka's rules, for every routed topic
of the spec's event types), and every .avsc file the spec names (missing or
not parsing). Every finding is reported with the spec file, line and column
it comes from.

With --server each config is also sent to Kafka Connect's validate endpoint
(PUT /connector-plugins/{class}/config/validate), with secrets resolved, and
its per-key errors are mapped back to the spec lines.

Warnings (a choice that is legal but likely wrong, such as a snapshot mode
that re-publishes old outbox rows) are reported but do not fail the command
unless --fail-on warning is given, as in CI pipelines that want them fixed.

Exit status: 0 no finding at or above --fail-on (default error), 3 such
findings, 2 the spec does not load, 1 Connect unreachable with --server.`,
		Example: `  $ outboxctl validate -f examples/outbox.yaml
  $ outboxctl validate -f specs/ -o github-actions
  $ outboxctl validate --server --connect-url http://connect:8083`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if list, _ := c.Flags().GetBool("list-rules"); list {
				return listRules(env.IO.Out, opts.Output)
			}
			return runValidate(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	addOutputFlag(c, &opts.Output, formatText, checkFormats...)
	fs.BoolVar(&opts.Server, "server", false, "also validate with Kafka Connect's validate endpoint")
	fs.StringVar(&opts.FailOn, "fail-on", "error", "lowest severity that fails the command (exit 3): error or warning")
	fs.Bool("list-rules", false, "list the rules and exit")
	summaryFlag(fs, &opts.SummaryFile)
	addKafkaFlags(fs, &opts.BootstrapServers)
	addConnectFlags(fs, &opts.Connect)
	return c
}

func listRules(w io.Writer, format string) error {
	rules := connectorconfig.RuleDocs()
	if isStructured(format) {
		return writeAs(w, format, func(w io.Writer) error { return findings.WriteJSON(w, rules) })
	}
	for _, r := range rules {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.ID, r.Severity, r.Purpose)
	}
	return nil
}

func runValidate(ctx context.Context, env *Env, opts *validateOptions) error {
	switch opts.FailOn {
	case "error", "warning":
	default:
		return UsageError(fmt.Errorf("unknown --fail-on %q: use error or warning", opts.FailOn))
	}
	s, err := loadSpec(env, opts.Files)
	if err != nil {
		var list spec.ErrorList
		if opts.Output != "text" && errors.As(err, &list) {
			// Machine formats get the spec errors as findings too.
			fs := specFindings(list)
			if rerr := renderFindings(env.IO.Out, opts.Output, fs); rerr != nil {
				return rerr
			}
			if serr := appendValidateSummary(opts.SummaryFile, fs); serr != nil {
				return serr
			}
			return SilentExit(ExitUsage)
		}
		return err
	}
	// Local rules work on the references; only the server needs secrets.
	cs, err := generateConnectors(env, s, nil, &opts.BootstrapServers)
	if err != nil {
		return err
	}
	found := connectorconfig.Validate(s, cs)
	if opts.Server {
		resolved, err := generateConnectors(env, s, envLookup(env), &opts.BootstrapServers)
		if err != nil {
			return err
		}
		for _, c := range resolved {
			env.traceSecrets(c.Sensitive, c.Config)
		}
		client, err := connectClient(env, &opts.Connect)
		if err != nil {
			return err
		}
		server, err := connectorconfig.ValidateServer(ctx, client, resolved)
		found = append(found, server...)
		if err != nil {
			return WithExitCode(ExitError, errors.New(connectorconfig.MaskString(err.Error(), resolved...)))
		}
	}
	if err := renderFindings(env.IO.Out, opts.Output, found); err != nil {
		return err
	}
	if err := appendValidateSummary(opts.SummaryFile, found); err != nil {
		return err
	}
	if opts.Output == "text" {
		fmt.Fprintln(env.IO.ErrOut, summary(found, len(cs)))
	}
	for _, f := range found {
		if f.Severity == connectorconfig.SeverityError || (opts.FailOn == "warning" && f.Severity == connectorconfig.SeverityWarning) {
			return SilentExit(ExitCheckFailed)
		}
	}
	return nil
}

// appendValidateSummary appends validate's findings in Markdown to the
// --summary-file (nothing without one).
func appendValidateSummary(path string, fs []connectorconfig.Finding) error {
	return appendSummary(path, func(w io.Writer) error {
		return findings.PrintSummary(w, "outboxctl validate", connectorconfig.Findings(fs))
	})
}

// SpecRuleID marks spec load errors rendered as findings.
const SpecRuleID = "SPEC_INVALID"

func specFindings(list spec.ErrorList) []connectorconfig.Finding {
	out := make([]connectorconfig.Finding, 0, len(list))
	for _, e := range list {
		out = append(out, connectorconfig.Finding{
			Rule: SpecRuleID, Severity: connectorconfig.SeverityError,
			File: e.Pos.File, Line: e.Pos.Line, Col: e.Pos.Col, Message: e.Msg,
		})
	}
	return out
}

func summary(fs []connectorconfig.Finding, connectors int) string {
	if len(fs) == 0 {
		return fmt.Sprintf("%d connector(s) checked, no findings", connectors)
	}
	c := findings.Count(connectorconfig.Findings(fs))
	s := fmt.Sprintf("%d connector(s) checked: %d finding(s), %d error(s), %d warning(s)", connectors, len(fs), c.Errors, c.Warnings)
	if c.Infos > 0 {
		s += fmt.Sprintf(", %d note(s)", c.Infos)
	}
	return s
}

func renderFindings(w io.Writer, format string, fs []connectorconfig.Finding) error {
	switch format {
	case formatJSON, formatYAML:
		if fs == nil {
			fs = []connectorconfig.Finding{}
		}
		return writeAs(w, format, func(w io.Writer) error {
			return findings.WriteJSON(w, struct {
				Findings []connectorconfig.Finding `json:"findings"`
			}{fs})
		})
	case findings.FormatGitHubActions:
		return findings.PrintGitHubActions(w, connectorconfig.Findings(fs))
	}
	return findings.PrintText(w, connectorconfig.Findings(fs))
}
