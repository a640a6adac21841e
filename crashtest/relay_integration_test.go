//go:build integration

package crashtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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
	"github.com/outboxctl/outboxctl/spec"
)

// reportHeader is the crash table's header. The connector rows count
// effects; the relay rows also count the records in the topic.
const reportHeader = "| fault | repetition | committed (cumulative) | handled effects | lost | duplicate effects | reordered | redeliveries skipped by the inbox | duplicate records in the topic (relay rows: added by the row) |\n" +
	"|---|---|---|---|---|---|---|---|---|\n"

// cdcRows are the connector rows with the relay's last column empty.
func cdcRows(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r + " – |"
	}
	return out
}

// gateKey is the advisory lock (two-int4 form, apart from the relay's
// bigint lock) that the outbox table's DELETE trigger waits on: holding it
// stops the relay between the broker's acknowledgement and its DELETE.
const gateKey = "1, 1"

// relayProc is an `outboxctl relay` subprocess.
type relayProc struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	out    bytes.Buffer
	file   io.Writer
}

func (p *relayProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.file.Write(b) // the log file is for reading after a failure
	return p.out.Write(b)
}

func (p *relayProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *relayProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// leader: it logged taking the outbox's lock (a relay that loses it, its
// session ended, logs going back to standby; the suite never does that but
// by killing it).
func (p *relayProc) leader() bool {
	return p.alive() && strings.Contains(p.log(), "holding the lock")
}

// relaySuite is the pipeline of the relay rows: the writer under load, two
// `outboxctl relay` processes (a leader and a standby) publishing the
// outbox table as the connector would, the consumer process with the inbox.
type relaySuite struct {
	*suite
	bin, cfgPath, dsn, db string
	logDir                string
	procs                 []*relayProc
	started               int
	gate                  *sql.Conn
	dupRecords            int    // duplicate records in the topic, up to the last row
	debug                 string // a producer config with librdkafka debug contexts (OUTBOX_CRASH_RELAY_DEBUG)
}

// relayFaults runs the relay rows of the crash table on a pipeline of
// their own (no connector): kill -9 of the relay leader under load at the
// window after the broker acknowledged a batch and before the relay deleted
// its rows, with a standby that takes over, and a restart of the Kafka
// broker under the relay. It returns the rows.
func relayFaults(t *testing.T, cs *crashStack, full bool) []string {
	reps := map[string]int{"kill": 1, "kafka": 1}
	if full {
		reps = map[string]int{"kill": 5, "kafka": 2}
	}
	var rows []string
	t.Run("relay", func(t *testing.T) {
		r := setupRelay(t, cs)
		r.startConsumer()
		defer r.stopConsumer()
		r.startRelay()
		r.waitLeader(nil)
		r.startRelay() // the standby
		r.warmUp()
		r.fault("relay: kill -9 leader after ack, before delete (standby takes over)", reps["kill"], true, func(int) { r.killLeader() })
		r.fault("relay: restart Kafka broker", reps["kafka"], false, func(int) {
			cs.signal(t, "kafka", syscall.SIGTERM, true)
			cs.up(t)
		})
		rows = r.rows
	})
	return rows
}

func setupRelay(t *testing.T, cs *crashStack) *relaySuite {
	s := setupPipeline(t, cs, true)
	r := &relaySuite{suite: s, db: "crash_" + s.sfx, dsn: cs.pgDSN("crash_" + s.sfx), logDir: t.TempDir()}
	if d := os.Getenv("OUTBOX_CRASH_LOG_DIR"); d != "" {
		r.logDir = d
	}
	s.committedTable = "crash_committed"
	col := map[string]string{}
	for _, c := range s.o.ColumnContract() {
		col[c.Role] = c.Name
	}
	ctx := context.Background()
	for _, q := range []string{
		// The relay deletes what it published: a trigger keeps the ids of
		// the committed events, in the writer's transaction.
		`CREATE TABLE crash_committed (id text PRIMARY KEY, aggregate_type text NOT NULL)`,
		fmt.Sprintf(`CREATE FUNCTION crash_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO crash_committed VALUES (lower(NEW.%q::text), NEW.%q); RETURN NEW; END $$`, col[spec.RoleID], col[spec.RoleAggregateType]),
		fmt.Sprintf(`CREATE TRIGGER crash_committed AFTER INSERT ON %q.%q FOR EACH ROW EXECUTE FUNCTION crash_committed()`, s.o.Schema, s.o.Table),
		// The gate: a DELETE of the outbox waits while the suite holds the
		// advisory lock gateKey.
		`CREATE FUNCTION crash_gate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_advisory_xact_lock_shared(` + gateKey + `); RETURN NULL; END $$`,
		fmt.Sprintf(`CREATE TRIGGER crash_gate BEFORE DELETE ON %q.%q FOR EACH STATEMENT EXECUTE FUNCTION crash_gate()`, s.o.Schema, s.o.Table),
		// A session whose client is gone ends within 100 ms, even while
		// its statement waits on a lock (as it would on a TCP reset or
		// keepalive): the killed relay's DELETE rolls back.
		fmt.Sprintf(`ALTER DATABASE %q SET client_connection_check_interval = '100ms'`, r.db),
	} {
		if _, err := s.outDB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var err error
	if r.gate, err = s.outDB.Conn(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.gate.Close() })

	r.bin = filepath.Join(t.TempDir(), "outboxctl")
	build := exec.Command("go", "build", "-o", r.bin, "./cmd/outboxctl")
	build.Dir = cs.repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build outboxctl: %v\n%s", err, out)
	}
	// OUTBOX_CRASH_RELAY_DEBUG=eos,topic,broker,msg: the relays' producers
	// log those librdkafka debug contexts (into their logs, see
	// OUTBOX_CRASH_LOG_DIR), to look into a relay that stops publishing.
	if d := os.Getenv("OUTBOX_CRASH_RELAY_DEBUG"); d != "" {
		r.debug = filepath.Join(t.TempDir(), "producer.properties")
		if err := os.WriteFile(r.debug, []byte("debug="+d+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.cfgPath = filepath.Join(t.TempDir(), "connector.json")
	b, err := json.Marshal(map[string]any{"name": s.o.Name, "config": s.conf})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.stopRelays)
	return r
}

// startRelay starts an `outboxctl relay` process; it takes the lock if it
// is free, else stands by.
func (r *relaySuite) startRelay() *relayProc {
	t := r.t
	t.Helper()
	r.started++
	p := &relayProc{name: fmt.Sprintf("relay-%d", r.started), exited: make(chan struct{})}
	f, err := os.Create(filepath.Join(r.logDir, fmt.Sprintf("relay-%s-%d.log", r.sfx, r.started)))
	if err != nil {
		t.Fatal(err)
	}
	p.file = f
	args := []string{"relay", "--config", r.cfgPath, "--dsn", r.dsn, "--bootstrap-servers", r.cs.bootstrap(), "--poll-interval", "50ms", "--batch", "20"}
	if r.debug != "" {
		args = append(args, "--producer-config", r.debug)
	}
	p.cmd = exec.Command(r.bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); f.Close(); close(p.exited) }()
	r.procs = append(r.procs, p)
	return p
}

// waitLeader waits until a relay other than not holds the lock.
func (r *relaySuite) waitLeader(not *relayProc) *relayProc {
	t := r.t
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, p := range r.procs {
			if p != not && p.leader() {
				return p
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range r.procs {
		t.Logf("%s (alive %v):\n%s", p.name, p.alive(), p.log())
	}
	t.Fatal("no relay holds the lock after 30 s")
	return nil
}

func (r *relaySuite) stopRelays() {
	for _, p := range r.procs {
		if p.alive() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.exited:
			case <-time.After(40 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.exited
			}
		}
	}
}

// killLeader kills the leader with SIGKILL while its DELETE of a batch the
// broker acknowledged waits at the gate; once the database ended the dead
// relay's session (the DELETE rolled back, the lock free), it opens the
// gate. The standby takes the lock and publishes the batch again; a new
// standby is started.
func (r *relaySuite) killLeader() {
	t := r.t
	t.Helper()
	ctx := context.Background()
	leader := r.waitLeader(nil)
	if _, err := r.gate.ExecContext(ctx, `SELECT pg_advisory_lock(`+gateKey+`)`); err != nil {
		t.Fatal(err)
	}
	opened := false
	open := func() {
		if !opened {
			opened = true
			if _, err := r.gate.ExecContext(ctx, `SELECT pg_advisory_unlock(`+gateKey+`)`); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer open()
	var pid int
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := r.gate.QueryRowContext(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE 'DELETE %'`, r.db).Scan(&pid)
		if err == nil {
			break
		}
		if !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the leader %s did not reach its DELETE within 20 s:\n%s", leader.name, leader.log())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", leader.name, err)
	}
	<-leader.exited
	t.Logf("%s (pid %d) killed with SIGKILL while its DELETE (backend %d) waited after the broker's acknowledgement", leader.name, leader.cmd.Process.Pid, pid)
	for deadline := time.Now().Add(15 * time.Second); ; {
		var n int
		if err := r.gate.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed relay's session (backend %d) still runs 15 s after the kill", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	open()
	start := time.Now()
	next := r.waitLeader(leader)
	t.Logf("%s took the lock %s after the gate opened", next.name, time.Since(start).Round(time.Millisecond))
	r.startRelay()
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// readTopic reads the whole topic back: the records and how often each
// event id (header "id") occurs.
func (r *relaySuite) readTopic() (records int, ids map[string]int) {
	t := r.t
	t.Helper()
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": r.cs.bootstrap(), "group.id": "crash-read-" + itest.Suffix(), "enable.auto.commit": false})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	end := map[int32]int64{}
	var tps []kafka.TopicPartition
	for p := int32(0); p < partitions; p++ {
		low, high, err := c.QueryWatermarkOffsets(r.topic, p, 30000)
		if err != nil {
			t.Fatalf("watermarks of %s [%d]: %v", r.topic, p, err)
		}
		if high > low {
			end[p] = high
			tps = append(tps, kafka.TopicPartition{Topic: &r.topic, Partition: p, Offset: kafka.Offset(low)})
		}
	}
	if err := c.Assign(tps); err != nil {
		t.Fatal(err)
	}
	ids = map[string]int{}
	deadline := time.Now().Add(time.Minute)
	for len(end) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("reading %s back: partitions %v not read to their end in 1 min", r.topic, end)
		}
		m, ok := c.Poll(200).(*kafka.Message)
		if !ok || m.TopicPartition.Error != nil {
			continue
		}
		records++
		id := ""
		for _, h := range m.Headers {
			if h.Key == "id" {
				id = strings.ToLower(strings.Trim(string(h.Value), `"`))
			}
		}
		ids[id]++
		if p := m.TopicPartition.Partition; int64(m.TopicPartition.Offset)+1 >= end[p] {
			delete(end, p)
		}
	}
	return records, ids
}

// settle is suite.settle for the relay rows: it also reads the topic back
// and counts the duplicate records; it returns those the row added.
func (r *relaySuite) settle(fault string, rep int, stopLoad chan struct{}, loadDone <-chan struct{}, tail, wait time.Duration) int {
	t := r.t
	t.Helper()
	c := r.awaitCounts(fault, rep, stopLoad, loadDone, tail, wait)
	records, ids := r.readTopic()
	dups := records - len(ids)
	added := dups - r.dupRecords
	r.dupRecords = dups
	b, _ := os.ReadFile(r.logFile)
	skipped := strings.Count(string(b), duplicateMsg)
	r.rows = append(r.rows, fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d | %d |", fault, rep, c.committed, c.distinct, c.lost, c.effects-c.distinct, c.reordered, skipped-r.skipped, added))
	r.skipped = skipped
	t.Logf("%s #%d: committed %d, handled effects %d (distinct %d), lost %d, duplicate effects %d, reordered %d, foreign %d; topic: %d records of %d events, %d duplicate records (%d added by this row); redeliveries skipped by the inbox so far %d",
		fault, rep, c.committed, c.effects, c.distinct, c.lost, c.effects-c.distinct, c.reordered, c.foreign, records, len(ids), dups, added, skipped)
	if c.committed == 0 || c.lost != 0 || c.effects != c.committed || c.distinct != c.committed || c.reordered != 0 || c.foreign != 0 {
		t.Errorf("%s #%d: want every one of the %d committed events handled exactly once and in order; got %d effects of %d events, %d lost, %d reordered, %d foreign (consumer log: %s, relay logs in %s)",
			fault, rep, c.committed, c.effects, c.distinct, c.lost, c.reordered, c.foreign, r.logFile, r.logDir)
	}
	if len(ids) != c.committed {
		t.Errorf("%s #%d: the topic holds %d distinct events, want the %d committed", fault, rep, len(ids), c.committed)
	}
	if t.Failed() {
		for _, p := range r.procs {
			if p.alive() {
				t.Logf("%s, last lines of its log:\n%s", p.name, lastLines(p.log(), 12))
			}
		}
	}
	return added
}

// fault runs one relay fault under load, as suite.fault. With republish,
// each repetition must add duplicate records to the topic: the kill hit
// the window between the acknowledgement and the DELETE, and the standby
// published the batch again (at least once); the inbox keeps the effects
// exactly once.
func (r *relaySuite) fault(name string, reps int, republish bool, hit func(rep int)) {
	if !selected(name) { // OUTBOX_CRASH_ONLY, as for the CDC rows
		return
	}
	for rep := 1; rep <= reps; rep++ {
		stop := make(chan struct{})
		done := r.load(stop)
		time.Sleep(time.Second + time.Duration(rand.IntN(2000))*time.Millisecond)
		start := time.Now()
		hit(rep)
		r.t.Logf("%s #%d: fault and recovery took %s", name, rep, time.Since(start).Round(time.Millisecond))
		added := r.settle(name, rep, stop, done, 3*time.Second, 3*time.Minute)
		if republish && added == 0 {
			r.t.Errorf("%s #%d: no duplicate record in the topic: the standby did not publish the killed leader's acknowledged batch again (window missed)", name, rep)
		}
		if r.t.Failed() {
			return
		}
	}
}

// warmUp writes events until the first effect appears: the relay publishes
// and the consumer has its partitions.
func (r *relaySuite) warmUp() {
	stop := make(chan struct{})
	done := r.load(stop)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var n int
		if err := r.inboxDB.QueryRow(`SELECT count(*) FROM effects`).Scan(&n); err != nil {
			r.t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			<-done
			b, _ := os.ReadFile(r.logFile)
			r.t.Fatalf("no effect within 2 min of load: relay or consumer not working\nconsumer log:\n%s", b)
		}
		time.Sleep(200 * time.Millisecond)
	}
	r.settle("relay: warm-up", 1, stop, done, time.Second, time.Minute)
}
