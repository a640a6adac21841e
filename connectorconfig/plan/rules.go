package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/findings"
)

// Finding is one dangerous change. It is a value, not an error: the plan
// carries it, Apply refuses to run while a finding is not Allowed.
type Finding struct {
	Rule      string `json:"rule"`
	Connector string `json:"connector"`
	// Key is the config key that changed ("" for a rename).
	Key string `json:"key,omitempty"`
	// Before and After are "" for sensitive keys.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Message says what happens to offsets, slots and topics.
	Message string `json:"message"`
	Allowed bool   `json:"allowed"`
}

// Rule is one dangerous-change rule.
type Rule struct {
	ID string
	// Aliases are earlier IDs of the rule; WithAllow accepts them too.
	Aliases []string
	Purpose string
}

// Rule IDs. Pass them to WithAllow (the CLI's --allow).
const (
	RuleConnectorRename     = "CONNECTOR_RENAME"
	RuleConnectorClass      = "CONNECTOR_CLASS_CHANGE"
	RuleTopicPrefix         = "TOPIC_PREFIX_CHANGE"
	RuleSlotName            = "SLOT_NAME_CHANGE"
	RulePublicationName     = "PUBLICATION_NAME_CHANGE"
	RuleSnapshotMode        = "SNAPSHOT_MODE_CHANGE"
	RuleServerID            = "SERVER_ID_CHANGE"
	RuleRoute               = "ROUTE_CHANGE"
	RuleWireFormat          = "WIRE_FORMAT_CHANGE"
	RuleOutboxTableExcluded = "OUTBOX_TABLE_EXCLUDED"
	RuleOwnerTakeover       = "OWNER_TAKEOVER"
)

// Prune guard rule IDs: findings on the deletes of a prune that goes beyond
// WithPruneLimit. They are not in Rules, and WithAllow does not allow them.
const (
	// RulePruneAll: the prune would delete every connector the owner manages.
	RulePruneAll = "PRUNE_ALL"
	// RulePruneLimit: the prune would delete more connectors than allowed.
	RulePruneLimit = "PRUNE_LIMIT"
)

// Rules lists every dangerous-change rule with its purpose.
var Rules = []Rule{
	{ID: RuleConnectorRename, Purpose: "a new connector takes over the source of an existing one (same class and topic.prefix): offsets are keyed by connector name, so it starts without them"},
	{ID: RuleConnectorClass, Purpose: "connector.class changes: the connector is replaced and reads the old connector's offsets in another format"},
	{ID: RuleTopicPrefix, Purpose: "topic.prefix changes: Debezium offsets are keyed by it, the connector starts over and prefix-derived topics move"},
	{ID: RuleSlotName, Purpose: "slot.name changes: a new replication slot starts at the current WAL position and the old one keeps retaining WAL"},
	{ID: RulePublicationName, Purpose: "publication.name changes: another publication decides which tables are streamed"},
	{ID: RuleSnapshotMode, Purpose: "snapshot.mode changes: a snapshotting mode can re-publish every row still in the outbox table"},
	{ID: RuleServerID, Purpose: "database.server.id changes: the binlog client reconnects under another replica id"},
	{ID: RuleRoute, Purpose: "EventRouter routing changes (transforms.*.route.*): events move to other topics"},
	{ID: RuleWireFormat, Purpose: "a converter or payload-format change: the bytes on the topics change format"},
	{ID: RuleOutboxTableExcluded, Purpose: "a table leaves table.include.list: rows written to it are no longer published"},
	{ID: RuleOwnerTakeover, Purpose: "the run would rewrite the ownership marker (" + OwnerKey + ") of a connector another owner manages, or that has none: deploys of both sides fight over it and the other owner's --prune no longer sees it"},
}

// RuleDocs returns Rules in the model of package findings (the severity of
// a blocked finding).
func RuleDocs() findings.Rules {
	out := make(findings.Rules, 0, len(Rules))
	for _, r := range Rules {
		out = append(out, findings.Rule{ID: r.ID, Aliases: r.Aliases, Severity: findings.SeverityError, Purpose: r.Purpose})
	}
	return out
}

// PruneRuleDocs documents the prune guard rules (RulePruneAll,
// RulePruneLimit) in the model of package findings. They are not in
// RuleDocs, since WithAllow (--allow) does not lift them.
func PruneRuleDocs() findings.Rules {
	return findings.Rules{
		{ID: RulePruneAll, Severity: findings.SeverityError, Purpose: "the prune would delete every connector the owner manages (lifted by --allow-prune-all, never by --allow)"},
		{ID: RulePruneLimit, Severity: findings.SeverityError, Purpose: "the prune would delete more connectors than --prune-max (lifted by --prune-max or --allow-prune-all, never by --allow)"},
	}
}

func def(cfg map[string]string, key, dflt string) string {
	if v, ok := cfg[key]; ok && v != "" {
		return v
	}
	return dflt
}

func isPostgres(cfg map[string]string) bool {
	return strings.Contains(cfg["connector.class"], "postgresql")
}

func isBinlog(cfg map[string]string) bool {
	c := cfg["connector.class"]
	return strings.Contains(c, "mysql") || strings.Contains(c, "mariadb")
}

// snapshotting reports snapshot modes that read existing rows.
func snapshotting(mode string) bool {
	switch strings.ToLower(mode) {
	case "initial", "always", "when_needed", "initial_only", "configuration_based", "custom", "recovery":
		return true
	}
	return false
}

func changeFindings(name string, before, after map[string]string, sensitive []string) []Finding {
	var out []Finding
	add := func(rule, key, msg string) {
		f := Finding{Rule: rule, Connector: name, Key: key, Message: msg}
		if !isSensitive(key, sensitive) {
			f.Before, f.After = before[key], after[key]
		}
		out = append(out, f)
	}
	changed := func(key, dflt string) (string, string, bool) {
		b, a := def(before, key, dflt), def(after, key, dflt)
		return b, a, !equalValues(key, a, b) && !connectorconfig.IsMasked(before[key])
	}
	mode := def(after, "snapshot.mode", "initial")
	if b, a, ok := changed("connector.class", ""); ok && b != "" {
		add(RuleConnectorClass, "connector.class", fmt.Sprintf("the connector is deleted and created again as %s under the same name: the new class reads the offsets %s stored under that name, which it may not understand (use a new name or reset the offsets); slots, publications and topics of the old class are left behind", a, b))
	}

	if b, a, ok := changed("topic.prefix", ""); ok {
		var start string
		switch {
		case snapshotting(mode):
			start = "snapshots again (snapshot.mode=" + mode + ") and re-publishes every row still in the outbox table"
		case isPostgres(after):
			start = "resumes from the replication slot's confirmed position (snapshot.mode=" + mode + ")"
		default:
			start = "starts from the current binlog position (snapshot.mode=" + mode + "): rows committed while it was down are not published"
		}
		add(RuleTopicPrefix, "topic.prefix", fmt.Sprintf("Debezium keys source offsets by {\"server\": topic.prefix}: under %q the connector finds no offset and %s; the offsets under %q are orphaned; heartbeat, schema-change and default-routed topics move from %s.* to %s.*", a, start, b, b, a))
	}
	if isPostgres(after) {
		if b, a, ok := changed("slot.name", "debezium"); ok {
			add(RuleSlotName, "slot.name", fmt.Sprintf("a new replication slot %q starts at the current WAL position, behind which the stored offset lies: Debezium refuses to start and the task FAILS (\"…no longer available on the server. Reconfigure the connector to use a snapshot mode when needed\") unless snapshot.mode is when_needed (a snapshot re-publishes every row still in the outbox table) or the offsets are reset with `outboxctl connectors offsets reset` (rows committed since slot %q's confirmed position are then never published); slot %q is left behind and keeps retaining WAL (disk grows) until dropped; topics are unchanged", a, b, b))
		}
		if b, a, ok := changed("publication.name", "dbz_publication"); ok {
			add(RulePublicationName, "publication.name", fmt.Sprintf("the slot now decodes through publication %q instead of %q: tables missing from it are silently not streamed; the old publication is left behind; offsets, slot and topics are unchanged", a, b))
		}
	}
	if b, a, ok := changed("snapshot.mode", "initial"); ok {
		msg := fmt.Sprintf("snapshot.mode %q -> %q: offsets are kept", b, a)
		if snapshotting(a) {
			msg += "; with " + a + " the connector can snapshot the outbox table (now when offsets are missing or invalid, or on every start for always) and re-publish every row still in it as new events"
		} else {
			msg += "; the connector only streams new changes, a lost or reset offset is no longer repaired by a snapshot"
		}
		add(RuleSnapshotMode, "snapshot.mode", msg+"; slots and topics are unchanged")
	}
	if isBinlog(after) {
		if b, a, ok := changed("database.server.id", ""); ok {
			add(RuleServerID, "database.server.id", fmt.Sprintf("the binlog client reconnects as replica %s instead of %s: offsets (binlog file and position) are kept; if %s is used by another replica or connector, the server drops one of the two connections and the task fails", a, b, a))
		}
	}
	for _, k := range unionKeys(before, after) {
		if isRouteKey(k) {
			if b, a, ok := changed(k, ""); ok {
				add(RuleRoute, k, fmt.Sprintf("%s %q -> %q: events are routed to other topics from the next record on; consumers of the old topics stop receiving new events and the old topics keep their data; offsets and slots are unchanged", k, b, a))
			}
		}
	}
	// ByteArrayConverter and BinaryDataConverter write BYTES records (the
	// outbox payload) identically; BinaryDataConverter's delegate only
	// writes other records (heartbeats, which ByteArrayConverter cannot
	// write at all). Switching between them, as generate does when
	// heartbeats are turned on, leaves the routed topics' bytes unchanged.
	sameBytes := connectorconfig.PassesBytesThrough(before["value.converter"]) && connectorconfig.PassesBytesThrough(after["value.converter"])
	for _, k := range unionKeys(before, after) {
		if sameBytes && (k == "value.converter" || strings.HasPrefix(k, "value.converter.delegate.")) {
			continue
		}
		if isWireKey(k) {
			if b, a, ok := changed(k, ""); ok {
				add(RuleWireFormat, k, fmt.Sprintf("%s %q -> %q: records from the next one on are written in another format; consumers and schemas expecting the old bytes break mid-topic; offsets, slots and topics are unchanged", k, b, a))
			}
		}
	}
	for _, key := range []string{"table.include.list", "collection.include.list"} {
		bl, al := eventrouter.SplitList(before[key]), eventrouter.SplitList(after[key])
		if len(bl) == 0 {
			continue
		}
		in := map[string]bool{}
		for _, t := range al {
			in[t] = true
		}
		var gone []string
		for _, t := range bl {
			if !in[t] {
				gone = append(gone, t)
			}
		}
		if len(gone) > 0 && len(al) > 0 {
			add(RuleOutboxTableExcluded, key, fmt.Sprintf("%s no longer matches %s: rows written there after the deploy are not published and the slot/binlog position moves past them, so adding the table back later does not recover them without a snapshot; offsets and topics are unchanged", key, strings.Join(gone, ", ")))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}

func renameFindings(d connectorconfig.Connector, desired map[string]bool, actual map[string]ActualConnector) []Finding {
	out := []Finding{}
	prefix := d.Config["topic.prefix"]
	if prefix == "" {
		return out
	}
	var names []string
	for n := range actual {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := actual[n]
		if desired[n] || a.Config["connector.class"] != d.Config["connector.class"] || a.Config["topic.prefix"] != prefix {
			continue
		}
		msg := fmt.Sprintf("looks like a rename of %q (same class and topic.prefix %q): Kafka Connect keys offsets by connector name, so %q starts without %q's offsets", n, prefix, d.Name, n)
		if snapshotting(def(d.Config, "snapshot.mode", "initial")) {
			msg += " and snapshots again, re-publishing every row still in the outbox table"
		} else {
			msg += " and streams from the current position"
		}
		msg += fmt.Sprintf("; %q keeps running on the same source until deleted", n)
		if isPostgres(d.Config) && def(a.Config, "slot.name", "debezium") == def(d.Config, "slot.name", "debezium") {
			msg += fmt.Sprintf(" and both use slot %q, which only one can hold (the other task fails)", def(d.Config, "slot.name", "debezium"))
		}
		msg += "; topics are unchanged. To move the offsets instead, stop the old connector and copy them with `outboxctl connectors offsets get` and PATCH"
		out = append(out, Finding{Rule: RuleConnectorRename, Connector: d.Name, Before: n, After: d.Name, Message: msg})
	}
	return out
}

func unionKeys(a, b map[string]string) []string {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isRouteKey: EventRouter routing options (transforms.<alias>.route.*).
func isRouteKey(k string) bool {
	if !strings.HasPrefix(k, "transforms.") {
		return false
	}
	rest := strings.TrimPrefix(k, "transforms.")
	i := strings.Index(rest, ".")
	return i > 0 && strings.HasPrefix(rest[i+1:], "route.")
}

// isWireKey: converters (and their options) and EventRouter payload options.
func isWireKey(k string) bool {
	for _, p := range []string{"key.converter", "value.converter", "header.converter"} {
		if k == p || strings.HasPrefix(k, p+".") {
			return !IsSensitive(k, nil)
		}
	}
	if strings.HasPrefix(k, "transforms.") {
		for _, s := range []string{".table.expand.json.payload", ".table.field.event.payload", ".table.json.payload.null.behavior", ".table.fields.additional.placement"} {
			if strings.HasSuffix(k, s) {
				return true
			}
		}
	}
	return false
}
