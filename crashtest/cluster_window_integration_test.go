//go:build integration

package crashtest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// What exactly-once removes. A Connect worker with
// exactly.once.source.support=enabled runs every source task with a
// transactional producer, whatever the connector's exactly.once.support
// says (DistributedHerder.startTask starts an exactly-once source task for
// every source connector when the worker has it enabled; the connector
// setting only adds the preflight check). Both workers of the cluster
// instance have it enabled, so the cluster's "at-least-once" rows ran
// exactly-once too and could not show a duplicate. This test therefore
// starts a Connect worker of its own on the cluster's brokers (its own
// group and internal topics; the same JVM, libraries and plugins as the
// instance's workers), once without and once with exactly-once source
// support, and kills it with kill -9 at the same, deterministic point: 3 s
// after the connector's source offsets were last written to the offsets
// topic, with offset.flush.interval.ms=10000, so that the records of those
// 3 s are in the topic, acknowledged, and their offsets are not committed.
// At-least-once resends them after the restart (duplicate records in the
// topic, skipped by the inbox); exactly-once commits the offsets in the
// transaction of the records and must add none.

// flushInterval is the own workers' offset.flush.interval.ms (Connect's
// default is 60000, the instances' 1000).
const flushInterval = 10 * time.Second

// ownWorker is a Connect worker process the test started (and only
// that one is ever killed by it).
type ownWorker struct {
	t       *testing.T
	name    string // group.id and the prefix of its internal topics
	argv    []string
	url     string
	log     string
	offsets string // its offsets topic

	cmd    *exec.Cmd
	exited chan struct{}
}

// startOwnWorker starts a single-worker Connect group on the cluster's
// brokers from the command line and properties of the instance's worker
// 1: its own group.id, REST port and internal topics (at the instance's
// replication factor), offset.flush.interval.ms=flushInterval, and
// exactly.once.source.support=enabled only with eos.
func startOwnWorker(t *testing.T, cs *crashStack, eos bool) *ownWorker {
	t.Helper()
	pid, err := cs.pid("connect")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatalf("the cluster worker's command line: %v", err)
	}
	argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	base, err := os.ReadFile(argv[len(argv)-1])
	if err != nil || !strings.HasSuffix(argv[len(argv)-2], "ConnectDistributed") {
		t.Fatalf("the cluster worker's properties (%q): %v", argv, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	mode := "alo"
	if eos {
		mode = "eos"
	}
	w := &ownWorker{t: t, name: "crash-own-" + mode + "-" + itest.Suffix(), url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	w.offsets = "_connect-" + w.name + "-offsets"
	set := map[string]string{
		"group.id": w.name, "listeners": w.url, "rest.advertised.port": fmt.Sprint(port),
		"config.storage.topic": "_connect-" + w.name + "-configs", "offset.storage.topic": w.offsets, "status.storage.topic": "_connect-" + w.name + "-status",
		"offset.flush.interval.ms": fmt.Sprint(flushInterval.Milliseconds()), "scheduled.rebalance.max.delay.ms": "0",
		"exactly.once.source.support": "",
	}
	if eos {
		set["exactly.once.source.support"] = "enabled"
	}
	var props bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(base))
	for sc.Scan() {
		if k, _, ok := strings.Cut(sc.Text(), "="); ok {
			if _, own := set[strings.TrimSpace(k)]; own {
				continue
			}
		}
		fmt.Fprintln(&props, sc.Text())
	}
	for k, v := range set {
		if v != "" {
			fmt.Fprintf(&props, "%s=%s\n", k, v)
		}
	}
	dir := t.TempDir()
	if d := os.Getenv("OUTBOX_CRASH_LOG_DIR"); d != "" {
		dir = d
	}
	file := filepath.Join(dir, w.name+".properties")
	if err := os.WriteFile(file, props.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	w.argv = append(argv[:len(argv)-1:len(argv)-1], file)
	w.log = filepath.Join(dir, w.name+".log")
	// Registered before the pipeline's cleanups, so it runs after them:
	// the connector is deleted while the worker still runs.
	t.Cleanup(func() {
		w.stop()
		itest.DeleteTopicsContaining(t, cs.bootstrap(), "_connect-"+w.name+"-")
	})
	w.start()
	return w
}

// start launches the worker and waits until its REST API answers.
func (w *ownWorker) start() {
	t := w.t
	t.Helper()
	f, err := os.OpenFile(w.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(w.argv[0], w.argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatalf("start worker %s: %v", w.name, err)
	}
	w.cmd, w.exited = cmd, make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(w.exited) }()
	start := time.Now()
	for {
		resp, err := http.Get(w.url + "/connectors")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("worker %s (pid %d) answers at %s after %s", w.name, cmd.Process.Pid, w.url, time.Since(start).Round(100*time.Millisecond))
				return
			}
		}
		select {
		case <-w.exited:
			b, _ := os.ReadFile(w.log)
			t.Fatalf("worker %s exited while starting:\n%s", w.name, tail(b, 3000))
		case <-time.After(500 * time.Millisecond):
		}
		if time.Since(start) > 6*time.Minute {
			t.Fatalf("worker %s does not answer at %s 6 min after its start (log %s)", w.name, w.url, w.log)
		}
	}
}

// kill sends SIGKILL and waits until the process is gone.
func (w *ownWorker) kill() time.Time {
	w.t.Helper()
	sent := time.Now()
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		w.t.Fatalf("kill -9 worker %s: %v", w.name, err)
	}
	<-w.exited
	return sent
}

func (w *ownWorker) stop() {
	if w.cmd == nil {
		return
	}
	select {
	case <-w.exited:
		return
	default:
	}
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(60 * time.Second):
		_ = w.cmd.Process.Kill()
		<-w.exited
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// offsetWatch follows a worker's offsets topic (read_committed: an
// exactly-once task writes its offsets in its transactions) and notes when
// each write of the connector's source offsets arrived.
type offsetWatch struct {
	mu     sync.Mutex
	writes []time.Time
	next   chan struct{} // closed and replaced on each write
}

func watchOffsets(t *testing.T, bootstrap, topic, connector string) *offsetWatch {
	t.Helper()
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": bootstrap, "group.id": "crash-offsets-" + itest.Suffix(),
		"enable.auto.commit": false, "isolation.level": "read_committed", "fetch.wait.max.ms": 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := cons.Assign([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: kafka.OffsetBeginning}}); err != nil {
		t.Fatal(err)
	}
	o := &offsetWatch{next: make(chan struct{})}
	stop := pollLoop(0, func() {
		if m, ok := cons.Poll(50).(*kafka.Message); ok && m.TopicPartition.Error == nil && bytes.Contains(m.Key, []byte(`"`+connector+`"`)) {
			o.mu.Lock()
			o.writes = append(o.writes, time.Now())
			close(o.next)
			o.next = make(chan struct{})
			o.mu.Unlock()
		}
	})
	t.Cleanup(func() { stop(); cons.Close() })
	return o
}

// waitNext waits for the next write of the offsets and returns when it
// arrived.
func (o *offsetWatch) waitNext(timeout time.Duration) (time.Time, bool) {
	o.mu.Lock()
	next := o.next
	o.mu.Unlock()
	select {
	case <-next:
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.writes[len(o.writes)-1], true
	case <-time.After(timeout):
		return time.Time{}, false
	}
}

// since counts the writes that arrived after t.
func (o *offsetWatch) since(t time.Time) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, w := range o.writes {
		if w.After(t) {
			n++
		}
	}
	return n
}

// windowKill is one row: under load, kill -9 of the own worker 3 s after
// the connector's offsets were last written, restart, exact counts.
func windowKill(t *testing.T, cs *crashStack, eos bool) (row string, topicDups int) {
	w := startOwnWorker(t, cs, eos)
	own := *cs
	own.rest = w.url
	s := setupCluster(t, &own, eos)
	watch := watchOffsets(t, cs.bootstrap(), w.offsets, s.connector)

	mode := map[bool]string{false: "at-least-once (worker without exactly-once source support)", true: "exactly-once (worker with exactly.once.source.support=enabled)"}[eos]
	unlock := cs.lockCluster(t) // no other fault on the cluster meanwhile
	defer unlock()
	_, before := cs.readTopicIDs(t, s.topic)
	beforeDups := 0
	for _, n := range before {
		beforeDups += n - 1
	}
	since := time.Now()
	stop := make(chan struct{})
	done := s.load(stop)
	// The window starts when the next write of the offsets has arrived.
	last, ok := watch.waitNext(2 * flushInterval)
	if !ok {
		t.Fatalf("%s: no write of the connector's offsets to %s within %s", mode, w.offsets, 2*flushInterval)
	}
	end0 := itest.TopicEnd(t, cs.bootstrap(), s.topic, partitions)
	time.Sleep(3 * time.Second)
	end1 := itest.TopicEnd(t, cs.bootstrap(), s.topic, partitions)
	faultAt := w.kill()
	writes := watch.since(last)
	t.Logf("%s: worker %s killed %s after the last offset write seen before the window; %d offset writes in the window; the topic grew by %d offsets (records and markers) in the window",
		mode, w.name, faultAt.Sub(last).Round(time.Millisecond), writes, end1-end0)
	if !eos && writes != 0 {
		t.Fatalf("%s: the window missed: %d offset writes between the last one and the kill (flush interval %s)", mode, writes, flushInterval)
	}
	if end1 <= end0 {
		t.Fatalf("%s: no new record in %s in the 3 s before the kill", mode, s.topic)
	}
	time.Sleep(time.Second)
	w.start()
	itest.WaitRunning(t, w.url, s.connector, 3*time.Minute)
	c, skipped := s.measure(mode, 1, stop, done, 3*time.Second, 3*time.Minute)
	rec, worst, err := s.recovery(faultAt, since)
	if err != nil {
		t.Errorf("%s: time to recover: %v", mode, err)
	}
	records, ids := cs.readTopicIDs(t, s.topic)
	topicDups = records - len(ids) - beforeDups
	t.Logf("%s: %d records in the topic, %d duplicate records added by the kill; redeliveries skipped by the inbox %d; time to recover %.1f s, worst commit-to-effect latency %.1f s",
		mode, records, topicDups, skipped, rec.Seconds(), worst.Seconds())
	row = fmt.Sprintf("| kill -9 of the worker 3 s after the last offset write, %s | %d | %d | %d | %d | %d | %d | %d | %d | %.1f s | %.1f s |",
		mode, c.committed, c.distinct, c.lost, c.effects-c.distinct, c.reordered, end1-end0, skipped, topicDups, rec.Seconds(), worst.Seconds())
	return row, topicDups
}

// TestClusterWorkerKillOffsetWindow shows what exactly-once removes: the
// same kill, in the window where at-least-once duplicates, adds N > 0
// duplicate records to the topic at-least-once (0 duplicate effects: the
// inbox skips them) and none exactly-once.
func TestClusterWorkerKillOffsetWindow(t *testing.T) {
	cs := requireCluster(t)
	var rows []string
	t.Run("at-least-once", func(t *testing.T) {
		row, dups := windowKill(t, cs, false)
		rows = append(rows, row)
		if dups == 0 {
			t.Errorf("at-least-once: a kill 3 s after the last offset commit added no duplicate record to the topic")
		}
	})
	t.Run("exactly-once", func(t *testing.T) {
		row, dups := windowKill(t, cs, true)
		rows = append(rows, row)
		if dups != 0 {
			t.Errorf("exactly-once: the kill added %d duplicate records to the topic (read_committed)", dups)
		}
	})
	t.Logf("\n| fault | committed | handled effects | lost | duplicate effects | reordered | topic offsets written in the 3 s window | redeliveries skipped by the inbox | duplicate records in the topic | time to recover | worst commit-to-effect latency |\n|---|---|---|---|---|---|---|---|---|---|---|\n%s",
		strings.Join(rows, "\n"))
}
