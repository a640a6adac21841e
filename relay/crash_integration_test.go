//go:build integration

package relay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/relay/internal/relayitest"
)

// relayProc is an `outboxctl relay` subprocess.
type relayProc struct {
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (p *relayProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.Write(b)
}

func (p *relayProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *relayProc) leader() bool { return strings.Contains(p.log(), "holding the lock") }

// TestRelayCrashAndStandbys runs relays as subprocesses while a writer
// inserts a steady stream of events for 8 aggregates: two relays at once
// (one active, one standby), the active one killed with SIGKILL while it
// publishes, a third one started, the new active one killed again. Every row
// must be published at least once, none lost, and per aggregate the events
// must first appear in writer order (duplicates from a takeover allowed).
func TestRelayCrashAndStandbys(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) { crashRun(t, sd) })
	}
}

func crashRun(t *testing.T, sd side) {
	f := newFixture(t, sd, nil)
	s := itest.Settings()
	bin := filepath.Join(t.TempDir(), "outboxctl")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/outboxctl").CombinedOutput(); err != nil {
		t.Fatalf("build outboxctl: %v\n%s", err, out)
	}
	// a topic with 3 partitions: aggregates spread over them
	f.onTopic(f.boot, 3)

	cfgPath := filepath.Join(t.TempDir(), "connector.json")
	b, _ := json.Marshal(map[string]any{"name": "crash", "config": f.conf})
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	dsn := settings.PostgresDSNWithDatabase(s.PostgresDSN, f.dbName)
	if sd.kind == eventrouter.MariaDB {
		dsn = s.MariaDBDSN
	}
	var procs []*relayProc
	start := func(name string) *relayProc {
		p := &relayProc{name: name}
		args := []string{"relay", "--config", cfgPath, "--dsn", dsn, "--bootstrap-servers", f.boot, "--poll-interval", "50ms", "--batch", "20", "--metrics-addr", "127.0.0.1:0"}
		if sd.kind == eventrouter.MariaDB {
			args = append(args, "--eventrouter-version", "3.5")
		}
		p.cmd = exec.Command(bin, args...)
		p.cmd.Stderr = p
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		return p
	}
	t.Cleanup(func() {
		for _, p := range procs {
			if p.cmd.ProcessState == nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		}
	})
	waitLeader := func(ps ...*relayProc) *relayProc {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			for _, p := range ps {
				if p.cmd.ProcessState == nil && p.leader() {
					return p
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, p := range ps {
			t.Logf("%s stderr:\n%s", p.name, p.log())
		}
		t.Fatal("no relay took the lock")
		return nil
	}
	kill := func(p *relayProc) {
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		t.Logf("%s killed with SIGKILL (%d rows still in the table)", p.name, f.count())
	}

	// the writer: 8 aggregates, a sequence number per aggregate
	const aggs, total = 8, 1600
	writer := f.writeSteady(aggs, total, 4*time.Millisecond)

	a, b2 := start("relay-1"), start("relay-2")
	first := waitLeader(a, b2)
	time.Sleep(1500 * time.Millisecond) // publishing under load
	kill(first)
	c := start("relay-3")
	second := waitLeader(a, b2, c)
	if second == first {
		t.Fatal("the killed relay is still the leader")
	}
	time.Sleep(1500 * time.Millisecond)
	kill(second)
	third := waitLeader(a, b2, c)
	written := <-writer

	deadline := time.Now().Add(60 * time.Second)
	for f.count() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d rows still unpublished after 60s; leader %s:\n%s", f.count(), third.name, third.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// the active relay's metrics
	if m := regexp.MustCompile(`metrics on (http://\S+)`).FindStringSubmatch(third.log()); m == nil {
		t.Errorf("%s logs no metrics address:\n%s", third.name, third.log())
	} else if resp, err := http.Get(m[1]); err != nil {
		t.Error(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		leader := regexp.MustCompile(`(?m)^outboxctl_relay_leader\{table="[^"]+"\} 1$`)
		published := regexp.MustCompile(`(?m)^outboxctl_relay_published_total\{table="[^"]+"\} [1-9]`)
		if !leader.Match(body) || !published.Match(body) {
			t.Errorf("metrics of the active relay:\n%s", body)
		}
	}
	for _, p := range procs {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			if err := p.cmd.Wait(); err != nil {
				t.Errorf("%s: exit after SIGTERM: %v\n%s", p.name, err, p.log())
			}
		}
	}

	d := f.checkDelivery(written, aggs)
	t.Logf("COUNTS %s: %s (relays started 3, killed 2 with SIGKILL)", sd.name, d)
}

// event is a row the writer inserted: the seq-th event of aggregate agg.
type event struct {
	id       string
	agg, seq int
}

// writeSteady inserts total events for aggs aggregates (key agg-<n>, in
// turn), one every gap, and sends them on the channel when done.
func (f *fixture) writeSteady(aggs, total int, gap time.Duration) <-chan []event {
	done := make(chan []event, 1)
	go func() {
		written := make([]event, 0, total)
		seq := make([]int, aggs)
		for i := 0; i < total; i++ {
			a := i % aggs
			e := event{id: itest.UUID(f.t), agg: a, seq: seq[a]}
			seq[a]++
			f.insert(f.db, e.id, "Order", fmt.Sprint("agg-", a), fmt.Sprintf(`{"agg": %d, "seq": %d}`, a, e.seq))
			written = append(written, e)
			time.Sleep(gap)
		}
		done <- written
	}()
	return done
}

// delivery is what checkDelivery counted.
type delivery struct{ written, records, distinct, dups, lost, disorder int }

func (d delivery) String() string {
	return fmt.Sprintf("written %d, records %d, distinct %d, duplicates %d, lost %d, order violations %d", d.written, d.records, d.distinct, d.dups, d.lost, d.disorder)
}

// checkDelivery reads the fixture's topic back: every written event must be
// there at least once (an error per lost one), and per aggregate the first
// occurrences must come in writer order (duplicates allowed).
func (f *fixture) checkDelivery(written []event, aggs int) delivery {
	t := f.t
	t.Helper()
	byID := map[string]event{}
	for _, e := range written {
		byID[e.id] = e
	}
	next := make([]int, aggs) // the next seq expected first per aggregate
	d := delivery{written: len(written)}
	seen := relayitest.ReadAll(t, f.boot, f.topic, len(written), func(m *kafka.Message, first bool) {
		d.records++
		id := header(m, "id")
		e, known := byID[id]
		switch {
		case !known:
			t.Errorf("record with unknown id %q", id)
		case first && e.seq != next[e.agg]:
			d.disorder++
			t.Errorf("aggregate %d: first seen seq %d, want %d (order lost)", e.agg, e.seq, next[e.agg])
			fallthrough
		case first:
			next[e.agg] = e.seq + 1
		}
	})
	d.distinct = len(seen)
	d.dups = d.records - d.distinct
	for _, e := range written {
		if seen[e.id] == 0 {
			d.lost++
		}
	}
	if d.lost > 0 {
		t.Errorf("%d events lost", d.lost)
	}
	return d
}

// onTopic routes the fixture to a new topic of partitions partitions on
// the brokers boot (the main stack's, or the fault instance's).
func (f *fixture) onTopic(boot string, partitions int) {
	f.boot = boot
	f.topic += fmt.Sprint(partitions)
	f.conf["transforms.outbox.route.topic.replacement"] = f.topic
	itest.CreateTopicN(f.t, boot, f.topic, partitions)
}
