package exporter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// Target kinds: the value of the target label.
const (
	TargetDatabase = "database"
	TargetConnect  = "connect"
	TargetBinlog   = "binlog"
	TargetKafka    = "kafka"
)

// StateNotFound is the connector state series set when Connect does not
// know the connector.
const StateNotFound = "NOT_FOUND"

// ConnectorStates are the states that outbox_connector_state and
// outbox_connector_task_state have one series each for.
var ConnectorStates = []string{connect.StateUnassigned, connect.StateRunning, connect.StatePaused, connect.StateStopped,
	connect.StateFailed, connect.StateRestarting, StateNotFound}

// WalStatuses are the wal_status values of pg_replication_slots.
var WalStatuses = []string{"reserved", "extended", "unreserved", "lost"}

// DefaultTimeout bounds a scrape when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Reasons of outbox_target_error: why a target failed in the last scrape.
const (
	// ReasonTimeout: the target did not answer within the scrape's bound.
	ReasonTimeout = "timeout"
	// ReasonUnreachable: the connection was refused, reset or not routed,
	// or the host name does not resolve.
	ReasonUnreachable = "unreachable"
	// ReasonAuth: the server refused the credentials or the privileges.
	ReasonAuth = "auth"
	// ReasonMissing: the outbox table does not exist, a consumer group
	// of Config.Groups has no committed offset (it does not exist), or the
	// outbox has no DSN to read its database with (Target.Err wraps
	// ErrNoDSN).
	ReasonMissing = "missing"
	// ReasonConfig: the outbox could not be resolved (Target.Err: a
	// reference that does not resolve, an invalid connection).
	ReasonConfig = "config"
	// ReasonError: any other failure.
	ReasonError = "error"
)

// ErrNoDSN: the exporter has no DSN for an outbox's database (the
// connector's config names no host, or its password is a Kafka Connect
// config provider reference only Connect resolves). A Target.Err wrapping
// it is reason missing.
var ErrNoDSN = errors.New("no database DSN for the outbox")

// Reasons are the values of outbox_target_error's reason label.
var Reasons = []string{ReasonTimeout, ReasonUnreachable, ReasonAuth, ReasonMissing, ReasonConfig, ReasonError}

// ScrapeTimeoutHeader is the header in which Prometheus sends its
// scrape_timeout, in seconds.
const ScrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// Target is one outbox to export.
type Target struct {
	Outbox *spec.Outbox
	// DB is the outbox's database (PostgreSQL: connected to the outbox's
	// database). Nil skips the database series.
	DB *sql.DB
	// Slot is the PostgreSQL replication slot (the connector's slot.name).
	Slot string
	// Connector is the connector's name on Kafka Connect; "" when the
	// polling relay publishes the outbox.
	Connector string
	// Err, when set, is why the outbox could not be resolved (its DSN, a
	// reference): the outbox is exported as a database target that is
	// down with reason config (missing when Err wraps ErrNoDSN), and the
	// other outboxes are not affected.
	Err error
}

// Config is what a Collector exports.
type Config struct {
	Targets []Target
	// Connect is the Kafka Connect client (nil: no connector and binlog
	// series).
	Connect *connect.Client
	// Kafka reads consumer group offsets (nil: no lag series).
	Kafka provisioning.LagAdmin
	// Groups are the consumer groups whose lag is exported. Each has
	// outbox_consumer_group_max_lag{,_seconds} from the first scrape, NaN
	// while it has no committed offset (a misspelt or missing group), and
	// its Kafka target is down with reason missing.
	Groups []string
	// GroupOutbox is the outbox label of a group's series (the outbox
	// whose spec declares the group under consumers; "" for the others).
	GroupOutbox map[string]string
	// Records reads the timestamps of the records at the committed offsets
	// for the lag in seconds (nil: no seconds series); a zero time is a
	// partition with no record past the offset (0 seconds).
	Records RecordTimes
	// Timeout bounds each scrape (default DefaultTimeout). Handler bounds
	// a scrape by Prometheus's scrape timeout too, when it is shorter.
	Timeout time.Duration
	// MaxOldestRowAge is the age the oldest row of an outbox that keeps
	// rows after publishing may reach: cleanup's retention plus its
	// schedule, doctor's --max-oldest-row-age (default
	// provisioning.DefaultMaxOldestRowAge), for the outboxes whose spec
	// declares no retention (provisioning.OldestRowLimit). Exported as
	// outbox_retention_seconds for the OutboxKeptRowTooOld alert.
	MaxOldestRowAge time.Duration
	// Probes are the canaries RunProbes runs (one per outbox; verify's
	// with exporterkafka.Probe) every ProbeInterval; their results are
	// exported as outbox_canary_*. None: no prober.
	Probes []Probe
	// ProbeInterval is the time between two rounds of Probes (required
	// with Probes).
	ProbeInterval time.Duration
	// Logger logs each target's change of state (failing with its reason,
	// recovered), once per change (nil: no log).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Validate reports a config the collector cannot run.
func (c Config) Validate() error {
	if c.Timeout < 0 {
		return fmt.Errorf("%w: negative timeout %s", ErrConfig, c.Timeout)
	}
	if c.MaxOldestRowAge < 0 {
		return fmt.Errorf("%w: negative max oldest row age %s", ErrConfig, c.MaxOldestRowAge)
	}
	if len(c.Groups) > 0 && c.Kafka == nil {
		return fmt.Errorf("%w: consumer groups without a Kafka admin client", ErrConfig)
	}
	if len(c.Probes) > 0 && c.ProbeInterval <= 0 {
		return fmt.Errorf("%w: canary probes without a positive probe interval", ErrConfig)
	}
	for _, p := range c.Probes {
		if p.Outbox == "" || p.Run == nil {
			return fmt.Errorf("%w: canary probe without an outbox or a run function", ErrConfig)
		}
	}
	for _, t := range c.Targets {
		if t.Outbox == nil {
			return fmt.Errorf("%w: target without an outbox", ErrConfig)
		}
	}
	return nil
}

// ErrConfig: the Config is invalid.
var ErrConfig = errors.New("exporter config")

// metricNames are the names of every metric, in declaration order.
var metricNames []string

func newDesc(name, help string, labels []string, _ prometheus.Labels) *prometheus.Desc {
	metricNames = append(metricNames, name)
	return prometheus.NewDesc(name, help, labels, nil)
}

// MetricNames returns the name of every metric the Collector exports
// (dashboards and rules are checked against it).
func MetricNames() []string { return append([]string(nil), metricNames...) }

var (
	outboxLabels = []string{"outbox"}

	descUp        = newDesc("outbox_up", "1 when the target answered in this scrape, else 0.", []string{"target", "outbox"}, nil)
	descDuration  = newDesc("outbox_scrape_duration_seconds", "Time the target took in this scrape.", []string{"target", "outbox"}, nil)
	descErrors    = newDesc("outbox_scrape_errors_total", "Scrapes of the target that failed or timed out.", []string{"target", "outbox"}, nil)
	descTargetErr = newDesc("outbox_target_error", "1 for the reason the target failed in this scrape (timeout, unreachable, auth, missing, config, error), 0 for the others; all 0 when it is up.",
		[]string{"target", "outbox", "reason"}, nil)

	descSlotPresent  = newDesc("outbox_pg_slot_present", "1 when the connector's replication slot exists.", append(outboxLabels, "slot"), nil)
	descSlotRetained = newDesc("outbox_pg_slot_retained_wal_bytes", "WAL the slot holds back: current LSN minus restart_lsn.", append(outboxLabels, "slot"), nil)
	descSlotLag      = newDesc("outbox_pg_slot_confirmed_flush_lag_bytes", "Current LSN minus the slot's confirmed_flush_lsn.", append(outboxLabels, "slot"), nil)
	descSlotActive   = newDesc("outbox_pg_slot_active", "1 when a walsender streams from the slot.", append(outboxLabels, "slot"), nil)
	descSlotWal      = newDesc("outbox_pg_slot_wal_status", "1 for the slot's wal_status, 0 for the others.", append(outboxLabels, "slot", "wal_status"), nil)
	descSlotStalled  = newDesc("outbox_pg_slot_confirmed_flush_stalled_seconds", "Seconds since the slot's confirmed_flush_lsn last advanced while WAL past it waits (0 while it is caught up; counted from the exporter's first sight of the slot).", append(outboxLabels, "slot"), nil)
	descSlotSafe     = newDesc("outbox_pg_slot_safe_wal_size_bytes", "WAL that can still be written before the slot may be lost (pg_replication_slots.safe_wal_size); absent when max_slot_wal_keep_size is unlimited.", append(outboxLabels, "slot"), nil)

	descBinlogLag    = newDesc("outbox_binlog_lag_bytes", "Binlog written past the connector's committed offset.", append(outboxLabels, "connector"), nil)
	descBinlogLeft   = newDesc("outbox_binlog_retention_left_seconds", "Binlog retention minus the age of the connector's committed offset.", append(outboxLabels, "connector"), nil)
	descBinlogPurged = newDesc("outbox_binlog_offset_purged", "1 when the binlog file of the connector's offset is no longer on the server.", append(outboxLabels, "connector"), nil)

	descRows      = newDesc("outbox_table_rows_estimate", "Catalog estimate of the outbox table's live rows.", append(outboxLabels, "table"), nil)
	descOldestAge = newDesc("outbox_table_oldest_row_age_seconds", "Age of the oldest kept row of an outbox that keeps rows after publishing (connector outboxes); 0 when empty.", append(outboxLabels, "table"), nil)
	descUnpubAge  = newDesc("outbox_table_oldest_unpublished_row_age_seconds", "Age of the oldest row of a relay outbox, an unpublished row (the relay deletes rows on the broker's ack); 0 when empty.", append(outboxLabels, "table"), nil)
	descRetention = newDesc("outbox_retention_seconds", "Age the oldest kept row of an outbox that keeps rows may reach (--max-oldest-row-age, doctor's threshold).", outboxLabels, nil)

	descConnState = newDesc("outbox_connector_state", "1 for the connector's current state, 0 for the others.", append(outboxLabels, "connector", "state"), nil)
	descTaskState = newDesc("outbox_connector_task_state", "1 for the task's current state, 0 for the others.", append(outboxLabels, "connector", "task", "state"), nil)
	descTasks     = newDesc("outbox_connector_tasks", "Number of tasks of the connector.", append(outboxLabels, "connector"), nil)

	descGroupLag        = newDesc("outbox_consumer_group_lag", "Log end offset minus the group's committed offset.", []string{"group", "topic", "partition", "outbox"}, nil)
	descGroupLagSecs    = newDesc("outbox_consumer_group_lag_seconds", "Age of the record at the group's committed offset (the oldest it has not consumed) when it is behind, else 0.", []string{"group", "topic", "partition", "outbox"}, nil)
	descGroupMaxLag     = newDesc("outbox_consumer_group_max_lag", "The group's largest outbox_consumer_group_lag over its partitions; NaN when it has no committed offset.", []string{"group", "outbox"}, nil)
	descGroupMaxLagSecs = newDesc("outbox_consumer_group_max_lag_seconds", "The group's largest outbox_consumer_group_lag_seconds over its partitions; NaN when it has no committed offset.", []string{"group", "outbox"}, nil)

	allDescs = []*prometheus.Desc{descUp, descDuration, descErrors, descTargetErr, descSlotPresent, descSlotRetained, descSlotLag, descSlotActive, descSlotWal,
		descSlotStalled, descSlotSafe, descBinlogLag, descBinlogLeft, descBinlogPurged, descRows, descOldestAge, descUnpubAge, descRetention, descConnState, descTaskState, descTasks, descGroupLag,
		descGroupLagSecs, descGroupMaxLag, descGroupMaxLagSecs}
)

// Collector is a prometheus.Collector for a Config. It is safe for
// concurrent scrapes.
type Collector struct {
	cfg Config

	mu     sync.Mutex
	errors map[[2]string]float64
	// reason is each target's reason in the last scrape ("" when up), to
	// log a change of state once.
	reason map[[2]string]string
	// flush is when each slot's confirmed_flush_lsn was last seen to move.
	flush *flushTracker

	canaryMu sync.Mutex
	canary   map[string]*canaryState
}

// New returns a Collector for cfg (errors wrap ErrConfig).
func New(cfg Config) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxOldestRowAge == 0 {
		cfg.MaxOldestRowAge = provisioning.DefaultMaxOldestRowAge
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Collector{cfg: cfg, errors: map[[2]string]float64{}, reason: map[[2]string]string{}, flush: newFlushTracker(), canary: map[string]*canaryState{}}
	for _, p := range c.parts() { // every target has an error series from the start
		c.errors[[2]string{p.target, p.outbox}] = 0
	}
	return c, nil
}

// Describe sends every metric's descriptor.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
	for _, d := range canaryDescs {
		ch <- d
	}
}

// part is one target of a scrape.
type part struct {
	target, outbox string
	run            func(ctx context.Context) ([]prometheus.Metric, error)
}

func (c *Collector) parts() []part {
	var ps []part
	for _, t := range c.cfg.Targets {
		t := t
		name := t.Outbox.Name
		if t.Err != nil {
			ps = append(ps, part{TargetDatabase, name, func(context.Context) ([]prometheus.Metric, error) { return nil, &configError{t.Err} }})
			continue
		}
		if t.DB != nil {
			ps = append(ps, part{TargetDatabase, name, func(ctx context.Context) ([]prometheus.Metric, error) { return c.database(ctx, t) }})
		}
		if c.cfg.Connect != nil && t.Connector != "" {
			ps = append(ps, part{TargetConnect, name, func(ctx context.Context) ([]prometheus.Metric, error) { return c.connector(ctx, t) }})
			if t.DB != nil && t.Outbox.Database.Kind != spec.Postgres {
				ps = append(ps, part{TargetBinlog, name, func(ctx context.Context) ([]prometheus.Metric, error) { return c.binlog(ctx, t) }})
			}
		}
	}
	if c.cfg.Kafka != nil && len(c.cfg.Groups) > 0 {
		// One Kafka target per outbox label, so that a missing group is
		// reported on its outbox's target.
		byOutbox := map[string][]string{}
		var outboxes []string
		for _, g := range c.cfg.Groups {
			o := c.cfg.GroupOutbox[g]
			if _, ok := byOutbox[o]; !ok {
				outboxes = append(outboxes, o)
			}
			byOutbox[o] = append(byOutbox[o], g)
		}
		for _, o := range outboxes {
			groups := byOutbox[o]
			ps = append(ps, part{TargetKafka, o, func(ctx context.Context) ([]prometheus.Metric, error) { return c.lag(ctx, o, groups) }})
		}
	}
	return ps
}

type result struct {
	i   int
	ms  []prometheus.Metric
	err error
	dur time.Duration
}

// Collect scrapes every target concurrently within the timeout. A target
// that fails or is still running at the deadline is up=0 (its goroutine
// ends when its context is cancelled; its late answer is dropped).
func (c *Collector) Collect(ch chan<- prometheus.Metric) { c.collect(ch, c.cfg.Timeout) }

// bounded is the Collector with one scrape's timeout.
type bounded struct {
	c       *Collector
	timeout time.Duration
}

func (b bounded) Describe(ch chan<- *prometheus.Desc) { b.c.Describe(ch) }
func (b bounded) Collect(ch chan<- prometheus.Metric) { b.c.collect(ch, b.timeout) }

// Handler serves the Collector's metrics (with promhttp), each scrape
// bounded by Config.Timeout or, when shorter, by Prometheus's scrape
// timeout (the X-Prometheus-Scrape-Timeout-Seconds header) less a margin,
// so that Prometheus gets what was collected, with outbox_up=0 for the
// targets still running, instead of losing the whole scrape.
func (c *Collector) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reg := prometheus.NewRegistry()
		if err := reg.Register(bounded{c, ScrapeTimeout(r.Header, c.cfg.Timeout)}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
	})
}

// ScrapeTimeout is the bound of a scrape whose request has header h: max,
// or Prometheus's scrape timeout (ScrapeTimeoutHeader) less a tenth of it
// (at least 100ms, at most 1s) for encoding and the network, when that is
// shorter. It is never below a tenth of the scrape timeout.
func ScrapeTimeout(h http.Header, max time.Duration) time.Duration {
	v := h.Get(ScrapeTimeoutHeader)
	if v == "" {
		return max
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || secs <= 0 {
		return max
	}
	prom := time.Duration(secs * float64(time.Second))
	margin := min(max2(prom/10, 100*time.Millisecond), time.Second)
	d := max2(prom-margin, prom/10)
	return min(d, max)
}

func max2(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

func (c *Collector) collect(ch chan<- prometheus.Metric, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ps := c.parts()
	res := make(chan result, len(ps))
	for i, p := range ps {
		go func() {
			start := time.Now()
			ms, err := p.run(ctx)
			res <- result{i: i, ms: ms, err: err, dur: time.Since(start)}
		}()
	}
	done := make([]*result, len(ps))
wait:
	for range ps {
		select {
		case r := <-res:
			done[r.i] = &r
		case <-ctx.Done():
			break wait
		}
	}
	c.collectCanary(ch)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, p := range ps {
		r := done[i]
		if r == nil {
			r = &result{err: fmt.Errorf("no answer within the scrape's bound of %s: %w", timeout, ctx.Err()), dur: timeout}
		}
		key := [2]string{p.target, p.outbox}
		up, reason := 1.0, ""
		if r.err != nil {
			up, reason = 0, Reason(r.err)
			c.errors[key]++
		}
		for _, m := range r.ms { // a failed target may still have answered in part (a missing group)
			ch <- m
		}
		c.logChange(p, c.reason[key], reason, r.err)
		c.reason[key] = reason
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, up, p.target, p.outbox)
		ch <- prometheus.MustNewConstMetric(descDuration, prometheus.GaugeValue, r.dur.Seconds(), p.target, p.outbox)
		ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, c.errors[key], p.target, p.outbox)
		for _, rs := range Reasons {
			ch <- prometheus.MustNewConstMetric(descTargetErr, prometheus.GaugeValue, b2f(rs == reason), p.target, p.outbox, rs)
		}
	}
}

// logChange logs a target's change of state: failing (with the reason and
// the error), failing for another reason, recovered. A target that fails
// the same way scrape after scrape is logged once.
func (c *Collector) logChange(p part, was, now string, err error) {
	if c.cfg.Logger == nil || was == now {
		return
	}
	attrs := []any{slog.String("target", p.target), slog.String("outbox", p.outbox)}
	if now == "" {
		c.cfg.Logger.Info("exporter target recovered", attrs...)
		return
	}
	c.cfg.Logger.Warn("exporter target failing", append(attrs, slog.String("reason", now), slog.String("error", err.Error()))...)
}

// configError: the outbox could not be resolved (Target.Err).
type configError struct{ err error }

func (e *configError) Error() string { return "outbox not resolved: " + e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// errTableMissing: the outbox table does not exist.
var errTableMissing = errors.New("outbox table does not exist")

// Reason classifies a target's error into one of Reasons.
func Reason(err error) string {
	var ce *configError
	var pgErr *pgconn.PgError
	var netErr net.Error
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, ErrNoDSN):
		return ReasonMissing
	case errors.As(err, &ce):
		return ReasonConfig
	case errors.Is(err, errTableMissing), errors.Is(err, errGroupMissing):
		return ReasonMissing
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, connect.ErrTimeout), errors.As(err, &netErr) && netErr.Timeout():
		return ReasonTimeout
	case errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "28") || pgErr.Code == "42501"),
		strings.Contains(msg, "access denied"), strings.Contains(msg, "authentication failed"),
		strings.Contains(msg, "sasl authentication"), strings.Contains(msg, "http 401"), strings.Contains(msg, "http 403"):
		return ReasonAuth
	case errors.Is(err, connect.ErrUnreachable), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), isDNSError(err),
		strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such host"), strings.Contains(msg, "all brokers are down"):
		return ReasonUnreachable
	}
	return ReasonError
}

func isDNSError(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// database reads the slot (PostgreSQL) and the table stats.
func (c *Collector) database(ctx context.Context, t Target) ([]prometheus.Metric, error) {
	o := t.Outbox
	var ms []prometheus.Metric
	if o.Database.Kind == spec.Postgres && t.Slot != "" {
		s, err := provisioning.SlotFacts(ctx, t.DB, t.Slot)
		if err != nil {
			return nil, err
		}
		ms = append(ms, gauge(descSlotPresent, b2f(s != nil), o.Name, t.Slot))
		if s != nil {
			ms = append(ms,
				gauge(descSlotRetained, float64(s.RetainedBytes), o.Name, t.Slot),
				gauge(descSlotLag, float64(s.ConfirmedFlushLagBytes), o.Name, t.Slot),
				gauge(descSlotActive, b2f(s.Active), o.Name, t.Slot),
				gauge(descSlotStalled, c.flush.observe(o.Name+"\x00"+t.Slot, s.ConfirmedFlushLSN, s.ConfirmedFlushLagBytes, c.cfg.Now()).Seconds(), o.Name, t.Slot))
			if s.SafeWalSize != nil {
				ms = append(ms, gauge(descSlotSafe, float64(*s.SafeWalSize), o.Name, t.Slot))
			}
			for _, w := range WalStatuses {
				ms = append(ms, gauge(descSlotWal, b2f(s.WalStatus == w), o.Name, t.Slot, w))
			}
		}
	}
	st, err := provisioning.InspectTableStats(ctx, t.DB, provisioning.Target{Outbox: o})
	if err != nil {
		return nil, err
	}
	table := o.QualifiedTable()
	if st == nil {
		return nil, fmt.Errorf("outbox %s: table %s: %w", o.Name, table, errTableMissing)
	}
	if st.RowsEstimate >= 0 {
		ms = append(ms, gauge(descRows, float64(st.RowsEstimate), o.Name, table))
	}
	// The oldest row's age means something only where rows are kept; an
	// empty table is age 0, a table whose age cannot be told has no series.
	// On a relay outbox every row is unpublished (a latency), on a
	// connector outbox that keeps rows the oldest is cleanup's business.
	if !o.DeletesAfterInsert() && (st.OldestAge != nil || st.Empty) {
		age := 0.0
		if st.OldestAge != nil {
			age = st.OldestAge.Seconds()
		}
		if o.RelayPublished() {
			ms = append(ms, gauge(descUnpubAge, age, o.Name, table))
		} else {
			ms = append(ms, gauge(descOldestAge, age, o.Name, table))
		}
	}
	if !o.DeletesAfterInsert() && !o.RelayPublished() {
		limit, _ := provisioning.OldestRowLimit(o, provisioning.Thresholds{MaxOldestRowAge: c.cfg.MaxOldestRowAge})
		ms = append(ms, gauge(descRetention, limit.Seconds(), o.Name))
	}
	return ms, nil
}

// connector reads the connector's status.
func (c *Collector) connector(ctx context.Context, t Target) ([]prometheus.Metric, error) {
	o, name := t.Outbox, t.Connector
	st, err := c.cfg.Connect.Status(ctx, name)
	state := st.Connector.State
	switch {
	case errors.Is(err, connect.ErrNotFound):
		state, st.Tasks = StateNotFound, nil
	case err != nil:
		return nil, err
	}
	var ms []prometheus.Metric
	for _, s := range ConnectorStates {
		ms = append(ms, gauge(descConnState, b2f(s == state), o.Name, name, s))
	}
	ms = append(ms, gauge(descTasks, float64(len(st.Tasks)), o.Name, name))
	for _, tk := range st.Tasks {
		id := strconv.Itoa(tk.ID)
		for _, s := range ConnectorStates {
			if s == StateNotFound {
				continue
			}
			ms = append(ms, gauge(descTaskState, b2f(s == tk.State), o.Name, name, id, s))
		}
	}
	return ms, nil
}

// binlog compares the connector's committed offset with the server's binlogs.
func (c *Collector) binlog(ctx context.Context, t Target) ([]prometheus.Metric, error) {
	o, name := t.Outbox, t.Connector
	offs, err := c.cfg.Connect.Offsets(ctx, name)
	if errors.Is(err, connect.ErrNotFound) {
		return nil, nil // no connector: no offset to compare (outbox_connector_state says NOT_FOUND)
	}
	if err != nil {
		return nil, fmt.Errorf("offsets of connector %s: %w", name, err)
	}
	pos, tsSec, ok := binlogOffset(offs)
	if !ok {
		return nil, nil // not streaming yet
	}
	bf, err := provisioning.ReadBinlogFacts(ctx, t.DB)
	if err != nil {
		return nil, err
	}
	lag, present := bf.LagBytes(pos)
	ms := []prometheus.Metric{gauge(descBinlogPurged, b2f(!present), o.Name, name)}
	if present {
		ms = append(ms, gauge(descBinlogLag, float64(lag), o.Name, name))
	}
	if bf.Retention > 0 && tsSec > 0 {
		left := bf.Retention - c.cfg.Now().Sub(time.Unix(tsSec, 0))
		ms = append(ms, gauge(descBinlogLeft, left.Seconds(), o.Name, name))
	}
	return ms, nil
}

// binlogOffset is the binlog position and event time (ts_sec, 0 when
// absent) of a Debezium MySQL/MariaDB connector's offsets.
func binlogOffset(offs connect.Offsets) (provisioning.BinlogPosition, int64, bool) {
	num := func(v any) (int64, bool) {
		switch n := v.(type) {
		case float64:
			return int64(n), true
		case string:
			i, err := strconv.ParseInt(n, 10, 64)
			return i, err == nil
		}
		return 0, false
	}
	for _, of := range offs.Offsets {
		file, _ := of.Offset["file"].(string)
		pos, ok := num(of.Offset["pos"])
		if file == "" || !ok {
			continue
		}
		ts, _ := num(of.Offset["ts_sec"])
		return provisioning.BinlogPosition{File: file, Pos: pos}, ts, true
	}
	return provisioning.BinlogPosition{}, 0, false
}

// errGroupMissing: a consumer group of Config.Groups has no committed offset.
var errGroupMissing = errors.New("consumer group has no committed offset (it does not exist, or never committed)")

// lag reads the lag of groups (outbox label outbox): per partition in
// records and, with Config.Records, in seconds, and each group's maximum.
// A group without committed offsets has NaN maxima and fails the target
// with errGroupMissing; the others' series are still exported.
func (c *Collector) lag(ctx context.Context, outbox string, groups []string) ([]prometheus.Metric, error) {
	ls, err := provisioning.ConsumerLag(ctx, c.cfg.Kafka, groups)
	if err != nil {
		return nil, err
	}
	now := c.cfg.Now()
	type max struct{ lag, secs float64 }
	maxes := map[string]*max{}
	ms := make([]prometheus.Metric, 0, 2*len(ls)+2*len(groups))
	for _, l := range ls {
		part := strconv.Itoa(int(l.Partition))
		m := maxes[l.Group]
		if m == nil {
			m = &max{}
			maxes[l.Group] = m
		}
		m.lag = math.Max(m.lag, float64(l.Lag))
		ms = append(ms, gauge(descGroupLag, float64(l.Lag), l.Group, l.Topic, part, outbox))
		if c.cfg.Records == nil {
			continue
		}
		secs := 0.0
		if l.Lag > 0 {
			ts, err := c.cfg.Records.RecordTime(ctx, l.Topic, l.Partition, l.Committed)
			if err != nil {
				return nil, fmt.Errorf("%w: group %s: record at the committed offset: %w", provisioning.ErrTopics, l.Group, err)
			}
			if !ts.IsZero() { // zero: only transaction markers past the offset
				secs = math.Max(0, now.Sub(ts).Seconds())
			}
		}
		m.secs = math.Max(m.secs, secs)
		ms = append(ms, gauge(descGroupLagSecs, secs, l.Group, l.Topic, part, outbox))
	}
	var missing []string
	for _, g := range groups {
		m := maxes[g]
		if m == nil {
			missing = append(missing, g)
			m = &max{lag: math.NaN(), secs: math.NaN()}
		}
		ms = append(ms, gauge(descGroupMaxLag, m.lag, g, outbox))
		if c.cfg.Records != nil {
			ms = append(ms, gauge(descGroupMaxLagSecs, m.secs, g, outbox))
		}
	}
	if len(missing) > 0 {
		return ms, fmt.Errorf("groups %s: %w", strings.Join(missing, ", "), errGroupMissing)
	}
	return ms, nil
}
