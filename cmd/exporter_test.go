package cmd_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cmd"
	"github.com/outboxctl/outboxctl/internal/settings"
)

// syncBuffer is a bytes.Buffer safe for the command's goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestExporterServes runs `outboxctl exporter` on a spec whose database
// refuses connections: /metrics answers 200 within the scrape timeout with
// outbox_up{target="database"} 0 and an error counted, not a failed scrape;
// the command ends cleanly when its context is cancelled.
func TestExporterServes(t *testing.T) {
	dir := t.TempDir()
	specFile := filepath.Join(dir, "outbox.yaml")
	if err := os.WriteFile(specFile, []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 1, user: postgres, dbname: shop}
    payloadFormat: json
    connector: {name: orders-outbox}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out, errOut syncBuffer
	env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Settings: settings.Defaults(), Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- cmd.Run(ctx, env, []string{"exporter", "-f", specFile, "--no-connect", "--listen", addr, "--scrape-timeout", "2s"})
	}()
	var body string
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("/metrics: %s\n%s", resp.Status, b)
			}
			body = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("exporter does not serve: %v\nstderr: %s", err, errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{
		`outbox_up{outbox="orders",target="database"} 0`,
		`outbox_scrape_errors_total{outbox="orders",target="database"} 1`,
		`# TYPE outbox_scrape_errors_total counter`,
		`outbox_target_error{outbox="orders",reason="unreachable",target="database"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "target=\"connect\"") {
		t.Errorf("--no-connect still exports connector targets:\n%s", body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exporter exits %d after cancel: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("exporter does not stop on cancel")
	}
	if n := strings.Count(errOut.String(), "exporter target failing"); n != 1 || !strings.Contains(errOut.String(), "reason=unreachable") {
		t.Errorf("stderr has %d failing lines, want one with reason=unreachable: %q", n, errOut.String())
	}
	if !strings.Contains(errOut.String(), "serving 1 outboxes on http://"+addr+"/metrics") {
		t.Errorf("stderr: %q", errOut.String())
	}
}

// TestExporterReadmeSpec runs `outboxctl exporter` on the README's own
// example spec (examples/outbox.yaml): orders' password comes from
// $ORDERS_DB_PASSWORD; payments' is a ${file:…} Kafka Connect resolves on
// its own host, so the exporter has no DSN for it: down with reason
// missing, logged once, and orders is still exported. With --dsn
// payments=…, payments is read too (nothing listens there: unreachable, no
// longer missing).
func TestExporterReadmeSpec(t *testing.T) {
	scrapeOnce := func(t *testing.T, extra ...string) (string, string) {
		t.Helper()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		var out, errOut syncBuffer
		getenv := func(k string) string {
			if k == "ORDERS_DB_PASSWORD" {
				return "pw"
			}
			return ""
		}
		env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Settings: settings.Defaults(), Getenv: getenv}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- cmd.Run(ctx, env, append([]string{"exporter", "-f", "../examples/outbox.yaml", "--no-connect", "--listen", addr, "--scrape-timeout", "2s"}, extra...))
		}()
		defer func() {
			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("exporter exits %d: %s", code, errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("exporter does not stop on cancel")
			}
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := http.Get("http://" + addr + "/metrics")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("/metrics: %s\n%s", resp.Status, b)
				}
				return string(b), errOut.String()
			}
			select {
			case code := <-done:
				t.Fatalf("exporter exits %d on the README's spec: %s", code, errOut.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("exporter does not serve: %v\nstderr: %s", err, errOut.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	body, errOut := scrapeOnce(t)
	for _, want := range []string{
		`outbox_up{outbox="orders",target="database"}`,
		`outbox_up{outbox="payments",target="database"} 0`,
		`outbox_target_error{outbox="payments",reason="missing",target="database"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if n := strings.Count(errOut, "exported as down"); n != 1 || !strings.Contains(errOut, "outbox=payments") || !strings.Contains(errOut, "--dsn payments=DSN") {
		t.Errorf("stderr: want payments reported once as not resolved:\n%s", errOut)
	}
	body, _ = scrapeOnce(t, "--dsn", "payments=dbz:pw@tcp(127.0.0.1:1)/payments")
	if !strings.Contains(body, `outbox_target_error{outbox="payments",reason="unreachable",target="database"} 1`) {
		t.Errorf("--dsn payments=…: payments not read with it:\n%s", body)
	}
}
