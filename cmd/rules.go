package cmd

import (
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/schemas"
)

// ruleSets are the documented rules of the check commands, by command.
func ruleSets() []struct {
	Commands string
	Rules    findings.Rules
	// Fixes: help rules prints each rule's fix (where no other command
	// lists them).
	Fixes bool
} {
	planRules := append(plan.RuleDocs(), plan.PruneRuleDocs()...)
	return []struct {
		Commands string
		Rules    findings.Rules
		Fixes    bool
	}{
		{"validate", connectorconfig.RuleDocs(), false},
		{"plan, deploy", planRules, false},
		{"schema check, schema validate", schemas.Rules, false},
		{"doctor, provision", provisioning.Rules, true},
	}
}

// rulesTopicHelp is `outboxctl help rules`.
func rulesTopicHelp() string {
	var b strings.Builder
	b.WriteString(`Rule IDs

Every finding of validate, plan, deploy, doctor, provision, schema check and
schema validate names its rule. A rule ID is SCREAMING_SNAKE and reads like a
sentence about the problem (SLOT_NAME_INVALID, TOPIC_PREFIX_CHANGE,
PG_WAL_LEVEL). Earlier IDs stay accepted as aliases ("was ..." below): the
code-prefixed IDs of validate (PG001_SLOT_NAME_INVALID) name the same rules.
Each finding has a severity (error, warning or info), a position
(file:line:col) when it comes from a file, a message and a hint; -o json,
-o github-actions and --summary-file print the same findings. In -o json and
-o yaml the rule ID is the key "rule" and the hint the key "hint" in every
command; doctor and provision also write them as "id" and "fix", deprecated
aliases kept for one release.

`)
	for _, set := range ruleSets() {
		fmt.Fprintf(&b, "%s:\n", set.Commands)
		for _, r := range set.Rules {
			fmt.Fprintf(&b, "  %-36s %-7s %s", r.ID, r.Severity, r.Purpose)
			if len(r.Aliases) > 0 {
				fmt.Fprintf(&b, " (was %s)", strings.Join(r.Aliases, ", "))
			}
			b.WriteString("\n")
			if set.Fixes && r.Hint != "" {
				fmt.Fprintf(&b, "  %-36s fix: %s\n", "", r.Hint)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
