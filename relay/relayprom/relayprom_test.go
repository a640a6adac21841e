package relayprom_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/relay/relayprom"
)

type fakeRelay struct {
	mu    sync.Mutex
	table string
	st    relay.Stats
}

func (f *fakeRelay) Table() string { return f.table }

func (f *fakeRelay) Stats() relay.Stats { f.mu.Lock(); defer f.mu.Unlock(); return f.st }

// TestMetricsNamesStable: the names, types and labels that
// relay.WriteMetrics wrote, read at scrape time, plus the histogram.
func TestMetricsNamesStable(t *testing.T) {
	m, err := relayprom.New(relayprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRelay{table: `public.out"box`, st: relay.Stats{Published: 7, Dropped: 1, Failed: 2, ProducerRestarts: 4, Batches: 3, LastBatch: 1500 * time.Millisecond, OldestPending: 2 * time.Second, Leader: true}}
	m.Add(r)
	m.ObserveBatch(r.table, 3*time.Millisecond, 10)
	m.ObserveBatch(r.table, 5*time.Millisecond, 0)
	body := scrape(t, m)
	for _, want := range []string{
		"# TYPE outboxctl_relay_published_total counter\noutboxctl_relay_published_total{table=\"public.out\\\"box\"} 7\n",
		"# TYPE outboxctl_relay_dropped_total counter\noutboxctl_relay_dropped_total{table=\"public.out\\\"box\"} 1\n",
		"# TYPE outboxctl_relay_failed_total counter\noutboxctl_relay_failed_total{table=\"public.out\\\"box\"} 2\n",
		"# TYPE outboxctl_relay_producer_restarts_total counter\noutboxctl_relay_producer_restarts_total{table=\"public.out\\\"box\"} 4\n",
		"# TYPE outboxctl_relay_batches_total counter\noutboxctl_relay_batches_total{table=\"public.out\\\"box\"} 3\n",
		"# TYPE outboxctl_relay_batch_duration_seconds gauge\noutboxctl_relay_batch_duration_seconds{table=\"public.out\\\"box\"} 1.5\n",
		"# TYPE outboxctl_relay_oldest_pending_seconds gauge\noutboxctl_relay_oldest_pending_seconds{table=\"public.out\\\"box\"} 2\n",
		"# TYPE outboxctl_relay_leader gauge\noutboxctl_relay_leader{table=\"public.out\\\"box\"} 1\n",
		"outboxctl_relay_batch_seconds_count{table=\"public.out\\\"box\"} 2\n",
		"outboxctl_relay_batch_seconds_sum{table=\"public.out\\\"box\"} 0.008\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	// Read at scrape time: a later Stats shows.
	r.mu.Lock()
	r.st.Published, r.st.Leader = 9, false
	r.mu.Unlock()
	body = scrape(t, m)
	if !strings.Contains(body, "outboxctl_relay_published_total{table=\"public.out\\\"box\"} 9\n") || !strings.Contains(body, "outboxctl_relay_leader{table=\"public.out\\\"box\"} 0\n") {
		t.Errorf("second scrape:\n%s", body)
	}
}

func scrape(t *testing.T, m *relayprom.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// TestSeriesAtZeroFromTheStart (#28 item 5): once a relay is added, every
// series of its table exists at 0 before the first batch, the histogram
// included, so rate() and "no batch" alerts see them from the start.
func TestSeriesAtZeroFromTheStart(t *testing.T) {
	m, err := relayprom.New(relayprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m.Add(&fakeRelay{table: "public.outbox"})
	body := scrape(t, m)
	for _, want := range []string{
		`outboxctl_relay_published_total{table="public.outbox"} 0`,
		`outboxctl_relay_dropped_total{table="public.outbox"} 0`,
		`outboxctl_relay_failed_total{table="public.outbox"} 0`,
		`outboxctl_relay_producer_restarts_total{table="public.outbox"} 0`,
		`outboxctl_relay_batches_total{table="public.outbox"} 0`,
		`outboxctl_relay_leader{table="public.outbox"} 0`,
		`outboxctl_relay_batch_seconds_count{table="public.outbox"} 0`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("metrics lack %q before the first batch:\n%s", want, body)
		}
	}
}
