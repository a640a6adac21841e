//go:build integration

package consumer_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestBatchPoisonRecord: in batch mode (up to 20 records per inbox
// transaction) a record that cannot be decoded, in the middle of a batch,
// rolls its batch back; the batch is replayed one record at a time, the
// poison record alone goes to the DLQ, and every other event has exactly
// one effect, in order.
func TestBatchPoisonRecord(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.Batch"+sfx, "batch-dlq-"+sfx, "batch-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	const n, poison = 100, 37
	evs := events("batch"+sfx, 1, n, 3, func(_ int32, seq, i int) []byte {
		if i == poison {
			return []byte(`{"seq":"not a number"}`)
		}
		return []byte(fmt.Sprintf(`{"seq":%d}`, seq))
	})
	produceEvents(t, s.BootstrapServers, topic, evs)

	db, store := effectsInbox(t, s.PostgresDSN, "batch_"+sfx)
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		t.Fatal(err)
	}
	p := consumer.NewKafkaProducer(newProducer(t, s.BootstrapServers))
	must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: p}.Middleware, consumer.Retry{MaxAttempts: 3, InitialInterval: 10 * time.Millisecond}.Middleware))
	var runs atomic.Int32
	runBatches(t, r, &runs, s.BootstrapServers, group, topic, n, consumer.Batch{MaxRecords: 20, MaxWait: 200 * time.Millisecond})
	var good []event
	for i, e := range evs {
		if i != poison {
			good = append(good, e)
		}
	}
	checkEffects(t, db, good)
	rd := itest.NewReader(t, s.BootstrapServers, dlqTopic)
	m := rd.Next(30 * time.Second)
	if m == nil {
		t.Fatal("the poison record is not in the DLQ")
	}
	if id, _ := itest.Header(m, "id"); id != evs[poison].id {
		t.Errorf("dead-lettered %s, want the poison record %s", id, evs[poison].id)
	}
	if reason, _ := itest.Header(m, consumer.HeaderDLQReason); reason != "permanent" {
		t.Errorf("DLQ reason %q, want permanent", reason)
	}
	if extra := rd.Next(2 * time.Second); extra != nil {
		id, _ := itest.Header(extra, "id")
		t.Errorf("a second record in the DLQ: %s", id)
	}
	st := r.Stats()
	if st.Handled != n-1 || st.DeadLettered != 1 || st.Duplicates != 0 {
		t.Errorf("Stats = %+v, want %d handled, 1 dead-lettered, 0 duplicates", st, n-1)
	}
	// The poison record's batch ran its records before it twice (rolled
	// back, then one at a time); all the others ran once, in batches.
	if got := runs.Load(); got <= n-1 || got > n-1+20 {
		t.Errorf("handler runs = %d, want more than %d (the poison batch replayed) and at most %d (one batch)", got, n-1, n-1+20)
	}
}

// TestBatchRedelivery: after a crash that lost the committed offsets, a
// batch consumer gets every event again; the batch marks find them all
// processed, so no handler runs, no effect repeats, and every record is
// counted as a duplicate once.
func TestBatchRedelivery(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, group := "outbox.event.BatchRe"+sfx, "batchre-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	const n = 150
	evs := events("batchre"+sfx, 1, n, 5, seqValue)
	produceEvents(t, s.BootstrapServers, topic, evs)
	db, store := effectsInbox(t, s.PostgresDSN, "batchre_"+sfx)
	run := func() (*consumer.Router, int32, int32) {
		var runs, dups atomic.Int32
		r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store,
			OnDuplicate: func(context.Context, *consumer.Message) { dups.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		runBatches(t, r, &runs, s.BootstrapServers, group, topic, n, consumer.Batch{MaxRecords: 40, MaxWait: 50 * time.Millisecond})
		return r, runs.Load(), dups.Load()
	}
	r1, runs1, dups1 := run()
	if st := r1.Stats(); st.Handled != n || runs1 != n || dups1 != 0 {
		t.Errorf("first run: stats %+v, %d handler runs, %d duplicates; want %d handled once each", st, runs1, dups1, n)
	}
	resetGroup(t, s.BootstrapServers, group, topic)
	r2, runs2, dups2 := run()
	if st := r2.Stats(); st.Handled != 0 || st.Duplicates != n || runs2 != 0 || dups2 != n {
		t.Errorf("after the offsets were lost: stats %+v, %d handler runs, %d OnDuplicate calls; want 0 handled and %d duplicates", st, runs2, dups2, n)
	}
	checkEffects(t, db, evs)
}

// runBatches handles Step events with insertEffect on r, counting the
// handler runs in runs, and consumes topic (one partition) in batch mode
// until group has committed all n records; then it stops the consumer.
func runBatches(t *testing.T, r *consumer.Router, runs *atomic.Int32, bootstrap, group, topic string, n int64, batch consumer.Batch) {
	t.Helper()
	must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		runs.Add(1)
		return insertEffect(ctx, ev)
	}))
	stop := runFor(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic}, CommitInterval: 100 * time.Millisecond,
		Batch: batch,
	}, r)
	waitFor(t, 60*time.Second, "every record done", func() bool {
		return itest.CommittedOffsets(t, bootstrap, group, topic, 1)[0] == n
	})
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
}

// TestHandleBatchPipelined: a HandleBatch function writes the effects of a
// whole batch in ONE statement (INSERT … SELECT FROM unnest) in the batch's
// inbox transaction, on PostgreSQL. With a poison record in the middle, its
// batch is rolled back and replayed one record at a time (the poison record
// alone to the DLQ); every other event has exactly one effect, each
// aggregate's in order, and the function ran far fewer times than there are
// records. Offsets lost then: every record is a duplicate, no function call.
func TestHandleBatchPipelined(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.HBatch"+sfx, "hbatch-dlq-"+sfx, "hbatch-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	const n, poison = 400, 157
	evs := events("hbatch"+sfx, 1, n, 7, func(_ int32, seq, i int) []byte {
		if i == poison {
			return []byte(`{"seq":"not a number"}`)
		}
		return []byte(fmt.Sprintf(`{"seq":%d}`, seq))
	})
	produceEvents(t, s.BootstrapServers, topic, evs)
	db, store := effectsInbox(t, s.PostgresDSN, "hbatch_"+sfx)
	run := func() (*consumer.Router, int32, int32) {
		r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
		if err != nil {
			t.Fatal(err)
		}
		p := consumer.NewKafkaProducer(newProducer(t, s.BootstrapServers))
		must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: p}.Middleware, consumer.Retry{MaxAttempts: 3, InitialInterval: 10 * time.Millisecond}.Middleware))
		var calls, records atomic.Int32
		must(t, consumer.HandleBatch(r, "Step", 1, func(ctx context.Context, tx *sql.Tx, evs []consumer.Event[Step]) error {
			calls.Add(1)
			records.Add(int32(len(evs)))
			ids, aggs, seqs := make([]string, len(evs)), make([]string, len(evs)), make([]int64, len(evs))
			for i, ev := range evs {
				ids[i], aggs[i], seqs[i] = ev.EventID, ev.AggregateID, int64(ev.Payload.Seq)
			}
			// WITH ORDINALITY keeps the records' order in pos
			_, err := tx.ExecContext(ctx, `INSERT INTO effects (event_id, agg, seq)
SELECT i, a, s FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS u(i, a, s, o) ORDER BY o`, ids, aggs, seqs)
			return err
		}))
		stop := runFor(t, consumer.ConsumerConfig{
			BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic}, CommitInterval: 100 * time.Millisecond,
			Batch: consumer.Batch{MaxRecords: 50, MaxWait: 100 * time.Millisecond},
		}, r)
		waitFor(t, 60*time.Second, "every record done", func() bool {
			return itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0] == n
		})
		if err := stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
		return r, calls.Load(), records.Load()
	}
	r1, calls, records := run()
	var good []event
	for i, e := range evs {
		if i != poison {
			good = append(good, e)
		}
	}
	checkEffects(t, db, good)
	if st := r1.Stats(); st.Handled != n-1 || st.DeadLettered != 1 || st.Duplicates != 0 {
		t.Errorf("Stats = %+v, want %d handled, 1 dead-lettered, 0 duplicates", st, n-1)
	}
	// the poison batch's records before it ran twice (rolled back, then
	// one at a time); the calls are about n/50 plus that replay
	if records < n-1 || records > n-1+50 {
		t.Errorf("%d records through the batch function, want %d to %d", records, n-1, n-1+50)
	}
	if calls > n/2 {
		t.Errorf("%d calls of the batch function for %d records: not batched", calls, n)
	}
	t.Logf("%d records in %d calls", records, calls)
	rd := itest.NewReader(t, s.BootstrapServers, dlqTopic)
	if m := rd.Next(30 * time.Second); m == nil {
		t.Error("the poison record is not in the DLQ")
	} else if id, _ := itest.Header(m, "id"); id != evs[poison].id {
		t.Errorf("dead-lettered %s, want %s", id, evs[poison].id)
	}

	resetGroup(t, s.BootstrapServers, group, topic)
	r2, calls2, _ := run()
	if st := r2.Stats(); st.Handled != 0 || calls2 != 0 {
		t.Errorf("after the offsets were lost: stats %+v, %d calls; want none handled", st, calls2)
	}
	checkEffects(t, db, good)
}
