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

// ClusterStack is the cluster instance (make stack-cluster-up: 3 Kafka
// nodes, 2 Connect workers with exactly-once source support, PostgreSQL;
// ports shifted by $OUTBOX_CLUSTER_PORT_OFFSET, default 4000, and node n's
// by a further 100*(n-1)), as tests that only read and write it see it.
// Tests that kill or freeze its processes take its cluster.lock instead.
type ClusterStack struct {
	Dir    string
	Offset int
	// BootstrapServers lists the 3 brokers.
	BootstrapServers string
	// ConnectURLs are the 2 workers' REST URLs.
	ConnectURLs []string
	PostgresDSN string
}

// RequireCluster returns the cluster instance once each of svcs (Kafka,
// Connect, Postgres; default all three) answers: every broker, every
// worker. It first takes the instance's fault lock (an exclusive flock on
// cluster.lock in its directory, held until the test ends), which the
// tests that kill or freeze the cluster's processes take too: no fault
// overlaps the test. Without OUTBOX_CLUSTER_STACK_DIR, or with a service
// that does not answer, it fails the test under CI and skips it otherwise.
func RequireCluster(t testing.TB, svcs ...Service) *ClusterStack {
	t.Helper()
	if len(svcs) == 0 {
		svcs = []Service{Kafka, Connect, Postgres}
	}
	want := map[Service]bool{}
	for _, s := range svcs {
		want[s] = true
	}
	dir := os.Getenv("OUTBOX_CLUSTER_STACK_DIR")
	why := ""
	off := 4000
	if v := os.Getenv("OUTBOX_CLUSTER_PORT_OFFSET"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("OUTBOX_CLUSTER_PORT_OFFSET=%q: %v", v, err)
		}
		off = n
	}
	c := &ClusterStack{Dir: dir, Offset: off, PostgresDSN: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", 15432+off)}
	var brokers []string
	for n := 0; n < 3; n++ {
		brokers = append(brokers, fmt.Sprintf("127.0.0.1:%d", 19092+off+100*n))
	}
	c.BootstrapServers = strings.Join(brokers, ",")
	for n := 0; n < 2; n++ {
		c.ConnectURLs = append(c.ConnectURLs, fmt.Sprintf("http://127.0.0.1:%d", 18083+off+100*n))
	}
	if dir == "" {
		why = "OUTBOX_CLUSTER_STACK_DIR is not set (run `make stack-cluster-up`, then export it)"
	} else {
		f, err := os.OpenFile(filepath.Join(dir, "cluster.lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatalf("cluster lock: %v", err)
		}
		start := time.Now()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			t.Fatalf("lock the cluster instance: %v", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Logf("waited %s for the cluster lock (another test used the cluster)", d.Round(time.Millisecond))
		}
		t.Cleanup(func() { f.Close() })
	}
	// A fault test may have just released the lock with a process still
	// starting: wait up to 3 minutes for every service (a broker of a 2-core
	// machine under load takes over a minute to start).
	check := func() string {
		why := ""
		for _, b := range brokers {
			if !want[Kafka] {
				break
			}
			if why != "" {
				break
			}
			if err := dial(b); err != nil {
				why = fmt.Sprintf("cluster instance: broker %s does not answer: %v (run `make stack-cluster-up`)", b, err)
			}
		}
		for _, u := range c.ConnectURLs {
			if !want[Connect] {
				break
			}
			if why != "" {
				break
			}
			if err := httpGet(u + "/"); err != nil {
				why = fmt.Sprintf("cluster instance: Connect worker %s does not answer: %v", u, err)
			}
		}
		if why == "" && want[Postgres] {
			if err := dial(fmt.Sprintf("127.0.0.1:%d", 15432+off)); err != nil {
				why = fmt.Sprintf("cluster instance: PostgreSQL does not answer: %v", err)
			}
		}

		return why
	}
	if why == "" {
		deadline := time.Now().Add(3 * time.Minute)
		for why = check(); why != "" && time.Now().Before(deadline); why = check() {
			time.Sleep(time.Second)
		}
	}
	if why != "" {
		missing(t, why)
	}
	return c
}
