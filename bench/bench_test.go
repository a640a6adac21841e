package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/bench"
	"github.com/outboxctl/outboxctl/bench/benchtest"
)

func run(t *testing.T, f *benchtest.Fake, opts bench.Options) *bench.Report {
	t.Helper()
	if opts.Drain == 0 {
		opts.Drain = 500 * time.Millisecond
	}
	r, err := bench.Run(context.Background(), f, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !f.Closed.Load() {
		t.Error("Run did not close the pipeline")
	}
	return r
}

// TestRunChecks: every kind of failure the bench exists to find is counted
// exactly, and only then is the report failed.
func TestRunChecks(t *testing.T) {
	at := func(ns ...int) func(step, n int) bool {
		return func(_, n int) bool {
			for _, m := range ns {
				if n == m {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name                        string
		fake                        func() *benchtest.Fake
		handled, lost, dup, reorder int
		sendErrors                  int
		failed                      bool
	}{
		{name: "clean", fake: func() *benchtest.Fake { return &benchtest.Fake{Delay: 2 * time.Millisecond} }, handled: 100},
		{name: "lost", fake: func() *benchtest.Fake { return &benchtest.Fake{Drop: at(3, 50, 99)} }, handled: 97, lost: 3, failed: true},
		{name: "duplicate", fake: func() *benchtest.Fake { return &benchtest.Fake{Duplicate: at(7, 8)} }, handled: 100, dup: 2, failed: true},
		// Event 5 is delivered after event 5+64 of its aggregate.
		{name: "reordered", fake: func() *benchtest.Fake { return &benchtest.Fake{Swap: at(5)} }, handled: 100, reorder: 1, failed: true},
		// A failed send was never committed: not sent, not lost.
		{name: "send error", fake: func() *benchtest.Fake { return &benchtest.Fake{Fail: at(10)} }, handled: 99, sendErrors: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fake()
			r := run(t, f, bench.Options{Rate: 500, Duration: 200 * time.Millisecond})
			if r.Sent != 100-tc.sendErrors || r.Handled != tc.handled || r.Lost != tc.lost || r.Duplicates != tc.dup || r.Reordered != tc.reorder || r.SendErrors != tc.sendErrors {
				t.Errorf("sent %d handled %d lost %d duplicates %d reordered %d send errors %d; want handled %d lost %d duplicates %d reordered %d send errors %d",
					r.Sent, r.Handled, r.Lost, r.Duplicates, r.Reordered, r.SendErrors, tc.handled, tc.lost, tc.dup, tc.reorder, tc.sendErrors)
			}
			if r.Failed() != tc.failed {
				t.Errorf("Failed() = %v, want %v", r.Failed(), tc.failed)
			}
			if !strings.Contains(r.Text(), "sent ") {
				t.Errorf("text report: %s", r.Text())
			}
		})
	}
}

// TestOpenLoop: a writer slower than the schedule falls behind, and the
// delay behind the schedule is part of each late event's latency, so the
// stall shows in the percentiles instead of slowing the load down.
func TestOpenLoop(t *testing.T) {
	// One writer, 10 ms per send, 200 events/s scheduled (5 ms apart): the
	// 40th event starts about 40*5 = 200 ms late.
	f := &benchtest.Fake{SendTime: 10 * time.Millisecond}
	r := run(t, f, bench.Options{Rate: 200, Duration: 200 * time.Millisecond, Writers: 1})
	if r.Sent != 40 || r.Handled != 40 {
		t.Fatalf("sent %d handled %d, want 40", r.Sent, r.Handled)
	}
	if d := time.Duration(r.MaxSendDelay); d < 150*time.Millisecond {
		t.Errorf("largest send delay %s, want about 200ms", d)
	}
	if r.Latency.Max < r.MaxSendDelay {
		t.Errorf("max latency %s below the largest send delay %s: the delay is not counted", r.Latency.Max, r.MaxSendDelay)
	}
	if r.RateAchieved > 120 {
		t.Errorf("achieved %.1f/s, want about 100/s (one writer at 10 ms a send)", r.RateAchieved)
	}
	// The same load with writers enough keeps (nearly) to the schedule.
	f = &benchtest.Fake{SendTime: 10 * time.Millisecond, Delay: time.Millisecond}
	r8 := run(t, f, bench.Options{Rate: 200, Duration: 200 * time.Millisecond, Writers: 8})
	if r8.MaxSendDelay > r.MaxSendDelay/2 {
		t.Errorf("8 writers: largest send delay %s, one writer %s: want far less", r8.MaxSendDelay, r.MaxSendDelay)
	}
}

// TestPercentilesOrdered: percentiles by nearest rank, in ms in JSON, with
// exactly the contract's fields.
func TestPercentilesOrdered(t *testing.T) {
	f := &benchtest.Fake{Delay: 3 * time.Millisecond}
	r := run(t, f, bench.Options{Rate: 1000, Duration: 300 * time.Millisecond})
	l := r.Latency
	if !(l.P50 > 0 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.P999 && l.P999 <= l.Max) {
		t.Fatalf("percentiles not ordered: %+v", l)
	}
	if time.Duration(l.P50) < 3*time.Millisecond {
		t.Errorf("p50 %s below the fake's delay of 3ms", l.P50)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"sent", "handled", "lost", "duplicates", "reordered", "rate_target", "rate_achieved"} {
		if _, ok := m[k].(float64); !ok {
			t.Errorf("json %s = %v, want a number", k, m[k])
		}
	}
	lat, _ := m["latency_ms"].(map[string]any)
	for _, k := range []string{"p50", "p90", "p99", "p999", "max"} {
		if _, ok := lat[k].(float64); !ok {
			t.Errorf("json latency_ms.%s = %v, want a number", k, lat[k])
		}
	}
	plot := filepath.Join(t.TempDir(), "l.png")
	if err := bench.Plot(r, "test", plot); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("plot is not a PNG: %v", err)
	}
}

// TestSearch: against a consumer that handles at most 400 events/s, the
// search finds a sustained rate below that and none above it.
func TestSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of steps")
	}
	f := &benchtest.Fake{ServiceTime: 2500 * time.Microsecond}
	r := run(t, f, bench.Options{Rate: bench.RateMax, Duration: 400 * time.Millisecond, StartRate: 50, LagBound: 80 * time.Millisecond, Drain: 2 * time.Second})
	s := r.Search
	if s == nil || len(s.Steps) < 3 {
		t.Fatalf("search: %+v", s)
	}
	// A loaded machine sleeps longer than 2.5 ms, so the capacity is at
	// most 400/s; the search must find a rate, and none above that.
	if s.MaxSustained < 50 || s.MaxSustained > 400 {
		t.Errorf("max sustained %v/s, want between 50 and 400 (capacity at most 400/s)\n%s", s.MaxSustained, r.Text())
	}
	for _, st := range s.Steps {
		if st.Sustained && st.Rate > 400 {
			t.Errorf("step at %v/s counted as sustained above the capacity", st.Rate)
		}
	}
	if r.RateTarget != s.MaxSustained {
		t.Errorf("report of step %v/s, want the best sustained %v/s", r.RateTarget, s.MaxSustained)
	}
}

// TestSearchNothingSustained: when even the first rate is not sustained the
// search halves it (down to StartRate/16) and reports that none was.
func TestSearchNothingSustained(t *testing.T) {
	f := &benchtest.Fake{Delay: 120 * time.Millisecond}
	r := run(t, f, bench.Options{Rate: bench.RateMax, Duration: 200 * time.Millisecond, StartRate: 80, LagBound: 50 * time.Millisecond})
	var rates []float64
	for _, st := range r.Search.Steps {
		rates = append(rates, st.Rate)
		if st.Sustained {
			t.Errorf("step %v/s sustained with p99 %s over the bound", st.Rate, st.P99)
		}
	}
	if want := []float64{80, 40, 20, 10, 5}; fmt.Sprint(rates) != fmt.Sprint(want) {
		t.Errorf("rates %v, want %v", rates, want)
	}
	if r.Search.MaxSustained != 0 || r.RateTarget != 80 {
		t.Errorf("max sustained %v, report of %v/s; want 0 and the first step", r.Search.MaxSustained, r.RateTarget)
	}
}

// TestRunRefusesTooManyEvents: rate × duration beyond MaxEvents is
// ErrInvalidOptions before anything is allocated (issue 25 item 7: it
// panicked in makeslice).
func TestRunRefusesTooManyEvents(t *testing.T) {
	for _, o := range []bench.Options{
		{Rate: 99999999999999, Duration: time.Second},
		{Rate: bench.MaxEvents + 1, Duration: time.Second},
		{Rate: math.Inf(1), Duration: time.Second},
	} {
		_, err := bench.Run(context.Background(), &benchtest.Fake{}, o)
		if !errors.Is(err, bench.ErrInvalidOptions) {
			t.Errorf("rate %v duration %s: err = %v, want ErrInvalidOptions", o.Rate, o.Duration, err)
		}
	}
}

func TestComparisonText(t *testing.T) {
	rep := func(p50, p99 time.Duration, dup int) *bench.Report {
		return &bench.Report{Sent: 1000, Handled: 1000, Duplicates: dup, RateAchieved: 100, Latency: bench.Latency{P50: bench.Millis(p50), P99: bench.Millis(p99)}}
	}
	c := &bench.Comparison{Runs: []bench.ComparisonRun{
		{Outbox: "alo", Delivery: "at-least-once", Rate: 100, Report: rep(20*time.Millisecond, 40*time.Millisecond, 0)},
		{Outbox: "eos", Delivery: "exactly-once", Rate: 100, Report: rep(30*time.Millisecond, 60*time.Millisecond, 0)},
	}}
	if x := c.P99Ratio(100); x != 1.5 {
		t.Errorf("P99Ratio = %v, want 1.5", x)
	}
	txt := c.Text()
	for _, want := range []string{"RATE/S", "eos     exactly-once", "at 100/s: p99 of the second outbox is 1.50× the first's", "ok:"} {
		if !strings.Contains(txt, want) {
			t.Errorf("Text lacks %q:\n%s", want, txt)
		}
	}
	c.Runs[1].Report = rep(0, 0, 1)
	if !c.Failed() || !strings.Contains(c.Text(), "CHECK FAILED") {
		t.Errorf("a duplicate must fail the comparison:\n%s", c.Text())
	}
}

// TestBaseline: with Options.Baseline the pipeline's bare consumer reads
// the same events in the same run; the SDK's overhead is the difference of
// the p50s (here the fake SDK consumer's Delay of 30 ms); the report has
// the CPU of the process and the machine's load.
func TestBaseline(t *testing.T) {
	f := &benchtest.Fake{Delay: 30 * time.Millisecond}
	r := run(t, f, bench.Options{Rate: 500, Duration: 200 * time.Millisecond, Baseline: true})
	if r.Baseline == nil || r.Baseline.Received != 100 || r.SDKOverheadP50 == nil {
		t.Fatalf("baseline %+v, overhead %v: want 100 events read and an overhead", r.Baseline, r.SDKOverheadP50)
	}
	if d := time.Duration(*r.SDKOverheadP50); d < 25*time.Millisecond || d > 80*time.Millisecond {
		t.Errorf("SDK overhead p50 %s, want about 30ms", d)
	}
	if r.Baseline.Latency.P50 >= r.Latency.P50 {
		t.Errorf("baseline p50 %s not below the SDK's %s", r.Baseline.Latency.P50, r.Latency.P50)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"baseline":{"received":100,"latency_ms":{`, `"sdk_overhead_p50_ms":`, `"cpu_percent":`, `"load1":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
	if txt := r.Text(); !strings.Contains(txt, "SDK overhead (p50 minus the baseline's p50): ") || !strings.Contains(txt, "cpu of the bench process: ") {
		t.Errorf("text report:\n%s", txt)
	}
	// without the option: no baseline
	r = run(t, &benchtest.Fake{}, bench.Options{Rate: 500, Duration: 100 * time.Millisecond})
	if r.Baseline != nil || r.SDKOverheadP50 != nil {
		t.Errorf("baseline without Options.Baseline: %+v", r.Baseline)
	}
}
