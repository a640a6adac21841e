//go:build integration

package relay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/relay/relayprom"
)

// syncBuffer is a bytes.Buffer safe for the relay's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestRelayLoggerAndMetrics: with Options.Logger the relay logs every
// published record with the table, the row's key and event id and the
// record's topic, partition and offset (the logattr keys), matching what is
// on the topic; relayprom, fed by Options.OnBatch and the Stats, serves the
// published count and one batch observation per batch over HTTP.
func TestRelayLoggerAndMetrics(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			ids := map[string]bool{}
			for i := range 3 {
				id := itest.UUID(t)
				ids[id] = true
				f.insert(f.db, id, "Order", fmt.Sprint("o-", i), `{}`)
			}
			var logs syncBuffer
			m, err := relayprom.New(relayprom.Config{})
			if err != nil {
				t.Fatal(err)
			}
			r := f.relay(relay.Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), OnBatch: m.ObserveBatch})
			m.Add(r)
			if err := r.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			recs := f.read(3)
			offsets := map[string]int64{} // event id -> offset
			for _, rec := range recs {
				offsets[header(rec, "id")] = int64(rec.TopicPartition.Offset)
			}
			n := 0
			sc := bufio.NewScanner(strings.NewReader(logs.String()))
			for sc.Scan() {
				var line map[string]any
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("log line %q: %v", sc.Text(), err)
				}
				if line["table"] != r.Table() {
					t.Errorf("log line without table %q: %s", r.Table(), sc.Text())
				}
				if !strings.HasSuffix(fmt.Sprint(line["msg"]), " published") {
					continue
				}
				n++
				id := fmt.Sprint(line["event_id"])
				off, ok := offsets[id]
				if !ok || !ids[id] {
					t.Errorf("published line for unknown event %q: %s", id, sc.Text())
					continue
				}
				if line["topic"] != f.topic || line["partition"] != float64(0) || line["offset"] != float64(off) || line["key"] == "" {
					t.Errorf("published line %s, want topic %s partition 0 offset %d", sc.Text(), f.topic, off)
				}
			}
			if n != 3 {
				t.Errorf("%d published lines, want 3:\n%s", n, logs.String())
			}
			srv := httptest.NewServer(m.Handler())
			defer srv.Close()
			resp, err := http.Get(srv.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			if _, err := body.ReadFrom(resp.Body); err != nil {
				t.Fatal(err)
			}
			label := `{table="` + r.Table() + `"}`
			st := r.Stats()
			for _, want := range []string{
				"outboxctl_relay_published_total" + label + " 3\n",
				fmt.Sprintf("outboxctl_relay_batches_total%s %d\n", label, st.Batches),
				fmt.Sprintf("outboxctl_relay_batch_seconds_count%s %d\n", label, st.Batches),
			} {
				if !strings.Contains(body.String(), want) {
					t.Errorf("metrics lack %q:\n%s", want, body.String())
				}
			}
		})
	}
}
