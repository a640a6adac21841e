//go:build integration

package plan_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// BenchmarkRealPlanAndNoOpDeploy50 measures `plan` (one expanded GET plus
// the diff) and a no-op `deploy` (plan, no write, one status poll) of 50
// Debezium PostgreSQL connectors against the real Connect.
//
// The 50 connectors are created STOPPED with initial_state (KIP-980): they
// are real Debezium configs that Connect validated against the database,
// but no task ever starts, so no replication slot is opened (50 running
// PostgreSQL connectors would hold 50 slots and walsenders on the shared
// stack). The plan and the no-op deploy do the same requests either way.
func BenchmarkRealPlanAndNoOpDeploy50(b *testing.B) {
	s := itest.Require(b, itest.Connect, itest.Postgres)
	sfx := itest.Suffix()
	db := "outbox_bench_" + sfx
	itest.PostgresDatabase(b, s.PostgresDSN, db)
	_, cs := generate50(b, s.ConnectPostgresHost, s.ConnectPostgresPort, db)
	rec := &recorder{}
	client, err := connect.NewClient(s.ConnectURL, connect.WithHTTPClient(&http.Client{Transport: rec, Timeout: 100 * time.Second}))
	if err != nil {
		b.Fatal(err)
	}
	for i := range cs {
		cs[i].Name = strings.Replace(cs[i].Name, "bench-", "bench-"+sfx+"-", 1)
		cs[i].State = "stopped"
	}
	b.Cleanup(func() {
		var wg sync.WaitGroup
		for _, c := range cs {
			wg.Add(1)
			go func(n string) { defer wg.Done(); _ = client.Delete(context.Background(), n) }(c.Name)
		}
		wg.Wait()
	})
	ctx := context.Background()
	start := time.Now()
	actual, err := plan.Fetch(ctx, client)
	if err != nil {
		b.Fatal(err)
	}
	rep, err := plan.Apply(ctx, client, plan.Diff(cs, actual), plan.ApplyOptions{Timeout: 5 * time.Minute, PollInterval: 500 * time.Millisecond})
	if err != nil || !rep.Converged() {
		b.Fatalf("initial deploy: %v %+v", err, rep.Failed())
	}
	b.Logf("initial deploy of 50 STOPPED connectors (POST initial_state, each validated against PostgreSQL): %s", time.Since(start))
	rec.take()

	b.Run("plan", func(b *testing.B) {
		for b.Loop() {
			actual, err := plan.Fetch(ctx, client)
			if err != nil {
				b.Fatal(err)
			}
			if p := plan.Diff(cs, actual); p.HasChanges() {
				b.Fatalf("changes: %+v", p.Counts())
			}
		}
	})
	b.Run("noop-deploy", func(b *testing.B) {
		for b.Loop() {
			actual, err := plan.Fetch(ctx, client)
			if err != nil {
				b.Fatal(err)
			}
			rep, err := plan.Apply(ctx, client, plan.Diff(cs, actual), plan.ApplyOptions{Timeout: time.Minute, PollInterval: 100 * time.Millisecond, Server: &connect.ServerInfo{Version: "4.3.1"}})
			if err != nil || !rep.Converged() {
				b.Fatalf("no-op deploy: %v", err)
			}
		}
	})
	if w, _ := rec.take(); len(w) != 0 {
		b.Fatalf("benchmarks wrote %d requests", len(w))
	}
	_ = connectorconfig.Connector{}
}
