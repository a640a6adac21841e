package connect_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

var fastRetry = connect.WithRetry(connect.Retry{MaxAttempts: 3, Initial: time.Millisecond, Max: 2 * time.Millisecond})

func newClient(t *testing.T, opts ...connect.Opt) (*connectfake.Server, *connect.Client) {
	t.Helper()
	f := connectfake.New()
	t.Cleanup(f.Close)
	c, err := connect.NewClient(f.URL, append([]connect.Opt{fastRetry}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return f, c
}

var cfg = map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "orders"}

func TestCRUDAndStates(t *testing.T) {
	ctx := context.Background()
	f, c := newClient(t)
	info, err := c.ServerInfo(ctx)
	if err != nil || info.Version != "4.3.1" || !info.Capabilities().InitialState {
		t.Fatalf("server info = %+v, %v", info, err)
	}
	created, in, err := c.PutConfig(ctx, "orders", cfg)
	if err != nil || !created || in.Name != "orders" || len(in.Tasks) != 1 {
		t.Fatalf("put = %v %+v %v", created, in, err)
	}
	created, _, err = c.PutConfig(ctx, "orders", cfg)
	if err != nil || created {
		t.Fatalf("second put created=%v err=%v", created, err)
	}
	got, err := c.GetConfig(ctx, "orders")
	if err != nil || got["name"] != "orders" || got["topic.prefix"] != "orders" {
		t.Fatalf("config = %v %v", got, err)
	}
	if f.Puts("orders") != 2 || f.ConnectorRestarts("orders") != 2 || f.TaskRestarts("orders") != 1 {
		t.Fatalf("puts=%d restarts=%d/%d: an identical PUT restarts the connector, not the tasks", f.Puts("orders"), f.ConnectorRestarts("orders"), f.TaskRestarts("orders"))
	}
	for _, step := range []struct {
		do   func(context.Context, string) error
		want string
	}{{c.Pause, connect.StatePaused}, {c.Stop, connect.StateStopped}, {c.Resume, connect.StateRunning}} {
		if err := step.do(ctx, "orders"); err != nil {
			t.Fatal(err)
		}
		st, err := c.Status(ctx, "orders")
		if err != nil || st.Connector.State != step.want {
			t.Fatalf("state = %+v %v, want %s", st, err, step.want)
		}
	}
	if _, err := c.ResetOffsets(ctx, "orders"); !errors.Is(err, connect.ErrBadRequest) || !strings.Contains(err.Error(), "STOPPED") {
		t.Fatalf("reset while running: %v", err)
	}
	_ = c.Stop(ctx, "orders")
	o, err := c.Offsets(ctx, "orders")
	if err != nil || len(o.Offsets) != 1 || o.Offsets[0].Partition["server"] != "orders" {
		t.Fatalf("offsets = %+v %v", o, err)
	}
	if msg, err := c.ResetOffsets(ctx, "orders"); err != nil || !strings.Contains(msg, "reset successfully") {
		t.Fatalf("reset = %q %v", msg, err)
	}
	exp, err := c.ListConnectorsExpanded(ctx)
	if err != nil || exp["orders"].Status == nil || exp["orders"].Info.Config["name"] != "orders" {
		t.Fatalf("expanded = %+v %v", exp, err)
	}
	if err := c.Delete(ctx, "orders"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Status(ctx, "orders")
	var apiErr *connect.APIError
	if !errors.Is(err, connect.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Method != "GET" || !strings.Contains(apiErr.Message, "orders") {
		t.Fatalf("status after delete: %#v", err)
	}
}

func TestRebalanceRetry(t *testing.T) {
	ctx := context.Background()
	f, c := newClient(t)
	f.InjectConflicts(2)
	if _, _, err := c.PutConfig(ctx, "orders", cfg); err != nil {
		t.Fatalf("two 409s should be retried: %v", err)
	}
	f.InjectConflicts(5)
	_, _, err := c.PutConfig(ctx, "orders", cfg)
	if !errors.Is(err, connect.ErrConflict) || !strings.Contains(err.Error(), "still rebalancing after 3 attempts") {
		t.Fatalf("err = %v", err)
	}
	// A real conflict is not retried.
	f.InjectConflicts(0)
	before := len(f.Requests())
	_, err = c.CreateConnector(ctx, "orders", cfg, "PAUSED")
	if !errors.Is(err, connect.ErrConflict) || len(f.Requests())-before != 1 {
		t.Fatalf("create existing: %v after %d requests", err, len(f.Requests())-before)
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	c, _ := connect.NewClient(url)
	_, err = c.ServerInfo(context.Background())
	var ue *connect.UnreachableError
	if !errors.Is(err, connect.ErrUnreachable) || !errors.As(err, &ue) || ue.URL != url {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); strings.Count(msg, "\n") != 0 || !strings.Contains(msg, url) || !strings.Contains(msg, "connection refused") {
		t.Fatalf("message %q: want one line naming %s", msg, url)
	}
}

func TestAuthAndUserAgent(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization")+"|"+r.Header.Get("User-Agent"))
		w.Write([]byte(`{"version":"3.6.0"}`))
	}))
	defer srv.Close()
	c1, _ := connect.NewClient(srv.URL, connect.WithBasicAuth("u", "p"), connect.WithUserAgent("ua/1"))
	c2, _ := connect.NewClient(srv.URL+"/", connect.WithBearerToken("tok"))
	i, _ := c1.ServerInfo(context.Background())
	_, _ = c2.ServerInfo(context.Background())
	if got[0] != "Basic dTpw|ua/1" || got[1] != "Bearer tok|outboxctl" {
		t.Fatalf("headers = %v", got)
	}
	if caps := i.Capabilities(); !caps.AlterOffsets || caps.InitialState {
		t.Fatalf("3.6.0 caps = %+v", caps)
	}
	if _, err := connect.NewClient("127.0.0.1:8083"); err == nil {
		t.Fatal("url without scheme accepted")
	}
}

// TestRebalance500Retried: Kafka Connect 4.3 answers a read during a
// rebalance with 500 "Request cannot be completed because a rebalance is
// expected"; that is retried like a 409, other 500s are not.
func TestRebalance500Retried(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/boom"+"/config"):
			w.WriteHeader(500)
			w.Write([]byte(`{"error_code":500,"message":"something else broke"}`))
		case calls <= 2:
			w.WriteHeader(500)
			w.Write([]byte(`{"error_code":500,"message":"Request cannot be completed because a rebalance is expected"}`))
		default:
			w.Write([]byte(`{"connector.class":"x"}`))
		}
	}))
	defer srv.Close()
	c, err := connect.NewClient(srv.URL, fastRetry)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetConfig(context.Background(), "orders")
	if err != nil || got["connector.class"] != "x" || calls != 3 {
		t.Fatalf("GetConfig = %v, %v after %d calls; want success on the third", got, err, calls)
	}
	calls = 10
	if _, err := c.GetConfig(context.Background(), "boom"); err == nil || calls != 11 {
		t.Fatalf("a plain 500 must not be retried: err %v after %d calls", err, calls-10)
	}
}

func TestAPIErrorBodyNotJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		w.Write([]byte("<html>bad gateway</html>"))
	}))
	defer srv.Close()
	c, _ := connect.NewClient(srv.URL, connect.WithRetry(connect.Retry{MaxAttempts: 1})) // a 502 is retried otherwise
	_, err := c.ListConnectors(context.Background())
	var apiErr *connect.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || apiErr.Code != 0 || apiErr.Message != "<html>bad gateway</html>" || errors.Unwrap(apiErr) != nil {
		t.Fatalf("err = %#v", err)
	}
}

func TestActiveTopics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/connectors/orders/topics" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"orders":{"topics":["outbox.event.Order","outbox.event.Payment"]}}`))
	}))
	defer srv.Close()
	c, err := connect.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ActiveTopics(context.Background(), "orders")
	if err != nil || len(got) != 2 || got[0] != "outbox.event.Order" || got[1] != "outbox.event.Payment" {
		t.Fatalf("ActiveTopics = %v, %v", got, err)
	}
}

// TestRetryBudget: with Retry.Budget and no attempt cap, a rebalance that
// does not end is retried, with doubling waits capped at Max, until the
// budget is spent; then the 409 is returned, saying how long it was tried.
func TestRetryBudget(t *testing.T) {
	const budget = 400 * time.Millisecond
	f, c := newClient(t, connect.WithRetry(connect.Retry{Initial: 10 * time.Millisecond, Max: 40 * time.Millisecond, Budget: budget}))
	f.InjectConflicts(1 << 20)
	before := len(f.Requests())
	start := time.Now()
	_, _, err := c.PutConfig(context.Background(), "orders", cfg)
	took := time.Since(start)
	attempts := len(f.Requests()) - before
	if !errors.Is(err, connect.ErrConflict) || !strings.Contains(err.Error(), "still rebalancing after") {
		t.Fatalf("err = %v, want the 409 after the budget", err)
	}
	// Waits 10, 20, then 40 ms: about 10 attempts fit in 400 ms.
	if took < budget/2 || took > budget+time.Second || attempts < 6 {
		t.Fatalf("gave up after %s and %d attempts, want about %s and more than 6", took, attempts, budget)
	}
	// The rebalance ends within the budget: the write succeeds.
	f.InjectConflicts(8)
	if _, _, err := c.PutConfig(context.Background(), "orders", cfg); err != nil {
		t.Fatalf("8 conflicts within the budget: %v", err)
	}
}

// TestRetryTransient: a 503 is retried for a GET (it can be repeated) but
// not for a POST; a 500 of a follower that cannot forward to the group's
// leader is retried for a PUT.
func TestRetryTransient(t *testing.T) {
	ctx := context.Background()
	retry := connect.WithRetry(connect.Retry{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Budget: 5 * time.Second})
	f, c := newClient(t, retry)
	f.Answer("GET /connectors", 503, `{"error_code":503,"message":"worker starting"}`)
	time.AfterFunc(100*time.Millisecond, func() { f.Answer("GET /connectors", 0, "") })
	if _, err := c.ListConnectors(ctx); err != nil {
		t.Fatalf("GET after a 503 for 100 ms: %v", err)
	}
	f.Answer("POST /connectors", 503, `{"error_code":503,"message":"unavailable"}`)
	before := len(f.Requests())
	var apiErr *connect.APIError
	if _, err := c.CreateConnector(ctx, "orders", cfg, ""); !errors.As(err, &apiErr) || apiErr.Status != 503 || len(f.Requests())-before != 1 {
		t.Fatalf("POST answered 503: %v after %d requests, want the 503 after one", err, len(f.Requests())-before)
	}

	// A forwarding failure (the follower could not reach the leader) is
	// retried for a PUT.
	f.Answer("PUT /connectors/orders/config", 500, `{"error_code":500,"message":"IO Error trying to forward REST request: Connection refused"}`)
	time.AfterFunc(100*time.Millisecond, func() { f.Answer("PUT /connectors/orders/config", 0, "") })
	if _, _, err := c.PutConfig(ctx, "orders", cfg); err != nil {
		t.Fatalf("PUT after forwarding failures for 100 ms: %v", err)
	}
}
