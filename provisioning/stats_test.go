package provisioning

import (
	"testing"
	"time"
)

func TestBinlogLagBytes(t *testing.T) {
	bf := BinlogFacts{Files: []BinlogFile{{"bin.000001", 1000}, {"bin.000002", 500}, {"bin.000003", 200}}}
	for _, tc := range []struct {
		name string
		pos  BinlogPosition
		lag  int64
		ok   bool
	}{
		{"caught up", BinlogPosition{"bin.000003", 200}, 0, true},
		{"inside the last file", BinlogPosition{"bin.000003", 50}, 150, true},
		{"two files behind", BinlogPosition{"bin.000001", 400}, 600 + 500 + 200, true},
		{"position past the size (file still growing)", BinlogPosition{"bin.000003", 300}, 0, true},
		{"purged", BinlogPosition{"bin.000000", 4}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lag, ok := bf.LagBytes(tc.pos)
			if lag != tc.lag || ok != tc.ok {
				t.Errorf("LagBytes(%+v) = %d, %v; want %d, %v", tc.pos, lag, ok, tc.lag, tc.ok)
			}
		})
	}
}

func TestBinlogRetention(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want time.Duration
	}{
		{map[string]string{"binlog_expire_logs_seconds": "86400", "expire_logs_days": "3"}, 24 * time.Hour},
		{map[string]string{"binlog_expire_logs_seconds": "0", "expire_logs_days": "3"}, 72 * time.Hour},
		{map[string]string{"expire_logs_days": "0.5"}, 12 * time.Hour},
		{map[string]string{"binlog_expire_logs_seconds": "0", "expire_logs_days": "0"}, 0},
		{map[string]string{}, 0},
	} {
		if got := binlogRetention(tc.vars); got != tc.want {
			t.Errorf("binlogRetention(%v) = %s, want %s", tc.vars, got, tc.want)
		}
	}
}
