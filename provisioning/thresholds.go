package provisioning

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/internal/uuidv7"
	"github.com/outboxctl/outboxctl/spec"
)

// Finding IDs of the operational checks (doctor's thresholds).
const (
	IDPGSlotRetainedWAL = "PG_SLOT_RETAINED_WAL"
	IDOutboxTable       = "OUTBOX_TABLE"
	IDOutboxOldestRow   = "OUTBOX_OLDEST_ROW"
	IDConsumerLag       = "CONSUMER_LAG"
)

// Default thresholds of doctor.
const (
	// DefaultMaxRetainedWAL: 1 GiB of WAL held back by a slot.
	DefaultMaxRetainedWAL int64 = 1 << 30
	// DefaultMaxOldestRowAge: a row older than a day means cleanup does not
	// run (outboxes that keep rows) or the relay does not publish.
	DefaultMaxOldestRowAge = 24 * time.Hour
	// DefaultMaxUnpublishedRowAge: on a relay outbox (rows leave on the
	// broker's ack) every row is unpublished; one older than 15 minutes is
	// publishing latency. The OutboxUnpublishedRowTooOld alert uses it too.
	DefaultMaxUnpublishedRowAge = 15 * time.Minute
	// DefaultMaxConsumerLag: 10,000 records behind on one partition.
	DefaultMaxConsumerLag int64 = 10000
)

// Thresholds turn operational measurements into error findings. A zero
// field disables its check (the measurement is still reported as info).
type Thresholds struct {
	// MaxRetainedWAL is the WAL, in bytes, a replication slot may retain.
	MaxRetainedWAL int64
	// MaxOldestRowAge is the age the oldest outbox row may reach on an
	// outbox that keeps rows after publishing and declares no retention
	// (see OldestRowLimit).
	MaxOldestRowAge time.Duration
	// MaxUnpublishedRowAge is the age the oldest row of a relay outbox (an
	// unpublished row) may reach.
	MaxUnpublishedRowAge time.Duration
	// MaxConsumerLag is the lag, in records, of a consumer group on one
	// partition.
	MaxConsumerLag int64
}

// OldestRowLimit is the age o's oldest row may reach, and where that limit
// comes from: for a relay outbox (every row unpublished)
// th.MaxUnpublishedRowAge; for an outbox that keeps rows after publishing,
// the retention the spec declares (spec.Outbox.Retention) or else
// th.MaxOldestRowAge. doctor (OUTBOX_OLDEST_ROW) and the exporter
// (outbox_retention_seconds, read by the OutboxKeptRowTooOld alert) both
// use it, so their thresholds agree. 0: no threshold.
func OldestRowLimit(o *spec.Outbox, th Thresholds) (limit time.Duration, source string) {
	if o.RelayPublished() {
		return th.MaxUnpublishedRowAge, "--max-unpublished-row-age"
	}
	if r := o.RetentionPeriod(); r > 0 {
		return r, "the spec's retention"
	}
	return th.MaxOldestRowAge, "--max-oldest-row-age"
}

// DefaultThresholds are doctor's defaults.
var DefaultThresholds = Thresholds{MaxRetainedWAL: DefaultMaxRetainedWAL, MaxOldestRowAge: DefaultMaxOldestRowAge,
	MaxUnpublishedRowAge: DefaultMaxUnpublishedRowAge, MaxConsumerLag: DefaultMaxConsumerLag}

// TableStats describe the rows of an outbox table.
type TableStats struct {
	// RowsEstimate is the catalog's live-row estimate, never a count(*)
	// (PostgreSQL's statistics collector, n_live_tup, summed over the
	// partitions; MySQL/MariaDB's information_schema.TABLES.TABLE_ROWS);
	// -1 when the server has none.
	RowsEstimate int64 `json:"rowsEstimate"`
	// Bytes is the table's size on disk with its indexes.
	Bytes int64 `json:"bytes"`
	// Empty: the table has no row (read exactly, not estimated).
	Empty bool `json:"empty"`
	// OldestAge is the age of the oldest row, by the timestamp column or,
	// without one, by the time in the smallest UUIDv7 id; nil when the table
	// is empty or the age cannot be told (no timestamp column and ids that
	// are not UUIDv7).
	OldestAge *time.Duration `json:"oldestAgeSeconds,omitempty"`
}

// InspectTableStats reads the size, row estimate and oldest row of t's
// outbox table through q (connected to the outbox's database). It is the one
// query for them: doctor and the exporter use it. A missing table is nil
// stats and no error.
func InspectTableStats(ctx context.Context, q Querier, t Target) (*TableStats, error) {
	o := t.Outbox
	qt := outboxddl.QualifiedTable(o)
	st := &TableStats{}
	var err error
	if o.Database.Kind == spec.Postgres {
		var exists bool
		err = q.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, qt).Scan(&exists)
		if err != nil || !exists {
			return nil, wrapStats(o, err)
		}
		// A partitioned table's reltuples and size are its partitions'.
		err = q.QueryRowContext(ctx, `SELECT COALESCE(SUM(pg_stat_get_live_tuples(c.oid)), -1)::bigint,
			COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint
			FROM pg_class c WHERE c.oid = to_regclass($1) AND c.relkind <> 'p'
			   OR c.oid IN (SELECT relid FROM pg_partition_tree(to_regclass($1)) WHERE isleaf)`, qt).Scan(&st.RowsEstimate, &st.Bytes)
	} else {
		err = q.QueryRowContext(ctx, `SELECT COALESCE(TABLE_ROWS, -1), COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0)
			FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, o.Schema, o.Table).Scan(&st.RowsEstimate, &st.Bytes)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, wrapStats(o, err)
	}
	age, empty, err := oldestRowAge(ctx, q, o)
	if err != nil {
		return nil, wrapStats(o, err)
	}
	st.Empty, st.OldestAge = empty, age
	return st, nil
}

func wrapStats(o *spec.Outbox, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: outbox %s: table statistics: %w", ErrInspect, o.Name, err)
}

// oldestRowAge is the age of the oldest row of o's table: by its
// timestamp column (UTC, as the writer stores it), else by the smallest id
// when that is a UUIDv7 (the writer's ids sort by time, as bytes and as
// lower-case text).
func oldestRowAge(ctx context.Context, q Querier, o *spec.Outbox) (*time.Duration, bool, error) {
	kind := o.Database.Kind
	qt := outboxddl.QualifiedTable(o)
	col := func(s string) string { return sqlident.Quote(kind, s) }
	if ts := o.Columns.Timestamp; ts != "" {
		var micros sql.NullInt64
		query := `SELECT (EXTRACT(EPOCH FROM ((now() AT TIME ZONE 'UTC') - MIN(` + col(ts) + `))) * 1000000)::bigint FROM ` + qt
		if kind != spec.Postgres {
			query = `SELECT TIMESTAMPDIFF(MICROSECOND, MIN(` + col(ts) + `), UTC_TIMESTAMP(6)) FROM ` + qt
		}
		if err := q.QueryRowContext(ctx, query).Scan(&micros); err != nil {
			return nil, false, err
		}
		if !micros.Valid {
			return nil, true, nil
		}
		d := time.Duration(micros.Int64) * time.Microsecond
		return &d, false, nil
	}
	// PostgreSQL has no min(uuid); ORDER BY the id (uuid sorts as bytes,
	// so UUIDv7 ids by time) reads one index entry.
	query := `SELECT ` + col(o.Columns.ID) + `::text FROM ` + qt + ` ORDER BY ` + col(o.Columns.ID) + ` LIMIT 1`
	if kind != spec.Postgres {
		query = `SELECT MIN(` + col(o.Columns.ID) + `) FROM ` + qt
	}
	var id sql.NullString
	if err := q.QueryRowContext(ctx, query).Scan(&id); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, false, err
	}
	if !id.Valid {
		return nil, true, nil
	}
	created, ok := uuidv7.Time(id.String)
	if !ok {
		return nil, false, nil
	}
	d := time.Since(created)
	return &d, false, nil
}

// CheckThresholds reports the operational state of t (the slot's retained
// WAL from f, the outbox table's size and oldest row from st) as findings:
// info below a threshold, an error past it. Nil f or st skip their part.
func CheckThresholds(t Target, f *Facts, st *TableStats, th Thresholds) []Finding {
	fs := &findings{outbox: t.Outbox.Name}
	if f != nil && f.Slot != nil && th.MaxRetainedWAL > 0 && f.Slot.RetainedBytes > th.MaxRetainedWAL {
		fs.add(IDPGSlotRetainedWAL, SeverityError, "slot "+f.Slot.Name, "start or fix the connector; drop the slot if it is abandoned; set max_slot_wal_keep_size",
			"slot retains %s of WAL, over the threshold of %s (--max-retained-wal)", humanBytes(f.Slot.RetainedBytes), humanBytes(th.MaxRetainedWAL))
	}
	if st != nil {
		o := t.Outbox
		qt := o.QualifiedTable()
		rows := "never analyzed"
		if st.RowsEstimate >= 0 {
			rows = fmt.Sprintf("about %d rows", st.RowsEstimate)
		}
		oldest := "no rows"
		switch {
		case st.OldestAge != nil:
			oldest = "oldest row " + st.OldestAge.Round(time.Second).String() + " old"
		case !st.Empty:
			oldest = "age of the oldest row unknown (no timestamp column, ids are not UUIDv7)"
		}
		fs.add(IDOutboxTable, SeverityInfo, "table "+qt, "", "%s, %s, %s", humanBytes(st.Bytes), rows, oldest)
		limit, flag := OldestRowLimit(o, th)
		if st.OldestAge != nil && limit > 0 && *st.OldestAge > limit {
			fix := "run outboxctl cleanup (from cron) to delete published rows"
			what := "rows are kept after publishing"
			switch {
			case o.RelayPublished():
				fix, what = "check that outboxctl relay runs and publishes", "the relay deletes rows it published, so this row is not published"
			case o.DeletesAfterInsert():
				fix, what = "find the writer that does not delete its rows (writer.deleteAfterInsert)", "the writer deletes its rows"
			}
			fs.add(IDOutboxOldestRow, SeverityError, "table "+qt, fix, "oldest row is %s old, over the threshold of %s (%s; %s)",
				st.OldestAge.Round(time.Second), limit, flag, what)
		}
	}
	return fs.list
}

// CheckConsumerLag reports each group's lag: one info finding per group
// and topic with its total, and an error per partition past max (0: no
// threshold).
func CheckConsumerLag(lags []PartitionLag, maxLag int64) []Finding {
	fs := &findings{outbox: "-"}
	type gt struct{ g, t string }
	total := map[gt]int64{}
	var order []gt
	for _, l := range lags {
		k := gt{l.Group, l.Topic}
		if _, ok := total[k]; !ok {
			order = append(order, k)
		}
		total[k] += l.Lag
		if maxLag > 0 && l.Lag > maxLag {
			fs.add(IDConsumerLag, SeverityError, fmt.Sprintf("group %s topic %s partition %d", l.Group, l.Topic, l.Partition),
				"scale or fix the consumers of the group", "consumer lag is %d records, over the threshold of %d (--max-consumer-lag)", l.Lag, maxLag)
		}
	}
	for _, k := range order {
		fs.add(IDConsumerLag, SeverityInfo, fmt.Sprintf("group %s topic %s", k.g, k.t), "", "consumer lag is %d records in total", total[k])
	}
	sortFindings(fs.list)
	return fs.list
}

// WithLagRequestTimeout returns admin with each call bounded by d, as
// WithRequestTimeout does for TopicAdmin. d <= 0 returns admin unchanged.
func WithLagRequestTimeout(admin LagAdmin, d time.Duration) LagAdmin {
	if d <= 0 {
		return admin
	}
	return &timedLagAdmin{a: admin, t: &timedAdmin{d: d}}
}

type timedLagAdmin struct {
	a LagAdmin
	t *timedAdmin
}

func (l *timedLagAdmin) CommittedOffsets(ctx context.Context, group string) ([]PartitionOffset, error) {
	ctx, cancel := context.WithTimeout(ctx, l.t.d)
	defer cancel()
	res, err := l.a.CommittedOffsets(ctx, group)
	return res, l.t.timeout("kafka list consumer group offsets request", err)
}

func (l *timedLagAdmin) EndOffsets(ctx context.Context, partitions []TopicPartition) ([]PartitionOffset, error) {
	ctx, cancel := context.WithTimeout(ctx, l.t.d)
	defer cancel()
	res, err := l.a.EndOffsets(ctx, partitions)
	return res, l.t.timeout("kafka list offsets request", err)
}
