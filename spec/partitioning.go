package spec

import (
	"fmt"
	"time"
)

// Partition intervals.
const (
	PartitionHour = "hour"
	PartitionDay  = "day"
)

// DefaultPartitionsAhead is partitioning.ahead's default.
const DefaultPartitionsAhead = 3

// PartitioningSpec makes the PostgreSQL outbox table partitioned by range
// of its timestamp column: `outboxctl provision` creates the partitions of
// the current and the next Ahead intervals, `outboxctl cleanup` drops the
// partitions that are past --older-than and fully published, and the
// publication publishes partition inserts as the root table
// (publish_via_partition_root), so the connector captures them under the
// outbox table's name.
type PartitioningSpec struct {
	Node `yaml:"-"`
	// Interval is the range of one partition: hour or day (default day).
	Interval string `yaml:"interval" json:"interval,omitempty"`
	// Ahead is the number of future partitions provision keeps created
	// (default 3).
	Ahead int `yaml:"ahead" json:"ahead,omitempty"`
}

// Partitioned reports whether the outbox table is partitioned.
func (o *Outbox) Partitioned() bool { return o.Partitioning != nil }

// PartitionInterval is the length of one partition.
func (p *PartitioningSpec) PartitionInterval() time.Duration {
	if p.Interval == PartitionHour {
		return time.Hour
	}
	return 24 * time.Hour
}

// PartitionsAhead is Ahead or its default.
func (p *PartitioningSpec) PartitionsAhead() int {
	if p.Ahead == 0 {
		return DefaultPartitionsAhead
	}
	return p.Ahead
}

// checkPartitioning checks the partitioning block of o.
func checkPartitioning(o *Outbox, errs *ErrorList) {
	p := o.Partitioning
	if p == nil {
		return
	}
	if o.Database.Kind != Postgres {
		errs.add(o.PosOf("partitioning"), fmt.Sprintf("outbox %q: partitioning is for postgres outboxes (database.kind is %s)", o.Name, o.Database.Kind))
	}
	if o.Columns.Timestamp == "" {
		errs.add(o.PosOf("partitioning"), fmt.Sprintf("outbox %q: partitioning ranges by the timestamp column: set columns.timestamp", o.Name))
	}
	if p.Interval != "" && p.Interval != PartitionHour && p.Interval != PartitionDay {
		errs.add(p.PosOf("interval"), fmt.Sprintf("outbox %q: partitioning.interval %q: want hour or day", o.Name, p.Interval))
	}
	if p.Ahead < 0 || p.Ahead > 366 {
		errs.add(p.PosOf("ahead"), fmt.Sprintf("outbox %q: partitioning.ahead %d: want 0 to 366 partitions", o.Name, p.Ahead))
	}
}
