package provisioning_test

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

func TestCheckThresholds(t *testing.T) {
	t.Parallel()
	age := func(d time.Duration) *time.Duration { return &d }
	slot := func(b int64) *provisioning.Facts {
		return &provisioning.Facts{Slot: &provisioning.Slot{Name: "s", Active: true, RetainedBytes: b}}
	}
	cases := []struct {
		name   string
		extra  string
		facts  *provisioning.Facts
		stats  *provisioning.TableStats
		th     provisioning.Thresholds
		want   []string // ID severity, in order
		within string   // a message must contain this
	}{
		{"below every threshold", "", slot(1 << 20), &provisioning.TableStats{RowsEstimate: 10, Bytes: 8192, OldestAge: age(time.Hour)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info"}, "oldest row 1h0m0s old"},
		{"retained WAL past the threshold", "", slot(2 << 30), nil,
			provisioning.DefaultThresholds, []string{"PG_SLOT_RETAINED_WAL error"}, "2.0 GiB of WAL, over the threshold of 1.0 GiB"},
		{"threshold off", "", slot(2 << 30), &provisioning.TableStats{Empty: true},
			provisioning.Thresholds{}, []string{"OUTBOX_TABLE info"}, "no rows"},
		{"old row kept after publishing", "", nil, &provisioning.TableStats{RowsEstimate: -1, OldestAge: age(48 * time.Hour)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info", "OUTBOX_OLDEST_ROW error"}, "run outboxctl cleanup"},
		{"old row of a relay outbox", "    relay: {}\n", nil, &provisioning.TableStats{OldestAge: age(48 * time.Hour)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info", "OUTBOX_OLDEST_ROW error"}, "this row is not published"},
		{"relay row past the unpublished threshold", "    relay: {}\n", nil, &provisioning.TableStats{OldestAge: age(20 * time.Minute)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info", "OUTBOX_OLDEST_ROW error"}, "over the threshold of 15m0s (--max-unpublished-row-age"},
		{"kept row within the retention", "", nil, &provisioning.TableStats{OldestAge: age(20 * time.Minute)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info"}, "oldest row 20m0s old"},
		{"kept row past the spec's retention", "    retention: 2h\n", nil, &provisioning.TableStats{OldestAge: age(3 * time.Hour)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info", "OUTBOX_OLDEST_ROW error"}, "over the threshold of 2h0m0s (the spec's retention"},
		{"kept row within the spec's retention, past the flag", "    retention: 72h\n", nil, &provisioning.TableStats{OldestAge: age(48 * time.Hour)},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info"}, "oldest row 48h0m0s old"},
		{"age unknown", "", nil, &provisioning.TableStats{RowsEstimate: 3},
			provisioning.DefaultThresholds, []string{"OUTBOX_TABLE info"}, "ids are not UUIDv7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := target(t, spec.Postgres, tc.extra)
			fs := provisioning.CheckThresholds(tg, tc.facts, tc.stats, tc.th)
			var got []string
			found := false
			for _, f := range fs {
				got = append(got, f.Rule+" "+string(f.Severity))
				found = found || strings.Contains(f.Message+" "+f.Hint, tc.within)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("findings %v, want %v\n%v", got, tc.want, fs)
			}
			if !found {
				t.Errorf("no finding says %q: %v", tc.within, fs)
			}
		})
	}
}

func TestCheckConsumerLag(t *testing.T) {
	t.Parallel()
	lags := []provisioning.PartitionLag{
		{Group: "g", Topic: "t", Partition: 0, Committed: 5, End: 10, Lag: 5},
		{Group: "g", Topic: "t", Partition: 1, Committed: -1, End: 200, Lag: 200},
	}
	fs := provisioning.CheckConsumerLag(lags, 100)
	if len(fs) != 2 || fs[0].Severity != provisioning.SeverityError || fs[0].Subject != "group g topic t partition 1" ||
		fs[1].Severity != provisioning.SeverityInfo || !strings.Contains(fs[1].Message, "205 records") {
		t.Errorf("findings: %v", fs)
	}
	if fs := provisioning.CheckConsumerLag(lags, 0); len(fs) != 1 || fs[0].Severity != provisioning.SeverityInfo {
		t.Errorf("no threshold: %v", fs)
	}
}

func TestPartitionDDL(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 23, 40, 0, 0, time.UTC)
	tg := target(t, spec.Postgres, "    columns: {timestamp: created_at}\n    partitioning: {interval: hour, ahead: 1}\n")
	got := strings.Join(provisioning.PartitionDDL(tg.Outbox, now), "\n")
	want := `CREATE TABLE IF NOT EXISTS "public"."outbox_p2026120122" PARTITION OF "public"."outbox" FOR VALUES FROM ('2026-12-01 22:00:00') TO ('2026-12-01 23:00:00')
CREATE TABLE IF NOT EXISTS "public"."outbox_p2026120123" PARTITION OF "public"."outbox" FOR VALUES FROM ('2026-12-01 23:00:00') TO ('2026-12-02 00:00:00')
CREATE TABLE IF NOT EXISTS "public"."outbox_p2026120200" PARTITION OF "public"."outbox" FOR VALUES FROM ('2026-12-02 00:00:00') TO ('2026-12-02 01:00:00')`
	if got != want {
		t.Errorf("PartitionDDL:\n%s\nwant:\n%s", got, want)
	}
	days := provisioning.PartitionDDL(target(t, spec.Postgres, "    columns: {timestamp: created_at}\n    partitioning: {}\n").Outbox, now)
	if len(days) != 5 || !strings.Contains(days[0], `"outbox_p20261130" PARTITION OF "public"."outbox" FOR VALUES FROM ('2026-11-30 00:00:00') TO ('2026-12-01 00:00:00')`) {
		t.Errorf("day partitions: %v", days)
	}
	if provisioning.PartitionDDL(target(t, spec.Postgres, "").Outbox, now) != nil {
		t.Error("partitions for an outbox that is not partitioned")
	}
	// provision plans them, and the publication publishes via the root.
	steps, _ := provisioning.SpecSteps(tg, provisioning.Options{Now: func() time.Time { return now }})
	var ids []string
	viaRoot := false
	for _, s := range steps {
		ids = append(ids, s.ID)
		viaRoot = viaRoot || strings.Contains(s.SQL, "CREATE PUBLICATION") && strings.Contains(s.SQL, "publish_via_partition_root = true")
	}
	if n := strings.Count(strings.Join(ids, ","), "create-partitions"); n != 3 || !viaRoot {
		t.Errorf("steps %v (publication via root: %v)", ids, viaRoot)
	}
	if tg.Config("publish.via.partition.root") != "true" {
		t.Errorf("connector config lacks publish.via.partition.root=true")
	}
}

// TestOldestRowLimit: the one threshold of the oldest row that doctor and
// the exporter (outbox_retention_seconds) use: the spec's retention on an
// outbox that keeps rows, else --max-oldest-row-age; a relay outbox's
// --max-unpublished-row-age.
func TestOldestRowLimit(t *testing.T) {
	th := provisioning.DefaultThresholds
	for _, tc := range []struct {
		name   string
		o      spec.Outbox
		limit  time.Duration
		source string
	}{
		{"kept rows, no retention", spec.Outbox{}, provisioning.DefaultMaxOldestRowAge, "--max-oldest-row-age"},
		{"kept rows, retention 72h", spec.Outbox{Retention: "72h"}, 72 * time.Hour, "the spec's retention"},
		{"kept rows, retention 30m", spec.Outbox{Retention: "30m"}, 30 * time.Minute, "the spec's retention"},
		{"relay", spec.Outbox{Relay: &spec.RelaySpec{}}, provisioning.DefaultMaxUnpublishedRowAge, "--max-unpublished-row-age"},
	} {
		if limit, source := provisioning.OldestRowLimit(&tc.o, th); limit != tc.limit || source != tc.source {
			t.Errorf("%s: %s (%s), want %s (%s)", tc.name, limit, source, tc.limit, tc.source)
		}
	}
}
