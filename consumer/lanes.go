//go:build cgo

package consumer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// lane is the ordered processing of one assigned partition: the poll loop
// appends the partition's records to queue, the lane's goroutine processes
// them one after the other (or in batches), and done is the offset after
// the last record that succeeded, the one to commit.
type lane struct {
	c   *Consumer
	key tpKey

	mu        sync.Mutex
	queue     []*kafka.Message
	stopping  bool
	failing   bool  // the record at the head failed and waits for its retry
	done      int64 // next offset to commit; -1: none yet
	committed int64 // last offset committed; -1: none

	wake     chan struct{} // a record was pushed
	stopCh   chan struct{} // closed by stop
	finished chan struct{} // closed when the goroutine ends

	ctx    context.Context // handler context: Consumer.base, cancel
	cancel context.CancelFunc

	paused bool // the partition is paused (poll goroutine only)
}

func newLane(c *Consumer, k tpKey) *lane {
	l := &lane{
		c: c, key: k, done: -1, committed: -1,
		wake: make(chan struct{}, 1), stopCh: make(chan struct{}), finished: make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(c.base)
	l.ctx = context.WithValue(ctx, drainKey{}, (<-chan struct{})(l.stopCh))
	l.cancel = cancel
	return l
}

// tp is the lane's partition, for Pause and Resume.
func (l *lane) tp() []kafka.TopicPartition {
	return []kafka.TopicPartition{{Topic: &l.key.topic, Partition: l.key.partition}}
}

func (l *lane) push(km *kafka.Message) {
	l.mu.Lock()
	if l.stopping {
		l.mu.Unlock()
		return
	}
	l.queue = append(l.queue, km)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// stop makes the lane end after its record (or batch) in processing; a
// record waiting for its retry is left undone.
func (l *lane) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopping {
		l.stopping = true
		l.queue = nil
		close(l.stopCh)
	}
}

func (l *lane) isStopping() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopping
}

// flow reports whether the partition should be paused (its head record is
// failing, or the queue is full) or may be resumed.
func (l *lane) flow(queueSize int) (pause, resume bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.queue)
	return l.failing || n >= queueSize, !l.failing && n <= queueSize/2
}

func (l *lane) setFailing(f bool) {
	l.mu.Lock()
	l.failing = f
	l.mu.Unlock()
}

func (l *lane) markDone(next int64) {
	l.mu.Lock()
	if next > l.done {
		l.done = next
	}
	l.mu.Unlock()
}

// uncommitted returns the done offset when it moved since the last commit.
func (l *lane) uncommitted() (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done, l.done > l.committed
}

func (l *lane) committedUpTo(off int64) {
	l.mu.Lock()
	if off > l.committed {
		l.committed = off
	}
	l.mu.Unlock()
}

func (l *lane) run() {
	defer close(l.finished)
	defer l.cancel()
	for {
		recs := l.take()
		if recs == nil || !l.process(recs) {
			return
		}
	}
}

// take waits for records and returns up to Batch.MaxRecords of them, waiting
// at most Batch.MaxWait for a batch to fill; nil when the lane stops.
func (l *lane) take() []*kafka.Message {
	b := l.c.cfg.Batch
	var first time.Time
	for {
		l.mu.Lock()
		if l.stopping {
			l.mu.Unlock()
			return nil
		}
		n := len(l.queue)
		if n > 0 {
			if first.IsZero() {
				first = time.Now()
			}
			if n >= b.MaxRecords || time.Since(first) >= b.MaxWait {
				n = min(n, b.MaxRecords)
				recs := make([]*kafka.Message, n)
				copy(recs, l.queue)
				clear(l.queue[:n])
				l.queue = l.queue[n:]
				l.mu.Unlock()
				return recs
			}
		}
		l.mu.Unlock()
		var t *time.Timer
		var timeout <-chan time.Time
		if !first.IsZero() {
			t = time.NewTimer(b.MaxWait - time.Since(first))
			timeout = t.C
		}
		select {
		case <-l.wake:
		case <-l.stopCh:
		case <-timeout:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// process runs recs (records of this partition in offset order); false
// means the lane must end (stopped, or the Consumer stops).
func (l *lane) process(recs []*kafka.Message) bool {
	if len(recs) > 1 {
		if l.processBatch(recs) {
			return true
		}
		// Rolled back: one record at a time, so that only a poison record
		// fails (and is dead-lettered alone).
	}
	for _, km := range recs {
		if l.isStopping() || !l.processOne(km) {
			return false
		}
	}
	return true
}

// processBatch runs recs in one inbox transaction; true when it committed.
func (l *lane) processBatch(recs []*kafka.Message) bool {
	if !l.acquire() {
		return false
	}
	ms := make([]*Message, len(recs))
	for i, km := range recs {
		ms[i] = fromKafka(km)
	}
	err := l.c.router.ProcessBatch(l.ctx, ms)
	l.release()
	if err != nil {
		return false
	}
	l.markDone(int64(recs[len(recs)-1].TopicPartition.Offset) + 1)
	return true
}

// processOne runs one record until it succeeds: after a failure the
// partition is paused (flowControl) and the record is run again after a
// backoff. False: the lane must end, the record is not done.
func (l *lane) processOne(km *kafka.Message) bool {
	off := int64(km.TopicPartition.Offset)
	for attempt := 1; ; attempt++ {
		if !l.acquire() {
			return false
		}
		m := fromKafka(km)
		err := l.c.router.Process(l.ctx, m)
		l.release()
		if err == nil {
			l.markDone(off + 1)
			l.setFailing(false)
			return true
		}
		err = fmt.Errorf("consumer: %s/%d@%d (%s %s): %w", l.key.topic, l.key.partition, off, m.Meta.EventType, m.Meta.EventID, err)
		if IsStop(err) {
			l.c.fatal(err)
			return false
		}
		if l.ctx.Err() != nil {
			return false // the drain timed out: not done, delivered again
		}
		l.c.reportRecord(err, m)
		l.setFailing(true)
		t := time.NewTimer(l.c.backoff(attempt))
		select {
		case <-t.C:
		case <-l.stopCh:
			t.Stop()
			return false
		}
	}
}

// acquire takes a slot of MaxConcurrentPartitions; false when the lane was
// stopped while it waited.
func (l *lane) acquire() bool {
	if l.c.sem == nil {
		return true
	}
	select {
	case l.c.sem <- struct{}{}:
		return true
	case <-l.stopCh:
		return false
	}
}

func (l *lane) release() {
	if l.c.sem != nil {
		<-l.c.sem
	}
}

// backoff is the wait after the attempt-th failure of a record:
// RedeliveryBackoff doubled per failure, capped at MaxRedeliveryBackoff,
// jittered to between half and all of it.
func (c *Consumer) backoff(attempt int) time.Duration {
	d := c.cfg.RedeliveryBackoff
	for i := 1; i < attempt && d < c.cfg.MaxRedeliveryBackoff; i++ {
		d *= 2
	}
	d = min(d, c.cfg.MaxRedeliveryBackoff)
	return d/2 + rand.N(d/2+1)
}

// Batch configures batches: up to MaxRecords records of one partition are
// processed in one inbox transaction, with their inbox marks (see
// Router.ProcessBatch). A batch takes what the partition's lane holds, and
// waits at most MaxWait for more. If any record of a batch fails, the
// transaction is rolled back and the records are processed again one at a
// time, each in its own transaction, so that a poison record costs one
// batch and is dead-lettered alone. Batches need a Router with an Inbox.
type Batch struct {
	// MaxRecords is the largest batch (0 or 1: one record per
	// transaction, the default).
	MaxRecords int
	// MaxWait is how long a lane holding fewer than MaxRecords records
	// waits for more before it runs them (default 0: it runs what it has).
	MaxWait time.Duration
}

func (b Batch) validate() error {
	if b.MaxRecords < 0 {
		return fmt.Errorf("Batch.MaxRecords = %d, want >= 0", b.MaxRecords)
	}
	if b.MaxWait < 0 {
		return fmt.Errorf("Batch.MaxWait = %s, want >= 0", b.MaxWait)
	}
	return nil
}

func (b Batch) withDefaults() Batch {
	if b.MaxRecords < 1 {
		b.MaxRecords = 1
	}
	return b
}
