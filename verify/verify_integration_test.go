//go:build integration

package verify_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/spec"
	"github.com/outboxctl/outboxctl/verify"
)

// relayOutbox is a relay-published outbox in a database of its own on the
// shared stack, with its canary topic (no relay runs: the canary waits).
func relayOutbox(t *testing.T) (verify.Options, *sql.DB) {
	t.Helper()
	s := itest.Require(t, itest.Postgres, itest.Kafka)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "verify_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: v%[1]s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, user: postgres, dbname: %[2]s}
    payloadFormat: json
    routing: {topicReplacement: "verify.int.%[1]s.${routedByValue}"}
    relay: {}
`, sfx, dbName)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, db, o)
	topic := "verify.int." + sfx + ".outboxctl.canary"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	return verify.Options{Outbox: o, Config: cs[0].Config, DB: db, Kafka: kafkaclient.Config{BootstrapServers: s.BootstrapServers}, Timeout: 60 * time.Second}, db
}

// TestRunInterrupted: cancelling Run's context (what SIGTERM and SIGINT do
// in `outboxctl verify`) while it waits for the canary ends it at once with
// ErrInterrupted (an operational error, not a failed stage) and the canary
// row deleted.
func TestRunInterrupted(t *testing.T) {
	opts, db := relayOutbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		rep verify.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := verify.Run(ctx, opts)
		done <- result{rep, err}
	}()
	count := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM public.outbox`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	for count() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the canary row was never written")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	cancelled := time.Now()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run does not end on cancel")
	}
	t.Logf("Run ended %s after the cancel: %v", time.Since(cancelled), r.err)
	if !errors.Is(r.err, verify.ErrInterrupted) || !errors.Is(r.err, verify.ErrOperational) || errors.Is(r.err, verify.ErrFailed) {
		t.Errorf("err %v: want ErrInterrupted (operational), not ErrFailed", r.err)
	}
	if n := count(); n != 0 || !r.rep.Cleaned {
		t.Errorf("%d canary rows left (cleaned %v), want the row deleted", n, r.rep.Cleaned)
	}
}

// TestRunDatabaseUnreachable: the verifier cannot connect to the database:
// an operational error at the database stage, not a failed stage.
func TestRunDatabaseUnreachable(t *testing.T) {
	opts, _ := relayOutbox(t)
	bad, err := sql.Open("pgx", "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	opts.DB = bad
	opts.Timeout = 10 * time.Second
	rep, err := verify.Run(context.Background(), opts)
	var oe *verify.OperationalError
	if !errors.As(err, &oe) || oe.Stage != verify.StageDatabase || errors.Is(err, verify.ErrFailed) {
		t.Errorf("err %v: want an *OperationalError at the database stage, not ErrFailed", err)
	}
	if rep.Failed != verify.StageDatabase {
		t.Errorf("report failed at %q", rep.Failed)
	}
}
