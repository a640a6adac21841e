package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/verify"
)

type verifyOptions struct {
	Files   []string
	Outbox  string
	Output  string
	Timeout time.Duration
	Connect connectFlags
	Kafka   kafkaClientFlags
}

func newVerifyCmd(env *Env) *cobra.Command {
	opts := &verifyOptions{}
	c := &cobra.Command{
		Use:   "verify [-f outbox.yaml] [--outbox NAME] [-o text|json|yaml] [--timeout D]",
		Short: "Send a canary event through a deployed outbox and check every stage",
		Long: `Verify is the smoke test to run after deploy. For each outbox (or --outbox) it
checks that the connector and its tasks are RUNNING, writes one canary event
(type outboxctl.Canary) through the outbox writer in a transaction, waits for
it on the routed topic with the key and headers the EventRouter makes of it
under the generated connector config, decodes it with the consumer SDK (whose
Router skips canaries and counts them in Router.Stats) and deletes the canary
row where the outbox keeps rows. It reports the latency of each stage:
connector (or relay), database write, capture (connector outboxes: from the
commit to the record's timestamp on the topic), topic (from the commit until
verify read the record back), decode, and the informational offset flush
(PostgreSQL: until the slot confirmed the commit, Connect's offset flush; it
never fails the run).

A relay-published outbox needs outboxctl relay running: its relay stage fails
with that hint when no record arrives.

Exit codes: 0 every stage passed; 5 a stage failed (the report and the message
name it); 1 operational error: a server unreachable before the canary, the
verifier's own connection to Kafka Connect, Kafka or the database failing
(the stage's status is "error", not failed), or SIGINT/SIGTERM while it
waits (the canary row is deleted before it exits). librdkafka's log lines
are shown with -v only.

Canary records are ordinary outbox events of type outboxctl.Canary (the
EventRouter's type header, "eventType" unless the spec renames it), keyed
outboxctl-canary. The consumer SDK skips them; other consumers should skip
records with that type header.`,
		Example: `  $ outboxctl verify -f outbox.yaml
  $ outboxctl verify -f outbox.yaml --outbox orders -o json --timeout 2m`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runVerify(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.Outbox, "outbox", "", "verify only this outbox (default: every outbox of the spec)")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	fs.DurationVar(&opts.Timeout, "timeout", verify.DefaultTimeout, "bound of each outbox's verification")
	addConnectFlags(fs, &opts.Connect)
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

func runVerify(ctx context.Context, env *Env, opts *verifyOptions) error {
	// SIGINT/SIGTERM end the wait: verify.Run deletes the canary row and
	// returns verify.ErrInterrupted (exit 1).
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var names []string
	if opts.Outbox != "" {
		names = []string{opts.Outbox}
	}
	targets, _, err := outboxTargets(env, opts.Files, names...)
	if err != nil {
		return err
	}
	// Kafka as every other command reaches it: flags > environment >
	// context, security included (SASL, TLS).
	kc, err := env.kafkaConfig(&opts.Kafka, "")
	if err != nil {
		return err
	}
	var client *connect.Client
	for _, t := range targets {
		if !t.Outbox.RelayPublished() && client == nil {
			if client, err = connectClient(env, &opts.Connect); err != nil {
				return err
			}
		}
	}
	var reports []verify.Report
	var failed, opErr error
	for _, t := range targets {
		db, err := outboxDB(env, t.Outbox)
		if err != nil {
			return err
		}
		vo := verify.Options{Outbox: t.Outbox, Config: t.Connector.Config, DB: db, Kafka: kc, Timeout: opts.Timeout, Logf: env.logf}
		if client != nil {
			name := t.Connector.Name
			vo.ConnectorState = func(ctx context.Context) (string, error) { return connectorState(ctx, client, name) }
		}
		rep, err := verify.Run(ctx, vo)
		db.Close()
		reports = append(reports, rep)
		if err != nil {
			fmt.Fprintf(env.IO.ErrOut, "outboxctl: outbox %s: %v\n", t.Outbox.Name, err)
			if errors.Is(err, verify.ErrFailed) {
				failed = err
			} else {
				opErr = err
			}
		}
	}
	if isStructured(opts.Output) {
		if err := writeStructured(env.IO.Out, opts.Output, map[string]any{"reports": reports}); err != nil {
			return err
		}
	} else {
		for _, r := range reports {
			verdict := "ok"
			switch {
			case r.Failed != "":
				verdict = "FAILED at the " + r.Failed + " stage"
			case !r.OK:
				verdict = "not verified: a server did not answer"
			}
			fmt.Fprintf(env.IO.Out, "outbox %s: %s (canary %s on %s)\n", r.Outbox, verdict, r.EventID, r.Topic)
			for _, s := range r.Stages {
				fmt.Fprintf(env.IO.Out, "  %-15s %-8s %9.1f ms  %s\n", s.Stage, s.Status, s.LatencyMs, s.Message)
			}
		}
	}
	switch {
	case failed != nil:
		return SilentExit(ExitVerifyFailed)
	case opErr != nil:
		return SilentExit(ExitError)
	}
	return nil
}

// connectorState is "" when the connector and all its tasks are RUNNING,
// else what is not.
func connectorState(ctx context.Context, client *connect.Client, name string) (string, error) {
	st, err := client.Status(ctx, name)
	if errors.Is(err, connect.ErrNotFound) {
		return "connector " + name + " is not deployed (outboxctl deploy)", nil
	}
	if err != nil {
		return "", fmt.Errorf("connector %s status: %w", name, err)
	}
	var bad []string
	if st.Connector.State != connect.StateRunning {
		bad = append(bad, "connector "+name+" is "+st.Connector.State)
	}
	if st.Connector.State == connect.StateRunning && len(st.Tasks) == 0 {
		bad = append(bad, "connector "+name+" has no tasks")
	}
	for _, tk := range st.Tasks {
		if tk.State != connect.StateRunning {
			bad = append(bad, fmt.Sprintf("task %d is %s", tk.ID, tk.State))
		}
	}
	return strings.Join(bad, ", "), nil
}
