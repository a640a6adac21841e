//go:build integration

package crashtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// The cluster's nodes are combined KRaft broker+controller nodes: the
// leader of the metadata quorum is the active controller. A kill of that
// node costs an election before the dead node is fenced (and the new
// controller starts every broker's session afresh), so the leader-kill row
// alternates between the active controller and a node that only leads
// outbox partitions, and says which one it killed.

// quorumState is what a node last wrote of the metadata quorum
// (data/<node>/__cluster_metadata-0/quorum-state, rewritten by the node on
// every change of leader or epoch).
type quorumState struct {
	LeaderID    int `json:"leaderId"`
	LeaderEpoch int `json:"leaderEpoch"`
}

// kafkaData is node n's data directory (stack.sh's kafka_data).
func (c *crashStack) kafkaData(n int) string {
	if n == 1 {
		return filepath.Join(c.dir, "data", "kafka")
	}
	return filepath.Join(c.dir, "data", fmt.Sprintf("kafka-%d", n))
}

// activeController returns the metadata quorum's leader (the active
// controller) and its epoch as the nodes other than skip (0: none) last
// wrote it: the highest epoch with a known leader. It returns 0 when none
// knows a leader.
func (c *crashStack) activeController(skip int) (node, epoch int, err error) {
	for n := 1; n <= c.nodes; n++ {
		if n == skip {
			continue
		}
		b, rerr := os.ReadFile(filepath.Join(c.kafkaData(n), "__cluster_metadata-0", "quorum-state"))
		if rerr != nil {
			err = rerr
			continue
		}
		var q quorumState
		if jerr := json.Unmarshal(b, &q); jerr != nil {
			err = fmt.Errorf("quorum-state of node %d: %w", n, jerr)
			continue
		}
		if q.LeaderID > 0 && q.LeaderEpoch > epoch {
			node, epoch = q.LeaderID, q.LeaderEpoch
		}
	}
	if node > 0 {
		err = nil
	}
	return node, epoch, err
}

// leaderKillTarget picks the node the leader-kill row kills: with
// controller, the active controller when it leads outbox partitions;
// otherwise a node that leads outbox partitions and is not the active
// controller, the consumer group's coordinator when it is one of them
// (the worst case among those). note says what the node was.
func (c *crashStack) leaderKillTarget(t *testing.T, s *suite, controller bool) (node int, note string) {
	t.Helper()
	ctrl, epoch, err := c.activeController(0)
	if err != nil || ctrl == 0 {
		t.Fatalf("the active controller: none found in the nodes' quorum-state (%v)", err)
	}
	coord := c.coordinatorOf(t, s.group)
	led := map[int]int{}
	for _, p := range c.describe(t, s.topic).Partitions {
		if p.Leader != nil {
			led[p.Leader.ID]++
		}
	}
	t.Logf("active controller: node %d (epoch %d); consumer group coordinator: node %d; outbox partitions led per node: %v", ctrl, epoch, coord, led)
	pick := func(n int) (int, string) {
		var what []string
		if n == ctrl {
			what = append(what, "the active controller")
		} else {
			what = append(what, "not the controller")
		}
		what = append(what, fmt.Sprintf("leader of %d of %d partitions", led[n], partitions))
		if n == coord {
			what = append(what, "the group coordinator")
		}
		return n, strings.Join(what, ", ")
	}
	if controller && led[ctrl] > 0 {
		return pick(ctrl)
	}
	if controller {
		t.Logf("the active controller (node %d) leads no outbox partition: killing another leader", ctrl)
	}
	best := 0
	for n := 1; n <= c.nodes; n++ {
		if n == ctrl || led[n] == 0 {
			continue
		}
		if n == coord {
			return pick(n)
		}
		if best == 0 || led[n] > led[best] {
			best = n
		}
	}
	if best == 0 {
		t.Logf("the active controller (node %d) leads every outbox partition: killing it", ctrl)
		return pick(ctrl)
	}
	return pick(best)
}

// openTransactions returns, per partition of topic whose last stable
// offset (what read_committed readers may read up to) is below its high
// watermark, the two: a transaction is open there.
func (c *crashStack) openTransactions(topic string, parts int32) (map[int32][2]int64, error) {
	water := func(isolation string) (map[int32]int64, error) {
		cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": c.bootstrap(), "group.id": "crash-lso-" + itest.Suffix(),
			"isolation.level": isolation, "log_level": 3})
		if err != nil {
			return nil, err
		}
		defer cons.Close()
		out := map[int32]int64{}
		for p := int32(0); p < parts; p++ {
			// librdkafka's ListOffsets asks with the client's isolation
			// level: read_committed answers the last stable offset.
			_, hi, err := cons.QueryWatermarkOffsets(topic, p, 5000)
			if err != nil {
				return nil, fmt.Errorf("watermarks of %s[%d] (%s): %w", topic, p, isolation, err)
			}
			out[p] = hi
		}
		return out, nil
	}
	lso, err := water("read_committed")
	if err != nil {
		return nil, err
	}
	hw, err := water("read_uncommitted")
	if err != nil {
		return nil, err
	}
	open := map[int32][2]int64{}
	for p, l := range lso {
		if l < hw[p] {
			open[p] = [2]int64{l, hw[p]}
		}
	}
	return open, nil
}

// killBothWorkers is the both-workers row's fault: it freezes (SIGSTOP)
// the worker running the task until one of the task's transactions is
// open in the outbox topic and in Connect's offsets topic (their last
// stable offsets stay below their high watermarks), then kills both
// workers with kill -9 and restarts them. The open transaction of the
// dead task holds back every read_committed reader of those partitions
// (the inbox consumer, and the restarted workers' read of their offsets
// topic, which comes before they join the group) until the transaction
// coordinator aborts it after the transaction's timeout: the row logs
// when the workers answer and when the transaction is resolved.
func killBothWorkers(t *testing.T, cs *crashStack, s *suite) func(int) (time.Time, string) {
	return func(int) (time.Time, string) {
		w, _ := cs.taskWorker(1, s.connector)
		if w == 0 {
			t.Fatalf("no worker runs the task of %s", s.connector)
		}
		var open, offsets map[int32][2]int64
		for attempt := 1; ; attempt++ {
			cs.signal(t, instance("connect", w), syscall.SIGSTOP, false)
			time.Sleep(300 * time.Millisecond)
			first, err := cs.openTransactions(s.topic, partitions)
			if err == nil {
				time.Sleep(time.Second)
				open, err = cs.openTransactions(s.topic, partitions)
			}
			if err == nil {
				offsets, err = cs.openTransactions("_connect-offsets", 1)
			}
			// The worst case: the open transaction holds the task's source
			// offsets too (written at the end of each poll's transaction,
			// before its commit), which the restarted workers read with
			// read_committed before they join the group.
			if err == nil && len(open) > 0 && len(offsets) > 0 && fmt.Sprint(open) == fmt.Sprint(first) {
				t.Logf("worker %d frozen (attempt %d) with a transaction open: outbox partitions' [LSO HW] %v, _connect-offsets %v", w, attempt, open, offsets)
				break
			}
			cs.signal(t, instance("connect", w), syscall.SIGCONT, false)
			if err != nil {
				t.Fatal(err)
			}
			if attempt == 30 {
				t.Fatalf("no open transaction of the task holding outbox records and source offsets seen in %d freezes of worker %d", attempt, w)
			}
			time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
		}
		cs.signal(t, instance("connect", w), syscall.SIGKILL, true)
		at := cs.signal(t, instance("connect", 3-w), syscall.SIGKILL, true) // both workers are gone
		t.Logf("killed worker %d (frozen, ran the task) and worker %d at %s", w, 3-w, at.UTC().Format("15:04:05.000"))
		tl := &timeline{t: t, at: at, seen: map[string]time.Duration{}}
		const resolvedMark = "the open transaction resolved: every outbox partition's LSO at or past its HW at the freeze"
		stop := pollLoop(500*time.Millisecond, func() {
			now, err := cs.openTransactions(s.topic, partitions)
			resolved := 0
			if err != nil {
				resolved = -1
			}
			for p, was := range open {
				if cur, ok := now[p]; !ok || cur[0] >= was[1] {
					resolved++
				}
			}
			if resolved == len(open) {
				tl.mark(resolvedMark)
			}
			for n := 1; n <= cs.workers; n++ {
				if st, ok := cs.workerState(n, s.connector); ok {
					tl.mark(fmt.Sprintf("worker %d answers REST (task: %s)", n, st))
					if strings.HasPrefix(st, "RUNNING") {
						tl.mark(fmt.Sprintf("worker %d reports the task %s", n, st))
					}
				}
			}
		})
		cs.up(t)
		itest.WaitRunning(t, cs.connectURL(), s.connector, 3*time.Minute)
		note := fmt.Sprintf("transaction open in %d outbox partitions and _connect-offsets", len(open))
		// Leave the timeline running until the open transaction is gone.
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
			tl.mu.Lock()
			_, ok := tl.seen[resolvedMark]
			tl.mu.Unlock()
			if ok {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		stop()
		tl.mu.Lock()
		slices.Sort(tl.logs)
		t.Logf("both workers killed: timeline from the kill:\n%s", joinLines(tl.logs))
		tl.mu.Unlock()
		return at, note
	}
}

// workerState is the state of the connector's task 0 as worker n answers
// it, with the worker that runs it; ok is false when the worker does not
// answer.
func (c *crashStack) workerState(n int, name string) (state string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, found, err := itest.Status(ctx, c.workerURL(n), name)
	if err != nil {
		return "", false
	}
	if !found {
		return "connector unknown (404)", true
	}
	if len(st.Tasks) == 0 {
		return "no task", true
	}
	return st.Tasks[0].State + " on " + st.Tasks[0].WorkerID, true
}
