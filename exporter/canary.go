package exporter

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/outboxctl/outboxctl/verify"
)

// Canary results: the result label of outbox_canary_runs_total.
const (
	CanaryOK     = "ok"     // every stage passed
	CanaryFailed = "failed" // a stage failed (verify.ErrFailed): the pipeline is broken
	CanaryError  = "error"  // the prober could not check (its own connection, a server that did not answer)
)

var (
	descCanarySuccess = newDesc("outbox_canary_success", "1 when the last canary (verify's) passed every stage, 0 when a stage failed or the prober could not check it.", outboxLabels, nil)
	descCanaryStage   = newDesc("outbox_canary_stage_seconds", "Latency of each stage the last canary checked (ok or failed).", append(outboxLabels, "stage"), nil)
	descCanaryLast    = newDesc("outbox_canary_last_run_timestamp_seconds", "When the last canary ended (Unix seconds).", outboxLabels, nil)
	descCanaryRuns    = newDesc("outbox_canary_runs_total", "Canaries run, by result (ok, failed, error).", append(outboxLabels, "result"), nil)

	canaryDescs = []*prometheus.Desc{descCanarySuccess, descCanaryStage, descCanaryLast, descCanaryRuns}
)

// canaryState is the last canary of one outbox and its counts.
type canaryState struct {
	ran    bool
	result string
	stages []verify.StageResult
	at     time.Time
	runs   map[string]float64
}

// RunProbes runs the canary of each Config.Probes now and then every
// Config.ProbeInterval until ctx ends (one outbox after the other; a run
// is bounded by its verify.Options.Timeout). It returns at once when
// there are no probes.
func (c *Collector) RunProbes(ctx context.Context) {
	if len(c.cfg.Probes) == 0 || c.cfg.ProbeInterval <= 0 {
		return
	}
	t := time.NewTicker(c.cfg.ProbeInterval)
	defer t.Stop()
	for {
		c.ProbeOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ProbeOnce runs the canary of each Config.Probes once and records the
// results for the next scrapes. A run cut short by ctx is not recorded.
func (c *Collector) ProbeOnce(ctx context.Context) {
	for _, p := range c.cfg.Probes {
		if ctx.Err() != nil {
			return
		}
		rep, err := verify.Run(ctx, p)
		if errors.Is(err, verify.ErrInterrupted) || ctx.Err() != nil {
			return
		}
		result := CanaryOK
		switch {
		case errors.Is(err, verify.ErrFailed):
			result = CanaryFailed
		case err != nil || !rep.OK:
			result = CanaryError
		}
		name := p.Outbox.Name
		c.canaryMu.Lock()
		st := c.canary[name]
		if st == nil {
			st = &canaryState{runs: map[string]float64{CanaryOK: 0, CanaryFailed: 0, CanaryError: 0}}
			c.canary[name] = st
		}
		was := st.result
		st.ran, st.result, st.stages, st.at = true, result, rep.Stages, c.cfg.Now()
		st.runs[result]++
		c.canaryMu.Unlock()
		if c.cfg.Logger != nil && result != was {
			attrs := []any{slog.String("outbox", name), slog.String("result", result)}
			if err != nil {
				attrs = append(attrs, slog.String("error", err.Error()))
			}
			c.cfg.Logger.Info("exporter canary", attrs...)
		}
	}
}

// collectCanary sends the last canary of each probed outbox.
func (c *Collector) collectCanary(ch chan<- prometheus.Metric) {
	c.canaryMu.Lock()
	defer c.canaryMu.Unlock()
	for _, p := range c.cfg.Probes {
		name := p.Outbox.Name
		st := c.canary[name]
		if st == nil || !st.ran {
			continue
		}
		ch <- gauge(descCanarySuccess, b2f(st.result == CanaryOK), name)
		ch <- gauge(descCanaryLast, float64(st.at.UnixNano())/1e9, name)
		for _, r := range []string{CanaryOK, CanaryFailed, CanaryError} {
			ch <- prometheus.MustNewConstMetric(descCanaryRuns, prometheus.CounterValue, st.runs[r], name, r)
		}
		for _, s := range st.stages {
			if s.Status == "ok" || s.Status == "failed" {
				ch <- gauge(descCanaryStage, s.LatencyMs/1000, name, s.Stage)
			}
		}
	}
}
