package plan

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/internal/redact"
	"github.com/outboxctl/outboxctl/spec"
)

// OwnerKey is the config key outboxctl writes into every connector it
// deploys; its value is the owner (default [DefaultOwner]). Prune deletes
// only connectors whose OwnerKey equals the owner of the run.
const OwnerKey = "outboxctl.managed.by"

// DefaultOwner is the value of OwnerKey unless the caller picks another one
// (to let several repositories share one Connect cluster).
const DefaultOwner = "outboxctl"

// Action is what a plan does to one connector (or one key).
type Action string

// Actions.
const (
	NoOp    Action = "no-op"
	Create  Action = "create"
	Update  Action = "update"
	Delete  Action = "delete"
	Replace Action = "replace"
)

// Symbol is the Terraform-style marker of the action.
func (a Action) Symbol() string {
	switch a {
	case Create:
		return "+"
	case Update:
		return "~"
	case Delete:
		return "-"
	case Replace:
		return "-/+"
	}
	return " "
}

// ActualConnector is a connector as Connect has it.
type ActualConnector struct {
	Name   string
	Config map[string]string
	// Status is nil when Connect did not report one.
	Status *connect.Status
}

// State returns the declared-state word for the connector's state: running
// (also for FAILED, UNASSIGNED, RESTARTING: their target is running), paused
// or stopped.
func (a ActualConnector) State() string {
	if a.Status == nil {
		return "running"
	}
	switch a.Status.Connector.State {
	case connect.StatePaused:
		return "paused"
	case connect.StateStopped:
		return "stopped"
	}
	return "running"
}

// Owner returns the connector's ownership marker, "" when it has none.
func (a ActualConnector) Owner() string { return a.Config[OwnerKey] }

// KeyChange is one changed config key.
type KeyChange struct {
	Key    string `json:"key"`
	Action Action `json:"action"` // create (added), update, delete (removed)
	// Before and After are nil when the key is absent on that side, and
	// always nil for a sensitive key.
	Before    *string `json:"before,omitempty"`
	After     *string `json:"after,omitempty"`
	Sensitive bool    `json:"sensitive,omitempty"`
}

// StateChange is a change of declared state.
type StateChange struct {
	Before string `json:"before,omitempty"`
	After  string `json:"after"`
}

// Change is what the plan does to one connector.
type Change struct {
	Name   string `json:"name"`
	Action Action `json:"action"`
	Source string `json:"source,omitempty"`
	// State is set when the declared state changes (or on create).
	State *StateChange `json:"state,omitempty"`
	// Keys are the changed keys, sorted. For a create, every key.
	Keys []KeyChange `json:"keys"`
	// Unchanged counts the keys that are equal after normalisation.
	Unchanged int `json:"unchanged_keys"`
	// Masked lists keys Connect returned masked, which cannot be compared
	// and are assumed unchanged.
	Masked []string `json:"masked_keys,omitempty"`
	// Findings are the dangerous-change findings of this connector.
	Findings []Finding `json:"findings"`
	// Notes say what a delete or replace leaves behind.
	Notes []string `json:"notes,omitempty"`
	// Owned reports that the existing connector carries this run's marker.
	Owned bool `json:"owned"`
	// Failed says which instances of the existing connector are FAILED
	// ("connector", "task 0", …); deploy reports them as not converged unless
	// it restarts them (ApplyOptions.RestartFailed).
	Failed []string `json:"failed,omitempty"`

	// Desired is the connector to write (config with the ownership marker),
	// nil for a delete.
	Desired *connectorconfig.Connector `json:"-"`
	// ConfigChanged is true when a config write is needed.
	ConfigChanged bool `json:"-"`
}

// Plan is the set of changes for one deploy. Changes are sorted by name and
// include no-ops.
type Plan struct {
	Changes []Change
	// Owner is the ownership marker value of this run ("" = none written).
	Owner string
	// Prune is true when deletes of owned, undeclared connectors are planned.
	Prune bool
}

// Counts of a plan by action.
type Counts struct {
	Create  int `json:"create"`
	Update  int `json:"update"`
	Delete  int `json:"delete"`
	Replace int `json:"replace"`
	NoOp    int `json:"no_op"`
}

// Counts counts the changes by action.
func (p Plan) Counts() Counts {
	var c Counts
	for _, ch := range p.Changes {
		switch ch.Action {
		case Create:
			c.Create++
		case Update:
			c.Update++
		case Delete:
			c.Delete++
		case Replace:
			c.Replace++
		default:
			c.NoOp++
		}
	}
	return c
}

// HasChanges reports whether applying the plan would write anything.
func (p Plan) HasChanges() bool {
	for _, ch := range p.Changes {
		if ch.Action != NoOp {
			return true
		}
	}
	return false
}

// Findings returns every finding of the plan.
func (p Plan) Findings() []Finding {
	var out []Finding
	for _, ch := range p.Changes {
		out = append(out, ch.Findings...)
	}
	return out
}

// Blocked returns the findings that are not allowed.
func (p Plan) Blocked() []Finding {
	var out []Finding
	for _, f := range p.Findings() {
		if !f.Allowed {
			out = append(out, f)
		}
	}
	return out
}

// DiffOption configures Diff.
type DiffOption func(*diffConfig)

type diffConfig struct {
	owner         string
	prune         bool
	pruneMax      int
	allowPruneAll bool
	allow         map[string]bool
	ignore        map[string]bool
}

// WithOwner sets the ownership marker value written into every desired
// connector (default DefaultOwner; "" writes no marker, and then nothing can
// be pruned).
func WithOwner(owner string) DiffOption { return func(c *diffConfig) { c.owner = owner } }

// WithPrune plans deletes for connectors that carry this run's ownership
// marker but are not desired. Connectors without the marker are never
// deleted.
func WithPrune(prune bool) DiffOption { return func(c *diffConfig) { c.prune = prune } }

// WithPruneLimit limits what WithPrune may delete: more than max deletes
// (max < 0: no limit, the default) are blocked with a RulePruneLimit
// finding on each delete, and deleting every connector this owner manages
// is blocked with RulePruneAll unless allowAll, which lifts both limits.
// Without this option only RulePruneAll applies. WithAllow never allows
// these findings.
func WithPruneLimit(max int, allowAll bool) DiffOption {
	return func(c *diffConfig) { c.pruneMax, c.allowPruneAll = max, allowAll }
}

// WithAllow marks findings of the given rule IDs as allowed ("all" allows
// every rule).
func WithAllow(ruleIDs ...string) DiffOption {
	return func(c *diffConfig) {
		docs := RuleDocs()
		for _, id := range ruleIDs {
			canonical, _ := docs.Canonical(id)
			c.allow[canonical] = true
		}
	}
}

// WithIgnoreKeys adds keys present only on the Connect side that are not
// drift (default: "name", which Connect adds itself).
func WithIgnoreKeys(keys ...string) DiffOption {
	return func(c *diffConfig) {
		for _, k := range keys {
			c.ignore[k] = true
		}
	}
}

// Diff compares desired connectors with the actual ones and returns the plan.
// It does no I/O.
func Diff(desired []connectorconfig.Connector, actual map[string]ActualConnector, opts ...DiffOption) Plan {
	cfg := diffConfig{owner: DefaultOwner, pruneMax: -1, allow: map[string]bool{}, ignore: map[string]bool{"name": true}}
	for _, o := range opts {
		o(&cfg)
	}
	p := Plan{Owner: cfg.owner, Prune: cfg.prune}
	want := map[string]bool{}
	for _, d := range desired {
		want[d.Name] = true
		d := withOwner(d, cfg.owner)
		a, exists := actual[d.Name]
		var ch Change
		if !exists {
			ch = createChange(d)
			ch.Findings = renameFindings(d, desiredSet(desired), actual)
		} else {
			ch = updateChange(d, a, cfg)
		}
		p.Changes = append(p.Changes, ch)
	}
	if cfg.prune && cfg.owner != "" {
		managed, first := 0, len(p.Changes)
		for name, a := range actual {
			if a.Owner() != cfg.owner {
				continue
			}
			managed++
			if want[name] {
				continue
			}
			p.Changes = append(p.Changes, Change{
				Name: name, Action: Delete, Owned: true, Keys: removedKeys(a.Config, cfg.ignore, nil),
				Notes: []string{deleteNote(a.Config)}, Findings: []Finding{},
			})
		}
		pruneGuard(p.Changes[first:], managed, cfg)
	}
	sort.Slice(p.Changes, func(i, j int) bool { return p.Changes[i].Name < p.Changes[j].Name })
	for i := range p.Changes {
		for j := range p.Changes[i].Findings {
			f := &p.Changes[i].Findings[j]
			if f.Rule == RulePruneAll || f.Rule == RulePruneLimit {
				continue // only WithPruneLimit lifts these
			}
			f.Allowed = cfg.allow[f.Rule] || cfg.allow["ALL"]
		}
	}
	return p
}

// pruneGuard adds a RulePruneAll or RulePruneLimit finding to each delete
// when the deletes go beyond what WithPruneLimit allows.
func pruneGuard(deletes []Change, managed int, cfg diffConfig) {
	n := len(deletes)
	if n == 0 || cfg.allowPruneAll {
		return
	}
	var rule, msg string
	switch {
	case n == managed:
		rule = RulePruneAll
		msg = fmt.Sprintf("--prune would delete all %d connector(s) owned by %q, every one this owner manages (an empty or wrong spec?); pass --allow-prune-all if that is intended", n, cfg.owner)
	case cfg.pruneMax >= 0 && n > cfg.pruneMax:
		rule = RulePruneLimit
		msg = fmt.Sprintf("--prune would delete %d of the %d connector(s) owned by %q, more than --prune-max %d; pass --prune-max %d if that is intended", n, managed, cfg.owner, cfg.pruneMax, n)
	default:
		return
	}
	for i := range deletes {
		deletes[i].Findings = append(deletes[i].Findings, Finding{Rule: rule, Connector: deletes[i].Name, Message: msg})
	}
}

func desiredSet(ds []connectorconfig.Connector) map[string]bool {
	m := map[string]bool{}
	for _, d := range ds {
		m[d.Name] = true
	}
	return m
}

func withOwner(d connectorconfig.Connector, owner string) connectorconfig.Connector {
	cfg := make(map[string]string, len(d.Config)+1)
	for k, v := range d.Config {
		cfg[k] = v
	}
	if owner != "" {
		cfg[OwnerKey] = owner
	}
	d.Config = cfg
	return d
}

func normState(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "running"
	}
	return s
}

func createChange(d connectorconfig.Connector) Change {
	ch := Change{Name: d.Name, Action: Create, Source: d.Source, State: &StateChange{After: normState(d.State)}, Desired: &d, ConfigChanged: true, Findings: []Finding{}}
	for _, k := range sortedKeys(d.Config) {
		kc := KeyChange{Key: k, Action: Create, Sensitive: isSensitive(k, d.Sensitive)}
		if !kc.Sensitive {
			kc.After = shown(d.Config[k])
		}
		ch.Keys = append(ch.Keys, kc)
	}
	return ch
}

// shown is a value as plans show it: credentials inside it (a JDBC or
// other URL with a password, password= parameters) are masked.
func shown(v string) *string { return ptr(redact.String(v)) }

func updateChange(d connectorconfig.Connector, a ActualConnector, cfg diffConfig) Change {
	ch := Change{Name: d.Name, Action: NoOp, Source: d.Source, Desired: &d, Owned: cfg.owner != "" && a.Owner() == cfg.owner, Findings: []Finding{}, Keys: []KeyChange{}}
	for _, k := range sortedKeys(d.Config) {
		want := d.Config[k]
		sens := isSensitive(k, d.Sensitive)
		have, ok := a.Config[k]
		switch {
		case !ok:
			kc := KeyChange{Key: k, Action: Create, Sensitive: sens}
			if !sens {
				kc.After = shown(want)
			}
			ch.Keys = append(ch.Keys, kc)
		case connectorconfig.IsMasked(have):
			ch.Masked = append(ch.Masked, k)
			ch.Unchanged++
		case equalValues(k, want, have):
			ch.Unchanged++
		default:
			kc := KeyChange{Key: k, Action: Update, Sensitive: sens}
			if !sens {
				kc.Before, kc.After = shown(have), shown(want)
			}
			ch.Keys = append(ch.Keys, kc)
		}
	}
	ch.Keys = append(ch.Keys, removedKeys(a.Config, cfg.ignore, d.Config)...)
	sort.Slice(ch.Keys, func(i, j int) bool { return ch.Keys[i].Key < ch.Keys[j].Key })
	ch.ConfigChanged = len(ch.Keys) > 0
	if a.Status != nil {
		if a.Status.Connector.State == connect.StateFailed {
			ch.Failed = append(ch.Failed, "connector")
		}
		for _, t := range a.Status.Tasks {
			if t.State == connect.StateFailed {
				ch.Failed = append(ch.Failed, fmt.Sprintf("task %d", t.ID))
			}
		}
	}
	if ws, hs := normState(d.State), a.State(); ws != hs {
		ch.State = &StateChange{Before: hs, After: ws}
	}
	if ch.ConfigChanged || ch.State != nil {
		ch.Action = Update
	}
	if ch.ConfigChanged {
		if fs := changeFindings(d.Name, a.Config, d.Config, d.Sensitive); fs != nil {
			ch.Findings = fs
		}
		if a.Config["connector.class"] != "" && d.Config["connector.class"] != a.Config["connector.class"] {
			ch.Action = Replace
			ch.Notes = append(ch.Notes, "connector.class changes: the connector is deleted and created again under the same name, so it keeps the old connector's offsets")
		}
	}
	if f, ok := takeoverFinding(d.Name, a.Owner(), cfg.owner); ok {
		ch.Findings = append(ch.Findings, f)
	}
	return ch
}

// takeoverFinding is the RuleOwnerTakeover finding when this run (owner)
// would write a connector whose marker names another owner, or that has no
// marker; none when the owners match.
func takeoverFinding(name, have, owner string) (Finding, bool) {
	if have == owner {
		return Finding{}, false
	}
	f := Finding{Rule: RuleOwnerTakeover, Connector: name, Key: OwnerKey, Before: have, After: owner}
	switch {
	case have == "":
		f.Message = fmt.Sprintf("connector %q has no ownership marker (%s): it was not deployed by outboxctl, or by hand; this run would take it over as owner %q", name, OwnerKey, owner)
	case owner == "":
		f.Message = fmt.Sprintf("connector %q is managed by %q; this run writes no ownership marker, so %q's --prune would no longer see it", name, have, have)
	default:
		f.Message = fmt.Sprintf("connector %q is managed by %q; this run (owner %q) would take it over: %q's deploys would then take it back, and its --prune no longer sees it", name, have, owner, have)
	}
	return f, true
}

func removedKeys(actual map[string]string, ignore map[string]bool, desired map[string]string) []KeyChange {
	var out []KeyChange
	for _, k := range sortedKeys(actual) {
		if ignore[k] {
			continue
		}
		if _, ok := desired[k]; ok {
			continue
		}
		kc := KeyChange{Key: k, Action: Delete, Sensitive: isSensitive(k, nil)}
		if !kc.Sensitive && !connectorconfig.IsMasked(actual[k]) {
			kc.Before = shown(actual[k])
		} else {
			kc.Sensitive = true
		}
		out = append(out, kc)
	}
	return out
}

func deleteNote(cfg map[string]string) string {
	s := "its offsets stay in the Connect offsets topic under its name (a connector created later with the same name resumes from them)"
	if strings.Contains(cfg["connector.class"], "postgresql") {
		s += fmt.Sprintf("; the replication slot %q is not dropped and keeps retaining WAL until dropped by hand", def(cfg, "slot.name", "debezium"))
	}
	return s + "; its topics are kept"
}

func ptr(s string) *string { return &s }

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sensitiveWords mark a key as a secret wherever they appear in it
// (lowercased).
var sensitiveWords = []string{"password", "passwd", "secret", "token", "credential", "jaas.config", "api.key", "private.key", "keystore.key"}

// IsSensitive reports whether key holds a secret: it is listed in declared,
// or its name says so (password, secret, token, credentials, sasl.jaas.config,
// keys). Such values are never rendered.
func IsSensitive(key string, declared []string) bool { return isSensitive(key, declared) }

func isSensitive(key string, declared []string) bool {
	for _, d := range declared {
		if d == key {
			return true
		}
	}
	if connectorconfig.IsSensitiveKey(key) {
		return true
	}
	k := strings.ToLower(key)
	for _, w := range sensitiveWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return strings.HasSuffix(k, "ssl.key")
}

var placeholderRE = regexp.MustCompile(`^\$\{[A-Za-z0-9_.-]+:[^}]*\}$`)

// equalValues compares a desired and an actual value after normalisation.
func equalValues(key, want, have string) bool {
	if want == have {
		return true
	}
	w, h := strings.TrimSpace(want), strings.TrimSpace(have)
	if w == h {
		return true
	}
	// A config-provider placeholder that Connect returned resolved.
	if strings.HasPrefix(w, "${") && placeholderRE.MatchString(w) && !placeholderRE.MatchString(h) {
		return true
	}
	if strings.EqualFold(w, "true") || strings.EqualFold(w, "false") {
		return strings.EqualFold(w, h)
	}
	if fw, err1 := strconv.ParseFloat(w, 64); err1 == nil {
		if fh, err2 := strconv.ParseFloat(h, 64); err2 == nil {
			return fw == fh
		}
	}
	if strings.Contains(w, ",") || strings.Contains(h, ",") {
		return normList(w) == normList(h)
	}
	return false
}

func normList(s string) string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return strings.Join(parts, ",")
}

// Fetch reads every connector with its config and status in one request.
func Fetch(ctx context.Context, c *connect.Client) (map[string]ActualConnector, error) {
	exp, err := c.ListConnectorsExpanded(ctx)
	if err != nil {
		return nil, fmt.Errorf("list connectors: %w", err)
	}
	out := make(map[string]ActualConnector, len(exp))
	for name, e := range exp {
		a := ActualConnector{Name: name, Status: e.Status}
		if e.Info != nil {
			a.Config = e.Info.Config
		}
		out[name] = a
	}
	return out, nil
}

// MaskSecrets replaces, in s, the value of every sensitive key of cfg (see
// IsSensitive) by "********". It is applied to Connect's error messages
// and stack traces, which can echo config values. Values shorter than 4
// characters and config-provider placeholders are left alone. Credentials
// in URLs and JDBC values are masked too (internal/redact).
func MaskSecrets(s string, cfg map[string]string, declared []string) string {
	for k, v := range cfg {
		if len(v) < 4 || strings.HasPrefix(v, "${") || !isSensitive(k, declared) {
			continue
		}
		s = strings.ReplaceAll(s, v, sensitiveText)
	}
	return redact.String(s)
}

// FileFindings returns the plan's findings in the model of package findings,
// each placed at its connector's source (file:line:col): a blocked finding
// is an error, an allowed one a warning. The connector leads the message.
func (p Plan) FileFindings() []findings.Finding {
	var out []findings.Finding
	for _, ch := range p.Changes {
		pos := sourcePos(ch.Source)
		for _, f := range ch.Findings {
			sev := findings.SeverityError
			if f.Allowed {
				sev = findings.SeverityWarning
			}
			out = append(out, findings.Finding{Rule: f.Rule, Severity: sev, File: pos.File, Line: pos.Line, Col: pos.Col, Message: f.Connector + ": " + f.Message})
		}
	}
	return out
}

// sourcePos places a Change.Source: file:line:col, or a file alone;
// standard input has no file.
func sourcePos(s string) spec.Pos {
	if p, ok := connectorconfig.ParseSource(s); ok {
		return p
	}
	if s == "<stdin>" {
		return spec.Pos{}
	}
	return spec.Pos{File: s}
}
