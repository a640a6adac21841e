package bench

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Comparison is the result of `outboxctl bench --compare`: the same rates
// measured on two outboxes (typically one at-least-once and one
// exactly-once connector) in one run, one after the other at each rate.
type Comparison struct {
	// Runs are in the order they ran: for each rate, the first outbox,
	// then the second.
	Runs []ComparisonRun `json:"runs"`
}

// ComparisonRun is one measured rate of one outbox.
type ComparisonRun struct {
	Outbox string `json:"outbox"`
	// Delivery is the outbox's delivery (spec delivery).
	Delivery string  `json:"delivery"`
	Rate     float64 `json:"rate"`
	Report   *Report `json:"report"`
}

// Failed reports whether a run of the comparison failed a check.
func (c *Comparison) Failed() bool {
	for _, r := range c.Runs {
		if r.Report.Failed() {
			return true
		}
	}
	return false
}

// P99Ratio is, at rate, the second outbox's p99 over the first's (0 when a
// run is missing or the first p99 is 0).
func (c *Comparison) P99Ratio(rate float64) float64 {
	var ps []Millis
	for _, r := range c.Runs {
		if r.Rate == rate {
			ps = append(ps, r.Report.Latency.P99)
		}
	}
	if len(ps) != 2 || ps[0] == 0 {
		return 0
	}
	return ps[1].Float() / ps[0].Float()
}

// Text renders the comparison as a table, with the p99 ratio per rate.
func (c *Comparison) Text() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RATE/S\tOUTBOX\tDELIVERY\tSENT\tHANDLED\tLOST\tDUPLICATES\tREORDERED\tACHIEVED/S\tP50\tP99\tP99.9")
	var rates []float64
	seen := map[float64]bool{}
	for _, r := range c.Runs {
		if !seen[r.Rate] {
			seen[r.Rate] = true
			rates = append(rates, r.Rate)
		}
		rp := r.Report
		fmt.Fprintf(tw, "%.0f\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.1f\t%s\t%s\t%s\n", r.Rate, r.Outbox, r.Delivery,
			rp.Sent, rp.Handled, rp.Lost, rp.Duplicates, rp.Reordered, rp.RateAchieved, rp.Latency.P50, rp.Latency.P99, rp.Latency.P999)
	}
	_ = tw.Flush()
	for _, rate := range rates {
		if x := c.P99Ratio(rate); x > 0 {
			fmt.Fprintf(&b, "at %.0f/s: p99 of the second outbox is %.2f× the first's\n", rate, x)
		}
	}
	if c.Failed() {
		b.WriteString("CHECK FAILED: events lost, duplicated or out of order\n")
	} else {
		b.WriteString("ok: every committed event handled once, in order per aggregate, in every run\n")
	}
	return b.String()
}
