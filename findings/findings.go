// Package findings is the one model of what a check reports, after buf's
// bufanalysis: a Finding has a rule ID, a severity, a position
// (file:line:col), a message and a hint (how to fix it). Findings are values,
// not errors.
//
// The check packages keep their own result types, whose JSON shapes are
// contracts of the CLI, and convert them to Findings:
// connectorconfig.Finding.Finding (validate), plan.Plan.FileFindings (plan,
// deploy), provisioning.Finding.Finding (doctor, provision; its rule IDs are
// documented in provisioning.Rules) and
// schemas.CheckReport.Findings (schema check; schema validate builds its
// SCHEMA_INVALID findings itself). The commands print Findings with the
// printers of this package: PrintText, PrintGitHubActions (workflow
// commands, escaped by EscapeData and EscapeProperty) and PrintSummary
// (Markdown for $GITHUB_STEP_SUMMARY, the --summary-file flag). WriteJSON is
// the one JSON encoding of the check commands' reports. Every check
// command's JSON names a finding's rule "rule" and its hint "hint" (doctor
// and provision also write their earlier keys "id" and "fix", deprecated
// aliases kept for one release).
//
// # Rule IDs
//
// Every rule ID is SCREAMING_SNAKE and reads like a sentence about the
// problem: SLOT_NAME_INVALID, TOPIC_PREFIX_CHANGE, PG_WAL_LEVEL. A rule that
// had another ID keeps it as an alias (Rule.Aliases): Rules.Lookup accepts
// both, so --allow and scripts that name an old ID keep working.
package findings

import (
	"fmt"
	"strings"
)

// Severity of a finding.
type Severity string

// The severities, most severe first.
const (
	// SeverityError: the thing checked does not work, loses or mangles
	// events, or is refused. A check with an error finding fails (exit 3).
	SeverityError Severity = "error"
	// SeverityWarning: it works, but probably not as intended or at a risk.
	SeverityWarning Severity = "warning"
	// SeverityInfo: worth knowing.
	SeverityInfo Severity = "info"
)

// rank orders severities, most severe first; unknown ones last.
func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	case SeverityInfo:
		return 2
	}
	return 3
}

// AtLeast reports whether s is as severe as min or more.
func (s Severity) AtLeast(min Severity) bool { return s.rank() <= min.rank() }

// Finding is one problem a rule found.
type Finding struct {
	// Rule is the rule's ID (see the package doc for the scheme).
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File, Line and Col place the finding; Line and Col are 1-based, 0
	// when not known, and File is "" when the finding is about a server
	// rather than a file.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	// Subject is what was checked when the position does not say it: a
	// connector and key, an outbox's table or setting, a subject.
	Subject string `json:"subject,omitempty"`
	Message string `json:"message"`
	// Hint says how to fix it: a setting, a statement, a command.
	Hint string `json:"hint,omitempty"`
}

// Pos is the finding's position as file:line:col, shortened to what is
// known ("file", "file:line"); "" without a file.
func (f Finding) Pos() string {
	switch {
	case f.File == "":
		return ""
	case f.Line == 0:
		return f.File
	case f.Col == 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
}

// Counts are the findings per severity.
type Counts struct {
	Errors, Warnings, Infos int
}

// Count counts fs per severity.
func Count(fs []Finding) Counts {
	var c Counts
	for _, f := range fs {
		switch f.Severity {
		case SeverityError:
			c.Errors++
		case SeverityWarning:
			c.Warnings++
		default:
			c.Infos++
		}
	}
	return c
}

// Failed reports whether any finding is at least as severe as min.
func Failed(fs []Finding, min Severity) bool {
	for _, f := range fs {
		if f.Severity.AtLeast(min) {
			return true
		}
	}
	return false
}

// Rule documents one rule: its ID, the IDs it had before, the severity of
// its findings, what it protects against and how to fix a finding. The
// rules of a check are its documentation (validate --list-rules, plan's
// help, `outboxctl help rules`).
type Rule struct {
	ID string `json:"id"`
	// Aliases are earlier IDs of the rule, still accepted as input.
	Aliases  []string `json:"aliases,omitempty"`
	Severity Severity `json:"severity,omitempty"`
	Purpose  string   `json:"purpose"`
	Hint     string   `json:"hint,omitempty"`
}

// Rules is a set of rules.
type Rules []Rule

// Lookup finds the rule with the ID or alias id (case and surrounding space
// do not matter).
func (rs Rules) Lookup(id string) (Rule, bool) {
	id = strings.ToUpper(strings.TrimSpace(id))
	for _, r := range rs {
		if r.ID == id {
			return r, true
		}
		for _, a := range r.Aliases {
			if a == id {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// Canonical returns the rule ID that id names (itself or an alias of it);
// an unknown id comes back upper-cased and trimmed, with ok false.
func (rs Rules) Canonical(id string) (canonical string, ok bool) {
	if r, ok := rs.Lookup(id); ok {
		return r.ID, true
	}
	return strings.ToUpper(strings.TrimSpace(id)), false
}

// IDs returns the rule IDs in order.
func (rs Rules) IDs() []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
