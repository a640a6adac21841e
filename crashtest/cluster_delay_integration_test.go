//go:build integration && measure

package crashtest

import (
	"syscall"
	"testing"
	"time"
)

// TestClusterDefaultRebalanceDelay measures how long Connect takes to move
// the Debezium task of a killed worker with Connect's default
// scheduled.rebalance.max.delay.ms (300000) instead of the stack's 10000:
// it restarts both workers with the default, kills the worker running the
// task, waits until the task runs on the other one, and restarts both with
// the stack's setting again. It takes over 5 minutes, so it is built only
// with the tag measure (not in make test):
//
//	go test -tags 'integration measure' -run TestClusterDefaultRebalanceDelay -timeout 20m ./crashtest/
//
// The figure is in docs/production.md and in doctor's advice.
func TestClusterDefaultRebalanceDelay(t *testing.T) {
	cs := requireCluster(t)
	unlock := cs.lockCluster(t)
	defer unlock()
	restartWorkers := func(env ...string) {
		for n := 1; n <= cs.workers; n++ {
			cs.signal(t, instance("connect", n), syscall.SIGTERM, true)
		}
		cs.upWith(t, env...)
	}
	restartWorkers("OUTBOX_STACK_CONNECT_REBALANCE_DELAY_MS=300000")
	defer restartWorkers()
	s := setupCluster(t, cs, false)
	stop := make(chan struct{})
	done := s.load(stop)
	time.Sleep(2 * time.Second)
	w, _ := cs.taskWorker(1, s.connector)
	if w == 0 {
		t.Fatalf("no worker runs the task of %s", s.connector)
	}
	at := cs.signal(t, instance("connect", w), syscall.SIGKILL, true)
	moved, took := cs.waitTaskMoved(t, 3-w, w, s.connector, at, 10*time.Minute)
	t.Logf("default scheduled.rebalance.max.delay.ms: killed worker %d; the task RUNNING on worker %d %s after the kill", w, moved, took.Round(100*time.Millisecond))
	cs.up(t)
	c, _ := s.measure("default rebalance delay", 1, stop, done, 3*time.Second, 3*time.Minute)
	rec, worst, err := s.recovery(at, at)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default scheduled.rebalance.max.delay.ms: committed %d, lost %d, duplicate effects %d; time to recover %.1f s, worst commit-to-effect latency %.1f s", c.committed, c.lost, c.effects-c.distinct, rec.Seconds(), worst.Seconds())
}
