package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit codes of outboxctl. They are a contract for CI scripts and are listed
// by `outboxctl help exit-codes`.
const (
	// ExitOK: the command did what was asked and found nothing wrong.
	ExitOK = 0
	// ExitError: an operational error (a server unreachable, a connector
	// that failed, a timeout).
	ExitError = 1
	// ExitUsage: bad input: unknown flag, a spec or schema that does not
	// parse, an invalid argument. Nothing was changed.
	ExitUsage = 2
	// ExitCheckFailed: a check ran and found problems (validation findings,
	// incompatible schemas, a connector not RUNNING in `status`).
	ExitCheckFailed = 3
	// ExitChangesPending: `plan --detailed-exitcode` (or `deploy --dry-run
	// --detailed-exitcode`) found changes to apply; `schema diff --exit-code`
	// found the two sides different.
	ExitChangesPending = 4
	// ExitVerifyFailed: `verify` sent its canary and a stage failed
	// (connector, relay, database write, topic or decode; the message names
	// it).
	ExitVerifyFailed = 5
	// ExitInterrupted: SIGINT or SIGTERM stopped the command (deploy
	// reports what it wrote and what not).
	ExitInterrupted = 130
)

const exitCodesHelp = `Exit codes of outboxctl:

  0  success; for checks: nothing found
  1  operational error: a server was unreachable or answered with an error,
     a connector or task FAILED, a request (--request-timeout) or a wait timed out
     (cleanup, --dry-run too: the connector did not confirm the snapshot's
     position within --wait); deprovision: a step failed (the list marks what
     was removed, what failed and what was not done; a rerun continues)
  2  bad input: unknown flag or command, a spec, config or schema that does not
     parse, an invalid argument; nothing was changed
  3  a check failed: validation findings, incompatible schemas, a connector or
     task not RUNNING (status), deploy, provision or schema register refusing a
     spec with validation errors (nothing changed), plan/deploy refusing a dangerous change or a
     prune beyond --prune-max / of every managed connector (nothing written),
     events lost, duplicated or out of order (bench), relay cutover --to relay
     refusing a writer that deletes rows after inserting them, cleanup refusing
     an outbox the connector does not capture (slot of another database or
     plugin, table not in the publication or the include list; nothing deleted),
     relay refusing an outbox whose connector is RUNNING or that relay cutover
     --to cdc fenced, deprovision refusing more outboxes than --max-outboxes
     (nothing removed)
  4  changes pending: plan/deploy --dry-run with --detailed-exitcode found
     changes; schema diff --exit-code found the two sides different
  5  verify: a stage of the canary failed (connector or relay, database write,
     topic, decode); the report and the message name the stage
     (verify: Connect or Kafka unreachable is 1, the stage is shown as error)

130  interrupted by SIGINT or SIGTERM (a command cut short; relay and exporter
     stop gracefully with 0): deploy abandons the request in flight and reports
     (text or -o json) which connectors were written and which not

Errors are printed once on stderr as "outboxctl: <message>". Data (plans,
reports, JSON) is printed on stdout, progress on stderr.
`

// exitError carries an exit code with an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// silentError is an exit code whose message has already been printed (for
// example a check whose report is the output).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// WithExitCode wraps err so that the process exits with code.
func WithExitCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// UsageError marks err as bad input (exit 2).
func UsageError(err error) error { return WithExitCode(ExitUsage, err) }

// SilentExit makes the process exit with code without printing anything more
// (the command has already reported on stdout/stderr).
func SilentExit(code int) error { return &silentError{code: code} }

// ExitCodeOf maps an error returned by a command to its exit code.
func ExitCodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var s *silentError
	if errors.As(err, &s) {
		return s.code
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitError
}

func newHelpCmd(env *Env, root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | exit-codes | environment | rules]",
		Short: "Help about any command, the exit codes, the environment variables or the rule IDs",
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 && args[0] == "exit-codes" {
				fmt.Fprint(env.IO.Out, exitCodesHelp)
				return nil
			}
			if len(args) == 1 && args[0] == "environment" {
				fmt.Fprint(env.IO.Out, environmentHelp())
				return nil
			}
			if len(args) == 1 && args[0] == "rules" {
				fmt.Fprint(env.IO.Out, rulesTopicHelp())
				return nil
			}
			target, _, err := root.Find(args)
			if err != nil || target == nil {
				return UsageError(fmt.Errorf("unknown help topic %q", args))
			}
			return target.Help()
		},
	}
}
