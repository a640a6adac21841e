//go:build integration

package consumer_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// timedStore is an inbox.BatchStore that adds up the time spent in Begin
// and the marks, for the benchmark's breakdown.
type timedStore struct {
	*inbox.SQLStore
	begin, mark atomic.Int64 // nanoseconds
}

func (s *timedStore) MarkProcessedBatch(ctx context.Context, tx *sql.Tx, group string, ids []string) ([]bool, error) {
	t0 := time.Now()
	dups, err := s.SQLStore.MarkProcessedBatch(ctx, tx, group, ids)
	s.mark.Add(int64(time.Since(t0)))
	return dups, err
}

func (s *timedStore) Begin(ctx context.Context) (*sql.Tx, error) {
	t0 := time.Now()
	tx, err := s.SQLStore.Begin(ctx)
	s.begin.Add(int64(time.Since(t0)))
	return tx, err
}

func (s *timedStore) MarkProcessed(ctx context.Context, tx *sql.Tx, group, id string) (bool, error) {
	t0 := time.Now()
	dup, err := s.SQLStore.MarkProcessed(ctx, tx, group, id)
	s.mark.Add(int64(time.Since(t0)))
	return dup, err
}

// BenchmarkConsumerThroughput: Router + inbox on the real PostgreSQL, fed
// by the Consumer from a prefilled topic: records/s with 1, 4 and 8
// partitions, one record per transaction and batches of up to 200. Each
// record's handler inserts one business row through Event.Tx. Every run
// checks 0 lost and 0 duplicate effects. Run it once per case:
//
//	go test -tags integration -run '^$' -bench ConsumerThroughput -benchtime 1x ./consumer/
//
// Besides records/s it reports where the time of a record goes, as a
// share of the lanes' processing time: begin, the inbox mark, the handler's
// insert, and the rest of Process (commit, decode, middleware).
func BenchmarkConsumerThroughput(b *testing.B) {
	s := itest.Require(b, itest.Kafka, itest.Postgres)
	const n = 16000
	for _, mode := range []struct {
		batch       int
		handleBatch bool
	}{{1, false}, {200, false}, {200, true}} {
		for _, partitions := range []int{1, 4, 8} {
			name := fmt.Sprintf("partitions=%d/batch=%d", partitions, mode.batch)
			if mode.handleBatch {
				name += "/handlebatch"
			}
			b.Run(name, func(b *testing.B) {
				for range b.N {
					benchThroughput(b, s.BootstrapServers, s.PostgresDSN, partitions, mode.batch, n, mode.handleBatch)
				}
			})
		}
	}
}

// benchThroughput runs one case; handleBatch: the effects of each batch in
// one INSERT … SELECT FROM unnest by a consumer.HandleBatch function, else
// one INSERT per record by a Handle function.
func benchThroughput(b *testing.B, bootstrap, dsn string, partitions, batch, n int, handleBatch bool) {
	b.StopTimer()
	sfx := itest.Suffix()
	topic, group := "outbox.event.Bench"+sfx, "bench-"+sfx
	itest.CreateTopicN(b, bootstrap, topic, partitions)
	b.Cleanup(func() { itest.DeleteConsumerGroup(b, bootstrap, group) })
	evs := events("bench"+sfx, partitions, n/partitions, 16, seqValue)
	produceEvents(b, bootstrap, topic, evs)

	db := itest.PostgresDatabase(b, dsn, "bench_"+sfx)
	db.SetMaxOpenConns(partitions + 2)
	db.SetMaxIdleConns(partitions + 2)
	pg, err := inbox.NewPostgres(db, "")
	if err != nil {
		b.Fatal(err)
	}
	if err := pg.CreateTable(context.Background()); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE effects (event_id text PRIMARY KEY, agg text NOT NULL, seq int NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	store := &timedStore{SQLStore: pg}
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		b.Fatal(err)
	}
	var processNs, insertNs atomic.Int64
	var mu sync.Mutex
	var first, last time.Time
	if err := r.Use(consumer.Hooks{OnDone: func(_ context.Context, _ *consumer.Message, err error, d time.Duration) {
		processNs.Add(int64(d))
		now := time.Now()
		mu.Lock()
		if first.IsZero() {
			first = now
		}
		last = now
		mu.Unlock()
	}}.Middleware); err != nil {
		b.Fatal(err)
	}
	if handleBatch {
		err = consumer.HandleBatch(r, "Step", 1, func(ctx context.Context, tx *sql.Tx, evs []consumer.Event[Step]) error {
			t0 := time.Now()
			ids, aggs, seqs := make([]string, len(evs)), make([]string, len(evs)), make([]int64, len(evs))
			for i, ev := range evs {
				ids[i], aggs[i], seqs[i] = ev.EventID, ev.AggregateID, int64(ev.Payload.Seq)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO effects (event_id, agg, seq) SELECT * FROM unnest($1::text[], $2::text[], $3::int[])`, ids, aggs, seqs)
			insertNs.Add(int64(time.Since(t0)))
			return err
		})
	} else {
		err = consumer.Handle(r, "Step", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
			t0 := time.Now()
			_, err := ev.Tx.ExecContext(ctx, `INSERT INTO effects (event_id, agg, seq) VALUES ($1, $2, $3)`, ev.EventID, ev.AggregateID, ev.Payload.Seq)
			insertNs.Add(int64(time.Since(t0)))
			return err
		})
	}
	if err != nil {
		b.Fatal(err)
	}
	c, err := consumer.NewConsumer(consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic}, CommitInterval: 500 * time.Millisecond,
		Batch: consumer.Batch{MaxRecords: batch, MaxWait: 5 * time.Millisecond},
	}, r)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	b.StartTimer()
	go func() { done <- c.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Minute)
	for r.Stats().Handled < int64(n) {
		if time.Now().After(deadline) {
			cancel()
			b.Fatalf("handled %d of %d records in 5 minutes", r.Stats().Handled, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatalf("Run = %v", err)
	}
	var rows, distinct int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT event_id) FROM effects`).Scan(&rows, &distinct); err != nil {
		b.Fatal(err)
	}
	st := r.Stats()
	if rows != n || distinct != n || st.Handled != int64(n) || st.Duplicates != 0 {
		b.Fatalf("effects %d (%d distinct), stats %+v: want %d, 0 lost, 0 duplicates", rows, distinct, st, n)
	}
	mu.Lock()
	elapsed := last.Sub(first)
	mu.Unlock()
	b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
	b.ReportMetric(0, "lost")
	b.ReportMetric(float64(rows-distinct), "duplicates")
	if p := float64(processNs.Load()); p > 0 && batch == 1 {
		begin, mark, insert := float64(store.begin.Load()), float64(store.mark.Load()), float64(insertNs.Load())
		b.ReportMetric(100*begin/p, "%begin")
		b.ReportMetric(100*mark/p, "%mark")
		b.ReportMetric(100*insert/p, "%insert")
		b.ReportMetric(100*(p-begin-mark-insert)/p, "%commit+rest")
		b.ReportMetric(p/float64(n)/1e3, "µs/record-in-lane")
	}
	if w := float64(elapsed); w > 0 && batch > 1 && partitions == 1 {
		// one lane: its statements run one after another, so their shares
		// of the wall time add up; the rest is commit, fetch and decode
		begin, mark, insert := float64(store.begin.Load()), float64(store.mark.Load()), float64(insertNs.Load())
		b.ReportMetric(100*begin/w, "%wall-begin")
		b.ReportMetric(100*mark/w, "%wall-mark")
		b.ReportMetric(100*insert/w, "%wall-insert")
		b.ReportMetric(100*(w-begin-mark-insert)/w, "%wall-commit+rest")
	}
}
