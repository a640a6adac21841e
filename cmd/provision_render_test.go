package cmd

import (
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/provisioning"
)

// TestRenderProvisionCountsAndLines: the text report counts every step
// applied (the database creation too) and lists statements that share an
// action and a description once, with their number, not line after line.
func TestRenderProvisionCountsAndLines(t *testing.T) {
	steps := []provisioning.Step{
		{ID: "create-database", Description: "create database shop"},
		{ID: "create-table", Description: "create table public.outbox"},
		{ID: "grant", Description: "let dbz read the outbox table"},
		{ID: "grant", Description: "let dbz read the outbox table"},
		{ID: "owner-group", Description: "create owner group p_owner"},
	}
	var b strings.Builder
	if err := renderProvision(&b, formatText, provisioning.Result{Databases: []provisioning.DatabaseResult{{Outbox: "orders", Kind: "postgres", Steps: steps, Applied: true}}, Findings: []provisioning.Finding{}}); err != nil {
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
