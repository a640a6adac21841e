package findings_test

import (
	"bytes"
	"testing"

	"github.com/outboxctl/outboxctl/findings"
)

var sample = []findings.Finding{
	{Rule: "SLOT_NAME_INVALID", Severity: findings.SeverityError, File: "outbox.yaml", Line: 12, Col: 17, Subject: "connector orders, key slot.name", Message: `slot.name "orders-slot" may only contain a-z, 0-9 and '_'`, Hint: "drop connector.slotName"},
	{Rule: "PG_WAL_LEVEL", Severity: findings.SeverityWarning, Subject: "orders: wal_level", Message: "wal_level is replica\nwant logical", Hint: "ALTER SYSTEM SET wal_level = logical"},
	{Rule: "NOTE", Severity: findings.SeverityInfo, File: "a,b:c%.avsc", Line: 3, Message: "100% | done"},
}

func TestPrinters(t *testing.T) {
	for _, tc := range []struct {
		name  string
		print func(*bytes.Buffer) error
		want  string
	}{
		{"text", func(b *bytes.Buffer) error { return findings.PrintText(b, sample) }, `outbox.yaml:12:17: error SLOT_NAME_INVALID: slot.name "orders-slot" may only contain a-z, 0-9 and '_'
    connector orders, key slot.name
    hint: drop connector.slotName
warning PG_WAL_LEVEL: wal_level is replica
want logical
    orders: wal_level
    hint: ALTER SYSTEM SET wal_level = logical
a,b:c%.avsc:3: info NOTE: 100% | done
`},
		{"github-actions", func(b *bytes.Buffer) error { return findings.PrintGitHubActions(b, sample) }, `::error file=outbox.yaml,line=12,col=17,title=SLOT_NAME_INVALID::slot.name "orders-slot" may only contain a-z, 0-9 and '_'%0Ahint: drop connector.slotName
::warning title=PG_WAL_LEVEL::orders: wal_level: wal_level is replica%0Awant logical%0Ahint: ALTER SYSTEM SET wal_level = logical
::notice file=a%2Cb%3Ac%25.avsc,line=3,title=NOTE::100%25 | done
`},
		{"summary", func(b *bytes.Buffer) error { return findings.PrintSummary(b, "outboxctl validate", sample) }, "## outboxctl validate\n\n" +
			"**1 error(s), 1 warning(s), 1 note(s).**\n\n" +
			"| Severity | Rule | Where | Message |\n|---|---|---|---|\n" +
			"| **error** | `SLOT_NAME_INVALID` | `outbox.yaml:12:17` | connector orders, key slot.name: slot.name \"orders-slot\" may only contain a-z, 0-9 and '_'<br>hint: drop connector.slotName |\n" +
			"| warning | `PG_WAL_LEVEL` | orders: wal_level | wal_level is replica want logical<br>hint: ALTER SYSTEM SET wal_level = logical |\n" +
			"| info | `NOTE` | `a,b:c%.avsc:3` | 100% \\| done |\n\n"},
		{"summary empty", func(b *bytes.Buffer) error { return findings.PrintSummary(b, "outboxctl doctor", nil) }, "## outboxctl doctor\n\nNo findings.\n\n"},
		{"json", func(b *bytes.Buffer) error { return findings.WriteJSON(b, sample[2:]) }, `[
  {
    "rule": "NOTE",
    "severity": "info",
    "file": "a,b:c%.avsc",
    "line": 3,
    "message": "100% | done"
  }
]
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.print(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"a%b", "a%25b", "a%25b"},
		{"l1\r\nl2", "l1%0D%0Al2", "l1%0D%0Al2"},
		{"x:y,z", "x:y,z", "x%3Ay%2Cz"},
		{"%0A", "%250A", "%250A"},
	} {
		if got := findings.EscapeData(tc.in); got != tc.data {
			t.Errorf("EscapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := findings.EscapeProperty(tc.in); got != tc.prop {
			t.Errorf("EscapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

func TestRulesLookup(t *testing.T) {
	rs := findings.Rules{
		{ID: "SLOT_NAME_INVALID", Aliases: []string{"PG001_SLOT_NAME_INVALID"}},
		{ID: "TOPIC_PREFIX_CHANGE"},
	}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"SLOT_NAME_INVALID", "SLOT_NAME_INVALID", true},
		{" pg001_slot_name_invalid ", "SLOT_NAME_INVALID", true},
		{"topic_prefix_change", "TOPIC_PREFIX_CHANGE", true},
		{"nope", "NOPE", false},
	} {
		got, ok := rs.Canonical(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Canonical(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSeverity(t *testing.T) {
	fs := []findings.Finding{{Severity: findings.SeverityWarning}, {Severity: findings.SeverityInfo}}
	if findings.Failed(fs, findings.SeverityError) {
		t.Error("a warning fails at error")
	}
	if !findings.Failed(fs, findings.SeverityWarning) {
		t.Error("a warning does not fail at warning")
	}
	if c := findings.Count(fs); c != (findings.Counts{Warnings: 1, Infos: 1}) {
		t.Errorf("Count = %+v", c)
	}
}
