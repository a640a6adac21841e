package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// These tests run the Consumer's lanes against librdkafka's mock cluster
// (see kafka_test.go).

// checkOrder fails the test unless the successful records of each
// partition came in offset order, each exactly once, and returns how many
// each partition had.
func checkOrder(t *testing.T, recs []seenRec) map[int32]int {
	t.Helper()
	last := map[int32]int64{}
	count := map[int32]int{}
	for _, r := range recs {
		if !r.ok {
			continue
		}
		prev, ok := last[r.partition]
		if ok && r.offset != prev+1 {
			t.Errorf("partition %d: offset %d handled after %d (want each record once, in order)", r.partition, r.offset, prev)
		}
		if !ok && r.offset != 0 {
			t.Errorf("partition %d: first handled offset %d, want 0", r.partition, r.offset)
		}
		last[r.partition] = r.offset
		count[r.partition]++
	}
	return count
}

// fourPartitions is per records on each of partitions 0 to 3, taking turns;
// record i of partition p carries n = p*1000+i.
func fourPartitions(per int) []rec {
	var recs []rec
	for i := range per {
		for p := range int32(4) {
			recs = append(recs, rec{partition: p, n: int(p)*1000 + i})
		}
	}
	return recs
}

// TestConsumerPartitionsInParallel: a record of partition 0 that keeps
// failing holds back only partition 0 (paused, its offset committed up to the
// record before it), while partitions 1 to 3 are handled to their end; once
// it succeeds, partition 0 goes on in order. Every record succeeds once.
func TestConsumerPartitionsInParallel(t *testing.T) {
	t.Parallel()
	const topic, group, per = "outbox.event.Lanes", "lanes-svc", 20
	bootstrap := mockCluster(t, topic, 4)
	produce(t, bootstrap, topic, fourPartitions(per)...)

	release := make(chan struct{})
	var failures atomic.Int32
	s := &seen{}
	r := pingRouter(t, s, func(m *consumer.Message, n int) error {
		if n == 2 { // partition 0, offset 2
			select {
			case <-release:
			default:
				failures.Add(1)
				return consumer.Transient(errors.New("database down"))
			}
		}
		return nil
	})
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		CommitInterval: 20 * time.Millisecond, RedeliveryBackoff: 20 * time.Millisecond, MaxRedeliveryBackoff: 80 * time.Millisecond,
		OnError: s.onError,
	}, r)

	done := func(p int32) int { return checkOrder(t, s.snapshot())[p] }
	waitFor(t, mockTimeout, "partitions 1-3 handled while partition 0 fails", func() bool {
		return done(1) == per && done(2) == per && done(3) == per && failures.Load() >= 3
	})
	if got := done(0); got != 2 {
		t.Errorf("partition 0 handled %d records while its record at offset 2 fails, want 2", got)
	}
	waitFor(t, mockTimeout, "offsets committed up to the failing record", func() bool {
		got := itest.CommittedOffsets(t, bootstrap, group, topic, 4)
		return got[0] == 2 && got[1] == per && got[2] == per && got[3] == per
	})
	close(release)
	waitFor(t, mockTimeout, "partition 0 handled to its end", func() bool { return done(0) == per })
	waitFor(t, mockTimeout, "every offset committed", func() bool {
		got := itest.CommittedOffsets(t, bootstrap, group, topic, 4)
		return got[0] == per && got[1] == per && got[2] == per && got[3] == per
	})
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if c := checkOrder(t, s.snapshot()); c[0]+c[1]+c[2]+c[3] != 4*per {
		t.Errorf("handled %v, want %d per partition", c, per)
	}
	for _, err := range s.reported() {
		if !consumer.IsTransient(err) {
			t.Errorf("OnError got %v, want only the transient failures", err)
		}
	}
}

// TestConsumerMaxConcurrentPartitions: partitions do run at the same time,
// but never more of them than MaxConcurrentPartitions.
func TestConsumerMaxConcurrentPartitions(t *testing.T) {
	t.Parallel()
	const topic, group, per = "outbox.event.Bound", "bound-svc", 10
	bootstrap := mockCluster(t, topic, 4)
	produce(t, bootstrap, topic, fourPartitions(per)...)

	var inFlight, maxInFlight atomic.Int32
	s := &seen{}
	r := pingRouter(t, s, func(m *consumer.Message, n int) error {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			old := maxInFlight.Load()
			if cur <= old || maxInFlight.CompareAndSwap(old, cur) {
				break
			}
		}
		time.Sleep(15 * time.Millisecond)
		return nil
	})
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		MaxConcurrentPartitions: 2, OnError: s.onError,
	}, r)
	waitFor(t, mockTimeout, "every record handled", func() bool { return s.done() == 4*per })
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	checkOrder(t, s.snapshot())
	if m := maxInFlight.Load(); m != 2 {
		t.Errorf("at most %d records in processing at once, want 2 (MaxConcurrentPartitions, with 4 partitions busy)", m)
	}
}

// TestConsumerBackpressure: with a lane queue of 3 records the partition is
// paused and resumed many times; every record is still handled once, in
// order.
func TestConsumerBackpressure(t *testing.T) {
	t.Parallel()
	const topic, group, n = "outbox.event.Pressure", "pressure-svc", 60
	bootstrap := mockCluster(t, topic, 1)
	var recs []rec
	for i := range n {
		recs = append(recs, rec{n: i})
	}
	produce(t, bootstrap, topic, recs...)
	s := &seen{}
	r := pingRouter(t, s, func(*consumer.Message, int) error { time.Sleep(2 * time.Millisecond); return nil })
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		QueueSize: 3, CommitInterval: -1, OnError: s.onError,
	}, r)
	waitFor(t, mockTimeout, "every record handled", func() bool { return s.done() >= n })
	waitFor(t, mockTimeout, "offset committed", func() bool { return itest.CommittedOffsets(t, bootstrap, group, topic, 1)[0] == n })
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if c := checkOrder(t, s.snapshot()); c[0] != n {
		t.Errorf("handled %d records, want %d", c[0], n)
	}
	if errs := s.reported(); len(errs) > 0 {
		t.Errorf("OnError got %v", errs)
	}
}

// TestConsumerShutdownDrains: cancelling Run's ctx while a handler runs does
// not cancel the handler's context; the handler finishes, its offset is
// committed, the record after it is not started, and Run returns nil.
func TestConsumerShutdownDrains(t *testing.T) {
	t.Parallel()
	const topic, group = "outbox.event.Drain", "drain-svc"
	bootstrap := mockCluster(t, topic, 1)
	produce(t, bootstrap, topic, rec{n: 0}, rec{n: 1}, rec{n: 2})

	entered, release := make(chan struct{}), make(chan struct{})
	var ctxErr atomic.Value
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s := &seen{}
	must(t, consumer.Handle(r, "Ping", 0, func(ctx context.Context, ev consumer.Event[ping]) error {
		if ev.Payload.N == 1 {
			close(entered)
			<-release
			ctxErr.Store(fmt.Sprint(ctx.Err()))
		}
		s.add(seenRec{partition: ev.Message.Partition, offset: ev.Message.Offset, n: ev.Payload.N, ok: true})
		return nil
	}))
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		CommitInterval: time.Hour, DrainTimeout: 20 * time.Second, OnError: s.onError,
	}, r)
	select {
	case <-entered:
	case <-time.After(mockTimeout):
		t.Fatal("record 1 never reached its handler")
	}
	run.cancel()
	time.Sleep(300 * time.Millisecond) // Run is draining now
	close(release)
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if got := ctxErr.Load(); got != "<nil>" {
		t.Errorf("handler context after the shutdown began: %v, want not cancelled before DrainTimeout", got)
	}
	if got := itest.CommittedOffsets(t, bootstrap, group, topic, 1)[0]; got != 2 {
		t.Errorf("committed offset = %d, want 2 (records 0 and 1 done during the drain)", got)
	}
	for _, x := range s.snapshot() {
		if x.n == 2 {
			t.Error("record 2 started after the shutdown began")
		}
	}
}

// TestConsumerDrainTimeout: a handler that does not finish within
// DrainTimeout gets its context cancelled; its record is not committed.
func TestConsumerDrainTimeout(t *testing.T) {
	t.Parallel()
	const topic, group = "outbox.event.Hang", "hang-svc"
	bootstrap := mockCluster(t, topic, 1)
	produce(t, bootstrap, topic, rec{n: 0}, rec{n: 1})
	entered := make(chan struct{})
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, consumer.Handle(r, "Ping", 0, func(ctx context.Context, ev consumer.Event[ping]) error {
		if ev.Payload.N == 1 {
			close(entered)
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}))
	var mu sync.Mutex
	var reported []error
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		CommitInterval: time.Hour, DrainTimeout: 300 * time.Millisecond,
		OnError: func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
	}, r)
	select {
	case <-entered:
	case <-time.After(mockTimeout):
		t.Fatal("record 1 never reached its handler")
	}
	began := time.Now()
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if d := time.Since(began); d > 15*time.Second {
		t.Errorf("Run took %s to return with a 300ms drain timeout", d)
	}
	if got := itest.CommittedOffsets(t, bootstrap, group, topic, 1)[0]; got != 1 {
		t.Errorf("committed offset = %d, want 1 (record 1 was cancelled, not done)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) == 0 {
		t.Error("the drain timeout was not reported")
	}
}

// TestConsumerStopsOnUnknownType: with no Unknown policy and no DLQ, a
// record without a handler stops the Consumer: Run returns an error
// wrapping ErrUnknownEventType and ErrStopped, the offset stays at the
// record, and the record after it is not handled.
func TestConsumerStopsOnUnknownType(t *testing.T) {
	t.Parallel()
	const topic, group = "outbox.event.Stop", "stop-svc"
	bootstrap := mockCluster(t, topic, 1)
	produce(t, bootstrap, topic, rec{n: 0}, rec{n: 1}, rec{n: 2, typ: "Pong"}, rec{n: 3})
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s := &seen{}
	must(t, consumer.Handle(r, "Ping", 0, func(ctx context.Context, ev consumer.Event[ping]) error {
		s.add(seenRec{partition: ev.Message.Partition, offset: ev.Message.Offset, n: ev.Payload.N, ok: true})
		return nil
	}))
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic}, CommitInterval: time.Hour,
	}, r)
	var runErr error
	select {
	case runErr = <-run.done:
		run.done <- runErr
	case <-time.After(mockTimeout):
		t.Fatal("Run did not return after the unknown record")
	}
	if !errors.Is(runErr, consumer.ErrUnknownEventType) || !errors.Is(runErr, consumer.ErrStopped) {
		t.Fatalf("Run = %v, want ErrStopped and ErrUnknownEventType", runErr)
	}
	if got := itest.CommittedOffsets(t, bootstrap, group, topic, 1)[0]; got != 2 {
		t.Errorf("committed offset = %d, want 2 (not past the unknown record)", got)
	}
	if c := checkOrder(t, s.snapshot()); c[0] != 2 {
		t.Errorf("handled %d records, want 2", c[0])
	}
	if st := r.Stats(); st.UnknownStopped != 1 || st.Handled != 2 {
		t.Errorf("Stats = %+v, want 2 handled and 1 stopped on", st)
	}
}

// TestConsumerRefusesInvalidRouter: a Router whose Use refused a
// middleware cannot be given to a Consumer, and batches need an inbox.
func TestConsumerRefusesInvalidRouter(t *testing.T) {
	cfg := consumer.ConsumerConfig{BootstrapServers: "127.0.0.1:1", GroupID: "g", Topics: []string{"t"}}
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	_ = r.Use(consumer.DLQ{Topic: "dlq"}.Middleware) // no Producer
	if _, err := consumer.NewConsumer(cfg, r); !errors.Is(err, consumer.ErrInvalidConfig) || !errors.Is(err, r.Err()) {
		t.Errorf("NewConsumer with an invalid router = %v, want the Use error", err)
	}
	r2, _ := consumer.NewRouter(consumer.RouterConfig{})
	cfg.Batch = consumer.Batch{MaxRecords: 10}
	if _, err := consumer.NewConsumer(cfg, r2); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("NewConsumer with batches and no inbox = %v, want ErrInvalidConfig", err)
	}
	cfg.Batch = consumer.Batch{MaxRecords: -1}
	if err := cfg.Validate(); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("Validate with Batch.MaxRecords -1 = %v", err)
	}
	for _, bad := range []consumer.ConsumerConfig{
		{MaxConcurrentPartitions: -1}, {QueueSize: -1}, {DrainTimeout: -1}, {RevokeTimeout: -1}, {MaxRedeliveryBackoff: -1},
	} {
		bad.BootstrapServers, bad.GroupID, bad.Topics = "b", "g", []string{"t"}
		if err := bad.Validate(); !errors.Is(err, consumer.ErrInvalidConfig) {
			t.Errorf("Validate(%+v) = %v, want ErrInvalidConfig", bad, err)
		}
	}
}

// TestConsumerShutdownDuringRetry: a record in Retry's backoff when Run's
// ctx is cancelled makes no further attempt (the handler context is not
// cancelled, but the lane drains): Run returns long before Retry or
// DrainTimeout would end, and the record is not committed.
func TestConsumerShutdownDuringRetry(t *testing.T) {
	t.Parallel()
	const topic, group = "outbox.event.RetryDrain", "retry-drain-svc"
	bootstrap := mockCluster(t, topic, 1)
	produce(t, bootstrap, topic, rec{n: 0}, rec{n: 1})
	var attempts atomic.Int32
	s := &seen{}
	r := pingRouter(t, s, func(m *consumer.Message, n int) error {
		if n == 1 {
			attempts.Add(1)
			return errors.New("not yet")
		}
		return nil
	})
	must(t, r.Use(consumer.Retry{MaxAttempts: 100, InitialInterval: 2 * time.Second}.Middleware))
	run := start(t, consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic},
		CommitInterval: time.Hour, DrainTimeout: time.Minute, OnError: s.onError,
	}, r)
	waitFor(t, mockTimeout, "record 1 failing", func() bool { return attempts.Load() >= 1 })
	began := time.Now()
	if err := run.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("Run took %s to return while Retry backed off (2s waits, DrainTimeout 1m)", d)
	}
	if n := attempts.Load(); n > 2 {
		t.Errorf("%d attempts of record 1 after the shutdown began, want no new one", n)
	}
	if got := itest.CommittedOffsets(t, bootstrap, group, topic, 1)[0]; got != 1 {
		t.Errorf("committed offset = %d, want 1", got)
	}
}
