package spec_test

import (
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/spec"
)

func relayDoc(kind, relay string) string {
	return `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: ` + kind + `
      connection: {host: db, user: app, dbname: shop}
    payloadFormat: json
    relay:
` + relay
}

func TestRelaySpec(t *testing.T) {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(relayDoc("postgres", "      orderColumn: id\n      pollInterval: 100ms\n      batch: 50\n      notify: outbox_orders\n"))})
	if err != nil {
		t.Fatal(err)
	}
	o := &s.Outboxes[0]
	if !o.RelayPublished() || o.Relay.OrderColumn != "id" || o.Relay.Batch != 50 || o.Relay.Notify != "outbox_orders" || o.Relay.PollInterval != "100ms" {
		t.Errorf("relay = %+v", o.Relay)
	}
	s, err = spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(relayDoc("mariadb", "      booleanColumns: [type]\n"))})
	if err != nil || len(s.Outboxes[0].Relay.BooleanColumns) != 1 || s.Outboxes[0].Relay.BooleanColumns[0] != "type" {
		t.Errorf("relay.booleanColumns: %v", err)
	}
	s, err = spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(relayDoc("mariadb", "      jsonColumns: [payload]\n"))})
	if err != nil || len(s.Outboxes[0].Relay.JSONColumns) != 1 || s.Outboxes[0].Relay.JSONColumns[0] != "payload" {
		t.Errorf("relay.jsonColumns: %v", err)
	}
	s, err = spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(relayDoc("postgres", "      {}\n"))})
	if err != nil || !s.Outboxes[0].RelayPublished() {
		t.Errorf("relay: {}: %v", err)
	}
	for _, tc := range []struct{ kind, relay, want string }{
		{"postgres", "      orderColumn: payload\n", `outbox.yaml:9:20: outbox "orders": relay.orderColumn "payload": want a NOT NULL column`},
		{"postgres", "      orderColumn: nosuch\n", `relay.orderColumn "nosuch"`},
		{"postgres", "      pollInterval: fast\n", `relay.pollInterval "fast": want a positive duration`},
		{"postgres", "      batch: -1\n", `relay.batch -1`},
		{"mariadb", "      notify: outbox_orders\n", `relay.notify needs a postgres outbox`},
		{"postgres", "      notify: Bad-Name\n", `relay.notify "Bad-Name": want a lower-case identifier`},
		{"postgres", "      booleanColumns: [type]\n", `relay.booleanColumns is for a mysql or mariadb outbox`},
		{"mariadb", "      booleanColumns: [nosuch]\n", `relay.booleanColumns "nosuch": not a column of the outbox table`},
		{"postgres", "      jsonColumns: [payload]\n", `relay.jsonColumns is for a mariadb outbox`},
		{"mariadb", "      jsonColumns: [nosuch]\n", `relay.jsonColumns "nosuch": not a column of the outbox table`},
		{"postgres", "      {}\n    writer:\n      deleteAfterInsert: true\n", `outbox.yaml:11:26: outbox "orders": writer.deleteAfterInsert cannot go with relay`},
	} {
		_, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(relayDoc(tc.kind, tc.relay))})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want %q", tc.kind, tc.relay, err, tc.want)
		}
	}
}

func TestWriterSpec(t *testing.T) {
	doc := strings.Replace(relayDoc("postgres", ""), "    relay:\n", "    writer:\n      deleteAfterInsert: true\n", 1)
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	if o := &s.Outboxes[0]; !o.DeletesAfterInsert() || o.RelayPublished() {
		t.Errorf("writer = %+v, relay = %+v", o.Writer, o.Relay)
	}
	s, err = spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(strings.Replace(relayDoc("postgres", ""), "    relay:\n", "", 1))})
	if err != nil || s.Outboxes[0].DeletesAfterInsert() {
		t.Errorf("no writer block: %v, deletes = %v", err, err == nil && s.Outboxes[0].DeletesAfterInsert())
	}
}
