// Package relayprom exports the polling relay's metrics to Prometheus
// (github.com/prometheus/client_golang); the relay package itself imports
// no Prometheus. `outboxctl relay --metrics-addr` serves them.
//
// New makes the Metrics; Add a Relay (its Stats are read at each scrape)
// and set Metrics.ObserveBatch as relay.Options.OnBatch for the batch
// duration histogram. The metrics, labelled with the outbox table:
//
//	outboxctl_relay_published_total        counter   rows published (acknowledged) and deleted or marked
//	outboxctl_relay_dropped_total          counter   rows the EventRouter drops
//	outboxctl_relay_failed_total           counter   failed publish attempts (rows kept)
//	outboxctl_relay_batches_total          counter   batches (polls) run
//	outboxctl_relay_batch_duration_seconds gauge     the last batch's duration
//	outboxctl_relay_oldest_pending_seconds gauge     age of the oldest unpublished row (timestamp column, else UUIDv7 id)
//	outboxctl_relay_leader                 gauge     1 when this relay holds the lock
//	outboxctl_relay_batch_seconds          histogram batch durations (new with this package)
//	outboxctl_relay_producer_restarts_total counter  producers recreated after an attempt that timed out locally (new)
//
// The first seven keep the names, types and labels of the former
// relay.WriteMetrics.
package relayprom

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/outboxctl/outboxctl/relay"
)

// Source is what the Metrics read of a relay; *relay.Relay is one.
type Source interface {
	Table() string
	Stats() relay.Stats
}

// Config configures New. The zero value is valid.
type Config struct {
	// Registerer registers the collectors (default: a new registry of the
	// Metrics' own, served by Handler).
	Registerer prometheus.Registerer
	// Namespace and Subsystem prefix the names (default "outboxctl" and
	// "relay").
	Namespace, Subsystem string
	// BatchBuckets are the batch histogram's buckets in seconds (default
	// 1 ms to about 16 s, doubling).
	BatchBuckets []float64
}

// Metrics collects the Stats of the relays added and the batch histogram.
// Safe for concurrent use.
type Metrics struct {
	published, dropped, failed, batches, lastBatch, oldest, leader *prometheus.Desc
	batch                                                          *prometheus.HistogramVec
	gatherer                                                       prometheus.Gatherer

	mu      sync.Mutex
	sources []Source

	restarts *prometheus.Desc // producer_restarts_total
}

// New creates the metrics and registers them with cfg.Registerer (or a
// registry of its own); a registration error is returned.
func New(cfg Config) (*Metrics, error) {
	if cfg.Namespace == "" {
		cfg.Namespace = "outboxctl"
	}
	if cfg.Subsystem == "" {
		cfg.Subsystem = "relay"
	}
	if cfg.BatchBuckets == nil {
		cfg.BatchBuckets = prometheus.ExponentialBuckets(0.001, 2, 15)
	}
	m := &Metrics{}
	if cfg.Registerer == nil {
		reg := prometheus.NewRegistry()
		cfg.Registerer, m.gatherer = reg, reg
	} else if g, ok := cfg.Registerer.(prometheus.Gatherer); ok {
		m.gatherer = g
	}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(cfg.Namespace, cfg.Subsystem, name), help, []string{"table"}, nil)
	}
	m.published = desc("published_total", "Outbox rows published (acknowledged by the broker) and deleted or marked.")
	m.dropped = desc("dropped_total", "Outbox rows the EventRouter drops (errors.tolerance=all), deleted unpublished.")
	m.failed = desc("failed_total", "Failed publish attempts; their rows stay and are retried.")
	m.restarts = desc("producer_restarts_total", "Kafka producers closed and recreated after a publish attempt whose records all failed locally (timed out) with nothing acknowledged.")
	m.batches = desc("batches_total", "Batches (polls) run.")
	m.lastBatch = desc("batch_duration_seconds", "Duration of the last batch.")
	m.oldest = desc("oldest_pending_seconds", "Age of the oldest unpublished row (the database's clock minus its timestamp column, else from the UUIDv7 id of the first row of the last batch).")
	m.leader = desc("leader", "1 when this relay holds the outbox lock and publishes.")
	m.batch = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: cfg.Namespace, Subsystem: cfg.Subsystem, Name: "batch_seconds",
		Help: "Durations of the batches (polls).", Buckets: cfg.BatchBuckets}, []string{"table"})
	for _, c := range []prometheus.Collector{statsCollector{m}, m.batch} {
		if err := cfg.Registerer.Register(c); err != nil {
			return nil, fmt.Errorf("relayprom: register: %w", err)
		}
	}
	return m, nil
}

// Add makes the Metrics report s's Stats. Every series of s's table
// exists from then on, at 0 before the first batch (the batch histogram
// too), so rate() and alerts see them from the start.
func (m *Metrics) Add(s Source) {
	m.batch.WithLabelValues(s.Table())
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sources = append(m.sources, s)
}

// ObserveBatch records one batch; it is relay.Options.OnBatch.
func (m *Metrics) ObserveBatch(table string, d time.Duration, _ int) {
	m.batch.WithLabelValues(table).Observe(d.Seconds())
}

// Handler serves the metrics: those of the Metrics' own registry, or of
// Config.Registerer when it is also a Gatherer; otherwise it answers 500.
func (m *Metrics) Handler() http.Handler {
	if m.gatherer == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "relayprom: the Registerer is not a Gatherer; serve it with promhttp", http.StatusInternalServerError)
		})
	}
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}

// statsCollector reads the sources' Stats at each scrape.
type statsCollector struct{ m *Metrics }

func (c statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.m.published, c.m.dropped, c.m.failed, c.m.restarts, c.m.batches, c.m.lastBatch, c.m.oldest, c.m.leader} {
		ch <- d
	}
}

func (c statsCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	sources := append([]Source(nil), c.m.sources...)
	c.m.mu.Unlock()
	for _, s := range sources {
		st, t := s.Stats(), s.Table()
		leader := 0.0
		if st.Leader {
			leader = 1
		}
		ch <- prometheus.MustNewConstMetric(c.m.published, prometheus.CounterValue, float64(st.Published), t)
		ch <- prometheus.MustNewConstMetric(c.m.dropped, prometheus.CounterValue, float64(st.Dropped), t)
		ch <- prometheus.MustNewConstMetric(c.m.failed, prometheus.CounterValue, float64(st.Failed), t)
		ch <- prometheus.MustNewConstMetric(c.m.restarts, prometheus.CounterValue, float64(st.ProducerRestarts), t)
		ch <- prometheus.MustNewConstMetric(c.m.batches, prometheus.CounterValue, float64(st.Batches), t)
		ch <- prometheus.MustNewConstMetric(c.m.lastBatch, prometheus.GaugeValue, st.LastBatch.Seconds(), t)
		ch <- prometheus.MustNewConstMetric(c.m.oldest, prometheus.GaugeValue, st.OldestPending.Seconds(), t)
		ch <- prometheus.MustNewConstMetric(c.m.leader, prometheus.GaugeValue, leader, t)
	}
}
