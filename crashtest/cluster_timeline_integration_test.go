//go:build integration

package crashtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// Where the time of a leader kill goes: the timeline follows, every
// 200 ms from the kill, who leads the outbox topic's partitions and the
// partitions of the coordinators the pipeline depends on (the consumer
// group's, in __consumer_offsets; the Connect task's transaction
// coordinator, in __transaction_state: the cluster's workers run source
// tasks transactionally; Connect's offsets topic), and when each outbox
// partition gets its first new record. The suite logs each step with its
// time since the kill; the time to recover (the consumer's side) ends it.

// javaPartition is Kafka's partition of a coordinator key:
// abs(String.hashCode()) % n.
func javaPartition(key string, n int) int32 {
	var h int32
	for _, r := range key {
		h = 31*h + int32(r)
	}
	return int32(int(h&0x7fffffff) % n)
}

type timeline struct {
	t    *testing.T
	at   time.Time
	mu   sync.Mutex
	seen map[string]time.Duration
	logs []string
	// committed: the consumer group's committed offsets at the last look.
	committed map[int32]kafka.Offset
}

func (tl *timeline) mark(ev string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if _, ok := tl.seen[ev]; ok {
		return
	}
	d := time.Since(tl.at)
	tl.seen[ev] = d
	tl.logs = append(tl.logs, fmt.Sprintf("+%5.1f s  %s", d.Seconds(), ev))
}

// leaderTimeline starts following the cluster after node killed was
// killed at at; hw0 are the outbox partitions' high watermarks just before
// the kill. stop ends it and logs the timeline.
func leaderTimeline(t *testing.T, cs *crashStack, s *suite, killed int, at time.Time, hw0 []int64) (stop func()) {
	tl := &timeline{t: t, at: at, seen: map[string]time.Duration{}}
	done := make(chan struct{})
	// The metadata quorum's leader as the live nodes wrote it (their
	// quorum-state files, every 100 ms, started first and apart from the
	// slower looks below, which can wait on the dead node): when the
	// killed node was the active controller, the election.
	quorumDone := make(chan struct{})
	go func() {
		defer close(quorumDone)
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			switch ctrl, epoch, err := cs.activeController(killed); {
			case err != nil:
			case ctrl == 0:
				tl.mark("no live node knows an active controller (an election)")
			case ctrl != killed:
				tl.mark(fmt.Sprintf("node %d active controller (epoch %d)", ctrl, epoch))
			}
		}
	}()
	// Fresh clients on the live nodes for each look: a client that knew
	// the killed node keeps its cached leaders (and its requests to it)
	// for longer than the step to measure.
	var live []string
	for n := 1; n <= cs.nodes; n++ {
		if n != killed {
			live = append(live, fmt.Sprintf("127.0.0.1:%d", cs.port(19092)+100*(n-1)))
		}
	}
	conf := func() *kafka.ConfigMap {
		return &kafka.ConfigMap{"bootstrap.servers": strings.Join(live, ","), "group.id": "crash-tl-" + itest.Suffix(), "log_level": 3}
	}
	a, err := kafka.NewAdminClient(conf())
	if err != nil {
		t.Fatal(err)
	}
	coord := map[string]int32{} // internal topic -> the pipeline's partition
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	res, err := a.DescribeTopics(ctx, kafka.NewTopicCollectionOfTopicNames([]string{"__consumer_offsets", "__transaction_state"}))
	cancel()
	if err == nil {
		for _, d := range res.TopicDescriptions {
			switch d.Name {
			case "__consumer_offsets":
				coord[d.Name] = javaPartition(s.group, len(d.Partitions))
			case "__transaction_state":
				// Connect's transactional id of task 0: <group.id>-<connector>-0.
				coord[d.Name] = javaPartition("outboxctl-connect-"+s.connector+"-0", len(d.Partitions))
			}
		}
	}
	a.Close()
	coord["_connect-offsets"] = 0
	what := map[string]string{"__consumer_offsets": "the consumer group's coordinator", "__transaction_state": "the task's transaction coordinator", "_connect-offsets": "Connect's offsets topic"}
	// A read_committed reader from the kill's high watermarks, on every
	// node as the pipeline's consumer: when records are readable (their
	// transactions committed) apart from the consumer group.
	probe, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": cs.bootstrap(), "group.id": "crash-tl-" + itest.Suffix(),
		"isolation.level": "read_committed", "enable.auto.commit": false, "log_level": 3})
	if err != nil {
		t.Fatal(err)
	}
	var tps []kafka.TopicPartition
	for p := int32(0); p < partitions; p++ {
		tps = append(tps, kafka.TopicPartition{Topic: &s.topic, Partition: p, Offset: kafka.Offset(hw0[p])})
	}
	if err := probe.Assign(tps); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	probeDone := make(chan struct{})
	go func() {
		defer close(probeDone)
		read := map[int32]bool{}
		for {
			select {
			case <-done:
				return
			default:
			}
			m, ok := probe.Poll(50).(*kafka.Message)
			if ok && m.TopicPartition.Error == nil {
				// Connect is back when an event committed after the
				// fault is in the topic, readable with read_committed.
				id, _ := itest.Header(m, "id")
				if c, ok := s.commits.committedAt(strings.Trim(id, `"`)); ok && !c.Before(at) {
					tl.mark("Connect: first event committed after the fault readable with read_committed")
				}
			}
			if ok && m.TopicPartition.Error == nil && !read[m.TopicPartition.Partition] {
				read[m.TopicPartition.Partition] = true
				tl.mark(fmt.Sprintf("%s[%d] first record read with read_committed (not the consumer group)", s.topic, m.TopicPartition.Partition))
				if len(read) == partitions {
					tl.mark("every outbox partition read with read_committed")
				}
			}
		}
	}()
	go func() {
		defer close(stopped)
		wasLed := map[string]bool{}
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			a, err := kafka.NewAdminClient(conf())
			if err != nil {
				continue
			}
			cons, err := kafka.NewConsumer(conf())
			if err != nil {
				a.Close()
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			res, err := a.DescribeTopics(ctx, kafka.NewTopicCollectionOfTopicNames([]string{s.topic, "__consumer_offsets", "__transaction_state", "_connect-offsets"}))
			cancel()
			if err != nil {
				tl.mark("describe failed: " + err.Error())
			}
			if err == nil {
				tl.mark("first answer of the live nodes")
				moved := 0
				for _, d := range res.TopicDescriptions {
					for _, p := range d.Partitions {
						key := fmt.Sprintf("%s[%d]", d.Name, p.Partition)
						if d.Name != s.topic && coord[d.Name] != int32(p.Partition) {
							continue
						}
						if d.Name == s.topic && p.Leader != nil && p.Leader.ID != killed {
							moved++
						}
						if p.Leader != nil {
							tl.mark(fmt.Sprintf("first look: %s led by node %d", key, p.Leader.ID))
						}
						if p.Leader == nil || p.Leader.ID == killed {
							wasLed[key] = true
							continue
						}
						if wasLed[key] {
							label := key
							if w := what[d.Name]; w != "" {
								label += " (" + w + ")"
							}
							tl.mark(fmt.Sprintf("%s led by node %d", label, p.Leader.ID))
						}
					}
					if d.Name == s.topic && moved == len(d.Partitions) {
						tl.mark("every outbox partition led by a live node")
					}
				}
			}
			grown := 0
			for p := int32(0); p < partitions; p++ {
				_, hi, err := cons.QueryWatermarkOffsets(s.topic, p, 1000)
				if err != nil {
					tl.mark(fmt.Sprintf("watermark of [%d] failed: %v", p, err))
				}
				if err == nil && hi > hw0[p] {
					tl.mark(fmt.Sprintf("%s[%d] first new record", s.topic, p))
					grown++
				}
			}
			if grown == partitions {
				tl.mark("every outbox partition has new records")
			}
			tl.consumerSide(s, strings.Join(live, ","), at)
			cons.Close()
			a.Close()
		}
	}()
	return func() {
		close(done)
		<-stopped
		<-probeDone
		<-quorumDone
		probe.Close()
		tl.mu.Lock()
		defer tl.mu.Unlock()
		slices.Sort(tl.logs)
		t.Logf("node %d killed or frozen: timeline from the fault:\n%s", killed, joinLines(tl.logs))
	}
}

// consumerSide marks when the pipeline's consumer group is back: the
// first event committed after the fault that has its effect (the handler
// ran), the same for every aggregate (the row's time to recover), and the
// group's first offset commit that moves (the coordinator answers the
// consumer again).
func (tl *timeline) consumerSide(s *suite, bootstrap string, at time.Time) {
	firsts := s.commits.firstAfter(at)
	if len(firsts) > 0 {
		ids := make([]string, 0, len(firsts))
		for _, id := range firsts {
			ids = append(ids, id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var n int
		err := s.inboxDB.QueryRowContext(ctx, `SELECT count(DISTINCT lower(event_id)) FROM effects WHERE lower(event_id) = ANY($1)`, ids).Scan(&n)
		cancel()
		if err == nil && n > 0 {
			tl.mark("consumer: first event committed after the fault handled")
		}
		if err == nil && n == aggregates && len(firsts) == aggregates {
			tl.mark("consumer: every aggregate's first event after the fault handled (time to recover)")
		}
	}
	tps := make([]kafka.TopicPartition, partitions)
	for p := range tps {
		tps[p] = kafka.TopicPartition{Topic: &s.topic, Partition: int32(p)}
	}
	// A client of the pipeline's group that does not join it: it reads
	// the group's committed offsets from its coordinator.
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": bootstrap, "group.id": s.group, "log_level": 3})
	if err != nil {
		return
	}
	defer cons.Close()
	committed, err := cons.Committed(tps, 1000)
	if err != nil {
		return
	}
	tl.mu.Lock()
	prev := tl.committed
	tl.committed = map[int32]kafka.Offset{}
	for _, tp := range committed {
		tl.committed[tp.Partition] = tp.Offset
	}
	tl.mu.Unlock()
	for _, tp := range committed {
		if old, ok := prev[tp.Partition]; ok && tp.Offset > old {
			tl.mark("consumer group: first offset commit after the fault")
		}
	}
}

func joinLines(l []string) string {
	out := ""
	for _, s := range l {
		out += "    " + s + "\n"
	}
	return out
}

// coordinatorOf returns the node that leads the consumer group's partition
// of __consumer_offsets: the group's coordinator.
func (c *crashStack) coordinatorOf(t *testing.T, group string) int {
	t.Helper()
	d := c.describe(t, "__consumer_offsets")
	want := int(javaPartition(group, len(d.Partitions)))
	for _, p := range d.Partitions {
		if p.Partition == want && p.Leader != nil {
			return p.Leader.ID
		}
	}
	return 0
}

// leads reports whether node leads a partition of topic.
func (c *crashStack) leads(t *testing.T, topic string, node int) bool {
	t.Helper()
	for _, p := range c.describe(t, topic).Partitions {
		if p.Leader != nil && p.Leader.ID == node {
			return true
		}
	}
	return false
}

func (c *crashStack) describe(t *testing.T, topic string) kafka.TopicDescription {
	t.Helper()
	a := c.admin(t)
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := a.DescribeTopics(ctx, kafka.NewTopicCollectionOfTopicNames([]string{topic}))
	if err != nil {
		t.Fatalf("describe %s: %v", topic, err)
	}
	return res.TopicDescriptions[0]
}
