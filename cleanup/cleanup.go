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

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/outbox"
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
)

// Defaults of Options.
const (
	DefaultBatch = 1000
	DefaultWait  = 2 * time.Minute
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

// Options say what Run cleans.
type Options struct {
	// Outbox is the spec outbox; Config its generated connector config
	// (slot.name for PostgreSQL).
	Outbox *spec.Outbox
	Config map[string]string
	// OlderThan: only rows at least this old are deleted.
	OlderThan time.Duration
	// Batch is the number of rows per DELETE (default DefaultBatch).
	Batch int
	// DryRun counts the candidates and reads the positions; it deletes
	// nothing and does not wait.
	DryRun bool
	// Wait bounds the wait for the publisher's confirmation (default
	// DefaultWait); Poll is the time between checks (default 500ms).
	Wait, Poll time.Duration
	// ConnectorOffset returns the connector's committed binlog position
	// (MySQL, MariaDB; e.g. BinlogOffset of connect.Client.Offsets).
	ConnectorOffset func(ctx context.Context) (BinlogPos, error)
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
	// Deleted rows (in a dry run: rows that would be deleted), in Batches
	// DELETE statements.
	Deleted int64 `json:"deleted"`
	Batches int   `json:"batches"`
	// Undated rows were left because their age cannot be told (no
	// timestamp column and an id that is not a UUIDv7).
	Undated int64 `json:"undated,omitempty"`
	// WaitedMs is the time spent waiting for the confirmation.
	WaitedMs int64 `json:"waitedMs"`
	// DroppedPartitions are the partitions of a partitioned outbox dropped
	// whole (in a dry run: that would be), their rows not counted in
	// Deleted.
	DroppedPartitions []string `json:"droppedPartitions,omitempty"`
}

// Run deletes the published rows of opts.Outbox older than opts.OlderThan
// from db, the outbox's database (see the package doc for why it never
// deletes an unpublished row). Errors wrap ErrNotConfirmed, ErrUnsupported
// or ErrInvalid, or are the database's.
func Run(ctx context.Context, db *sql.DB, opts Options) (Result, error) {
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
	d := newDialect(opts)
	if d.pg && opts.Config["slot.name"] == "" {
		return res, fmt.Errorf("%w: outbox %s: the connector config has no slot.name", ErrInvalid, o.Name)
	}
	if !d.pg && opts.ConnectorOffset == nil {
		return res, fmt.Errorf("%w: outbox %s: no way to read the connector's offset", ErrInvalid, o.Name)
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

	start := time.Now()
	for {
		confirmed, ok, err := d.confirmed(ctx, db, pos)
		if err != nil {
			return res, fmt.Errorf("outbox %s: %w", o.Name, err)
		}
		res.ConfirmedPosition, res.Confirmed = confirmed, ok
		if ok || opts.DryRun {
			break
		}
		if time.Since(start) >= opts.Wait {
			res.WaitedMs = time.Since(start).Milliseconds()
			return res, fmt.Errorf("%w: outbox %s: snapshot at %s, confirmed %s after waiting %s (is the connector running?); nothing deleted",
				ErrNotConfirmed, o.Name, res.SnapshotPosition, orNone(confirmed), opts.Wait)
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(opts.Poll):
		}
	}
	res.WaitedMs = time.Since(start).Milliseconds()

	if d.pg && o.Partitioned() {
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
			if t, ok := outbox.UUIDv7Time(r.id); !ok || !t.Before(cutoff) {
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
// whose range ends at or before the cutoff. Each is detached first (which
// waits for the transactions inserting into it, and no insert can reach it
// afterwards); then the WAL insert position is read and the slot must
// confirm it, so every row the partition holds was streamed; only then is
// it dropped. If the slot does not confirm within Options.Wait, the
// partition is attached again and nothing is dropped.
func (d *dialect) dropPartitions(ctx context.Context, db *sql.DB, cutoff time.Time, res *Result) error {
	rows, err := db.QueryContext(ctx, `SELECT n.nspname, c.relname, pg_get_expr(c.relpartbound, c.oid)
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE i.inhparent = to_regclass($1) ORDER BY c.relname`, d.table)
	if err != nil {
		return fmt.Errorf("partitions: %w", err)
	}
	type part struct{ name, bound string }
	var old []part
	for rows.Next() {
		var schema, name, bound string
		if err := rows.Scan(&schema, &name, &bound); err != nil {
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
		old = append(old, part{q(schema) + "." + q(name), strings.TrimSpace(bound)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, p := range old {
		if d.opts.DryRun {
			res.DroppedPartitions = append(res.DroppedPartitions, p.name)
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+d.table+" DETACH PARTITION "+p.name); err != nil {
			return fmt.Errorf("detach partition %s: %w", p.name, err)
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
