//go:build integration

package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
)

// TestInterruptedRightAfterCommit: the context is cancelled exactly when
// the canary's transaction has committed (before the WAL position is read):
// Run still deletes the row it committed and reports ErrInterrupted.
func TestInterruptedRightAfterCommit(t *testing.T) {
	s := itest.Require(t, itest.Postgres, itest.Kafka)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "verify_commit_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: c%[1]s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, user: postgres, dbname: %[2]s}
    payloadFormat: json
    routing: {topicReplacement: "verify.commit.%[1]s.${routedByValue}"}
    connector: {name: c%[1]s}
`, sfx, dbName)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, db, o)
	topic := "verify.commit." + sfx + ".outboxctl.canary"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHookAfterCommit = cancel
	t.Cleanup(func() { testHookAfterCommit = nil })
	rep, err := Run(ctx, Options{Outbox: o, Config: cs[0].Config, DB: db, BootstrapServers: s.BootstrapServers, Timeout: 30 * time.Second,
		ConnectorState: func(context.Context) (string, error) { return "", nil }})
	if !errors.Is(err, ErrInterrupted) || errors.Is(err, ErrFailed) {
		t.Errorf("err %v: want ErrInterrupted, not ErrFailed", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM public.outbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 || !rep.Cleaned {
		t.Errorf("%d canary rows left (cleaned %v) after an interrupt right after the commit", n, rep.Cleaned)
	}
}
