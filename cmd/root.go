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
	"strings"

	"github.com/spf13/cobra"

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
}

// Main runs outboxctl with os.Args and the process streams and returns the
// process exit code (see `outboxctl help exit-codes`).
func Main() int {
	env := &Env{
		IO:     IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Getenv: os.Getenv,
	}
	env.Settings = settings.FromEnv(os.Getenv)
	return Run(context.Background(), env, os.Args[1:])
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
	if code == ExitError && isCobraUsageError(err) {
		code = ExitUsage
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: %s\n", err)
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
		// Commands are registered here, one line per noun.
	)
	root.SetHelpCommand(newHelpCmd(env, root))
	return root
}

// isCobraUsageError reports errors that cobra produces for a bad command line
// (it has no typed errors for them).
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "requires exactly", "invalid argument", "required flag"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
