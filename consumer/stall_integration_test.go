//go:build integration

package consumer_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// kindCounter is an Observer that counts observations by kind and step.
type kindCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (k *kindCounter) ObserveRecord(_ context.Context, _ *consumer.Message, o consumer.Observation) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.n == nil {
		k.n = map[string]int{}
	}
	k.n[o.Kind.String()]++
	if o.Step != "" {
		k.n[o.Kind.String()+"/"+o.Step]++
	}
}

func (k *kindCounter) get(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.n[key]
}

// TestInboxBlackholed: the inbox database is reached through a proxy that
// is frozen for a while (connections kept open, nothing forwarded: packets
// dropped, not refused). The lane's inbox transaction must not wait
// without a word: InboxTimeout ends it, a WARN line names the record and
// the step, the Observer counts an inbox timeout, the partition is retried,
// and once the database answers again every event is handled exactly
// once, in order, within a few seconds. database/sql over the pgx driver,
// a pgx pool (stdlib.OpenDBFromPool) and MariaDB through
// go-sql-driver/mysql are checked.
func TestInboxBlackholed(t *testing.T) {
	for _, kind := range []string{"sql", "pgxpool", "mariadb"} {
		t.Run(kind, func(t *testing.T) { testInboxBlackholed(t, kind) })
	}
}

func testInboxBlackholed(t *testing.T, kind string) {
	svc := itest.Postgres
	if kind == "mariadb" {
		svc = itest.MariaDB
	}
	s := itest.Require(t, itest.Kafka, svc)
	sfx := itest.Suffix()
	topic, group := "outbox.event.Blackhole"+sfx, "blackhole-"+sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, 1)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })

	name := "blackhole_" + kind + "_" + sfx
	var direct, db *sql.DB
	var store *inbox.SQLStore
	handle := insertEffect
	if kind == "mariadb" {
		direct = itest.MariaDBDatabase(t, s.MariaDBDSN, name)
		dsn, err := settings.MySQLDSNWithDatabase(s.MariaDBDSN, name)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		proxy := itest.NewProxy(t, mc.Addr)
		mc.Addr = proxy.Addr()
		if db, err = sql.Open("mysql", mc.FormatDSN()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if store, err = inbox.NewMySQL(db, ""); err != nil {
			t.Fatal(err)
		}
		mysqlEffectsInbox(t, direct)
		handle = func(ctx context.Context, ev consumer.Event[Step]) error {
			_, err := ev.Tx.ExecContext(ctx, `INSERT INTO effects (event_id, agg, seq) VALUES (?, ?, ?)`, ev.EventID, ev.AggregateID, ev.Payload.Seq)
			return err
		}
		blackholed(t, s.BootstrapServers, topic, group, direct, store, handle, proxy)
		return
	}
	direct, _ = effectsInbox(t, s.PostgresDSN, name)
	u, err := url.Parse(settings.PostgresDSNWithDatabase(s.PostgresDSN, name))
	if err != nil {
		t.Fatal(err)
	}
	proxy := itest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	switch kind {
	case "sql":
		if db, err = sql.Open("pgx", u.String()); err != nil {
			t.Fatal(err)
		}
	case "pgxpool":
		pool, err := pgxpool.New(context.Background(), u.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		db = stdlib.OpenDBFromPool(pool)
	}
	t.Cleanup(func() { db.Close() })
	if store, err = inbox.NewPostgres(db, ""); err != nil {
		t.Fatal(err)
	}
	blackholed(t, s.BootstrapServers, topic, group, direct, store, handle, proxy)
}

// mysqlEffectsInbox creates the inbox and effects tables on MariaDB db.
func mysqlEffectsInbox(t *testing.T, db *sql.DB) {
	t.Helper()
	st, err := inbox.NewMySQL(db, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE effects (pos bigint AUTO_INCREMENT PRIMARY KEY, event_id varchar(255) NOT NULL UNIQUE, agg varchar(255) NOT NULL, seq int NOT NULL)`)
}

// blackholed runs the blackhole scenario of TestInboxBlackholed: direct
// reaches the database without the proxy, store through it.
func blackholed(t *testing.T, bootstrap, topic, group string, direct *sql.DB, store *inbox.SQLStore, handle func(context.Context, consumer.Event[Step]) error, proxy *itest.Proxy) {
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	obs := &kindCounter{}
	const timeout = 2 * time.Second
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store, Logger: log, Observer: obs, InboxTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	must(t, consumer.Handle(r, "Step", 1, handle))
	run := runConsumer(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		CommitInterval: 100 * time.Millisecond, RedeliveryBackoff: 200 * time.Millisecond, MaxRedeliveryBackoff: time.Second,
		Logger: log,
	}, r)
	effects := func() int {
		var n int
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := direct.QueryRowContext(ctx, `SELECT count(*) FROM effects`).Scan(&n); err != nil {
			return -1
		}
		return n
	}
	evs := events("bh"+group, 1, 20, 2, seqValue)
	produceEvents(t, bootstrap, topic, evs[:5])
	waitFor(t, 60*time.Second, "the first events handled", func() bool { return effects() == 5 })

	proxy.Freeze()
	frozenAt := time.Now()
	produceEvents(t, bootstrap, topic, evs[5:])
	// The lane is now in an inbox transaction that gets no answer.
	waitFor(t, 4*timeout, "a WARN line on the stalled inbox transaction", func() bool {
		return strings.Contains(logs.String(), "inbox transaction timed out")
	})
	stalledFor := time.Since(frozenAt)
	time.Sleep(timeout) // the retries time out too, without a word more than a line each
	if n := effects(); n != 5 {
		t.Fatalf("effects while the database is blackholed = %d, want 5", n)
	}
	proxy.Thaw()
	thawedAt := time.Now()
	waitFor(t, 3*timeout+5*time.Second, "every event's effect after the database returned", func() bool { return effects() == len(evs) })
	t.Logf("stall reported %s after the freeze; all handled %s after the thaw", stalledFor.Round(time.Millisecond), time.Since(thawedAt).Round(time.Millisecond))
	if err := run.stop(t); err != nil {
		t.Errorf("Run = %v", err)
	}
	checkEffects(t, direct, evs)

	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "inbox transaction timed out") {
			line = l
			break
		}
	}
	for _, want := range []string{"level=WARN", "topic=" + topic, "partition=0", "offset=5", "event_id=" + evs[5].id, "step=", "timeout=2s"} {
		if !strings.Contains(line, want) {
			t.Errorf("stall log line %q lacks %q", line, want)
		}
	}
	if n := obs.get(consumer.ObservedInboxTimeout.String()); n == 0 {
		t.Errorf("Observer saw no %s", consumer.ObservedInboxTimeout)
	}
	if obs.get("failed") == 0 {
		t.Error("Observer saw no failed record during the blackhole")
	}
}
