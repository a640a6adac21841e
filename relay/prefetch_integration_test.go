//go:build integration

package relay_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
)

// TestRelayPrefetchExcludesInFlight: after a full batch is produced, the
// relay reads the next batch (read-ahead) while the broker acknowledges the
// first, from the first batch's last row: the rows in flight are not read
// again, so every row is published exactly once, in order per aggregate
// (here the total order), and deleted. The windows run in this order for
// every full batch: read-ahead, acked, delete; the last (short) batch has
// no read-ahead.
func TestRelayPrefetchExcludesInFlight(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			const n = 10
			var ids []string
			for i := range n {
				id := itest.UUID(t)
				ids = append(ids, id)
				f.insert(f.db, id, "Order", fmt.Sprint("o-", i%3), fmt.Sprintf(`{"n": %d}`, i))
			}
			r := f.relay(relay.Options{Batch: 3})
			var mu sync.Mutex
			var points []string
			relay.SetTestHook(r, func(p string) {
				mu.Lock()
				points = append(points, p)
				mu.Unlock()
			})
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got := strings.Join(points, " ")
			mu.Unlock()
			want := strings.Join(slices.Concat(
				[]string{"read-ahead", "acked", "delete"}, []string{"read-ahead", "acked", "delete"}, []string{"read-ahead", "acked", "delete"},
				[]string{"acked", "delete"}), " ")
			if got != want {
				t.Errorf("windows\n got %s\nwant %s", got, want)
			}
			if c := f.count(); c != 0 {
				t.Errorf("%d rows left, want 0", c)
			}
			if st := r.Stats(); st.Published != n || st.Batches != 4 {
				t.Errorf("stats %+v: want %d published in 4 batches", st, n)
			}
			rd := itest.NewReader(t, f.boot, f.topic)
			for i := range n {
				m := rd.Next(30 * time.Second)
				if m == nil {
					t.Fatalf("got %d of %d records", i, n)
				}
				if id := header(m, "id"); id != ids[i] {
					t.Errorf("record %d: id %s, want %s (once each, in order)", i, id, ids[i])
				}
			}
			if m := rd.Next(2 * time.Second); m != nil {
				t.Errorf("an extra record %s: a row in flight was read ahead", header(m, "id"))
			}
		})
	}
}
