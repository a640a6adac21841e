//go:build integration

package plan_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/plan"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// recorder is an http.RoundTripper that records every write request and
// every 409 answer, to prove that a no-op deploy writes nothing and that
// rebalance conflicts were retried.
type recorder struct {
	mu        sync.Mutex
	writes    []string
	conflicts int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Method != http.MethodGet {
		r.writes = append(r.writes, req.Method+" "+req.URL.Path)
	}
	if err == nil && resp.StatusCode == http.StatusConflict {
		r.conflicts++
	}
	return resp, err
}

func (r *recorder) take() (writes []string, conflicts int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, c := r.writes, r.conflicts
	r.writes, r.conflicts = nil, 0
	return w, c
}

func slotPID(t *testing.T, db *sql.DB, slot string) (pid sql.NullInt64, exists bool) {
	t.Helper()
	err := db.QueryRow("SELECT active_pid FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&pid)
	if errors.Is(err, sql.ErrNoRows) {
		return pid, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return pid, true
}

type stack struct {
	s        settings.Settings
	sfx      string
	client   *connect.Client
	rec      *recorder
	pg, ma   *sql.DB
	desired  []connectorconfig.Connector
	outboxes []spec.Outbox
}

func (st *stack) apply(t *testing.T, desired []connectorconfig.Connector, timeout time.Duration, opts ...plan.DiffOption) (plan.Plan, plan.Report, error) {
	t.Helper()
	ctx := context.Background()
	actual, err := plan.Fetch(ctx, st.client)
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Diff(desired, actual, opts...)
	var progress strings.Builder
	rep, err := plan.Apply(ctx, st.client, p, plan.ApplyOptions{Timeout: timeout, PollInterval: 500 * time.Millisecond, Progress: &progress})
	t.Logf("progress:\n%s", progress.String())
	return p, rep, err
}

func clone(c connectorconfig.Connector, name string) connectorconfig.Connector {
	cfg := map[string]string{}
	for k, v := range c.Config {
		cfg[k] = v
	}
	c.Config = cfg
	if name != "" {
		c.Name = name
	}
	return c
}

func newStack(t *testing.T) *stack {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.MariaDB, itest.Kafka)
	st := &stack{s: s, sfx: itest.Suffix(), rec: &recorder{}}
	dbName := "outbox_dep_" + st.sfx
	st.pg = itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	st.ma = itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	sp, err := spec.Parse(spec.Source{Name: "deploy-it.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: dep-pg-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, dbname: %[5]s}
    payloadFormat: json
    routing:
      topicReplacement: dep%[2]s.${routedByValue}
    connector:
      profile: latency
  - name: dep-maria-%[2]s
    database:
      kind: mariadb
      connection: {host: %[6]q, port: %[7]s, user: root, dbname: %[5]s}
    payloadFormat: json
    routing:
      topicReplacement: dep%[2]s.${routedByValue}
    connector:
      profile: latency
`, s.ConnectBootstrap(), st.sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, s.ConnectMariaDBHost, s.ConnectMariaDBPort))})
	if err != nil {
		t.Fatal(err)
	}
	st.outboxes = sp.Outboxes
	itest.CreateOutboxTable(t, st.pg, &sp.Outboxes[0])
	itest.CreateOutboxTable(t, st.ma, &sp.Outboxes[1])
	st.desired, err = connectorconfig.Generate(sp, connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.client, err = connect.NewClient(s.ConnectURL, connect.WithHTTPClient(&http.Client{Transport: st.rec, Timeout: 100 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	// Delete every connector of this run, then the topics it made.
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, st.sfx)
	return st
}

// TestDeployRealStack runs the deploy flow against the real Connect with a
// PostgreSQL and a MariaDB outbox generated from a spec.
func TestDeployRealStack(t *testing.T) {
	st := newStack(t)
	pgName, maName := st.desired[0].Name, st.desired[1].Name
	slot := st.desired[0].Config["slot.name"]

	// 1. Deploy: both reach RUNNING with every task.
	start := time.Now()
	p, rep, err := st.apply(t, st.desired, 2*time.Minute)
	if err != nil || !rep.Converged() {
		t.Fatalf("deploy: %v %+v", err, rep.Results)
	}
	if c := p.Counts(); c.Create != 2 {
		t.Fatalf("counts = %+v", c)
	}
	t.Logf("first deploy converged in %s", time.Since(start))
	st.rec.take()

	// 2. Events flow: a row inserted in each outbox arrives routed (after
	// warm-up rows: itest.StreamingReader).
	for _, c := range []struct {
		db                 *sql.DB
		topic, key, insert string
	}{
		{st.pg, "dep" + st.sfx + ".Order", "o-1", `INSERT INTO public.outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES (gen_random_uuid(), 'Order', $1, 'OrderCreated', '{"total": 42}', 1)`},
		{st.ma, "dep" + st.sfx + ".Payment", "p-1", `INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES (UUID(), 'Payment', ?, 'PaymentCaptured', '{"amount": 7}', 1)`},
	} {
		r := itest.StreamingReader(t, st.s.BootstrapServers, c.topic, func(key string) error {
			_, err := c.db.Exec(c.insert, key)
			return err
		})
		if _, err := c.db.Exec(c.insert, c.key); err != nil {
			t.Fatal(err)
		}
		m := r.NextEvent(60 * time.Second)
		if m == nil {
			t.Fatalf("no record on %s", c.topic)
		}
		if string(m.Key) != c.key {
			t.Errorf("%s: key %q, want %q", c.topic, m.Key, c.key)
		}
		t.Logf("%s: key=%s value=%s", c.topic, m.Key, m.Value)
	}

	// 3. Redeploy unchanged: no write at all, the task keeps its replication
	// connection (same walsender pid).
	pidBefore, _ := slotPID(t, st.pg, slot)
	p, rep, err = st.apply(t, st.desired, time.Minute)
	if err != nil || !rep.Converged() || p.HasChanges() {
		t.Fatalf("redeploy: %v changes=%v %+v", err, p.HasChanges(), rep.Results)
	}
	if w, _ := st.rec.take(); len(w) != 0 {
		t.Fatalf("no-op redeploy wrote: %v", w)
	}
	if pidAfter, _ := slotPID(t, st.pg, slot); pidAfter != pidBefore || !pidAfter.Valid {
		t.Fatalf("slot pid %v -> %v: task restarted on a no-op deploy", pidBefore, pidAfter)
	}

	// 4. Change a setting: the plan shows exactly it, one PUT, RUNNING again.
	changed := []connectorconfig.Connector{clone(st.desired[0], ""), st.desired[1]}
	changed[0].Config["heartbeat.interval.ms"] = "15000"
	p, rep, err = st.apply(t, changed, 2*time.Minute)
	if err != nil || !rep.Converged() {
		t.Fatalf("update: %v %+v", err, rep.Results)
	}
	var ch plan.Change
	for _, c := range p.Changes {
		if c.Name == pgName {
			ch = c
		}
	}
	if ch.Action != plan.Update || len(ch.Keys) != 1 || ch.Keys[0].Key != "heartbeat.interval.ms" {
		t.Fatalf("plan of the change = %+v", ch)
	}
	if w, _ := st.rec.take(); len(w) != 1 || w[0] != "PUT /connectors/"+pgName+"/config" {
		t.Fatalf("update wrote %v", w)
	}
	if cfg, _ := st.client.GetConfig(context.Background(), pgName); cfg["heartbeat.interval.ms"] != "15000" || cfg[plan.OwnerKey] != plan.DefaultOwner {
		t.Fatalf("config after update = %v", cfg)
	}

	// 5. Dangerous change: refused with the rule id, nothing written;
	// applied only when allowed. The old slot is left behind, as the plan says.
	danger := []connectorconfig.Connector{clone(changed[0], ""), st.desired[1]}
	newSlot := slot + "_v2"
	danger[0].Config["slot.name"] = newSlot
	_, _, err = st.apply(t, danger, time.Minute)
	var be *plan.BlockedError
	if !errors.As(err, &be) || be.Findings[0].Rule != plan.RuleSlotName {
		t.Fatalf("dangerous change not blocked: %v", err)
	}
	if w, _ := st.rec.take(); len(w) != 0 {
		t.Fatalf("blocked deploy wrote %v", w)
	}
	// Verified behaviour (Debezium 3.6.1): the stored offset lies behind the
	// new slot, so the task fails at start, as the finding says ...
	_, rep, err = st.apply(t, danger, 2*time.Minute, plan.WithAllow(plan.RuleSlotName))
	if err != nil || rep.Converged() {
		t.Fatalf("allowed slot change: %v %+v", err, rep.Results)
	}
	for _, r := range rep.Failed() {
		if r.Name != pgName || !strings.Contains(r.Trace, "no longer available on the server") {
			t.Fatalf("failed: %s %q %.300s", r.Name, r.Reason, r.Trace)
		}
	}
	// ... and the documented remedy, resetting the offsets while STOPPED,
	// brings it back to RUNNING on the new slot.
	ctx := context.Background()
	if err := st.client.Stop(ctx, pgName); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		s, _ := st.client.Status(ctx, pgName)
		if s.Connector.State == connect.StateStopped {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if _, err := st.client.ResetOffsets(ctx, pgName); err != nil {
		t.Fatal(err)
	}
	if err := st.client.Resume(ctx, pgName); err != nil {
		t.Fatal(err)
	}
	_, rep, err = st.apply(t, danger, 2*time.Minute, plan.WithAllow(plan.RuleSlotName))
	if err != nil || !rep.Converged() {
		t.Fatalf("after offsets reset: %v %+v", err, rep.Results)
	}
	// The task is RUNNING; its replication connection follows shortly.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		pid, ok := slotPID(t, st.pg, newSlot)
		if ok && pid.Valid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new slot %s not active within 60s (exists=%v)", newSlot, ok)
		}
	}
	if pid, ok := slotPID(t, st.pg, slot); !ok || pid.Valid {
		t.Fatalf("old slot %s: exists=%v active=%v; the plan said it is left behind, inactive", slot, ok, pid.Valid)
	}
	st.rec.take()
	_ = maName
}

// TestDeployRealStackFailures: a connector whose task fails at start, a wrong
// password, a timeout, Connect down.
func TestDeployRealStackFailures(t *testing.T) {
	st := newStack(t)
	pg, ma := st.desired[0], st.desired[1]

	// An EventRouter option Connect's validation does not check: accepted,
	// then the task FAILS at start with a trace.
	bad := clone(pg, "dep-badsmt-"+st.sfx)
	bad.Config["slot.name"] = "dep_badsmt_" + st.sfx
	bad.Config["topic.prefix"] = "dep-badsmt-" + st.sfx
	bad.Config["transforms.outbox.route.topic.regex"] = "(unclosed"
	// A wrong MariaDB password.
	badpw := clone(ma, "dep-badpw-"+st.sfx)
	badpw.Config["database.password"] = "wrong-Passw0rd-xyz"
	badpw.Config["database.server.id"] = "9" + badpw.Config["database.server.id"][1:]
	badpw.Config["topic.prefix"] = "dep-badpw-" + st.sfx
	badpw.Sensitive = append(badpw.Sensitive, "database.password")

	_, rep, err := st.apply(t, []connectorconfig.Connector{bad, badpw}, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	_ = plan.RenderReportText(&out, rep)
	t.Logf("report:\n%s", out.String())
	if strings.Contains(out.String(), "wrong-Passw0rd-xyz") {
		t.Fatal("password in report")
	}
	if rep.Converged() || len(rep.Failed()) != 2 {
		t.Fatalf("want both failed: %+v", rep.Results)
	}
	for _, r := range rep.Results {
		switch r.Name {
		case bad.Name:
			if !strings.Contains(r.Reason, "FAILED") || r.Trace == "" {
				t.Errorf("bad SMT: reason %q, trace %d bytes", r.Reason, len(r.Trace))
			}
		case badpw.Name:
			// Verified: Connect validates the connection on PUT, so a wrong
			// password is a 400 at write time, not a FAILED task.
			if !r.WriteFailed || !strings.Contains(r.Reason, "400 Connector configuration is invalid") || !strings.Contains(r.Reason, "Access denied") {
				t.Errorf("wrong password: reason %q trace %q", r.Reason, r.Trace)
			}
		}
	}

	// A timeout while the connector starts.
	slow := clone(pg, "dep-slow-"+st.sfx)
	slow.Config["slot.name"] = "dep_slow_" + st.sfx
	slow.Config["topic.prefix"] = "dep-slow-" + st.sfx // else it is (rightly) a CONNECTOR_RENAME of dep-badsmt
	_, rep, err = st.apply(t, []connectorconfig.Connector{slow}, 50*time.Millisecond)
	if err != nil || rep.Converged() || !strings.Contains(rep.Results[0].Reason, "timed out after 50ms waiting for RUNNING") {
		t.Fatalf("timeout: %v %+v", err, rep.Results)
	}

	// Connect down.
	down, _ := connect.NewClient("http://127.0.0.1:1")
	_, err = plan.Fetch(context.Background(), down)
	if !errors.Is(err, connect.ErrUnreachable) || !strings.Contains(err.Error(), "http://127.0.0.1:1 is unreachable") {
		t.Fatalf("connect down: %v", err)
	}
	t.Logf("connect down: %v", err)
}

// TestRebalanceConflictRetried fires config writes concurrently while other
// connectors are created, which makes the single worker answer 409 ("Cannot
// complete request momentarily due to stale configuration") while it catches
// up with the config topic; every write must succeed through the retries.
// Provoking the 409 is a race: up to 5 rounds run until one is seen.
func TestRebalanceConflictRetried(t *testing.T) {
	st := newStack(t)
	ctx := context.Background()
	base := clone(st.desired[0], "")
	total := 0
	for round := 0; round < 5 && total == 0; round++ {
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		names := []string{}
		for i := 0; i < 10; i++ {
			name := fmt.Sprintf("dep-conflict-%d-%d-%s", round, i, st.sfx)
			names = append(names, name)
			cfg := clone(base, name).Config
			cfg["slot.name"] = fmt.Sprintf("dep_conflict_%d_%d_%s", round, i, st.sfx)
			cfg["topic.prefix"] = name
			wg.Add(2)
			go func() {
				defer wg.Done()
				if _, err := st.client.CreateConnector(ctx, name, cfg, "STOPPED"); err != nil {
					errs <- fmt.Errorf("create %s: %w", name, err)
				}
			}()
			go func() {
				defer wg.Done()
				cfg2 := clone(base, name).Config
				cfg2["slot.name"], cfg2["topic.prefix"] = cfg["slot.name"], name
				cfg2["heartbeat.interval.ms"] = "20000"
				if _, _, err := st.client.PutConfig(ctx, name, cfg2); err != nil {
					errs <- fmt.Errorf("put %s: %w", name, err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		_, conflicts := st.rec.take()
		total += conflicts
		for err := range errs {
			// A POST after the PUT created the connector is a real conflict
			// ("already exists"): not retried, by design.
			if errors.Is(err, connect.ErrConflict) && strings.Contains(err.Error(), "already exists") {
				continue
			}
			t.Errorf("round %d: %v", round, err)
		}
		// Every connector exists. Which of the two racing writes wins is
		// Connect's business: observed on 4.3.1, a POST and a PUT of the same
		// new name can both succeed (both saw it absent in a stale snapshot)
		// and the last write to the config topic wins. Deploys to one cluster
		// must therefore be serialised (a CI concurrency group).
		lost := 0
		for _, name := range names {
			cfg, err := st.client.GetConfig(ctx, name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if cfg["heartbeat.interval.ms"] != "20000" {
				lost++
			}
		}
		if lost > 0 {
			t.Logf("round %d: %d PUT(s) overwritten by a racing POST that Connect also accepted", round, lost)
		}
		t.Logf("round %d: 409 answers seen and retried: %d", round, conflicts)
	}
	if total == 0 {
		t.Log("NOTE: no 409 was provoked in 5 rounds; the retry path is covered by the connectfake tests only in this run")
	}
}
