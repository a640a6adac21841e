//go:build integration

package relay_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/relay"
)

// uuidV7At is a UUIDv7 made by a writer whose clock reads at.
func uuidV7At(at time.Time) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ms := uint64(at.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

var seqRe = regexp.MustCompile(`"seq": ?(\d+)`)

// Two writers, one whose clock runs 50 ms ahead, write the events of the
// same aggregates concurrently, taking turns per aggregate (seq n is
// committed by one writer before the other writes seq n+1). The relay
// publishes each aggregate's events in commit order: the order does not
// depend on the writers' clocks (their UUIDv7 ids), but on the
// database-assigned order (PostgreSQL: transaction id and sequence;
// MariaDB: AUTO_INCREMENT).
func TestRelayOrderIndependentOfWriterClocks(t *testing.T) {
	const aggs, perAgg = 6, 10
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			skew := [2]time.Duration{50 * time.Millisecond, 0} // writer 0's clock runs ahead
			var mu sync.Mutex
			next := make([]int, aggs) // the next seq of each aggregate, from 0
			var wg sync.WaitGroup
			for w := 0; w < 2; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					conn, err := f.db.Conn(context.Background()) // one session per writer
					if err != nil {
						t.Error(err)
						return
					}
					defer conn.Close()
					for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
						left := false
						for g := 0; g < aggs; g++ {
							mu.Lock()
							n := next[g]
							mu.Unlock()
							if n < perAgg {
								left = true
							}
							if n >= perAgg || n%2 != w {
								continue
							}
							id := uuidV7At(time.Now().Add(skew[w]))
							ph := "$1, 'Order', $2, 'T', $3"
							if sd.name != "postgres" {
								ph = "?, 'Order', ?, 'T', ?"
							}
							if _, err := conn.ExecContext(context.Background(), "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES ("+ph+")",
								id, fmt.Sprint("agg-", g), fmt.Sprintf(`{"seq": %d}`, n)); err != nil {
								t.Error(err)
								return
							}
							mu.Lock()
							next[g]++ // committed (autocommit): the other writer's turn
							mu.Unlock()
						}
						if !left {
							return
						}
						time.Sleep(time.Millisecond)
					}
					t.Error("writers did not finish in 30s")
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			r := f.relay(relay.Options{})
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			last := map[string]int{}
			violations := 0
			for _, m := range f.read(aggs * perAgg) {
				sm := seqRe.FindStringSubmatch(string(m.Value))
				if sm == nil {
					t.Fatalf("value %q has no seq", m.Value)
				}
				n, _ := strconv.Atoi(sm[1])
				k := string(m.Key)
				if p, ok := last[k]; ok && n != p+1 || !ok && n != 0 {
					violations++
					if violations <= 5 {
						t.Errorf("aggregate %s: seq %d published after %v, want commit order", k, n, map[bool]any{true: last[k], false: "none"}[ok])
					}
				}
				last[k] = n
			}
			if violations > 0 {
				t.Errorf("%d order violations in %d records", violations, aggs*perAgg)
			}
		})
	}
}

// The oldest-pending age does not need a UUIDv7 id: with a timestamp column
// (table.field.event.timestamp) it is the database's clock minus the oldest
// row's timestamp. A row with a UUIDv4 id written 5 minutes ago is 5
// minutes old, not 0.
func TestRelayOldestPendingWithoutUUIDv7(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, map[string]string{"transforms.outbox.table.field.event.timestamp": "created_at"})
			var b [16]byte
			_, _ = rand.Read(b[:])
			b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
			id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
			q := `INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at) VALUES ($1, 'Order', '1', 'T', '{}', (now() AT TIME ZONE 'UTC') - interval '5 minutes')`
			if sd.name != "postgres" {
				q = `INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, created_at) VALUES (?, 'Order', '1', 'T', '{}', UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE)`
			}
			if _, err := f.db.Exec(q, id); err != nil {
				t.Fatal(err)
			}
			r := f.relay(relay.Options{})
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := r.Stats().OldestPending; got < 4*time.Minute+50*time.Second || got > 6*time.Minute {
				t.Errorf("OldestPending %s for a UUIDv4 row written 5 minutes ago, want about 5m", got)
			}
		})
	}
}
