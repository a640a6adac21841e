package connectorconfig

import (
	"sort"
	"strings"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/spec"
)

// Severity of a finding: the one severity of package findings.
type Severity = findings.Severity

const (
	// SeverityError: Debezium or Connect rejects the config, the task fails,
	// or events are lost or mangled.
	SeverityError = findings.SeverityError
	// SeverityWarning: the config runs but probably not as intended.
	SeverityWarning = findings.SeverityWarning
	// SeverityInfo: worth knowing; nothing to fix in the config.
	SeverityInfo = findings.SeverityInfo
)

// Finding is one problem a rule found. Findings are values, not errors. Its
// JSON is validate's contract; Finding() is the same finding in the one
// model of package findings, which the printers take.
type Finding struct {
	// Rule is the rule ID, one of Rules (see RuleDocs).
	Rule      string   `json:"rule"`
	Severity  Severity `json:"severity"`
	File      string   `json:"file,omitempty"`
	Line      int      `json:"line,omitempty"`
	Col       int      `json:"col,omitempty"`
	Connector string   `json:"connector,omitempty"`
	// Key is the connector config key the finding is about.
	Key     string `json:"key,omitempty"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Pos returns the finding's position.
func (f Finding) Pos() spec.Pos { return spec.Pos{File: f.File, Line: f.Line, Col: f.Col} }

// Finding returns f in the model of package findings; its subject names the
// connector and the key.
func (f Finding) Finding() findings.Finding {
	var subject string
	switch {
	case f.Connector != "" && f.Key != "":
		subject = "connector " + f.Connector + ", key " + f.Key
	case f.Connector != "":
		subject = "connector " + f.Connector
	case f.Key != "":
		subject = "key " + f.Key
	}
	return findings.Finding{Rule: f.Rule, Severity: f.Severity, File: f.File, Line: f.Line, Col: f.Col, Subject: subject, Message: f.Message, Hint: f.Hint}
}

// Findings converts fs to the model of package findings.
func Findings(fs []Finding) []findings.Finding {
	out := make([]findings.Finding, len(fs))
	for i, f := range fs {
		out[i] = f.Finding()
	}
	return out
}

// Rule is one validation rule: a small unit with an ID, a one-line purpose
// and a fix hint. Every rule has a before/after fixture pair under
// testdata/rules/<ID>/{bad,good}.yaml.
type Rule struct {
	ID string
	// Aliases are the rule's earlier IDs (its code-prefixed ID, such as
	// PG001_SLOT_NAME_INVALID for SLOT_NAME_INVALID).
	Aliases  []string
	Severity Severity
	// Purpose says in one line what the rule protects against.
	Purpose string
	// Hint says how to fix a finding.
	Hint  string
	check func(r *Rule, v *validation)
}

// validation is the state shared by the rules of one Validate call.
type validation struct {
	spec       *spec.Spec
	connectors []Connector
	findings   []Finding
	// schemaFiles are the spec's schema files, read once (SR rules).
	schemaFiles map[string]*schemaFile
}

func (v *validation) outbox(c *Connector) *spec.Outbox {
	if v.spec == nil {
		return nil
	}
	for i := range v.spec.Outboxes {
		if v.spec.Outboxes[i].Name == c.Outbox {
			return &v.spec.Outboxes[i]
		}
	}
	return nil
}

// report adds a finding about key of c.
func (v *validation) report(r *Rule, c *Connector, key, msg string) {
	v.reportSev(r, r.Severity, c, key, msg)
}

func (v *validation) reportSev(r *Rule, sev Severity, c *Connector, key, msg string) {
	p := c.Positions[key]
	if p.IsZero() {
		if src, ok := ParseSource(c.Source); ok {
			p = src
		}
	}
	v.findings = append(v.findings, Finding{
		Rule: r.ID, Severity: sev, File: p.File, Line: p.Line, Col: p.Col,
		Connector: c.Name, Key: key, Message: msg, Hint: r.Hint,
	})
}

// ParseSource parses a Connector.Source of the form file:line:col (the file
// may contain ':'); ok is false for any other form.
func ParseSource(s string) (pos spec.Pos, ok bool) {
	// file:line:col, where file may contain ':'.
	parts := strings.Split(s, ":")
	if len(parts) < 3 {
		return spec.Pos{}, false
	}
	var line, col int
	if _, err := sscanInt(parts[len(parts)-2], &line); err != nil {
		return spec.Pos{}, false
	}
	if _, err := sscanInt(parts[len(parts)-1], &col); err != nil {
		return spec.Pos{}, false
	}
	return spec.Pos{File: strings.Join(parts[:len(parts)-2], ":"), Line: line, Col: col}, true
}

// Validate runs every rule over the generated connectors of s (s may be nil
// for connectors not built from a spec) and returns every finding, sorted by
// file, line, column and rule ID.
func Validate(s *spec.Spec, cs []Connector) []Finding {
	v := &validation{spec: s, connectors: cs}
	for i := range allRules {
		r := &allRules[i]
		r.check(r, v)
	}
	sort.SliceStable(v.findings, func(i, j int) bool {
		a, b := v.findings[i], v.findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
	return v.findings
}

// Rules returns the validation rules, in ID order.
func Rules() []Rule {
	out := append([]Rule(nil), allRules...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// RuleDocs returns the validation rules in the model of package findings,
// in ID order.
func RuleDocs() findings.Rules {
	var out findings.Rules
	for _, r := range Rules() {
		out = append(out, findings.Rule{ID: r.ID, Aliases: r.Aliases, Severity: r.Severity, Purpose: r.Purpose, Hint: r.Hint})
	}
	return out
}
