package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Sentinel errors.
var (
	// ErrInvalidOptions: Options that cannot run (rate, duration, ...).
	ErrInvalidOptions = errors.New("invalid bench options")
	// ErrWarmUp: no warm-up event reached the consumer in time (the
	// connector is not streaming, or the consumer cannot read the topic).
	ErrWarmUp = errors.New("bench warm-up")
)

// Event is one event the bench sends: the Step of a --rate max search (0
// for a single run), its index N within the step, its aggregate and its
// sequence number within the aggregate.
type Event struct {
	Step      int
	N         int
	ID        string
	Aggregate string
	Seq       int
}

// Delivery is one handler run of a bench event, as the pipeline reports it.
type Delivery struct {
	Step      int
	N         int
	ID        string
	Aggregate string
	Seq       int
	// At is when the handler ran.
	At time.Time
}

// Pipeline is what Run measures.
type Pipeline interface {
	// Start starts consuming; every handler run of a bench event is
	// reported to deliver (from any goroutine). It returns once the
	// consumer runs; Run then calls WarmUp.
	Start(ctx context.Context, deliver func(Delivery)) error
	// WarmUp writes marker events until one reaches the consumer, so that
	// the connector streams and the consumer is assigned its partitions.
	WarmUp(ctx context.Context) error
	// NewID returns a fresh event id.
	NewID() (string, error)
	// Send commits e in a transaction of its own.
	Send(ctx context.Context, e Event) error
	// Close stops the consumer and releases what the pipeline created.
	Close(ctx context.Context) error
}

// EffectCounter is implemented by pipelines whose handler writes its effect
// in the inbox transaction: the counts come from the effects table, not from
// handler runs (a run whose transaction rolled back has no effect).
type EffectCounter interface {
	// Effects returns, for step, how many distinct events have an effect
	// and how many effects there are in all; ok is false when the pipeline
	// has no effects table (no inbox).
	Effects(ctx context.Context, step int) (distinct, total int, ok bool, err error)
}

// DefaultAggregates is Options.Aggregates when it is 0.
const DefaultAggregates = 64

// MaxEvents bounds the events of one run or step (rate × duration): the
// bench keeps a few slots per event in memory, about 80 bytes each, so
// 10,000,000 events take under 1 GB.
const MaxEvents = 10_000_000

// RateMax as Options.Rate searches for the highest sustained rate.
const RateMax = -1

// Options of a run.
type Options struct {
	// Rate in events per second, or RateMax.
	Rate float64
	// Duration of the sending phase (of each step with RateMax).
	Duration time.Duration
	// Aggregates is how many aggregates the events are spread over (round
	// robin; default 64). Order is checked per aggregate.
	Aggregates int
	// Writers is how many concurrent writer transactions may be open
	// (default: 4 below 500/s, else 16). An aggregate is always written by
	// the same writer, so its events commit in order.
	Writers int
	// Drain is how long Run waits after the last send for the remaining
	// events (default 30s; it ends earlier once every event is handled).
	Drain time.Duration
	// LagBound is the p99 latency a RateMax step may reach and still count
	// as sustained (default 2s: a pipeline that does not keep up falls
	// behind by seconds within a step; one that does stays within its
	// connector's poll interval, up to 1 s with the throughput profile).
	LagBound time.Duration
	// MaxSteps bounds a RateMax search (default 12 steps).
	MaxSteps int
	// StartRate is the first rate of a RateMax search (default 200/s); it
	// doubles until a step fails, then bisects.
	StartRate float64
	// Progress, if set, receives a line per phase and step.
	Progress func(string)
	// Baseline runs the pipeline's bare consumer (a Baseliner) next to
	// its SDK consumer: Report.Baseline and Report.SDKOverheadP50.
	Baseline bool
}

func (o *Options) defaults() error {
	if o.Rate != RateMax && !(o.Rate > 0) {
		return fmt.Errorf("%w: rate %v: want a positive number of events per second or max", ErrInvalidOptions, o.Rate)
	}
	if o.Duration <= 0 {
		return fmt.Errorf("%w: duration %s: want > 0", ErrInvalidOptions, o.Duration)
	}
	if o.Rate != RateMax && o.Rate*o.Duration.Seconds() > MaxEvents {
		return fmt.Errorf("%w: rate %v × duration %s is more than %d events: lower the rate or the duration", ErrInvalidOptions, o.Rate, o.Duration, MaxEvents)
	}
	if o.Aggregates <= 0 {
		o.Aggregates = DefaultAggregates
	}
	if o.Drain <= 0 {
		o.Drain = 30 * time.Second
	}
	if o.LagBound <= 0 {
		o.LagBound = 2 * time.Second
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 12
	}
	if o.StartRate <= 0 {
		o.StartRate = 200
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	return nil
}

func (o *Options) writers(rate float64) int {
	if o.Writers > 0 {
		return o.Writers
	}
	if rate < 500 {
		return 4
	}
	return 16
}

// Run measures p with opts: one run at opts.Rate, or a RateMax search. It
// always closes p. The error is operational (the pipeline could not be
// started, warmed up or written to); check results are in the Report.
func Run(ctx context.Context, p Pipeline, opts Options) (rep *Report, err error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	var bl Baseliner
	if opts.Baseline {
		var ok bool
		if bl, ok = p.(Baseliner); !ok {
			_ = p.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("%w: the pipeline has no baseline consumer", ErrInvalidOptions)
		}
	}
	var cur atomic.Pointer[step]
	deliver := func(d Delivery) {
		if s := cur.Load(); s != nil && s.index == d.Step {
			s.deliver(d)
		}
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if cerr := p.Close(cctx); cerr != nil && err == nil {
			err = fmt.Errorf("close pipeline: %w", cerr)
		}
	}()
	if err := p.Start(ctx, deliver); err != nil {
		return nil, err
	}
	if bl != nil {
		err := bl.StartBaseline(ctx, func(d Delivery) {
			if s := cur.Load(); s != nil && s.index == d.Step {
				s.deliverBaseline(d)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	opts.Progress("warming up: waiting for a marker event to reach the consumer")
	if err := p.WarmUp(ctx); err != nil {
		return nil, err
	}
	runStep := func(index int, rate float64) (*Report, error) {
		s := newStep(index, rate, opts)
		cur.Store(s)
		defer cur.Store(nil)
		opts.Progress(fmt.Sprintf("step %d: %g events/s for %s", index, rate, opts.Duration))
		cpu0, wall0 := processCPU(), time.Now()
		if err := s.run(ctx, p); err != nil {
			return nil, err
		}
		cpu, wall := processCPU()-cpu0, time.Since(wall0)
		r, err := s.report(ctx, p)
		if err != nil {
			return nil, err
		}
		if wall > 0 && cpu > 0 {
			r.CPUPercent = math.Round(float64(cpu)/float64(wall)*1000) / 10
		}
		if l := loadAverage(); l >= 0 {
			r.Load1 = &l
		}
		opts.Progress(fmt.Sprintf("step %d: %s", index, r.Summary()))
		return r, nil
	}
	if opts.Rate != RateMax {
		return runStep(0, opts.Rate)
	}
	return search(ctx, opts, runStep)
}

// search doubles the rate from StartRate until a step is not sustained
// (something lost, duplicated or reordered, the writers behind the target
// by more than 10 %, or p99 over LagBound), then bisects between the best
// sustained and the first failed rate until they are within 15 %, within
// MaxSteps steps in all. When the first step already fails it halves the
// rate, down to StartRate/16. The
// Report is that of the best sustained step (the first step's when none
// was), with every step in Steps.
func search(ctx context.Context, opts Options, runStep func(int, float64) (*Report, error)) (*Report, error) {
	var best, first *Report
	var steps []StepSummary
	lo, hi := 0.0, 0.0
	rate := opts.StartRate
	for i := 1; i <= opts.MaxSteps; i++ {
		r, err := runStep(i, rate)
		if err != nil {
			return nil, err
		}
		ok := r.sustained(opts.LagBound)
		steps = append(steps, StepSummary{Rate: rate, Sustained: ok, Sent: r.Sent, Handled: r.Handled, Lost: r.Lost,
			Duplicates: r.Duplicates, Reordered: r.Reordered, RateAchieved: r.RateAchieved, P99: r.Latency.P99,
			MaxSendDelay: r.MaxSendDelay, CPUPercent: r.CPUPercent, Load1: r.Load1})
		if first == nil {
			first = r
		}
		if ok {
			best, lo = r, rate
		} else {
			hi = rate
		}
		next, more := 0.0, false
		switch {
		case hi == 0: // nothing failed yet: double (within MaxEvents)
			next, more = rate*2, rate*2*opts.Duration.Seconds() <= MaxEvents
		case lo == 0: // nothing sustained yet: halve, down to StartRate/16
			next = math.Round(rate / 2)
			more = next >= opts.StartRate/16
		case hi/lo >= 1.15:
			next, more = math.Round((lo+hi)/2), true
		}
		if !more {
			break
		}
		rate = next
	}
	if best == nil {
		best = first
	}
	best.Search = &Search{Steps: steps, MaxSustained: lo, LagBound: Millis(opts.LagBound)}
	return best, nil
}

// step is one sending phase and its matching.
type step struct {
	index int
	rate  float64
	opts  Options
	total int

	ids       []string
	commitAt  []time.Time // zero: not committed
	late      []time.Duration
	sendErr   atomic.Int64
	firstSend error

	mu      sync.Mutex
	handled []time.Time // first handler run; zero: none
	runs    []int32
	maxSeq  map[string]int
	reorder int
	foreign int

	handledN atomic.Int64
	// baseline consumer (Options.Baseline): first read of each event
	baseAt []time.Time
	baseN  atomic.Int64

	start time.Time
	end   time.Time // last commit
}

func newStep(index int, rate float64, opts Options) *step {
	total := int(math.Round(rate * opts.Duration.Seconds()))
	if total < 1 {
		total = 1
	}
	s := &step{index: index, rate: rate, opts: opts, total: total,
		ids: make([]string, total), commitAt: make([]time.Time, total), late: make([]time.Duration, total),
		handled: make([]time.Time, total), runs: make([]int32, total), maxSeq: map[string]int{}}
	if opts.Baseline {
		s.baseAt = make([]time.Time, total)
	}
	return s
}

// deliverBaseline records the baseline consumer's first read of an event.
func (s *step) deliverBaseline(d Delivery) {
	if d.N < 0 || d.N >= s.total || d.ID != s.ids[d.N] || s.baseAt == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.baseAt[d.N].IsZero() {
		s.baseAt[d.N] = d.At
		s.baseN.Add(1)
	}
}

func (s *step) event(n int) Event {
	a := n % s.opts.Aggregates
	return Event{Step: s.index, N: n, ID: s.ids[n], Aggregate: fmt.Sprintf("s%d-a%03d", s.index, a), Seq: n / s.opts.Aggregates}
}

func (s *step) deliver(d Delivery) {
	if d.N < 0 || d.N >= s.total || d.ID != s.ids[d.N] {
		s.mu.Lock()
		s.foreign++
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[d.N]++
	if s.runs[d.N] > 1 {
		return
	}
	s.handled[d.N] = d.At
	s.handledN.Add(1)
	if m, ok := s.maxSeq[d.Aggregate]; ok && d.Seq < m {
		s.reorder++
	} else {
		s.maxSeq[d.Aggregate] = d.Seq
	}
}

// run sends every event at its scheduled time, then waits for the drain.
func (s *step) run(ctx context.Context, p Pipeline) error {
	for n := range s.ids {
		id, err := p.NewID()
		if err != nil {
			return err
		}
		s.ids[n] = id
	}
	w := s.opts.writers(s.rate)
	queues := make([]chan int, w)
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / s.rate)
	s.start = time.Now().Add(50 * time.Millisecond)
	sendCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var errOnce sync.Once
	for i := range queues {
		queues[i] = make(chan int, s.total/w+1)
		wg.Add(1)
		go func(q chan int) {
			defer wg.Done()
			for n := range q {
				due := s.start.Add(time.Duration(n) * interval)
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				if l := time.Since(due); l > 0 {
					s.late[n] = l
				}
				if err := p.Send(sendCtx, s.event(n)); err != nil {
					s.sendErr.Add(1)
					errOnce.Do(func() { s.firstSend = err })
					continue
				}
				s.commitAt[n] = time.Now()
			}
		}(queues[i])
	}
	// Each writer gets the events of its aggregates, in order; the queue
	// holds them all, so a slow writer never blocks the schedule of the
	// others, and each waits for the scheduled time of its next event.
	for n := 0; n < s.total; n++ {
		queues[(n%s.opts.Aggregates)%w] <- n
	}
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	for _, t := range s.commitAt {
		if t.After(s.end) {
			s.end = t
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	committed := int64(0)
	for _, t := range s.commitAt {
		if !t.IsZero() {
			committed++
		}
	}
	deadline := time.Now().Add(s.opts.Drain)
	for (s.handledN.Load() < committed || (s.baseAt != nil && s.baseN.Load() < committed)) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	// A short grace period so that duplicates still in flight are seen.
	time.Sleep(200 * time.Millisecond)
	return nil
}

func (s *step) report(ctx context.Context, p Pipeline) (*Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Report{RateTarget: s.rate, Reordered: s.reorder, SendErrors: int(s.sendErr.Load()), Foreign: s.foreign}
	if s.firstSend != nil {
		r.FirstSendError = s.firstSend.Error()
	}
	lat := make([]time.Duration, 0, s.total)
	var maxLate time.Duration
	for n := range s.ids {
		if s.commitAt[n].IsZero() {
			continue
		}
		r.Sent++
		maxLate = max(maxLate, s.late[n])
		if s.runs[n] == 0 {
			r.Lost++
			continue
		}
		r.Handled++
		r.Duplicates += int(s.runs[n]) - 1
		lat = append(lat, s.handled[n].Sub(s.commitAt[n])+s.late[n])
	}
	if ec, ok := p.(EffectCounter); ok {
		distinct, total, ok, err := ec.Effects(ctx, s.index)
		if err != nil {
			return nil, fmt.Errorf("count effects: %w", err)
		}
		if ok {
			r.EffectsCounted = true
			r.Duplicates = total - distinct
			if distinct != r.Handled {
				// A handler run whose transaction rolled back has no effect:
				// the effects table is the truth.
				r.Lost = r.Sent - distinct
				r.Handled = distinct
			}
		}
	}
	// Event 0 is due at start, event n at start + n/rate: on schedule,
	// (sent-1) events over the time to the last commit is the rate.
	if el := s.end.Sub(s.start); el > 0 && r.Sent > 1 {
		r.RateAchieved = math.Round(float64(r.Sent-1)/el.Seconds()*10) / 10
	}
	r.MaxSendDelay = Millis(maxLate)
	r.Latency = percentiles(lat)
	r.samples = lat
	if s.baseAt != nil {
		b := &Baseline{}
		var blat []time.Duration
		for n := range s.ids {
			if s.commitAt[n].IsZero() || s.baseAt[n].IsZero() {
				continue
			}
			b.Received++
			blat = append(blat, s.baseAt[n].Sub(s.commitAt[n])+s.late[n])
		}
		b.Latency = percentiles(blat)
		r.Baseline = b
		if b.Received > 0 && r.Handled > 0 {
			d := r.Latency.P50 - b.Latency.P50
			r.SDKOverheadP50 = &d
		}
	}
	return r, nil
}

// percentiles by nearest rank.
func percentiles(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	q := func(p float64) Millis {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return Millis(s[max(0, min(i, len(s)-1))])
	}
	return Latency{P50: q(0.50), P90: q(0.90), P99: q(0.99), P999: q(0.999), Max: Millis(s[len(s)-1])}
}
