//go:build integration

package cmd_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestCLIVerboseTraceRealConnect traces `validate --server` against the real
// Kafka Connect: the trace shows the real requests and answers, and the
// database password sent in the validate body appears nowhere in the output.
func TestCLIVerboseTraceRealConnect(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres)
	sfx := itest.Suffix()
	const password = "Trace-s3cret-" + "b81c2e"
	p := filepath.Join(t.TempDir(), "outbox.yaml")
	spec := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %s
outboxes:
  - name: trace-%s
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, password: "${env:IT_TRACE_PASSWORD}", dbname: postgres}
`, s.BootstrapServers, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort)
	if err := os.WriteFile(p, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"IT_TRACE_PASSWORD": password, "OUTBOX_CONNECT_URL": s.ConnectURL, "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	code, out, errOut := runCLI(t, vars, "-v", "validate", "--server", "-f", p)
	if code != 0 && code != 3 {
		t.Fatalf("validate --server exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^> PUT ` + regexp.QuoteMeta(s.ConnectURL) + `/connector-plugins/PostgresConnector/config/validate$`),
		regexp.MustCompile(`"database.password":"\*{8}"`),
		regexp.MustCompile(`(?m)^< PUT \S+/config/validate: 200 OK \([0-9.]+m?s\)$`),
		regexp.MustCompile(`(?m)^< \{"name":"io.debezium.connector.postgresql.PostgresConnector","error_count":\d+`),
	} {
		if !want.MatchString(errOut) {
			t.Errorf("trace lacks %s:\n%s", want, errOut)
		}
	}
	if strings.Contains(out+errOut, password) {
		t.Errorf("the password leaks:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// TestCLIRealConnectErrorsMaskURLAndTimeOut: the real Connect's 404 for a
// URL with credentials prints the URL masked, and a request that gets no
// answer within --request-timeout says "timed out after", not "unreachable".
func TestCLIRealConnectErrorsMaskURLAndTimeOut(t *testing.T) {
	s := itest.Require(t, itest.Connect)
	withCreds := strings.Replace(s.ConnectURL, "://", "://deployer:hunter2-"+itest.Suffix()+"@", 1)
	vars := map[string]string{"OUTBOX_CONNECT_URL": "", "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	missing := "no-such-connector-" + itest.Suffix()
	code, out, errOut := runCLI(t, vars, "connectors", "restart", missing, "--connect-url", withCreds)
	if code != 1 || !strings.Contains(errOut, "404") || !strings.Contains(errOut, "deployer:********@") || strings.Contains(out+errOut, "hunter2") {
		t.Fatalf("exit %d, want 1 with Connect's 404 and the URL masked\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// A peer that accepts the connection and never answers: the real
	// Connect on this machine can answer within any timeout short enough to
	// be sure of, so the no-answer case gets a listener that holds requests.
	code, _, errOut = runCLI(t, map[string]string{"OUTBOX_CONNECT_URL": silentPeer(t), "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""},
		"connectors", "get", "--request-timeout", "300ms")
	if code != 1 || !strings.Contains(errOut, "timed out after 300ms") || strings.Contains(errOut, "unreachable") {
		t.Fatalf("exit %d, want 1 and \"timed out after 300ms\"\nstderr:\n%s", code, errOut)
	}
}

// silentPeer listens on a loopback port, accepts connections, reads what
// they send and never writes a byte; it returns the listener's http URL.
func silentPeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String()
}
