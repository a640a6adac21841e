//go:build integration

package exporter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// testRules is a copy of deploy/prometheus/outbox-rules.yaml for a run of
// seconds: every for: is 3s, the retained-WAL threshold 0 and its growth
// window 20s.
func testRules(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../deploy/prometheus/outbox-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := regexp.MustCompile(`for: \d+m`).ReplaceAllString(string(b), "for: 3s")
	s = strings.Replace(s, "outbox_pg_slot_retained_wal_bytes > 1073741824 and delta(outbox_pg_slot_retained_wal_bytes[15m]) > 0",
		"outbox_pg_slot_retained_wal_bytes > 0 and delta(outbox_pg_slot_retained_wal_bytes[20s]) > 0", 1)
	if !strings.Contains(s, "[20s]") || strings.Contains(s, "for: 5m") || !strings.Contains(s, `up{job="outbox-exporter"}`) {
		t.Fatal("the rules file changed: update testRules")
	}
	// The other windows (target down, stalls) shrink the same way.
	s = strings.NewReplacer("[10m]", "[10s]", "[15m]", "[15s]").Replace(s)
	return s
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// promServer is a Prometheus server (Debian's binary) started for a test.
type promServer struct{ base string }

func startPrometheus(t *testing.T, bin, target string) *promServer {
	t.Helper()
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(rules, []byte(testRules(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
  scrape_timeout: 1s
rule_files: [%q]
scrape_configs:
  - job_name: outbox-exporter
    static_configs:
      - targets: [%q]
`, rules, target)
	cfgFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+cfgFile, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", lastLines(string(b), 30))
		}
	})
	p := &promServer{base: "http://127.0.0.1:" + strconv.Itoa(port)}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready on %s: %v", p.base, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

func (p *promServer) get(t *testing.T, path string, q url.Values, out any) {
	t.Helper()
	resp, err := http.Get(p.base + path + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if env.Status != "success" {
		t.Fatalf("%s: %s", path, env.Error)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// query returns the value of the single series expr selects (ok false
// when there is none).
func (p *promServer) query(t *testing.T, expr string) (float64, bool) {
	t.Helper()
	var d struct {
		Result []struct {
			Value [2]any `json:"value"`
		} `json:"result"`
	}
	p.get(t, "/api/v1/query", url.Values{"query": {expr}}, &d)
	if len(d.Result) != 1 {
		return 0, false
	}
	s, _ := d.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// alertState returns the state (pending, firing) of the alert name whose
// labels include match ("" when it is not active).
func (p *promServer) alertState(t *testing.T, name string, match map[string]string) string {
	t.Helper()
	var d struct {
		Alerts []struct {
			Labels map[string]string `json:"labels"`
			State  string            `json:"state"`
		} `json:"alerts"`
	}
	p.get(t, "/api/v1/alerts", nil, &d)
	for _, a := range d.Alerts {
		if a.Labels["alertname"] != name {
			continue
		}
		ok := true
		for k, v := range match {
			ok = ok && a.Labels[k] == v
		}
		if ok {
			return a.State
		}
	}
	return ""
}

// alertCount is the number of active alerts name whose labels include
// match, and their states.
func (p *promServer) alertCount(t *testing.T, name string, match map[string]string) (int, []string) {
	t.Helper()
	var d struct {
		Alerts []struct {
			Labels map[string]string `json:"labels"`
			State  string            `json:"state"`
		} `json:"alerts"`
	}
	p.get(t, "/api/v1/alerts", nil, &d)
	n, states := 0, []string(nil)
	for _, a := range d.Alerts {
		ok := a.Labels["alertname"] == name
		for k, v := range match {
			ok = ok && a.Labels[k] == v
		}
		if ok {
			n++
			states = append(states, a.State+" "+a.Labels["state"])
		}
	}
	return n, states
}

// waitFiringOnce waits until alert name (labels including match) fires and
// checks that it is one alert.
func (p *promServer) waitFiringOnce(t *testing.T, name string, match map[string]string, timeout time.Duration) {
	t.Helper()
	waitFor(t, name+" firing", timeout, func() bool { return p.alertState(t, name, match) == "firing" })
	if n, states := p.alertCount(t, name, match); n != 1 {
		t.Errorf("%s: %d alerts (%v), want exactly one", name, n, states)
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestPrometheusSlotLagAlert runs the exporter against a real connector on
// the shared stack and a Prometheus server (Debian's binary, started for
// the test with a copy of the shipped rules whose for: are seconds). While
// rows keep being written, the connector is stopped (PUT …/stop): through
// Prometheus's HTTP API the slot's confirmed-flush lag grows, the slot is
// inactive, and OutboxSlotInactive, OutboxRetainedWALHigh and
// OutboxConnectorNotRunning go pending and then firing. Then the three
// outages that used to page nobody: Kafka Connect becomes unreachable (the
// exporter reaches it through a proxy that is closed) and the critical
// OutboxConnectorNotRunning keeps firing, once, labelled STOPPED; the slot
// is dropped and OutboxSlotMissing fires; the exporter goes away and
// OutboxExporterDown fires. The exporter is served by Collector.Handler with
// its default 10s bound: Prometheus's 1s scrape timeout header bounds it.
func TestPrometheusSlotLagAlert(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	promBin := itest.RequireBinary(t, "prometheus", "prometheus")
	sfx := strings.ToLower(itest.Suffix())
	dbName := "exp_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	connName := "exp-" + sfx
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: exp%s
    database:
      kind: postgres
      connection: {host: %s, port: %s, user: postgres, dbname: %s}
    payloadFormat: json
    columns: {timestamp: created_at}
    routing:
      topicReplacement: exp.%s.${routedByValue}
    connector: {name: %s, topicPrefix: exp%s, heartbeat: 1s}
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, sfx, connName, sfx)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, db, o)
	topic := "exp." + sfx + ".Order"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	slot := cs[0].Config["slot.name"]
	if slot == "" {
		t.Fatal("generated connector has no slot.name")
	}
	itest.PutConnector(t, s.ConnectURL, connName, cs[0].Config) // deleted on cleanup, before the database (and slot) is dropped
	itest.WaitRunning(t, s.ConnectURL, connName, 90*time.Second)

	client, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	// The exporter reaches Connect through a proxy the test closes.
	connectURL, err := url.Parse(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	connectProxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(connectURL))
	t.Cleanup(connectProxy.Close)
	proxied, err := connect.NewClient(connectProxy.URL, connect.WithRetry(connect.Retry{}))
	if err != nil {
		t.Fatal(err)
	}
	col, err := exporter.New(exporter.Config{
		Targets: []exporter.Target{{Outbox: o, DB: db, Slot: slot, Connector: connName}},
		Connect: proxied,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(col.Handler())
	t.Cleanup(srv.Close)
	prom := startPrometheus(t, promBin, strings.TrimPrefix(srv.URL, "http://"))

	// Rows keep being written, one every 20 ms, until the end.
	w, err := outbox.NewWriter(outbox.TableFor(o))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var writeErr error
	written := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			_, err := w.Write(ctx, db, outbox.Event{AggregateType: "Order", AggregateID: strconv.Itoa(i % 7), Type: "OrderCreated", SchemaVersion: 1,
				Payload: []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 2000)))})
			mu.Lock()
			if err != nil && ctx.Err() == nil {
				writeErr = err
				mu.Unlock()
				return
			}
			if err == nil {
				written++
			}
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	stopWriting := func() { cancel(); wg.Wait() }
	t.Cleanup(stopWriting)
	writes := func() int {
		mu.Lock()
		defer mu.Unlock()
		if writeErr != nil {
			t.Fatalf("writer: %v", writeErr)
		}
		return written
	}

	sel := fmt.Sprintf(`{outbox=%q,slot=%q}`, o.Name, slot)
	waitFor(t, "the exporter's slot series in Prometheus, active", 60*time.Second, func() bool {
		v, ok := prom.query(t, "outbox_pg_slot_active"+sel)
		return ok && v == 1
	})
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_connector_state{connector=%q,state="RUNNING"}`, connName)); !ok || v != 1 {
		t.Fatalf("connector RUNNING series = %v (present %v), want 1", v, ok)
	}
	if st := prom.alertState(t, "OutboxSlotInactive", map[string]string{"slot": slot}); st != "" {
		t.Fatalf("OutboxSlotInactive is %s while the connector streams", st)
	}
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_up{target="database",outbox=%q}`, o.Name)); !ok || v != 1 {
		t.Fatalf("outbox_up database = %v (present %v), want 1", v, ok)
	}
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_table_rows_estimate{outbox=%q}`, o.Name)); !ok || v <= 0 {
		t.Errorf("outbox_table_rows_estimate = %v (present %v), want > 0 while rows are written", v, ok)
	}
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_table_oldest_row_age_seconds{outbox=%q}`, o.Name)); !ok || v < 0 {
		t.Errorf("outbox_table_oldest_row_age_seconds = %v (present %v)", v, ok)
	}
	before, _ := prom.query(t, "outbox_pg_slot_confirmed_flush_lag_bytes"+sel)
	t.Logf("streaming: confirmed-flush lag %v bytes", before)

	stopCtx, stopCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer stopCancel()
	if err := client.Stop(stopCtx, connName); err != nil {
		t.Fatalf("stop connector: %v", err)
	}
	stopped := time.Now()
	writtenAtStop := writes()

	// The lag series grows: three increasing samples, well above the
	// streaming value.
	var samples []float64
	waitFor(t, "the confirmed-flush lag to grow", 60*time.Second, func() bool {
		v, ok := prom.query(t, "outbox_pg_slot_confirmed_flush_lag_bytes"+sel)
		if ok && (len(samples) == 0 || v > samples[len(samples)-1]) {
			samples = append(samples, v)
		}
		return len(samples) >= 3 && samples[len(samples)-1] > before+100_000
	})
	t.Logf("stopped: confirmed-flush lag samples %v bytes; %d rows written since the stop", samples, writes()-writtenAtStop)
	if writes() == writtenAtStop {
		t.Fatal("no row was written after the stop")
	}
	var rng struct {
		Result []struct {
			Values [][2]any `json:"values"`
		} `json:"result"`
	}
	prom.get(t, "/api/v1/query", url.Values{"query": {"outbox_pg_slot_confirmed_flush_lag_bytes" + sel + "[30s]"}}, &rng)
	if len(rng.Result) != 1 || len(rng.Result[0].Values) < 3 {
		t.Fatalf("range query of the lag series: %+v", rng)
	}

	for _, a := range []struct {
		name  string
		match map[string]string
	}{
		{"OutboxSlotInactive", map[string]string{"slot": slot}},
		{"OutboxRetainedWALHigh", map[string]string{"slot": slot}},
		{"OutboxConnectorNotRunning", map[string]string{"connector": connName}},
	} {
		seen := map[string]bool{}
		waitFor(t, a.name+" firing", 60*time.Second, func() bool {
			st := prom.alertState(t, a.name, a.match)
			seen[st] = true
			return st == "firing"
		})
		t.Logf("%s: states seen %v, firing %.1fs after the stop", a.name, seen, time.Since(stopped).Seconds())
		// Prometheus keeps the ALERTS series: the alert was pending (for
		// its for:) before it fired.
		var lbl []string
		for k, v := range a.match {
			lbl = append(lbl, fmt.Sprintf("%s=%q", k, v))
		}
		pending := fmt.Sprintf(`max_over_time(ALERTS{alertname=%q,alertstate="pending",%s}[2m])`, a.name, strings.Join(lbl, ","))
		if v, ok := prom.query(t, pending); !ok || v != 1 {
			t.Errorf("%s: no pending ALERTS sample before firing (%s = %v, present %v)", a.name, pending, v, ok)
		}
	}
	if v, ok := prom.query(t, "outbox_pg_slot_active"+sel); !ok || v != 0 {
		t.Errorf("outbox_pg_slot_active after the stop = %v (present %v), want 0", v, ok)
	}
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_connector_state{connector=%q,state="STOPPED"}`, connName)); !ok || v != 1 {
		t.Errorf("connector STOPPED series = %v (present %v), want 1", v, ok)
	}
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_retention_seconds{outbox=%q}`, o.Name)); !ok || v != provisioning.DefaultMaxOldestRowAge.Seconds() {
		t.Errorf("outbox_retention_seconds = %v (present %v), want doctor's default", v, ok)
	}
	if n, states := prom.alertCount(t, "OutboxConnectorNotRunning", map[string]string{"connector": connName}); n != 1 || !strings.HasSuffix(states[0], " STOPPED") {
		t.Errorf("OutboxConnectorNotRunning: %d alerts %v, want one labelled STOPPED", n, states)
	}
	if n, states := prom.alertCount(t, "OutboxConnectorTaskNotRunning", map[string]string{"connector": connName}); n != 0 {
		t.Errorf("OutboxConnectorTaskNotRunning for a STOPPED connector: %v, want none (the connector alert says it)", states)
	}
	n := writes()
	stopWriting()
	t.Logf("%d rows written in all", n)

	// Connect unreachable: the connector series go, the critical alert
	// stays firing with the last known state, once; no Connect alert (the
	// connector is known not to run).
	connectProxy.Close()
	lost := time.Now()
	up := fmt.Sprintf(`outbox_up{target="connect",outbox=%q}`, o.Name)
	waitFor(t, "the connect target down", 30*time.Second, func() bool { v, ok := prom.query(t, up); return ok && v == 0 })
	if v, ok := prom.query(t, fmt.Sprintf(`outbox_target_error{target="connect",outbox=%q,reason="unreachable"}`, o.Name)); !ok || v != 1 {
		t.Errorf("outbox_target_error connect unreachable = %v (present %v), want 1", v, ok)
	}
	for time.Since(lost) < 8*time.Second {
		if n, states := prom.alertCount(t, "OutboxConnectorNotRunning", map[string]string{"connector": connName}); n != 1 || states[0] != "firing STOPPED" {
			t.Fatalf("%.1fs after Connect became unreachable: OutboxConnectorNotRunning %v, want one firing STOPPED", time.Since(lost).Seconds(), states)
		}
		if st := prom.alertState(t, "OutboxConnectUnreachable", map[string]string{"outbox": o.Name}); st != "" {
			t.Fatalf("OutboxConnectUnreachable is %s for a connector known to be STOPPED", st)
		}
		time.Sleep(time.Second)
	}
	if _, ok := prom.query(t, fmt.Sprintf(`outbox_connector_state{connector=%q}`, connName)); ok {
		t.Error("the connector series are still fresh while Connect is unreachable")
	}

	// The slot dropped: OutboxSlotMissing fires once.
	itest.DeleteConnector(t, s.ConnectURL, connName)
	waitFor(t, "the slot to be dropped", 60*time.Second, func() bool {
		_, _ = db.Exec(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1 AND NOT active`, slot)
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 0
	})
	prom.waitFiringOnce(t, "OutboxSlotMissing", map[string]string{"slot": slot}, 60*time.Second)

	// The whole scrape lost: OutboxExporterDown fires once.
	if st := prom.alertState(t, "OutboxExporterDown", nil); st != "" {
		t.Fatalf("OutboxExporterDown is %s while the exporter answers", st)
	}
	srv.Close()
	prom.waitFiringOnce(t, "OutboxExporterDown", nil, 60*time.Second)
}
