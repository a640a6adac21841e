//go:build integration

package consumer_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// These tests check the failure semantics of the package guide against the
// real registry, Kafka and PostgreSQL. The ones that make a service
// unreachable pause it with SIGSTOP in the fault instance of the stack
// (make stack-fault-up), never in the main stack other tests share.

// event is a record to produce: an outbox event of an aggregate, with the
// routed headers.
type event struct {
	partition int32
	agg       string
	seq       int // per aggregate, from 0
	id        string
	typ       string
	value     []byte
}

// events builds perPartition events for each of partitions partitions,
// aggs aggregates per partition (aggregate "p<p>a<j>" on partition p), with
// the value from value(partition, seq, n) (n counts the partition's events).
func events(prefix string, partitions, perPartition, aggs int, value func(p int32, seq, n int) []byte) []event {
	var out []event
	for p := range int32(partitions) {
		seqs := make([]int, aggs)
		for n := range perPartition {
			j := n % aggs
			out = append(out, event{
				partition: p, agg: fmt.Sprintf("p%da%d", p, j), seq: seqs[j],
				id: fmt.Sprintf("%s-%d-%d", prefix, p, n), typ: "Step", value: value(p, seqs[j], n),
			})
			seqs[j]++
		}
	}
	return out
}

// produceEvents writes evs to topic and waits for every delivery report.
func produceEvents(t testing.TB, bootstrap, topic string, evs []event) {
	t.Helper()
	p := newProducer(t, bootstrap)
	ch := make(chan kafka.Event, len(evs))
	for _, e := range evs {
		err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: e.partition},
			Key:            []byte(e.agg),
			Value:          e.value,
			Headers: []kafka.Header{
				{Key: "id", Value: []byte(e.id)},
				{Key: "eventType", Value: []byte(e.typ)},
				{Key: "schemaVersion", Value: []byte("1")},
			},
		}, ch)
		if err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	deadline := time.After(60 * time.Second)
	for range evs {
		select {
		case ev := <-ch:
			if m, ok := ev.(*kafka.Message); !ok || m.TopicPartition.Error != nil {
				t.Fatalf("delivery: %v", ev)
			}
		case <-deadline:
			t.Fatal("delivery reports: timed out")
		}
	}
}

// Step is the payload of the test events: the aggregate's sequence number.
type Step struct {
	Seq int `avro:"seq" json:"seq"`
}

const stepSchema = `{"type":"record","name":"Step","namespace":"it","fields":[{"name":"seq","type":"int"}]}`

// ledger records the events handled successfully, in order, across
// goroutines, and checks them: every event once, each aggregate in order.
type ledger struct {
	mu     sync.Mutex
	byAgg  map[string][]int
	ids    map[string]int
	errs   []error
	starts map[int32]time.Time
	ends   map[int32]time.Time
	counts map[int32]int
	others []time.Time // when each record of partitions > 0 was handled
}

func newLedger() *ledger {
	return &ledger{byAgg: map[string][]int{}, ids: map[string]int{}, starts: map[int32]time.Time{}, ends: map[int32]time.Time{}, counts: map[int32]int{}}
}

func (l *ledger) add(m *consumer.Message, seq int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byAgg[m.Meta.AggregateID] = append(l.byAgg[m.Meta.AggregateID], seq)
	l.ids[m.Meta.EventID]++
	now := time.Now()
	if _, ok := l.starts[m.Partition]; !ok {
		l.starts[m.Partition] = now
	}
	l.ends[m.Partition] = now
	l.counts[m.Partition]++
	if m.Partition > 0 {
		l.others = append(l.others, now)
	}
}

func (l *ledger) onError(err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

func (l *ledger) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ids)
}

func (l *ledger) partitionCount(p int32) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[p]
}

// check fails the test unless exactly evs were handled, each once, and each
// aggregate's events in order (checked on every event).
func (l *ledger) check(t *testing.T, evs []event) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	want := map[string][]int{}
	for _, e := range evs {
		want[e.agg] = append(want[e.agg], e.seq)
		if n := l.ids[e.id]; n != 1 {
			t.Errorf("event %s handled %d times, want 1", e.id, n)
		}
	}
	if len(l.ids) != len(evs) {
		t.Errorf("handled %d distinct events, want %d", len(l.ids), len(evs))
	}
	for agg, seqs := range want {
		if got := l.byAgg[agg]; !slices.Equal(got, seqs) {
			t.Errorf("aggregate %s handled in order %v, want %v", agg, got, seqs)
		}
	}
}

// dlqEmpty fails the test if topic holds a record.
func dlqEmpty(t *testing.T, bootstrap, topic string) {
	t.Helper()
	if m := itest.NewReader(t, bootstrap, topic).Next(3 * time.Second); m != nil {
		reason, _ := itest.Header(m, consumer.HeaderDLQError)
		t.Errorf("dead-lettered %s: %s; want nothing dead-lettered", m.Key, reason)
	}
}

// runFor starts a Consumer; stop returns Run's error.
func runFor(t *testing.T, cfg consumer.ConsumerConfig, r *consumer.Router) (stop func() error) {
	t.Helper()
	run := runConsumer(t, cfg, r)
	return func() error { return run.stop(t) }
}

// TestFailureRegistryUnreachable: the fault instance's registry is paused
// before the consumer first needs a writer schema. The Avro partitions wait
// (transient: retried, never dead-lettered) while the JSON partition is
// handled to its end; once the registry answers again every event is
// handled exactly once, each aggregate in order.
func TestFailureRegistryUnreachable(t *testing.T) {
	f := itest.RequireFault(t)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.RegOut"+sfx, "regout-dlq-"+sfx, "regout-"+sfx
	itest.CreateTopicN(t, f.BootstrapServers, topic, 4)
	itest.CreateTopicN(t, f.BootstrapServers, dlqTopic, 1)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, f.BootstrapServers, group) })
	client, id := registerSubject(t, f.SchemaRegistryURL, topic+"-it.Step", stepSchema)
	wire := wireEncoder(t, stepSchema, id)
	const per = 40
	evs := events("reg"+sfx, 4, per, 3, func(p int32, seq, _ int) []byte {
		if p == 3 {
			return []byte(fmt.Sprintf(`{"seq":%d}`, seq))
		}
		return wire(map[string]any{"seq": int32(seq)})
	})
	produceEvents(t, f.BootstrapServers, topic, evs)

	short, err := registry.NewClient(f.SchemaRegistryURL, registry.WithCallTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_ = client // the test's own client registered the schema
	l := newLedger()
	r, err := consumer.NewRouter(consumer.RouterConfig{Schemas: consumer.RegistryByID(short)})
	if err != nil {
		t.Fatal(err)
	}
	p := consumer.NewKafkaProducer(newProducer(t, f.BootstrapServers))
	must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: p}.Middleware, consumer.Retry{MaxAttempts: 2, InitialInterval: 10 * time.Millisecond}.Middleware))
	must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		l.add(ev.Message, ev.Payload.Seq)
		return nil
	}))

	resume := f.Pause(t, itest.Registry)
	stop := runFor(t, consumer.ConsumerConfig{
		BootstrapServers: f.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: 100 * time.Millisecond, RedeliveryBackoff: 100 * time.Millisecond, MaxRedeliveryBackoff: 500 * time.Millisecond,
		OnError: l.onError,
	}, r)
	waitFor(t, 90*time.Second, "the JSON partition handled while the registry is down", func() bool { return l.partitionCount(3) == per })
	transient := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		n := 0
		for _, err := range l.errs {
			if consumer.IsTransient(err) && errors.Is(err, consumer.ErrSchema) {
				n++
			}
		}
		return n
	}
	waitFor(t, 60*time.Second, "the Avro partitions retrying", func() bool { return transient() >= 4 })
	for p := range int32(3) {
		if n := l.partitionCount(p); n != 0 {
			t.Errorf("Avro partition %d handled %d events while the registry is paused", p, n)
		}
	}
	l.mu.Lock()
	for _, err := range l.errs {
		if !consumer.IsTransient(err) || !errors.Is(err, consumer.ErrSchema) {
			t.Errorf("reported %v, want only transient registry errors", err)
		}
	}
	l.mu.Unlock()
	resume()
	waitFor(t, 90*time.Second, "every event handled after the registry is back", func() bool { return l.total() == len(evs) })
	waitFor(t, 30*time.Second, "offsets committed", func() bool {
		return slices.Equal(itest.CommittedOffsets(t, f.BootstrapServers, group, topic, 4), []int64{per, per, per, per})
	})
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
	l.check(t, evs)
	dlqEmpty(t, f.BootstrapServers, dlqTopic)
	if st := r.Stats(); st.Handled != int64(len(evs)) || st.DeadLettered != 0 {
		t.Errorf("Stats = %+v, want %d handled, 0 dead-lettered", st, len(evs))
	}
}

// TestFailureDatabaseUnreachable: the fault instance's PostgreSQL (the
// inbox and the business table) is paused in the middle of the run for 5
// seconds. Every transaction then times out: transient, so the partitions
// wait and retry, nothing is dead-lettered; afterwards every event has
// exactly one effect row, each aggregate's rows in order, and the offsets
// cover every record.
func TestFailureDatabaseUnreachable(t *testing.T) {
	f := itest.RequireFault(t)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.DBOut"+sfx, "dbout-dlq-"+sfx, "dbout-"+sfx
	itest.CreateTopicN(t, f.BootstrapServers, topic, 4)
	itest.CreateTopicN(t, f.BootstrapServers, dlqTopic, 1)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, f.BootstrapServers, group) })
	const per = 60
	evs := events("db"+sfx, 4, per, 3, seqValue)
	produceEvents(t, f.BootstrapServers, topic, evs)

	db, store := effectsInbox(t, f.PostgresDSN, "dbout_"+sfx)

	l := newLedger()
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		t.Fatal(err)
	}
	p := consumer.NewKafkaProducer(newProducer(t, f.BootstrapServers))
	must(t, r.Use(
		consumer.DLQ{Topic: dlqTopic, Producer: p}.Middleware,
		consumer.Retry{MaxAttempts: 2, InitialInterval: 10 * time.Millisecond}.Middleware,
		consumer.Timeout(time.Second),
	))
	must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		if err := insertEffect(ctx, ev); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
		return nil
	}))
	stop := runFor(t, consumer.ConsumerConfig{
		BootstrapServers: f.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: 100 * time.Millisecond, RedeliveryBackoff: 100 * time.Millisecond, MaxRedeliveryBackoff: time.Second,
		OnError: l.onError,
	}, r)
	effects := func() int {
		var n int
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM effects`).Scan(&n); err != nil {
			return -1
		}
		return n
	}
	waitFor(t, 90*time.Second, "some events handled", func() bool { return effects() >= 40 })
	resume := f.Pause(t, itest.Postgres)
	time.Sleep(5 * time.Second)
	resume()
	waitFor(t, 120*time.Second, "every event's effect", func() bool { return effects() == len(evs) })
	waitFor(t, 30*time.Second, "offsets committed", func() bool {
		return slices.Equal(itest.CommittedOffsets(t, f.BootstrapServers, group, topic, 4), []int64{per, per, per, per})
	})
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
	l.mu.Lock()
	transient := 0
	for _, err := range l.errs {
		if consumer.IsTransient(err) {
			transient++
		} else {
			t.Errorf("reported %v, want only transient errors", err)
		}
	}
	l.mu.Unlock()
	if transient == 0 {
		t.Error("no transient error reported: the database pause did not show")
	}
	checkEffects(t, db, evs)
	dlqEmpty(t, f.BootstrapServers, dlqTopic)
	if st := r.Stats(); st.DeadLettered != 0 || st.Handled+st.Duplicates < int64(len(evs)) {
		t.Errorf("Stats = %+v, want every event handled (or found done by the inbox) and 0 dead-lettered", st)
	}
}

// seqValue is the JSON payload of an event that carries only its seq (the
// value func of events).
func seqValue(_ int32, seq, _ int) []byte { return []byte(fmt.Sprintf(`{"seq":%d}`, seq)) }

// effectsInbox creates database name on dsn with a PostgreSQL inbox and the
// effects table that insertEffect writes and checkEffects reads.
func effectsInbox(t *testing.T, dsn, name string) (*sql.DB, *inbox.SQLStore) {
	t.Helper()
	db := itest.PostgresDatabase(t, dsn, name)
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE effects (pos bigserial, event_id text PRIMARY KEY, agg text NOT NULL, seq int NOT NULL)`)
	return db, store
}

// insertEffect writes ev's effect row through its inbox transaction.
func insertEffect(ctx context.Context, ev consumer.Event[Step]) error {
	_, err := ev.Tx.ExecContext(ctx, `INSERT INTO effects (event_id, agg, seq) VALUES ($1, $2, $3)`, ev.EventID, ev.AggregateID, ev.Payload.Seq)
	return err
}

// checkEffects fails the test unless the effects table holds one row per
// event and each aggregate's rows in order.
func checkEffects(t *testing.T, db *sql.DB, evs []event) {
	t.Helper()
	rows, err := db.Query(`SELECT event_id, agg, seq FROM effects ORDER BY pos`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string][]int{}
	ids := map[string]bool{}
	for rows.Next() {
		var id, agg string
		var seq int
		if err := rows.Scan(&id, &agg, &seq); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
		got[agg] = append(got[agg], seq)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{}
	for _, e := range evs {
		want[e.agg] = append(want[e.agg], e.seq)
		if !ids[e.id] {
			t.Errorf("event %s has no effect (lost)", e.id)
		}
	}
	if len(ids) != len(evs) {
		t.Errorf("%d effect rows, want %d", len(ids), len(evs))
	}
	for agg, seqs := range want {
		if !slices.Equal(got[agg], seqs) {
			t.Errorf("aggregate %s effects in order %v, want %v", agg, got[agg], seqs)
		}
	}
}

// registerRaw registers a schema of any type through the registry's REST
// API (the registry client registers Avro only) and returns its id.
func registerRaw(t *testing.T, url, subject string, body map[string]any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(strings.TrimRight(url, "/")+"/subjects/"+subject+"/versions", "application/vnd.schemaregistry.v1+json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID      int    `json:"id"`
		Message string `json:"message"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != 200 || out.ID == 0 {
		t.Fatalf("register %s: HTTP %d %s", subject, resp.StatusCode, out.Message)
	}
	t.Cleanup(func() {
		for _, q := range []string{"", "?permanent=true"} {
			req, _ := http.NewRequest(http.MethodDelete, strings.TrimRight(url, "/")+"/subjects/"+subject+q, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	})
	return out.ID
}

// TestFailureRegistryPermanent: against the real registry, a record whose
// schema id does not exist, one whose schema is PROTOBUF, one with a JSON
// Schema and one whose Avro schema has references are each dead-lettered
// at once with the reason; the records between them are handled.
func TestFailureRegistryPermanent(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Registry)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.RegPerm"+sfx, "regperm-dlq-"+sfx, "regperm-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })

	client, okID := registerSubject(t, s.SchemaRegistryURL, topic+"-it.Step", stepSchema)
	protoID := registerRaw(t, s.SchemaRegistryURL, topic+"-proto", map[string]any{"schemaType": "PROTOBUF", "schema": `syntax = "proto3"; package it; message Step { int32 seq = 1; }`})
	jsonID := registerRaw(t, s.SchemaRegistryURL, topic+"-json", map[string]any{"schemaType": "JSON", "schema": `{"type":"object","properties":{"seq":{"type":"integer"}}}`})
	_, _ = registerSubject(t, s.SchemaRegistryURL, topic+"-it.Inner", `{"type":"record","name":"Inner","namespace":"it","fields":[{"name":"x","type":"int"}]}`)
	refID := registerRaw(t, s.SchemaRegistryURL, topic+"-outer", map[string]any{
		"schema":     `{"type":"record","name":"Outer","namespace":"it","fields":[{"name":"inner","type":"it.Inner"}]}`,
		"references": []map[string]any{{"name": "it.Inner", "subject": topic + "-it.Inner", "version": 1}},
	})
	wire := wireEncoder(t, stepSchema, okID)
	framed := func(id int) []byte { return []byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id), 2} }
	const missingID = 2_000_000_000
	values := [][]byte{wire(map[string]any{"seq": int32(0)}), framed(missingID), wire(map[string]any{"seq": int32(1)}), framed(protoID),
		wire(map[string]any{"seq": int32(2)}), framed(jsonID), wire(map[string]any{"seq": int32(3)}), framed(refID), wire(map[string]any{"seq": int32(4)})}
	evs := make([]event, len(values))
	for i, v := range values {
		evs[i] = event{agg: "a", id: fmt.Sprintf("perm-%s-%d", sfx, i), typ: "Step", value: v}
	}
	produceEvents(t, s.BootstrapServers, topic, evs)

	var mu sync.Mutex
	var seqs []int
	r, err := consumer.NewRouter(consumer.RouterConfig{Schemas: consumer.RegistryByID(client)})
	if err != nil {
		t.Fatal(err)
	}
	p := consumer.NewKafkaProducer(newProducer(t, s.BootstrapServers))
	must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: p}.Middleware, consumer.Retry{MaxAttempts: 3, InitialInterval: 10 * time.Millisecond}.Middleware))
	must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		mu.Lock()
		seqs = append(seqs, ev.Payload.Seq)
		mu.Unlock()
		return nil
	}))
	stop := runFor(t, consumer.ConsumerConfig{BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic}, CommitInterval: 100 * time.Millisecond}, r)
	waitFor(t, 60*time.Second, "every record done", func() bool {
		return itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0] == int64(len(evs))
	})
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
	mu.Lock()
	if !slices.Equal(seqs, []int{0, 1, 2, 3, 4}) {
		t.Errorf("handled %v, want [0 1 2 3 4]", seqs)
	}
	mu.Unlock()
	rd := itest.NewReader(t, s.BootstrapServers, dlqTopic)
	wantWhy := []string{"40403", "is PROTOBUF, not AVRO", "is JSON, not AVRO", "schema references"}
	for i, why := range wantWhy {
		m := rd.Next(30 * time.Second)
		if m == nil {
			t.Fatalf("DLQ record %d missing", i)
		}
		id, _ := itest.Header(m, "id")
		reason, _ := itest.Header(m, consumer.HeaderDLQReason)
		attempts, _ := itest.Header(m, consumer.HeaderDLQAttempts)
		msg, _ := itest.Header(m, consumer.HeaderDLQError)
		if id != evs[2*i+1].id || reason != "permanent" || attempts != "1" || !strings.Contains(msg, why) {
			t.Errorf("DLQ record %d: id %s reason %s attempts %s error %q, want %s, permanent, 1, naming %q", i, id, reason, attempts, msg, evs[2*i+1].id, why)
		}
	}
	if m := rd.Next(2 * time.Second); m != nil {
		t.Errorf("unexpected DLQ record %s", m.Key)
	}
}

// TestShutdownCommitsInboxTx: Run's ctx is cancelled while a handler writes
// through its inbox transaction; the handler's context stays alive, the
// transaction commits, the offset is committed, nothing is reported.
func TestShutdownCommitsInboxTx(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, group := "outbox.event.Shut"+sfx, "shut-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	evs := events("shut"+sfx, 1, 3, 1, seqValue)
	produceEvents(t, s.BootstrapServers, topic, evs)
	db, store := effectsInbox(t, s.PostgresDSN, "shut_"+sfx)
	entered := make(chan struct{})
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		t.Fatal(err)
	}
	must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		if ev.Payload.Seq == 1 {
			close(entered)
			time.Sleep(1500 * time.Millisecond) // Run's ctx is cancelled meanwhile
		}
		return insertEffect(ctx, ev)
	}))
	l := newLedger()
	run := runConsumer(t, consumer.ConsumerConfig{BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: time.Hour, DrainTimeout: 20 * time.Second, OnError: l.onError}, r)
	select {
	case <-entered:
	case <-time.After(60 * time.Second):
		t.Fatal("record 1 never reached its handler")
	}
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	checkEffects(t, db, evs[:2])
	if got := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0]; got != 2 {
		t.Errorf("committed offset = %d, want 2", got)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) > 0 {
		t.Errorf("reported %v, want nothing (the transaction of the record in flight commits)", l.errs)
	}
}
