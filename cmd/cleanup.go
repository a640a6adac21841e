package cmd

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/cleanup"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

type cleanupOptions struct {
	Files  []string
	Outbox string
	// OlderThan is --older-than; OlderThanSet says it was given (else
	// each outbox's cleanup.OlderThanFor: its spec retention, or 1h).
	OlderThan    time.Duration
	OlderThanSet bool
	Batch        int
	DryRun       bool
	Wait         time.Duration
	Output       string
	Connect      connectFlags
}

func newCleanupCmd(env *Env) *cobra.Command {
	opts := &cleanupOptions{}
	c := &cobra.Command{
		Use:   "cleanup [-f outbox.yaml] [--outbox NAME] [--older-than D] [--batch N] [--dry-run] [-o text|json|yaml]",
		Short: "Delete published outbox rows older than an age",
		Long: `Cleanup deletes the rows of outbox tables that keep them (the connector
captures inserts, nothing else removes the rows) once they are older than
--older-than and published, in batches of --batch rows. Without --older-than,
an outbox's age is the retention its spec declares (the age doctor and the
exporter allow its oldest row), or 1h when it declares none.

It is safe to run from cron while the connector streams: it takes a snapshot of
the table, waits until the connector confirmed the log position of that
snapshot (PostgreSQL: the slot's confirmed_flush_lsn; MariaDB: the connector's
committed binlog offset in Kafka Connect) and deletes only rows of that
snapshot. If the connector does not confirm within --wait, nothing is deleted
(exit 1).

A confirmed position counts only if the connector captures the outbox table:
before waiting and again before deleting, cleanup checks the connector config
deployed in Kafka Connect (PostgreSQL: the generated one when Connect cannot be
read) against the database: the slot must be in the outbox's database with the
connector's plugin (doctor's PG_SLOT_MISMATCH), the publication must publish
the table's inserts (or be FOR ALL TABLES), and table/schema/database include
and exclude lists must capture it. Otherwise nothing is deleted (exit 3).

--dry-run takes the same snapshot and waits the same way: it counts as "would
delete" only rows the connector confirmed. If it cannot confirm within --wait,
it reports how many rows are not confirmed and exits 1.

Partitions of a partitioned outbox that end before the cutoff are detached
(CONCURRENTLY on PostgreSQL 14+ without a default partition, so the
application's inserts do not wait) under a 1s lock_timeout, retried up to 5
times, and dropped once the slot confirmed the detach.

A failed run reports what it deleted before it stopped, and why.

Relay-published outboxes and outboxes with writer.deleteAfterInsert are skipped:
their rows are removed already. MySQL is not supported (no snapshot binlog
position).`,
		Example: `  $ outboxctl cleanup -f outbox.yaml --older-than 1h
  $ outboxctl cleanup -f outbox.yaml --outbox orders --dry-run -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.OlderThanSet = c.Flags().Changed("older-than")
			return runCleanup(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.Outbox, "outbox", "", "clean only this outbox (default: every outbox of the spec)")
	fs.DurationVar(&opts.OlderThan, "older-than", 0, "delete rows at least this old (default: the outbox's retention in the spec, else 1h)")
	fs.IntVar(&opts.Batch, "batch", cleanup.DefaultBatch, "rows per DELETE statement")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "count the rows that would be deleted; delete nothing")
	fs.DurationVar(&opts.Wait, "wait", cleanup.DefaultWait, "how long to wait for the connector to confirm the snapshot's position")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	addConnectFlags(fs, &opts.Connect)
	return c
}

func runCleanup(ctx context.Context, env *Env, opts *cleanupOptions) error {
	if opts.Batch <= 0 {
		return UsageError(fmt.Errorf("--batch %d: want a positive number of rows", opts.Batch))
	}
	var names []string
	if opts.Outbox != "" {
		names = []string{opts.Outbox}
	}
	targets, _, err := outboxTargets(env, opts.Files, names...)
	if err != nil {
		return err
	}
	var results []cleanup.Result
	var failed error
	for _, t := range targets {
		res, err := cleanupOutbox(ctx, env, opts, t)
		if err != nil {
			res.Error = err.Error()
			fmt.Fprintf(env.IO.ErrOut, "outboxctl: %v\n", err)
			failed = err
		}
		results = append(results, res)
	}
	if isStructured(opts.Output) {
		if err := writeStructured(env.IO.Out, opts.Output, map[string]any{"results": results}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			writeCleanupResult(env.IO.Out, r)
		}
	}
	if failed != nil {
		if errors.Is(failed, cleanup.ErrUnsupported) || errors.Is(failed, cleanup.ErrInvalid) {
			return WithExitCode(ExitUsage, SilentExit(ExitUsage))
		}
		if errors.Is(failed, cleanup.ErrNotCaptured) {
			return WithExitCode(ExitCheckFailed, SilentExit(ExitCheckFailed))
		}
		return WithExitCode(ExitError, SilentExit(ExitError))
	}
	return nil
}

// writeCleanupResult writes what a cleanup run did, and no more: a run
// that failed says what it deleted before it stopped and why; a dry run
// counts only the rows the publisher confirmed.
func writeCleanupResult(w io.Writer, r cleanup.Result) {
	cut := r.Cutoff.Format(time.RFC3339)
	switch {
	case r.Skipped != "":
		fmt.Fprintf(w, "outbox %s: skipped: %s\n", r.Outbox, r.Skipped)
	case r.DryRun && r.Error != "":
		fmt.Fprintf(w, "outbox %s: dry run: no row confirmed published", r.Outbox)
		if r.Unconfirmed > 0 {
			fmt.Fprintf(w, "; %d rows created before %s not confirmed (snapshot %s, publisher confirmed %s)", r.Unconfirmed, cut, r.SnapshotPosition, orNothing(r.ConfirmedPosition))
		}
		fmt.Fprintf(w, "; stopped: %s\n", r.Error)
	case r.DryRun:
		fmt.Fprintf(w, "outbox %s: would delete %d rows created before %s (snapshot %s confirmed, publisher at %s)\n",
			r.Outbox, r.Deleted, cut, r.SnapshotPosition, r.ConfirmedPosition)
	case r.Error != "" && r.Deleted == 0 && len(r.DroppedPartitions) == 0:
		fmt.Fprintf(w, "outbox %s: nothing deleted; stopped: %s\n", r.Outbox, r.Error)
	case r.Error != "":
		fmt.Fprintf(w, "outbox %s: deleted %d rows created before %s in %d batches, then stopped: %s\n", r.Outbox, r.Deleted, cut, r.Batches, r.Error)
	default:
		fmt.Fprintf(w, "outbox %s: deleted %d rows created before %s in %d batches (snapshot %s confirmed after %d ms)\n",
			r.Outbox, r.Deleted, cut, r.Batches, r.SnapshotPosition, r.WaitedMs)
	}
	if len(r.DroppedPartitions) > 0 {
		verb := "dropped"
		if r.DryRun {
			verb = "would drop"
		}
		fmt.Fprintf(w, "outbox %s: %s partitions %s\n", r.Outbox, verb, strings.Join(r.DroppedPartitions, ", "))
	}
	if r.DetachRetries > 0 {
		fmt.Fprintf(w, "outbox %s: %d partition detaches retried after their lock_timeout\n", r.Outbox, r.DetachRetries)
	}
	if r.Undated > 0 {
		fmt.Fprintf(w, "outbox %s: %d rows left: their age cannot be told (no timestamp column, id not a UUIDv7)\n", r.Outbox, r.Undated)
	}
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func cleanupOutbox(ctx context.Context, env *Env, opts *cleanupOptions, t provisioning.Target) (cleanup.Result, error) {
	o := t.Outbox
	olderThan := opts.OlderThan
	if !opts.OlderThanSet {
		olderThan = cleanup.OlderThanFor(o)
	}
	copts := cleanup.Options{Outbox: o, Config: t.Connector.Config, OlderThan: olderThan, Batch: opts.Batch, DryRun: opts.DryRun, Wait: opts.Wait}
	if o.RelayPublished() || o.DeletesAfterInsert() {
		return cleanup.Run(ctx, nil, copts)
	}
	client, err := connectClient(env, &opts.Connect)
	if err != nil && o.Database.Kind != spec.Postgres {
		return cleanup.Result{Outbox: o.Name}, err
	}
	name := t.Connector.Name
	// Check against the connector as deployed (slot, plugin, publication,
	// include lists); PostgreSQL, which needs Connect for nothing else,
	// falls back to the generated config when Connect cannot tell.
	var deployed map[string]string
	if err == nil {
		deployed, err = client.GetConfig(ctx, name)
	}
	switch {
	case err == nil:
		copts.Config = deployed
	case o.Database.Kind == spec.Postgres:
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: outbox %s: cannot read the deployed config of connector %s (%v); checking the slot and publication against the generated config\n", o.Name, name, err)
	default:
		return cleanup.Result{Outbox: o.Name}, fmt.Errorf("outbox %s: connector %s: %w", o.Name, name, err)
	}
	if o.Database.Kind != spec.Postgres {
		copts.ConnectorOffset = func(ctx context.Context) (cleanup.BinlogPos, error) {
			offs, err := client.Offsets(ctx, name)
			if err != nil {
				return cleanup.BinlogPos{}, fmt.Errorf("connector %s: %w", name, err)
			}
			return cleanup.BinlogOffset(offs)
		}
	}
	db, err := outboxDB(env, o)
	if err != nil {
		return cleanup.Result{Outbox: o.Name}, err
	}
	defer db.Close()
	return cleanup.Run(ctx, db, copts)
}

// outboxDB opens the outbox's own database with the admin credentials of
// the settings (OUTBOXCTL_PG_DSN, OUTBOXCTL_MARIADB_DSN, OUTBOXCTL_MYSQL_DSN).
func outboxDB(env *Env, o *spec.Outbox) (*sql.DB, error) {
	driver, dsn := adminDB(env, o)
	var err error
	if o.Database.Kind == spec.Postgres {
		dsn = settings.PostgresDSNWithDatabase(dsn, o.Database.Connection.DBName)
	} else if dsn, err = settings.MySQLDSNWithDatabase(dsn, o.Schema); err != nil {
		return nil, UsageError(err)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("outbox %s: %w", o.Name, err)
	}
	return db, nil
}
