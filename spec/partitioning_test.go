package spec_test

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/spec"
)

func partitionDoc(kind, extra string) string {
	return `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: ` + kind + `
      connection: {host: db, user: app, dbname: shop}
` + extra
}

func TestPartitioningSpec(t *testing.T) {
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(partitionDoc("postgres", "    columns: {timestamp: created_at}\n    partitioning: {interval: hour, ahead: 5}\n"))})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Outboxes[0].Partitioning
	if !s.Outboxes[0].Partitioned() || p.PartitionInterval() != time.Hour || p.PartitionsAhead() != 5 {
		t.Errorf("partitioning = %+v", p)
	}
	s, err = spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(partitionDoc("postgres", "    columns: {timestamp: created_at}\n    partitioning: {}\n"))})
	if err != nil || s.Outboxes[0].Partitioning.PartitionInterval() != 24*time.Hour || s.Outboxes[0].Partitioning.PartitionsAhead() != spec.DefaultPartitionsAhead {
		t.Errorf("partitioning defaults: %v", err)
	}
	for _, tc := range []struct{ kind, extra, want string }{
		{"postgres", "    partitioning: {}\n", `outbox "orders": partitioning ranges by the timestamp column: set columns.timestamp`},
		{"mariadb", "    columns: {timestamp: ts}\n    partitioning: {}\n", `partitioning is for postgres outboxes`},
		{"postgres", "    columns: {timestamp: ts}\n    partitioning: {interval: week}\n", `outbox.yaml:8:30: outbox "orders": partitioning.interval "week": want hour or day`},
		{"postgres", "    columns: {timestamp: ts}\n    partitioning: {ahead: -1}\n", `partitioning.ahead -1`},
		{"postgres", "    columns: {timestamp: ts}\n    partitioning: {every: day}\n", `every`},
	} {
		_, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(partitionDoc(tc.kind, tc.extra))})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want %q", tc.kind, tc.extra, err, tc.want)
		}
	}
}
