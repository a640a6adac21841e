//go:build integration

package cutover_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/relay/cutover"
	"github.com/outboxctl/outboxctl/relay/internal/relayitest"
)

// TestRelayCutoverToCDC moves a PostgreSQL outbox from the relay to the
// Debezium connector under a steady writer, with a consumer whose inbox
// (PostgreSQL) commits an INSERT per event: the connector is deployed while
// the relay runs, cutover.ToCDC waits until it streams, the relay is stopped
// when the cutover waits for it, the cutover drains what is left. Every
// event must be on the topic at least once, and in the consumer's effects
// exactly once: the duplicates of the overlap window are absorbed by the
// inbox and counted.
func TestRelayCutoverToCDC(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	o := relayitest.NewSpecOutbox(t, s, "cut", false)
	db, sfx, topic, conf, name := o.DB, o.Sfx, o.Topic, o.Conf, o.Name
	cons := startInboxConsumer(t, s.BootstrapServers, db, topic, "cut-inbox-"+sfx)
	writer := startWriter(t, db)

	// the relay publishes
	relayCtx, stopRelay := context.WithCancel(context.Background())
	defer stopRelay()
	r1, err := relay.New(relayCtx, db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 50 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	relayDone := make(chan error, 1)
	go func() { relayDone <- r1.Run(relayCtx) }()
	// a standby that nobody stops: the fence keeps it from publishing
	// beside the connector once the cutover is over
	standbyCtx, stopStandby := context.WithCancel(context.Background())
	defer stopStandby()
	r2, err := relay.New(standbyCtx, db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 50 * time.Millisecond, Logf: func(f string, a ...any) { t.Logf("standby: "+f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	standbyDone := make(chan error, 1)
	go func() { standbyDone <- r2.Run(standbyCtx) }()
	time.Sleep(time.Second)

	// the connector is deployed while the relay runs
	itest.PutConnector(t, s.ConnectURL, name, conf)
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := relay.New(context.Background(), db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 200 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer cut.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var steps []string
	err = cutover.ToCDC(ctx, cut, cc, name, func(s string) {
		steps = append(steps, s)
		t.Logf("cutover: ok %s", s)
		if strings.Contains(s, "streams") {
			// the operator stops the relay now
			stopRelay()
			if err := <-relayDone; err != nil {
				t.Errorf("relay: %v", err)
			}
			r1.Close()
		}
	})
	if err != nil {
		t.Fatalf("cutover: %v (steps done: %q)", err, steps)
	}
	if len(steps) != 5 {
		t.Errorf("steps %q, want 5", steps)
	}
	cut.Close() // the cutover's lock is free: the standby must still not publish
	before := r2.Stats().Published
	time.Sleep(1500 * time.Millisecond) // the connector alone publishes
	written := writer.stop()
	if st := r2.Stats(); st.Published != before || st.Leader {
		t.Errorf("the standby published %d rows after the cutover to CDC (leader %v): want none, the fence keeps it out", st.Published-before, st.Leader)
	}
	var left int
	if err := db.QueryRow("SELECT count(*) FROM outbox").Scan(&left); err != nil || left == 0 {
		t.Errorf("rows left in the table after the cutover: %d (%v); want the rows the connector published, which no relay deletes", left, err)
	}

	tc := countTopic(t, s.BootstrapServers, topic, written, r1.RunID(), cut.RunID(), r2.RunID())
	t.Logf("COUNTS cutover to cdc: %s", tc)
	if tc.byRelay == 0 || tc.records-tc.byRelay == 0 {
		t.Errorf("want records from both publishers (relay %d, connector %d)", tc.byRelay, tc.records-tc.byRelay)
	}
	cons.checkExactlyOnce(t, "cutover to cdc", written, tc)

	// The way back lifts the fence (a connector that is not deployed
	// counts as stopped): the standby takes over and drains the table.
	itest.DeleteConnector(t, s.ConnectURL, name)
	back, err := relay.New(context.Background(), db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 100 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if err := cutover.ToRelay(ctx, back, cc, name+"-gone", cutover.ToRelayOptions{Observe: -1}, func(s string) { t.Logf("cutover back: ok %s", s) }); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if err := db.QueryRow("SELECT count(*) FROM outbox").Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 && r2.Stats().Leader {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not take over after the fence was lifted: %d rows left, leader %v", left, r2.Stats().Leader)
		}
	}
	stopStandby()
	if err := <-standbyDone; err != nil {
		t.Errorf("standby: %v", err)
	}
}

// TestRelayCutoverToRelay moves a PostgreSQL outbox from the connector to
// the relay under a steady writer, with the inbox consumer of
// TestRelayCutoverToCDC: cutover.ToRelay watches the table grow (no
// delete-after-insert) while the connector streams, the operator stops the
// connector, the cutover confirms it and counts the rows, the relay starts
// and publishes them all (again, for those the connector published) and
// what the writer goes on writing. None lost, each exactly once in effects.
func TestRelayCutoverToRelay(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	o := relayitest.NewSpecOutbox(t, s, "cut2", false)
	db, sfx, topic, conf, name := o.DB, o.Sfx, o.Topic, o.Conf, o.Name
	itest.PutConnector(t, s.ConnectURL, name, conf)
	itest.WaitRunning(t, s.ConnectURL, name, 90*time.Second)
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// wait until the connector streams, then write under CDC
	for {
		o, err := cc.Offsets(ctx, name)
		if err == nil && len(o.Offsets) > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("connector does not stream")
		}
		time.Sleep(200 * time.Millisecond)
	}
	cons := startInboxConsumer(t, s.BootstrapServers, db, topic, "cut2-inbox-"+sfx)
	writer := startWriter(t, db)
	time.Sleep(time.Second) // the connector publishes

	r, err := relay.New(ctx, db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 50 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var steps []string
	err = cutover.ToRelay(ctx, r, cc, name, cutover.ToRelayOptions{Observe: 2 * time.Second}, func(s string) {
		steps = append(steps, s)
		t.Logf("cutover: ok %s", s)
		if strings.HasPrefix(s, "rows stay") {
			// the check passed: the operator stops the connector now
			if err := cc.Stop(ctx, name); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil {
		t.Fatalf("cutover: %v (steps %q)", err, steps)
	}
	if len(steps) != 4 || !strings.HasPrefix(steps[0], "rows stay") {
		t.Errorf("steps %q: want the delete-after-insert check passed, the connector stopped, the rows counted", steps)
	}
	relayCtx, stopRelay := context.WithCancel(ctx)
	relayDone := make(chan error, 1)
	go func() { relayDone <- r.Run(relayCtx) }()
	time.Sleep(time.Second) // the relay alone publishes
	written := writer.stop()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM outbox").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows left in the table", n)
		}
	}
	stopRelay()
	if err := <-relayDone; err != nil {
		t.Fatalf("relay: %v", err)
	}

	tc := countTopic(t, s.BootstrapServers, topic, written, r.RunID())
	t.Logf("COUNTS cutover to relay: %s", tc)
	if tc.records-tc.byRelay == 0 {
		t.Errorf("want records from the connector before the cutover (relay %d, connector %d)", tc.byRelay, tc.records-tc.byRelay)
	}
	if int(r.Stats().Published) != len(written) {
		t.Errorf("relay published %d, want every row of the table (%d: the connector deletes none)", r.Stats().Published, len(written))
	}
	cons.checkExactlyOnce(t, "cutover to relay", written, tc)
}

// writer is a steady writer of OrderCreated events for 4 aggregates, one
// every 10 ms, until stop.
type writer struct {
	mu      sync.Mutex
	written []string
	quit    chan struct{}
	done    chan struct{}
}

func startWriter(t *testing.T, db *sql.DB) *writer {
	w := &writer{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.quit:
				return
			case <-time.After(10 * time.Millisecond):
			}
			id := itest.UUID(t)
			if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', $2, 'OrderCreated', '{}', 1)`, id, fmt.Sprint(i%4)); err != nil {
				t.Error(err)
				return
			}
			w.mu.Lock()
			w.written = append(w.written, id)
			w.mu.Unlock()
		}
	}()
	return w
}

// stop ends the writer and returns the ids it wrote, in order.
func (w *writer) stop() []string {
	close(w.quit)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, w.written...)
}

// topicCount is what countTopic read.
type topicCount struct {
	written, records, byRelay, distinct, lost int
}

func (c topicCount) String() string {
	return fmt.Sprintf("written %d, records %d (relay %d, connector %d), distinct %d, duplicates on the topic %d, lost %d",
		c.written, c.records, c.byRelay, c.records-c.byRelay, c.distinct, c.records-c.distinct, c.lost)
}

// countTopic reads topic back (readAll), counting the records of the
// relays with runIDs; a lost event is an error.
func countTopic(t *testing.T, boot, topic string, written []string, runIDs ...string) topicCount {
	t.Helper()
	c := topicCount{written: len(written)}
	seen := relayitest.ReadAll(t, boot, topic, len(written), func(m *kafka.Message, _ bool) {
		c.records++
		if slices.Contains(runIDs, runID(m)) {
			c.byRelay++
		}
	})
	c.distinct = len(seen)
	for _, id := range written {
		if seen[id] == 0 {
			c.lost++
		}
	}
	if c.lost > 0 {
		t.Errorf("%d events lost in the cutover", c.lost)
	}
	return c
}

// inboxConsumer consumes the cutover topic with a PostgreSQL inbox (in the
// outbox's database) and a handler whose effect is an INSERT into effects,
// committed with the inbox mark; duplicates the inbox absorbs are counted.
type inboxConsumer struct {
	db   *sql.DB
	dups atomic.Int64
}

func startInboxConsumer(t *testing.T, boot string, db *sql.DB, topic, group string) *inboxConsumer {
	t.Helper()
	ctx := context.Background()
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE effects (event_id text NOT NULL, at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	ic := &inboxConsumer{db: db}
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store, ConsumerGroup: group,
		OnDuplicate: func(context.Context, *consumer.Message) { ic.dups.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[struct{}]) error {
		_, err := ev.Tx.ExecContext(ctx, `INSERT INTO effects (event_id) VALUES ($1)`, ev.EventID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c, err := consumer.NewConsumer(consumer.ConsumerConfig{BootstrapServers: boot, GroupID: group, Topics: []string{topic},
		CommitInterval: 200 * time.Millisecond, OnError: func(err error) { t.Logf("consumer: %v", err) }}, r)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(cctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("consumer: %v", err)
		}
		itest.DeleteConsumerGroup(t, boot, group)
	})
	return ic
}

// checkExactlyOnce waits (at most 60 s) until every written event has its
// effect, then checks each has exactly one and that the inbox absorbed at
// least the topic's duplicates.
func (ic *inboxConsumer) checkExactlyOnce(t *testing.T, what string, written []string, tc topicCount) {
	t.Helper()
	effects := map[string]int{}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		clear(effects)
		rows, err := ic.db.Query(`SELECT event_id, count(*) FROM effects GROUP BY event_id`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			effects[id] = n
		}
		rows.Close()
		// every event, and the duplicates of the topic absorbed
		if len(effects) >= len(written) && ic.dups.Load() >= int64(tc.records-tc.distinct) || time.Now().After(deadline) {
			break
		}
	}
	missing, twice := 0, 0
	for _, id := range written {
		switch n := effects[id]; {
		case n == 0:
			missing++
		case n > 1:
			twice++
		}
	}
	t.Logf("COUNTS %s, consumer: events %d, effects %d distinct, missing %d, applied twice %d, duplicates absorbed by the inbox %d (topic duplicates %d)",
		what, len(written), len(effects), missing, twice, ic.dups.Load(), tc.records-tc.distinct)
	if missing > 0 || twice > 0 || len(effects) != len(written) {
		t.Errorf("effects: %d missing, %d applied twice, %d distinct for %d events; want each exactly once", missing, twice, len(effects), len(written))
	}
	if ic.dups.Load() < int64(tc.records-tc.distinct) {
		t.Errorf("the inbox absorbed %d duplicates, the topic has %d", ic.dups.Load(), tc.records-tc.distinct)
	}
}

// TestRelayCutoverRefusesDeleteAfterInsert: a writer that deletes each row
// in its inserting transaction keeps the table from growing while its
// insert counter grows; the cutover to the relay refuses before it waits for
// the connector to stop. A quiet table is a warning step, not a refusal.
func TestRelayCutoverRefusesDeleteAfterInsert(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	o := relayitest.NewSpecOutbox(t, s, "dai", false)
	db, conf, name := o.DB, o.Conf, o.Name
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	r, err := relay.New(context.Background(), db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 100 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// quiet: the connector is not deployed, so the cutover goes on past the
	// check and finds it gone
	var steps []string
	if err := cutover.ToRelay(ctx, r, cc, name, cutover.ToRelayOptions{Observe: time.Second}, func(s string) { steps = append(steps, s) }); err != nil {
		t.Fatalf("quiet outbox: %v", err)
	}
	if len(steps) != 4 || !strings.HasPrefix(steps[0], "WARNING: no rows written") {
		t.Errorf("quiet outbox: steps %q, want a warning, then the connector and the count", steps)
	}

	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		n := 0
		defer func() { done <- n }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			tx, err := db.Begin()
			if err != nil {
				t.Error(err)
				return
			}
			id := itest.UUID(t)
			if _, err := tx.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', '1', 'OrderCreated', '{}', 1)`, id); err != nil {
				t.Error(err)
				return
			}
			if _, err := tx.Exec(`DELETE FROM outbox WHERE id = $1`, id); err != nil {
				t.Error(err)
				return
			}
			if err := tx.Commit(); err != nil {
				t.Error(err)
				return
			}
			n++
		}
	}()
	steps = nil
	err = cutover.ToRelay(ctx, r, cc, name, cutover.ToRelayOptions{Observe: 2 * time.Second}, func(s string) { steps = append(steps, s) })
	close(stop)
	n := <-done
	t.Logf("writer inserted and deleted %d rows; cutover: %v", n, err)
	if !errors.Is(err, cutover.ErrDeleteAfterInsert) || len(steps) != 0 {
		t.Errorf("cutover under a delete-after-insert writer: %v (steps %q), want ErrDeleteAfterInsert before any step", err, steps)
	}
}

func runID(m *kafka.Message) string {
	v, _ := itest.Header(m, "__debezium.context.runId")
	return v
}
