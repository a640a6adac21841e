package cmd

import (
	"reflect"
	"testing"

	"github.com/outboxctl/outboxctl/spec"
)

// TestExporterGroups: the spec's declared consumer groups are exported
// without --group, labelled with their outbox; --group adds the others
// (a misspelt one included, so that it shows as missing), each once.
func TestExporterGroups(t *testing.T) {
	targets := []exporterOutbox{
		{outbox: &spec.Outbox{Name: "orders", Consumers: []spec.ConsumerSpec{{Group: "billing"}, {Group: "shipping"}}}},
		{outbox: &spec.Outbox{Name: "payments", Consumers: []spec.ConsumerSpec{{Group: "ledger"}, {Group: "billing"}}}},
	}
	for _, tc := range []struct {
		name   string
		flags  []string
		groups []string
	}{
		{"declared only", nil, []string{"billing", "shipping", "ledger"}},
		{"a flag repeats a declared group", []string{"shipping"}, []string{"billing", "shipping", "ledger"}},
		{"a misspelt flag is kept", []string{"biling", "biling"}, []string{"billing", "shipping", "ledger", "biling"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			groups, outboxOf := exporterGroups(targets, tc.flags)
			if !reflect.DeepEqual(groups, tc.groups) {
				t.Errorf("groups %v, want %v", groups, tc.groups)
			}
			want := map[string]string{"billing": "orders", "shipping": "orders", "ledger": "payments"}
			if !reflect.DeepEqual(outboxOf, want) {
				t.Errorf("outbox labels %v, want %v", outboxOf, want)
			}
		})
	}
	if g, _ := exporterGroups([]exporterOutbox{{outbox: &spec.Outbox{Name: "x"}}}, nil); len(g) != 0 {
		t.Errorf("no declared group and no flag: %v, want none (no Kafka client)", g)
	}
}
