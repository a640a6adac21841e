package exporter

import (
	"sync"
	"time"
)

// flushTracker remembers, per slot, the confirmed_flush_lsn last seen and
// since when it has not moved, for outbox_pg_slot_confirmed_flush_stalled_seconds.
type flushTracker struct {
	mu    sync.Mutex
	slots map[string]flushSeen
}

type flushSeen struct {
	lsn   string
	since time.Time
}

func newFlushTracker() *flushTracker { return &flushTracker{slots: map[string]flushSeen{}} }

// observe records the slot's confirmed_flush_lsn and its lag in bytes at
// now, and returns how long the position has not advanced while there was
// WAL past it: 0 when it moved since the last scrape, when the slot is
// caught up (lagBytes 0: an idle database is not a stalled consumer) and
// on the first sight of the slot (the exporter cannot tell for how long
// it stood still before it started).
func (f *flushTracker) observe(slot, lsn string, lagBytes int64, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen, ok := f.slots[slot]
	if !ok || seen.lsn != lsn || lagBytes <= 0 {
		f.slots[slot] = flushSeen{lsn: lsn, since: now}
		return 0
	}
	if d := now.Sub(seen.since); d > 0 {
		return d
	}
	return 0
}
