package cmd

import (
	"context"
	"database/sql"
	"encoding/json"
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
	Files     []string
	Outbox    string
	OlderThan time.Duration
	Batch     int
	DryRun    bool
	Wait      time.Duration
	Output    string
	Connect   connectFlags
}

func newCleanupCmd(env *Env) *cobra.Command {
	opts := &cleanupOptions{}
	c := &cobra.Command{
		Use:   "cleanup [-f outbox.yaml] [--outbox NAME] [--older-than D] [--batch N] [--dry-run] [-o text|json|yaml]",
		Short: "Delete published outbox rows older than an age",
		Long: `Cleanup deletes the rows of outbox tables that keep them (the connector
captures inserts, nothing else removes the rows) once they are older than
--older-than and published, in batches of --batch rows. It is safe to run from
cron while the connector streams: it takes a snapshot of the table, waits until
the connector confirmed the log position of that snapshot (PostgreSQL: the
slot's confirmed_flush_lsn; MariaDB: the connector's committed binlog offset in
Kafka Connect) and deletes only rows of that snapshot. If the connector does not
confirm within --wait, nothing is deleted (exit 1).

Relay-published outboxes and outboxes with writer.deleteAfterInsert are skipped:
their rows are removed already. MySQL is not supported (no snapshot binlog
position).`,
		Example: `  $ outboxctl cleanup -f outbox.yaml --older-than 1h
  $ outboxctl cleanup -f outbox.yaml --outbox orders --dry-run -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runCleanup(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.Outbox, "outbox", "", "clean only this outbox (default: every outbox of the spec)")
	fs.DurationVar(&opts.OlderThan, "older-than", time.Hour, "delete rows at least this old")
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
	targets, _, err := specTargets(env, opts.Files)
	if err != nil {
		return err
	}
	if opts.Outbox != "" {
		var names []string
		var picked []provisioning.Target
		for _, t := range targets {
			names = append(names, t.Outbox.Name)
			if t.Outbox.Name == opts.Outbox {
				picked = append(picked, t)
			}
		}
		if len(picked) == 0 {
			return UsageError(fmt.Errorf("no outbox %q in the spec (outboxes: %s)", opts.Outbox, strings.Join(names, ", ")))
		}
		targets = picked
	}
	var results []cleanup.Result
	var failed error
	for _, t := range targets {
		res, err := cleanupOutbox(ctx, env, opts, t)
		results = append(results, res)
		if err != nil {
			fmt.Fprintf(env.IO.ErrOut, "outboxctl: %v\n", err)
			failed = err
		}
	}
	if isStructured(opts.Output) {
		if err := writeAs(env.IO.Out, opts.Output, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"results": results})
		}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			switch {
			case r.Skipped != "":
				fmt.Fprintf(env.IO.Out, "outbox %s: skipped: %s\n", r.Outbox, r.Skipped)
			case r.DryRun:
				fmt.Fprintf(env.IO.Out, "outbox %s: would delete %d rows created before %s (snapshot %s, confirmed %s: %v)\n",
					r.Outbox, r.Deleted, r.Cutoff.Format(time.RFC3339), r.SnapshotPosition, r.ConfirmedPosition, r.Confirmed)
			default:
				fmt.Fprintf(env.IO.Out, "outbox %s: deleted %d rows created before %s in %d batches (snapshot %s confirmed after %d ms)\n",
					r.Outbox, r.Deleted, r.Cutoff.Format(time.RFC3339), r.Batches, r.SnapshotPosition, r.WaitedMs)
			}
			if len(r.DroppedPartitions) > 0 {
				verb := "dropped"
				if r.DryRun {
					verb = "would drop"
				}
				fmt.Fprintf(env.IO.Out, "outbox %s: %s partitions %s\n", r.Outbox, verb, strings.Join(r.DroppedPartitions, ", "))
			}
			if r.Undated > 0 {
				fmt.Fprintf(env.IO.Out, "outbox %s: %d rows left: their age cannot be told (no timestamp column, id not a UUIDv7)\n", r.Outbox, r.Undated)
			}
		}
	}
	if failed != nil {
		if errors.Is(failed, cleanup.ErrUnsupported) || errors.Is(failed, cleanup.ErrInvalid) {
			return WithExitCode(ExitUsage, SilentExit(ExitUsage))
		}
		return WithExitCode(ExitError, SilentExit(ExitError))
	}
	return nil
}

func cleanupOutbox(ctx context.Context, env *Env, opts *cleanupOptions, t provisioning.Target) (cleanup.Result, error) {
	o := t.Outbox
	copts := cleanup.Options{Outbox: o, Config: t.Connector.Config, OlderThan: opts.OlderThan, Batch: opts.Batch, DryRun: opts.DryRun, Wait: opts.Wait}
	if o.RelayPublished() || o.DeletesAfterInsert() {
		return cleanup.Run(ctx, nil, copts)
	}
	if o.Database.Kind != spec.Postgres {
		client, err := connectClient(env, &opts.Connect)
		if err != nil {
			return cleanup.Result{Outbox: o.Name}, err
		}
		name := t.Connector.Name
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
