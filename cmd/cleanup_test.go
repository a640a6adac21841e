package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cleanup"
)

// TestWriteCleanupResult: the text report says only what is true (issue
// #24 item 13). A failed run does not claim a confirmation; a dry run the
// publisher did not confirm counts no row as deletable and says how many
// are not confirmed.
func TestWriteCleanupResult(t *testing.T) {
	cut := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		r         cleanup.Result
		want, not []string
	}{
		{"deleted", cleanup.Result{Outbox: "o", Cutoff: cut, SnapshotPosition: "0/10", ConfirmedPosition: "0/20", Confirmed: true, Deleted: 7, Batches: 1, WaitedMs: 12},
			[]string{"outbox o: deleted 7 rows created before 2026-12-04T12:00:00Z in 1 batches (snapshot 0/10 confirmed after 12 ms)"}, nil},
		{"not confirmed", cleanup.Result{Outbox: "o", Cutoff: cut, SnapshotPosition: "0/10", ConfirmedPosition: "0/5", WaitedMs: 15036,
			Error: "publisher has not confirmed the snapshot position: …; nothing deleted"},
			[]string{"outbox o: nothing deleted; stopped: publisher has not confirmed"}, []string{"confirmed after", "deleted 0 rows"}},
		{"not captured", cleanup.Result{Outbox: "o", Cutoff: cut, Error: "the connector does not capture the outbox table: outbox o: PG_SLOT_MISMATCH: …"},
			[]string{"outbox o: nothing deleted; stopped: the connector does not capture the outbox table"}, []string{"confirmed after"}},
		{"failed midway", cleanup.Result{Outbox: "o", Cutoff: cut, SnapshotPosition: "0/10", Confirmed: true, Deleted: 2000, Batches: 2, Error: "outbox o: delete: connection reset"},
			[]string{"outbox o: deleted 2000 rows created before 2026-12-04T12:00:00Z in 2 batches, then stopped: outbox o: delete: connection reset"}, []string{"confirmed after"}},
		{"partition dropped, then failed", cleanup.Result{Outbox: "o", Cutoff: cut, DroppedPartitions: []string{"p1"}, DetachRetries: 2, Error: "outbox o: detach partition p2: lock"},
			[]string{"outbox o: deleted 0 rows", "then stopped: outbox o: detach partition p2", "outbox o: dropped partitions p1", "outbox o: 2 partition detaches retried"}, nil},
		{"dry run confirmed", cleanup.Result{Outbox: "o", DryRun: true, Cutoff: cut, SnapshotPosition: "0/10", ConfirmedPosition: "0/20", Confirmed: true, Deleted: 108},
			[]string{"outbox o: would delete 108 rows created before 2026-12-04T12:00:00Z (snapshot 0/10 confirmed, publisher at 0/20)"}, nil},
		{"dry run not confirmed", cleanup.Result{Outbox: "o", DryRun: true, Cutoff: cut, SnapshotPosition: "0/10", Unconfirmed: 108, Error: "publisher has not confirmed …"},
			[]string{"outbox o: dry run: no row confirmed published; 108 rows created before 2026-12-04T12:00:00Z not confirmed (snapshot 0/10, publisher confirmed nothing); stopped: publisher has not confirmed"},
			[]string{"would delete"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeCleanupResult(&b, tc.r)
			out := b.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("report claims %q:\n%s", n, out)
				}
			}
		})
	}
}
