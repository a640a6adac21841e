// Package cleanup deletes published rows from an outbox table that keeps
// its rows (the connector captures inserts; nothing else removes them), in
// bounded batches, without ever deleting a row the publisher has not
// published. It is safe to run from cron while the connector streams.
//
// Run is the entry point; Options says which outbox, how old and how many
// per batch. The package does not schedule itself and does not touch
// outboxes whose rows something else removes: a relay-published outbox
// (the relay deletes each row after the broker's ack) and an outbox whose
// writer deletes each row in its inserting transaction are skipped, with
// the reason in Result.Skipped.
//
// # Why no unpublished row is deleted
//
//  1. Run opens a read-only REPEATABLE READ transaction S on one
//     connection and, in its first statement, reads the database's log
//     position P: pg_current_wal_insert_lsn() on PostgreSQL, the snapshot's
//     binlog_snapshot_file/position on MariaDB (START TRANSACTION WITH
//     CONSISTENT SNAPSHOT). A transaction whose rows S sees committed
//     before S's snapshot was taken, and PostgreSQL and MariaDB make a
//     transaction visible only after its commit record is in the log, so
//     every commit S sees lies before P.
//  2. Run waits until the publisher confirmed P: the slot's
//     confirmed_flush_lsn >= P (PostgreSQL) or the connector's committed
//     binlog offset in Kafka Connect >= P (MariaDB). Debezium confirms a
//     position only after Kafka Connect committed the offsets of the
//     records before it, and Connect commits an offset only when every
//     record before it was acknowledged by the broker; the log is streamed
//     in commit order. So every row S sees is on its topic.
//  3. Run reads the candidate rows (older than the cutoff) from S only,
//     page by page in id order, and deletes exactly those on another
//     connection: by id, and on PostgreSQL by id and xmin, so even a row
//     re-inserted with the same id after S is not touched. A row committed
//     after S is invisible to S and never a candidate.
//
// If the publisher does not confirm P within Options.Wait, nothing is
// deleted and Run fails with ErrNotConfirmed.
//
// A confirmed position proves only that the connector streamed the log up
// to it, not that it captured the outbox table: a slot of another
// database, a slot of another plugin, a publication without the table or
// an include list that excludes it all advance on heartbeats while the
// table's rows are never published. So before waiting and again before
// deleting, Run checks against the connector config in Options.Config
// (the deployed one when the caller could read it) that the slot is in the
// outbox's database with the connector's plugin (provisioning.SlotMismatch,
// the check doctor reports as PG_SLOT_MISMATCH), that the publication
// (publication.name) publishes inserts of the table or is FOR ALL TABLES,
// and that the include and exclude lists capture the table
// (connectorconfig.ExcludesTable). If not, nothing is deleted and Run
// fails with a *NotCapturedError (ErrNotCaptured).
//
// A dry run takes the same snapshot and waits the same way: it counts as
// "would delete" only rows the publisher confirmed; when it cannot confirm
// P within Options.Wait it counts the candidates in Result.Unconfirmed and
// fails with ErrNotConfirmed.
//
// # Partitions
//
// A partition of a partitioned PostgreSQL outbox whose range ends before
// the cutoff is detached and dropped whole. The detach never queues an
// ACCESS EXCLUSIVE lock on the outbox in front of the application's
// inserts: on PostgreSQL 14+ without a default partition it is DETACH
// PARTITION … CONCURRENTLY (which inserts do not wait for); otherwise a
// plain DETACH. Both run under a short lock_timeout (Options.LockTimeout)
// and are retried up to Options.DetachAttempts times (Result.DetachRetries
// counts the retries); a concurrent detach interrupted by the timeout is
// completed with DETACH … FINALIZE, now or by the next run.
//
// The age of a row is its timestamp column (UTC, as the writer stores it)
// or, without one, the time in its UUIDv7 id; rows whose age cannot be
// told are never deleted.
package cleanup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/internal/uuidv7"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// Sentinel errors.
var (
	// ErrNotConfirmed: the publisher did not confirm the position of the
	// cleanup's snapshot in time (connector stopped or lagging, slot
	// missing); nothing was deleted.
	ErrNotConfirmed = errors.New("publisher has not confirmed the snapshot position")
	// ErrUnsupported: the outbox's database cannot be cleaned safely
	// (MySQL, which has no snapshot binlog position).
	ErrUnsupported = errors.New("cleanup not supported")
	// ErrInvalid: bad Options.
	ErrInvalid = errors.New("invalid cleanup options")
	// ErrNotCaptured: the connector's slot, publication or include lists
	// do not capture the outbox table, so its confirmed position says
	// nothing about the table's rows; nothing was deleted. Returned as a
	// *NotCapturedError.
	ErrNotCaptured = errors.New("the connector does not capture the outbox table")
)

// NotCapturedError says why the connector does not capture the outbox
// table. It unwraps to ErrNotCaptured.
type NotCapturedError struct {
	Outbox string
	// Reasons, one per problem (a PG_SLOT_MISMATCH finding, a publication
	// without the table, an include list that excludes it).
	Reasons []string
}

func (e *NotCapturedError) Error() string {
	return fmt.Sprintf("%v: outbox %s: %s; nothing deleted", ErrNotCaptured, e.Outbox, strings.Join(e.Reasons, "; "))
}

func (e *NotCapturedError) Unwrap() error { return ErrNotCaptured }

// Defaults of Options.
const (
	DefaultBatch          = 1000
	DefaultWait           = 2 * time.Minute
	DefaultLockTimeout    = time.Second
	DefaultDetachAttempts = 5
)

// BinlogPos is a MySQL/MariaDB binlog position.
type BinlogPos struct {
	File string `json:"file"`
	Pos  int64  `json:"pos"`
}

func (p BinlogPos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Pos) }

// Less orders positions by the binlog file's sequence number, then the
// position in it.
func (p BinlogPos) Less(q BinlogPos) bool {
	a, b := fileSeq(p.File), fileSeq(q.File)
	if a != b {
		return a < b
	}
	return p.Pos < q.Pos
}

func fileSeq(f string) int64 {
	i := strings.LastIndexByte(f, '.')
	n, err := strconv.ParseInt(f[i+1:], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// BinlogOffset reads the committed binlog position of a Debezium MySQL or
// MariaDB connector from its Kafka Connect offsets (GET …/offsets).
func BinlogOffset(o connect.Offsets) (BinlogPos, error) {
	for _, off := range o.Offsets {
		file, _ := off.Offset["file"].(string)
		var pos int64
		switch v := off.Offset["pos"].(type) {
		case float64:
			pos = int64(v)
		case int64:
			pos = v
		case string:
			pos, _ = strconv.ParseInt(v, 10, 64)
		}
		if file != "" {
			return BinlogPos{File: file, Pos: pos}, nil
		}
	}
	return BinlogPos{}, fmt.Errorf("%w: the connector has no committed binlog offset yet", ErrNotConfirmed)
}

// DefaultOlderThan is the age OlderThanFor gives an outbox whose spec
// declares no retention.
const DefaultOlderThan = time.Hour

// OlderThanFor is the age past which o's published rows are deleted when
// the caller sets none (outboxctl cleanup without --older-than): the
// retention o's spec declares, read through provisioning.OldestRowLimit,
// the one source of the age the oldest kept row may reach (doctor's
// OUTBOX_OLDEST_ROW and the exporter's outbox_retention_seconds, read by
// the OutboxKeptRowTooOld alert); DefaultOlderThan when it declares none.
func OlderThanFor(o *spec.Outbox) time.Duration {
	if o.RelayPublished() { // no kept rows; Run skips it
		return DefaultOlderThan
	}
	if limit, _ := provisioning.OldestRowLimit(o, provisioning.Thresholds{MaxOldestRowAge: DefaultOlderThan}); limit > 0 {
		return limit
	}
	return DefaultOlderThan
}

// Options say what Run cleans.
type Options struct {
	// Outbox is the spec outbox; Config its connector config: the
	// deployed one (Kafka Connect's GET …/config) or else the generated
	// one. Run reads slot.name, plugin.name, publication.name and the
	// include and exclude lists from it.
	Outbox *spec.Outbox
	Config map[string]string
	// OlderThan: only rows at least this old are deleted.
	OlderThan time.Duration
	// Batch is the number of rows per DELETE (default DefaultBatch).
	Batch int
	// DryRun counts the candidates the publisher confirmed (waiting up to
	// Wait like a real run); it deletes nothing.
	DryRun bool
	// Wait bounds the wait for the publisher's confirmation (default
	// DefaultWait); Poll is the time between checks (default 500ms).
	Wait, Poll time.Duration
	// ConnectorOffset returns the connector's committed binlog position
	// (MySQL, MariaDB; e.g. BinlogOffset of connect.Client.Offsets).
	ConnectorOffset func(ctx context.Context) (BinlogPos, error)
	// LockTimeout is the lock_timeout of each partition detach (default
	// DefaultLockTimeout); DetachAttempts bounds the attempts per
	// partition (default DefaultDetachAttempts).
	LockTimeout    time.Duration
	DetachAttempts int
}

// Result is what Run did.
type Result struct {
	Outbox string `json:"outbox"`
	DryRun bool   `json:"dryRun"`
	// Skipped says why the outbox was not cleaned ("" when it was).
	Skipped string `json:"skipped,omitempty"`
	// Cutoff: rows created before it are candidates (UTC).
	Cutoff time.Time `json:"cutoff,omitzero"`
	// SnapshotPosition is P (see the package doc); ConfirmedPosition the
	// publisher's position when the deletes started (or, in a dry run,
	// now).
	SnapshotPosition  string `json:"snapshotPosition,omitempty"`
	ConfirmedPosition string `json:"confirmedPosition,omitempty"`
	// Confirmed: the publisher had confirmed SnapshotPosition.
	Confirmed bool `json:"confirmed"`
	// Deleted rows (in a dry run: confirmed rows that would be deleted),
	// in Batches DELETE statements. On an error, the rows deleted before it.
	Deleted int64 `json:"deleted"`
	Batches int   `json:"batches"`
	// Unconfirmed (dry run) are the candidates left because the publisher
	// did not confirm the snapshot position within Options.Wait.
	Unconfirmed int64 `json:"unconfirmed,omitempty"`
	// Undated rows were left because their age cannot be told (no
	// timestamp column and an id that is not a UUIDv7).
	Undated int64 `json:"undated,omitempty"`
	// WaitedMs is the time spent waiting for the confirmation.
	WaitedMs int64 `json:"waitedMs"`
	// DroppedPartitions are the partitions of a partitioned outbox dropped
	// whole (in a dry run: that would be), their rows not counted in
	// Deleted.
	DroppedPartitions []string `json:"droppedPartitions,omitempty"`
	// DetachRetries counts the partition detaches retried after their
	// lock_timeout.
	DetachRetries int `json:"detachRetries,omitempty"`
	// Error is why the run stopped ("" when it did not); Deleted and
	// DroppedPartitions are what it did before.
	Error string `json:"error,omitempty"`
}

// Run deletes the published rows of opts.Outbox older than opts.OlderThan
// from db, the outbox's database (see the package doc for why it never
// deletes an unpublished row). Errors wrap ErrNotConfirmed, ErrNotCaptured,
// ErrUnsupported or ErrInvalid, or are the database's; Result.Error repeats
// the error and Result says what was done before it.
func Run(ctx context.Context, db *sql.DB, opts Options) (Result, error) {
	res, err := run(ctx, db, opts)
	if err != nil {
		res.Error = err.Error()
	}
	return res, err
}

func run(ctx context.Context, db *sql.DB, opts Options) (Result, error) {
	o := opts.Outbox
	res := Result{Outbox: o.Name, DryRun: opts.DryRun}
	switch {
	case o.RelayPublished():
		res.Skipped = "published by the relay, which deletes each row after the broker's ack"
		return res, nil
	case o.DeletesAfterInsert():
		res.Skipped = "the writer deletes each row in its inserting transaction (writer.deleteAfterInsert)"
		return res, nil
	case o.Database.Kind == spec.MySQL:
		return res, fmt.Errorf("%w: outbox %s: MySQL has no binlog position of a consistent snapshot (MariaDB and PostgreSQL have)", ErrUnsupported, o.Name)
	}
	if opts.OlderThan < 0 || opts.Batch < 0 {
		return res, fmt.Errorf("%w: older-than and batch must not be negative", ErrInvalid)
	}
	if opts.Batch == 0 {
		opts.Batch = DefaultBatch
	}
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	if opts.Poll <= 0 {
		opts.Poll = 500 * time.Millisecond
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.DetachAttempts <= 0 {
		opts.DetachAttempts = DefaultDetachAttempts
	}
	d := newDialect(opts)
	if d.pg && opts.Config["slot.name"] == "" {
		return res, fmt.Errorf("%w: outbox %s: the connector config has no slot.name", ErrInvalid, o.Name)
	}
	if !d.pg && opts.ConnectorOffset == nil {
		return res, fmt.Errorf("%w: outbox %s: no way to read the connector's offset", ErrInvalid, o.Name)
	}

	partitioned := d.pg && o.Partitioned()
	if partitioned && !opts.DryRun {
		// Before the snapshot is taken: a concurrent detach waits for
		// every older snapshot of the database, the cleanup's own too.
		// dropPartitions waits for its own confirmation.
		if err := d.captured(ctx, db); err != nil {
			return res, err
		}
		var cut string
		if err := db.QueryRowContext(ctx, `SELECT ((now() AT TIME ZONE 'UTC') - make_interval(secs => $1::float8 / 1000000))::text`, opts.OlderThan.Microseconds()).Scan(&cut); err != nil {
			return res, fmt.Errorf("outbox %s: %w", o.Name, err)
		}
		cutoff, err := time.Parse(tsLayout, cut)
		if err != nil {
			return res, fmt.Errorf("outbox %s: database time %q: %w", o.Name, cut, err)
		}
		if err := d.dropPartitions(ctx, db, cutoff, &res); err != nil {
			return res, fmt.Errorf("outbox %s: %w", o.Name, err)
		}
	}

	snap, err := db.Conn(ctx)
	if err != nil {
		return res, err
	}
	defer snap.Close()
	end, pos, cutoff, err := d.begin(ctx, snap, opts.OlderThan)
	if err != nil {
		return res, fmt.Errorf("outbox %s: snapshot: %w", o.Name, err)
	}
	defer end()
	res.SnapshotPosition, res.Cutoff = pos.String(), cutoff
	if err := d.captured(ctx, db); err != nil {
		return res, err
	}

	start := time.Now()
	for {
		confirmed, ok, err := d.confirmed(ctx, db, pos)
		if err != nil {
			return res, fmt.Errorf("outbox %s: %w", o.Name, err)
		}
		res.ConfirmedPosition, res.Confirmed = confirmed, ok
		if ok {
			break
		}
		if time.Since(start) >= opts.Wait {
			res.WaitedMs = time.Since(start).Milliseconds()
			what := "nothing deleted"
			if opts.DryRun {
				if err := d.count(ctx, snap, cutoff, &res); err != nil {
					return res, fmt.Errorf("outbox %s: read candidates: %w", o.Name, err)
				}
				what = fmt.Sprintf("%d candidate rows not confirmed published", res.Unconfirmed)
			}
			return res, fmt.Errorf("%w: outbox %s: snapshot at %s, confirmed %s after waiting %s (is the connector running?); %s",
				ErrNotConfirmed, o.Name, res.SnapshotPosition, orNone(confirmed), opts.Wait, what)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(opts.Poll):
		}
	}
	res.WaitedMs = time.Since(start).Milliseconds()
	// The connector config or the publication may have changed while
	// waiting: check again before deleting.
	if err := d.captured(ctx, db); err != nil {
		return res, err
	}

	if partitioned && opts.DryRun {
		if err := d.dropPartitions(ctx, db, cutoff, &res); err != nil {
			return res, fmt.Errorf("outbox %s: %w", o.Name, err)
		}
	}

	var last *string
	for {
		rows, undated, err := d.page(ctx, snap, cutoff, last, opts.Batch)
		if err != nil {
			return res, fmt.Errorf("outbox %s: read candidates: %w", o.Name, err)
		}
		res.Undated += undated
		if len(rows) == 0 && undated == 0 {
			return res, nil
		}
		if len(rows) > 0 {
			if opts.DryRun {
				res.Deleted += int64(len(rows))
			} else {
				n, err := d.delete(ctx, db, rows)
				if err != nil {
					return res, fmt.Errorf("outbox %s: delete: %w", o.Name, err)
				}
				res.Deleted += n
			}
			res.Batches++
		}
		l := d.lastID
		last = &l
	}
}

// count counts the candidates of the snapshot as unconfirmed (a dry run
// whose snapshot position the publisher did not confirm).
func (d *dialect) count(ctx context.Context, snap *sql.Conn, cutoff time.Time, res *Result) error {
	var last *string
	for {
		rows, undated, err := d.page(ctx, snap, cutoff, last, d.opts.Batch)
		if err != nil {
			return err
		}
		res.Undated += undated
		res.Unconfirmed += int64(len(rows))
		if len(rows) == 0 && undated == 0 {
			return nil
		}
		l := d.lastID
		last = &l
	}
}

// captured checks that the connector config captures the outbox table:
// on PostgreSQL the slot (its database and plugin) and the publication,
// on every database the include and exclude lists.
func (d *dialect) captured(ctx context.Context, db *sql.DB) error {
	o := d.opts.Outbox
	var reasons []string
	if d.pg {
		t := provisioning.Target{Outbox: o, Connector: connectorconfig.Connector{Config: d.opts.Config}}
		slot, err := provisioning.SlotFacts(ctx, db, d.opts.Config["slot.name"])
		if err != nil {
			return fmt.Errorf("outbox %s: %w", o.Name, err)
		}
		if slot != nil { // a missing slot is ErrNotConfirmed (confirmed says so)
			for _, f := range provisioning.SlotMismatch(t, slot) {
				reasons = append(reasons, f.Rule+": "+f.Subject+": "+f.Message)
			}
		}
		name := d.opts.Config["publication.name"]
		if name == "" {
			name = "dbz_publication" // Debezium's default
		}
		qt := o.QualifiedTable()
		p, err := provisioning.PublicationFacts(ctx, db, name)
		switch {
		case err != nil:
			return fmt.Errorf("outbox %s: %w", o.Name, err)
		case p == nil:
			reasons = append(reasons, "publication "+name+" does not exist")
		case !p.Covers(qt):
			reasons = append(reasons, fmt.Sprintf("publication %s does not publish the outbox table %s (it has %s)", name, qt, tablesOrNone(p.Tables)))
		case !p.Insert:
			reasons = append(reasons, "publication "+name+" does not publish inserts")
		}
	}
	for _, e := range connectorconfig.ExcludesTable(d.opts.Config, o) {
		reasons = append(reasons, e.Message)
	}
	if len(reasons) > 0 {
		return &NotCapturedError{Outbox: o.Name, Reasons: reasons}
	}
	return nil
}

func tablesOrNone(ts []string) string {
	if len(ts) == 0 {
		return "no table"
	}
	return strings.Join(ts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// position is P: an LSN or a binlog position.
type position struct {
	lsn    string
	binlog BinlogPos
}

func (p position) String() string {
	if p.lsn != "" {
		return p.lsn
	}
	return p.binlog.String()
}

// row is a candidate: its id and, on PostgreSQL, its xmin.
type row struct{ id, xmin string }

type dialect struct {
	opts   Options
	pg     bool
	table  string
	id, ts string
	lastID string
}

func newDialect(opts Options) *dialect {
	o := opts.Outbox
	kind := o.Database.Kind
	q := func(s string) string { return sqlident.Quote(kind, s) }
	table := q(o.Table)
	if o.Schema != "" {
		table = q(o.Schema) + "." + table
	}
	d := &dialect{opts: opts, pg: kind == spec.Postgres, table: table, id: q(o.Columns.ID)}
	if o.Columns.Timestamp != "" {
		d.ts = q(o.Columns.Timestamp)
	}
	return d
}

const tsLayout = "2006-01-02 15:04:05.999999999"

// begin opens the snapshot transaction on conn and reads P and the cutoff
// (the database's UTC clock minus olderThan) in its first statement.
func (d *dialect) begin(ctx context.Context, conn *sql.Conn, olderThan time.Duration) (end func(), p position, cutoff time.Time, err error) {
	var cut string
	if d.pg {
		if _, err = conn.ExecContext(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
			return nil, p, cutoff, err
		}
		end = func() { _, _ = conn.ExecContext(context.Background(), "ROLLBACK") }
		err = conn.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text,
			((now() AT TIME ZONE 'UTC') - make_interval(secs => $1::float8 / 1000000))::text`, olderThan.Microseconds()).Scan(&p.lsn, &cut)
	} else {
		if _, err = conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"); err != nil {
			return nil, p, cutoff, err
		}
		if _, err = conn.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); err != nil {
			return nil, p, cutoff, err
		}
		end = func() { _, _ = conn.ExecContext(context.Background(), "ROLLBACK") }
		if err = conn.QueryRowContext(ctx, `SELECT DATE_FORMAT(UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND, '%Y-%m-%d %H:%i:%s.%f')`, olderThan.Microseconds()).Scan(&cut); err != nil {
			end()
			return nil, p, cutoff, err
		}
		var rows *sql.Rows
		rows, err = conn.QueryContext(ctx, "SHOW STATUS LIKE 'binlog_snapshot_%'")
		if err == nil {
			for rows.Next() {
				var k, v string
				if err = rows.Scan(&k, &v); err != nil {
					break
				}
				switch strings.ToLower(k) {
				case "binlog_snapshot_file":
					p.binlog.File = v
				case "binlog_snapshot_position":
					p.binlog.Pos, _ = strconv.ParseInt(v, 10, 64)
				}
			}
			rows.Close()
		}
		if err == nil && p.binlog.File == "" {
			err = fmt.Errorf("%w: the server reports no binlog_snapshot_file (binary logging off?)", ErrUnsupported)
		}
	}
	if err != nil {
		end()
		return nil, p, cutoff, err
	}
	if cutoff, err = time.Parse(tsLayout, cut); err != nil {
		end()
		return nil, p, cutoff, fmt.Errorf("database time %q: %w", cut, err)
	}
	return end, p, cutoff, nil
}

// confirmed reads the publisher's position and whether it has passed p.
func (d *dialect) confirmed(ctx context.Context, db *sql.DB, p position) (string, bool, error) {
	if d.pg {
		slot := d.opts.Config["slot.name"]
		var lsn sql.NullString
		var ok sql.NullBool
		err := db.QueryRowContext(ctx, `SELECT confirmed_flush_lsn::text, confirmed_flush_lsn >= $1::pg_lsn FROM pg_replication_slots WHERE slot_name = $2`, p.lsn, slot).Scan(&lsn, &ok)
		if errors.Is(err, sql.ErrNoRows) {
			return "", false, fmt.Errorf("%w: replication slot %s does not exist (is the connector deployed?); nothing deleted", ErrNotConfirmed, slot)
		}
		if err != nil {
			return "", false, fmt.Errorf("replication slot %s: %w", slot, err)
		}
		return lsn.String, ok.Valid && ok.Bool, nil
	}
	off, err := d.opts.ConnectorOffset(ctx)
	if errors.Is(err, ErrNotConfirmed) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("connector offset: %w", err)
	}
	return off.String(), !off.Less(p.binlog), nil
}

// page reads the next candidates after the id last from the snapshot, in
// id order. Rows past the cutoff by id (no timestamp column) that are not
// UUIDv7 are counted as undated and left.
func (d *dialect) page(ctx context.Context, conn *sql.Conn, cutoff time.Time, last *string, n int) ([]row, int64, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		if d.pg {
			return "$" + strconv.Itoa(len(args))
		}
		return "?"
	}
	idText, xmin := d.id, "''"
	if d.pg {
		idText, xmin = d.id+"::text", "xmin::text"
	}
	if d.ts != "" {
		cast := ""
		if d.pg {
			cast = "::timestamp"
		}
		where = append(where, d.ts+" < "+arg(cutoff.Format(tsLayout))+cast)
	} else {
		// UUIDv7 ids sort by their millisecond: every id of an earlier
		// millisecond is below this bound (the version nibble is 7).
		ms := cutoff.UnixMilli()
		h := fmt.Sprintf("%012x", ms)
		bound := h[:8] + "-" + h[8:] + "-0000-0000-000000000000"
		cast := ""
		if d.pg {
			cast = "::uuid"
		}
		where = append(where, d.id+" < "+arg(bound)+cast)
	}
	if last != nil {
		cast := ""
		if d.pg {
			cast = "::uuid"
		}
		where = append(where, d.id+" > "+arg(*last)+cast)
	}
	q := "SELECT " + idText + ", " + xmin + " FROM " + d.table + " WHERE " + strings.Join(where, " AND ") + " ORDER BY " + d.id + " LIMIT " + strconv.Itoa(n)
	rs, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rs.Close()
	var out []row
	var undated int64
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.id, &r.xmin); err != nil {
			return nil, 0, err
		}
		d.lastID = r.id
		if d.ts == "" {
			if t, ok := uuidv7.Time(r.id); !ok || !t.Before(cutoff) {
				undated++
				continue
			}
		}
		out = append(out, r)
	}
	return out, undated, rs.Err()
}

// delete removes exactly the candidate rows (by id, and xmin on PostgreSQL).
func (d *dialect) delete(ctx context.Context, db *sql.DB, rows []row) (int64, error) {
	var res sql.Result
	var err error
	if d.pg {
		ids, xmins := make([]string, len(rows)), make([]string, len(rows))
		for i, r := range rows {
			ids[i], xmins[i] = r.id, r.xmin
		}
		res, err = db.ExecContext(ctx, "DELETE FROM "+d.table+" t USING unnest($1::text[]::uuid[], $2::text[]) AS d(id, x) WHERE t."+d.id+" = d.id AND t.xmin::text = d.x", ids, xmins)
	} else {
		args := make([]any, len(rows))
		for i, r := range rows {
			args[i] = r.id
		}
		res, err = db.ExecContext(ctx, "DELETE FROM "+d.table+" WHERE "+d.id+" IN (?"+strings.Repeat(", ?", len(rows)-1)+")", args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

var boundRe = regexp.MustCompile(`TO \('([^']+)'\)`)

// dropPartitions drops the partitions of a partitioned PostgreSQL outbox
// whose range ends at or before the cutoff. Each is detached first (see
// detach: the detach waits for the transactions inserting into the outbox,
// and no insert can reach the partition afterwards); then the WAL insert
// position is read and the slot must confirm it, so every row the
// partition holds was streamed; only then is it dropped. If the slot does
// not confirm within Options.Wait, the partition is attached again and
// nothing is dropped.
func (d *dialect) dropPartitions(ctx context.Context, db *sql.DB, cutoff time.Time, res *Result) error {
	var version int
	var hasDefault bool
	if err := db.QueryRowContext(ctx, `SELECT current_setting('server_version_num')::int,
		COALESCE((SELECT partdefid <> 0 FROM pg_partitioned_table WHERE partrelid = to_regclass($1)), false)`, d.table).Scan(&version, &hasDefault); err != nil {
		return fmt.Errorf("partitions: %w", err)
	}
	pending := "false"
	if version >= 140000 {
		pending = "i.inhdetachpending"
	}
	rows, err := db.QueryContext(ctx, `SELECT n.nspname, c.relname, pg_get_expr(c.relpartbound, c.oid), `+pending+`
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE i.inhparent = to_regclass($1) ORDER BY c.relname`, d.table)
	if err != nil {
		return fmt.Errorf("partitions: %w", err)
	}
	var old []partition
	for rows.Next() {
		var schema, name, bound string
		var detachPending bool
		if err := rows.Scan(&schema, &name, &bound, &detachPending); err != nil {
			rows.Close()
			return err
		}
		m := boundRe.FindStringSubmatch(bound)
		if m == nil {
			continue // DEFAULT or MAXVALUE: never dropped
		}
		to, err := time.Parse(tsLayout, m[1])
		if err != nil || to.After(cutoff) {
			continue
		}
		q := func(s string) string { return sqlident.Quote(spec.Postgres, s) }
		old = append(old, partition{q(schema) + "." + q(name), strings.TrimSpace(bound), detachPending})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// DETACH … CONCURRENTLY (PostgreSQL 14+) fails when the table has a
	// default partition.
	concurrently := version >= 140000 && !hasDefault
	for _, p := range old {
		if d.opts.DryRun {
			res.DroppedPartitions = append(res.DroppedPartitions, p.name)
			continue
		}
		if err := d.detach(ctx, db, p, concurrently, res); err != nil {
			return err
		}
		var pos position
		if err := db.QueryRowContext(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&pos.lsn); err != nil {
			return err
		}
		start := time.Now()
		for {
			_, ok, err := d.confirmed(ctx, db, pos)
			if err == nil && ok {
				break
			}
			if err == nil && time.Since(start) >= d.opts.Wait {
				err = fmt.Errorf("%w: partition %s: the slot did not confirm %s within %s; attached again, nothing dropped", ErrNotConfirmed, p.name, pos.lsn, d.opts.Wait)
			}
			if err != nil {
				if _, aerr := db.ExecContext(context.Background(), "ALTER TABLE "+d.table+" ATTACH PARTITION "+p.name+" "+p.bound); aerr != nil {
					return fmt.Errorf("%w (and attaching %s again failed: %v; attach it by hand)", err, p.name, aerr)
				}
				return err
			}
			time.Sleep(d.opts.Poll)
		}
		if _, err := db.ExecContext(ctx, "DROP TABLE "+p.name); err != nil {
			return fmt.Errorf("drop partition %s: %w", p.name, err)
		}
		res.DroppedPartitions = append(res.DroppedPartitions, p.name)
	}
	return nil
}

type partition struct {
	name, bound string
	// detachPending: a DETACH … CONCURRENTLY was interrupted; only
	// DETACH … FINALIZE completes it.
	detachPending bool
}

// detach detaches partition p under lock_timeout Options.LockTimeout,
// CONCURRENTLY when the server allows it, and retries a detach that timed
// out on a lock up to Options.DetachAttempts times in all. A concurrent
// detach interrupted by the timeout leaves the partition detach-pending
// (no new insert reaches it); the retry, or the next run, finalizes it.
func (d *dialect) detach(ctx context.Context, db *sql.DB, p partition, concurrently bool, res *Result) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET lock_timeout = %d", max(d.opts.LockTimeout.Milliseconds(), 1))); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "RESET lock_timeout") //nolint:errcheck // the connection is closed next
	stmt := func() string {
		s := "ALTER TABLE " + d.table + " DETACH PARTITION " + p.name
		switch {
		case p.detachPending:
			return s + " FINALIZE"
		case concurrently:
			return s + " CONCURRENTLY"
		}
		return s
	}
	for attempt := 1; ; attempt++ {
		_, err := conn.ExecContext(ctx, stmt())
		if err == nil {
			return nil
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "55P03" { // lock_not_available
			return fmt.Errorf("detach partition %s: %w", p.name, err)
		}
		if concurrently && !p.detachPending {
			// The first of the two transactions may have committed: the
			// partition is then detach-pending.
			if qerr := conn.QueryRowContext(ctx, `SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = to_regclass($1)`, p.name).Scan(&p.detachPending); qerr != nil && !errors.Is(qerr, sql.ErrNoRows) {
				return fmt.Errorf("detach partition %s: %w", p.name, qerr)
			}
		}
		if attempt >= d.opts.DetachAttempts {
			state := "still attached"
			if p.detachPending {
				state = "detach-pending (no insert reaches it; the next run finalizes the detach)"
			}
			return fmt.Errorf("detach partition %s: a lock was not granted within lock_timeout %s in %d attempts (a long transaction on the outbox?); the partition is %s: %w",
				p.name, d.opts.LockTimeout, attempt, state, err)
		}
		res.DetachRetries++
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * d.opts.LockTimeout / 2):
		}
	}
}
