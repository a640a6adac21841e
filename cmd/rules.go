package cmd

import (
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/schemas"
)

// ruleSets are the documented rules of the check commands, by command.
func ruleSets() []struct {
	Commands string
	Rules    findings.Rules
} {
	planRules := append(plan.RuleDocs(),
		findings.Rule{ID: plan.RulePruneAll, Severity: findings.SeverityError, Purpose: "the prune would delete every connector the owner manages (lifted by --allow-prune-all, never by --allow)"},
		findings.Rule{ID: plan.RulePruneLimit, Severity: findings.SeverityError, Purpose: "the prune would delete more connectors than --prune-max (lifted by --prune-max or --allow-prune-all, never by --allow)"},
	)
	return []struct {
		Commands string
		Rules    findings.Rules
	}{
		{"validate", connectorconfig.RuleDocs()},
		{"plan, deploy", planRules},
		{"schema check, schema validate", schemas.Rules},
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
-o github-actions and --summary-file print the same findings.

`)
	for _, set := range ruleSets() {
		fmt.Fprintf(&b, "%s:\n", set.Commands)
		for _, r := range set.Rules {
			fmt.Fprintf(&b, "  %-36s %-7s %s", r.ID, r.Severity, r.Purpose)
			if len(r.Aliases) > 0 {
				fmt.Fprintf(&b, " (was %s)", strings.Join(r.Aliases, ", "))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(`doctor, provision:
  IDs named after the setting or object checked: PG_WAL_LEVEL, PG_SLOT_*,
  PG_PUBLICATION_*, BINLOG_*, USER_*, TABLE_*, TOPIC_*, CONNECTOR_*,
  DATABASE_MISSING; each finding's hint is the statement or setting that
  fixes it (doctor -o json lists them as "id" and "fix").
`)
	return b.String()
}
