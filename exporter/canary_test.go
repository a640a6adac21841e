package exporter_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/outboxctl/outboxctl/exporter"
)

func noRun(context.Context) ([]exporter.CanaryStage, bool, error) { return nil, true, nil }

// TestProbeOnce: a probe's result is ok, failed (ErrCanaryFailed) or
// error (any other error, or not ok); an interrupted run is not recorded;
// the latency of ok and failed stages is exported.
func TestProbeOnce(t *testing.T) {
	probe := func(name string, stages []exporter.CanaryStage, ok bool, err error) exporter.Probe {
		return exporter.Probe{Outbox: name, Run: func(context.Context) ([]exporter.CanaryStage, bool, error) { return stages, ok, err }}
	}
	c := newCollector(t, exporter.Config{ProbeInterval: 1, Probes: []exporter.Probe{
		probe("good", []exporter.CanaryStage{{Stage: "topic", Status: "ok", LatencyMs: 250}, {Stage: "decode", Status: "skipped"}}, true, nil),
		probe("broken", []exporter.CanaryStage{{Stage: "topic", Status: "failed", LatencyMs: 1500}}, false, fmt.Errorf("%w: no record", exporter.ErrCanaryFailed)),
		probe("blind", nil, false, errors.New("connection refused")),
		probe("cut", nil, false, fmt.Errorf("%w: ctx", exporter.ErrCanaryInterrupted)),
	}})
	c.ProbeOnce(context.Background())
	got, _ := scrape(t, c)
	for k, want := range map[string]float64{
		"outbox_canary_success{outbox=good}":                     1,
		"outbox_canary_success{outbox=broken}":                   0,
		"outbox_canary_success{outbox=blind}":                    0,
		"outbox_canary_runs_total{outbox=broken,result=failed}":  1,
		"outbox_canary_runs_total{outbox=blind,result=error}":    1,
		"outbox_canary_runs_total{outbox=good,result=ok}":        1,
		"outbox_canary_stage_seconds{outbox=good,stage=topic}":   0.25,
		"outbox_canary_stage_seconds{outbox=broken,stage=topic}": 1.5,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	for k := range got {
		if k == "outbox_canary_success{outbox=cut}" || k == "outbox_canary_stage_seconds{outbox=good,stage=decode}" {
			t.Errorf("unexpected series %s", k)
		}
	}
}
