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

// refuseUnknownSubcommands makes every command that only groups others
// (schema, connectors, completion, …) refuse an unknown subcommand with exit
// 2 instead of printing its help and exiting 0. Without arguments it still
// prints its help.
func refuseUnknownSubcommands(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root || c.Runnable() || !c.HasSubCommands() {
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
