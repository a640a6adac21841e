package exporter_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/spec"
)

func TestScrapeTimeout(t *testing.T) {
	for _, tc := range []struct {
		header string
		max    time.Duration
		want   time.Duration
	}{
		{"", 10 * time.Second, 10 * time.Second},
		{"10", 10 * time.Second, 9 * time.Second},       // Prometheus's default: stay below it
		{"1", 10 * time.Second, 900 * time.Millisecond}, // a tenth, at least 100ms
		{"0.5", 10 * time.Second, 400 * time.Millisecond},
		{"60", 10 * time.Second, 10 * time.Second}, // --scrape-timeout is shorter
		{"30", 60 * time.Second, 29 * time.Second}, // the margin is at most 1s
		{"junk", 5 * time.Second, 5 * time.Second},
		{"-1", 5 * time.Second, 5 * time.Second},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set(exporter.ScrapeTimeoutHeader, tc.header)
		}
		if got := exporter.ScrapeTimeout(h, tc.max); got != tc.want {
			t.Errorf("ScrapeTimeout(%q, %s) = %s, want %s", tc.header, tc.max, got, tc.want)
		}
	}
}

// httpScrape GETs /metrics from h as Prometheus does, with its scrape
// timeout header, and returns the samples (as scrape does) and the time.
func httpScrape(t *testing.T, h http.Handler, promTimeout string) (map[string]float64, time.Duration) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest("GET", srv.URL+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	if promTimeout != "" {
		req.Header.Set(exporter.ScrapeTimeoutHeader, promTimeout)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %v %d\n%s", err, resp.StatusCode, body)
	}
	return parseText(t, string(body)), took
}

var (
	sampleRe = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	labelRe  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// parseText reads the text exposition format into "name{k=v,…}" → value,
// the keys scrape uses.
func parseText(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleRe.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("unparsable sample %q", line)
		}
		var parts []string
		for _, l := range labelRe.FindAllStringSubmatch(m[2], -1) {
			parts = append(parts, l[1]+"="+l[2])
		}
		sort.Strings(parts)
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[m[1]+"{"+strings.Join(parts, ",")+"}"] = v
	}
	return out
}

// TestHandlerHonoursScrapeTimeout: with the exporter's own bound at 10s
// (its default, Prometheus's default scrape_timeout too) and Connect
// hanging, a scrape whose Prometheus timeout is 0.5s answers before it,
// with what was collected: the hanging target up=0 with reason timeout,
// the healthy one's series.
func TestHandlerHonoursScrapeTimeout(t *testing.T) {
	fake := connectfake.New(connectfake.Options{})
	defer fake.Close()
	fake.Seed("ok", map[string]string{}, connect.StateRunning)
	fake.Seed("stuck", map[string]string{}, connect.StateRunning)
	fake.Hang("GET /connectors/stuck/status", true)
	client, err := connect.NewClient(fake.URL, connect.WithRetry(connect.Retry{}))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector(t, exporter.Config{Connect: client, Timeout: 10 * time.Second, Targets: []exporter.Target{
		{Outbox: outboxNamed("a", spec.Postgres), Connector: "ok"},
		{Outbox: outboxNamed("b", spec.Postgres), Connector: "stuck"},
	}})
	got, took := httpScrape(t, c.Handler(), "0.5")
	if took >= 500*time.Millisecond {
		t.Errorf("scrape took %s, Prometheus gives up at 0.5s", took)
	}
	for k, want := range map[string]float64{
		"outbox_up{outbox=a,target=connect}":                              1,
		"outbox_up{outbox=b,target=connect}":                              0,
		"outbox_target_error{outbox=b,reason=timeout,target=connect}":     1,
		"outbox_target_error{outbox=b,reason=unreachable,target=connect}": 0,
		"outbox_target_error{outbox=a,reason=timeout,target=connect}":     0,
		"outbox_connector_state{connector=ok,outbox=a,state=RUNNING}":     1,
		"outbox_scrape_errors_total{outbox=b,target=connect}":             1,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
}

// TestTargetErrors: each failing target says why (outbox_target_error, one
// reason at 1) and is logged once per change of state; an outbox that
// could not be resolved (Target.Err) is a database target down with reason
// config (missing when it has no DSN: ErrNoDSN), and the other outboxes are
// exported.
func TestTargetErrors(t *testing.T) {
	fake := connectfake.New(connectfake.Options{})
	defer fake.Close()
	fake.Seed("ok", map[string]string{}, connect.StateRunning)
	client, err := connect.NewClient(fake.URL, connect.WithRetry(connect.Retry{}))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logs bytes.Buffer
	c := newCollector(t, exporter.Config{Connect: client, Timeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Targets: []exporter.Target{
			{Outbox: outboxNamed("a", spec.Postgres), Connector: "ok"},
			{Outbox: outboxNamed("refused", spec.Postgres), DB: db, Slot: "s"},
			{Outbox: outboxNamed("unresolved", spec.Postgres), Connector: "ok", Err: errors.New("connection.password: ${env:PW}: PW is not set")},
			{Outbox: outboxNamed("nodsn", spec.Postgres), Err: fmt.Errorf("%w: database.password is a Kafka Connect config provider reference: pass --dsn nodsn=DSN", exporter.ErrNoDSN)},
		}})
	for round := 1; round <= 3; round++ {
		got, _ := scrape(t, c)
		for k, want := range map[string]float64{
			"outbox_up{outbox=a,target=connect}":                                     1,
			"outbox_up{outbox=refused,target=database}":                              0,
			"outbox_target_error{outbox=refused,reason=unreachable,target=database}": 1,
			"outbox_target_error{outbox=refused,reason=error,target=database}":       0,
			"outbox_up{outbox=unresolved,target=database}":                           0,
			"outbox_target_error{outbox=unresolved,reason=config,target=database}":   1,
			"outbox_up{outbox=nodsn,target=database}":                                0,
			"outbox_target_error{outbox=nodsn,reason=missing,target=database}":       1,
			"outbox_target_error{outbox=nodsn,reason=config,target=database}":        0,
			"outbox_connector_state{connector=ok,outbox=a,state=RUNNING}":            1,
		} {
			if v, ok := got[k]; !ok || v != want {
				t.Errorf("round %d: %s = %v (present %v), want %v", round, k, v, ok, want)
			}
		}
		for k := range got {
			if strings.Contains(k, "outbox=unresolved") && !strings.HasPrefix(k, "outbox_up{") && !strings.HasPrefix(k, "outbox_scrape_") && !strings.HasPrefix(k, "outbox_target_error{") {
				t.Errorf("round %d: series of an unresolved outbox: %s", round, k)
			}
		}
	}
	out := logs.String()
	if n := strings.Count(out, "exporter target failing"); n != 3 {
		t.Errorf("%d failing lines after 3 scrapes of 3 failing targets, want 3 (once per change):\n%s", n, out)
	}
	for _, want := range []string{"outbox=refused reason=unreachable", "connection refused", "outbox=unresolved reason=config", "PW is not set", "outbox=nodsn reason=missing", "pass --dsn nodsn=DSN"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}

	// Connect hangs, then answers again: one failing line, one recovered.
	logs.Reset()
	fake.Hang("GET /connectors/ok/status", true)
	c2 := newCollector(t, exporter.Config{Connect: client, Timeout: 300 * time.Millisecond,
		Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
		Targets: []exporter.Target{{Outbox: outboxNamed("a", spec.Postgres), Connector: "ok"}}})
	scrape(t, c2)
	scrape(t, c2)
	fake.Hang("GET /connectors/ok/status", false)
	got, _ := scrape(t, c2)
	scrape(t, c2)
	if v := got["outbox_target_error{outbox=a,reason=timeout,target=connect}"]; v != 0 {
		t.Errorf("reason timeout after recovery = %v, want 0", v)
	}
	out = logs.String()
	if strings.Count(out, "exporter target failing") != 1 || !strings.Contains(out, "reason=timeout") || strings.Count(out, "exporter target recovered") != 1 {
		t.Errorf("want one failing (timeout) and one recovered line:\n%s", out)
	}
}

func TestReason(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.DeadlineExceeded, exporter.ReasonTimeout},
		{fmt.Errorf("status: %w", connect.ErrTimeout), exporter.ReasonTimeout},
		{fmt.Errorf("status: %w", connect.ErrUnreachable), exporter.ReasonUnreachable},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, exporter.ReasonUnreachable},
		{&net.DNSError{Err: "no such host", Name: "db"}, exporter.ReasonUnreachable},
		{fmt.Errorf("slot: %w", &pgconn.PgError{Code: "28P01", Message: "password authentication failed"}), exporter.ReasonAuth},
		{&pgconn.PgError{Code: "42501", Message: "permission denied for table outbox"}, exporter.ReasonAuth},
		{errors.New("Error 1045 (28000): Access denied for user 'dbz'@'%'"), exporter.ReasonAuth},
		{errors.New("kafka: Local: All brokers are down"), exporter.ReasonUnreachable},
		{errors.New("something else"), exporter.ReasonError},
		{fmt.Errorf("outbox orders: %w: pass --dsn orders=DSN", exporter.ErrNoDSN), exporter.ReasonMissing},
	} {
		if got := exporter.Reason(tc.err); got != tc.want {
			t.Errorf("Reason(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}
