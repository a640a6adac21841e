package plan

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

func fastOpts(progress *bytes.Buffer) ApplyOptions {
	return ApplyOptions{Timeout: 2 * time.Second, PollInterval: 10 * time.Millisecond, Settle: 30 * time.Millisecond, Progress: progress}
}

func deploy(t *testing.T, c *connect.Client, desired []connectorconfig.Connector, dopts ...DiffOption) (Plan, Report, string) {
	t.Helper()
	ctx := context.Background()
	actual, err := Fetch(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	p := Diff(desired, actual, dopts...)
	var progress bytes.Buffer
	rep, err := Apply(ctx, c, p, fastOpts(&progress))
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, progress.String())
	}
	return p, rep, progress.String()
}

func newFake(t *testing.T, o connectfake.Options) (*connectfake.Server, *connect.Client) {
	t.Helper()
	f := connectfake.New(o)
	t.Cleanup(f.Close)
	c, err := connect.NewClient(f.URL, connect.WithRetry(connect.Retry{MaxAttempts: 4, Initial: time.Millisecond, Max: 5 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

func TestApplyConvergesAndRedeployIsNoOp(t *testing.T) {
	f, c := newFake(t, connectfake.Options{StartDelay: 50 * time.Millisecond, MaskKeys: []string{"database.password"}})
	desired := []connectorconfig.Connector{{Name: "orders", Config: pgConfig()}, {Name: "billing", Config: mariaConfig(), State: "paused"}}
	_, rep, progress := deploy(t, c, desired)
	if !rep.Converged() {
		t.Fatalf("not converged: %+v\n%s", rep.Results, progress)
	}
	if !strings.Contains(progress, "orders: waiting for RUNNING") {
		t.Errorf("progress does not show the wait:\n%s", progress)
	}
	if got := f.Puts("orders"); got != 1 {
		t.Fatalf("orders puts = %d", got)
	}
	st, _ := c.Status(context.Background(), "billing")
	if st.Connector.State != connect.StatePaused {
		t.Fatalf("billing state = %s, want PAUSED (initial_state)", st.Connector.State)
	}
	restarts := f.TaskRestarts("orders")
	writes := len(f.Writes())

	p, rep, _ := deploy(t, c, desired)
	if p.HasChanges() {
		t.Fatalf("redeploy planned changes: %+v", p.Changes)
	}
	if n := len(f.Writes()); n != writes {
		t.Fatalf("redeploy wrote %d requests: %v", n-writes, f.Writes()[writes:])
	}
	if f.TaskRestarts("orders") != restarts {
		t.Fatal("redeploy restarted tasks")
	}
	if !rep.Converged() {
		t.Fatalf("redeploy report: %+v", rep.Results)
	}

	// A change is applied with one PUT, and the state moves.
	desired[0].Config["poll.interval.ms"] = "100"
	desired[1].State = "stopped"
	_, rep, _ = deploy(t, c, desired)
	if !rep.Converged() || f.Puts("orders") != 2 {
		t.Fatalf("update: puts=%d report=%+v", f.Puts("orders"), rep.Results)
	}
	st, _ = c.Status(context.Background(), "billing")
	if st.Connector.State != connect.StateStopped || f.Puts("billing") != 1 {
		t.Fatalf("billing = %s puts=%d, want STOPPED without a config write", st.Connector.State, f.Puts("billing"))
	}
}

func TestApplyFailedTaskHasTrace(t *testing.T) {
	f, c := newFake(t, connectfake.Options{})
	f.FailConnector("orders", "org.postgresql.util.PSQLException: FATAL: password authentication failed for user \"postgres\"\n\tat org.postgresql...")
	_, rep, progress := deploy(t, c, []connectorconfig.Connector{{Name: "orders", Config: pgConfig()}, {Name: "billing", Config: mariaConfig()}})
	if rep.Converged() {
		t.Fatal("converged with a failed task")
	}
	fail := rep.Failed()
	if len(fail) != 1 || fail[0].Name != "orders" || fail[0].Reason != "task 0 FAILED" || !strings.Contains(fail[0].Trace, "password authentication failed") {
		t.Fatalf("failed = %+v\n%s", fail, progress)
	}
	var out bytes.Buffer
	_ = RenderReportText(&out, rep)
	for _, want := range []string{"ok     billing: created (PUT); RUNNING", "FAILED orders: created (PUT); not RUNNING: task 0 FAILED", "trace of orders:", "Deploy: 1 of 2 connector(s) converged."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestApplyTimeout(t *testing.T) {
	_, c := newFake(t, connectfake.Options{StartDelay: time.Hour})
	ctx := context.Background()
	p := Diff([]connectorconfig.Connector{{Name: "orders", Config: pgConfig()}}, nil)
	o := fastOpts(&bytes.Buffer{})
	o.Timeout = 200 * time.Millisecond
	rep, err := Apply(ctx, c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Converged() || !strings.Contains(rep.Results[0].Reason, "timed out after 200ms waiting for RUNNING (connector RUNNING, tasks 0:UNASSIGNED)") {
		t.Fatalf("results = %+v", rep.Results)
	}
}

func TestApplyBlockedWritesNothing(t *testing.T) {
	f, c := newFake(t, connectfake.Options{})
	_, _, _ = deploy(t, c, []connectorconfig.Connector{{Name: "orders", Config: pgConfig()}})
	writes := len(f.Writes())
	cfg := pgConfig()
	cfg["slot.name"] = "other"
	actual, _ := Fetch(context.Background(), c)
	p := Diff([]connectorconfig.Connector{{Name: "orders", Config: cfg}}, actual)
	_, err := Apply(context.Background(), c, p, fastOpts(&bytes.Buffer{}))
	var be *BlockedError
	if !errors.As(err, &be) || !errors.Is(err, ErrBlocked) || be.Findings[0].Rule != RuleSlotName || !strings.Contains(err.Error(), "SLOT_NAME_CHANGE") {
		t.Fatalf("err = %v", err)
	}
	if len(f.Writes()) != writes {
		t.Fatal("blocked plan wrote")
	}
	p = Diff([]connectorconfig.Connector{{Name: "orders", Config: cfg}}, actual, WithAllow(RuleSlotName))
	if rep, err := Apply(context.Background(), c, p, fastOpts(&bytes.Buffer{})); err != nil || !rep.Converged() {
		t.Fatalf("allowed apply: %v %+v", err, rep)
	}
}

func TestApplyOldConnectPausesAfterCreate(t *testing.T) {
	f, c := newFake(t, connectfake.Options{Version: "3.6.2"})
	_, rep, _ := deploy(t, c, []connectorconfig.Connector{{Name: "orders", Config: pgConfig(), State: "paused"}})
	if !rep.Converged() || strings.Join(rep.Results[0].Written, "|") != "created (PUT)|paused (connect < 3.7: created running first)" {
		t.Fatalf("report = %+v (writes %v)", rep.Results, f.Writes())
	}
}

func TestApplyRetriesRebalanceAndPrunes(t *testing.T) {
	f, c := newFake(t, connectfake.Options{})
	_, _, _ = deploy(t, c, []connectorconfig.Connector{{Name: "old", Config: mariaConfig()}})
	f.Seed("foreign", map[string]string{"connector.class": "x"}, "RUNNING")
	f.InjectConflicts(2)
	_, rep, _ := deploy(t, c, []connectorconfig.Connector{{Name: "orders", Config: pgConfig()}}, WithPrune(true), WithPruneLimit(-1, true))
	if !rep.Converged() {
		t.Fatalf("report = %+v", rep.Results)
	}
	names, _ := c.ListConnectors(context.Background())
	if strings.Join(names, ",") != "foreign,orders" {
		t.Fatalf("connectors after prune = %v", names)
	}
}

func TestApplyMasksSecretsInTracesAndProgress(t *testing.T) {
	f, c := newFake(t, connectfake.Options{})
	const pw = "pa55-Word-in-trace"
	f.FailConnector("orders", "org.postgresql.util.PSQLException: connect to jdbc:postgresql://db/orders?password="+pw+" failed")
	cfg := pgConfig()
	cfg["database.password"] = pw
	var progress bytes.Buffer
	p := Diff([]connectorconfig.Connector{{Name: "orders", Config: cfg}}, nil)
	o := fastOpts(&progress)
	rep, err := Apply(context.Background(), c, p, o)
	if err != nil {
		t.Fatal(err)
	}
	var out, js bytes.Buffer
	_ = RenderReportText(&out, rep)
	_ = RenderReportJSON(&js, p, rep)
	for name, s := range map[string]string{"progress": progress.String(), "text": out.String(), "json": js.String()} {
		if strings.Contains(s, pw) {
			t.Errorf("%s leaks the password:\n%s", name, s)
		}
	}
	if !strings.Contains(rep.Results[0].Trace, "password=******** failed") {
		t.Errorf("trace = %q", rep.Results[0].Trace)
	}
}
