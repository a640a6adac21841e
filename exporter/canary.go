package exporter

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Probe is one outbox's canary, run by RunProbes: Run checks the pipeline
// once, end to end, and returns its stages and whether all passed.
// exporterkafka.Probe makes one of verify's canary (verify.Run).
type Probe struct {
	// Outbox is the outbox label of the probe's series.
	Outbox string
	// Run returns an error wrapping ErrCanaryFailed when a stage failed
	// (the pipeline is broken), ErrCanaryInterrupted when the run was cut
	// short (not recorded), any other error when it could not check.
	Run func(ctx context.Context) (stages []CanaryStage, ok bool, err error)
}

// CanaryStage is a stage of a canary run (verify.StageResult).
type CanaryStage struct {
	Stage string
	// Status: ok, failed, error or skipped; the latency of ok and failed
	// stages is exported.
	Status    string
	LatencyMs float64
}

var (
	// ErrCanaryFailed: a stage of the canary failed (verify.ErrFailed).
	ErrCanaryFailed = errors.New("canary stage failed")
	// ErrCanaryInterrupted: the canary was cut short (verify.ErrInterrupted).
	ErrCanaryInterrupted = errors.New("canary interrupted")
)

// Canary results: the result label of outbox_canary_runs_total.
const (
	CanaryOK     = "ok"     // every stage passed
	CanaryFailed = "failed" // a stage failed (ErrCanaryFailed): the pipeline is broken
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
	stages []CanaryStage
	at     time.Time
	runs   map[string]float64
}

// RunProbes runs the canary of each Config.Probes now and then every
// Config.ProbeInterval until ctx ends (one outbox after the other; a run
// is bounded by the probe, e.g. verify.Options.Timeout). It returns at once when
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
		stages, ok, err := p.Run(ctx)
		if errors.Is(err, ErrCanaryInterrupted) || ctx.Err() != nil {
			return
		}
		result := CanaryOK
		switch {
		case errors.Is(err, ErrCanaryFailed):
			result = CanaryFailed
		case err != nil || !ok:
			result = CanaryError
		}
		name := p.Outbox
		c.canaryMu.Lock()
		st := c.canary[name]
		if st == nil {
			st = &canaryState{runs: map[string]float64{CanaryOK: 0, CanaryFailed: 0, CanaryError: 0}}
			c.canary[name] = st
		}
		was := st.result
		st.ran, st.result, st.stages, st.at = true, result, stages, c.cfg.Now()
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
		name := p.Outbox
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
