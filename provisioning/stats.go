package provisioning

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/spec"
)

// TableStats are the size facts of an outbox table.
type TableStats struct {
	// RowsEstimate is the catalog's live-row estimate (PostgreSQL's
	// n_live_tup, MySQL/MariaDB's information_schema TABLE_ROWS): cheap,
	// never a count(*).
	RowsEstimate int64 `json:"rowsEstimate"`
	// OldestRowAge is now (UTC) minus the smallest timestamp column value.
	// Nil when the outbox keeps no rows (writer.deleteAfterInsert), has no
	// timestamp column, or the table is empty.
	OldestRowAge *time.Duration `json:"oldestRowAge,omitempty"`
}

// KeepsRows reports whether rows of o stay in its table after the insert
// (so that the age of the oldest row means something): the writer does not
// delete them in the inserting transaction.
func KeepsRows(o *spec.Outbox) bool { return !o.DeletesAfterInsert() }

// ReadTableStats reads the table stats of o through q (connected to the
// outbox's database). It is the one query for them: doctor and the exporter
// use it. The age reads the timestamp column with min(), which its index
// (provision creates one) answers from one index page. A missing table is an
// error.
func ReadTableStats(ctx context.Context, q Querier, o *spec.Outbox) (TableStats, error) {
	var st TableStats
	pg := o.Database.Kind == spec.Postgres
	var err error
	if pg {
		var n sql.NullInt64
		err = q.QueryRowContext(ctx, `SELECT pg_stat_get_live_tuples(to_regclass($1))`, qualifiedTable(o)).Scan(&n)
		if err == nil && !n.Valid {
			err = fmt.Errorf("table %s does not exist", o.QualifiedTable())
		}
		st.RowsEstimate = n.Int64
	} else {
		err = q.QueryRowContext(ctx, `SELECT COALESCE(TABLE_ROWS, 0) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
			o.Schema, o.Table).Scan(&st.RowsEstimate)
		if err == sql.ErrNoRows {
			err = fmt.Errorf("table %s does not exist", o.QualifiedTable())
		}
	}
	if err != nil {
		return st, fmt.Errorf("row estimate of %s: %w", o.QualifiedTable(), err)
	}
	col := o.Columns.Timestamp
	if col == "" || !KeepsRows(o) {
		return st, nil
	}
	qc := outbox.QuoteIdent(o.Database.Kind, col)
	query := `SELECT EXTRACT(EPOCH FROM (now() AT TIME ZONE 'UTC') - min(` + qc + `))::float8 FROM ` + qualifiedTable(o)
	if !pg {
		query = `SELECT TIMESTAMPDIFF(MICROSECOND, MIN(` + qc + `), UTC_TIMESTAMP(6)) / 1000000 FROM ` + qualifiedTable(o)
	}
	var age sql.NullFloat64
	if err := q.QueryRowContext(ctx, query).Scan(&age); err != nil {
		return st, fmt.Errorf("oldest row of %s: %w", o.QualifiedTable(), err)
	}
	if age.Valid {
		d := time.Duration(age.Float64 * float64(time.Second))
		st.OldestRowAge = &d
	}
	return st, nil
}

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
