package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/spec"
)

// desiredFlags select the desired connectors and how they are compared.
type desiredFlags struct {
	Files  []string
	Prune  bool
	Allow  []string
	Owner  string
	Output string
}

func addDesiredFlags(fs *pflag.FlagSet, f *desiredFlags) {
	fs.StringArrayVarP(&f.Files, "file", "f", nil, "connectors to deploy: a JSON array of {name, config, state} (.json, - for stdin) or an outbox spec (.yaml, a folder); repeatable")
	fs.BoolVar(&f.Prune, "prune", false, "also delete connectors that carry this tool's ownership marker ("+plan.OwnerKey+") but are not declared")
	fs.StringArrayVar(&f.Allow, "allow", nil, "allow the dangerous changes of a rule ID (repeatable; see `outboxctl plan --help`)")
	fs.StringVar(&f.Owner, "owner", plan.DefaultOwner, "ownership marker value written to "+plan.OwnerKey+" (lets several repositories share a cluster)")
}

func (f *desiredFlags) diffOptions() []plan.DiffOption {
	return []plan.DiffOption{plan.WithOwner(f.Owner), plan.WithPrune(f.Prune), plan.WithAllow(f.Allow...)}
}

func rulesHelp() string {
	var b strings.Builder
	b.WriteString("Dangerous-change rules (blocked unless --allow RULE_ID, or --allow all):\n")
	for _, r := range plan.Rules {
		fmt.Fprintf(&b, "  %-24s %s\n", r.ID, r.Purpose)
	}
	return b.String()
}

// specConnectors turns outbox spec files into connectors. It is replaced by
// the generator once it is available (see generate.go's wiring); until then
// spec input is refused with a hint.
var specConnectors = func(env *Env, paths []string) ([]connectorconfig.Connector, error) {
	if _, err := spec.Load(paths...); err != nil {
		return nil, UsageError(err)
	}
	return nil, UsageError(fmt.Errorf("deploying from an outbox spec needs the connector generator, which this build does not have yet: run `outboxctl generate -o json > connectors.json` and use -f connectors.json"))
}

// loadDesired reads the desired connectors from -f inputs.
func loadDesired(env *Env, files []string) ([]connectorconfig.Connector, error) {
	if len(files) == 0 {
		return nil, UsageError(errors.New("no connectors given: use -f connectors.json (or -f outbox.yaml)"))
	}
	var out []connectorconfig.Connector
	var specs []string
	for _, f := range files {
		ext := strings.ToLower(filepath.Ext(f))
		if f == "-" || ext == ".json" || ((ext == ".yaml" || ext == ".yml") && isYAMLList(f)) {
			cs, err := readConnectorsJSON(env, f)
			if err != nil {
				return nil, err
			}
			out = append(out, cs...)
			continue
		}
		specs = append(specs, f)
	}
	if len(specs) > 0 {
		cs, err := specConnectors(env, specs)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	seen := map[string]string{}
	for _, c := range out {
		if prev, ok := seen[c.Name]; ok {
			return nil, UsageError(fmt.Errorf("%s: connector %q is declared twice (first at %s)", c.Source, c.Name, prev))
		}
		seen[c.Name] = c.Source
	}
	return out, nil
}

// jsonConnector is one connector of a -f file. It accepts the output of
// `outboxctl generate -o json|yaml` (source and reasons are informational).
type jsonConnector struct {
	Name      string                     `json:"name"`
	Config    map[string]json.RawMessage `json:"config"`
	State     string                     `json:"state"`
	Sensitive []string                   `json:"sensitive"`
	Source    string                     `json:"source"`
	Reasons   map[string]string          `json:"reasons"`
}

func readConnectorsJSON(env *Env, path string) ([]connectorconfig.Connector, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(env.IO.In)
		path = "<stdin>"
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, UsageError(err)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		// A YAML list of connectors (generate -o yaml): convert to JSON.
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, UsageError(fmt.Errorf("%s: %w", path, err))
		}
		if data, err = json.Marshal(v); err != nil {
			return nil, UsageError(fmt.Errorf("%s: %w", path, err))
		}
	}
	var list []jsonConnector
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var one jsonConnector
		err = strictJSON(trimmed, &one)
		list = []jsonConnector{one}
	} else {
		err = strictJSON(trimmed, &list)
	}
	if err != nil {
		return nil, UsageError(fmt.Errorf("%s: %s", jsonPos(path, data, err), err))
	}
	lookup := spec.Lookup{
		Env: func(n string) (string, bool) {
			v := env.Getenv(n)
			return v, v != ""
		},
		ReadFile: spec.ReadSecretFile,
	}
	var out []connectorconfig.Connector
	for i, jc := range list {
		where := fmt.Sprintf("%s: connector %d", path, i+1)
		if jc.Name != "" {
			where = fmt.Sprintf("%s: connector %q", path, jc.Name)
		}
		if jc.Name == "" {
			return nil, UsageError(fmt.Errorf("%s: no name", where))
		}
		switch strings.ToLower(jc.State) {
		case "", "running", "paused", "stopped":
		default:
			return nil, UsageError(fmt.Errorf("%s: state %q: want running, paused or stopped", where, jc.State))
		}
		src := path
		if jc.Source != "" {
			src = jc.Source
		}
		c := connectorconfig.Connector{Name: jc.Name, State: strings.ToLower(jc.State), Sensitive: jc.Sensitive, Source: src, Config: map[string]string{}}
		for k, raw := range jc.Config {
			v, err := configValue(raw)
			if err != nil {
				return nil, UsageError(fmt.Errorf("%s: config key %q: %v", where, k, err))
			}
			if s, perr := spec.ParseSecret(v); perr == nil && (s.Kind == spec.SecretEnv || s.Kind == spec.SecretFile) {
				if v, err = lookup.Resolve(v); err != nil {
					return nil, UsageError(fmt.Errorf("%s: config key %q: %v", where, k, err))
				}
				c.Sensitive = append(c.Sensitive, k)
			}
			c.Config[k] = v
		}
		if c.Config["connector.class"] == "" {
			return nil, UsageError(fmt.Errorf("%s: config has no connector.class", where))
		}
		if n, ok := c.Config["name"]; ok && n != c.Name {
			return nil, UsageError(fmt.Errorf("%s: config name %q differs from the connector name", where, n))
		}
		delete(c.Config, "name")
		out = append(out, c)
	}
	return out, nil
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// configValue accepts a string, number or boolean (Connect stores strings).
func configValue(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var anyv any
	if err := dec.Decode(&anyv); err != nil {
		return "", err
	}
	switch x := anyv.(type) {
	case json.Number:
		n = x
		return n.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("want a string, number or boolean, got %s", string(raw))
}

func jsonPos(path string, data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	if errors.As(err, &se) {
		off = se.Offset - 1 // Offset is just after the offending byte
	} else if errors.As(err, &te) {
		off = te.Offset
	}
	if off < 0 {
		return path
	}
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%s:%d:%d", path, line, col)
}

type planOptions struct {
	desiredFlags
	Connect          connectFlags
	DetailedExitCode bool
}

func newPlanCmd(env *Env) *cobra.Command {
	opts := &planOptions{}
	c := &cobra.Command{
		Use:   "plan -f connectors.json [flags]",
		Short: "Show what deploy would change in Kafka Connect",
		Long: `Plan compares the declared connectors with Kafka Connect and prints what
deploy would do, Terraform style: + create, ~ update in-place, - delete,
-/+ replace, with key = old -> new, unchanged keys collapsed and secrets shown
as (sensitive). Values Connect returns masked or resolved by config providers,
"1000" vs "1000.0" and the "name" key Connect adds are not drift.

Dangerous changes are listed with a rule ID and what happens to offsets,
slots and topics; deploy refuses them unless allowed with --allow RULE_ID.

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
	c.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text|json|github-actions")
	c.Flags().BoolVar(&opts.DetailedExitCode, "detailed-exitcode", false, "exit 4 when changes are pending (0 when none)")
	return c
}

// computePlan loads the desired connectors, reads Connect and diffs.
func computePlan(ctx context.Context, env *Env, d *desiredFlags, cf *connectFlags) (plan.Plan, *connect.Client, error) {
	desired, err := loadDesired(env, d.Files)
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

func checkOutput(o string, allowed ...string) error {
	for _, a := range allowed {
		if o == a {
			return nil
		}
	}
	return UsageError(fmt.Errorf("unknown output format %q (want %s)", o, strings.Join(allowed, "|")))
}

func runPlan(ctx context.Context, env *Env, opts *planOptions) error {
	if err := checkOutput(opts.Output, "text", "json", "github-actions"); err != nil {
		return err
	}
	p, _, err := computePlan(ctx, env, &opts.desiredFlags, &opts.Connect)
	if err != nil {
		return err
	}
	if err := renderPlan(env.IO.Out, opts.Output, p); err != nil {
		return err
	}
	return planExit(p, opts.DetailedExitCode)
}

func renderPlan(w io.Writer, format string, p plan.Plan) error {
	switch format {
	case "json":
		return plan.RenderJSON(w, p)
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
	src := map[string]string{}
	for _, ch := range p.Changes {
		src[ch.Name] = ch.Source
	}
	for _, f := range p.Findings() {
		level := "error"
		if f.Allowed {
			level = "warning"
		}
		loc := ""
		if s := src[f.Connector]; s != "" && s != "<stdin>" {
			file, rest, _ := strings.Cut(s, ":")
			loc = "file=" + file
			if line, _, _ := strings.Cut(rest, ":"); line != "" {
				loc += ",line=" + line
			}
			loc += ","
		}
		fmt.Fprintf(w, "::%s %stitle=%s %s::%s\n", level, loc, f.Rule, f.Connector, ghEscape(f.Message))
	}
	c := p.Counts()
	_, err := fmt.Fprintf(w, "::notice title=outboxctl plan::%d to create, %d to update, %d to delete, %d unchanged\n", c.Create+c.Replace, c.Update, c.Delete+c.Replace, c.NoOp)
	return err
}

func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
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
		return fmt.Errorf("%w; set --connect-url, OUTBOX_CONNECT_URL or a context", err)
	}
	return err
}

// isYAMLList reports whether a YAML file's top level is a sequence (a list of
// connectors as generate writes it) rather than an outbox spec.
func isYAMLList(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || len(n.Content) == 0 {
		return false
	}
	return n.Content[0].Kind == yaml.SequenceNode
}
