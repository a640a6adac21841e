// Package benchtest has an in-memory bench.Pipeline for tests of bench and
// of `outboxctl bench`.
package benchtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/outboxctl/outboxctl/bench"
)

// Fake is an in-memory Pipeline: a Send is "committed" at once and handed to
// one consumer goroutine, which delivers it after Delay (and, with
// ServiceTime, one event per ServiceTime at most, like a consumer of fixed
// capacity).
type Fake struct {
	// Delay between commit and handler.
	Delay time.Duration
	// ServiceTime is the time the consumer spends on each event.
	ServiceTime time.Duration
	// SendTime is the time each Send takes (a slow writer).
	SendTime time.Duration
	// Drop, Duplicate and Swap select events by (step, n): Drop never
	// delivers it, Duplicate delivers it twice, Swap delivers it after the
	// next event of the same aggregate (n + aggregates).
	Drop, Duplicate, Swap func(step, n int) bool
	// Fail makes Send fail for the events it selects.
	Fail func(step, n int) bool

	deliver func(bench.Delivery)
	// baseline, set by StartBaseline, gets every committed event at once
	// (a bare consumer without the Delay).
	baseline func(bench.Delivery)
	queue    chan bench.Delivery
	held     sync.Map // aggregate -> held delivery (Swap)
	ids      atomic.Int64
	stop     chan struct{}
	done     chan struct{}
	// Closed is set by Close.
	Closed atomic.Bool
}

// Start starts the consumer goroutine.
func (f *Fake) Start(ctx context.Context, deliver func(bench.Delivery)) error {
	f.deliver = deliver
	f.queue = make(chan bench.Delivery, 1<<20)
	f.stop, f.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(f.done)
		for {
			select {
			case <-f.stop:
				return
			case d := <-f.queue:
				if w := time.Until(d.At.Add(f.Delay)); w > 0 {
					time.Sleep(w)
				}
				if f.ServiceTime > 0 {
					time.Sleep(f.ServiceTime)
				}
				d.At = time.Now()
				f.deliver(d)
			}
		}
	}()
	return nil
}

// StartBaseline makes every committed event reach deliver at once: the
// bare consumer of a pipeline whose SDK consumer costs Delay.
func (f *Fake) StartBaseline(_ context.Context, deliver func(bench.Delivery)) error {
	f.baseline = deliver
	return nil
}

// WarmUp does nothing.
func (f *Fake) WarmUp(context.Context) error { return nil }

// NewID returns a counter as id.
func (f *Fake) NewID() (string, error) { return fmt.Sprintf("id-%d", f.ids.Add(1)), nil }

// Send queues e for delivery.
func (f *Fake) Send(ctx context.Context, e bench.Event) error {
	if f.SendTime > 0 {
		time.Sleep(f.SendTime)
	}
	if f.Fail != nil && f.Fail(e.Step, e.N) {
		return fmt.Errorf("fake: send of event %d fails", e.N)
	}
	d := bench.Delivery{Step: e.Step, N: e.N, ID: e.ID, Aggregate: e.Aggregate, Seq: e.Seq, At: time.Now()}
	if f.baseline != nil {
		f.baseline(d)
	}
	if f.Drop != nil && f.Drop(e.Step, e.N) {
		return nil
	}
	if f.Swap != nil {
		if f.Swap(e.Step, e.N) {
			f.held.Store(e.Aggregate, d)
			return nil
		}
		if h, ok := f.held.LoadAndDelete(e.Aggregate); ok {
			f.queue <- d
			d = h.(bench.Delivery)
		}
	}
	f.queue <- d
	if f.Duplicate != nil && f.Duplicate(e.Step, e.N) {
		f.queue <- d
	}
	return nil
}

// Close stops the consumer goroutine.
func (f *Fake) Close(context.Context) error {
	if f.Closed.CompareAndSwap(false, true) && f.stop != nil {
		close(f.stop)
		<-f.done
	}
	return nil
}
