// Package deploy_test checks the files under deploy/: the Prometheus alert
// rules (promtool check and unit tests, coverage of every alert) and the
// Grafana dashboard (valid JSON, templated data source, only metrics that
// the exporter exports).
package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/provisioning"
)

const (
	rulesFile     = "prometheus/outbox-rules.yaml"
	rulesTestFile = "prometheus/outbox-rules.test.yaml"
	dashboardFile = "grafana/outbox-dashboard.json"
)

// TestPromtoolRules runs promtool check rules and promtool test rules
// (Debian's prometheus package); it fails under CI=true without promtool.
func TestPromtoolRules(t *testing.T) {
	promtool := itest.RequireBinary(t, "promtool", "prometheus")
	for _, args := range [][]string{{"check", "rules", rulesFile}, {"test", "rules", rulesTestFile}} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if !strings.Contains(string(out), "SUCCESS") {
			t.Fatalf("promtool %s: no SUCCESS in\n%s", strings.Join(args, " "), out)
		}
	}
}

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Record string `yaml:"record"`
			Alert  string `yaml:"alert"`
			Expr   string `yaml:"expr"`
			For    string `yaml:"for"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

type ruleTests struct {
	Tests []struct {
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// wantAlerts are the alerts the issue asks for.
var wantAlerts = []string{"OutboxExporterDown", "OutboxExporterTargetDown", "OutboxConnectUnreachable",
	"OutboxSlotInactive", "OutboxSlotMissing", "OutboxSlotWALLost", "OutboxRetainedWALHigh", "OutboxConfirmedFlushStalled", "OutboxSlotHeadroomLow",
	"OutboxBinlogOffsetPurged", "OutboxBinlogRetentionLow", "OutboxBinlogLagHigh",
	"OutboxUnpublishedRowTooOld", "OutboxKeptRowTooOld", "OutboxConnectorNotRunning", "OutboxConnectorTaskNotRunning",
	"OutboxConsumerLagGrowing", "OutboxConsumerStalled", "OutboxConsumerLate", "OutboxCanaryFailing"}

// TestRulesCoverEveryAlert: every alert of the rules file has a promtool
// case where it fires and one where it does not, and the rules file has
// every alert the operations kit promises.
func TestRulesCoverEveryAlert(t *testing.T) {
	var rf ruleFile
	readYAML(t, rulesFile, &rf)
	var rt ruleTests
	readYAML(t, rulesTestFile, &rt)
	firing, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range rt.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				firing[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	var have []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			have = append(have, r.Alert)
			if !firing[r.Alert] {
				t.Errorf("alert %s: no promtool case where it fires", r.Alert)
			}
			if !quiet[r.Alert] {
				t.Errorf("alert %s: no promtool case where it does not fire", r.Alert)
			}
		}
	}
	for _, w := range wantAlerts {
		if !slices.Contains(have, w) {
			t.Errorf("rules file has no alert %s", w)
		}
	}
}

// metricRe matches the metric names of a PromQL expression: identifiers
// followed by a selector, a range or the end, that are not functions,
// keywords or label names inside braces (those are stripped first).
var (
	bracesRe  = regexp.MustCompile(`\{[^}]*\}`)
	byRe      = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	stringRe  = regexp.MustCompile(`"[^"]*"`)
	identRe   = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promqlOps = []string{"and", "or", "unless", "bool", "offset", "sum", "count", "min", "max", "avg", "rate", "delta", "deriv",
		"increase", "label_values", "topk", "bottomk", "abs", "clamp_min", "time", "vector", "absent", "humanize", "s", "m", "h", "d",
		"last_over_time", "avg_over_time", "min_over_time", "max_over_time", "group_left", "group_right"}
)

// metricsOf returns the metric names an expression reads.
func metricsOf(expr string) []string {
	e := stringRe.ReplaceAllString(expr, "")
	e = bracesRe.ReplaceAllString(e, "")
	e = byRe.ReplaceAllString(e, "")
	e = regexp.MustCompile(`\[[^\]]*\]`).ReplaceAllString(e, "")
	e = regexp.MustCompile(`\b\d+(\.\d+)?([eE][+-]?\d+)?\b`).ReplaceAllString(e, "")
	var out []string
	for _, id := range identRe.FindAllString(e, -1) {
		if !slices.Contains(promqlOps, id) {
			out = append(out, id)
		}
	}
	return out
}

func TestMetricsOf(t *testing.T) {
	for expr, want := range map[string][]string{
		`outbox_up == 0`: {"outbox_up"},
		`outbox_pg_slot_retained_wal_bytes > 1073741824 and delta(outbox_pg_slot_retained_wal_bytes[15m]) > 0`: {"outbox_pg_slot_retained_wal_bytes", "outbox_pg_slot_retained_wal_bytes"},
		`count by (connector) (outbox_connector_task_state{outbox=~"$outbox",state="RUNNING"} == 0)`:           {"outbox_connector_task_state"},
		`rate(node_cpu_seconds_total[5m])`: {"node_cpu_seconds_total"},
		`label_values(outbox_up, outbox)`:  {"outbox_up", "outbox"},
	} {
		if got := metricsOf(expr); !slices.Equal(got, want) {
			t.Errorf("metricsOf(%q) = %q, want %q", expr, got, want)
		}
	}
}

func checkExported(t *testing.T, where, expr string, extra ...string) {
	t.Helper()
	names := append(exporter.MetricNames(), extra...)
	ms := metricsOf(expr)
	if len(ms) == 0 {
		t.Errorf("%s: expression %q reads no metric", where, expr)
	}
	for _, m := range ms {
		if !slices.Contains(names, m) {
			t.Errorf("%s: expression %q reads %s, which the exporter does not export", where, expr, m)
		}
	}
}

// TestRulesReferenceExportedMetrics: every rule reads only the exporter's
// metrics, the series the file's own recording rules record, and
// Prometheus's up of the exporter's scrape job (a lost scrape).
func TestRulesReferenceExportedMetrics(t *testing.T) {
	var rf ruleFile
	readYAML(t, rulesFile, &rf)
	extra := []string{"up"}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				extra = append(extra, r.Record)
			}
		}
	}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			checkExported(t, "rule "+r.Alert+r.Record, r.Expr, extra...)
			if strings.Contains(r.Expr, "up{") && !strings.Contains(r.Expr, `up{job="outbox-exporter"}`) && !strings.Contains(r.Expr, "outbox_up{") {
				t.Errorf("rule %s reads up of a job other than outbox-exporter: %s", r.Alert, r.Expr)
			}
		}
	}
}

// TestRulesAgreeWithDoctor: the thresholds that doctor also checks are
// doctor's defaults (provisioning/thresholds.go) in the rules.
func TestRulesAgreeWithDoctor(t *testing.T) {
	var rf ruleFile
	readYAML(t, rulesFile, &rf)
	exprs := map[string]string{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			exprs[r.Alert] = r.Expr
		}
	}
	for _, tc := range []struct {
		alert, want string
	}{
		{"OutboxRetainedWALHigh", fmt.Sprintf("outbox_pg_slot_retained_wal_bytes > %d ", provisioning.DefaultMaxRetainedWAL)},
		{"OutboxBinlogLagHigh", fmt.Sprintf("outbox_binlog_lag_bytes > %d ", provisioning.DefaultMaxRetainedWAL)},
		{"OutboxUnpublishedRowTooOld", fmt.Sprintf("outbox_table_oldest_unpublished_row_age_seconds > %d", int(provisioning.DefaultMaxUnpublishedRowAge.Seconds()))},
		{"OutboxKeptRowTooOld", "outbox_table_oldest_row_age_seconds > on(outbox) group_left outbox_retention_seconds"},
		{"OutboxConsumerLagGrowing", fmt.Sprintf("outbox_consumer_group_lag > %d ", provisioning.DefaultMaxConsumerLag)},
		{"OutboxConsumerStalled", fmt.Sprintf("(outbox_consumer_group_lag > %d ", provisioning.DefaultMaxConsumerLag)},
	} {
		if e := exprs[tc.alert]; !strings.Contains(e+" ", tc.want) {
			t.Errorf("alert %s: expression %q, want it to contain %q (doctor's default)", tc.alert, e, tc.want)
		}
	}
}

type dashPanel struct {
	ID         int             `json:"id"`
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Datasource json.RawMessage `json:"datasource"`
	Targets    []struct {
		RefID      string          `json:"refId"`
		Expr       string          `json:"expr"`
		Datasource json.RawMessage `json:"datasource"`
	} `json:"targets"`
	Panels []dashPanel `json:"panels"` // rows
}

// TestDashboardLint: the dashboard is valid JSON with a uid and title, a
// datasource template variable that every panel and target uses, unique
// panel ids, and expressions that read only the exporter's metrics (the
// template variables' label_values queries included).
func TestDashboardLint(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID        string      `json:"uid"`
		Title      string      `json:"title"`
		Panels     []dashPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard needs a uid and a title")
	}
	hasDS := false
	for _, v := range d.Templating.List {
		switch v.Type {
		case "datasource":
			hasDS = hasDS || (v.Name == "datasource" && strings.Contains(string(v.Query), "prometheus"))
		case "query":
			var q struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(v.Query, &q); err != nil {
				t.Errorf("variable %s: query: %v", v.Name, err)
				continue
			}
			expr := strings.TrimSuffix(strings.TrimPrefix(q.Query, "label_values("), ")")
			metric, _, _ := strings.Cut(expr, ",")
			checkExported(t, "variable "+v.Name, metric)
		}
	}
	if !hasDS {
		t.Fatalf("dashboard has no prometheus datasource template variable named datasource")
	}
	templated := func(raw json.RawMessage) bool {
		var ds struct {
			Type string `json:"type"`
			UID  string `json:"uid"`
		}
		return json.Unmarshal(raw, &ds) == nil && ds.Type == "prometheus" && ds.UID == "${datasource}"
	}
	ids := map[int]bool{}
	var walk func([]dashPanel)
	n := 0
	walk = func(ps []dashPanel) {
		for _, p := range ps {
			n++
			where := "panel " + p.Title
			if ids[p.ID] {
				t.Errorf("%s: duplicate id %d", where, p.ID)
			}
			ids[p.ID] = true
			walk(p.Panels)
			if p.Type == "row" {
				continue
			}
			if !templated(p.Datasource) {
				t.Errorf("%s: datasource %s is not the ${datasource} variable", where, p.Datasource)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: no targets", where)
			}
			for _, tg := range p.Targets {
				if len(tg.Datasource) > 0 && !templated(tg.Datasource) {
					t.Errorf("%s target %s: datasource %s is not the ${datasource} variable", where, tg.RefID, tg.Datasource)
				}
				checkExported(t, where+" target "+tg.RefID, tg.Expr)
			}
		}
	}
	walk(d.Panels)
	if n == 0 {
		t.Fatal("dashboard has no panels")
	}
	// Every exported metric is on the dashboard.
	shown := string(b)
	for _, m := range exporter.MetricNames() {
		if !strings.Contains(shown, m) {
			t.Errorf("metric %s is on no panel", m)
		}
	}
}
