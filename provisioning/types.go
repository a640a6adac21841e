package provisioning

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/outboxctl/outboxctl/connectorconfig"
	// Aliased: the unexported findings type of checks.go collects them.
	findingsmodel "github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/spec"
)

// Sentinel errors.
var (
	// ErrInspect: the database could not be inspected (connection refused,
	// missing privilege to read the catalog).
	ErrInspect = errors.New("inspect database")
	// ErrApply: a provisioning step failed; the error names the step.
	ErrApply = errors.New("apply provisioning step")
	// ErrTopics: the Kafka admin API failed.
	ErrTopics = errors.New("kafka topics")
	// ErrInvalidOptions: TopicOptions out of range (Provision returns it
	// before any change).
	ErrInvalidOptions = errors.New("invalid provisioning options")
)

// Target is one outbox and the connector config generated for it: every
// name provisioning creates (slot, publication, server id, schema history
// topic) is read from that config, so it matches by construction.
type Target struct {
	Outbox    *spec.Outbox
	Connector connectorconfig.Connector
}

// Config returns a key of the connector config ("" when unset).
func (t Target) Config(key string) string { return t.Connector.Config[key] }

// Targets pairs every outbox of s with its generated connector
// (connectorconfig.Generate with opts).
func Targets(s *spec.Spec, opts connectorconfig.Options) ([]Target, error) {
	cs, err := connectorconfig.Generate(s, opts)
	if err != nil {
		return nil, err
	}
	byOutbox := map[string]connectorconfig.Connector{}
	for _, c := range cs {
		byOutbox[c.Outbox] = c
	}
	var out []Target
	for i := range s.Outboxes {
		o := &s.Outboxes[i]
		c, ok := byOutbox[o.Name]
		if !ok {
			return nil, fmt.Errorf("outbox %s: no generated connector", o.Name)
		}
		out = append(out, Target{Outbox: o, Connector: c})
	}
	return out, nil
}

// Severity of a finding: the one severity of package findingsmodel.
type Severity = findingsmodel.Severity

const (
	// SeverityError: the connector will not work (or loses events) until
	// this is fixed. doctor exits 3.
	SeverityError = findingsmodel.SeverityError
	// SeverityWarning: works, but at a risk (WAL retention, short binlog
	// retention, drift that the writer tolerates).
	SeverityWarning = findingsmodel.SeverityWarning
	// SeverityInfo: worth knowing.
	SeverityInfo = findingsmodel.SeverityInfo
)

// Finding is one preflight or health result. Findings are values, not
// errors: a failed check is a Finding of SeverityError. Its JSON is doctor's
// and provision's contract; Finding() is the same finding in the one model
// of package findings, which the printers take.
//
// Its JSON keys are the one model's: "rule" and "hint". The keys it had
// before, "id" and "fix", are still written with the same values for one
// release (deprecated: read "rule" and "hint"), and both are accepted when
// a finding is read back.
type Finding struct {
	// Rule is the rule ID (PG_WAL_LEVEL, BINLOG_FORMAT, TABLE_COLUMN_TYPE,
	// …), one of Rules.
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Outbox is the spec outbox the finding is about.
	Outbox string `json:"outbox"`
	// Subject is what was checked: a setting, table, slot, user or topic.
	Subject string `json:"subject"`
	// Message says what was found, with the actual and expected values.
	Message string `json:"message"`
	// Hint says how to fix it: the SQL or setting that resolves it.
	Hint string `json:"hint,omitempty"`
}

// findingJSON is Finding's JSON: its own keys and the deprecated aliases.
type findingJSON struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Outbox   string   `json:"outbox"`
	Subject  string   `json:"subject"`
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"`
	// Deprecated aliases of rule and hint, written for one release.
	ID  string `json:"id,omitempty"`
	Fix string `json:"fix,omitempty"`
}

// MarshalJSON writes f with the keys rule and hint, and their deprecated
// aliases id and fix.
func (f Finding) MarshalJSON() ([]byte, error) {
	return json.Marshal(findingJSON{Rule: f.Rule, Severity: f.Severity, Outbox: f.Outbox, Subject: f.Subject, Message: f.Message, Hint: f.Hint, ID: f.Rule, Fix: f.Hint})
}

// UnmarshalJSON reads a finding with the keys rule and hint or their
// deprecated aliases id and fix (rule and hint win when both are set).
func (f *Finding) UnmarshalJSON(b []byte) error {
	var j findingJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Finding{Rule: j.Rule, Severity: j.Severity, Outbox: j.Outbox, Subject: j.Subject, Message: j.Message, Hint: j.Hint}
	if f.Rule == "" {
		f.Rule = j.ID
	}
	if f.Hint == "" {
		f.Hint = j.Fix
	}
	return nil
}

// Finding returns f in the model of package findings: the subject is
// "outbox: subject".
func (f Finding) Finding() findingsmodel.Finding {
	subject := f.Subject
	if f.Outbox != "" {
		subject = f.Outbox + ": " + subject
	}
	return findingsmodel.Finding{Rule: f.Rule, Severity: f.Severity, Subject: subject, Message: f.Message, Hint: f.Hint}
}

// Findings converts fs to the model of package findingsmodel.
func Findings(fs []Finding) []findingsmodel.Finding {
	out := make([]findingsmodel.Finding, len(fs))
	for i, f := range fs {
		out[i] = f.Finding()
	}
	return out
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s [%s] %s: %s", f.Severity, f.Rule, f.Outbox, f.Subject, f.Message)
}

// Failed reports whether any finding is an error.
func Failed(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

func sortFindings(fs []Finding) {
	rank := map[Severity]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Outbox != fs[j].Outbox {
			return fs[i].Outbox < fs[j].Outbox
		}
		return rank[fs[i].Severity] < rank[fs[j].Severity]
	})
}

// Step is one idempotent provisioning action.
type Step struct {
	// ID names the action: create-database, create-table, create-publication,
	// alter-publication, create-user, alter-user, grant, owner-group.
	ID     string `json:"id"`
	Outbox string `json:"outbox"`
	// Description is one line for humans.
	Description string `json:"description"`
	// SQL is the statement to execute. It may hold a password: print
	// Display instead.
	SQL string `json:"-"`
	// Display is SQL with every secret masked.
	Display string `json:"sql"`
	// Fixes lists the finding IDs this step resolves.
	Fixes []string `json:"fixes,omitempty"`
}
