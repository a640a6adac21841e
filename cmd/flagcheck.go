package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// checkDurations refuses a negative value for any duration flag of c (exit
// 2): a negative timeout or interval is never meant.
func checkDurations(c *cobra.Command) error {
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || !f.Changed || f.Value.Type() != "duration" {
			return
		}
		if d, perr := time.ParseDuration(f.Value.String()); perr == nil && d < 0 {
			err = UsageError(fmt.Errorf("--%s %s: a duration must not be negative", f.Name, f.Value.String()))
		}
	})
	return err
}

// markUsageErrors makes every bad command line a UsageError (exit 2), by
// type rather than by cobra's message: flag errors come through the root's
// FlagErrorFunc; the argument checks and required flags of every runnable
// command are wrapped here (usageArgs); and every command that only groups
// others (the root, schema, connectors, completion, …) refuses an unknown
// subcommand instead of printing its help and exiting 0. Without arguments a
// group still prints its help.
func markUsageErrors(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Runnable() {
			c.Args = usageArgs(c.Args)
			return
		}
		if !c.HasSubCommands() {
			return
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			var names []string
			for _, s := range c.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			hint := ""
			if c.SuggestionsMinimumDistance <= 0 {
				c.SuggestionsMinimumDistance = 2
			}
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				hint = "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return UsageError(fmt.Errorf("unknown command %q for %q (want %s)%s\nRun '%s --help' for usage.", args[0], c.CommandPath(), strings.Join(names, ", "), hint, c.CommandPath()))
		}
	}
	walk(root)
}

// usageArgs wraps a command's argument check: its errors, and those of the
// command's required flags (which cobra checks right after the arguments),
// are UsageErrors; then an unknown -o value is one (checkOutputFlag), before
// the command runs. A nil check accepts any arguments, as in cobra.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if check != nil {
			if err := check(c, args); err != nil {
				return UsageError(err)
			}
		}
		if err := c.ValidateRequiredFlags(); err != nil {
			return UsageError(err)
		}
		return checkOutputFlag(c)
	}
}
