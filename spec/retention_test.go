package spec_test

import (
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/spec"
)

// TestRetention: retention is a positive duration on an outbox that keeps
// rows; elsewhere, or malformed, it is an error at its position.
func TestRetention(t *testing.T) {
	doc := func(extra string) []byte {
		return []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: db, user: dbz, dbname: shop}
` + extra)
	}
	for _, tc := range []struct {
		name  string
		extra string
		want  time.Duration
		err   string
	}{
		{"none", "", 0, ""},
		{"24h", "    retention: 24h\n", 24 * time.Hour, ""},
		{"90m", "    retention: 90m\n", 90 * time.Minute, ""},
		{"not a duration", "    retention: 1d\n", 0, `outbox.yaml:7:16: outbox "orders": retention "1d": want a positive duration`},
		{"zero", "    retention: 0s\n", 0, "want a positive duration"},
		{"relay", "    relay: {}\n    retention: 24h\n", 0, "the relay deletes the rows it publishes"},
		{"deleteAfterInsert", "    writer: {deleteAfterInsert: true}\n    retention: 24h\n", 0, "writer.deleteAfterInsert keeps no rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: doc(tc.extra)})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Outboxes[0].RetentionPeriod(); got != tc.want {
				t.Errorf("RetentionPeriod() = %s, want %s", got, tc.want)
			}
		})
	}
}
