package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/internal/redact"
	"github.com/outboxctl/outboxctl/spec"
)

type connectorsOptions struct {
	Connect connectFlags
	Output  string
}

func newConnectorsCmd(env *Env) *cobra.Command {
	opts := &connectorsOptions{}
	c := &cobra.Command{
		Use:     "connectors <command>",
		Aliases: []string{"connector"},
		Short:   "Inspect and operate Kafka Connect connectors",
		Long: `Operations on the connectors of a Kafka Connect cluster: get, describe,
status (exit 3 when anything is not RUNNING), restart, pause, resume, stop,
delete and offsets (KIP-875). Secrets in configs are always shown as ********.`,
	}
	addConnectFlags(c.PersistentFlags(), &opts.Connect)
	names := connectorNames(env, &opts.Connect)

	get := &cobra.Command{
		Use:               "get [NAME...]",
		Short:             "List connectors with their state",
		ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return runConnectorsGet(c.Context(), env, opts, args, false)
		},
	}
	addOutputFlag(get, &opts.Output, formatTable, tableFormats...)
	describe := &cobra.Command{
		Use:               "describe NAME...",
		Short:             "Show connectors with config (secrets masked), tasks and traces",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return runConnectorsGet(c.Context(), env, opts, args, true)
		},
	}
	addOutputFlag(describe, &opts.Output, formatTable, tableFormats...)
	status := &cobra.Command{
		Use:   "status [NAME...]",
		Short: "Show connector and task states; exit 3 when anything is not RUNNING",
		Example: `  $ outboxctl connectors status
  $ outboxctl connectors status orders-outbox -o json`,
		ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return runConnectorsStatus(c.Context(), env, opts, args)
		},
	}
	addOutputFlag(status, &opts.Output, formatTable, tableFormats...)

	c.AddCommand(get, describe, status, newConnectorsRestartCmd(env, opts, names),
		newConnectorsVerbCmd(env, opts, names, "pause", "Pause connectors (tasks stay assigned)", "paused", (*connect.Client).Pause),
		newConnectorsVerbCmd(env, opts, names, "resume", "Resume paused or stopped connectors", "resumed", (*connect.Client).Resume),
		newConnectorsVerbCmd(env, opts, names, "stop", "Stop connectors: tasks shut down, config kept (Connect 3.5+)", "stopped", (*connect.Client).Stop),
		newConnectorsDeleteCmd(env, opts, names),
		newOffsetsCmd(env, opts, names),
	)
	return c
}

// connectorNamesFunc completes connector names.
type connectorNamesFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// connectorsRestartOptions are the options of connectors restart.
type connectorsRestartOptions struct {
	*connectorsOptions
	OnlyFailed, ConnectorOnly bool
}

// newConnectorsRestartCmd is `outboxctl connectors restart NAME...`.
func newConnectorsRestartCmd(env *Env, parent *connectorsOptions, names connectorNamesFunc) *cobra.Command {
	opts := &connectorsRestartOptions{connectorsOptions: parent}
	c := &cobra.Command{
		Use:               "restart NAME...",
		Short:             "Restart connectors and their tasks",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return runConnectorsRestart(c.Context(), env, opts, args)
		},
	}
	c.Flags().BoolVar(&opts.OnlyFailed, "only-failed", false, "restart only the connector and tasks that are FAILED")
	c.Flags().BoolVar(&opts.ConnectorOnly, "connector-only", false, "restart the connector instance but not its tasks")
	return c
}

// runConnectorsRestart restarts the connectors (and their tasks unless
// ConnectorOnly), saying what restarts.
func runConnectorsRestart(ctx context.Context, env *Env, opts *connectorsRestartOptions, names []string) error {
	return eachConnector(ctx, env, opts.connectorsOptions, names, func(ctx context.Context, cl *connect.Client, n string) (string, error) {
		st, err := cl.Restart(ctx, n, connect.RestartOptions{IncludeTasks: !opts.ConnectorOnly, OnlyFailed: opts.OnlyFailed})
		if err != nil {
			return "", err
		}
		return restartSummary(st), nil
	})
}

// restartSummary says what a restart answered with st restarts (st nil:
// an old worker restarted the connector only).
func restartSummary(st *connect.Status) string {
	if st == nil {
		return "connector restarted"
	}
	var what []string
	if st.Connector.State == connect.StateRestarting {
		what = append(what, "connector")
	}
	for _, t := range st.Tasks {
		if t.State == connect.StateRestarting {
			what = append(what, fmt.Sprintf("task %d", t.ID))
		}
	}
	if len(what) == 0 {
		return "nothing to restart"
	}
	return "restarting " + strings.Join(what, ", ")
}

// newConnectorsVerbCmd is `outboxctl connectors VERB NAME...` for a state
// change of the Connect client (pause, resume, stop) that says done.
func newConnectorsVerbCmd(env *Env, opts *connectorsOptions, names connectorNamesFunc, verb, short, done string, do func(*connect.Client, context.Context, string) error) *cobra.Command {
	return &cobra.Command{
		Use: verb + " NAME...", Short: short, Args: cobra.MinimumNArgs(1), ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return eachConnector(c.Context(), env, opts, args, func(ctx context.Context, cl *connect.Client, n string) (string, error) {
				return done, do(cl, ctx, n)
			})
		},
	}
}

// newConnectorsDeleteCmd is `outboxctl connectors delete NAME...`.
func newConnectorsDeleteCmd(env *Env, opts *connectorsOptions, names connectorNamesFunc) *cobra.Command {
	return &cobra.Command{
		Use: "delete NAME...", Short: "Delete connectors (offsets stay in the offsets topic; a PostgreSQL slot stays and is named)", Args: cobra.MinimumNArgs(1), ValidArgsFunction: names,
		Long: `Delete connectors. Their offsets stay in the offsets topic, and a
PostgreSQL connector's replication slot stays on the server, where it retains
WAL until dropped: delete names the slot it leaves. outboxctl deprovision
removes a spec outbox's connector, offsets, slot, publication, roles, topics
and subjects.`,
		RunE: func(c *cobra.Command, args []string) error {
			return runConnectorsDelete(c.Context(), env, opts, args)
		},
	}
}

// runConnectorsDelete deletes the connectors, warning about the
// replication slot a PostgreSQL connector leaves.
func runConnectorsDelete(ctx context.Context, env *Env, opts *connectorsOptions, names []string) error {
	return eachConnector(ctx, env, opts, names, func(ctx context.Context, cl *connect.Client, n string) (string, error) {
		// Read the config first: after the delete it is gone.
		cfg, _ := cl.GetConfig(ctx, n)
		if err := cl.Delete(ctx, n); err != nil {
			return "", err
		}
		if w := slotLeftWarning(cfg); w != "" {
			fmt.Fprintf(env.IO.ErrOut, "%s: warning: %s\n", n, w)
		}
		return "deleted", nil
	})
}

// eachConnector runs do for every name, reporting each on stderr, and fails
// when any failed.
func eachConnector(ctx context.Context, env *Env, opts *connectorsOptions, args []string, do func(context.Context, *connect.Client, string) (string, error)) error {
	cl, err := connectClient(env, &opts.Connect)
	if err != nil {
		return err
	}
	var failed []string
	for _, n := range args {
		msg, err := do(ctx, cl, n)
		if err != nil {
			if errors.Is(err, connect.ErrUnreachable) {
				return connectHint(err)
			}
			fmt.Fprintf(env.IO.ErrOut, "%s: %v\n", n, err)
			failed = append(failed, n)
			continue
		}
		fmt.Fprintf(env.IO.Out, "%s: %s\n", n, msg)
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed for %s", strings.Join(failed, ", "))
	}
	return nil
}

// connectorView is the JSON/YAML shape of get and describe.
type connectorView struct {
	Name   string              `json:"name" yaml:"name"`
	Type   string              `json:"type,omitempty" yaml:"type,omitempty"`
	Class  string              `json:"class,omitempty" yaml:"class,omitempty"`
	State  string              `json:"state" yaml:"state"`
	Worker string              `json:"worker_id,omitempty" yaml:"worker_id,omitempty"`
	Owner  string              `json:"owner,omitempty" yaml:"owner,omitempty"`
	Trace  string              `json:"trace,omitempty" yaml:"trace,omitempty"`
	Tasks  []connect.TaskState `json:"tasks" yaml:"tasks"`
	Config map[string]string   `json:"config,omitempty" yaml:"config,omitempty"`
}

func maskConfig(cfg map[string]string) map[string]string {
	out := make(map[string]string, len(cfg))
	for k, v := range cfg {
		if plan.IsSensitive(k, nil) {
			v = redact.Mask
		}
		out[k] = redact.String(v)
	}
	return out
}

func fetchViews(ctx context.Context, env *Env, opts *connectorsOptions, names []string, withConfig bool) ([]connectorView, error) {
	cl, err := connectClient(env, &opts.Connect)
	if err != nil {
		return nil, err
	}
	all, err := cl.ListConnectorsExpanded(ctx)
	if err != nil {
		return nil, connectHint(err)
	}
	if len(names) == 0 {
		for n := range all {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	var views []connectorView
	var missing []string
	for _, n := range names {
		e, ok := all[n]
		if !ok {
			missing = append(missing, n)
			continue
		}
		v := connectorView{Name: n, Tasks: []connect.TaskState{}}
		if e.Info != nil {
			v.Type, v.Class, v.Owner = e.Info.Type, e.Info.Config["connector.class"], e.Info.Config[plan.OwnerKey]
			if withConfig {
				v.Config = maskConfig(e.Info.Config)
			}
		}
		if e.Status != nil {
			v.State, v.Worker, v.Trace = e.Status.Connector.State, e.Status.Connector.WorkerID, e.Status.Connector.Trace
			v.Tasks = append(v.Tasks, e.Status.Tasks...)
			var cfg map[string]string
			if e.Info != nil {
				cfg = e.Info.Config
			}
			v.Trace = plan.MaskSecrets(v.Trace, cfg, nil)
			for i := range v.Tasks {
				v.Tasks[i].Trace = plan.MaskSecrets(v.Tasks[i].Trace, cfg, nil)
			}
			if !withConfig {
				for i := range v.Tasks {
					v.Tasks[i].Trace = ""
				}
				v.Trace = ""
			}
		}
		views = append(views, v)
	}
	if len(missing) > 0 {
		return views, fmt.Errorf("connector(s) not found: %s: %w", strings.Join(missing, ", "), connect.ErrNotFound)
	}
	return views, nil
}

// taskWorkers lists the worker running each task ("0=host:port,1=…"):
// after a worker dies, it shows where Connect moved the task.
func taskWorkers(ts []connect.TaskState) string {
	if len(ts) == 0 {
		return "-"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		w := t.WorkerID
		if w == "" {
			w = "-"
		}
		parts[i] = fmt.Sprintf("%d=%s", t.ID, w)
	}
	return strings.Join(parts, ",")
}

func taskSummary(ts []connect.TaskState) string {
	if len(ts) == 0 {
		return "0"
	}
	running := 0
	var other []string
	for _, t := range ts {
		if t.State == connect.StateRunning {
			running++
		} else {
			other = append(other, fmt.Sprintf("%d:%s", t.ID, t.State))
		}
	}
	s := fmt.Sprintf("%d/%d RUNNING", running, len(ts))
	if len(other) > 0 {
		s += " (" + strings.Join(other, " ") + ")"
	}
	return s
}

func runConnectorsGet(ctx context.Context, env *Env, opts *connectorsOptions, names []string, describe bool) error {
	views, err := fetchViews(ctx, env, opts, names, describe)
	if views == nil && err != nil {
		return err
	}
	if views == nil {
		views = []connectorView{}
	}
	if isStructured(opts.Output) {
		if werr := writeStructured(env.IO.Out, opts.Output, views); werr != nil {
			return werr
		}
		return err
	}
	if describe {
		for i, v := range views {
			if i > 0 {
				fmt.Fprintln(env.IO.Out)
			}
			describeText(env.IO.Out, v)
		}
		return err
	}
	tw := tabwriter.NewWriter(env.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTASKS\tCLASS\tOWNER")
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Name, v.State, taskSummary(v.Tasks), v.Class, v.Owner)
	}
	if ferr := tw.Flush(); ferr != nil {
		return ferr
	}
	return err
}

func describeText(w io.Writer, v connectorView) {
	fmt.Fprintf(w, "Name:    %s\nClass:   %s\nType:    %s\nState:   %s\nWorker:  %s\nOwner:   %s\n", v.Name, v.Class, v.Type, v.State, v.Worker, v.Owner)
	if v.Trace != "" {
		fmt.Fprintf(w, "Trace:\n  %s\n", strings.ReplaceAll(strings.TrimSpace(v.Trace), "\n", "\n  "))
	}
	fmt.Fprintf(w, "Tasks:\n")
	for _, t := range v.Tasks {
		fmt.Fprintf(w, "  %d  %s  %s\n", t.ID, t.State, t.WorkerID)
		if t.Trace != "" {
			fmt.Fprintf(w, "     %s\n", strings.ReplaceAll(strings.TrimSpace(t.Trace), "\n", "\n     "))
		}
	}
	fmt.Fprintf(w, "Config:\n")
	keys := make([]string, 0, len(v.Config))
	for k := range v.Config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s\t= %s\n", k, v.Config[k])
	}
	_ = tw.Flush()
}

func runConnectorsStatus(ctx context.Context, env *Env, opts *connectorsOptions, names []string) error {
	views, err := fetchViews(ctx, env, opts, names, false)
	if views == nil && err != nil {
		return err
	}
	if views == nil {
		views = []connectorView{}
	}
	var notRunning []string
	for _, v := range views {
		ok := v.State == connect.StateRunning && len(v.Tasks) > 0
		for _, t := range v.Tasks {
			ok = ok && t.State == connect.StateRunning
		}
		if !ok {
			notRunning = append(notRunning, v.Name)
		}
	}
	if isStructured(opts.Output) {
		if werr := writeStructured(env.IO.Out, opts.Output, views); werr != nil {
			return werr
		}
	} else {
		tw := tabwriter.NewWriter(env.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCONNECTOR\tTASKS\tWORKER\tTASK/WORKER")
		for _, v := range views {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Name, v.State, taskSummary(v.Tasks), v.Worker, taskWorkers(v.Tasks))
		}
		_ = tw.Flush()
	}
	if err != nil {
		return err
	}
	if len(notRunning) > 0 {
		return WithExitCode(ExitCheckFailed, fmt.Errorf("%d connector(s) not RUNNING: %s", len(notRunning), strings.Join(notRunning, ", ")))
	}
	return nil
}

func newOffsetsCmd(env *Env, opts *connectorsOptions, names connectorNamesFunc) *cobra.Command {
	c := &cobra.Command{
		Use:   "offsets <get|set|reset> NAME",
		Short: "Read, set or reset connector offsets (KIP-875, Connect 3.5+/3.6+)",
		Long: `Offsets of a source connector; for Debezium the partition is {"server": topic.prefix}.

set and reset need the connector STOPPED: they stop it, wait until STOPPED,
change the offsets, then return it to the state it had (use --keep-stopped to
leave it stopped). Resetting a Debezium connector's offsets makes it start over
as its snapshot.mode says; a PostgreSQL connector resumes from its slot.`,
	}
	c.AddCommand(newOffsetsGetCmd(env, opts, names), newOffsetsSetCmd(env, opts, names), newOffsetsResetCmd(env, opts, names))
	return c
}

// offsetsGetOptions are the options of connectors offsets get.
type offsetsGetOptions struct {
	*connectorsOptions
	Output string
}

// newOffsetsGetCmd is `outboxctl connectors offsets get NAME`.
func newOffsetsGetCmd(env *Env, parent *connectorsOptions, names connectorNamesFunc) *cobra.Command {
	opts := &offsetsGetOptions{connectorsOptions: parent}
	c := &cobra.Command{
		Use: "get NAME [-o json|yaml]", Short: "Print a connector's offsets as JSON (or YAML)", Args: cobra.ExactArgs(1), ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return runOffsetsGet(c.Context(), env, opts, args[0])
		},
	}
	addOutputFlag(c, &opts.Output, formatJSON, formatJSON, formatYAML)
	return c
}

// runOffsetsGet prints the connector's offsets.
func runOffsetsGet(ctx context.Context, env *Env, opts *offsetsGetOptions, name string) error {
	cl, err := connectClient(env, &opts.Connect)
	if err != nil {
		return err
	}
	o, err := cl.Offsets(ctx, name)
	if err != nil {
		return connectHint(fmt.Errorf("offsets of %s: %w", name, err))
	}
	if o.Offsets == nil {
		o.Offsets = []connect.Offset{}
	}
	return writeStructured(env.IO.Out, opts.Output, o)
}

// offsetsChangeOptions are the options of connectors offsets set and
// reset: File (set only) holds the offsets, as `offsets get` prints them.
type offsetsChangeOptions struct {
	*connectorsOptions
	KeepStopped bool
	File        string
}

// newOffsetsSetCmd is `outboxctl connectors offsets set NAME -f FILE`.
func newOffsetsSetCmd(env *Env, parent *connectorsOptions, names connectorNamesFunc) *cobra.Command {
	c, opts := newOffsetsChangeCmd(env, parent, names, "set NAME -f offsets.json", "Alter a connector's offsets (stopping and restoring it around the change)", runOffsetsSet)
	c.Flags().StringVarP(&opts.File, "file", "f", "", "offsets JSON, as printed by `offsets get`")
	return c
}

// newOffsetsResetCmd is `outboxctl connectors offsets reset NAME`.
func newOffsetsResetCmd(env *Env, parent *connectorsOptions, names connectorNamesFunc) *cobra.Command {
	c, _ := newOffsetsChangeCmd(env, parent, names, "reset NAME", "Delete a connector's offsets (stopping and restoring it around the change)", runOffsetsReset)
	return c
}

// newOffsetsChangeCmd is a command that changes a connector's offsets
// with run, and its options (--keep-stopped).
func newOffsetsChangeCmd(env *Env, parent *connectorsOptions, names connectorNamesFunc, use, short string, run func(context.Context, *Env, *offsetsChangeOptions, string) error) (*cobra.Command, *offsetsChangeOptions) {
	opts := &offsetsChangeOptions{connectorsOptions: parent}
	c := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(1), ValidArgsFunction: names,
		RunE: func(c *cobra.Command, args []string) error {
			return run(c.Context(), env, opts, args[0])
		},
	}
	c.Flags().BoolVar(&opts.KeepStopped, "keep-stopped", false, "leave the connector STOPPED afterwards")
	return c, opts
}

// runOffsetsReset deletes the connector's offsets (runOffsetsChange).
func runOffsetsReset(ctx context.Context, env *Env, opts *offsetsChangeOptions, name string) error {
	return runOffsetsChange(ctx, env, opts, name, func(ctx context.Context, cl *connect.Client) (string, error) {
		return cl.ResetOffsets(ctx, name)
	})
}

// runOffsetsSet reads and checks the offsets file, then alters the
// connector's offsets (runOffsetsChange).
func runOffsetsSet(ctx context.Context, env *Env, opts *offsetsChangeOptions, name string) error {
	if opts.File == "" {
		return UsageError(errors.New("set needs -f offsets.json (the shape of `offsets get`)"))
	}
	// Read and check the file before the connector is stopped.
	data, err := readInput(nil, opts.File, inputOffsets)
	if err != nil {
		return UsageError(err)
	}
	if err := spec.CheckJSONDuplicateKeys(opts.File, data); err != nil {
		return UsageError(err)
	}
	var offsets *connect.Offsets
	if err := json.Unmarshal(data, &offsets); err != nil {
		return UsageError(fmt.Errorf("%s: %w", opts.File, err))
	}
	if offsets == nil {
		return UsageError(fmt.Errorf("%s: want the offsets object of `offsets get`, got null", opts.File))
	}
	return runOffsetsChange(ctx, env, opts, name, func(ctx context.Context, cl *connect.Client) (string, error) {
		return cl.AlterOffsets(ctx, name, *offsets)
	})
}

// runOffsetsChange runs do with the connector stopped (aroundStopped) and
// prints what it says.
func runOffsetsChange(ctx context.Context, env *Env, opts *offsetsChangeOptions, name string, do func(context.Context, *connect.Client) (string, error)) error {
	cl, err := connectClient(env, &opts.Connect)
	if err != nil {
		return err
	}
	return aroundStopped(ctx, env, cl, name, opts.KeepStopped, func(ctx context.Context) error {
		msg, err := do(ctx, cl)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.IO.Out, "%s: %s\n", name, msg)
		return nil
	})
}

// aroundStopped stops the connector, waits until STOPPED, runs do, and
// restores the previous state.
func aroundStopped(ctx context.Context, env *Env, cl *connect.Client, name string, keepStopped bool, do func(context.Context) error) error {
	st, err := cl.Status(ctx, name)
	if err != nil {
		return connectHint(fmt.Errorf("status of %s: %w", name, err))
	}
	before := st.Connector.State
	if before != connect.StateStopped {
		fmt.Fprintf(env.IO.ErrOut, "%s: stopping (was %s)\n", name, before)
		if err := cl.Stop(ctx, name); err != nil {
			return fmt.Errorf("stop %s: %w", name, err)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			st, err = cl.Status(ctx, name)
			if err == nil && st.Connector.State == connect.StateStopped {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s did not reach STOPPED within 1m", name)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	opErr := do(ctx)
	if keepStopped || before == connect.StateStopped {
		return opErr
	}
	var restore error
	if before == connect.StatePaused {
		restore = cl.Pause(ctx, name)
	} else {
		restore = cl.Resume(ctx, name)
	}
	if restore != nil {
		return errors.Join(opErr, fmt.Errorf("restore %s to %s: %w", name, before, restore))
	}
	fmt.Fprintf(env.IO.ErrOut, "%s: restored to %s\n", name, map[bool]string{true: "PAUSED", false: "RUNNING"}[before == connect.StatePaused])
	return opErr
}

// slotLeftWarning is the warning for a deleted PostgreSQL connector's
// replication slot, which Connect leaves on the server ("" for any other
// connector).
func slotLeftWarning(cfg map[string]string) string {
	if !strings.HasSuffix(cfg["connector.class"], "PostgresConnector") {
		return ""
	}
	slot := cfg["slot.name"]
	if slot == "" {
		slot = "debezium" // Debezium's default
	}
	where := cfg["database.hostname"]
	if p := cfg["database.port"]; p != "" {
		where += ":" + p
	} else if where != "" {
		where += ":5432"
	}
	if db := cfg["database.dbname"]; db != "" {
		where += "/" + db
	}
	if where != "" {
		where = " on " + where
	}
	return fmt.Sprintf("replication slot %q%s is left behind and retains WAL until dropped (outboxctl deprovision, or SELECT pg_drop_replication_slot('%s'))", slot, where, slot)
}
