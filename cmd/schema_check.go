package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/compat"
	"github.com/outboxctl/outboxctl/spec"
)

type schemaCheckOptions struct {
	Files           []string
	AgainstGit      string
	AgainstDir      string
	AgainstRegistry bool
	Output          string
	SummaryFile     string
	AcceptedBreaks  string
	Level           string
	Registry        registryFlags
}

func newSchemaCheckCmd(env *Env) *cobra.Command {
	opts := &schemaCheckOptions{}
	c := &cobra.Command{
		Use:   "check [-f outbox.yaml] [--against-git REF] [--against-dir DIR] [--against-registry] [-o text|json|yaml|github-actions] [--summary-file FILE]",
		Short: "Check every schema of the spec against a git ref, a folder or the registry",
		Long: `Check the schema of every event type and major version in the spec against its
previous versions, with Avro Java's SchemaCompatibility rules at the subject's
Confluent compatibility level:

  --against-git REF     the schemas at a git ref (e.g. origin/main), read with
                        git ls-tree and git show: no checkout needed
  --against-dir DIR     a folder that mirrors the working directory (e.g. a
                        checkout of the base branch)
  --against-registry    the subjects' live versions in the Schema Registry, at
                        each subject's level there

Git refs and folders are checked at --level (default BACKWARD_TRANSITIVE). A
subject without previous versions (a new event type, or a new major version
with its own subject) is reported as new, not as a failure.

Intentional breaks are listed in the accepted-breaks file (default
schemas/accepted-breaks.yaml next to the spec, if present):

  accepted:
    - subject: outbox.event.Order-com.example.order.v1.OrderCreated
      fingerprint: 9d2c0f6a1b3e4d57   # printed by this check
      reason: drop totalCents, agreed with billing (#123)

An accepted break is reported and does not fail the check.

Output: text (file:line:col of the offending field in the .avsc), json,
github-actions (::error annotations on the .avsc line). --summary-file appends a
Markdown report (for $GITHUB_STEP_SUMMARY).

Exit status: 0 compatible, 3 incompatible, 2 bad input (spec, schema, git ref,
accepted-breaks file), 1 registry or git failure.`,
		Example: `  $ outboxctl schema check --against-git origin/main
  $ outboxctl schema check --against-git origin/${GITHUB_BASE_REF} -o github-actions --summary-file "$GITHUB_STEP_SUMMARY"
  $ outboxctl schema check --against-registry -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runSchemaCheck(c.Context(), env, opts) },
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.AgainstGit, "against-git", "", "check against the schemas at this git ref")
	fs.StringVar(&opts.AgainstDir, "against-dir", "", "check against the schemas in this folder")
	fs.BoolVar(&opts.AgainstRegistry, "against-registry", false, "check against the registry's versions of each subject")
	addOutputFlag(c, &opts.Output, formatText, checkFormats...)
	summaryFlag(fs, &opts.SummaryFile)
	fs.StringVar(&opts.AcceptedBreaks, "accepted-breaks", "", "accepted-breaks file (default "+schemas.DefaultAcceptedBreaksFile+" next to the spec, if it exists)")
	fs.StringVar(&opts.Level, "level", string(schemas.DefaultLevel), "compatibility level for git and folder baselines")
	addRegistryFlags(fs, &opts.Registry)
	return c
}

func runSchemaCheck(ctx context.Context, env *Env, opts *schemaCheckOptions) error {
	if opts.AgainstGit == "" && opts.AgainstDir == "" && !opts.AgainstRegistry {
		return UsageError(errors.New("nothing to check against: give --against-git REF, --against-dir DIR or --against-registry"))
	}
	level, err := compat.ParseLevel(opts.Level)
	if err != nil {
		return UsageError(err)
	}
	sp, cat, err := loadCatalog(env, opts.Files)
	if err != nil {
		return err
	}
	accepted, err := schemaLoadAccepted(opts.AcceptedBreaks, sp.Files)
	if err != nil {
		return err
	}
	var baselines []schemas.Baseline
	if opts.AgainstGit != "" {
		b, err := schemas.GitBaseline(ctx, opts.AgainstGit, sp.Files)
		if err != nil {
			return UsageError(err)
		}
		baselines = append(baselines, b)
	}
	if opts.AgainstDir != "" {
		b, err := schemas.DirBaseline(opts.AgainstDir, sp.Files)
		if err != nil {
			return UsageError(err)
		}
		baselines = append(baselines, b)
	}
	if opts.AgainstRegistry {
		cl, err := opts.Registry.client(env)
		if err != nil {
			return err
		}
		baselines = append(baselines, schemas.RegistryBaseline(cl))
	}
	rep, err := schemas.CheckCatalog(ctx, cat, baselines, schemas.CheckOptions{Level: level, Accepted: accepted})
	if err != nil {
		if errors.Is(err, schemas.ErrBadBaseline) {
			return UsageError(err)
		}
		return err
	}
	switch opts.Output {
	case formatJSON, formatYAML:
		if err := schemaWriteStructured(env, opts.Output, rep); err != nil {
			return err
		}
	case "github-actions":
		if err := writeCheckGitHub(env.IO.Out, rep); err != nil {
			return err
		}
	default:
		if err := rep.WriteText(env.IO.Out); err != nil {
			return err
		}
	}
	for _, ab := range rep.Unused {
		fmt.Fprintf(env.IO.ErrOut, "warning: %s: accepted break for %s matched nothing (remove it once the break is registered)\n", ab.Pos, ab.Subject)
	}
	if err := appendSummary(opts.SummaryFile, rep.WriteMarkdown); err != nil {
		return err
	}
	if !rep.Compatible {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

// schemaLoadAccepted reads the accepted-breaks file: the flag's (must exist), or
// the default next to the first spec file (if it exists).
func schemaLoadAccepted(flag string, specFiles []string) (*schemas.AcceptedBreaks, error) {
	path := flag
	if path == "" && len(specFiles) > 0 {
		path = filepath.Join(filepath.Dir(specFiles[0]), schemas.DefaultAcceptedBreaksFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	if path == "" {
		return nil, nil
	}
	a, err := schemas.LoadAcceptedBreaks(path)
	if err != nil {
		return nil, UsageError(err)
	}
	return a, nil
}

// writeCheckGitHub prints the report's findings as workflow commands, with
// repository paths, and the summary line.
func writeCheckGitHub(w io.Writer, rep *schemas.CheckReport) error {
	fs := rep.Findings()
	for i := range fs {
		fs[i].File = schemas.RepoPath(fs[i].File)
	}
	if err := findings.PrintGitHubActions(w, fs); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "schema check: %s\n", rep.SummaryLine())
	return err
}

// loadCatalog loads the spec files and the schema catalog of its event types
// (a catalog problem, such as an unreadable .avsc, is bad input).
func loadCatalog(env *Env, files []string) (*spec.Spec, *schemas.Catalog, error) {
	sp, err := loadSpec(env, files)
	if err != nil {
		return nil, nil, err
	}
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		return nil, nil, UsageError(err)
	}
	return sp, cat, nil
}

// summaryFlag is the --summary-file flag of the check commands.
func summaryFlag(fs *pflag.FlagSet, path *string) {
	fs.StringVar(path, "summary-file", "", "append a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
}

// appendSummary appends what write writes to the --summary-file path
// (nothing without one).
func appendSummary(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("summary file: %w", err)
	}
	werr := write(f)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("summary file: %w", err)
	}
	return nil
}
