package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// The PostgreSQL network types: every want below is what PostgreSQL 15
// printed for the input (psql on the stack, 2026-12-07); the differential
// test's pg_net_types variant checks the connector passes that text on.
func TestPgNetTypesColumnValue(t *testing.T) {
	for _, tc := range []struct {
		sqlType, in, want string
	}{
		{"cidr", "10.1/16", "10.1.0.0/16"},
		{"cidr", "10", "10.0.0.0/8"},
		{"cidr", "128.1", "128.1.0.0/16"},
		{"cidr", "192.168.1", "192.168.1.0/24"},
		{"cidr", "224", "224.0.0.0/4"},
		{"cidr", "10.1.2.3", "10.1.2.3/32"},
		{"cidr", "::1", "::1/128"},
		{"cidr", "2001:db8::/32", "2001:db8::/32"},
		{"cidr", "::ffff:1.2.3.4/128", "::ffff:1.2.3.4/128"},
		{"inet", "::ffff:1.2.3.4", "::ffff:1.2.3.4"},
		{"inet", "2001:0DB8:0:0:0:0:0:1/64", "2001:db8::1/64"},
		{"inet", "1.2.3.4/32", "1.2.3.4"},
		{"inet", "1.2.3.4/24", "1.2.3.4/24"},
		{"inet", "0:0:0:0:0:0:0:0", "::"},
		{"inet", "1:0:0:1:0:0:0:1", "1:0:0:1::1"},
		{"inet", "1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"},
		{"inet", "0:0:0:0:0:0:0:1", "::1"},
		{"inet", "::ffff:0:1.2.3.4", "::ffff:0:102:304"},
		{"inet", "::1.2.3.4", "::1.2.3.4"},
		{"inet", "::0.0.0.1", "::1"},
		{"inet", "1::", "1::"},
		{"macaddr", "08-00-2b-01-02-03", "08:00:2b:01:02:03"},
		{"macaddr", "08002b:010203", "08:00:2b:01:02:03"},
		{"macaddr", "0800.2b01.0203", "08:00:2b:01:02:03"},
		{"macaddr", "08002B010203", "08:00:2b:01:02:03"},
		{"macaddr", "0800-2b01-0203", "08:00:2b:01:02:03"},
		{"macaddr8", "08:00:2b:01:02:03", "08:00:2b:ff:fe:01:02:03"},
		{"macaddr8", "08-00-2b-01-02-03-04-05", "08:00:2b:01:02:03:04:05"},
		{"macaddr8", "08002b01:02030405", "08:00:2b:01:02:03:04:05"},
		{"macaddr8", "0800.2b01.0203.0405", "08:00:2b:01:02:03:04:05"},
		{"macaddr8", "08002b0102030405", "08:00:2b:01:02:03:04:05"},
		{"macaddr8", "08:00:2b:01:02:03:04:05:", "08:00:2b:01:02:03:04:05"},
		{"cidr", "010.1.2.3", "10.1.2.3/32"},
		{"inet", "010.1.2.3", "10.1.2.3"},
	} {
		s, err := ColumnSchema(Postgres, tc.sqlType, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.sqlType, err)
		}
		if s.Type != String || s.Name != "" {
			t.Errorf("%s: schema %s/%s, want a plain string", tc.sqlType, s.Type, s.Name)
		}
		raw, _ := json.Marshal(tc.in)
		v, err := ColumnValue(Postgres, tc.sqlType, s, raw)
		if err != nil {
			t.Errorf("%s %q: %v", tc.sqlType, tc.in, err)
			continue
		}
		if v != tc.want {
			t.Errorf("%s %q: %v, want %s", tc.sqlType, tc.in, v, tc.want)
		}
	}
}

// Inputs PostgreSQL refuses (psql: invalid input syntax, or bits right of
// the mask) and a zone are ErrInvalidEvent.
func TestPgNetTypesRefused(t *testing.T) {
	for _, tc := range []struct{ sqlType, in string }{
		{"inet", "1.2.3"},
		{"inet", " 1.2.3.4 "},
		{"inet", "1.2.3.4/33"},
		{"inet", "fe80::1%eth0"},
		{"cidr", "1.2.3.4/24"},
		{"macaddr", "08:00:2b:01:02"},
		{"macaddr", "0800:2b01:0203"},
		{"macaddr", "08:00-2b:01:02:03"},
		{"macaddr8", "08:00:2b:01:02:03:04"},
		{"macaddr8", "08:00-2b:01:02:03:04:05"},
	} {
		s, _ := ColumnSchema(Postgres, tc.sqlType, true)
		raw, _ := json.Marshal(tc.in)
		if v, err := ColumnValue(Postgres, tc.sqlType, s, raw); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %q: %v, %v; want ErrInvalidEvent", tc.sqlType, tc.in, v, err)
		}
	}
}
