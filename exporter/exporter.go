package exporter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
}

// Config is what a Collector exports.
type Config struct {
	Targets []Target
	// Connect is the Kafka Connect client (nil: no connector and binlog
	// series).
	Connect *connect.Client
	// Kafka reads consumer group offsets (nil: no lag series).
	Kafka provisioning.LagAdmin
	// Groups are the consumer groups whose lag is exported.
	Groups []string
	// Timeout bounds each scrape (default DefaultTimeout).
	Timeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Validate reports a config the collector cannot run.
func (c Config) Validate() error {
	if c.Timeout < 0 {
		return fmt.Errorf("%w: negative timeout %s", ErrConfig, c.Timeout)
	}
	if len(c.Groups) > 0 && c.Kafka == nil {
		return fmt.Errorf("%w: consumer groups without a Kafka admin client", ErrConfig)
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

	descUp       = newDesc("outbox_up", "1 when the target answered in this scrape, else 0.", []string{"target", "outbox"}, nil)
	descDuration = newDesc("outbox_scrape_duration_seconds", "Time the target took in this scrape.", []string{"target", "outbox"}, nil)
	descErrors   = newDesc("outbox_scrape_errors_total", "Scrapes of the target that failed or timed out.", []string{"target", "outbox"}, nil)

	descSlotPresent  = newDesc("outbox_pg_slot_present", "1 when the connector's replication slot exists.", append(outboxLabels, "slot"), nil)
	descSlotRetained = newDesc("outbox_pg_slot_retained_wal_bytes", "WAL the slot holds back: current LSN minus restart_lsn.", append(outboxLabels, "slot"), nil)
	descSlotLag      = newDesc("outbox_pg_slot_confirmed_flush_lag_bytes", "Current LSN minus the slot's confirmed_flush_lsn.", append(outboxLabels, "slot"), nil)
	descSlotActive   = newDesc("outbox_pg_slot_active", "1 when a walsender streams from the slot.", append(outboxLabels, "slot"), nil)
	descSlotWal      = newDesc("outbox_pg_slot_wal_status", "1 for the slot's wal_status, 0 for the others.", append(outboxLabels, "slot", "wal_status"), nil)

	descBinlogLag    = newDesc("outbox_binlog_lag_bytes", "Binlog written past the connector's committed offset.", append(outboxLabels, "connector"), nil)
	descBinlogLeft   = newDesc("outbox_binlog_retention_left_seconds", "Binlog retention minus the age of the connector's committed offset.", append(outboxLabels, "connector"), nil)
	descBinlogPurged = newDesc("outbox_binlog_offset_purged", "1 when the binlog file of the connector's offset is no longer on the server.", append(outboxLabels, "connector"), nil)

	descRows      = newDesc("outbox_table_rows_estimate", "Catalog estimate of the outbox table's live rows.", append(outboxLabels, "table"), nil)
	descOldestAge = newDesc("outbox_table_oldest_row_age_seconds", "Now minus the oldest timestamp column value (outboxes that keep rows); 0 when empty.", append(outboxLabels, "table"), nil)

	descConnState = newDesc("outbox_connector_state", "1 for the connector's current state, 0 for the others.", append(outboxLabels, "connector", "state"), nil)
	descTaskState = newDesc("outbox_connector_task_state", "1 for the task's current state, 0 for the others.", append(outboxLabels, "connector", "task", "state"), nil)
	descTasks     = newDesc("outbox_connector_tasks", "Number of tasks of the connector.", append(outboxLabels, "connector"), nil)

	descGroupLag = newDesc("outbox_consumer_group_lag", "Log end offset minus the group's committed offset.", []string{"group", "topic", "partition"}, nil)

	allDescs = []*prometheus.Desc{descUp, descDuration, descErrors, descSlotPresent, descSlotRetained, descSlotLag, descSlotActive, descSlotWal,
		descBinlogLag, descBinlogLeft, descBinlogPurged, descRows, descOldestAge, descConnState, descTaskState, descTasks, descGroupLag}
)

// Collector is a prometheus.Collector for a Config. It is safe for
// concurrent scrapes.
type Collector struct {
	cfg Config

	mu     sync.Mutex
	errors map[[2]string]float64
}

// New returns a Collector for cfg (errors wrap ErrConfig).
func New(cfg Config) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &Collector{cfg: cfg, errors: map[[2]string]float64{}}
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
		ps = append(ps, part{TargetKafka, "", c.lag})
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
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.Timeout)
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
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, p := range ps {
		r := done[i]
		if r == nil {
			r = &result{err: ctx.Err(), dur: c.cfg.Timeout}
		}
		up := 1.0
		if r.err != nil {
			up = 0
			c.errors[[2]string{p.target, p.outbox}]++
		} else {
			for _, m := range r.ms {
				ch <- m
			}
		}
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, up, p.target, p.outbox)
		ch <- prometheus.MustNewConstMetric(descDuration, prometheus.GaugeValue, r.dur.Seconds(), p.target, p.outbox)
		ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, c.errors[[2]string{p.target, p.outbox}], p.target, p.outbox)
	}
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
				gauge(descSlotActive, b2f(s.Active), o.Name, t.Slot))
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
		return nil, fmt.Errorf("outbox %s: table %s does not exist", o.Name, table)
	}
	if st.RowsEstimate >= 0 {
		ms = append(ms, gauge(descRows, float64(st.RowsEstimate), o.Name, table))
	}
	// The oldest row's age means something only where rows are kept; an
	// empty table is age 0, a table whose age cannot be told has no series.
	if !o.DeletesAfterInsert() && (st.OldestAge != nil || st.Empty) {
		age := 0.0
		if st.OldestAge != nil {
			age = st.OldestAge.Seconds()
		}
		ms = append(ms, gauge(descOldestAge, age, o.Name, table))
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

// lag reads the consumer groups' lag.
func (c *Collector) lag(ctx context.Context) ([]prometheus.Metric, error) {
	ls, err := provisioning.ConsumerLag(ctx, c.cfg.Kafka, c.cfg.Groups)
	if err != nil {
		return nil, err
	}
	ms := make([]prometheus.Metric, 0, len(ls))
	for _, l := range ls {
		ms = append(ms, gauge(descGroupLag, float64(l.Lag), l.Group, l.Topic, strconv.Itoa(int(l.Partition))))
	}
	return ms, nil
}
