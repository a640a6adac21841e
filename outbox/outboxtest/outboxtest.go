// Package outboxtest is the conformance suite of the outbox writer: the same
// tests, run against every real database dialect, check that what
// outbox.Writer inserts is exactly the column contract that provisioning
// creates and the generated connector reads.
//
// Call Run from an integration test with a connection to an empty (or
// scratch) database:
//
//	func TestWriterPostgres(t *testing.T) {
//		db := itest.PostgresDatabase(t, s.PostgresDSN, "outboxtest_"+itest.Suffix())
//		outboxtest.Run(t, db, spec.Postgres)
//	}
//
// Run creates its own uniquely named tables (with the statements provisioning.TableDDL renders, from internal/outboxddl) and
// drops them at the end.
package outboxtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas/wire"
	"github.com/outboxctl/outboxctl/spec"
)

// Variant is one outbox table shape the suite runs on.
type Variant struct {
	Name   string
	Format string
	// Optional columns.
	Timestamp, Tracing bool
	// NoSchemaVersion drops the schema version column.
	NoSchemaVersion bool
}

// Variants are the table shapes Run covers.
var Variants = []Variant{
	{Name: "avro_all_columns", Format: spec.FormatAvro, Timestamp: true, Tracing: true},
	{Name: "json_defaults", Format: spec.FormatJSON},
	{Name: "json_no_version", Format: spec.FormatJSON, NoSchemaVersion: true},
}

func suffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// OutboxFor builds a spec outbox of the variant for a table in the current
// schema (PostgreSQL) or database (MySQL, MariaDB) of db.
func OutboxFor(t testing.TB, db *sql.DB, dialect string, v Variant, table string) *spec.Outbox {
	t.Helper()
	ctx := context.Background()
	var schema string
	q := "SELECT DATABASE()"
	if dialect == spec.Postgres {
		q = "SELECT current_schema()"
	}
	if err := db.QueryRowContext(ctx, q).Scan(&schema); err != nil {
		t.Fatalf("current schema: %v", err)
	}
	var cols []string
	if v.Timestamp {
		cols = append(cols, "      timestamp: created_at")
	}
	if v.Tracing {
		cols = append(cols, "      tracing: tracingspancontext")
	}
	if v.NoSchemaVersion {
		cols = append(cols, `      schemaVersion: ""`)
	}
	colBlock := ""
	if len(cols) > 0 {
		colBlock = "    columns:\n" + strings.Join(cols, "\n") + "\n"
	}
	doc := fmt.Sprintf(`apiVersion: %s
outboxes:
  - name: conformance
    database:
      kind: %s
      connection: {host: localhost, user: app, dbname: %s}
    schema: %s
    table: %s
    payloadFormat: %s
%s`, spec.APIVersion, dialect, schema, schema, table, v.Format, colBlock)
	s, err := spec.Parse(spec.Source{Name: "conformance.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatalf("conformance spec: %v\n%s", err, doc)
	}
	return &s.Outboxes[0]
}

// Run runs the conformance suite against db (dialect spec.Postgres,
// spec.MySQL or spec.MariaDB) for every Variant, writing through
// database/sql.
func Run(t *testing.T, db *sql.DB, dialect string) {
	RunWith(t, db, dialect, SQLConn(db))
}

// RunWith is Run with the writer's statements sent through conn (for
// example PgxConn), while db still creates the tables and reads them back.
func RunWith(t *testing.T, db *sql.DB, dialect string, conn Conn) {
	for _, v := range Variants {
		t.Run(v.Name, func(t *testing.T) { runVariant(t, db, dialect, v, conn) })
	}
}

// Tx is a transaction the suite writes in.
type Tx interface {
	outbox.Execer
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Conn is how the suite reaches the database for the writer: Begin starts
// a transaction, Exec runs a statement on its own (autocommit).
type Conn struct {
	Begin func(ctx context.Context) (Tx, error)
	Exec  outbox.Execer
}

// SQLConn writes through database/sql (*sql.Tx).
func SQLConn(db *sql.DB) Conn {
	return Conn{
		Begin: func(ctx context.Context) (Tx, error) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return nil, err
			}
			return sqlTx{tx}, nil
		},
		Exec: db,
	}
}

type sqlTx struct{ *sql.Tx }

func (t sqlTx) Commit(context.Context) error   { return t.Tx.Commit() }
func (t sqlTx) Rollback(context.Context) error { return t.Tx.Rollback() }

// PgxConn writes through pgx (pgx.Tx from the pool, through outbox.Pgx).
func PgxConn(pool *pgxpool.Pool) Conn {
	return Conn{
		Begin: func(ctx context.Context) (Tx, error) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return nil, err
			}
			return pgxTx{outbox.Pgx(tx), tx}, nil
		},
		Exec: outbox.Pgx(pool),
	}
}

type pgxTx struct {
	outbox.Execer
	tx pgx.Tx
}

func (t pgxTx) Commit(ctx context.Context) error   { return t.tx.Commit(ctx) }
func (t pgxTx) Rollback(ctx context.Context) error { return t.tx.Rollback(ctx) }

type harness struct {
	t       *testing.T
	db      *sql.DB
	dialect string
	o       *spec.Outbox
	w       *outbox.Writer
	table   string // quoted qualified outbox table
	biz     string // quoted business table
	v       Variant
	conn    Conn
}

func runVariant(t *testing.T, db *sql.DB, dialect string, v Variant, conn Conn) {
	ctx := context.Background()
	sfx := suffix()
	o := OutboxFor(t, db, dialect, v, "outbox_"+sfx)
	q := func(s string) string { return sqlident.Quote(dialect, s) }
	h := &harness{t: t, db: db, dialect: dialect, o: o, v: v, conn: conn,
		table: q(o.Schema) + "." + q(o.Table),
		biz:   q(o.Schema) + "." + q("biz_"+sfx),
	}
	for _, stmt := range outboxddl.Table(o) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+h.biz+" (id varchar(64) PRIMARY KEY, note varchar(255))"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+h.table)
		db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+h.biz)
	})
	w, err := outbox.NewWriter(outbox.TableFor(o), outbox.WithBatchSize(2))
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	h.w = w
	t.Run("CommitWritesBusinessRowAndEvent", h.commit)
	t.Run("RollbackWritesNothing", h.rollback)
	t.Run("WriteAllBatches", h.writeAll)
	t.Run("WriteAllOneStatement", h.writeAllOneStatement)
	t.Run("WriteAllFailureWritesNothing", h.writeAllFailure)
	t.Run("NullPayload", h.nullPayload)
	t.Run("InvalidEventWritesNothing", h.invalid)
	t.Run("DuplicateIDFails", h.duplicate)
	t.Run("DeleteAfterInsertLeavesTableEmpty", h.deleteAfterInsert)
}

// deleteAfterInsert: with WithDeleteAfterInsert, Write and WriteAll in a
// committed transaction leave no row behind, and a rolled-back one too.
func (h *harness) deleteAfterInsert(t *testing.T) {
	ctx := context.Background()
	w, err := outbox.NewWriter(outbox.TableFor(h.o), outbox.WithBatchSize(2), outbox.WithDeleteAfterInsert())
	if err != nil {
		t.Fatal(err)
	}
	before := h.count()
	for _, commit := range []bool{true, false} {
		tx, err := h.conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.Write(ctx, tx, h.event(50))
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		if _, err := w.WriteAll(ctx, tx, []outbox.Event{h.event(51), h.event(52), h.event(53)}); err != nil {
			t.Fatalf("WriteAll: %v", err)
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := h.read(id); ok {
			t.Errorf("event %s still in the table", id)
		}
		if got := h.count(); got != before {
			t.Errorf("rows = %d after delete-after-insert (commit %v), want %d", got, commit, before)
		}
	}
}

func (h *harness) payload(i int) []byte {
	if h.v.Format == spec.FormatAvro {
		// Wire format with schema id 42 and an arbitrary datum: the column
		// must keep every byte, including 0x00 and 0xff.
		return wire.Frame(42, []byte{byte(i), 0x00, 0xff, 0x10, 'x'})
	}
	return []byte(fmt.Sprintf(`{"n": %d, "s": "ünïcode \"q\"", "list": [1, 2]}`, i))
}

func (h *harness) event(i int) outbox.Event {
	e := outbox.Event{
		AggregateType: "Order",
		AggregateID:   fmt.Sprintf("order-%d", i),
		Type:          "OrderCreated",
		Payload:       h.payload(i),
		SchemaVersion: 2,
	}
	if h.v.Tracing {
		e.TraceContext = "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	}
	if h.v.Timestamp {
		e.Timestamp = time.Date(2026, 11, 30, 9, 15, 0, 123456789, time.FixedZone("X", 3600))
	}
	return e
}

// row is an outbox row read back.
type row struct {
	id, aggType, aggID, typ string
	payload                 []byte
	ts                      any
	tracing                 sql.NullString
	version                 sql.NullInt64
}

func (h *harness) read(id string) (row, bool) {
	h.t.Helper()
	q := func(s string) string { return sqlident.Quote(h.dialect, s) }
	c := h.o.Columns
	cols := []string{q(c.ID), q(c.AggregateType), q(c.AggregateID), q(c.Type), q(c.Payload)}
	if h.dialect == spec.Postgres {
		cols[0] += "::text"
		if h.v.Format == spec.FormatJSON {
			cols[4] += "::text"
		}
	}
	var r row
	dest := []any{&r.id, &r.aggType, &r.aggID, &r.typ, &r.payload}
	if c.Timestamp != "" {
		cols = append(cols, q(c.Timestamp))
		dest = append(dest, &r.ts)
	}
	if c.Tracing != "" {
		cols = append(cols, q(c.Tracing))
		dest = append(dest, &r.tracing)
	}
	if v := c.SchemaVersionColumn(); v != "" {
		cols = append(cols, q(v))
		dest = append(dest, &r.version)
	}
	ph := "?"
	if h.dialect == spec.Postgres {
		ph = "$1"
	}
	err := h.db.QueryRow("SELECT "+strings.Join(cols, ", ")+" FROM "+h.table+" WHERE "+q(c.ID)+" = "+ph, id).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false
	}
	if err != nil {
		h.t.Fatalf("read event %s: %v", id, err)
	}
	return r, true
}

func (h *harness) count() int {
	h.t.Helper()
	var n int
	if err := h.db.QueryRow("SELECT count(*) FROM " + h.table).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

func (h *harness) assertRow(id string, want outbox.Event) {
	h.t.Helper()
	r, ok := h.read(id)
	if !ok {
		h.t.Fatalf("event %s not in the outbox table", id)
	}
	if r.id != id {
		h.t.Errorf("id = %q, want %q", r.id, id)
	}
	if r.aggType != want.AggregateType || r.aggID != want.AggregateID || r.typ != want.Type {
		h.t.Errorf("row = (%q, %q, %q), want (%q, %q, %q)", r.aggType, r.aggID, r.typ, want.AggregateType, want.AggregateID, want.Type)
	}
	switch {
	case want.Payload == nil:
		if r.payload != nil {
			h.t.Errorf("payload = %q, want NULL", r.payload)
		}
	case h.v.Format == spec.FormatAvro:
		if !bytes.Equal(r.payload, want.Payload) {
			h.t.Errorf("payload = %x, want the exact bytes %x", r.payload, want.Payload)
		}
	default:
		var g, w any
		if err := json.Unmarshal(r.payload, &g); err != nil {
			h.t.Fatalf("stored payload %q is not JSON: %v", r.payload, err)
		}
		json.Unmarshal(want.Payload, &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			h.t.Errorf("payload = %s, want %s", r.payload, want.Payload)
		}
	}
	if h.v.Timestamp {
		got := asTime(h.t, r.ts)
		wantTS := want.Timestamp.UTC().Truncate(time.Microsecond)
		if !got.Equal(wantTS) {
			h.t.Errorf("timestamp = %s, want %s (UTC, microseconds)", got, wantTS)
		}
	}
	if h.v.Tracing && r.tracing.String != want.TraceContext {
		h.t.Errorf("tracing = %q, want %q", r.tracing.String, want.TraceContext)
	}
	if !h.v.NoSchemaVersion && r.version.Int64 != int64(want.SchemaVersion) {
		h.t.Errorf("schema version = %d, want %d", r.version.Int64, want.SchemaVersion)
	}
}

// asTime reads a timestamp column scanned into any: time.Time (pgx) or the
// text of a MySQL DATETIME (go-sql-driver without parseTime).
func asTime(t testing.TB, v any) time.Time {
	t.Helper()
	switch x := v.(type) {
	case time.Time:
		return time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC)
	case []byte:
		return asTime(t, string(x))
	case string:
		ts, err := time.Parse("2006-01-02 15:04:05.999999", x)
		if err != nil {
			t.Fatalf("timestamp %q: %v", x, err)
		}
		return ts
	}
	t.Fatalf("timestamp of type %T", v)
	return time.Time{}
}

func (h *harness) commit(t *testing.T) {
	ctx := context.Background()
	tx, err := h.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := h.event(1)
	bizID := "biz-" + suffix()
	ph := "(?, ?)"
	if h.dialect == spec.Postgres {
		ph = "($1, $2)"
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+h.biz+" (id, note) VALUES "+ph, bizID, "order placed"); err != nil {
		t.Fatal(err)
	}
	id, err := h.w.Write(ctx, tx, e)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !outbox.IsUUID(id) || id[14] != '7' {
		t.Errorf("generated id %q is not a UUIDv7", id)
	}
	// Not visible outside the transaction before commit.
	if _, ok := h.read(id); ok {
		t.Errorf("event %s visible before commit", id)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	h.assertRow(id, e)
	var n int
	h.db.QueryRow("SELECT count(*) FROM "+h.biz+" WHERE id = "+strings.Split(strings.Trim(ph, "()"), ",")[0], bizID).Scan(&n)
	if n != 1 {
		t.Errorf("business row not committed with the event")
	}
}

func (h *harness) rollback(t *testing.T) {
	ctx := context.Background()
	before := h.count()
	tx, err := h.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := h.w.Write(ctx, tx, h.event(2))
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.read(id); ok {
		t.Errorf("rolled-back event %s is in the outbox table", id)
	}
	if got := h.count(); got != before {
		t.Errorf("rows = %d after rollback, want %d", got, before)
	}
}

func (h *harness) writeAll(t *testing.T) {
	ctx := context.Background()
	tx, err := h.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs := []outbox.Event{h.event(10), h.event(11), h.event(12)}
	evs[1].ID = "0190A0B1-C2D3-7E4F-8A5B-6C7D8E9FA0B1" // upper case is stored lower case
	ids, err := h.w.WriteAll(ctx, tx, evs)
	if err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[1] != strings.ToLower(evs[1].ID) {
		t.Fatalf("ids = %v", ids)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Errorf("duplicate id %s", id)
		}
		seen[id] = true
		h.assertRow(id, evs[i])
	}
}

func (h *harness) nullPayload(t *testing.T) {
	e := h.event(20)
	e.Payload = nil
	id, err := h.w.Write(context.Background(), h.conn.Exec, e)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	h.assertRow(id, e)
}

func (h *harness) invalid(t *testing.T) {
	before := h.count()
	bad := []outbox.Event{
		func() outbox.Event { e := h.event(30); e.AggregateID = ""; return e }(),
		func() outbox.Event { e := h.event(31); e.ID = "not-a-uuid"; return e }(),
		func() outbox.Event { e := h.event(32); e.Payload = []byte("{broken"); return e }(),
	}
	if h.v.Format == spec.FormatAvro {
		bad[2].Payload = []byte{1, 2}
	}
	for i, e := range bad {
		if _, err := h.w.Write(context.Background(), h.conn.Exec, e); !errors.Is(err, outbox.ErrInvalidEvent) {
			t.Errorf("bad event %d: err = %v, want ErrInvalidEvent", i, err)
		}
	}
	if _, err := h.w.WriteAll(context.Background(), h.conn.Exec, append([]outbox.Event{h.event(33)}, bad[0])); !errors.Is(err, outbox.ErrInvalidEvent) {
		t.Errorf("WriteAll with a bad event: err = %v, want ErrInvalidEvent", err)
	}
	if got := h.count(); got != before {
		t.Errorf("rows = %d after rejected events, want %d", got, before)
	}
}

func (h *harness) duplicate(t *testing.T) {
	e := h.event(40)
	id, err := h.w.Write(context.Background(), h.conn.Exec, e)
	if err != nil {
		t.Fatal(err)
	}
	e.ID = id
	if _, err := h.w.Write(context.Background(), h.conn.Exec, e); !errors.Is(err, outbox.ErrInsert) {
		t.Errorf("second write of id %s: err = %v, want ErrInsert", id, err)
	}
}

// MaxParams is the most parameters one statement may carry: PostgreSQL's
// extended protocol and MySQL's/MariaDB's prepared statements both count
// them in 16 bits. WriteAll's one INSERT holds MaxParams / columns rows.
const MaxParams = 65535

// counting counts the statements the writer sends through it.
type counting struct {
	outbox.Execer
	inserts, deletes int
}

func (c *counting) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	switch {
	case strings.HasPrefix(q, "INSERT"):
		c.inserts++
	case strings.HasPrefix(q, "DELETE"):
		c.deletes++
	}
	return c.Execer.ExecContext(ctx, q, args...)
}

// events returns n events whose aggregate ids start with prefix, numbered
// in order, so that the rows can be read back in the database's order.
func (h *harness) events(prefix string, n int) []outbox.Event {
	evs := make([]outbox.Event, n)
	for i := range evs {
		evs[i] = h.event(i)
		evs[i].AggregateID = fmt.Sprintf("%s-%06d", prefix, i)
	}
	return evs
}

// ordered reads back the rows whose aggregate id starts with prefix in
// the relay's database-assigned order (relay_tx, relay_seq on PostgreSQL;
// relay_seq on MySQL and MariaDB): their ids, aggregate ids and the number
// of distinct inserting transactions (PostgreSQL; 1 elsewhere).
func (h *harness) ordered(t *testing.T, prefix string) (ids, aggIDs []string, txs int) {
	t.Helper()
	q := func(s string) string { return sqlident.Quote(h.dialect, s) }
	c := h.o.Columns
	id, order, tx, ph := q(c.ID), q(spec.RelaySeqColumn), "1", "?"
	if h.dialect == spec.Postgres {
		id += "::text"
		order = q(spec.RelayTxColumn) + ", " + order
		tx = q(spec.RelayTxColumn)
		ph = "$1"
	}
	rows, err := h.db.Query("SELECT "+id+", "+q(c.AggregateID)+", "+tx+" FROM "+h.table+
		" WHERE "+q(c.AggregateID)+" LIKE "+ph+" ORDER BY "+order, prefix+"-%")
	if err != nil {
		t.Fatalf("read back in order: %v", err)
	}
	defer rows.Close()
	seen := map[int64]bool{}
	for rows.Next() {
		var i, a string
		var x int64
		if err := rows.Scan(&i, &a, &x); err != nil {
			t.Fatal(err)
		}
		ids, aggIDs = append(ids, i), append(aggIDs, a)
		seen[x] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids, aggIDs, len(seen)
}

// writeAllOneStatement: WriteAll of n events in one transaction sends one
// INSERT (and with WithDeleteAfterInsert one DELETE) as long as the rows'
// parameters fit in MaxParams, and one more per MaxParams/columns rows
// after that. The rows are the events' column contract, and the
// database-assigned order (bigserial or AUTO_INCREMENT relay_seq) follows
// the events' order, across the statements too.
func (h *harness) writeAllOneStatement(t *testing.T) {
	ctx := context.Background()
	chunk := MaxParams / len(h.o.ColumnContract())
	plain, err := outbox.NewWriter(outbox.TableFor(h.o))
	if err != nil {
		t.Fatal(err)
	}
	del, err := outbox.NewWriter(outbox.TableFor(h.o), outbox.WithDeleteAfterInsert())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ n, stmts int }{{1, 1}, {2, 1}, {1000, 1}, {chunk + 1, 2}} {
		t.Run(fmt.Sprintf("n=%d", c.n), func(t *testing.T) {
			prefix := "wa-" + suffix()
			evs := h.events(prefix, c.n)
			tx, err := h.conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			ex := &counting{Execer: tx}
			ids, err := plain.WriteAll(ctx, ex, evs)
			if err != nil {
				t.Fatalf("WriteAll of %d: %v", c.n, err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if ex.inserts != c.stmts || ex.deletes != 0 {
				t.Errorf("WriteAll of %d events: %d INSERTs, %d DELETEs, want %d INSERT(s) (%d rows per statement)", c.n, ex.inserts, ex.deletes, c.stmts, chunk)
			}
			got, aggIDs, txs := h.ordered(t, prefix)
			if len(got) != c.n || len(ids) != c.n {
				t.Fatalf("%d rows, %d ids for %d events", len(got), len(ids), c.n)
			}
			if txs != 1 {
				t.Errorf("rows of one WriteAll carry %d relay_tx values, want 1", txs)
			}
			for i := range got {
				if got[i] != ids[i] || aggIDs[i] != evs[i].AggregateID {
					t.Fatalf("row %d in relay_seq order is (%s, %s), want event %d (%s, %s): the database order is not the events' order", i, got[i], aggIDs[i], i, ids[i], evs[i].AggregateID)
				}
			}
			for _, i := range []int{0, c.n / 2, c.n - 1} {
				h.assertRow(ids[i], evs[i])
			}

			// The same with delete-after-insert: one DELETE per INSERT,
			// nothing left.
			prefix = "wd-" + suffix()
			tx, err = h.conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			ex = &counting{Execer: tx}
			if _, err := del.WriteAll(ctx, ex, h.events(prefix, c.n)); err != nil {
				t.Fatalf("WriteAll with delete-after-insert: %v", err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if ex.inserts != c.stmts || ex.deletes != c.stmts {
				t.Errorf("delete-after-insert WriteAll of %d: %d INSERTs, %d DELETEs, want %d of each", c.n, ex.inserts, ex.deletes, c.stmts)
			}
			if left, _, _ := h.ordered(t, prefix); len(left) != 0 {
				t.Errorf("%d rows left after delete-after-insert", len(left))
			}
		})
	}
}

// writeAllFailure: a WriteAll whose INSERT fails (a duplicate id, in the
// second statement) returns ErrInsert naming the event (index and id), and
// the rolled-back transaction leaves nothing of it, the first statement's
// rows included.
func (h *harness) writeAllFailure(t *testing.T) {
	ctx := context.Background()
	chunk := MaxParams / len(h.o.ColumnContract())
	dup := h.event(60)
	id, err := h.w.Write(ctx, h.conn.Exec, dup)
	if err != nil {
		t.Fatal(err)
	}
	w, err := outbox.NewWriter(outbox.TableFor(h.o))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, chunk + 2} {
		prefix := "wf-" + suffix()
		evs := h.events(prefix, n)
		bad := n - 2
		evs[bad].ID = id
		before := h.count()
		tx, err := h.conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.WriteAll(ctx, tx, evs)
		if rb := tx.Rollback(ctx); rb != nil {
			t.Fatal(rb)
		}
		if !errors.Is(err, outbox.ErrInsert) {
			t.Fatalf("WriteAll of %d with a duplicate id: err = %v, want ErrInsert", n, err)
		}
		if name := fmt.Sprintf("event %d (%s)", bad, id); !strings.Contains(err.Error(), name) {
			t.Errorf("err = %v, want it to name %s", err, name)
		}
		if got := h.count(); got != before {
			t.Errorf("rows = %d after a failed WriteAll rolled back, want %d", got, before)
		}
	}
}
