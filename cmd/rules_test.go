package cmd

import (
	"regexp"
	"strings"
	"testing"
)

// TestRuleIDs: every documented rule ID follows the one scheme
// (SCREAMING_SNAKE words, no code prefix), and no ID or alias names two
// rules across the check commands.
func TestRuleIDs(t *testing.T) {
	scheme := regexp.MustCompile(`^[A-Z]+(_[A-Z0-9]+)+$`)
	seen := map[string]string{}
	n := 0
	for _, set := range ruleSets() {
		for _, r := range set.Rules {
			n++
			if !scheme.MatchString(r.ID) {
				t.Errorf("%s: rule ID %q does not follow the scheme", set.Commands, r.ID)
			}
			if r.Purpose == "" || r.Severity == "" {
				t.Errorf("%s: rule %s has no purpose or severity", set.Commands, r.ID)
			}
			for _, id := range append([]string{r.ID}, r.Aliases...) {
				if prev, ok := seen[id]; ok {
					t.Errorf("%s: %s names a rule of %s too", set.Commands, id, prev)
				}
				seen[id] = set.Commands
			}
			for _, a := range r.Aliases {
				if got, ok := set.Rules.Canonical(a); !ok || got != r.ID {
					t.Errorf("alias %s resolves to %q, want %s", a, got, r.ID)
				}
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d rules documented", n)
	}
	help := rulesTopicHelp()
	for id := range seen {
		if !strings.Contains(help, id) {
			t.Errorf("help rules does not name %s", id)
		}
	}
}
