package cmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// TestExporterConns: --dsn NAME=DSN (literal or env:VAR) and --db-address
// [NAME=]HOST:PORT give each outbox how the exporter reaches its database;
// the DSN wins over the address, a named address over the unnamed one, and
// a name that is no outbox, a value given twice or a malformed one is a
// usage error.
func TestExporterConns(t *testing.T) {
	targets := []exporterOutbox{{outbox: &spec.Outbox{Name: "orders"}}, {outbox: &spec.Outbox{Name: "billing"}}, {outbox: &spec.Outbox{Name: "ledger"}}}
	env := testEnv(map[string]string{"BILLING_DSN": "postgres://u:secret@db:5432/billing"})
	conns, err := exporterConns(env, targets,
		[]string{"orders=postgres://u@10.0.0.1:5432/shop", "billing=env:BILLING_DSN"},
		[]string{"127.0.0.1:15432", "ledger=127.0.0.1:25432"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]exporterConn{
		"orders":  {dsn: "postgres://u@10.0.0.1:5432/shop", host: "127.0.0.1", port: "15432"},
		"billing": {dsn: "postgres://u:secret@db:5432/billing", host: "127.0.0.1", port: "15432"},
		"ledger":  {host: "127.0.0.1", port: "25432"},
	}
	for name, w := range want {
		if conns[name] != w {
			t.Errorf("%s: %+v, want %+v", name, conns[name], w)
		}
	}
	for _, tc := range []struct {
		dsns, addrs []string
		err         string
	}{
		{[]string{"nosuch=postgres://x"}, nil, "the spec has no outbox nosuch"},
		{[]string{"postgres://x"}, nil, "want NAME=DSN"},
		{[]string{"orders=a", "orders=b"}, nil, "given twice"},
		{[]string{"orders=env:UNSET_DSN"}, nil, "UNSET_DSN is not set"},
		{nil, []string{"db"}, "want [NAME=]HOST:PORT"},
		{nil, []string{"nosuch=db:1"}, "the spec has no outbox nosuch"},
		{nil, []string{"db:1", "db:2"}, "given twice"},
	} {
		_, err := exporterConns(env, targets, tc.dsns, tc.addrs)
		if err == nil || !strings.Contains(err.Error(), tc.err) || ExitCodeOf(err) != ExitUsage {
			t.Errorf("dsns %v addrs %v: err %v, want a usage error with %q", tc.dsns, tc.addrs, err, tc.err)
		}
	}
}

// TestExporterDSN: the connector's database.* settings, with the host and
// port --db-address gives (Connect's host name is not the exporter's), or
// the --dsn outright; no DSN to be had is exporter.ErrNoDSN (reason
// missing) naming the --dsn to pass.
func TestExporterDSN(t *testing.T) {
	pg := func(conf map[string]string) provisioning.Target {
		c := map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "database.hostname": "postgres",
			"database.port": "5432", "database.user": "dbz", "database.password": "pw", "database.dbname": "shop"}
		for k, v := range conf {
			c[k] = v
		}
		return provisioning.Target{Outbox: &spec.Outbox{Name: "orders"}, Connector: connectorconfig.Connector{Name: "orders-outbox", Config: c}}
	}
	for _, tc := range []struct {
		name string
		t    provisioning.Target
		conn exporterConn
		dsn  string
		err  string
	}{
		{"as Connect sees it", pg(nil), exporterConn{}, "postgres://dbz:pw@postgres:5432/shop?sslmode=disable", ""},
		{"--db-address", pg(nil), exporterConn{host: "127.0.0.1", port: "15432"}, "postgres://dbz:pw@127.0.0.1:15432/shop?sslmode=disable", ""},
		{"--dsn wins", pg(nil), exporterConn{dsn: "postgres://x@h/db", host: "127.0.0.1", port: "1"}, "postgres://x@h/db", ""},
		{"Connect's password reference", pg(map[string]string{"database.password": "${file:/secrets/db.properties:pw}"}), exporterConn{host: "127.0.0.1", port: "1"}, "", "pass --dsn"},
		{"Connect's reference, --dsn given", pg(map[string]string{"database.password": "${file:/secrets/db.properties:pw}"}), exporterConn{dsn: "postgres://x@h/db"}, "postgres://x@h/db", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dsn, err := exporterDSN(tc.t, tc.conn)
			if tc.err != "" {
				if !errors.Is(err, exporter.ErrNoDSN) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--dsn orders=DSN") || exporter.Reason(err) != exporter.ReasonMissing {
					t.Errorf("err %v, want ErrNoDSN (reason missing) with %q", err, tc.err)
				}
				return
			}
			if err != nil || dsn != tc.dsn {
				t.Errorf("dsn %q err %v, want %q", dsn, err, tc.dsn)
			}
		})
	}
}
