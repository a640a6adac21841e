//go:build integration

package cmd_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
)

// connectLeader returns the REST URL of the Connect group's leader as the
// workers last logged it ("Joined group at generation N ...
// leaderUrl='…'"), the newest line of the workers' logs.
func connectLeader(t *testing.T, dir string) string {
	t.Helper()
	re := regexp.MustCompile(`^\[([0-9-]+ [0-9:,]+)\].*Joined group at generation.*leaderUrl='([^']+)'`)
	newest, leader := "", ""
	for _, name := range []string{"connect.log", "connect-2.log"} {
		f, err := os.Open(filepath.Join(dir, "logs", name))
		if err != nil {
			t.Fatalf("worker log: %v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && m[1] >= newest {
				newest, leader = m[1], strings.TrimRight(m[2], "/")
			}
		}
		f.Close()
	}
	if leader == "" {
		t.Fatal("no leaderUrl in the workers' logs")
	}
	return leader
}

// recorder is a reverse proxy to a Connect worker that records each
// answer's method, path and status.
type recorder struct {
	mu      sync.Mutex
	answers []string
}

func (r *recorder) proxy(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(resp *http.Response) error {
		r.mu.Lock()
		r.answers = append(r.answers, fmt.Sprintf("%s %s %d %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, time.Now().Format("15:04:05.000")))
		r.mu.Unlock()
		return nil
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (r *recorder) conflicts() (n int, all []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.answers {
		if strings.Contains(a, " 409 ") {
			n++
		}
	}
	return n, append([]string(nil), r.answers...)
}

// TestCLIDeployClusterDuringRebalance deploys two connectors through the
// group's leader while the group rebalances, on the cluster instance's 2
// real workers: the other worker is frozen (SIGSTOP), so the rebalance
// that the first connector's creation starts waits for it until its
// session times out. Deploy must converge: exit 0, both connectors
// RUNNING. Every answer is recorded; a 409 among them must have been
// retried. Measured (Kafka 4.3.1): the leader does not answer the second
// write with 409, it holds it until the rebalance is over (8.8 s), so
// this test does not produce the 409 itself; the retry of a 409 is
// covered by the connect package's tests against a fake.
func TestCLIDeployClusterDuringRebalance(t *testing.T) {
	c := itest.RequireCluster(t) // holds the cluster's fault lock
	sfx := itest.Suffix()
	dbName := "outbox_reb_" + sfx
	pg := itest.PostgresDatabase(t, c.PostgresDSN, dbName)
	// Runs after CleanupRun's connector deletion, before the database's
	// drop: a task of the worker that was frozen may take a while to
	// release its replication slot.
	t.Cleanup(func() {
		for i := 0; i < 120; i++ {
			var n int
			if err := pg.QueryRow(`SELECT count(*) FROM pg_replication_slots WHERE database = $1 AND active`, dbName).Scan(&n); err != nil || n == 0 {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	})
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	itest.CleanupRun(t, c.ConnectURLs[0], c.BootstrapServers, sfx)
	p := filepath.Join(t.TempDir(), "outbox.yaml")
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: outboxctl.dev/v1alpha1\nkafka: {brokers: 3}\noutboxes:\n")
	for _, n := range []string{"a", "b"} {
		fmt.Fprintf(&b, `  - name: reb%[1]s-%[2]s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: %[3]d, user: postgres, dbname: %[4]s}
    table: outbox_%[1]s
    payloadFormat: json
    topics: {replicationFactor: 3, minInsyncReplicas: 2}
`, n, sfx, 15432+c.Offset, dbName)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sp.Outboxes {
		itest.CreateOutboxTable(t, pg, &sp.Outboxes[i])
	}

	leader := connectLeader(t, c.Dir)
	other := 0
	if leader == c.ConnectURLs[0] {
		other = 1
	} else if leader != c.ConnectURLs[1] {
		t.Fatalf("leader %s is neither worker %v", leader, c.ConnectURLs)
	}
	svc := map[int]string{0: "connect", 1: "connect-2"}[other]
	raw, err := os.ReadFile(filepath.Join(c.Dir, "run", svc+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	resume := func() {
		once.Do(func() {
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Errorf("resume worker %s (pid %d): %v", c.ConnectURLs[other], pid, err)
			}
			t.Logf("worker %s resumed", c.ConnectURLs[other])
		})
	}
	t.Cleanup(resume)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("freeze worker %s (pid %d): %v", c.ConnectURLs[other], pid, err)
	}
	frozen := time.Now()
	t.Logf("leader %s; worker %s frozen", leader, c.ConnectURLs[other])
	// Resume it in any case after 40 s: the cluster must stay healthy.
	timer := time.AfterFunc(40*time.Second, resume)
	defer timer.Stop()

	rec := &recorder{}
	code, out, errOut := runCLI(t, vars, "deploy", "-f", p, "--connect-url", rec.proxy(t, leader), "--timeout", "3m")
	took := time.Since(frozen)
	resume()
	n, answers := rec.conflicts()
	t.Logf("deploy through the leader took %s, exit %d; %d answers 409; answers:\n%s", took.Round(time.Millisecond), code, n, strings.Join(answers, "\n"))
	if code != 0 {
		t.Fatalf("deploy during the rebalance: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var writes []string
	for _, a := range answers {
		if strings.HasPrefix(a, "PUT /connectors/") {
			writes = append(writes, a)
		}
	}
	if len(writes) < 2+n {
		t.Errorf("want both connectors written (and every 409 retried); writes: %v", writes)
	}
	for _, o := range sp.Outboxes {
		itest.WaitRunning(t, c.ConnectURLs[0], o.Name+"-outbox", 3*time.Minute)
	}
}
