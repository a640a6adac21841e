package cmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/compat"
)

type schemaRegisterOptions struct {
	Files    []string
	DryRun   bool
	Level    string
	Output   string
	Registry registryFlags
}

func newSchemaRegisterCmd(env *Env) *cobra.Command {
	opts := &schemaRegisterOptions{}
	c := &cobra.Command{
		Use:   "register [-f outbox.yaml] [--dry-run] [--level LEVEL] [-o text|json|yaml]",
		Short: "Register the spec's schemas in the Schema Registry",
		Long: `Register the schema of every event type and major version of the spec's avro
outboxes under its subject:

  - a new subject gets its compatibility level (--level, default
    BACKWARD_TRANSITIVE) set before its first version;
  - a schema that is already registered creates no version (it is looked up
    first) and is reported unchanged;
  - schemas are registered in dependency order of their references;
  - the registry's refusals (incompatible, invalid) are reported and fail the
    command with exit status 3.

--dry-run only reads the registry and prints what would be done, including the
registry's verdict on new versions.

Exit status: 0 done, 3 a schema was (or would be) refused, 2 bad input, 1 the
registry failed.`,
		Example: `  $ outboxctl schema register -f outbox.yaml --dry-run
  + create outbox.event.Order-com.example.order.v1.OrderCreated (set level BACKWARD_TRANSITIVE, then version 1)  schemas/order/OrderCreated.v1.avsc
  Plan: 1 to create, 0 to add, 0 unchanged, 0 refused.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runSchemaRegister(c.Context(), env, opts) },
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "show what would be registered; change nothing")
	fs.StringVar(&opts.Level, "level", string(schemas.DefaultLevel), "compatibility level set on new subjects")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	addRegistryFlags(fs, &opts.Registry)
	return c
}

func runSchemaRegister(ctx context.Context, env *Env, opts *schemaRegisterOptions) error {
	level, err := compat.ParseLevel(opts.Level)
	if err != nil {
		return UsageError(err)
	}
	sp, cat, err := loadCatalog(env, opts.Files)
	if err != nil {
		return err
	}
	if !opts.DryRun {
		if err := preflightSpec(env, sp, "schema register"); err != nil {
			return err
		}
	}
	cl, err := opts.Registry.client(env)
	if err != nil {
		return err
	}
	plan, err := schemas.RegisterCatalog(ctx, cl, cat, schemas.RegisterOptions{DryRun: opts.DryRun, Level: level})
	if plan != nil {
		if isStructured(opts.Output) {
			if werr := schemaWriteStructured(env, opts.Output, plan); werr != nil {
				return werr
			}
		} else {
			writeRegisterText(env.IO.Out, plan)
		}
	}
	if err != nil {
		return schemaRegistryError(err)
	}
	if plan.Refused() {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

func writeRegisterText(w io.Writer, p *schemas.RegisterPlan) {
	for _, s := range p.Steps {
		switch s.Action {
		case schemas.ActionCreate:
			what := "version 1"
			if s.Version != 0 {
				what = fmt.Sprintf("version %d (id %d)", s.Version, s.ID)
			}
			if s.SetLevel != "" {
				what = "set level " + s.SetLevel + ", then " + what
			}
			fmt.Fprintf(w, "+ create %s (%s)  %s\n", s.Subject, what, s.File)
		case schemas.ActionAdd:
			what := "new version"
			if s.Version != 0 {
				what = fmt.Sprintf("version %d (id %d)", s.Version, s.ID)
			}
			fmt.Fprintf(w, "~ add %s (%s)  %s\n", s.Subject, what, s.File)
		case schemas.ActionUnchanged:
			fmt.Fprintf(w, "= unchanged %s (version %d, id %d)  %s\n", s.Subject, s.Version, s.ID, s.File)
		case schemas.ActionRefused:
			fmt.Fprintf(w, "! refused %s  %s: %s\n", s.Subject, s.File, s.Error)
			for _, m := range s.Messages {
				fmt.Fprintf(w, "    %s\n", m)
			}
		}
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  skipped %s\n", s)
	}
	format := "Registered: %d created, %d added, %d unchanged, %d refused.\n"
	if p.DryRun {
		format = "Plan: %d to create, %d to add, %d unchanged, %d refused.\n"
	}
	fmt.Fprintf(w, format, p.Count(schemas.ActionCreate), p.Count(schemas.ActionAdd), p.Count(schemas.ActionUnchanged), p.Count(schemas.ActionRefused))
}
