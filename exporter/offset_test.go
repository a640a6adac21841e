package exporter

import (
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/provisioning"
)

func TestBinlogOffset(t *testing.T) {
	for _, tc := range []struct {
		name string
		offs connect.Offsets
		pos  provisioning.BinlogPosition
		ts   int64
		ok   bool
	}{
		{"debezium mariadb", connect.Offsets{Offsets: []connect.Offset{{Partition: map[string]any{"server": "shop"},
			Offset: map[string]any{"file": "mysql-bin.000004", "pos": float64(1234), "ts_sec": float64(1764633600)}}}},
			provisioning.BinlogPosition{File: "mysql-bin.000004", Pos: 1234}, 1764633600, true},
		{"no ts_sec", connect.Offsets{Offsets: []connect.Offset{{Offset: map[string]any{"file": "b.1", "pos": "77"}}}},
			provisioning.BinlogPosition{File: "b.1", Pos: 77}, 0, true},
		{"not streaming yet", connect.Offsets{}, provisioning.BinlogPosition{}, 0, false},
		{"postgres offset", connect.Offsets{Offsets: []connect.Offset{{Offset: map[string]any{"lsn": float64(1)}}}}, provisioning.BinlogPosition{}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos, ts, ok := binlogOffset(tc.offs)
			if pos != tc.pos || ts != tc.ts || ok != tc.ok {
				t.Errorf("binlogOffset = %+v, %d, %v; want %+v, %d, %v", pos, ts, ok, tc.pos, tc.ts, tc.ok)
			}
		})
	}
}
