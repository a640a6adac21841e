//go:build integration

package cmd_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cleanup"
	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// TestCLICleanupUnderStreaming deploys a PostgreSQL outbox (timestamp
// column) and a MariaDB outbox (no timestamp column: ages from the UUIDv7
// ids), writes events through the outbox writer for several seconds while
// `outboxctl cleanup --older-than 0s --batch 7` runs again and again, and
// checks that every written event is on its topic exactly once (cleanup
// lost none) and that cleanup emptied the table once writing stopped.
func TestCLICleanupUnderStreaming(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.MariaDB, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_clean_" + sfx
	pg := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	ma := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: clean-pg-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, dbname: %[5]s}
    payloadFormat: json
    columns: {timestamp: created_at}
    connector: {profile: latency}
    retention: 48h
  - name: clean-ma-%[2]s
    database:
      kind: mariadb
      connection: {host: %[6]q, port: %[7]s, user: root, dbname: %[5]s}
    payloadFormat: json
    connector: {profile: latency}
`, s.ConnectBootstrap(), sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, s.ConnectMariaDBHost, s.ConnectMariaDBPort)
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
	for i := range sp.Outboxes {
		itest.CreateOutboxTable(t, map[string]*sql.DB{spec.Postgres: pg, spec.MariaDB: ma}[sp.Outboxes[i].Database.Kind], &sp.Outboxes[i])
	}
	aggPG, aggMA := "cleanpg_"+sfx, "cleanma_"+sfx
	topicPG, topicMA := "outbox.event."+aggPG, "outbox.event."+aggMA
	itest.CreateTopic(t, s.BootstrapServers, topicPG)
	itest.CreateTopic(t, s.BootstrapServers, topicMA)
	run(t, 0, "provision", "-f", specFile, "--database")
	run(t, 0, "deploy", "-f", specFile, "--timeout", "2m")

	targets, err := provisioning.Targets(sp, connectorconfig.Options{BootstrapServers: s.ConnectBootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, outbox, agg, topic, connector string
		db                                  *sql.DB
		o                                   *spec.Outbox
		age                                 time.Duration // without --older-than
	}{
		{"postgres", "clean-pg-" + sfx, aggPG, topicPG, targets[0].Connector.Name, pg, &sp.Outboxes[0], 48 * time.Hour},          // the spec's retention
		{"mariadb", "clean-ma-" + sfx, aggMA, topicMA, targets[1].Connector.Name, ma, &sp.Outboxes[1], cleanup.DefaultOlderThan}, // none declared
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := outbox.NewWriter(outbox.TableFor(tc.o), outbox.AllowUndeclaredEvents())
			if err != nil {
				t.Fatal(err)
			}
			write := func(ctx context.Context, key string) (string, error) {
				tx, err := tc.db.BeginTx(ctx, nil)
				if err != nil {
					return "", err
				}
				defer tx.Rollback()
				id, err := w.Write(ctx, tx, outbox.Event{AggregateType: tc.agg, AggregateID: key, Type: "Cleaned", Payload: []byte(`{"n":1}`), SchemaVersion: 1})
				if err != nil {
					return "", err
				}
				return id, tx.Commit()
			}
			r := itest.StreamingReader(t, s.BootstrapServers, tc.topic, func(key string) error { _, err := write(context.Background(), key); return err })

			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			var mu sync.Mutex
			written := map[string]bool{}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-time.After(10 * time.Millisecond):
					}
					id, err := write(ctx, fmt.Sprintf("agg-%d", i%5))
					if err != nil {
						t.Errorf("write: %v", err)
						return
					}
					mu.Lock()
					written[id] = true
					mu.Unlock()
				}
			}()
			var deleted int64
			runs := 0
			deadline := time.Now().Add(8 * time.Second)
			for time.Now().Before(deadline) {
				out := run(t, 0, "cleanup", "-f", specFile, "--outbox", tc.outbox, "--older-than", "0s", "--batch", "7", "-o", "json", "--wait", "1m")
				var rep struct{ Results []cleanup.Result }
				if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 1 || !rep.Results[0].Confirmed {
					t.Fatalf("cleanup -o json: %v\n%s", err, out)
				}
				deleted += rep.Results[0].Deleted
				runs++
			}
			close(stop)
			wg.Wait()
			// Once writing stopped, a last cleanup leaves the table empty.
			out := run(t, 0, "cleanup", "-f", specFile, "--outbox", tc.outbox, "--older-than", "0s", "--batch", "7", "--wait", "1m")
			var last int64
			fmt.Sscanf(out[strings.Index(out, "deleted ")+len("deleted "):], "%d", &last)
			deleted += last
			var left int
			if err := tc.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox").Scan(&left); err != nil {
				t.Fatal(err)
			}
			if left != 0 {
				t.Errorf("%d rows left after the final cleanup:\n%s", left, out)
			}

			streamed := len(written)

			// Without --older-than the age is the spec's retention, else
			// 1h (#27): the cutoff is that long before now.
			start := time.Now()
			out = run(t, 0, "cleanup", "-f", specFile, "--outbox", tc.outbox, "--dry-run", "-o", "json", "--wait", "1m")
			var rep struct{ Results []cleanup.Result }
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 1 {
				t.Fatalf("cleanup --dry-run -o json: %v\n%s", err, out)
			}
			if c := rep.Results[0].Cutoff; c.Before(start.Add(-tc.age-time.Minute)) || c.After(time.Now().Add(-tc.age+time.Minute)) {
				t.Errorf("cleanup without --older-than: cutoff %s, want about %s before now", c, tc.age)
			}
			t.Logf("without --older-than: cutoff %s (%s before the run)", rep.Results[0].Cutoff.Format(time.RFC3339), start.Sub(rep.Results[0].Cutoff).Round(time.Second))

			// With the connector stopped, a new row is not confirmed:
			// cleanup waits --wait, deletes nothing and exits 1.
			itest.StopConnector(t, s.ConnectURL, tc.connector)
			id, err := write(ctx, "stopped")
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI(t, vars, "cleanup", "-f", specFile, "--outbox", tc.outbox, "--older-than", "0s", "--wait", "4s")
			if code != 1 || !strings.Contains(errOut, "publisher has not confirmed") || !strings.Contains(errOut, "nothing deleted") {
				t.Errorf("cleanup with the connector stopped: exit %d\n%s\n%s", code, out, errOut)
			}
			if err := tc.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM outbox").Scan(&left); err != nil || left != 1 {
				t.Errorf("rows after cleanup with the connector stopped: %d %v, want the unpublished row", left, err)
			}
			t.Logf("connector stopped: %s", strings.TrimSpace(errOut))
			// A dry run counts no unconfirmed row as deletable, says how
			// many are not confirmed and exits 1.
			code, out, errOut = runCLI(t, vars, "cleanup", "-f", specFile, "--outbox", tc.outbox, "--older-than", "0s", "--wait", "2s", "--dry-run")
			if code != 1 || strings.Contains(out, "would delete") || !strings.Contains(out, "1 rows created before") || !strings.Contains(out, "not confirmed") {
				t.Errorf("cleanup --dry-run with the connector stopped: exit %d, want 1 and the unconfirmed row counted as such\n%s\n%s", code, out, errOut)
			}
			t.Logf("dry run, connector stopped: %s", strings.TrimSpace(out))
			itest.ResumeConnector(t, s.ConnectURL, tc.connector)
			written[id] = true

			// Every written event arrives exactly once.
			seen := map[string]int{}
			for len(seen) < len(written) {
				m := r.NextEvent(30 * time.Second)
				if m == nil {
					break
				}
				if id, ok := itest.Header(m, "id"); ok && written[id] {
					seen[id]++
				}
			}
			lost, dup := 0, 0
			for id := range written {
				switch seen[id] {
				case 0:
					lost++
				case 1:
				default:
					dup++
				}
			}
			t.Logf("%s: %d events written, %d cleanup runs deleted %d rows during and after streaming; %d lost, %d duplicated", tc.name, len(written), runs+1, deleted, lost, dup)
			if lost != 0 || dup != 0 || streamed < 100 || deleted < int64(streamed) {
				t.Errorf("lost %d, duplicated %d of %d written; %d deleted", lost, dup, len(written), deleted)
			}
		})
	}
}

// TestCLICleanupRefusesUncapturedTable (issue #24 item 11, through the
// CLI and the connector deployed on the real Debezium): once the outbox
// table left the publication, the slot still advances but the rows
// written afterwards are never published. Cleanup reads the deployed
// connector config, deletes nothing and exits 3.
func TestCLICleanupRefusesUncapturedTable(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_uncap_" + sfx
	pg := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: uncap-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, dbname: %[5]s}
    payloadFormat: json
    columns: {timestamp: created_at}
    connector: {profile: latency}
`, s.ConnectBootstrap(), sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(spec.Source{Name: specFile, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, pg, o)
	agg := "uncap_" + sfx
	itest.CreateTopic(t, s.BootstrapServers, "outbox.event."+agg)
	for _, args := range [][]string{{"provision", "-f", specFile, "--database"}, {"deploy", "-f", specFile, "--timeout", "2m"}} {
		if code, out, errOut := runCLI(t, vars, args...); code != 0 {
			t.Fatalf("outboxctl %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	targets, err := provisioning.Targets(sp, connectorconfig.Options{BootstrapServers: s.ConnectBootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	itest.WaitRunning(t, s.ConnectURL, targets[0].Connector.Name, 2*time.Minute)
	if _, err := pg.Exec("ALTER PUBLICATION " + targets[0].Connector.Config["publication.name"] + " DROP TABLE public.outbox"); err != nil {
		t.Fatal(err)
	}
	w, err := outbox.NewWriter(outbox.TableFor(o), outbox.AllowUndeclaredEvents())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		tx, err := pg.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(context.Background(), tx, outbox.Event{AggregateType: agg, AggregateID: fmt.Sprint(i), Type: "Lost", Payload: []byte(`{}`), SchemaVersion: 1}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(t, vars, "cleanup", "-f", specFile, "--older-than", "0s", "--wait", "30s")
	if code != 3 || !strings.Contains(errOut, "does not capture the outbox table") || !strings.Contains(out, "nothing deleted") {
		t.Errorf("cleanup of a table out of the publication: exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var left int
	if err := pg.QueryRow("SELECT count(*) FROM public.outbox").Scan(&left); err != nil || left != 3 {
		t.Errorf("rows left: %d %v, want the 3 unpublished rows", left, err)
	}
	t.Logf("cleanup: %s", strings.TrimSpace(errOut))
}
