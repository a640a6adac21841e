//go:build integration

package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestParallelLanes: with 4 and 8 partitions and several aggregates per
// partition, every event is handled once with its effect written through the
// inbox transaction, and each aggregate's events in order (checked on every
// event). Then a partition is held back by a record that keeps failing:
// the other partitions' throughput stays within 20 % of the healthy run.
//
// The healthy and the held-back run go at the same time, on topics and
// groups of their own, so that they share the load of the machine and the
// comparison measures the lanes, not the neighbours.
func TestParallelLanes(t *testing.T) {
	for _, partitions := range []int{4, 8} {
		t.Run(fmt.Sprintf("%d partitions", partitions), func(t *testing.T) {
			var healthy, held float64
			t.Run("runs", func(t *testing.T) {
				t.Run("healthy", func(t *testing.T) { t.Parallel(); healthy = lanesRun(t, partitions, false) })
				t.Run("held back", func(t *testing.T) { t.Parallel(); held = lanesRun(t, partitions, true) })
			})
			if t.Failed() {
				return
			}
			t.Logf("%d partitions: healthy %.0f records/s per partition, with partition 0 held back %.0f records/s per other partition", partitions, healthy, held)
			if held < 0.8*healthy {
				t.Errorf("with partition 0 held back the others ran at %.0f records/s per partition, want >= 80%% of the healthy %.0f", held, healthy)
			}
		})
	}
}

// lanesRun consumes a fresh topic of partitions partitions and returns the
// throughput per partition of partitions 1 to n-1 (records/s from their
// first to their last record). With hold, partition 0's first record fails
// (transient) until every other partition is done and checked.
func lanesRun(t *testing.T, partitions int, hold bool) float64 {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, group := "outbox.event.Lanes"+sfx, "lanes-"+sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, partitions)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	// Each record's handler takes about 8 ms (a call to another service,
	// say) besides its inbox transaction: 300 records per partition are at
	// least 2.4 s of work per partition.
	const per, aggs, work = 300, 4, 8 * time.Millisecond
	evs := events("lanes"+sfx, partitions, per, aggs, seqValue)
	produceEvents(t, s.BootstrapServers, topic, evs)

	db, store := effectsInbox(t, s.PostgresDSN, "lanes_"+sfx)
	db.SetMaxOpenConns(partitions + 2)

	l := newLedger()
	others := func() bool {
		for p := 1; p < partitions; p++ {
			if l.partitionCount(int32(p)) < per {
				return false
			}
		}
		return true
	}
	var failures atomic.Int32
	var released atomic.Bool // set by the test once the others are done
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		t.Fatal(err)
	}
	first := evs[0].id // partition 0, offset 0
	must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		if hold && ev.EventID == first && !released.Load() {
			failures.Add(1)
			return consumer.Transient(errors.New("held back"))
		}
		time.Sleep(work)
		if err := insertEffect(ctx, ev); err != nil {
			return err
		}
		l.add(ev.Message, ev.Payload.Seq)
		return nil
	}))
	stop := runFor(t, consumer.ConsumerConfig{
		BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: 200 * time.Millisecond, RedeliveryBackoff: 50 * time.Millisecond, MaxRedeliveryBackoff: 200 * time.Millisecond,
		OnError: func(error) {},
	}, r)
	waitFor(t, 120*time.Second, "the other partitions handled", others)
	if hold && l.partitionCount(0) != 0 {
		t.Errorf("partition 0 handled %d records while its first one is held back", l.partitionCount(0))
	}
	released.Store(true)
	waitFor(t, 120*time.Second, "every event handled", func() bool { return l.total() == len(evs) })
	want := make([]int64, partitions)
	for i := range want {
		want[i] = per
	}
	waitFor(t, 30*time.Second, "offsets committed", func() bool {
		return slices.Equal(itest.CommittedOffsets(t, s.BootstrapServers, group, topic, partitions), want)
	})
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
	l.check(t, evs)
	checkEffects(t, db, evs)
	if hold && failures.Load() < 2 {
		t.Errorf("the held-back record failed %d times, want it retried while the others ran", failures.Load())
	}
	// The steady rate: from the 20th to the 80th percentile of the other
	// partitions' records, so that start-up and the tail do not count.
	l.mu.Lock()
	defer l.mu.Unlock()
	times := slices.Clone(l.others)
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	lo, hi := len(times)/5, len(times)*4/5
	return float64(hi-lo) / times[hi].Sub(times[lo]).Seconds() / float64(partitions-1)
}

// TestRevokeDrainsInFlight: a second member joins while every partition of
// the first has a record in processing (each takes 300 ms). The revoked
// lanes finish that record and commit it before the partitions move, so
// the new owner starts after it: the inbox never sees a redelivery, every
// event has one effect, in order, and the offsets cover every record.
func TestRevokeDrainsInFlight(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, group := "outbox.event.Revoke"+sfx, "revoke-"+sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, 4)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	const per = 20
	evs := events("revoke"+sfx, 4, per, 2, seqValue)
	produceEvents(t, s.BootstrapServers, topic, evs)
	db, store := effectsInbox(t, s.PostgresDSN, "revoke_"+sfx)
	l := newLedger()
	var dups, byB atomic.Int32
	member := func(name string) func() error {
		r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store,
			OnDuplicate: func(context.Context, *consumer.Message) { dups.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		must(t, consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
			time.Sleep(300 * time.Millisecond)
			if err := insertEffect(ctx, ev); err != nil {
				return err
			}
			l.add(ev.Message, ev.Payload.Seq)
			if name == "b" {
				byB.Add(1)
			}
			return nil
		}))
		return runFor(t, consumer.ConsumerConfig{
			BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
			CommitInterval: time.Hour, // only the revocation and the shutdown commit
			OnError:        func(err error) { t.Logf("%s: %v", name, err) },
		}, r)
	}
	stopA := member("a")
	waitFor(t, 60*time.Second, "the first member busy on every partition", func() bool {
		for p := range int32(4) {
			if l.partitionCount(p) == 0 {
				return false
			}
		}
		return true
	})
	stopB := member("b")
	waitFor(t, 120*time.Second, "every event handled", func() bool { return l.total() == len(evs) })
	if err := stopB(); err != nil {
		t.Errorf("b: Run = %v", err)
	}
	if err := stopA(); err != nil {
		t.Errorf("a: Run = %v", err)
	}
	l.check(t, evs)
	checkEffects(t, db, evs)
	if byB.Load() == 0 {
		t.Error("the second member handled nothing: no partition moved")
	}
	t.Logf("the second member handled %d of %d events", byB.Load(), len(evs))
	if n := dups.Load(); n != 0 {
		t.Errorf("the inbox skipped %d redelivered events: a revoked lane's record in flight was not committed before the handover", n)
	}
	if got := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 4); !slices.Equal(got, []int64{per, per, per, per}) {
		t.Errorf("committed %v, want %d per partition", got, per)
	}
}
