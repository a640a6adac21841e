// Package cmd is the cobra command tree of outboxctl. It is a thin layer: each
// verb has an options struct, a constructor that only fills it from flags and
// arguments, and a run function that calls one library entry point and one
// renderer. Library packages never import this package.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/internal/httptrace"
	"github.com/outboxctl/outboxctl/internal/redact"
	"github.com/outboxctl/outboxctl/internal/settings"
)

// IOStreams are the streams a command reads and writes. Data goes to Out,
// progress, warnings and errors go to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Env is what every command is given: its streams and the connection
// settings (flags override them per command).
type Env struct {
	IO       IOStreams
	Settings settings.Settings
	// Getenv reads the process environment; tests replace it.
	Getenv func(string) string
	// RequestTimeout bounds each request to Kafka Connect, the schema
	// registry and Kafka (--request-timeout, $OUTBOXCTL_REQUEST_TIMEOUT);
	// 0 means no bound.
	RequestTimeout time.Duration
	// trace is the HTTP trace of -v/--verbose (nil without it).
	trace *httptrace.Transport
	// verbose is -v/--verbose: logf prints.
	verbose bool
	// timeoutErr is a bad $OUTBOXCTL_REQUEST_TIMEOUT (see requestTimeout).
	timeoutErr error
	// ctxSel is the running command's --config/--context (contexts.go).
	ctxSel contextSelection
}

// globalFlags are the flags of every command.
type globalFlags struct {
	RequestTimeout time.Duration
	Verbose        bool
}

func addGlobalFlags(root *cobra.Command, g *globalFlags) {
	fs := root.PersistentFlags()
	fs.DurationVar(&g.RequestTimeout, "request-timeout", settings.DefaultRequestTimeout,
		"bound of each request to Kafka Connect, the schema registry and Kafka, e.g. 10s or 2m; 0: no bound; $"+settings.EnvRequestTimeout+" overrides the default")
	fs.BoolVarP(&g.Verbose, "verbose", "v", false, "trace every HTTP request on stderr (method, URL, status, duration, bodies; secrets masked)")
}

// applyGlobalFlags fills env from the global flags: flag > environment >
// default. A negative flag is exit 2 at once; a bad $OUTBOXCTL_REQUEST_TIMEOUT
// is exit 2 for the commands that talk to a server (requestTimeout), so that
// version or help still run.
func (env *Env) applyGlobalFlags(c *cobra.Command, g *globalFlags) error {
	d := g.RequestTimeout
	if f := c.Flags().Lookup("request-timeout"); (f == nil || !f.Changed) && env.Getenv != nil {
		if v, name := env.lookupEnv(settings.EnvRequestTimeout); strings.TrimSpace(v) != "" {
			v = strings.TrimSpace(v)
			p, err := time.ParseDuration(v)
			switch {
			case err != nil:
				env.timeoutErr = UsageError(fmt.Errorf("%s=%q: want a duration such as 30s or 2m", name, v))
			case p < 0:
				env.timeoutErr = UsageError(fmt.Errorf("%s=%q: the request timeout must not be negative", name, v))
			default:
				d = p
			}
		}
	}
	if d < 0 {
		return UsageError(fmt.Errorf("--request-timeout %s: the request timeout must not be negative", d))
	}
	env.RequestTimeout = d
	env.verbose = g.Verbose
	if g.Verbose {
		env.trace = httptrace.New(nil, env.IO.ErrOut, httptrace.Options{
			Sensitive: func(k string) bool { return plan.IsSensitive(k, nil) },
		})
	}
	return nil
}

// logf is the CLI's log at the -v level: a line on stderr with -v, nothing
// without it. Library clients log through it (librdkafka's lines, for
// example, instead of their own stderr output).
func (env *Env) logf(format string, args ...any) {
	if env.verbose {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: "+format+"\n", args...)
	}
}

// requestTimeout is the bound of each request to a server, or the usage
// error of a bad $OUTBOXCTL_REQUEST_TIMEOUT.
func (env *Env) requestTimeout() (time.Duration, error) {
	return env.RequestTimeout, env.timeoutErr
}

// traceSecrets adds the values of the connectors' sensitive keys to the
// secrets the -v trace masks (keys a connector declares sensitive whose
// names do not say so).
func (env *Env) traceSecrets(keys []string, config map[string]string) {
	if env.trace == nil {
		return
	}
	for _, k := range keys {
		env.trace.Secrets(config[k])
	}
}

// Main runs outboxctl with os.Args and the process streams and returns the
// process exit code (see `outboxctl help exit-codes`).
func Main() int {
	env := &Env{
		IO:     IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Getenv: os.Getenv,
	}
	env.Settings = settings.FromEnv(os.Getenv) // canonical names, then aliases
	// SIGINT and SIGTERM cancel the command's context: deploy abandons the
	// request in flight and reports what was written (exit 130). A second
	// signal kills the process as usual.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return Run(ctx, env, os.Args[1:])
}

// Run executes the command line args with env and returns the exit code.
func Run(ctx context.Context, env *Env, args []string) int {
	root := NewRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitCodeOf(err)
	if ctx.Err() != nil && code == ExitError {
		// SIGINT or SIGTERM cancelled the command (Main's context): the
		// operation it cut short is reported as interrupted.
		code = ExitInterrupted
		if !errors.Is(err, plan.ErrInterrupted) {
			err = fmt.Errorf("interrupted: %w", err)
		}
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: %s\n", redact.String(err.Error()))
	}
	return code
}

// NewRootCmd builds the command tree bound to env.
func NewRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "outboxctl <command> [flags]",
		Short: "Transactional outbox toolkit for Debezium, Kafka Connect and Avro",
		Long: `outboxctl turns one declarative outbox spec into Debezium connector
configs with the Outbox EventRouter, deploys them to Kafka Connect, and keeps
the Avro schemas of the routed events compatible in a Schema Registry.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	g := &globalFlags{}
	addGlobalFlags(root, g)
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if err := checkDurations(c); err != nil {
			return err
		}
		if f := c.Flags().Lookup("context"); f != nil {
			env.ctxSel.Name = f.Value.String()
			if cf := c.Flags().Lookup("config"); cf != nil {
				env.ctxSel.ConfigPath = cf.Value.String()
			}
		}
		env.warnEnvConflicts()
		return env.applyGlobalFlags(c, g)
	}
	root.SetIn(env.IO.In)
	root.SetOut(env.IO.Out)
	root.SetErr(env.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return UsageError(fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath()))
	})

	root.AddCommand(
		newVersionCmd(env),
		newSchemaCmd(env),
		newGenerateCmd(env), newValidateCmd(env),
		newPlanCmd(env), newDeployCmd(env), newConnectorsCmd(env), newContextCmd(env),
		newProvisionCmd(env), newDoctorCmd(env), newRelayCmd(env),
		newRouteCmd(env),
		newBenchCmd(env), newExporterCmd(env),
		newCleanupCmd(env), newDeprovisionCmd(env), newDLQCmd(env),
		newVerifyCmd(env),
		// Commands are registered here, one line per noun.
	)
	root.SetHelpCommand(newHelpCmd(env, root))
	markUsageErrors(root)
	return root
}
