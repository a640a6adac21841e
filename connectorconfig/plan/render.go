package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/internal/redact"
)

// FormatVersion is the version of the JSON plan and report contract. It
// changes only when a field is removed or changes meaning.
const FormatVersion = "1"

// sensitiveText stands for a sensitive value: the one mask spelling.
const sensitiveText = redact.Mask

func quote(p *string, sensitive bool) string {
	if sensitive {
		return sensitiveText
	}
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}

// RenderText writes the plan for humans, Terraform style. The text is not a
// contract (use RenderJSON).
func RenderText(w io.Writer, p Plan) error {
	var b strings.Builder
	c := p.Counts()
	if !p.HasChanges() {
		fmt.Fprintf(&b, "No changes. %d connector(s) match the desired configuration and state.\n", c.NoOp)
		writeFindings(&b, p)
		writeFailed(&b, p)
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("Resource actions are indicated with the following symbols:\n")
	for _, a := range []Action{Create, Update, Delete, Replace} {
		n := map[Action]int{Create: c.Create, Update: c.Update, Delete: c.Delete, Replace: c.Replace}[a]
		if n == 0 {
			continue
		}
		desc := map[Action]string{Create: "create", Update: "update in-place", Delete: "delete", Replace: "delete and then create replacement"}[a]
		fmt.Fprintf(&b, "%3s %s\n", a.Symbol(), desc)
	}
	b.WriteString("\noutboxctl will perform the following actions:\n")
	for _, ch := range p.Changes {
		if ch.Action == NoOp {
			continue
		}
		b.WriteString("\n")
		verb := map[Action]string{Create: "will be created", Update: "will be updated in-place", Delete: "will be deleted", Replace: "must be replaced"}[ch.Action]
		fmt.Fprintf(&b, "  # connector %q %s", ch.Name, verb)
		if ch.Source != "" {
			fmt.Fprintf(&b, " (%s)", ch.Source)
		}
		b.WriteString("\n")
		for _, n := range ch.Notes {
			fmt.Fprintf(&b, "  # %s\n", n)
		}
		fmt.Fprintf(&b, "%3s connector %q {\n", ch.Action.Symbol(), ch.Name)
		width := 0
		for _, k := range ch.Keys {
			width = max(width, len(k.Key))
		}
		if ch.State != nil {
			width = max(width, len("(state)"))
		}
		if ch.State != nil {
			if ch.State.Before == "" {
				fmt.Fprintf(&b, "      + %-*s = %q\n", width, "(state)", ch.State.After)
			} else {
				fmt.Fprintf(&b, "      ~ %-*s = %q -> %q\n", width, "(state)", ch.State.Before, ch.State.After)
			}
		}
		for _, k := range ch.Keys {
			switch k.Action {
			case Create:
				fmt.Fprintf(&b, "      + %-*s = %s\n", width, k.Key, quote(k.After, k.Sensitive))
			case Update:
				fmt.Fprintf(&b, "      ~ %-*s = %s -> %s\n", width, k.Key, quote(k.Before, k.Sensitive), quote(k.After, k.Sensitive))
			case Delete:
				if ch.Action == Delete {
					fmt.Fprintf(&b, "      - %-*s = %s\n", width, k.Key, quote(k.Before, k.Sensitive))
				} else {
					fmt.Fprintf(&b, "      - %-*s = %s -> null\n", width, k.Key, quote(k.Before, k.Sensitive))
				}
			}
		}
		if ch.Unchanged > 0 {
			fmt.Fprintf(&b, "        # (%d unchanged keys hidden)\n", ch.Unchanged)
		}
		if len(ch.Masked) > 0 {
			fmt.Fprintf(&b, "        # (%s masked by Connect, assumed unchanged)\n", strings.Join(ch.Masked, ", "))
		}
		b.WriteString("    }\n")
	}
	writeFindings(&b, p)
	writeFailed(&b, p)
	fmt.Fprintf(&b, "\nPlan: %d to create, %d to update, %d to delete.\n", c.Create+c.Replace, c.Update, c.Delete+c.Replace)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFindings(b *strings.Builder, p Plan) {
	fs := p.Findings()
	if len(fs) == 0 {
		return
	}
	blocked := len(p.Blocked())
	how := "allow one rule with --allow RULE_ID"
	for _, f := range fs {
		if f.Rule == RulePruneAll || f.Rule == RulePruneLimit {
			how += "; a prune with --prune-max N or --allow-prune-all"
			break
		}
	}
	fmt.Fprintf(b, "\nDangerous changes: %d (%d blocked; %s):\n", len(fs), blocked, how)
	for _, f := range fs {
		mark := "blocked"
		if f.Allowed {
			mark = "allowed"
		}
		fmt.Fprintf(b, "  %s %s %s: %s\n", mark, f.Rule, f.Connector, f.Message)
	}
}

func writeFailed(b *strings.Builder, p Plan) {
	for _, ch := range p.Changes {
		if len(ch.Failed) > 0 {
			fmt.Fprintf(b, "\nNote: connector %q has FAILED instances (%s): deploy reports it as not converged unless run with --restart-failed.\n", ch.Name, strings.Join(ch.Failed, ", "))
		}
	}
}

// JSONPlan is the JSON contract of a plan.
type JSONPlan struct {
	FormatVersion string    `json:"format_version"`
	Changes       []Change  `json:"changes"`
	Findings      []Finding `json:"findings"`
	Summary       Counts    `json:"summary"`
	HasChanges    bool      `json:"has_changes"`
	Blocked       bool      `json:"blocked"`
}

// ToJSON returns the JSON contract of the plan.
func (p Plan) ToJSON() JSONPlan {
	j := JSONPlan{FormatVersion: FormatVersion, Changes: p.Changes, Findings: p.Findings(), Summary: p.Counts(), HasChanges: p.HasChanges(), Blocked: len(p.Blocked()) > 0}
	if j.Changes == nil {
		j.Changes = []Change{}
	}
	if j.Findings == nil {
		j.Findings = []Finding{}
	}
	return j
}

// RenderJSON writes the plan as indented JSON (the stable contract).
func RenderJSON(w io.Writer, p Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p.ToJSON())
}
