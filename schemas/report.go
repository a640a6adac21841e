package schemas

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/outboxctl/outboxctl/findings"
)

// The rule IDs of schema check and schema validate findings. The
// incompatibility itself (TYPE_MISMATCH, READER_FIELD_MISSING_DEFAULT_VALUE,
// …) is Avro Java's and leads the message.
const (
	// RuleSchemaInvalid: the schema does not parse as Confluent's registry
	// would parse it (schema validate).
	RuleSchemaInvalid = "SCHEMA_INVALID"
	// RuleSchemaIncompatible: the schema breaks a previous version at the
	// subject's compatibility level.
	RuleSchemaIncompatible = "SCHEMA_INCOMPATIBLE"
	// RuleSchemaBreakAccepted: an incompatibility let through by the
	// accepted-breaks file.
	RuleSchemaBreakAccepted = "SCHEMA_BREAK_ACCEPTED"
	// RuleSchemaSubjectNew: a new subject (event type or major version).
	RuleSchemaSubjectNew = "SCHEMA_SUBJECT_NEW"
)

// Rules are the rules of schema check and schema validate.
var Rules = findings.Rules{
	{ID: RuleSchemaInvalid, Severity: findings.SeverityError, Purpose: "the schema parses as Confluent Schema Registry (Avro Java 1.12) parses it"},
	{ID: RuleSchemaIncompatible, Severity: findings.SeverityError, Purpose: "the schema is compatible with the previous versions of its subject at the subject's level", Hint: "make the change compatible, start a new major version, or add the break to " + DefaultAcceptedBreaksFile},
	{ID: RuleSchemaBreakAccepted, Severity: findings.SeverityWarning, Purpose: "an incompatibility is let through by the accepted-breaks file"},
	{ID: RuleSchemaSubjectNew, Severity: findings.SeverityInfo, Purpose: "a new subject: a new event type or major version, with no previous version to check against"},
}

// Findings returns the report as findings: one per problem of an
// incompatible (error) or accepted (warning) result, placed at the problem
// in the candidate file, and one note per new subject.
func (r *CheckReport) Findings() []findings.Finding {
	var out []findings.Finding
	for _, res := range r.Results {
		switch res.Status {
		case StatusIncompatible, StatusAccepted:
			rule, sev := RuleSchemaIncompatible, findings.SeverityError
			if res.Status == StatusAccepted {
				rule, sev = RuleSchemaBreakAccepted, findings.SeverityWarning
			}
			for _, p := range res.Problems {
				msg := fmt.Sprintf("%s: %s at %s: %s (against %s%s, version %d)", res.Subject, p.Type, p.Location, p.Message, res.Against, levelNote(res), p.Version)
				if res.Status == StatusAccepted {
					msg += "; accepted: " + res.Accepted.Reason
				}
				out = append(out, findings.Finding{Rule: rule, Severity: sev, File: p.File, Line: p.Line, Col: p.Col, Message: msg})
			}
		case StatusNew:
			out = append(out, findings.Finding{Rule: RuleSchemaSubjectNew, Severity: findings.SeverityInfo, File: res.File, Line: res.Line, Col: res.Col,
				Message: res.Subject + ": " + res.Note + " (against " + res.Against + ")"})
		}
	}
	return out
}

// SummaryLine is the report's counts in one line.
func (r *CheckReport) SummaryLine() string {
	s := r.Summary
	return fmt.Sprintf("%d compatible, %d incompatible, %d new, %d accepted, %d skipped", s.Compatible, s.Incompatible, s.New, s.Accepted, s.Skipped)
}

func levelNote(r CheckResult) string {
	if r.Level == "" {
		return ""
	}
	return ", " + r.Level
}

// WriteText writes the report for a terminal: a line per result with its
// problems, how to accept an incompatible one, and the verdict.
func (r *CheckReport) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, res := range r.Results {
		head := fmt.Sprintf("%s:%d:%d: %s %s (against %s%s)", res.File, res.Line, res.Col, res.Status, res.Subject, res.Against, levelNote(res))
		switch res.Status {
		case StatusNew, StatusSkipped:
			head += ": " + res.Note
		case StatusAccepted:
			head += ": accepted break (" + res.Accepted.Reason + ")"
		}
		b.WriteString(head + "\n")
		for _, p := range res.Problems {
			fmt.Fprintf(&b, "  %s:%d:%d: %s at %s: %s (%s, against version %d)\n", p.File, p.Line, p.Col, p.Type, p.Location, p.Message, p.Direction, p.Version)
		}
		if res.Status == StatusIncompatible {
			fmt.Fprintf(&b, "  to accept this break, add to %s: {subject: %s, fingerprint: %s, reason: ...}\n", DefaultAcceptedBreaksFile, res.Subject, res.Fingerprint)
		}
	}
	verdict := "compatible"
	if !r.Compatible {
		verdict = "INCOMPATIBLE"
	}
	fmt.Fprintf(&b, "schema check: %s: %s\n", verdict, r.SummaryLine())
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as a Markdown section for
// $GITHUB_STEP_SUMMARY: the verdict and a table of the results.
func (r *CheckReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("## Schema check\n\n")
	if r.Compatible {
		fmt.Fprintf(&b, "**Compatible**: %s.\n\n", r.SummaryLine())
	} else {
		fmt.Fprintf(&b, "**Incompatible**: %s.\n\n", r.SummaryLine())
	}
	if len(r.Results) == 0 {
		b.WriteString("No schemas in the spec.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	cell := findings.MarkdownCell
	b.WriteString("| Status | Subject | Schema | Against | Details |\n|---|---|---|---|---|\n")
	for _, res := range r.Results {
		var details []string
		for _, p := range res.Problems {
			details = append(details, fmt.Sprintf("`%s` at `%s` (line %d): %s", p.Type, p.Location, p.Line, p.Message))
		}
		switch res.Status {
		case StatusAccepted:
			details = append(details, "accepted: "+res.Accepted.Reason)
		case StatusNew, StatusSkipped:
			details = append(details, res.Note)
		case StatusIncompatible:
			details = append(details, "fingerprint `"+res.Fingerprint+"`")
		}
		status := string(res.Status)
		if res.Status == StatusIncompatible {
			status = "**incompatible**"
		}
		against := res.Against
		if res.Level != "" {
			against += " (" + res.Level + ")"
		}
		fmt.Fprintf(&b, "| %s | `%s` | `%s:%d` | %s | %s |\n", status, cell(res.Subject), cell(res.File), res.Line, cell(against), cell(strings.Join(details, "<br>")))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// RepoPath makes path relative to the root of the git work tree that holds
// it (GitHub places annotations by repository path), or returns it
// unchanged outside a work tree. It looks for .git upwards and runs no git.
func RepoPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				return filepath.ToSlash(rel)
			}
			return path
		}
		if filepath.Dir(dir) == dir {
			return path
		}
	}
}
