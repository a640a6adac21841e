package itest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FaultStack is the isolated second instance of the stack that failure
// tests may pause (make stack-fault-up: PostgreSQL, Kafka and the registry
// in $OUTBOX_FAULT_STACK_DIR, every port shifted by
// $OUTBOX_FAULT_PORT_OFFSET, default 1000). Tests never pause the main
// stack, which other tests share.
//
// RequireFault also serializes the tests of every package that use the
// instance (an exclusive flock on its run/itest.lock until the test ends),
// since one of them may pause or restart a service the others use.
type FaultStack struct {
	Dir               string
	Offset            int
	BootstrapServers  string
	SchemaRegistryURL string
	PostgresDSN       string
}

// RequireFault returns the fault instance once each of svcs (default:
// PostgreSQL, Kafka and the registry) answers. Without
// OUTBOX_FAULT_STACK_DIR, or with a service that does not answer, it fails
// the test under CI and skips it otherwise.
func RequireFault(t testing.TB, svcs ...Service) *FaultStack {
	t.Helper()
	dir := os.Getenv("OUTBOX_FAULT_STACK_DIR")
	if dir == "" {
		missing(t, "OUTBOX_FAULT_STACK_DIR is not set (run `make stack-fault-up`, then export it)")
	}
	off := 1000
	if v := os.Getenv("OUTBOX_FAULT_PORT_OFFSET"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("OUTBOX_FAULT_PORT_OFFSET=%q: %v", v, err)
		}
		off = n
	}
	f := &FaultStack{
		Dir:               dir,
		Offset:            off,
		BootstrapServers:  fmt.Sprintf("127.0.0.1:%d", 19092+off),
		SchemaRegistryURL: fmt.Sprintf("http://127.0.0.1:%d/apis/ccompat/v7", 18081+off),
		PostgresDSN:       fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", 15432+off),
	}
	checks := map[Service]func() error{
		Kafka:    func() error { return dial(f.BootstrapServers) },
		Registry: func() error { return httpGet(f.SchemaRegistryURL + "/subjects") },
		Postgres: func() error { return dial(strings.TrimPrefix(strings.Split(f.PostgresDSN, "/")[2], "postgres@")) },
	}
	if len(svcs) == 0 {
		svcs = []Service{Postgres, Kafka, Registry}
	}
	f.lock(t)
	for _, svc := range svcs {
		if err := checks[svc](); err != nil {
			missing(t, fmt.Sprintf("fault instance: %s does not answer: %v (run `make stack-fault-up`)", svc, err))
		}
		if _, err := f.pids(svc); err != nil {
			missing(t, fmt.Sprintf("fault instance: %v", err))
		}
	}
	return f
}

func missing(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("integration: %s", why)
	}
	t.Skipf("INTEGRATION NOT RUN: %s", why)
}

// pids returns the processes of svc: the pid in its pid file, and for
// PostgreSQL also the postmaster's children (the backends serving the open
// connections, which go on working when only the postmaster is stopped).
func (f *FaultStack) pids(svc Service) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(f.Dir, "run", string(svc)+".pid"))
	if err != nil {
		return nil, fmt.Errorf("pid of %s: %w", svc, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("pid file of %s: %w", svc, err)
	}
	pids := []int{pid}
	if svc == Postgres {
		pids = append(pids, children(pid)...)
	}
	return pids, nil
}

// children lists the processes whose parent is pid (from /proc).
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so cut after ')'.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// Pause stops svc of the fault instance with SIGSTOP: its port stays open
// but nothing answers, as with a hung server or a network partition. The
// returned function (also run at cleanup) continues it with SIGCONT.
func (f *FaultStack) Pause(t testing.TB, svc Service) (resume func()) {
	t.Helper()
	pids, err := f.pids(svc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pids {
		if err := syscall.Kill(p, syscall.SIGSTOP); err != nil {
			t.Fatalf("SIGSTOP %s (pid %d): %v", svc, p, err)
		}
	}
	t.Logf("paused %s of the fault instance (pids %v) at %s", svc, pids, time.Now().Format("15:04:05.000"))
	done := false
	resume = func() {
		if done {
			return
		}
		done = true
		for i := len(pids) - 1; i >= 0; i-- {
			if err := syscall.Kill(pids[i], syscall.SIGCONT); err != nil {
				t.Errorf("SIGCONT %s (pid %d): %v", svc, pids[i], err)
			}
		}
		t.Logf("resumed %s of the fault instance at %s", svc, time.Now().Format("15:04:05.000"))
	}
	t.Cleanup(resume)
	return resume
}

// lock takes the instance's test lock until t ends.
func (f *FaultStack) lock(t testing.TB) {
	t.Helper()
	fd, err := os.OpenFile(filepath.Join(f.Dir, "run", "itest.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		missing(t, fmt.Sprintf("fault instance: %v (run `make stack-fault-up`)", err))
	}
	start := time.Now()
	if err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX); err != nil {
		fd.Close()
		t.Fatalf("lock the fault instance: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("waited %s for the fault instance (another test used it)", d.Round(time.Millisecond))
	}
	t.Cleanup(func() { fd.Close() }) // closing releases the lock
}

// Stop stops svc of the fault instance with SIGTERM (a clean shutdown, as
// a restart does) and waits until its process is gone. Start brings it
// back; cleanup does too.
func (f *FaultStack) Stop(t testing.TB, svc Service) {
	t.Helper()
	pids, err := f.pids(svc)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pids[0], syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM %s (pid %d): %v", svc, pids[0], err)
	}
	t.Cleanup(func() {
		if now, err := f.pids(svc); err != nil || syscall.Kill(now[0], 0) != nil {
			f.Start(t)
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for syscall.Kill(pids[0], 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still runs 90s after SIGTERM", svc, pids[0])
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("stopped %s of the fault instance (pid %d) at %s", svc, pids[0], time.Now().Format("15:04:05.000"))
}

// Start starts what is not running of the fault instance (devstack/stack.sh
// up on its directory, which keeps its recorded services) and waits until
// it is healthy.
func (f *FaultStack) Start(t testing.TB) {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "devstack", "stack.sh"), "up")
	cmd.Env = append(os.Environ(), "OUTBOX_STACK_DIR="+f.Dir, "OUTBOX_STACK_PORT_OFFSET="+strconv.Itoa(f.Offset), "OUTBOX_STACK_SERVICES=")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stack.sh up (fault instance): %v\n%s", err, out)
	}
	t.Logf("fault instance up again after %s at %s", time.Since(start).Round(time.Millisecond), time.Now().Format("15:04:05.000"))
}

// repoRoot is the directory of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
