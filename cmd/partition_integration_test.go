//go:build integration

package cmd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cleanup"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/spec"
)

// TestCLIPartitionedOutbox provisions a PostgreSQL outbox partitioned by
// hour and deploys its connector on the real Debezium: rows written into
// the previous and the current hour's partitions are captured and routed
// under the outbox table (publish_via_partition_root), with their ids; then
// `outboxctl cleanup --older-than 0s` drops the previous hour's partition
// whole and deletes the published rows of the current one.
func TestCLIPartitionedOutbox(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_part_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: part-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, dbname: %[5]s}
    payloadFormat: json
    columns: {timestamp: created_at}
    partitioning: {interval: hour, ahead: 2}
    connector: {profile: latency}
`, s.ConnectBootstrap(), sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(spec.Source{Name: specFile, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, want int, args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out
	}
	agg := "part_" + sfx
	topic := "outbox.event." + agg
	itest.CreateTopic(t, s.BootstrapServers, topic)
	run(t, 0, "provision", "-f", specFile, "--database")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var parts int
	var viaRoot bool
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'public.outbox'::regclass`).Scan(&parts); err != nil || parts != 4 {
		t.Fatalf("partitions: %d %v, want 4 (previous, current and 2 ahead)", parts, err)
	}
	run(t, 0, "deploy", "-f", specFile, "--timeout", "2m")
	if err := db.QueryRowContext(ctx, `SELECT pubviaroot FROM pg_publication WHERE pubname LIKE '%pub'`).Scan(&viaRoot); err != nil || !viaRoot {
		t.Fatalf("publication publish_via_partition_root: %v %v", viaRoot, err)
	}

	w, err := outbox.NewWriter(outbox.TableFor(&sp.Outboxes[0]), outbox.AllowUndeclaredEvents())
	if err != nil {
		t.Fatal(err)
	}
	write := func(key string, at time.Time) string {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		id, err := w.Write(ctx, tx, outbox.Event{AggregateType: agg, AggregateID: key, Type: "Partitioned", Payload: []byte(`{}`), SchemaVersion: 1, Timestamp: at})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return id
	}
	r := itest.StreamingReader(t, s.BootstrapServers, topic, func(key string) error { write(key, time.Now()); return nil })
	want := map[string]bool{}
	for i := range 5 {
		want[write(fmt.Sprintf("old-%d", i), time.Now().Add(-time.Hour))] = true
		want[write(fmt.Sprintf("new-%d", i), time.Now())] = true
	}
	for len(want) > 0 {
		m := r.NextEvent(60 * time.Second)
		if m == nil {
			t.Fatalf("%d partition rows not routed to %s: %v", len(want), topic, want)
		}
		id, _ := itest.Header(m, "id")
		delete(want, id)
	}

	out := run(t, 0, "cleanup", "-f", specFile, "--older-than", "0s", "-o", "json", "--wait", "1m")
	var rep struct{ Results []cleanup.Result }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 1 {
		t.Fatalf("cleanup -o json: %v\n%s", err, out)
	}
	res := rep.Results[0]
	if len(res.DroppedPartitions) < 1 || res.Deleted < 5 {
		t.Errorf("cleanup: dropped %v, deleted %d; want the previous hour's partition dropped and the current rows deleted\n%s", res.DroppedPartitions, res.Deleted, out)
	}
	var left int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM public.outbox`).Scan(&left); err != nil || left != 0 {
		t.Errorf("rows left: %d %v", left, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'public.outbox'::regclass`).Scan(&parts); err != nil || parts != 4-len(res.DroppedPartitions) {
		t.Errorf("partitions after cleanup: %d %v", parts, err)
	}
	t.Logf("cleanup: %s", strings.Join(strings.Fields(out), " "))
}
