package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/findings"
)

// desiredFlags select the desired connectors and how they are compared.
type desiredFlags struct {
	Files         []string
	Prune         bool
	PruneMax      int
	AllowPruneAll bool
	Allow         []string
	Owner         string
	Output        string
	// preflight names the command that runs validate's blocking rules on
	// the spec before its first change (deploy; not plan or --dry-run).
	preflight string
}

// defaultPruneMax is --prune-max's default: one delete per run.
const defaultPruneMax = 1

func addDesiredFlags(fs *pflag.FlagSet, f *desiredFlags) {
	fs.StringArrayVarP(&f.Files, "file", "f", nil, "connectors to deploy: an outbox spec (.yaml), a connectors file (generate --no-resolve -o json|yaml output, a JSON array of {name, config, state}) or a folder of either; - reads either kind from stdin (once); repeatable")
	fs.BoolVar(&f.Prune, "prune", false, "also delete connectors that carry this tool's ownership marker ("+plan.OwnerKey+") but are not declared")
	fs.IntVar(&f.PruneMax, "prune-max", defaultPruneMax, "with --prune: refuse (exit 3) to delete more than this many connectors")
	fs.BoolVar(&f.AllowPruneAll, "allow-prune-all", false, "with --prune: allow deleting every connector this owner manages, and lift --prune-max")
	fs.StringArrayVar(&f.Allow, "allow", nil, "allow the dangerous changes of `RULE_ID` (repeatable; all allows every rule; the IDs are listed in the help of plan)")
	fs.StringVar(&f.Owner, "owner", plan.DefaultOwner, "ownership marker value written to "+plan.OwnerKey+" (lets several repositories share a cluster; not empty; taking over another owner's connector is OWNER_TAKEOVER)")
}

// check refuses flag values that make no sense (exit 2).
func (f *desiredFlags) check() error {
	rules := plan.RuleDocs()
	valid := append([]string{"all"}, rules.IDs()...)
	for _, a := range f.Allow {
		for _, id := range strings.Split(a, ",") {
			id = strings.TrimSpace(id)
			if _, ok := rules.Lookup(id); !ok && !strings.EqualFold(id, "all") {
				hint := ""
				if u := strings.ToUpper(id); u == plan.RulePruneAll || u == plan.RulePruneLimit {
					hint = " (the prune guard is lifted with --allow-prune-all or --prune-max, not --allow)"
				}
				return UsageError(fmt.Errorf("--allow %q: unknown rule ID%s; valid: %s", id, hint, strings.Join(valid, ", ")))
			}
		}
	}
	if strings.TrimSpace(f.Owner) == "" {
		return UsageError(fmt.Errorf("--owner must not be empty: without the ownership marker (%s) --prune no longer sees the connectors (default %q)", plan.OwnerKey, plan.DefaultOwner))
	}
	if f.PruneMax < 0 {
		return UsageError(fmt.Errorf("--prune-max %d: want 0 or more", f.PruneMax))
	}
	return nil
}

func (f *desiredFlags) diffOptions() []plan.DiffOption {
	var allow []string
	for _, a := range f.Allow {
		allow = append(allow, strings.Split(a, ",")...)
	}
	return []plan.DiffOption{plan.WithOwner(f.Owner), plan.WithPrune(f.Prune), plan.WithPruneLimit(f.PruneMax, f.AllowPruneAll), plan.WithAllow(allow...)}
}

func rulesHelp() string {
	var b strings.Builder
	b.WriteString("Dangerous-change rules (blocked unless --allow RULE_ID, or --allow all):\n")
	for _, r := range plan.Rules {
		fmt.Fprintf(&b, "  %-24s %s\n", r.ID, r.Purpose)
	}
	return b.String()
}

// loadDesired reads the desired connectors from -f inputs, sorted by
// connectorconfig.SortInputs: - (stdin), folders, connectors files and
// outbox specs. Connectors files (`generate --no-resolve -o json|yaml`
// output) are read by readConnectorsFile; the specs are generated
// together at the end (specConnectors). A connector name declared twice
// is bad input.
func loadDesired(env *Env, files []string, preflight string) ([]connectorconfig.Connector, error) {
	if len(files) == 0 {
		return nil, UsageError(errors.New("no connectors given: use -f connectors.json (or -f outbox.yaml)"))
	}
	in, err := connectorconfig.SortInputs(files, stdinOnce(env))
	for _, s := range in.Skipped {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: skipped %s: not a connectors file or an outbox spec\n", s)
	}
	if err != nil {
		return nil, UsageError(err)
	}
	var out []connectorconfig.Connector
	for _, cf := range in.Connectors {
		cs, err := readConnectorsFile(env, cf.Name, cf.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	if len(in.Specs) > 0 || len(in.SpecSources) > 0 {
		cs, err := specConnectors(env, in.Specs, preflight, in.SpecSources...)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	if err := connectorconfig.CheckUniqueNames(out); err != nil {
		return nil, UsageError(err)
	}
	return out, nil
}

// readConnectorsFile reads a connectors file (see
// connectorconfig.ReadConnectors), resolving ${env:…}/${file:…} references.
// Every error is bad input; a masked value gets a hint how to get a file
// that deploys.
func readConnectorsFile(env *Env, name string, data []byte) ([]connectorconfig.Connector, error) {
	cs, err := connectorconfig.ReadConnectors(name, data, envLookup(env))
	if errors.Is(err, connectorconfig.ErrMaskedValue) {
		return nil, UsageError(fmt.Errorf("%w; generate the file with `outboxctl generate --no-resolve` (references such as ${env:NAME} and ${file:PATH} are kept and resolved at deploy time), or deploy from the spec: -f outbox.yaml", err))
	}
	if err != nil {
		return nil, UsageError(err)
	}
	return cs, nil
}

type planOptions struct {
	desiredFlags
	Connect          connectFlags
	DetailedExitCode bool
	SummaryFile      string
}

func newPlanCmd(env *Env) *cobra.Command {
	opts := &planOptions{}
	c := &cobra.Command{
		Use:   "plan -f connectors.json [flags]",
		Short: "Show what deploy would change in Kafka Connect",
		Long: `Plan compares the declared connectors with Kafka Connect and prints what
deploy would do, Terraform style: + create, ~ update in-place, - delete,
-/+ replace, with key = old -> new, unchanged keys collapsed and secrets shown
as ********. Values Connect returns masked or resolved by config providers,
"1000" vs "1000.0" and the "name" key Connect adds are not drift.

Dangerous changes are listed with a rule ID and what happens to offsets,
slots and topics; deploy refuses them unless allowed with --allow RULE_ID.
With --prune every deletion is listed; deleting every connector this owner
manages (PRUNE_ALL) or more than --prune-max (PRUNE_LIMIT) is blocked unless
--allow-prune-all or a higher --prune-max is given.

` + rulesHelp() + `
Exit codes: 0 no changes (or changes without --detailed-exitcode), 3 blocked
dangerous changes, 4 changes pending with --detailed-exitcode, 1 Connect
unreachable or failing, 2 bad input.`,
		Example: `  $ outboxctl plan -f connectors.json
  $ outboxctl plan -f connectors.json -o json --detailed-exitcode
  $ outboxctl plan -f connectors.json --allow SNAPSHOT_MODE_CHANGE -o github-actions`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runPlan(c.Context(), env, opts)
		},
	}
	addDesiredFlags(c.Flags(), &opts.desiredFlags)
	addConnectFlags(c.Flags(), &opts.Connect)
	addOutputFlag(c, &opts.Output, formatText, checkFormats...)
	c.Flags().BoolVar(&opts.DetailedExitCode, "detailed-exitcode", false, "exit 4 when changes are pending (0 when none)")
	summaryFlag(c.Flags(), &opts.SummaryFile)
	return c
}

// computePlan loads the desired connectors, reads Connect and diffs.
func computePlan(ctx context.Context, env *Env, d *desiredFlags, cf *connectFlags) (plan.Plan, *connect.Client, error) {
	if err := d.check(); err != nil {
		return plan.Plan{}, nil, err
	}
	desired, err := loadDesired(env, d.Files, d.preflight)
	if err != nil {
		return plan.Plan{}, nil, err
	}
	for _, c := range desired {
		env.traceSecrets(c.Sensitive, c.Config)
	}
	client, err := connectClient(env, cf)
	if err != nil {
		return plan.Plan{}, nil, err
	}
	actual, err := plan.Fetch(ctx, client)
	if err != nil {
		return plan.Plan{}, nil, connectHint(err)
	}
	return plan.Diff(desired, actual, d.diffOptions()...), client, nil
}

func runPlan(ctx context.Context, env *Env, opts *planOptions) error {
	p, _, err := computePlan(ctx, env, &opts.desiredFlags, &opts.Connect)
	if err != nil {
		return err
	}
	if err := renderPlan(env.IO.Out, opts.Output, p); err != nil {
		return err
	}
	if err := appendSummary(opts.SummaryFile, func(w io.Writer) error { return writePlanSummary(w, p) }); err != nil {
		return err
	}
	return planExit(p, opts.DetailedExitCode)
}

func renderPlan(w io.Writer, format string, p plan.Plan) error {
	switch format {
	case formatJSON, formatYAML:
		return writeAs(w, format, func(w io.Writer) error { return plan.RenderJSON(w, p) })
	case "github-actions":
		if err := plan.RenderText(w, p); err != nil {
			return err
		}
		return renderPlanAnnotations(w, p)
	}
	return plan.RenderText(w, p)
}

// renderPlanAnnotations prints GitHub workflow commands: an error per
// blocked finding, a warning per allowed one, a notice with the summary.
func renderPlanAnnotations(w io.Writer, p plan.Plan) error {
	if err := findings.PrintGitHubActions(w, p.FileFindings()); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, findings.Annotation(findings.Finding{Rule: "outboxctl plan", Severity: findings.SeverityInfo, Message: planCounts(p)}))
	return err
}

// writePlanSummary writes the plan's counts and findings in Markdown.
func writePlanSummary(w io.Writer, p plan.Plan) error {
	if err := findings.PrintSummary(w, "outboxctl plan", p.FileFindings()); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Plan: %s.\n\n", planCounts(p))
	return err
}

// planCounts is the plan's counts in one line.
func planCounts(p plan.Plan) string {
	c := p.Counts()
	return fmt.Sprintf("%d to create, %d to update, %d to delete, %d unchanged", c.Create+c.Replace, c.Update, c.Delete+c.Replace, c.NoOp)
}

func planExit(p plan.Plan, detailed bool) error {
	if b := p.Blocked(); len(b) > 0 {
		return WithExitCode(ExitCheckFailed, &plan.BlockedError{Findings: b})
	}
	if detailed && p.HasChanges() {
		return SilentExit(ExitChangesPending)
	}
	return nil
}

// connectorNames completes connector names for shell completion.
func connectorNames(env *Env, cf *connectFlags) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		client, err := connectClient(env, cf)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3e9)
		defer cancel()
		names, err := client.ListConnectors(ctx)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		sort.Strings(names)
		var out []string
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) && !contains(args, n) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// connectHint adds where the URL came from to an unreachable-Connect error.
func connectHint(err error) error {
	if errors.Is(err, connect.ErrUnreachable) {
		return fmt.Errorf("%w; set --connect-url, OUTBOXCTL_CONNECT_URL or a context", err)
	}
	return err
}
