package exporter

import (
	"testing"
	"time"
)

// TestFlushTracker: with a fake clock, the stalled time counts from the
// first scrape that saw the current confirmed_flush_lsn while WAL waits
// past it, and restarts when the position moves or the slot catches up.
func TestFlushTracker(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	f := newFlushTracker()
	steps := []struct {
		slot, lsn string
		lag       int64
		at        time.Duration
		want      time.Duration
	}{
		{"a", "0/100", 10, 0, 0},                               // first sight
		{"a", "0/100", 50, 30 * time.Second, 30 * time.Second}, // stuck, WAL waits
		{"b", "0/900", 10, 30 * time.Second, 0},                // another slot is tracked apart
		{"a", "0/100", 90, 90 * time.Second, 90 * time.Second},
		{"a", "0/180", 40, 100 * time.Second, 0}, // advanced
		{"a", "0/180", 40, 160 * time.Second, time.Minute},
		{"a", "0/180", 0, 200 * time.Second, 0}, // caught up: idle, not stalled
		{"a", "0/180", 5, 210 * time.Second, 10 * time.Second},
		{"b", "0/900", 10, 210 * time.Second, 180 * time.Second},
		{"a", "0/180", 5, 200 * time.Second, 0}, // clock went back: never negative
	}
	for i, s := range steps {
		if got := f.observe(s.slot, s.lsn, s.lag, t0.Add(s.at)); got != s.want {
			t.Errorf("step %d (%s %s lag %d at %s): stalled %s, want %s", i, s.slot, s.lsn, s.lag, s.at, got, s.want)
		}
	}
}
