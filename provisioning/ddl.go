package provisioning

import (
	"time"

	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/spec"
)

// TableDDL returns the statements that create the outbox table of o: see
// outboxddl.Table, which renders them (and which test helpers import without
// this package's Kafka client).
func TableDDL(o *spec.Outbox) []string { return outboxddl.Table(o) }

// PartitionName is outboxddl.PartitionName.
func PartitionName(o *spec.Outbox, start time.Time) string { return outboxddl.PartitionName(o, start) }

// PartitionDDL returns the statements that create o's partitions: see
// outboxddl.Partitions.
func PartitionDDL(o *spec.Outbox, now time.Time) []string { return outboxddl.Partitions(o, now) }

// NotifyDDL returns the statements of the relay's wake-up: see outboxddl.Notify.
func NotifyDDL(o *spec.Outbox, serverVersion string) []string {
	return outboxddl.Notify(o, serverVersion)
}
