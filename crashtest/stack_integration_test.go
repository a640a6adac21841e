//go:build integration

package crashtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// crashStack is the crash suite's stack instance: the crash instance (one
// broker, one worker) or the cluster instance (nodes brokers, workers
// Connect workers; node and worker n listen on their ports + 100*(n-1)).
type crashStack struct {
	dir     string
	off     int
	repo    string
	nodes   int
	workers int
	// rest, when set, is the Connect worker the pipeline deploys to
	// instead of worker 1 (a test's own worker on the cluster's brokers).
	rest string
}

func (c *crashStack) port(base int) int { return base + c.off }
func (c *crashStack) pgAddr() string    { return fmt.Sprintf("127.0.0.1:%d", c.port(15432)) }
func (c *crashStack) pgDSN(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", c.pgAddr(), db)
}

// bootstrap is every broker's PLAINTEXT listener.
func (c *crashStack) bootstrap() string {
	addrs := make([]string, max(c.nodes, 1))
	for n := range addrs {
		addrs[n] = fmt.Sprintf("127.0.0.1:%d", c.port(19092)+100*n)
	}
	return strings.Join(addrs, ",")
}

// connectURL is worker 1's REST endpoint (rest when set).
func (c *crashStack) connectURL() string {
	if c.rest != "" {
		return c.rest
	}
	return c.workerURL(1)
}

// workerURL is worker n's (1-based) REST endpoint.
func (c *crashStack) workerURL(n int) string {
	return fmt.Sprintf("http://127.0.0.1:%d", c.port(18083)+100*(n-1))
}

// instance is the stack's service name of node or worker n of svc:
// "kafka" for node 1, "kafka-2" for node 2 (its pid file run/kafka-2.pid).
func instance(svc string, n int) string {
	if n == 1 {
		return svc
	}
	return fmt.Sprintf("%s-%d", svc, n)
}

// replicas is the replication factor of the stack's topics.
func (c *crashStack) replicas() int { return min(max(c.nodes, 1), 3) }
func (c *crashStack) registryURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/apis/ccompat/v7", c.port(18081))
}

// requireCrash returns the crash instance once its services answer; it
// fails under CI and skips elsewhere when they do not.
func requireCrash(t *testing.T) *crashStack {
	t.Helper()
	c, miss := openInstance(t, "OUTBOX_CRASH", "stack-crash-up", &crashStack{off: 2000, nodes: 1, workers: 1})
	for svc, addr := range map[string]string{"postgres": c.pgAddr(), "kafka": c.bootstrap(), "connect": strings.TrimPrefix(c.connectURL(), "http://"),
		"registry": fmt.Sprintf("127.0.0.1:%d", c.port(18081))} {
		conn, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err != nil {
			miss(fmt.Sprintf("crash instance: %s does not answer at %s: %v (run `make stack-crash-up`)", svc, addr, err))
		}
		conn.Close()
		if _, err := c.pid(svc); err != nil {
			miss(fmt.Sprintf("crash instance: %v", err))
		}
	}
	return c
}

func (c *crashStack) pid(svc string) (int, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "run", svc+".pid"))
	if err != nil {
		return 0, fmt.Errorf("pid of %s: %w", svc, err)
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// signal sends sig to svc and, with wait, waits until the process is gone.
// It returns when the signal was sent: a SIGKILL takes effect then (the
// process never runs again), while kill(pid, 0) still finds it until its
// parent has reaped it, which took up to 1.5 s under load.
func (c *crashStack) signal(t *testing.T, svc string, sig syscall.Signal, wait bool) (sent time.Time) {
	t.Helper()
	pid, err := c.pid(svc)
	if err != nil {
		t.Fatal(err)
	}
	sent = time.Now()
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("%s %s (pid %d): %v", sig, svc, pid, err)
	}
	t.Logf("%s: sent %s to pid %d", svc, sig, pid)
	if !wait {
		return sent
	}
	deadline := time.Now().Add(90 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still runs 90s after %s", svc, pid, sig)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return sent
}

// up starts what is not running of the instance and waits until healthy.
func (c *crashStack) up(t *testing.T) { c.upWith(t) }

// upWith is up with more environment for stack.sh (KEY=VALUE).
func (c *crashStack) upWith(t *testing.T, env ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(c.repo, "devstack", "stack.sh"), "up")
	// A restart under the suites' load on a shared 2-core machine has taken
	// more than stack.sh's default 120 s for a broker (the JVM start), and
	// stack.sh stops what it started when the wait runs out: wait longer.
	cmd.Env = append(append(os.Environ(), "OUTBOX_STACK_DIR="+c.dir, "OUTBOX_STACK_PORT_OFFSET="+strconv.Itoa(c.off),
		"OUTBOX_STACK_WAIT_KAFKA=400", "OUTBOX_STACK_WAIT_CONNECT=400"), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("stack.sh up (%s): %v\n%s", c.dir, err, out.String())
	}
	t.Logf("stack instance up again after %s", time.Since(start).Round(time.Millisecond))
}

// proxy forwards TCP connections to target (itest.Proxy): Cut makes it
// unreachable (every open connection closed, new ones refused) until
// Restore; Freeze blackholes it (connections kept open, nothing
// forwarded) until Thaw.
type proxy struct{ *itest.Proxy }

func newProxy(t *testing.T, target string) *proxy { return &proxy{itest.NewProxy(t, target)} }

func (p *proxy) addr() string { return p.Addr() }

// openInstance fills c (its default offset, nodes and workers set) from
// $<prefix>_STACK_DIR and $<prefix>_PORT_OFFSET, and returns it with the
// function that fails the test under CI and skips it elsewhere when the
// instance is not there.
func openInstance(t *testing.T, prefix, target string, c *crashStack) (*crashStack, func(string)) {
	t.Helper()
	miss := func(why string) {
		t.Helper()
		if itest.InCI() {
			t.Fatalf("integration: %s", why)
		}
		t.Skipf("INTEGRATION NOT RUN: %s", why)
	}
	c.dir = os.Getenv(prefix + "_STACK_DIR")
	if c.dir == "" {
		miss(fmt.Sprintf("%s_STACK_DIR is not set (run `make %s`, then export it)", prefix, target))
	}
	if v := os.Getenv(prefix + "_PORT_OFFSET"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s_PORT_OFFSET=%q: %v", prefix, v, err)
		}
		c.off = n
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	c.repo = filepath.Dir(wd)
	return c, miss
}
