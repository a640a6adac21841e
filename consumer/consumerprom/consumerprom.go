// Package consumerprom exports the consumer's metrics to Prometheus
// (github.com/prometheus/client_golang). It is the only consumer package
// that imports Prometheus: the consumer itself reports through the
// consumer.Observer interface and the ConsumerConfig.OnStatistics hook.
//
// Learn first: New, Metrics.ObserveRecord (set the Metrics as
// RouterConfig.Observer), Metrics.Declare (the series of the handled event
// types at 0 from the start) and Metrics.ObserveStatistics (set it as
// ConsumerConfig.OnStatistics, with statistics.interval.ms in
// ConsumerConfig.Kafka). It serves no HTTP itself beyond Metrics.Handler,
// and it never registers in the global Prometheus registry unless you pass
// prometheus.DefaultRegisterer.
//
// The metrics, with namespace "outboxctl" and subsystem "consumer" by
// default:
//
//	outboxctl_consumer_processed_total{topic,event_type}         handled (handler succeeded, inbox committed)
//	outboxctl_consumer_failed_total{topic,event_type}            Process returned an error (delivered again, or stop)
//	outboxctl_consumer_retried_total{topic,event_type}           handler runs again (Retry middleware)
//	outboxctl_consumer_dead_lettered_total{topic,event_type}     written to the dead-letter topic
//	outboxctl_consumer_duplicates_total{topic,event_type}        skipped by the inbox (already processed)
//	outboxctl_consumer_unknown_skipped_total{topic,event_type}   no handler, skipped (UnknownSkip)
//	outboxctl_consumer_inbox_timeouts_total{topic,event_type,step} inbox transaction past InboxTimeout (database stalled)
//	outboxctl_consumer_handler_duration_seconds{topic,event_type} histogram of handler calls
//	outboxctl_consumer_event_age_seconds{topic,event_type}       histogram of handling time minus record timestamp
//	outboxctl_consumer_lag{topic,partition}                      librdkafka consumer_lag (high watermark minus committed offset)
package consumerprom

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/outboxctl/outboxctl/consumer"
)

// Config configures New. The zero value is valid.
type Config struct {
	// Registerer registers the collectors (default: a new registry of the
	// Metrics' own, served by Handler).
	Registerer prometheus.Registerer
	// Namespace and Subsystem prefix the metric names (default
	// "outboxctl" and "consumer").
	Namespace, Subsystem string
	// ConstLabels are added to every metric (for example the group id).
	ConstLabels prometheus.Labels
	// DurationBuckets are the handler duration histogram's buckets in
	// seconds (default prometheus.DefBuckets).
	DurationBuckets []float64
	// AgeBuckets are the event age histogram's buckets in seconds
	// (default 1 ms to about 65 s, doubling).
	AgeBuckets []float64
	// Now is the clock for the event age (default time.Now).
	Now func() time.Time
}

// Metrics is a consumer.Observer that counts into Prometheus collectors.
// Safe for concurrent use; one Metrics may serve several Routers and
// Consumers.
type Metrics struct {
	processed, failed, retried, deadLettered, duplicates, unknownSkipped *prometheus.CounterVec
	inboxTimeouts                                                        *prometheus.CounterVec
	duration, age                                                        *prometheus.HistogramVec
	lag                                                                  *prometheus.GaugeVec

	gatherer prometheus.Gatherer
	now      func() time.Time

	mu      sync.Mutex
	lagSeen map[lagKey]bool // series of the lag gauge set by the last statistics
}

type lagKey struct {
	topic     string
	partition string
}

var _ consumer.Observer = (*Metrics)(nil)

// New creates the collectors and registers them with cfg.Registerer (or a
// registry of its own). A registration error (such as a second Metrics with
// the same names on one Registerer) is returned.
func New(cfg Config) (*Metrics, error) {
	if cfg.Namespace == "" {
		cfg.Namespace = "outboxctl"
	}
	if cfg.Subsystem == "" {
		cfg.Subsystem = "consumer"
	}
	if cfg.DurationBuckets == nil {
		cfg.DurationBuckets = prometheus.DefBuckets
	}
	if cfg.AgeBuckets == nil {
		cfg.AgeBuckets = prometheus.ExponentialBuckets(0.001, 2, 17)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &Metrics{now: cfg.Now, lagSeen: map[lagKey]bool{}}
	if cfg.Registerer == nil {
		reg := prometheus.NewRegistry()
		cfg.Registerer, m.gatherer = reg, reg
	} else if g, ok := cfg.Registerer.(prometheus.Gatherer); ok {
		m.gatherer = g
	}
	labels := []string{"topic", "event_type"}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: cfg.Namespace, Subsystem: cfg.Subsystem, Name: name, Help: help, ConstLabels: cfg.ConstLabels}, labels)
	}
	m.processed = counter("processed_total", "Records handled: the handler succeeded and its inbox transaction committed.")
	m.failed = counter("failed_total", "Records whose processing failed; they are delivered again (or the consumer stops at them).")
	m.retried = counter("retried_total", "Handler runs retried by the Retry middleware.")
	m.deadLettered = counter("dead_lettered_total", "Records written to the dead-letter topic.")
	m.duplicates = counter("duplicates_total", "Records the inbox skipped as already processed.")
	m.unknownSkipped = counter("unknown_skipped_total", "Records without a handler, skipped (UnknownSkip).")
	m.inboxTimeouts = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: cfg.Namespace, Subsystem: cfg.Subsystem, Name: "inbox_timeouts_total",
		Help: "Inbox transactions that did not end within the Router's InboxTimeout (a database that does not answer), by the step they were in; the record is run again.", ConstLabels: cfg.ConstLabels}, []string{"topic", "event_type", "step"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: cfg.Namespace, Subsystem: cfg.Subsystem, Name: "handler_duration_seconds",
		Help: "Duration of handler calls (each attempt).", ConstLabels: cfg.ConstLabels, Buckets: cfg.DurationBuckets}, labels)
	m.age = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: cfg.Namespace, Subsystem: cfg.Subsystem, Name: "event_age_seconds",
		Help: "End-to-end age of handled records: handling time minus the record timestamp.", ConstLabels: cfg.ConstLabels, Buckets: cfg.AgeBuckets}, labels)
	m.lag = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: cfg.Namespace, Subsystem: cfg.Subsystem, Name: "lag",
		Help: "Consumer lag per partition from librdkafka statistics: high watermark minus committed offset.", ConstLabels: cfg.ConstLabels}, []string{"topic", "partition"})
	for _, c := range []prometheus.Collector{m.processed, m.failed, m.retried, m.deadLettered, m.duplicates, m.unknownSkipped, m.inboxTimeouts, m.duration, m.age, m.lag} {
		if err := cfg.Registerer.Register(c); err != nil {
			return nil, fmt.Errorf("consumerprom: register: %w", err)
		}
	}
	return m, nil
}

// Handler serves the metrics in the Prometheus exposition format: those of
// the Metrics' own registry, or of Config.Registerer when it is also a
// Gatherer (a *prometheus.Registry is). Otherwise it answers 500; serve
// your registry with promhttp yourself.
func (m *Metrics) Handler() http.Handler {
	if m.gatherer == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "consumerprom: the Registerer is not a Gatherer; serve it with promhttp", http.StatusInternalServerError)
		})
	}
	return promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
}

// Declare creates the series of event types eventTypes on topic at 0, so
// that they exist from the start (rate() and alerts on "no record handled"
// see them before the first increment). Call it once per subscribed topic
// with the event types the Router handles, for example with
// schemas.Catalog.Topics and the spec's event types.
func (m *Metrics) Declare(topic string, eventTypes ...string) {
	for _, typ := range eventTypes {
		for _, c := range []*prometheus.CounterVec{m.processed, m.failed, m.retried, m.deadLettered, m.duplicates, m.unknownSkipped} {
			c.WithLabelValues(topic, typ)
		}
		m.duration.WithLabelValues(topic, typ)
		m.age.WithLabelValues(topic, typ)
	}
}

// ObserveRecord implements consumer.Observer.
func (m *Metrics) ObserveRecord(_ context.Context, msg *consumer.Message, o consumer.Observation) {
	lv := []string{msg.Topic, msg.Meta.EventType}
	switch o.Kind {
	case consumer.ObservedHandlerCall:
		m.duration.WithLabelValues(lv...).Observe(o.Elapsed.Seconds())
	case consumer.ObservedHandled:
		m.processed.WithLabelValues(lv...).Inc()
		if !msg.Timestamp.IsZero() {
			m.age.WithLabelValues(lv...).Observe(m.now().Sub(msg.Timestamp).Seconds())
		}
	case consumer.ObservedDuplicate:
		m.duplicates.WithLabelValues(lv...).Inc()
	case consumer.ObservedUnknownSkipped:
		m.unknownSkipped.WithLabelValues(lv...).Inc()
	case consumer.ObservedDeadLettered:
		m.deadLettered.WithLabelValues(lv...).Inc()
	case consumer.ObservedRetried:
		m.retried.WithLabelValues(lv...).Inc()
	case consumer.ObservedFailed:
		m.failed.WithLabelValues(lv...).Inc()
	case consumer.ObservedInboxTimeout:
		m.inboxTimeouts.WithLabelValues(msg.Topic, msg.Meta.EventType, o.Step).Inc()
	}
}

// ObserveStatistics reads librdkafka's statistics JSON (a consumer's, see
// ConsumerConfig.OnStatistics) and sets the lag gauge of every partition
// whose consumer_lag is known; a partition that is no longer reported
// (revoked) loses its series. Statistics that do not parse are ignored
// (they come from librdkafka, not from the records). Use one Metrics per
// Consumer for the lag, or Consumers with distinct topics.
func (m *Metrics) ObserveStatistics(stats string) {
	lags, err := ParseLag(stats)
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := make(map[lagKey]bool, len(lags))
	for _, l := range lags {
		k := lagKey{l.Topic, strconv.Itoa(int(l.Partition))}
		seen[k] = true
		m.lag.WithLabelValues(k.topic, k.partition).Set(float64(l.Lag))
	}
	for k := range m.lagSeen {
		if !seen[k] {
			m.lag.DeleteLabelValues(k.topic, k.partition)
		}
	}
	m.lagSeen = seen
}

// PartitionLag is one partition's consumer lag from librdkafka statistics.
type PartitionLag struct {
	Topic     string
	Partition int32
	Lag       int64
}

// ParseLag reads the consumer_lag of every partition from librdkafka's
// statistics JSON (topics.<t>.partitions.<p>.consumer_lag). Partitions
// whose lag is unknown (-1: not assigned, or no committed offset yet) and
// the internal partition -1 are left out.
func ParseLag(stats string) ([]PartitionLag, error) {
	var s struct {
		Topics map[string]struct {
			Partitions map[string]struct {
				Partition   int32 `json:"partition"`
				ConsumerLag int64 `json:"consumer_lag"`
			} `json:"partitions"`
		} `json:"topics"`
	}
	if err := json.Unmarshal([]byte(stats), &s); err != nil {
		return nil, fmt.Errorf("consumerprom: librdkafka statistics: %w", err)
	}
	var out []PartitionLag
	for topic, t := range s.Topics {
		for _, p := range t.Partitions {
			if p.Partition < 0 || p.ConsumerLag < 0 {
				continue
			}
			out = append(out, PartitionLag{Topic: topic, Partition: p.Partition, Lag: p.ConsumerLag})
		}
	}
	return out, nil
}
