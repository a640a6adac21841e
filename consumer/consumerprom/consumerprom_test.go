package consumerprom_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

type order struct {
	ID string `json:"id"`
}

func record(topic string, off int64, id, typ string, ts time.Time) *consumer.Message {
	return &consumer.Message{Topic: topic, Offset: off, Key: []byte("k"), Value: []byte(`{"id":"` + id + `"}`), Timestamp: ts,
		Headers: []consumer.Header{{Key: "id", Value: []byte(id)}, {Key: "eventType", Value: []byte(typ)}, {Key: "schemaVersion", Value: []byte("1")}}}
}

// TestMetricsCountOutcomes runs a known workload through a Router with an
// inbox, Retry and a DLQ and checks every counter and histogram.
func TestMetricsCountOutcomes(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	reg := prometheus.NewRegistry()
	m, err := consumerprom.New(consumerprom.Config{Registerer: reg, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	in := consumertest.NewInbox()
	defer in.Close()
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g", Observer: m, Unknown: consumer.UnknownSkip})
	if err != nil {
		t.Fatal(err)
	}
	dlq := &consumertest.Producer{}
	if err := r.Use(consumer.DLQ{Topic: "dlq", Producer: dlq}.Middleware, consumer.Retry{MaxAttempts: 3}.Middleware); err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(r, "OrderPlaced", 1, func(_ context.Context, ev consumer.Event[order]) error {
		if strings.HasPrefix(ev.Payload.ID, "bad") {
			return errors.New("poison")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ts := now.Add(-2 * time.Second)
	var recs []*consumer.Message
	for i, id := range []string{"a", "b", "c", "bad1", "a", "b"} { // 3 handled, 1 dead-lettered, 2 duplicates
		recs = append(recs, record("orders", int64(i), id, "OrderPlaced", ts))
	}
	recs = append(recs, record("orders", 6, "u1", "Nobody", ts), record("orders", 7, "u2", "Nobody", ts))
	for _, err := range consumertest.Run(context.Background(), r, recs...) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		metric, typ string
		want        float64
	}{
		{"outboxctl_consumer_processed_total", "OrderPlaced", 3},
		{"outboxctl_consumer_dead_lettered_total", "OrderPlaced", 1},
		{"outboxctl_consumer_retried_total", "OrderPlaced", 2},
		{"outboxctl_consumer_duplicates_total", "OrderPlaced", 2},
		{"outboxctl_consumer_unknown_skipped_total", "Nobody", 2},
		{"outboxctl_consumer_failed_total", "OrderPlaced", 0},
	} {
		got := counterValue(t, reg, c.metric, map[string]string{"topic": "orders", "event_type": c.typ})
		if got != c.want {
			t.Errorf("%s{event_type=%q} = %v, want %v", c.metric, c.typ, got, c.want)
		}
	}
	// 3 successful calls + 3 attempts of bad1.
	if n := histogramCount(t, reg, "outboxctl_consumer_handler_duration_seconds"); n != 6 {
		t.Errorf("handler duration count = %d, want 6", n)
	}
	if n, sum := histogramCountSum(t, reg, "outboxctl_consumer_event_age_seconds"); n != 3 || sum != 6 {
		t.Errorf("event age count, sum = %d, %v, want 3, 6 (2 s each)", n, sum)
	}
	if got := len(dlq.Records()); got != 1 {
		t.Errorf("dead-letter records = %d, want 1", got)
	}
	if st := r.Stats(); st.Handled != 3 || st.Duplicates != 2 || st.UnknownSkipped != 2 || st.DeadLettered != 1 {
		t.Errorf("Stats = %+v, disagrees with the metrics", st)
	}
}

// TestMetricsFailed: a record that fails without a DLQ counts as failed
// once per Process call.
func TestMetricsFailed(t *testing.T) {
	m, err := consumerprom.New(consumerprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := consumer.NewRouter(consumer.RouterConfig{Observer: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(r, "T", 1, func(context.Context, consumer.Event[order]) error { return errors.New("boom") }); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := r.Process(context.Background(), record("t", 0, "x", "T", time.Time{})); err == nil {
			t.Fatal("Process = nil, want the handler's error")
		}
	}
	body := scrape(t, m)
	if !strings.Contains(body, `outboxctl_consumer_failed_total{event_type="T",topic="t"} 2`) {
		t.Errorf("scrape lacks failed_total 2:\n%s", body)
	}
	if strings.Contains(body, "outboxctl_consumer_event_age_seconds_count") {
		t.Errorf("event age observed without a handled record:\n%s", body)
	}
}

func TestNewTwiceOnOneRegistererFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := consumerprom.New(consumerprom.Config{Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := consumerprom.New(consumerprom.Config{Registerer: reg}); err == nil {
		t.Fatal("second New on one registry = nil error, want a registration error")
	}
	// With another subsystem, two consumers share a registry.
	if _, err := consumerprom.New(consumerprom.Config{Registerer: reg, Subsystem: "billing"}); err != nil {
		t.Fatalf("New with another subsystem: %v", err)
	}
}

// statsJSON is the shape of librdkafka's consumer statistics (trimmed).
const statsJSON = `{"name":"rdkafka#consumer-1","type":"consumer","topics":{
 "orders":{"topic":"orders","partitions":{
   "0":{"partition":0,"committed_offset":7,"hi_offset":10,"consumer_lag":3},
   "1":{"partition":1,"committed_offset":-1001,"hi_offset":4,"consumer_lag":-1},
   "2":{"partition":2,"committed_offset":5,"hi_offset":5,"consumer_lag":0},
   "-1":{"partition":-1,"consumer_lag":-1}}}}}`

func TestParseLag(t *testing.T) {
	lags, err := consumerprom.ParseLag(statsJSON)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32]int64{}
	for _, l := range lags {
		if l.Topic != "orders" {
			t.Errorf("topic %q", l.Topic)
		}
		got[l.Partition] = l.Lag
	}
	if len(got) != 2 || got[0] != 3 || got[2] != 0 {
		t.Errorf("lags = %v, want partition 0: 3, 2: 0 (1 and -1 unknown)", got)
	}
	if _, err := consumerprom.ParseLag("{"); err == nil {
		t.Error("ParseLag of bad JSON = nil error")
	}
}

func TestObserveStatisticsDropsRevokedPartitions(t *testing.T) {
	m, err := consumerprom.New(consumerprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveStatistics(statsJSON)
	body := scrape(t, m)
	for _, want := range []string{`outboxctl_consumer_lag{partition="0",topic="orders"} 3`, `outboxctl_consumer_lag{partition="2",topic="orders"} 0`} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s:\n%s", want, body)
		}
	}
	m.ObserveStatistics(`{"topics":{"orders":{"partitions":{"2":{"partition":2,"consumer_lag":1}}}}}`)
	body = scrape(t, m)
	if strings.Contains(body, `partition="0"`) || !strings.Contains(body, `outboxctl_consumer_lag{partition="2",topic="orders"} 1`) {
		t.Errorf("after partition 0 was revoked:\n%s", body)
	}
	m.ObserveStatistics("not json") // ignored
	if body2 := scrape(t, m); body2 != body {
		t.Errorf("bad statistics changed the metrics")
	}
}

func scrape(t *testing.T, m *consumerprom.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

func counterValue(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, mt := range mf.GetMetric() {
			for _, lp := range mt.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue next
				}
			}
			return mt.GetCounter().GetValue()
		}
	}
	return 0
}

func histogramCount(t *testing.T, g prometheus.Gatherer, name string) uint64 {
	n, _ := histogramCountSum(t, g, name)
	return n
}

func histogramCountSum(t *testing.T, g prometheus.Gatherer, name string) (uint64, float64) {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, mt := range mf.GetMetric() {
				n += mt.GetHistogram().GetSampleCount()
				sum += mt.GetHistogram().GetSampleSum()
			}
		}
	}
	return n, sum
}

// TestMetricsInboxTimeout: an inbox transaction that outlives the Router's
// InboxTimeout counts in inbox_timeouts_total with its step, and as failed.
func TestMetricsInboxTimeout(t *testing.T) {
	m, err := consumerprom.New(consumerprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	in := consumertest.NewInbox()
	defer in.Close()
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g", Observer: m, InboxTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(r, "T", 1, func(ctx context.Context, _ consumer.Event[order]) error {
		<-ctx.Done() // a statement that gets no answer
		return ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	err = r.Process(context.Background(), record("t", 0, "x", "T", time.Time{}))
	if !errors.Is(err, consumer.ErrInboxTimeout) || !consumer.IsTransient(err) {
		t.Fatalf("Process = %v, want a transient ErrInboxTimeout", err)
	}
	body := scrape(t, m)
	for _, want := range []string{
		`outboxctl_consumer_inbox_timeouts_total{event_type="T",step="handler",topic="t"} 1`,
		`outboxctl_consumer_failed_total{event_type="T",topic="t"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s:\n%s", want, body)
		}
	}
}

// TestDeclareStartsSeriesAtZero (#28 item 5): declared event types have
// their series from the start, at 0, not after their first increment.
func TestDeclareStartsSeriesAtZero(t *testing.T) {
	m, err := consumerprom.New(consumerprom.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m.Declare("orders", "OrderCreated", "OrderPaid")
	out := scrape(t, m)
	for _, name := range []string{"processed_total", "failed_total", "retried_total", "dead_lettered_total", "duplicates_total", "unknown_skipped_total"} {
		for _, typ := range []string{"OrderCreated", "OrderPaid"} {
			want := `outboxctl_consumer_` + name + `{event_type="` + typ + `",topic="orders"} 0`
			if !strings.Contains(out, want) {
				t.Errorf("scrape lacks %s", want)
			}
		}
	}
	for _, want := range []string{
		`outboxctl_consumer_handler_duration_seconds_count{event_type="OrderCreated",topic="orders"} 0`,
		`outboxctl_consumer_event_age_seconds_count{event_type="OrderPaid",topic="orders"} 0`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
}
