package provisioning_test

import (
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/provisioning"
)

// TestRenderTextCountsAndLines: the text report counts every step
// applied (the database creation too) and lists statements that share an
// action and a description once, with their number, not line after line.
func TestRenderTextCountsAndLines(t *testing.T) {
	steps := []provisioning.Step{
		{ID: "create-database", Description: "create database shop"},
		{ID: "create-table", Description: "create table public.outbox"},
		{ID: "grant", Description: "let dbz read the outbox table"},
		{ID: "grant", Description: "let dbz read the outbox table"},
		{ID: "owner-group", Description: "create owner group p_owner"},
	}
	var b strings.Builder
	if err := provisioning.RenderText(&b, provisioning.Result{Databases: []provisioning.DatabaseResult{{Outbox: "orders", Kind: "postgres", Steps: steps, Applied: true}}, Findings: []provisioning.Finding{}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "outbox orders (postgres): applied 5 steps\n") {
		t.Errorf("missing the count of 5 steps:\n%s", out)
	}
	if strings.Count(out, "let dbz read the outbox table") != 1 || !strings.Contains(out, "+ grant: let dbz read the outbox table (2 statements)\n") {
		t.Errorf("the two grant statements should be one line:\n%s", out)
	}
}

// TestRenderReportText: doctor's text report is the findings with their
// counts, a line per lagging partition and the number of checks that could
// not run.
func TestRenderReportText(t *testing.T) {
	var b strings.Builder
	rep := provisioning.Report{
		Findings: []provisioning.Finding{{Rule: provisioning.IDUserSuperuser, Severity: provisioning.SeverityWarning, Outbox: "orders", Message: "dbz is a superuser"}},
		Lag:      []provisioning.PartitionLag{{Group: "g", Topic: "t", Partition: 1, Lag: 42}},
		Errors:   []string{"database of outbox orders: refused"},
	}
	if err := provisioning.RenderReportText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"dbz is a superuser", "0 errors, 1 warnings, 0 notes\n", "lag\tg\tt\t1\t42\n", "1 checks could not run (see stderr)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}
