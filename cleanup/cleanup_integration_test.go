//go:build integration

package cleanup_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cleanup"
	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// These tests run cleanup.Run against the stack's real PostgreSQL and
// MariaDB. The connector is played by the test: a logical replication
// slot that the test advances (a connector streaming, here heartbeats
// only) or leaves alone (a connector stopped), and a binlog offset read
// from the server. Each test makes its own database, slots and
// publication and removes them.

// fixture is an outbox in a fresh database with its generated connector
// config.
type fixture struct {
	db     *sql.DB
	o      *spec.Outbox
	config map[string]string
	w      *outbox.Writer
	name   string
}

func newFixture(t *testing.T, kind, extra string) *fixture {
	t.Helper()
	s := itest.Require(t, itest.Postgres, itest.MariaDB)
	sfx := itest.Suffix()
	name := "outbox_cl_" + sfx
	var db *sql.DB
	conn := "{host: pg, user: dbz, dbname: " + name + "}"
	if kind == spec.Postgres {
		db = itest.PostgresDatabase(t, s.PostgresDSN, name)
	} else {
		db = itest.MariaDBDatabase(t, s.MariaDBDSN, name)
	}
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: kafka:9092
outboxes:
  - name: cl-%s
    database:
      kind: %s
      connection: %s
    payloadFormat: json
%s`, sfx, kind, conn, extra)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	if kind != spec.Postgres {
		o.Schema = name
	}
	targets, err := provisioning.Targets(sp, connectorconfig.Options{BootstrapServers: "kafka:9092"})
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, o)
	w, err := outbox.NewWriter(outbox.TableFor(o), outbox.AllowUndeclaredEvents())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{db: db, o: o, config: targets[0].Connector.Config, w: w, name: name}
}

// write commits n events created at at (zero: now) and returns their ids.
func (f *fixture) write(t *testing.T, n int, at time.Time) []string {
	t.Helper()
	var ids []string
	for i := range n {
		tx, err := f.db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		id, err := f.w.Write(context.Background(), tx, outbox.Event{AggregateType: "cl", AggregateID: fmt.Sprint(i), Type: "Cleaned", Payload: []byte(`{}`), SchemaVersion: 1, Timestamp: at})
		if err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func (f *fixture) rows(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.db.QueryRow("SELECT count(*) FROM " + outboxddl.QualifiedTable(f.o)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// publication creates the publication of the connector config (on the
// given tables of the fixture's database).
func (f *fixture) publication(t *testing.T, tables string, with string) {
	t.Helper()
	if _, err := f.db.Exec("CREATE PUBLICATION " + f.config["publication.name"] + " FOR TABLE " + tables + " WITH (" + with + ")"); err != nil {
		t.Fatal(err)
	}
}

// slot creates a pgoutput logical replication slot in db's database. With
// advance, a goroutine moves its confirmed position to the flushed WAL
// every 50 ms until the test ends, as a streaming connector does (on
// heartbeats too, whatever it captures).
func slot(t *testing.T, db *sql.DB, name string, advance bool) (start func()) {
	t.Helper()
	if _, err := db.Exec("SELECT pg_create_logical_replication_slot($1, 'pgoutput')", name); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	start = func() {
		once.Do(func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if _, err := db.Exec("SELECT pg_replication_slot_advance($1, pg_current_wal_flush_lsn())", name); err != nil {
						t.Errorf("advance slot %s: %v", name, err)
						return
					}
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
				}
			}()
		})
	}
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
		if _, err := db.Exec("SELECT pg_drop_replication_slot($1)", name); err != nil {
			t.Errorf("drop slot %s: %v", name, err)
		}
	})
	if advance {
		start()
	}
	return start
}

func (f *fixture) run(t *testing.T, opts cleanup.Options) (cleanup.Result, error) {
	t.Helper()
	opts.Outbox = f.o
	if opts.Config == nil {
		opts.Config = f.config
	}
	if opts.Wait == 0 {
		opts.Wait = 20 * time.Second
	}
	opts.Poll = 100 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cleanup.Run(ctx, f.db, opts)
	t.Logf("cleanup: %+v, err %v", res, err)
	return res, err
}

// TestRunRefusesSlotOfAnotherDatabase (issue #24 item 10): slot.name names
// a slot of another database that advances. Its confirmed position says
// nothing about the outbox's rows: cleanup deletes nothing and fails with
// ErrNotCaptured, naming PG_SLOT_MISMATCH. The outbox's own slot, in the
// same setup, lets it delete.
func TestRunRefusesSlotOfAnotherDatabase(t *testing.T) {
	f := newFixture(t, spec.Postgres, "    columns: {timestamp: created_at}\n")
	f.publication(t, "public.outbox", "publish = 'insert'")
	s := itest.Settings()
	other := itest.PostgresDatabase(t, s.PostgresDSN, f.name+"_other")
	foreign := f.config["slot.name"] + "_other"
	slot(t, other, foreign, true)
	f.write(t, 5, time.Time{})

	cfg := map[string]string{}
	for k, v := range f.config {
		cfg[k] = v
	}
	cfg["slot.name"] = foreign
	res, err := f.run(t, cleanup.Options{Config: cfg})
	var nc *cleanup.NotCapturedError
	if !errors.Is(err, cleanup.ErrNotCaptured) || !errors.As(err, &nc) || !strings.Contains(err.Error(), "PG_SLOT_MISMATCH") {
		t.Errorf("slot of another database: err %v, want ErrNotCaptured naming PG_SLOT_MISMATCH", err)
	}
	if n := f.rows(t); res.Deleted != 0 || n != 5 {
		t.Fatalf("slot of another database: deleted %d, %d rows left; want 0 deleted, 5 left", res.Deleted, n)
	}

	// The outbox's own slot, advancing: the same rows are deleted.
	slot(t, f.db, f.config["slot.name"], true)
	if res, err := f.run(t, cleanup.Options{}); err != nil || res.Deleted != 5 || f.rows(t) != 0 {
		t.Errorf("own slot: deleted %d, err %v; want 5", res.Deleted, err)
	}
}

// TestRunRefusesTableNotCaptured (issue #24 item 11): the slot advances
// (heartbeats) but the outbox table left the publication (PostgreSQL) or
// the connector's table.include.list (MariaDB): rows written afterwards
// are never published. Cleanup deletes nothing and fails with
// ErrNotCaptured; before, with the table captured, it deletes.
func TestRunRefusesTableNotCaptured(t *testing.T) {
	t.Run("postgres publication", func(t *testing.T) {
		f := newFixture(t, spec.Postgres, "    columns: {timestamp: created_at}\n")
		if _, err := f.db.Exec("CREATE TABLE public.other (id int PRIMARY KEY)"); err != nil {
			t.Fatal(err)
		}
		f.publication(t, "public.outbox, public.other", "publish = 'insert'")
		slot(t, f.db, f.config["slot.name"], true)
		f.write(t, 2, time.Time{})
		if res, err := f.run(t, cleanup.Options{}); err != nil || res.Deleted != 2 {
			t.Fatalf("table in the publication: deleted %d, err %v; want 2", res.Deleted, err)
		}

		if _, err := f.db.Exec("ALTER PUBLICATION " + f.config["publication.name"] + " DROP TABLE public.outbox"); err != nil {
			t.Fatal(err)
		}
		f.write(t, 3, time.Time{})
		res, err := f.run(t, cleanup.Options{})
		if !errors.Is(err, cleanup.ErrNotCaptured) || !strings.Contains(err.Error(), "does not publish the outbox table public.outbox") {
			t.Errorf("table dropped from the publication: err %v, want ErrNotCaptured", err)
		}
		if n := f.rows(t); res.Deleted != 0 || n != 3 {
			t.Errorf("table dropped from the publication: deleted %d, %d rows left; want 0 deleted, 3 left", res.Deleted, n)
		}
	})
	t.Run("mariadb include list", func(t *testing.T) {
		f := newFixture(t, spec.MariaDB, "")
		offset := func(ctx context.Context) (cleanup.BinlogPos, error) { return binlogPos(ctx, f.db) }
		f.write(t, 2, time.Time{})
		if res, err := f.run(t, cleanup.Options{ConnectorOffset: offset}); err != nil || res.Deleted != 2 {
			t.Fatalf("table in table.include.list: deleted %d, err %v; want 2", res.Deleted, err)
		}

		cfg := map[string]string{}
		for k, v := range f.config {
			cfg[k] = v
		}
		cfg["table.include.list"] = f.name + `\.other`
		f.write(t, 3, time.Time{})
		res, err := f.run(t, cleanup.Options{Config: cfg, ConnectorOffset: offset})
		if !errors.Is(err, cleanup.ErrNotCaptured) || !strings.Contains(err.Error(), "table.include.list") {
			t.Errorf("table not in table.include.list: err %v, want ErrNotCaptured", err)
		}
		if n := f.rows(t); res.Deleted != 0 || n != 3 {
			t.Errorf("table not in table.include.list: deleted %d, %d rows left; want 0 deleted, 3 left", res.Deleted, n)
		}
	})
}

// binlogPos is the server's current binlog position: a connector that
// has streamed everything (its committed offset).
func binlogPos(ctx context.Context, db *sql.DB) (cleanup.BinlogPos, error) {
	rows, err := db.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		return cleanup.BinlogPos{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || !rows.Next() {
		return cleanup.BinlogPos{}, fmt.Errorf("SHOW MASTER STATUS: no row (%v)", err)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return cleanup.BinlogPos{}, err
	}
	var p cleanup.BinlogPos
	p.File = vals[0].String
	_, err = fmt.Sscan(vals[1].String, &p.Pos)
	return p, err
}

// TestRunDryRunCountsOnlyConfirmed (issue #24 item 13): with the connector
// stopped (the slot does not move), a dry run counts no row as deletable,
// reports the unconfirmed candidates and fails with ErrNotConfirmed; once
// the slot moves, it counts them. Nothing is deleted either way.
func TestRunDryRunCountsOnlyConfirmed(t *testing.T) {
	f := newFixture(t, spec.Postgres, "    columns: {timestamp: created_at}\n")
	f.publication(t, "public.outbox", "publish = 'insert'")
	start := slot(t, f.db, f.config["slot.name"], false)
	f.write(t, 8, time.Time{})

	res, err := f.run(t, cleanup.Options{DryRun: true, Wait: time.Second})
	if !errors.Is(err, cleanup.ErrNotConfirmed) || res.Deleted != 0 || res.Unconfirmed != 8 || res.Confirmed || res.Error == "" {
		t.Errorf("dry run, connector stopped: would delete %d, unconfirmed %d, confirmed %v, err %v; want 0, 8, false, ErrNotConfirmed",
			res.Deleted, res.Unconfirmed, res.Confirmed, err)
	}
	start()
	res, err = f.run(t, cleanup.Options{DryRun: true})
	if err != nil || res.Deleted != 8 || res.Unconfirmed != 0 || !res.Confirmed {
		t.Errorf("dry run, connector streaming: would delete %d, unconfirmed %d, err %v; want 8, 0, nil", res.Deleted, res.Unconfirmed, err)
	}
	if n := f.rows(t); n != 8 {
		t.Errorf("a dry run deleted rows: %d left, want 8", n)
	}
}

// TestRunDetachDoesNotBlockWriters (issue #24 item 12): a partitioned
// outbox whose previous hour's partition is due, and a writer transaction
// that keeps an insert open while cleanup detaches it. The application's
// next insert, under a 1 s lock_timeout of its own, must succeed while the
// detach waits; once the open transaction commits, the partition is
// detached and dropped.
//
// With a default partition DETACH … CONCURRENTLY is refused: the plain
// DETACH under the short lock_timeout, retried, must not block the
// application either.
func TestRunDetachDoesNotBlockWriters(t *testing.T) {
	t.Run("concurrently", func(t *testing.T) { testDetach(t, false) })
	t.Run("default partition", func(t *testing.T) { testDetach(t, true) })
}

func testDetach(t *testing.T, withDefault bool) {
	f := newFixture(t, spec.Postgres, "    columns: {timestamp: created_at}\n    partitioning: {interval: hour, ahead: 1}\n")
	for _, q := range outboxddl.Partitions(f.o, time.Now()) {
		if _, err := f.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if withDefault {
		if _, err := f.db.Exec("CREATE TABLE public.outbox_default PARTITION OF public.outbox DEFAULT"); err != nil {
			t.Fatal(err)
		}
	}
	f.publication(t, "public.outbox", "publish = 'insert', publish_via_partition_root = true")
	slot(t, f.db, f.config["slot.name"], true)
	f.write(t, 3, time.Now().Add(-time.Hour))
	f.write(t, 2, time.Time{})

	ctx := context.Background()
	open, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Rollback()
	if _, err := f.w.Write(ctx, open, outbox.Event{AggregateType: "cl", AggregateID: "open", Type: "Open", Payload: []byte(`{}`), SchemaVersion: 1}); err != nil {
		t.Fatal(err)
	}

	type result struct {
		res cleanup.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := cleanup.Run(ctx, f.db, cleanup.Options{Outbox: f.o, Config: f.config, Wait: 20 * time.Second, Poll: 100 * time.Millisecond,
			LockTimeout: 300 * time.Millisecond, DetachAttempts: 20})
		done <- result{res, err}
	}()
	// Wait until cleanup's detach waits on a lock behind the open insert.
	for waiting, deadline := 0, time.Now().Add(20*time.Second); waiting == 0; {
		if err := f.db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%DETACH PARTITION%' AND wait_event_type = 'Lock'`, f.name).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("cleanup's detach never waited on a lock behind the open insert")
		}
		time.Sleep(10 * time.Millisecond)
	}

	began := time.Now()
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("SET LOCAL lock_timeout = '1s'"); err != nil {
		t.Fatal(err)
	}
	_, werr := f.w.Write(ctx, tx, outbox.Event{AggregateType: "cl", AggregateID: "app", Type: "App", Payload: []byte(`{}`), SchemaVersion: 1})
	if werr == nil {
		werr = tx.Commit()
	} else {
		tx.Rollback()
	}
	if werr != nil {
		t.Errorf("the application's insert during the detach (lock_timeout 1s): %v after %s", werr, time.Since(began).Round(time.Millisecond))
	}
	time.Sleep(time.Second)
	if err := open.Commit(); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("cleanup did not return within a minute of the open transaction's commit")
	}
	t.Logf("cleanup: %+v, err %v", r.res, r.err)
	if r.err != nil || len(r.res.DroppedPartitions) != 1 || r.res.Deleted < 2 {
		t.Errorf("cleanup: dropped %v, deleted %d, err %v; want the previous hour's partition dropped and the current rows deleted", r.res.DroppedPartitions, r.res.Deleted, r.err)
	}
	// The partitions were dropped before the snapshot was taken: the rows
	// of the current partition it saw (the open transaction's and the
	// application's among them when they were committed by then) are
	// deleted, the others left.
	if n := f.rows(t); werr == nil && int64(n)+r.res.Deleted != 4 {
		t.Errorf("%d rows left and %d deleted, want 4 in all (2 current, the open one and the application's)", n, r.res.Deleted)
	}
}
