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
)

// hangingServer accepts requests and never answers until the test ends.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

func TestRequestTimeoutIsErrTimeoutNotUnreachable(t *testing.T) {
	t.Parallel()
	srv := hangingServer(t)
	c, err := connect.NewClient(srv.URL, connect.WithRequestTimeout(50*time.Millisecond), fastRetry)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListConnectors(context.Background())
	if !errors.Is(err, connect.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, connect.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrTimeout (not ErrUnreachable)", err)
	}
	var te *connect.TimeoutError
	if !errors.As(err, &te) || te.After != 50*time.Millisecond || te.Method != http.MethodGet {
		t.Fatalf("err = %#v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "timed out after 50ms") || !strings.Contains(msg, "GET "+srv.URL+"/connectors") || strings.Contains(msg, "unreachable") {
		t.Errorf("message = %q", msg)
	}
}

func TestRequestTimeoutAppliesToBodyRead(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`["a",`))
		w.(http.Flusher).Flush()
		select { // the rest never comes
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	c, _ := connect.NewClient(srv.URL, connect.WithRequestTimeout(50*time.Millisecond))
	if _, err := c.ListConnectors(context.Background()); !errors.Is(err, connect.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

func TestCallerDeadlineShorterThanRequestTimeout(t *testing.T) {
	t.Parallel()
	srv := hangingServer(t)
	c, _ := connect.NewClient(srv.URL, connect.WithRequestTimeout(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Status(ctx, "x")
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, connect.ErrUnreachable) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}

func TestRefusedConnectionIsUnreachable(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, _ := connect.NewClient("http://deployer:hunter2@" + addr)
	_, err = c.ListConnectors(context.Background())
	if !errors.Is(err, connect.ErrUnreachable) || errors.Is(err, connect.ErrTimeout) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "deployer:********@") {
		t.Errorf("message leaks or drops the masked URL: %q", msg)
	}
}

func TestAPIErrorMasksURLCredentials(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_, _ = w.Write([]byte(`{"error_code":500,"message":"cannot reach jdbc:postgresql://deb:pgpw@db/app"}`))
	}))
	t.Cleanup(srv.Close)
	u := strings.Replace(srv.URL, "http://", "http://deployer:hunter2@", 1)
	c, _ := connect.NewClient(u)
	_, err := c.ListConnectors(context.Background())
	msg := err.Error()
	if strings.Contains(msg, "hunter2") || strings.Contains(msg, "pgpw") || !strings.Contains(msg, "deployer:********@") {
		t.Errorf("message = %q", msg)
	}
}

func TestHugeAnswerIsBounded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`["`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for i := 0; i < 1<<14; i++ { // up to 1 GiB unless the client hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := connect.NewClient(srv.URL, connect.WithMaxAnswerSize(1<<20))
	_, err := c.ListConnectors(context.Background())
	if !errors.Is(err, connect.ErrAnswerTooLarge) || !strings.Contains(err.Error(), "GET "+srv.URL+"/connectors") {
		t.Fatalf("err = %v, want ErrAnswerTooLarge naming the request", err)
	}
}

func TestWrongShapeAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body, want string
		call                   func(*connect.Client) error
	}{
		{"validate without configs", "/connector-plugins/PostgresConnector/config/validate", `{"foo": 1}`, "no name",
			func(c *connect.Client) error {
				_, err := c.ValidateConfig(context.Background(), "io.debezium.connector.postgresql.PostgresConnector", map[string]string{"connector.class": "x"})
				return err
			}},
		{"validate error_count without errors", "/connector-plugins/PostgresConnector/config/validate", `{"name":"x","error_count":2,"groups":[],"configs":[{"definition":{"name":"a"},"value":{"name":"a","errors":[]}}]}`, "error_count 2",
			func(c *connect.Client) error {
				_, err := c.ValidateConfig(context.Background(), "io.debezium.connector.postgresql.PostgresConnector", map[string]string{"connector.class": "x"})
				return err
			}},
		{"validate wrong type", "/connector-plugins/PostgresConnector/config/validate", `{"name":"x","error_count":"many","configs":[]}`, "decode",
			func(c *connect.Client) error {
				_, err := c.ValidateConfig(context.Background(), "io.debezium.connector.postgresql.PostgresConnector", map[string]string{"connector.class": "x"})
				return err
			}},
		{"status without state", "/connectors/x/status", `{"name":"x","connector":{"worker_id":"w"},"tasks":[]}`, "no connector.state",
			func(c *connect.Client) error { _, err := c.Status(context.Background(), "x"); return err }},
		{"status task without state", "/connectors/x/status", `{"name":"x","connector":{"state":"RUNNING"},"tasks":[{"id":0}]}`, "task #0 has no state",
			func(c *connect.Client) error { _, err := c.Status(context.Background(), "x"); return err }},
		{"status empty body", "/connectors/x/status", ``, "empty answer",
			func(c *connect.Client) error { _, err := c.Status(context.Background(), "x"); return err }},
		{"expanded without status", "/connectors", `{"x":{"info":{"name":"x","config":{}}}}`, "no info or status",
			func(c *connect.Client) error { _, err := c.ListConnectorsExpanded(context.Background()); return err }},
		{"expanded status without state", "/connectors", `{"x":{"info":{"name":"x","config":{}},"status":{"name":"x","connector":{},"tasks":[]}}}`, "no connector.state",
			func(c *connect.Client) error { _, err := c.ListConnectorsExpanded(context.Background()); return err }},
		{"list is null", "/connectors", `null`, "no connector list",
			func(c *connect.Client) error { _, err := c.ListConnectors(context.Background()); return err }},
		{"expanded is null", "/connectors", `null`, "no connector map",
			func(c *connect.Client) error { _, err := c.ListConnectorsExpanded(context.Background()); return err }},
		{"expanded empty body", "/connectors", ``, "empty answer",
			func(c *connect.Client) error { _, err := c.ListConnectorsExpanded(context.Background()); return err }},
		{"list is an object", "/connectors", `{"a":1}`, "decode",
			func(c *connect.Client) error { _, err := c.ListConnectors(context.Background()); return err }},
		{"server info html", "/", `<html>hello</html>`, "decode",
			func(c *connect.Client) error { _, err := c.ServerInfo(context.Background()); return err }},
		{"server info without version", "/", `{"commit":"x"}`, "no version",
			func(c *connect.Client) error { _, err := c.ServerInfo(context.Background()); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tt.path {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			c, _ := connect.NewClient(srv.URL)
			err := tt.call(c)
			var be *connect.BadAnswerError
			if !errors.Is(err, connect.ErrBadAnswer) || !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrBadAnswer mentioning %q", err, tt.want)
			}
		})
	}
}

// TestCallTimeoutBoundsRetries: WithCallTimeout bounds the whole call,
// 409 rebalance retries and waits included, where WithRequestTimeout
// bounds each request only (#30 item 6: one meaning per option name, as
// in the registry client).
func TestCallTimeoutBoundsRetries(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"error_code":409,"message":"Cannot complete request momentarily due to stale configuration"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := connect.NewClient(srv.URL, connect.WithCallTimeout(300*time.Millisecond),
		connect.WithRetry(connect.Retry{MaxAttempts: 1000, Initial: 20 * time.Millisecond, Max: 20 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.ListConnectors(context.Background())
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("call took %s, want about 300ms", d)
	}
	var te *connect.TimeoutError
	if !errors.Is(err, connect.ErrTimeout) || !errors.As(err, &te) || te.After != 300*time.Millisecond {
		t.Fatalf("err = %v, want a *TimeoutError after 300ms", err)
	}
	if !strings.Contains(err.Error(), "kafka connect request GET "+srv.URL+"/connectors") {
		t.Errorf("message = %q", err)
	}
}

// TestWithTLSFiles: WithTLS takes files, like the registry client's; a
// file that cannot be loaded fails NewClient naming it; WithTLSConfig (a
// ready *tls.Config) overrides it.
func TestWithTLSFiles(t *testing.T) {
	t.Parallel()
	missing := t.TempDir() + "/no-ca.pem"
	_, err := connect.NewClient("https://127.0.0.1:1", connect.WithTLS(connect.TLSConfig{CAFile: missing}))
	if err == nil || !strings.Contains(err.Error(), "kafka connect tls: ca file: stat "+missing) {
		t.Fatalf("err = %v", err)
	}
	_, err = connect.NewClient("https://127.0.0.1:1", connect.WithTLS(connect.TLSConfig{CertFile: "c.pem"}))
	if err == nil || !strings.Contains(err.Error(), "give both a client certificate and its key") {
		t.Fatalf("err = %v", err)
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(srv.Close)
	// The test server's certificate is not trusted without InsecureSkipVerify.
	c, err := connect.NewClient(srv.URL, connect.WithTLS(connect.TLSConfig{}), fastRetry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListConnectors(context.Background()); !errors.Is(err, connect.ErrUnreachable) {
		t.Fatalf("untrusted certificate: err = %v, want ErrUnreachable", err)
	}
	c, err = connect.NewClient(srv.URL, connect.WithTLS(connect.TLSConfig{InsecureSkipVerify: true}), fastRetry)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListConnectors(context.Background()); err != nil {
		t.Fatalf("InsecureSkipVerify: %v", err)
	}
}
