//go:build integration

package relay_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/spec"
)

// keyed recreates the fixture's outbox table with the primary key time
// partitioning forces: (id, created_at) with a millisecond timestamp.
func (f *fixture) keyed() {
	f.t.Helper()
	ddl := []string{"DROP TABLE outbox", `CREATE TABLE outbox (id uuid NOT NULL, aggregatetype varchar(255), aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload jsonb, created_at timestamp(3) NOT NULL, ` + strings.Join(outboxddl.OrderColumns(spec.Postgres), ", ") + `, PRIMARY KEY (id, created_at))`}
	if f.side.kind != eventrouter.Postgres {
		ddl[1] = "CREATE TABLE outbox (id varchar(36) NOT NULL, aggregatetype varchar(255), aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload json, created_at datetime(3) NOT NULL, " + outboxddl.OrderColumns(spec.MariaDB)[0] + ", KEY (relay_seq), PRIMARY KEY (id, created_at))"
	}
	for _, q := range ddl {
		if _, err := f.db.Exec(q); err != nil {
			f.t.Fatal(err)
		}
	}
}

// insertMany inserts n rows of aggregate type aggType (NULL when empty) in
// one statement, each with a distinct millisecond created_at, and returns
// their ids in order.
func (f *fixture) insertMany(q execer, n int, aggType string) []string {
	f.t.Helper()
	var vals []string
	var args []any
	var ids []string
	base := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		id := itest.UUID(f.t)
		ids = append(ids, id)
		var at any = aggType
		if aggType == "" {
			at = nil
		}
		ts := base.Add(time.Duration(i)*time.Millisecond + 123*time.Millisecond).Format("2006-01-02 15:04:05.000")
		args = append(args, id, at, fmt.Sprint("a-", i%7), "T", fmt.Sprintf(`{"n": %d}`, i), ts)
		if f.side.kind == eventrouter.Postgres {
			k := len(args) - 6
			vals = append(vals, fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+6))
		} else {
			vals = append(vals, "(?, ?, ?, ?, ?, ?)")
		}
	}
	for len(vals) > 0 { // at most 500 rows a statement (PostgreSQL: 65535 parameters)
		m := min(500, len(vals))
		if _, err := q.Exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at) VALUES "+strings.Join(vals[:m], ", "), args[:6*m]...); err != nil {
			f.t.Fatal(err)
		}
		vals, args = vals[m:], args[6*m:]
		if f.side.kind == eventrouter.Postgres && len(vals) > 0 { // renumber
			for i := range vals {
				k := 6 * i
				vals[i] = fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+6)
			}
		}
	}
	return ids
}

// exactlyOnce reads the fixture's topic and checks that it holds each of
// ids exactly once and nothing else.
func (f *fixture) exactlyOnce(ids []string) {
	f.t.Helper()
	rd := itest.NewReader(f.t, f.boot, f.topic)
	seen := map[string]int{}
	for i := 0; i < len(ids); i++ {
		m := rd.Next(30 * time.Second)
		if m == nil {
			f.t.Fatalf("got %d of %d records on %s", i, len(ids), f.topic)
		}
		seen[header(m, "id")]++
	}
	if m := rd.Next(time.Second); m != nil {
		seen[header(m, "id")]++
		f.t.Errorf("a record more than the %d published: %s", len(ids), header(m, "id"))
	}
	for _, id := range ids {
		if seen[id] != 1 {
			f.t.Errorf("event %s published %d times, want once", id, seen[id])
		}
	}
}

// lineLog collects log lines.
type lineLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lineLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *lineLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(l.buf.String(), "\n")
}

// A primary key with a millisecond timestamp (PostgreSQL timestamp(3),
// MariaDB datetime(3)): the relay deletes what it published, by the values
// it read, and publishes each row once.
func TestRelayCompositeTimeKey(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			f.keyed()
			ids := f.insertMany(f.db, 250, "Order")
			r := f.relay(relay.Options{Batch: 100})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := r.Drain(ctx); err != nil { // before the fix: without end on MariaDB (deleting 0 rows)
				t.Fatalf("Drain: %v", err)
			}
			if err := r.Drain(ctx); err != nil { // finds nothing
				t.Fatalf("second Drain: %v", err)
			}
			if n := f.count(); n != 0 {
				t.Errorf("%d rows left, want 0", n)
			}
			if st := r.Stats(); st.Published != 250 {
				t.Errorf("published %d, want 250", st.Published)
			}
			f.exactlyOnce(ids)
		})
	}
}

// A published row that is gone before the relay deletes it (someone else
// deleted it): the rows deleted differ from those published, and Run stops
// with an error instead of going on.
func TestRelayDeleteMismatchStops(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			f.keyed()
			ids := f.insertMany(f.db, 10, "Order")
			r := f.relay(relay.Options{PollInterval: 20 * time.Millisecond})
			q := "DELETE FROM outbox WHERE id = $1"
			if sd.kind != eventrouter.Postgres {
				q = "DELETE FROM outbox WHERE id = ?"
			}
			relay.SetTestHook(r, func(point string) {
				if point == "delete" {
					if _, err := f.db.Exec(q, ids[3]); err != nil {
						t.Error(err)
					}
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := r.Run(ctx)
			if ctx.Err() != nil {
				t.Fatal("Run did not stop on the rows it could not delete")
			}
			if !errors.Is(err, relay.ErrDatabase) || !errors.Is(err, relay.ErrNotDeleted) {
				t.Fatalf("Run: %v, want ErrNotDeleted (an ErrDatabase)", err)
			}
			t.Logf("Run: %v", err)
		})
	}
}

// A writer keeps a transaction open on an outbox insert: the relay goes on
// publishing the committed rows before and after it, with a one-column and
// a (id, created_at) primary key.
func TestRelayLongWriterTransaction(t *testing.T) {
	for _, sd := range sides {
		for _, composite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/composite=%v", sd.name, composite), func(t *testing.T) { longWriter(t, sd, composite) })
		}
	}
}

func longWriter(t *testing.T, sd side, composite bool) {
	f := newFixture(t, sd, nil)
	if composite {
		f.keyed()
	}
	ids := f.insertMany(f.db, 25, "Order")
	tx, err := f.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	f.insertMany(tx, 1, "Order")
	ids = append(ids, f.insertMany(f.db, 25, "Order")...)
	r := f.relay(relay.Options{PollInterval: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := r.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	defer func() { cancel(); wg.Wait() }()
	wait := func(want int64, bound time.Duration) {
		t.Helper()
		deadline := time.Now().Add(bound)
		for r.Stats().Published < want {
			if time.Now().After(deadline) {
				t.Fatalf("published %d of %d within %s while a writer transaction is open", r.Stats().Published, want, bound)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if sd.kind == eventrouter.Postgres {
		// The database-assigned order's horizon (docs/relay.md, "Order"):
		// the 25 rows of transactions that began writing after the open
		// one wait for it, so that it cannot commit behind them; the 25
		// before it are published, and the rest once it ends.
		wait(25, 3*time.Second)
		time.Sleep(200 * time.Millisecond)
		if got := r.Stats().Published; got != 25 {
			t.Fatalf("published %d rows while the writer transaction that began before 25 of them is open, want the 25 before it", got)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	wait(50, 3*time.Second)
	ids = append(ids, f.insertMany(f.db, 2000, "Order")...)
	wait(2050, 20*time.Second)
	if n := f.count(); n != 0 {
		t.Errorf("%d rows visible after publishing, want 0", n)
	}
	cancel()
	wg.Wait()
	f.exactlyOnce(ids)
}

// Cancelling Run inside a batch (after the broker acknowledged it, before
// the delete): the batch is finished, counted, and not published again.
func TestRelayGracefulStopFinishesBatch(t *testing.T) {
	for _, sd := range sides {
		for _, composite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/composite=%v", sd.name, composite), func(t *testing.T) { gracefulStop(t, sd, composite) })
		}
	}
}

func gracefulStop(t *testing.T, sd side, composite bool) {
	f := newFixture(t, sd, nil)
	if composite {
		f.keyed()
	}
	ids := f.insertMany(f.db, 100, "Order")
	r := f.relay(relay.Options{Batch: 100})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	relay.SetTestHook(r, func(point string) {
		if point == "acked" {
			cancel()
		}
	})
	if err := r.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if st := r.Stats(); st.Published != 100 {
		t.Errorf("published %d, want 100", st.Published)
	}
	r.Close()
	if n := f.count(); n != 0 {
		t.Errorf("%d rows left after the stop, want 0", n)
	}
	next := f.relay(relay.Options{})
	dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer dcancel()
	if err := next.Drain(dctx); err != nil {
		t.Fatal(err)
	}
	if st := next.Stats(); st.Published != 0 {
		t.Errorf("the next relay published %d, want 0", st.Published)
	}
	f.exactlyOnce(ids)
}

// Rows the EventRouter drops (errors.tolerance=all) stay in the table, as
// under Debezium; the relay publishes the rows after them, and logs each
// dropped row once.
func TestRelayDroppedRowsStay(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, map[string]string{"errors.tolerance": "all"})
			f.keyed()
			f.insertMany(f.db, 120, "") // dropped: a NULL routing column
			ids := f.insertMany(f.db, 20, "Order")
			lines := &lineLog{}
			r := f.relay(relay.Options{Batch: 50, Logger: slog.New(slog.NewTextHandler(lines, nil))})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := r.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			since := time.Now()
			ids = append(ids, f.insertMany(f.db, 5, "Order")...)
			if err := r.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			// the oldest pending row is one of the 5, not a dropped one
			if st, max := r.Stats(), time.Since(since)+5*time.Millisecond; st.OldestPending <= 0 || st.OldestPending > max {
				t.Errorf("oldest pending %s, want the age of the last rows (at most %s), not of the dropped ones", st.OldestPending, max)
			}
			if st := r.Stats(); st.Published != 25 || st.Dropped != 120 {
				t.Errorf("stats %+v, want 25 published, 120 dropped", st)
			}
			if n := f.count(); n != 120 {
				t.Errorf("%d rows left, want the 120 dropped ones", n)
			}
			logged := map[string]int{}
			for _, l := range lines.lines() {
				if strings.Contains(l, " dropped") {
					logged[l[strings.Index(l, "msg="):]]++
				}
			}
			if len(logged) != 120 {
				t.Errorf("%d distinct dropped lines, want 120", len(logged))
			}
			for l, n := range logged {
				if n != 1 {
					t.Errorf("logged %d times: %s", n, l)
				}
			}
			f.exactlyOnce(ids)
		})
	}
}
