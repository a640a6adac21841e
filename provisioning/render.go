package provisioning

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	findingsmodel "github.com/outboxctl/outboxctl/findings"
)

// The text renderers of provision's Result and doctor's Report, beside
// each other as connectorconfig/plan's are (RenderText, RenderReportText).
// The structured forms are the types' JSON (findingsmodel.WriteJSON).

// RenderText writes provision's result as text: per outbox the steps
// applied (statements of one action and description on one line, with
// their number) or, for a dry run, the steps that would be applied with
// their SQL; then the topics and the findings with their counts.
func RenderText(w io.Writer, rep Result) error {
	var b strings.Builder
	verb := "applied"
	if rep.DryRun {
		verb = "would apply"
	}
	for _, d := range rep.Databases {
		if len(d.Steps) == 0 {
			fmt.Fprintf(&b, "outbox %s (%s): database up to date\n", d.Outbox, d.Kind)
			continue
		}
		fmt.Fprintf(&b, "outbox %s (%s): %s %d steps\n", d.Outbox, d.Kind, verb, len(d.Steps))
		for i := 0; i < len(d.Steps); i++ {
			s := d.Steps[i]
			if !rep.DryRun {
				// Statements of one action and description (two GRANTs
				// "let dbz read the outbox table") are one line.
				n := 1
				for i+n < len(d.Steps) && d.Steps[i+n].ID == s.ID && d.Steps[i+n].Description == s.Description {
					n++
				}
				if n > 1 {
					fmt.Fprintf(&b, "+ %s: %s (%d statements)\n", s.ID, s.Description, n)
					i += n - 1
					continue
				}
			}
			fmt.Fprintf(&b, "+ %s: %s\n", s.ID, s.Description)
			if rep.DryRun {
				for _, l := range strings.Split(s.Display, "\n") {
					fmt.Fprintf(&b, "    %s\n", l)
				}
			}
		}
	}
	b.WriteString(RenderTopicResults(rep.Topics))
	writeFindings(&b, rep.Findings)
	_, err := io.WriteString(w, b.String())
	return err
}

// RenderReportText writes doctor's report as text: the findings with their
// counts, the consumer lag (tab-separated lines "lag group topic partition
// lag"), and the number of checks that could not run (the errors
// themselves are the caller's to print, on stderr).
func RenderReportText(w io.Writer, rep Report) error {
	var b strings.Builder
	writeFindings(&b, rep.Findings)
	for _, l := range rep.Lag {
		fmt.Fprintf(&b, "lag\t%s\t%s\t%d\t%d\n", l.Group, l.Topic, l.Partition, l.Lag)
	}
	if len(rep.Errors) > 0 {
		fmt.Fprintf(&b, "%d checks could not run (see stderr)\n", len(rep.Errors))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFindings prints the findings (findingsmodel.PrintText) and their counts.
func writeFindings(b *strings.Builder, fs []Finding) {
	all := Findings(fs)
	_ = findingsmodel.PrintText(b, all) // a strings.Builder does not fail
	c := findingsmodel.Count(all)
	fmt.Fprintf(b, "%d errors, %d warnings, %d notes\n", c.Errors, c.Warnings, c.Infos)
}

// RenderTopicResults writes results as text lines ("+ name (…)" to create,
// "= name" existing).
func RenderTopicResults(results []TopicResult) string {
	var b strings.Builder
	for _, r := range results {
		mark := "="
		if r.Action == "create" {
			mark = "+"
		}
		parts := "broker default"
		if r.Partitions > 0 {
			parts = strconv.Itoa(r.Partitions)
		}
		fmt.Fprintf(&b, "%s topic %s (%s, outbox %s, partitions %s", mark, r.Name, r.Purpose, r.Outbox, parts)
		if len(r.Config) > 0 {
			keys := make([]string, 0, len(r.Config))
			for k := range r.Config {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, ", %s=%s", k, r.Config[k])
			}
		}
		b.WriteString(")\n")
	}
	return b.String()
}
