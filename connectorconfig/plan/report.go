package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
)

// RenderReportText writes the deploy report for humans: one line per
// connector, then the trace of every failed one.
func RenderReportText(w io.Writer, r Report) error {
	var b strings.Builder
	ok := 0
	for _, res := range r.Results {
		mark := "ok    "
		if !res.Converged {
			mark = "FAILED"
		} else {
			ok++
		}
		what := "no change"
		if len(res.Written) > 0 {
			what = strings.Join(res.Written, ", ")
		}
		switch {
		case res.Interrupted == InterruptedNotWritten:
			what = "not written (interrupted)"
		case res.Interrupted == InterruptedInFlight:
			what = strings.TrimPrefix(what+", ", "no change, ") + "request abandoned"
		case res.WriteFailed:
			what = strings.TrimPrefix(what+", ", "no change, ") + "write refused"
		}
		line := fmt.Sprintf("%s %s: %s; %s", mark, res.Name, what, wantedText(res))
		if res.Reason != "" {
			line += ": " + res.Reason
		}
		b.WriteString(line + "\n")
	}
	for _, res := range r.Results {
		if res.Trace != "" {
			fmt.Fprintf(&b, "\ntrace of %s:\n%s\n", res.Name, indent(firstLines(res.Trace, 12)))
		}
	}
	if r.Interrupted {
		fmt.Fprintf(&b, "\nDeploy interrupted: %d of %d connector(s) written, %d converged; the rest were not written.\n", r.Written(), len(r.Results), ok)
	} else {
		fmt.Fprintf(&b, "\nDeploy: %d of %d connector(s) converged.\n", ok, len(r.Results))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func wantedText(res Result) string {
	if res.Wanted == "deleted" {
		if res.Converged {
			return "deleted"
		}
		return "not deleted"
	}
	if res.State == notChecked {
		return strings.ToUpper(res.Wanted) + " not checked (--no-wait)"
	}
	if res.Converged {
		return strings.ToUpper(res.Wanted)
	}
	return "not " + strings.ToUpper(res.Wanted)
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines)", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// JSONReport is the JSON contract of a deploy report.
type JSONReport struct {
	FormatVersion string             `json:"format_version"`
	Plan          JSONPlan           `json:"plan"`
	Server        connect.ServerInfo `json:"server"`
	Results       []Result           `json:"results"`
	Converged     bool               `json:"converged"`
	// Interrupted: SIGINT or SIGTERM stopped the deploy (see Result.Interrupted).
	Interrupted bool `json:"interrupted,omitempty"`
}

// RenderReportJSON writes the plan and the report as one JSON document.
func RenderReportJSON(w io.Writer, p Plan, r Report) error {
	res := r.Results
	if res == nil {
		res = []Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(JSONReport{FormatVersion: FormatVersion, Plan: p.ToJSON(), Server: r.Server, Results: res, Converged: r.Converged(), Interrupted: r.Interrupted})
}
