package provisioning

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// BinlogPosition is a MySQL/MariaDB binlog coordinate.
type BinlogPosition struct {
	File string `json:"file"`
	Pos  int64  `json:"pos"`
}

// BinlogFacts are the binlog files and the retention of a MySQL/MariaDB
// server.
type BinlogFacts struct {
	// Files in order, with their sizes (SHOW BINARY LOGS).
	Files []BinlogFile `json:"files"`
	// Retention is binlog_expire_logs_seconds (or expire_logs_days); 0
	// means binlogs are never purged by age.
	Retention time.Duration `json:"retention"`
}

// BinlogFile is one binlog file.
type BinlogFile struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// ReadBinlogFacts reads the binlog files and retention through q. It needs
// REPLICATION CLIENT (MySQL) or BINLOG MONITOR (MariaDB), which the
// connector's user has.
func ReadBinlogFacts(ctx context.Context, q Querier) (BinlogFacts, error) {
	var bf BinlogFacts
	rows, err := q.QueryContext(ctx, `SHOW BINARY LOGS`)
	if err != nil {
		return bf, fmt.Errorf("binary logs: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return bf, err
	}
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols)) // MySQL 8 adds Encrypted
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return bf, err
		}
		size, _ := strconv.ParseInt(string(vals[1]), 10, 64)
		bf.Files = append(bf.Files, BinlogFile{Name: string(vals[0]), Size: size})
	}
	if err := rows.Err(); err != nil {
		return bf, err
	}
	vars := map[string]string{}
	vrows, err := q.QueryContext(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('binlog_expire_logs_seconds', 'expire_logs_days')`)
	if err != nil {
		return bf, fmt.Errorf("binlog retention: %w", err)
	}
	defer vrows.Close()
	for vrows.Next() {
		var k, v string
		if err := vrows.Scan(&k, &v); err != nil {
			return bf, err
		}
		vars[strings.ToLower(k)] = v
	}
	if err := vrows.Err(); err != nil {
		return bf, err
	}
	bf.Retention = binlogRetention(vars)
	return bf, nil
}

// binlogRetention is the binlog retention the variables set (0: never
// purged by age): binlog_expire_logs_seconds when non-zero, else
// expire_logs_days (which MariaDB may give as a fraction).
func binlogRetention(vars map[string]string) time.Duration {
	if s, ok := atoi64(vars["binlog_expire_logs_seconds"]); ok && s > 0 {
		return time.Duration(s) * time.Second
	}
	if d, err := strconv.ParseFloat(strings.TrimSpace(vars["expire_logs_days"]), 64); err == nil && d > 0 {
		return time.Duration(d * float64(24*time.Hour))
	}
	return 0
}

// LagBytes is the binlog the server has written past p: the rest of p's
// file and every later file. ok is false when p's file is no longer on the
// server (purged: the connector cannot resume).
func (bf BinlogFacts) LagBytes(p BinlogPosition) (lag int64, ok bool) {
	for i, f := range bf.Files {
		if f.Name != p.File {
			continue
		}
		lag = max(f.Size-p.Pos, 0)
		for _, g := range bf.Files[i+1:] {
			lag += g.Size
		}
		return lag, true
	}
	return 0, false
}
