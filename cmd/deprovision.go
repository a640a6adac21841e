package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// defaultDeprovisionMax is --max-outboxes' default: one outbox per run.
const defaultDeprovisionMax = 1

type deprovisionOptions struct {
	Files       []string
	Outboxes    []string
	AllOutboxes bool
	Max         int
	Yes         bool
	Output      string
	Connect     connectFlags
	Kafka       kafkaClientFlags
	Registry    registryFlags
}

func newDeprovisionCmd(env *Env) *cobra.Command {
	opts := &deprovisionOptions{}
	c := &cobra.Command{
		Use:   "deprovision -f outbox.yaml --outbox NAME [--yes] [-o text|json|yaml]",
		Short: "Remove an outbox's connector, offsets, replication slot, publication, roles, topics and subjects",
		Long: `Deprovision removes what provision and deploy made for an outbox, in this
order: the connector (stopped, its offsets deleted (KIP-875), then deleted),
the PostgreSQL replication slot (a slot without a connector retains WAL), the
publication, the roles provision created (the connector's user and the
publication's owner group; a superuser or the admin connection's own role is
kept, and so is a role or topic another outbox of the spec uses), the
topics (routed, schema history, heartbeat) and the registry
subjects of those topics (<topic>-key, <topic>-value, <topic>-<record>;
soft- then hard-deleted). The outbox table and its rows are kept (a table
the removed owner group owned goes to the admin connection's role).

Without --yes it is a dry run: it lists every object with its status
(present: would be removed; absent: nothing to do; kept) and changes nothing.
With --yes it prints the same list first (on stderr; with -o json or yaml
only the result, in which every object has its final status), then removes. A missing object is
reported as absent, not an error. A failing step stops the run: the list
marks it failed and the objects after it "not done" (exit 1); run again once
fixed, removed objects then show as absent.

Guard (like deploy --prune): --outbox names the outboxes (repeatable); more
than --max-outboxes (default 1) is refused with exit 3 and nothing removed;
--all-outboxes takes every outbox of the spec and lifts the limit. The
database admin connections, Connect, Kafka and the registry are found as by
provision, connectors and schema (see outboxctl help environment).`,
		Example: `  $ outboxctl deprovision -f outbox.yaml --outbox orders
  $ outboxctl deprovision -f outbox.yaml --outbox orders --yes -o json
  $ outboxctl deprovision -f outbox.yaml --all-outboxes --yes`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDeprovision(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringArrayVar(&opts.Outboxes, "outbox", nil, "outbox of the spec to deprovision (repeatable)")
	fs.BoolVar(&opts.AllOutboxes, "all-outboxes", false, "deprovision every outbox of the spec (lifts --max-outboxes)")
	fs.IntVar(&opts.Max, "max-outboxes", defaultDeprovisionMax, "refuse (exit 3) to deprovision more than this many outboxes")
	fs.BoolVar(&opts.Yes, "yes", false, "remove (without it: a dry run that lists what would be removed)")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	addConnectFlags(fs, &opts.Connect)
	addKafkaClientFlags(fs, &opts.Kafka)
	addRegistryFlags(fs, &opts.Registry)
	return c
}

func runDeprovision(ctx context.Context, env *Env, opts *deprovisionOptions) error {
	if len(opts.Outboxes) == 0 && !opts.AllOutboxes {
		return UsageError(errors.New("name the outbox with --outbox NAME (or --all-outboxes for every outbox of the spec)"))
	}
	if len(opts.Outboxes) > 0 && opts.AllOutboxes {
		return UsageError(errors.New("--outbox and --all-outboxes exclude each other"))
	}
	if opts.Max < 0 {
		return UsageError(fmt.Errorf("--max-outboxes %d: want 0 or more", opts.Max))
	}
	if err := env.applyDatabaseContext(); err != nil {
		return err
	}
	targets, others, err := outboxTargets(env, opts.Files, opts.Outboxes...)
	if err != nil {
		return err
	}
	if !opts.AllOutboxes {
		if len(targets) > opts.Max {
			return WithExitCode(ExitCheckFailed, fmt.Errorf("refusing to deprovision %d outboxes (more than --max-outboxes %d); nothing removed", len(targets), opts.Max))
		}
	}
	cl, err := connectClient(env, &opts.Connect)
	if err != nil {
		return err
	}
	admin, _, err := env.openKafkaAdmin(&opts.Kafka)
	if err != nil {
		return err
	}
	defer admin.Close()
	rc, err := opts.Registry.client(env)
	if err != nil {
		return err
	}
	timeout, err := env.requestTimeout()
	if err != nil {
		return err
	}
	req := provisioning.DeprovisionRequest{
		Targets:      targets,
		Others:       others,
		DSNs:         adminDSNs(env),
		Connect:      connectRemover{env: env, cl: cl},
		Topics:       topicRemover{admin: admin, timeoutMs: int(timeout.Milliseconds())},
		Subjects:     subjectRemover{rc},
		ConnectWhere: cl.URL(),
		Progress:     env.IO.ErrOut,
	}
	// The list comes first, in every case: then the removal.
	rem, err := provisioning.InspectRemoval(ctx, req)
	if err != nil {
		return deprovisionError(admin, err)
	}
	if !opts.Yes {
		if err := renderRemoval(env.IO.Out, opts.Output, rem); err != nil {
			return err
		}
		if opts.Output == formatText {
			fmt.Fprintln(env.IO.ErrOut, "outboxctl: dry run; nothing removed (--yes removes)")
		}
		return nil
	}
	if opts.Output == formatText {
		// The list goes to stderr before anything is removed; the result
		// follows on stdout.
		if err := renderRemoval(env.IO.ErrOut, opts.Output, rem); err != nil {
			return err
		}
	}
	rem, err = provisioning.Deprovision(ctx, req)
	if rerr := renderRemoval(env.IO.Out, opts.Output, rem); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return deprovisionError(admin, err)
	}
	return nil
}

func deprovisionError(admin *kafkaAdmin, err error) error {
	if errors.Is(err, connect.ErrUnreachable) {
		return connectHint(err)
	}
	if errors.Is(err, provisioning.ErrTopics) {
		return admin.wrap(err)
	}
	return err
}

func renderRemoval(w io.Writer, format string, rem provisioning.Removal) error {
	if isStructured(format) {
		return writeStructured(w, format, rem)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OUTBOX\tKIND\tNAME\tSTATUS\tWHERE")
	for _, it := range rem.Items {
		st := it.Status
		if st == provisioning.StatusPresent && rem.DryRun {
			st = "would remove"
		}
		if it.Note != "" {
			st += " (" + it.Note + ")"
		}
		if it.Error != "" {
			st += ": " + it.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.Outbox, it.Kind, it.Name, st, it.Where)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	counts := map[string]int{}
	for _, it := range rem.Items {
		counts[it.Status]++
	}
	var parts []string
	for _, s := range []string{provisioning.StatusPresent, provisioning.StatusRemoved, provisioning.StatusFailed, provisioning.StatusNotDone, provisioning.StatusAbsent, provisioning.StatusKept} {
		if counts[s] > 0 {
			label := s
			if s == provisioning.StatusPresent {
				label = "to remove"
			}
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], label))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing"}
	}
	_, err := fmt.Fprintf(w, "Deprovision: %s.\n", strings.Join(parts, ", "))
	return err
}

// connectRemover is the Connect side of deprovision.
type connectRemover struct {
	env *Env
	cl  *connect.Client
}

func (r connectRemover) ConnectorExists(ctx context.Context, name string) (bool, error) {
	_, err := r.cl.GetConfig(ctx, name)
	if errors.Is(err, connect.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// RemoveConnector stops the connector, deletes its offsets while it is
// STOPPED (Connect refuses otherwise, and after a delete there is nothing
// left to reset) and deletes it.
func (r connectRemover) RemoveConnector(ctx context.Context, name string) error {
	err := aroundStopped(ctx, r.env, r.cl, name, true, func(ctx context.Context) error {
		if _, err := r.cl.ResetOffsets(ctx, name); err != nil {
			return fmt.Errorf("reset offsets of %s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.cl.Delete(ctx, name)
}

// topicRemover is the Kafka side of deprovision.
type topicRemover struct {
	admin     *kafkaAdmin
	timeoutMs int
}

func (r topicRemover) ExistingTopics(ctx context.Context, names []string) (map[string]bool, error) {
	md, err := r.admin.GetMetadata(nil, true, r.timeoutMs)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, n := range names {
		_, out[n] = md.Topics[n]
	}
	return out, nil
}

func (r topicRemover) DeleteTopic(ctx context.Context, name string) error {
	res, err := r.admin.DeleteTopics(ctx, []string{name})
	if err != nil {
		return err
	}
	for _, t := range res {
		if t.Error.Code() != 0 && t.Error.Code() != 3 { // 3: UNKNOWN_TOPIC_OR_PARTITION: gone already
			return t.Error
		}
	}
	return nil
}

// subjectRemover is the registry side of deprovision.
type subjectRemover struct{ c *registry.Client }

func (r subjectRemover) Subjects(ctx context.Context) ([]string, error) {
	return r.c.Subjects(ctx, false)
}

func (r subjectRemover) DeleteSubject(ctx context.Context, subject string) error {
	if err := r.c.DeleteSubject(ctx, subject, false); err != nil && !errors.Is(err, registry.ErrSubjectNotFound) && !errors.Is(err, registry.ErrSubjectSoftDeleted) {
		return err
	}
	if err := r.c.DeleteSubject(ctx, subject, true); err != nil && !errors.Is(err, registry.ErrSubjectNotFound) {
		return err
	}
	return nil
}
