package exporter_test

import (
	"database/sql"
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/spec"
)

// scrape gathers c once and returns every sample as "name{k=v,…}" → value
// (labels sorted by name), and how long the scrape took.
func scrape(t *testing.T, c *exporter.Collector) (map[string]float64, time.Duration) {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	mfs, err := reg.Gather()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			out[key(mf.GetName(), m.GetLabel())] = value(m)
		}
	}
	return out, took
}

func key(name string, ls []*dto.LabelPair) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

func value(m *dto.Metric) float64 {
	if g := m.GetGauge(); g != nil {
		return g.GetValue()
	}
	return m.GetCounter().GetValue()
}

func outboxNamed(name, kind string) *spec.Outbox {
	o := &spec.Outbox{Name: name, Table: "outbox", Schema: "public"}
	o.Database.Kind = kind
	return o
}

func newCollector(t *testing.T, cfg exporter.Config) *exporter.Collector {
	t.Helper()
	c, err := exporter.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConnectorStates: one series per state, 1 for the current one, per
// connector and per task; a connector Connect does not know is NOT_FOUND.
func TestConnectorStates(t *testing.T) {
	fake := connectfake.New(connectfake.Options{})
	defer fake.Close()
	fake.Seed("run", map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector"}, connect.StateRunning)
	fake.Seed("paused", map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector"}, connect.StatePaused)
	client, err := connect.NewClient(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, exporter.Config{Connect: client, Targets: []exporter.Target{
		{Outbox: outboxNamed("a", spec.Postgres), Connector: "run"},
		{Outbox: outboxNamed("b", spec.Postgres), Connector: "paused"},
		{Outbox: outboxNamed("c", spec.Postgres), Connector: "gone"},
		{Outbox: outboxNamed("relayed", spec.Postgres)}, // the relay publishes it: no connector series
	}})
	got, _ := scrape(t, c)
	for _, tc := range []struct {
		outbox, connector, state string
	}{{"a", "run", connect.StateRunning}, {"b", "paused", connect.StatePaused}, {"c", "gone", exporter.StateNotFound}} {
		for _, s := range exporter.ConnectorStates {
			k := "outbox_connector_state{connector=" + tc.connector + ",outbox=" + tc.outbox + ",state=" + s + "}"
			want := 0.0
			if s == tc.state {
				want = 1
			}
			if v, ok := got[k]; !ok || v != want {
				t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
			}
		}
		if v := got["outbox_up{outbox="+tc.outbox+",target=connect}"]; v != 1 {
			t.Errorf("outbox_up connect %s = %v, want 1", tc.outbox, v)
		}
	}
	if v := got["outbox_connector_task_state{connector=run,outbox=a,state=RUNNING,task=0}"]; v != 1 {
		t.Errorf("task 0 of run RUNNING = %v, want 1 (series: %v)", v, got)
	}
	if v := got["outbox_connector_task_state{connector=paused,outbox=b,state=PAUSED,task=0}"]; v != 1 {
		t.Errorf("task 0 of paused PAUSED = %v, want 1", v)
	}
	if v, ok := got["outbox_connector_tasks{connector=gone,outbox=c}"]; !ok || v != 0 {
		t.Errorf("tasks of a missing connector = %v (present %v), want 0", v, ok)
	}
	for k := range got {
		if strings.Contains(k, "outbox=relayed") {
			t.Errorf("series for a relay-published outbox without a database: %s", k)
		}
	}
}

// TestScrapeBounded: a Connect that never answers and a database that
// refuses connections are up=0 with an error counted, the other targets
// still report, and the scrape ends near the timeout instead of failing.
func TestScrapeBounded(t *testing.T) {
	fake := connectfake.New(connectfake.Options{})
	defer fake.Close()
	fake.Seed("ok", map[string]string{}, connect.StateRunning)
	fake.Seed("stuck", map[string]string{}, connect.StateRunning)
	fake.Hang("GET /connectors/stuck/status", true)
	client, err := connect.NewClient(fake.URL, connect.WithRetry(connect.Retry{}))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const timeout = 300 * time.Millisecond
	c := newCollector(t, exporter.Config{Connect: client, Timeout: timeout, Targets: []exporter.Target{
		{Outbox: outboxNamed("a", spec.Postgres), Connector: "ok"},
		{Outbox: outboxNamed("b", spec.Postgres), Connector: "stuck", DB: db, Slot: "b_slot"},
	}})
	for round := 1; round <= 2; round++ {
		got, took := scrape(t, c)
		if took > timeout+time.Second {
			t.Errorf("scrape %d took %s, bound is %s", round, took, timeout)
		}
		for k, want := range map[string]float64{
			"outbox_up{outbox=a,target=connect}":                          1,
			"outbox_up{outbox=b,target=connect}":                          0,
			"outbox_up{outbox=b,target=database}":                         0,
			"outbox_scrape_errors_total{outbox=a,target=connect}":         0,
			"outbox_scrape_errors_total{outbox=b,target=connect}":         float64(round),
			"outbox_scrape_errors_total{outbox=b,target=database}":        float64(round),
			"outbox_connector_state{connector=ok,outbox=a,state=RUNNING}": 1,
		} {
			if v, ok := got[k]; !ok || v != want {
				t.Errorf("scrape %d: %s = %v (present %v), want %v", round, k, v, ok, want)
			}
		}
		if v := got["outbox_scrape_duration_seconds{outbox=b,target=connect}"]; v < timeout.Seconds()*0.9 {
			t.Errorf("scrape %d: duration of the hanging target %v, want about the timeout", round, v)
		}
		for k := range got {
			if strings.Contains(k, "connector=stuck") || strings.HasPrefix(k, "outbox_pg_slot") {
				t.Errorf("scrape %d: series of a failed target: %s", round, k)
			}
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for name, cfg := range map[string]exporter.Config{
		"negative timeout":   {Timeout: -time.Second},
		"groups, no kafka":   {Groups: []string{"billing"}},
		"target, no outbox":  {Targets: []exporter.Target{{Connector: "x"}}},
		"probe, no interval": {Probes: []exporter.Probe{{Outbox: "a", Run: noRun}}},
		"probe, no outbox":   {Probes: []exporter.Probe{{Run: noRun}}, ProbeInterval: time.Minute},
		"probe, no run":      {Probes: []exporter.Probe{{Outbox: "a"}}, ProbeInterval: time.Minute},
	} {
		if _, err := exporter.New(cfg); !errors.Is(err, exporter.ErrConfig) {
			t.Errorf("%s: New = %v, want ErrConfig", name, err)
		}
	}
}

// TestMetricNames: every name starts with outbox_ and the package doc
// lists it.
func TestMetricNames(t *testing.T) {
	names := exporter.MetricNames()
	if len(names) < 15 {
		t.Fatalf("MetricNames = %v", names)
	}
	doc := readFile(t, "doc.go")
	readme := readFile(t, "../README.md")
	for _, n := range names {
		if !strings.HasPrefix(n, "outbox_") {
			t.Errorf("metric %s does not start with outbox_", n)
		}
		if !strings.Contains(doc, n+"{") {
			t.Errorf("metric %s is not in the package doc", n)
		}
		if !strings.Contains(readme, n) {
			t.Errorf("metric %s is not in the README", n)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
