package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
)

type deployOptions struct {
	desiredFlags
	Connect          connectFlags
	DryRun           bool
	DetailedExitCode bool
	Timeout          time.Duration
	PollInterval     time.Duration
	NoWait           bool
	RestartFailed    bool
	Validate         bool
}

func newDeployCmd(env *Env) *cobra.Command {
	opts := &deployOptions{}
	c := &cobra.Command{
		Use:   "deploy -f connectors.json [flags]",
		Short: "Create or update connectors in Kafka Connect and wait until they run",
		Long: `Deploy makes Kafka Connect match the declared connectors and verifies it.

It computes the plan (see outboxctl plan), refuses blocked dangerous changes,
then writes only what changed: PUT /connectors/{name}/config for a new or
changed config (an identical PUT would restart the connector, so unchanged
connectors get no write), initial_state on create for paused or stopped
connectors (Kafka Connect 3.7+, else create then pause or stop), and pause,
resume or stop for a changed declared state. 409 answers during a rebalance
(and, for GET, PUT and DELETE, a follower's 500 "IO Error trying to forward
REST request" and 502, 503, 504) are retried with backoff (0.25 s doubling
to 4 s) for up to 90 s; a worker that refuses the connection is not
retried. Then it waits until each connector and every task
is RUNNING (or PAUSED, STOPPED as declared), printing progress on stderr; a
FAILED task's trace is shown. --prune deletes connectors that carry the
ownership marker (` + plan.OwnerKey + `) but are no longer declared; it is
never done by default, and it is refused (exit 3, nothing written) when it
would delete every connector this owner manages (--allow-prune-all) or more
than --prune-max connectors (default 1).

A connectors file with a masked value (generate's "********") is refused
(exit 2): deploy from the spec or from generate --no-resolve output.

From a spec, validate's blocking rules (outboxctl validate, errors) run
first: any error finding stops the deploy with exit 3, nothing written.
Before the first write, every config to be written is sent to Connect's
validate endpoint (--validate, on by default): one rejected value aborts the
deploy with nothing written, instead of failing halfway.

Exit codes: 0 every connector converged, 1 a connector or task FAILED, the
wait timed out or Connect was unreachable or refused a write, 2 bad input,
3 blocked dangerous changes or configs Connect's validation rejects (nothing
was written), 4 changes pending with --dry-run --detailed-exitcode, 130
interrupted by SIGINT or SIGTERM (the request in flight is abandoned; the
report, text or -o json, lists what was written and what was not).`,
		Example: `  $ outboxctl deploy -f connectors.json
  $ outboxctl deploy -f connectors.json --dry-run --detailed-exitcode
  $ outboxctl deploy -f connectors.json --allow SLOT_NAME_CHANGE --timeout 5m -o json
  $ outboxctl deploy -f outbox.yaml --prune --prune-max 2`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDeploy(c.Context(), env, opts)
		},
	}
	addDesiredFlags(c.Flags(), &opts.desiredFlags)
	addConnectFlags(c.Flags(), &opts.Connect)
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "only print the plan (same as outboxctl plan)")
	c.Flags().BoolVar(&opts.DetailedExitCode, "detailed-exitcode", false, "with --dry-run: exit 4 when changes are pending")
	c.Flags().DurationVar(&opts.Timeout, "timeout", 2*time.Minute, "how long to wait for the connectors to reach their state")
	c.Flags().BoolVar(&opts.NoWait, "no-wait", false, "do not wait for the connectors to reach their state")
	c.Flags().BoolVar(&opts.RestartFailed, "restart-failed", false, "restart FAILED connectors and tasks that get no config change")
	c.Flags().BoolVar(&opts.Validate, "validate", true, "validate every config to be written with Connect's validate endpoint first; any error aborts before the first write")
	c.Flags().DurationVar(&opts.PollInterval, "poll-interval", time.Second, "status polling interval while waiting")
	_ = c.Flags().MarkHidden("poll-interval")
	return c
}

func runDeploy(ctx context.Context, env *Env, opts *deployOptions) error {
	if opts.DetailedExitCode && !opts.DryRun {
		return UsageError(errors.New("--detailed-exitcode needs --dry-run: deploy applies the changes, so there is nothing pending to report (use `outboxctl plan --detailed-exitcode` in a pull request)"))
	}
	if !opts.DryRun {
		opts.preflight = "deploy"
	}
	p, client, err := computePlan(ctx, env, &opts.desiredFlags, &opts.Connect)
	if err != nil {
		return err
	}
	if opts.DryRun {
		if err := renderPlan(env.IO.Out, opts.Output, p); err != nil {
			return err
		}
		return planExit(p, opts.DetailedExitCode)
	}
	if opts.Output == "text" {
		if err := plan.RenderText(env.IO.Out, p); err != nil {
			return err
		}
		fmt.Fprintln(env.IO.Out)
	}
	if b := p.Blocked(); len(b) > 0 {
		if isStructured(opts.Output) {
			_ = writeAs(env.IO.Out, opts.Output, func(w io.Writer) error { return plan.RenderJSON(w, p) })
		}
		return WithExitCode(ExitCheckFailed, &plan.BlockedError{Findings: b})
	}
	if opts.Validate {
		if err := validateChanges(ctx, env, client, p); err != nil {
			return err
		}
	}
	settle := 3 * time.Second
	if opts.PollInterval < time.Second {
		settle = 3 * opts.PollInterval
	}
	rep, err := plan.Apply(ctx, client, p, plan.ApplyOptions{
		Timeout:       opts.Timeout,
		PollInterval:  opts.PollInterval,
		Settle:        settle,
		NoWait:        opts.NoWait,
		RestartFailed: opts.RestartFailed,
		Progress:      env.IO.ErrOut,
	})
	if errors.Is(err, plan.ErrInterrupted) && len(rep.Results) == 0 {
		return WithExitCode(ExitInterrupted, fmt.Errorf("%w before the first write: nothing was written", plan.ErrInterrupted))
	}
	if err != nil && len(rep.Results) == 0 {
		return connectHint(err)
	}
	if isStructured(opts.Output) {
		if rerr := writeAs(env.IO.Out, opts.Output, func(w io.Writer) error { return plan.RenderReportJSON(w, p, rep) }); rerr != nil {
			return rerr
		}
	} else if rerr := plan.RenderReportText(env.IO.Out, rep); rerr != nil {
		return rerr
	}
	if errors.Is(err, plan.ErrInterrupted) {
		return WithExitCode(ExitInterrupted, err)
	}
	if err != nil {
		return connectHint(err)
	}
	if failed := rep.Failed(); len(failed) > 0 {
		var names []string
		for _, f := range failed {
			names = append(names, f.Name)
		}
		return WithExitCode(ExitError, fmt.Errorf("%d of %d connector(s) did not converge: %s", len(failed), len(rep.Results), strings.Join(names, ", ")))
	}
	return nil
}

// validateChanges validates the configs the plan writes with Connect's
// validate endpoint and fails (exit 3) when Connect rejects any value.
func validateChanges(ctx context.Context, env *Env, client *connect.Client, p plan.Plan) error {
	var cs []connectorconfig.Connector
	for _, ch := range p.Changes {
		if ch.ConfigChanged && ch.Desired != nil {
			cs = append(cs, *ch.Desired)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	fs, err := connectorconfig.ValidateServer(ctx, client, cs)
	if err != nil {
		return connectHint(err)
	}
	if len(fs) == 0 {
		return nil
	}
	eos := ""
	for _, f := range fs {
		if f.Key == "exactly.once.support" {
			eos = " (a connector asks for exactly-once delivery: set exactly.once.source.support=enabled on every Connect worker)"
		}
		where := f.Connector
		if f.File != "" {
			where = fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Col, f.Connector)
		}
		fmt.Fprintf(env.IO.ErrOut, "%s: %s %s\n", where, f.Rule, f.Message)
	}
	return WithExitCode(ExitCheckFailed, fmt.Errorf("kafka connect's validation rejected %d config value(s): nothing was applied%s", len(fs), eos))
}
