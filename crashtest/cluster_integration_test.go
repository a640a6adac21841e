//go:build integration

package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// The cluster rows run on the cluster instance (`make stack-cluster-up`: 3
// combined KRaft broker+controller nodes, every topic at replication
// factor 3 with min.insync.replicas=2, 2 Connect workers in one group with
// exactly.once.source.support=enabled; ports + 4000). Each row reports,
// besides the CDC rows' counts, the duplicate records in the topic (read
// back by event id with read_committed) and the time to recover.

// clusterReportHeader is the cluster crash table's header.
const clusterReportHeader = "| fault | repetition | committed (cumulative) | handled effects | lost | duplicate effects | reordered | redeliveries skipped by the inbox | duplicate records in the topic (added by the row) | time to recover | worst commit-to-effect latency |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|\n"

// commitLog records the committed events in commit order.
type commitLog struct {
	mu      sync.Mutex
	entries []commitEntry
	at      map[string]time.Time // event id -> when it committed
}

type commitEntry struct {
	id, aggregate string
	at            time.Time
}

func (l *commitLog) add(id, aggregate string, at time.Time) {
	l.mu.Lock()
	l.entries = append(l.entries, commitEntry{strings.ToLower(id), aggregate, at})
	if l.at == nil {
		l.at = map[string]time.Time{}
	}
	l.at[strings.ToLower(id)] = at
	l.mu.Unlock()
}

// committedAt returns when the event id committed.
func (l *commitLog) committedAt(id string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.at[strings.ToLower(id)]
	return at, ok
}

// firstAfter returns, per aggregate, the first event committed at or after t.
func (l *commitLog) firstAfter(t time.Time) map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]string{}
	for _, e := range l.entries {
		if _, ok := out[e.aggregate]; !ok && !e.at.Before(t) {
			out[e.aggregate] = e.id
		}
	}
	return out
}

// requireCluster returns the cluster instance once every process answers;
// it fails under CI and skips elsewhere when one does not.
func requireCluster(t *testing.T) *crashStack {
	t.Helper()
	c, miss := openInstance(t, "OUTBOX_CLUSTER", "stack-cluster-up", &crashStack{off: 4000, nodes: 3, workers: 2})
	addrs := map[string]string{"postgres": c.pgAddr(), "registry": fmt.Sprintf("127.0.0.1:%d", c.port(18081))}
	for n := 1; n <= c.nodes; n++ {
		addrs[instance("kafka", n)] = fmt.Sprintf("127.0.0.1:%d", c.port(19092)+100*(n-1))
	}
	for n := 1; n <= c.workers; n++ {
		addrs[instance("connect", n)] = strings.TrimPrefix(c.workerURL(n), "http://")
	}
	for svc, addr := range addrs {
		conn, err := net.DialTimeout("tcp", addr, 3*time.Second)
		if err != nil {
			miss(fmt.Sprintf("cluster instance: %s does not answer at %s: %v (run `make stack-cluster-up`)", svc, addr, err))
		}
		conn.Close()
		if _, err := c.pid(svc); err != nil {
			miss(fmt.Sprintf("cluster instance: %v", err))
		}
	}
	return c
}

// lockCluster takes the cluster instance's fault lock (flock on
// cluster.lock in its directory) until the returned func: another test
// that kills or freezes the cluster's processes takes it too, so that two
// faults never overlap.
func (c *crashStack) lockCluster(t *testing.T) (unlock func()) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(c.dir, "cluster.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock the cluster instance: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("waited %s for the cluster lock (another test used the cluster)", d.Round(time.Millisecond))
	}
	return func() { f.Close() }
}

func (c *crashStack) admin(t *testing.T) *kafka.AdminClient {
	t.Helper()
	a, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": c.bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// leaderOf returns the broker (node id) that leads most of topic's
// partitions (partition 0's leader on a tie).
func (c *crashStack) leaderOf(t *testing.T, topic string) int {
	t.Helper()
	led := map[int]int{}
	best := -1
	for _, p := range c.describe(t, topic).Partitions {
		if p.Leader == nil {
			continue
		}
		led[p.Leader.ID]++
		if best < 0 || led[p.Leader.ID] > led[best] {
			best = p.Leader.ID
		}
	}
	if best < 0 {
		t.Fatalf("%s has no partition leader", topic)
	}
	return best
}

// waitFullISR waits until every partition of topics (and of the cluster's
// internal topics) has all its replicas in sync again, so that the next
// fault starts from a healthy cluster (min.insync.replicas=2 of 3 allows
// one broker out, not two).
func (c *crashStack) waitFullISR(t *testing.T, topics ...string) {
	t.Helper()
	topics = append(slices.Clone(topics), "__consumer_offsets", "__transaction_state", "_connect-configs", "_connect-offsets", "_connect-status")
	a := c.admin(t)
	defer a.Close()
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	var short []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := a.DescribeTopics(ctx, kafka.NewTopicCollectionOfTopicNames(topics))
		cancel()
		short = nil
		if err != nil {
			short = append(short, err.Error())
		} else {
			for _, d := range res.TopicDescriptions {
				if d.Error.Code() != kafka.ErrNoError {
					short = append(short, d.Name+": "+d.Error.String())
					continue
				}
				for _, p := range d.Partitions {
					if p.Leader == nil || len(p.Isr) < len(p.Replicas) {
						short = append(short, fmt.Sprintf("%s[%d] isr %d of %d", d.Name, p.Partition, len(p.Isr), len(p.Replicas)))
					}
				}
			}
		}
		if len(short) == 0 {
			t.Logf("every replica in sync %s after the restart", time.Since(start).Round(100*time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replicas not in sync 3 min after the restart: %v", short)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// taskWorker returns the worker (1-based) that runs the connector's task 0
// as seen by worker via, with its state, or 0 when there is none.
func (c *crashStack) taskWorker(via int, name string) (worker int, state string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, ok, err := itest.Status(ctx, c.workerURL(via), name)
	if err != nil || !ok || len(st.Tasks) == 0 {
		return 0, ""
	}
	for n := 1; n <= c.workers; n++ {
		if strings.HasSuffix(st.Tasks[0].WorkerID, fmt.Sprintf(":%d", c.port(18083)+100*(n-1))) {
			return n, st.Tasks[0].State
		}
	}
	return 0, st.Tasks[0].State
}

// waitTaskMoved waits until the task is RUNNING on a worker other than
// not, asking worker via; it returns that worker and how long it took
// since since.
func (c *crashStack) waitTaskMoved(t *testing.T, via, not int, name string, since time.Time, timeout time.Duration) (int, time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		w, state := c.taskWorker(via, name)
		// What the status endpoint tells meanwhile (doctor's view).
		if seen := fmt.Sprintf("worker %d %s", w, state); seen != last {
			t.Logf("task of %s: %s (%s after the kill)", name, seen, time.Since(since).Round(100*time.Millisecond))
			last = seen
		}
		if w != 0 && w != not && state == "RUNNING" {
			return w, time.Since(since)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task of %s did not run elsewhere than worker %d within %s (last: worker %d %s)", name, not, timeout, w, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readTopicIDs reads the whole topic back with read_committed (the
// records of aborted transactions are skipped, as the inbox consumer
// does) and counts how often each event id (header "id") occurs.
func (c *crashStack) readTopicIDs(t *testing.T, topic string) (records int, ids map[string]int) {
	t.Helper()
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": c.bootstrap(), "group.id": "crash-read-" + itest.Suffix(),
		"enable.auto.commit": false, "isolation.level": "read_committed", "enable.partition.eof": true})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var tps []kafka.TopicPartition
	for p := int32(0); p < partitions; p++ {
		tps = append(tps, kafka.TopicPartition{Topic: &topic, Partition: p, Offset: kafka.OffsetBeginning})
	}
	if err := cons.Assign(tps); err != nil {
		t.Fatal(err)
	}
	ids = map[string]int{}
	open := map[int32]bool{0: true, 1: true, 2: true, 3: true}
	deadline := time.Now().Add(2 * time.Minute)
	for len(open) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("reading %s back: partitions %v not read to their end in 2 min", topic, open)
		}
		switch ev := cons.Poll(200).(type) {
		case kafka.PartitionEOF:
			delete(open, ev.Partition)
		case *kafka.Message:
			if ev.TopicPartition.Error != nil {
				continue
			}
			records++
			id, _ := itest.Header(ev, "id")
			ids[strings.ToLower(strings.Trim(id, `"`))]++
		}
	}
	return records, ids
}

// clusterRow is one fault row of a cluster pipeline.
type clusterRow struct {
	s         *suite
	topicDups int // duplicate records in the topic before the row
	rows      *[]string
}

// recovery is the time from the fault (the moment it took effect: a killed
// process gone, a broker frozen) until, in every aggregate, the first event
// committed after the fault has its effect: the pipeline as a whole runs
// again (a fault that stops some partitions only shows there). worst is
// the longest commit-to-effect latency of the events committed since
// since: a stall anywhere in the row, wherever it was (a rolling restart
// has three).
func (s *suite) recovery(faultAt, since time.Time) (rec, worst time.Duration, err error) {
	firsts := s.commits.firstAfter(faultAt)
	if len(firsts) < aggregates {
		return 0, 0, fmt.Errorf("only %d of %d aggregates had an event committed after the fault", len(firsts), aggregates)
	}
	handled := map[string]time.Time{}
	rows, err := s.inboxDB.Query(`SELECT lower(event_id), min(at) FROM effects GROUP BY 1`)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			return 0, 0, err
		}
		handled[id] = at
	}
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	for agg, id := range firsts {
		at, ok := handled[id]
		if !ok {
			return 0, 0, fmt.Errorf("no effect of %s (%s)", id, agg)
		}
		rec = max(rec, at.Sub(faultAt))
	}
	s.commits.mu.Lock()
	defer s.commits.mu.Unlock()
	for _, e := range s.commits.entries {
		if at, ok := handled[e.id]; ok && !e.at.Before(since) {
			worst = max(worst, at.Sub(e.at))
		}
	}
	return rec, worst, nil
}

// run runs one fault reps times under load: hit applies it after a random
// 1-3 s and returns when it began, with a note for the report (which node
// it hit, say; may be empty); then the counts, the topic's duplicates and
// the time to recover make the row. eos rows must add no duplicate record
// to the topic.
func (r *clusterRow) run(name string, reps int, eos bool, hit func(rep int) (faultAt time.Time, note string)) {
	s := r.s
	if !selected(name) {
		return
	}
	for rep := 1; rep <= reps; rep++ {
		unlock := s.cs.lockCluster(s.t)
		since := time.Now()
		stop := make(chan struct{})
		done := s.load(stop)
		time.Sleep(time.Second + time.Duration(rand.IntN(2000))*time.Millisecond)
		start := time.Now()
		faultAt, note := hit(rep)
		fault := name
		if note != "" {
			fault += " (" + note + ")"
		}
		s.t.Logf("%s #%d: fault and recovery took %s", name, rep, time.Since(start).Round(time.Millisecond))
		c, skipped := s.measure(name, rep, stop, done, 3*time.Second, 3*time.Minute)
		unlock()
		rec, worst, err := s.recovery(faultAt, since)
		recText, worstText := fmt.Sprintf("%.1f s", rec.Seconds()), fmt.Sprintf("%.1f s", worst.Seconds())
		if err != nil {
			s.t.Errorf("%s #%d: time to recover: %v", name, rep, err)
			recText, worstText = "?", "?"
		}
		records, ids := s.cs.readTopicIDs(s.t, s.topic)
		dups := records - len(ids)
		added := dups - r.topicDups
		r.topicDups = dups
		s.t.Logf("%s #%d: time to recover %s, worst commit-to-effect latency %s; %d records in the topic, %d duplicates (%d added by the row)", fault, rep, recText, worstText, records, dups, added)
		*r.rows = append(*r.rows, fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s |", fault, rep, c.committed, c.distinct, c.lost, c.effects-c.distinct, c.reordered, skipped, added, recText, worstText))
		if eos && added != 0 {
			s.t.Errorf("%s #%d: the exactly-once connector wrote %d duplicate records to the topic (read_committed)", name, rep, added)
		}
		if s.t.Failed() {
			return
		}
	}
}

// freezeTarget is the node the freeze row stops: of the nodes that lead
// partitions of the outbox topic, the one with the most of the pipeline's
// coordinators (the consumer group's, in __consumer_offsets; the
// Connect task's transaction coordinator, in __transaction_state), else
// the one that leads most outbox partitions. It logs the node's roles,
// with the coordinator of the Connect workers' group (on the cluster
// instance, __consumer_offsets has one partition: the consumer group's
// coordinator is the workers' group's too).
func (c *crashStack) freezeTarget(t *testing.T, s *suite) int {
	t.Helper()
	group := c.coordinatorOf(t, s.group)
	txn := c.txnCoordinatorOf(t, "outboxctl-connect-"+s.connector+"-0")
	n, best := c.leaderOf(t, s.topic), -1
	for node := 1; node <= c.nodes; node++ {
		if !c.leads(t, s.topic, node) {
			continue
		}
		score := 0
		if node == group {
			score++
		}
		if node == txn {
			score++
		}
		if score > best {
			n, best = node, score
		}
	}
	t.Logf("freezing broker %d: leads outbox partitions; coordinators: the consumer group's broker %d, the Connect workers' group's broker %d, the task's transactions' broker %d",
		n, group, c.coordinatorOf(t, "outboxctl-connect"), txn)
	return n
}

// freezeFor is how long the freeze row keeps the broker stopped: 30 s, or
// OUTBOX_CRASH_FREEZE (a Go duration) to tell a wait for the resume from
// a 30 s timeout (the brokers' request.timeout.ms is 30 s by default).
func freezeFor(t *testing.T) time.Duration {
	v := os.Getenv("OUTBOX_CRASH_FREEZE")
	if v == "" {
		return 30 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("OUTBOX_CRASH_FREEZE=%q: want a positive Go duration such as 45s", v)
	}
	t.Logf("freezing for %s (OUTBOX_CRASH_FREEZE)", d)
	return d
}

// txnCoordinatorOf returns the node that leads the transactional id's
// partition of __transaction_state: its transaction coordinator.
func (c *crashStack) txnCoordinatorOf(t *testing.T, transactionalID string) int {
	t.Helper()
	d := c.describe(t, "__transaction_state")
	want := int(javaPartition(transactionalID, len(d.Partitions)))
	for _, p := range d.Partitions {
		if p.Partition == want && p.Leader != nil {
			return p.Leader.ID
		}
	}
	return 0
}

// clusterConsumerSession is the cluster rows' consumer session.timeout.ms.
const clusterConsumerSession = 15 * time.Second

// setupCluster sets up a pipeline on the cluster with its consumer running
// and warmed up; eos deploys the connector with exactly-once delivery.
func setupCluster(t *testing.T, cs *crashStack, eos bool) *suite {
	var extra map[string]string
	if eos {
		extra = map[string]string{"exactly.once.support": "required", "transaction.boundary": "poll"}
	}
	s := setupPipelineWith(t, cs, false, extra)
	s.commits = &commitLog{}
	// The consumer's session outlasts a failover of its group coordinator
	// (the broker fenced after broker.session.timeout.ms, 3.4-6.5 s
	// measured, then the new coordinator found): with the single-node
	// suite's 6 s, a kill of the coordinator's node made the consumer drop
	// its assignment and member id, and its rejoin then waited for its own
	// stale member to expire on the new coordinator (another 6 s):
	// TestClusterCrashSuite's leader kill took 9.6-13.4 s instead of
	// 5-7 s. See docs/production.md.
	// Static membership (group.instance.id): when the consumer drops its
	// assignment (its session ran out while its coordinator was frozen),
	// its rejoin replaces its former member at once instead of waiting
	// for that member to expire on the new coordinator (measured: 15 s,
	// the session, in the freeze row).
	s.consumerEnv = []string{"CRASH_SESSION_TIMEOUT_MS=" + fmt.Sprint(clusterConsumerSession.Milliseconds()), "CRASH_INSTANCE_ID=crash-consumer-" + s.sfx}
	s.startConsumer()
	t.Cleanup(s.stopConsumer)
	s.warmUp()
	return s
}

func TestClusterCrashSuite(t *testing.T) {
	cs := requireCluster(t)
	full := os.Getenv("OUTBOX_CRASH_FULL") != ""
	reps := map[string]int{"leader": 1, "worker": 1}
	if full {
		reps = map[string]int{"leader": 3, "worker": 3}
	}
	var rows []string
	s := setupCluster(t, cs, false)
	r := &clusterRow{s: s, rows: &rows}

	// The leader kill alternates: odd repetitions kill the active
	// controller (when it leads outbox partitions), even ones a node that
	// leads outbox partitions and is not the controller (the group's
	// coordinator when it is one). The short form kills the controller,
	// the harder case.
	r.run("kill -9 of the broker leading the outbox topic, restart", reps["leader"], false, func(rep int) (time.Time, string) {
		n, note := cs.leaderKillTarget(t, s, rep%2 == 1)
		hw0 := itest.HighWatermarks(t, cs.bootstrap(), s.topic, partitions)
		at := cs.signal(t, instance("kafka", n), syscall.SIGKILL, true) // the broker is gone
		t.Logf("killed broker %d (%s) at %s", n, note, at.UTC().Format("15:04:05.000"))
		stopTimeline := leaderTimeline(t, cs, s, n, at, hw0)
		time.Sleep(10 * time.Second)
		cs.up(t)
		stopTimeline()
		cs.waitFullISR(t, s.topic)
		return at, note
	})
	r.run("rolling restart of the 3 brokers", 1, false, func(int) (time.Time, string) {
		at := time.Now()
		for n := 1; n <= cs.nodes; n++ {
			cs.signal(t, instance("kafka", n), syscall.SIGTERM, true)
			cs.up(t)
			cs.waitFullISR(t, s.topic)
		}
		return at, ""
	})
	r.run("broker leading the outbox topic frozen (SIGSTOP) 30 s", 1, false, func(int) (time.Time, string) {
		n := cs.freezeTarget(t, s)
		hw0 := itest.HighWatermarks(t, cs.bootstrap(), s.topic, partitions)
		at := cs.signal(t, instance("kafka", n), syscall.SIGSTOP, false)
		t.Logf("froze broker %d at %s", n, at.UTC().Format("15:04:05.000"))
		// The same timeline as the leader kill's: whether the leaders move
		// while it is frozen, and which client waits for it.
		stopTimeline := leaderTimeline(t, cs, s, n, at, hw0)
		resumed := false
		defer func() {
			if !resumed {
				cs.signal(t, instance("kafka", n), syscall.SIGCONT, false)
			}
		}()
		time.Sleep(freezeFor(t))
		cs.signal(t, instance("kafka", n), syscall.SIGCONT, false)
		resumed = true
		t.Logf("broker %d resumed %.1f s after the freeze", n, time.Since(at).Seconds())
		time.Sleep(5 * time.Second)
		stopTimeline()
		cs.waitFullISR(t, s.topic)
		return at, ""
	})
	killWorker := func(s *suite) func(int) (time.Time, string) {
		return func(int) (time.Time, string) {
			w, _ := cs.taskWorker(1, s.connector)
			if w == 0 {
				t.Fatalf("no worker runs the task of %s", s.connector)
			}
			other := 3 - w
			at := cs.signal(t, instance("connect", w), syscall.SIGKILL, true) // the worker is gone
			moved, took := cs.waitTaskMoved(t, other, w, s.connector, at, 8*time.Minute)
			t.Logf("killed worker %d (ran the task); the task RUNNING on worker %d %s after the kill", w, moved, took.Round(100*time.Millisecond))
			cs.up(t)
			itest.WaitRunning(t, cs.workerURL(other), s.connector, 3*time.Minute)
			return at, fmt.Sprintf("task on the other worker after %.1f s", took.Seconds())
		}
	}
	// The instance's workers have exactly.once.source.support=enabled, so
	// they run this connector (no exactly.once.support) with a
	// transactional producer too: this row cannot show at-least-once
	// duplicates. TestClusterWorkerKillOffsetWindow does, on a worker
	// without exactly-once source support.
	r.run("kill -9 of the Connect worker running the task (connector without exactly.once.support)", reps["worker"], false, killWorker(s))
	r.run("kill -9 of both Connect workers during an open transaction, restart", 1, false, killBothWorkers(t, cs, s))
	if !t.Failed() && selected("exactly-once") {
		s.stopConsumer()
		e := setupCluster(t, cs, true)
		re := &clusterRow{s: e, rows: &rows}
		re.run("kill -9 of the Connect worker running the task (exactly-once connector)", reps["worker"], true, killWorker(e))
	}
	if out := os.Getenv("OUTBOX_CRASH_CLUSTER_REPORT"); out != "" {
		if err := os.WriteFile(out, []byte(clusterReportHeader+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
}
