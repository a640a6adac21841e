package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Millis is a duration reported in milliseconds (JSON: a number with
// microsecond precision).
type Millis time.Duration

// MarshalJSON writes the duration in milliseconds.
func (m Millis) MarshalJSON() ([]byte, error) { return json.Marshal(m.Float()) }

// UnmarshalJSON reads milliseconds.
func (m *Millis) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*m = Millis(time.Duration(f * float64(time.Millisecond)))
	return nil
}

// Float is the duration in milliseconds, rounded to microseconds.
func (m Millis) Float() float64 {
	return math.Round(float64(time.Duration(m))/float64(time.Microsecond)) / 1000
}

func (m Millis) String() string { return fmt.Sprintf("%.1f ms", m.Float()) }

// Latency percentiles, commit → handler.
type Latency struct {
	P50  Millis `json:"p50"`
	P90  Millis `json:"p90"`
	P99  Millis `json:"p99"`
	P999 Millis `json:"p999"`
	Max  Millis `json:"max"`
}

// Report is the result of a run (of the best sustained step of a RateMax
// search).
type Report struct {
	// Publisher is what moved the rows from the outbox table to Kafka:
	// PublisherCDC or PublisherRelay (filled by the caller).
	Publisher    string  `json:"publisher"`
	Sent         int     `json:"sent"`
	Handled      int     `json:"handled"`
	Lost         int     `json:"lost"`
	Duplicates   int     `json:"duplicates"`
	Reordered    int     `json:"reordered"`
	RateTarget   float64 `json:"rate_target"`
	RateAchieved float64 `json:"rate_achieved"`
	Latency      Latency `json:"latency_ms"`

	// MaxSendDelay is the largest delay of a send behind its schedule
	// (counted in its latency).
	MaxSendDelay Millis `json:"max_send_delay_ms"`
	// CPUPercent is the CPU time (user and system) of the bench's process
	// (writers, consumer, an in-process relay) over the step's wall time,
	// sending and draining, in percent of one core (200 = two cores busy).
	CPUPercent float64 `json:"cpu_percent"`
	// Load1 is the machine's 1-minute load average at the end of the step
	// (absent where unknown).
	Load1 *float64 `json:"load1,omitempty"`
	// SendErrors counts events whose transaction failed (not committed,
	// so not counted as sent); FirstSendError is the first such error.
	SendErrors     int    `json:"send_errors"`
	FirstSendError string `json:"first_send_error,omitempty"`
	// Foreign counts records of the bench's topic that no event of the
	// run matched (a wrong id).
	Foreign int `json:"foreign"`
	// EffectsCounted: handled and duplicates come from the effects table
	// written in the inbox transaction.
	EffectsCounted bool `json:"effects_counted"`
	// Baseline is the bare consumer's account of the same events
	// (Options.Baseline), and SDKOverheadP50 the SDK consumer's p50 minus
	// the bare consumer's: what the SDK (and the inbox, with one) adds.
	Baseline       *Baseline `json:"baseline,omitempty"`
	SDKOverheadP50 *Millis   `json:"sdk_overhead_p50_ms,omitempty"`
	// Setup describes what was measured (filled by the caller).
	Setup *Setup `json:"setup,omitempty"`
	// Search is set for a RateMax run.
	Search *Search `json:"search,omitempty"`

	samples []time.Duration
}

// Baseline is what a bare confluent-kafka-go consumer (no SDK, no inbox),
// reading the same topic in the same run, saw: the committed events it
// read and their latency commit -> read.
type Baseline struct {
	Received int     `json:"received"`
	Latency  Latency `json:"latency_ms"`
}

// Setup describes the measured pipeline.
type Setup struct {
	Outbox     string `json:"outbox"`
	Database   string `json:"database"`
	Format     string `json:"payload_format"`
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	// Batch is the consumer's inbox batch size (0: one record per
	// transaction).
	Batch int    `json:"batch,omitempty"`
	Inbox string `json:"inbox,omitempty"`
	// Relay describes the relay (poll interval, LISTEN, separate process,
	// batch) with PublisherRelay.
	Relay      string  `json:"relay,omitempty"`
	Duration   float64 `json:"duration_s"`
	Aggregates int     `json:"aggregates"`
}

// Search is the course of a RateMax search.
type Search struct {
	// MaxSustained is the highest rate sustained (0: none was).
	MaxSustained float64       `json:"max_sustained"`
	LagBound     Millis        `json:"lag_bound_ms"`
	Steps        []StepSummary `json:"steps"`
}

// StepSummary is one step of a search.
type StepSummary struct {
	Rate         float64 `json:"rate"`
	Sustained    bool    `json:"sustained"`
	Sent         int     `json:"sent"`
	Handled      int     `json:"handled"`
	Lost         int     `json:"lost"`
	Duplicates   int     `json:"duplicates"`
	Reordered    int     `json:"reordered"`
	RateAchieved float64 `json:"rate_achieved"`
	P99          Millis  `json:"p99_ms"`
	// MaxSendDelay, CPUPercent and Load1 are the Report's of the step.
	MaxSendDelay Millis   `json:"max_send_delay_ms"`
	CPUPercent   float64  `json:"cpu_percent"`
	Load1        *float64 `json:"load1,omitempty"`
}

// Failed reports whether a check failed: an event lost, handled twice or
// out of order.
func (r *Report) Failed() bool { return r.Lost > 0 || r.Duplicates > 0 || r.Reordered > 0 }

// Samples returns every latency measured (one per handled event).
func (r *Report) Samples() []time.Duration { return r.samples }

func (r *Report) sustained(lagBound time.Duration) bool {
	return !r.Failed() && r.SendErrors == 0 && r.Sent > 0 &&
		r.RateAchieved >= 0.9*r.RateTarget && time.Duration(r.Latency.P99) <= lagBound
}

// Summary is a one-line account of the counts and p99.
func (r *Report) Summary() string {
	return fmt.Sprintf("sent %d, handled %d, lost %d, duplicates %d, reordered %d, %.1f/s achieved, p50 %s, p99 %s",
		r.Sent, r.Handled, r.Lost, r.Duplicates, r.Reordered, r.RateAchieved, r.Latency.P50, r.Latency.P99)
}

// Text renders the report for people.
func (r *Report) Text() string {
	var b strings.Builder
	if st := r.Setup; st != nil {
		inb := "no inbox"
		if st.Inbox != "" {
			inb = "inbox " + st.Inbox
		}
		if st.Batch > 1 {
			inb += fmt.Sprintf(", batches of up to %d", st.Batch)
		}
		pub := r.Publisher
		if st.Relay != "" {
			pub += " (" + st.Relay + ")"
		}
		fmt.Fprintf(&b, "outbox %s (%s, %s) -%s-> topic %s (%d partitions), %s, %d aggregates\n",
			st.Outbox, st.Database, st.Format, pub, st.Topic, st.Partitions, inb, st.Aggregates)
	}
	if s := r.Search; s != nil {
		b.WriteString("rate search (sustained: nothing lost, duplicated or reordered, >= 90 % of the target sent, p99 <= " + s.LagBound.String() + "):\n")
		for _, st := range s.Steps {
			mark := "no"
			if st.Sustained {
				mark = "yes"
			}
			fmt.Fprintf(&b, "  %8.0f/s  sustained %-3s  sent %d, handled %d, lost %d, duplicates %d, reordered %d, achieved %.1f/s, p99 %s, send delay %s, cpu %.0f %%%s\n",
				st.Rate, mark, st.Sent, st.Handled, st.Lost, st.Duplicates, st.Reordered, st.RateAchieved, st.P99, st.MaxSendDelay, st.CPUPercent, loadText(st.Load1))
		}
		if s.MaxSustained > 0 {
			fmt.Fprintf(&b, "max sustained rate: %.0f events/s (the step below)\n", s.MaxSustained)
		} else {
			b.WriteString("no rate was sustained (the first step below)\n")
		}
	}
	fmt.Fprintf(&b, "sent %d, handled %d, lost %d, duplicates %d, reordered %d\n", r.Sent, r.Handled, r.Lost, r.Duplicates, r.Reordered)
	fmt.Fprintf(&b, "rate: target %.1f/s, achieved %.1f/s (largest send delay %s)\n", r.RateTarget, r.RateAchieved, r.MaxSendDelay)
	fmt.Fprintf(&b, "cpu of the bench process: %.0f %% of one core%s\n", r.CPUPercent, loadText(r.Load1))
	l := r.Latency
	fmt.Fprintf(&b, "latency commit->handler: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s\n", l.P50, l.P90, l.P99, l.P999, l.Max)
	if bl := r.Baseline; bl != nil {
		l := bl.Latency
		fmt.Fprintf(&b, "baseline (bare consumer, no SDK): read %d, p50 %s, p90 %s, p99 %s, p99.9 %s, max %s\n", bl.Received, l.P50, l.P90, l.P99, l.P999, l.Max)
		if d := r.SDKOverheadP50; d != nil {
			fmt.Fprintf(&b, "SDK overhead (p50 minus the baseline's p50): %s\n", *d)
		}
	}
	if r.SendErrors > 0 {
		fmt.Fprintf(&b, "send errors: %d (first: %s)\n", r.SendErrors, r.FirstSendError)
	}
	if r.Foreign > 0 {
		fmt.Fprintf(&b, "records matching no event of the run: %d\n", r.Foreign)
	}
	if r.Failed() {
		b.WriteString("CHECK FAILED: events lost, duplicated or out of order\n")
	} else {
		b.WriteString("ok: every committed event handled once, in order per aggregate\n")
	}
	return b.String()
}

// loadText is ", load L" for a known load average.
func loadText(l *float64) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf(", load %.2f", *l)
}
