package itest

import (
	"fmt"
	"os"
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
type FaultStack struct {
	Dir               string
	BootstrapServers  string
	SchemaRegistryURL string
	PostgresDSN       string
}

// RequireFault returns the fault instance once each of its services
// answers. Without OUTBOX_FAULT_STACK_DIR, or with a service that does not
// answer, it fails the test under CI and skips it otherwise.
func RequireFault(t testing.TB) *FaultStack {
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
		BootstrapServers:  fmt.Sprintf("127.0.0.1:%d", 19092+off),
		SchemaRegistryURL: fmt.Sprintf("http://127.0.0.1:%d/apis/ccompat/v7", 18081+off),
		PostgresDSN:       fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", 15432+off),
	}
	checks := map[Service]func() error{
		Kafka:    func() error { return dial(f.BootstrapServers) },
		Registry: func() error { return httpGet(f.SchemaRegistryURL + "/subjects") },
		Postgres: func() error { return dial(strings.TrimPrefix(strings.Split(f.PostgresDSN, "/")[2], "postgres@")) },
	}
	for _, svc := range []Service{Postgres, Kafka, Registry} {
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
