//go:build integration

package relay_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
)

// TestRelayLeaderChangeKeepsAggregateOrder runs the relay on the cluster
// instance (3 brokers, the topic at replication factor 3) under a steady
// writer of 8 aggregates and moves the leadership of the topic's
// partitions: the broker leading partition 0 is frozen (SIGSTOP) until the
// controller has fenced it and another replica leads, then resumed. The
// broker is frozen rather than killed so that the test never restarts a
// process of the shared instance; for the producer it is the same (a
// leader that stops answering, then a new leader). The relay's idempotent
// producer retries into the new leader: every row is published, none
// twice, and per aggregate in writer order.
func TestRelayLeaderChangeKeepsAggregateOrder(t *testing.T) {
	c := itest.RequireCluster(t, itest.Kafka)
	f := newFixture(t, sides[0], nil)
	// The fixture's topic, at replication factor 3 (onTopic's has 1: no
	// other replica could lead).
	f.boot = c.BootstrapServers
	f.topic += "rf3"
	f.conf["transforms.outbox.route.topic.replacement"] = f.topic
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": c.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	{
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := admin.CreateTopics(cctx, []kafka.TopicSpecification{{Topic: f.topic, NumPartitions: 3, ReplicationFactor: 3, Config: map[string]string{"min.insync.replicas": "2"}}})
		cancel()
		if err != nil || res[0].Error.Code() != kafka.ErrNoError {
			t.Fatalf("create topic %s: %v %v", f.topic, err, res)
		}
		t.Cleanup(func() { itest.DeleteTopics(t, c.BootstrapServers, f.topic) })
	}
	r := f.relay(relay.Options{PollInterval: 50 * time.Millisecond, Batch: 20, MessageTimeout: 90 * time.Second})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(ctx) }()

	leadersVia := func(a *kafka.AdminClient) (map[int32]int32, map[int32]string) {
		md, err := a.GetMetadata(&f.topic, false, 5000)
		if err != nil {
			return nil, nil
		}
		out := map[int32]int32{}
		for _, p := range md.Topics[f.topic].Partitions {
			out[p.ID] = p.Leader
		}
		hosts := map[int32]string{}
		for _, b := range md.Brokers {
			hosts[b.ID] = fmt.Sprintf("%s:%d", b.Host, b.Port)
		}
		return out, hosts
	}
	leaders := func() (map[int32]int32, map[int32]string) { return leadersVia(admin) }
	before, hosts := leaders()
	old := before[0]
	pid := brokerPid(t, c, hosts[old])
	// While old is frozen, metadata is asked of the other nodes only: a
	// client that already talks to the frozen node may keep sending its
	// metadata request there, where it times out (the connection stays
	// open: the process is stopped, not gone).
	var others []string
	for id, h := range hosts {
		if id != old {
			others = append(others, h)
		}
	}
	live, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": strings.Join(others, ",")})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	const aggs, total = 8, 2400
	writer := f.writeSteady(aggs, total, 10*time.Millisecond)
	time.Sleep(2 * time.Second) // publishing under load
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP broker %d (pid %d): %v", old, pid, err)
	}
	frozen := time.Now()
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Errorf("SIGCONT broker %d (pid %d): %v", old, pid, err)
			}
		}
	}
	defer resume()
	var moved time.Duration
	for time.Since(frozen) < 60*time.Second {
		if now, _ := leadersVia(live); now != nil && now[0] != old && now[0] >= 0 {
			moved = time.Since(frozen)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if moved == 0 {
		resume()
		t.Fatalf("partition 0 still led by frozen broker %d after 60 s", old)
	}
	time.Sleep(2 * time.Second) // publishing to the new leader
	resume()
	written := <-writer

	deadline := time.Now().Add(120 * time.Second)
	for f.count() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d rows still unpublished 120s after the writer ended (stats %+v)", f.count(), r.Stats())
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	if err := <-runErr; err != nil {
		t.Fatalf("relay: %v", err)
	}
	st := r.Stats()
	d := f.checkDelivery(written, aggs)
	if d.dups != 0 || d.disorder != 0 || d.lost != 0 {
		t.Errorf("leader change: %s; want no duplicate, no loss, no order violation", d)
	}
	after, _ := leaders()
	t.Logf("COUNTS leader change: %s; partition 0 leader %d -> %d after %s frozen; leaders before %v, after %v; relay: published %d, failed attempts %d",
		d, old, after[0], moved.Round(100*time.Millisecond), before, after, st.Published, st.Failed)
}

// brokerPid is the pid of the cluster node listening at addr (node n at
// 19092 + offset + 100*(n-1); pid files run/kafka.pid, run/kafka-<n>.pid).
func brokerPid(t *testing.T, c *itest.ClusterStack, addr string) int {
	t.Helper()
	i := strings.LastIndex(addr, ":")
	port, err := strconv.Atoi(addr[i+1:])
	if err != nil {
		t.Fatalf("broker address %q: %v", addr, err)
	}
	n := (port-19092-c.Offset)/100 + 1
	file := "kafka.pid"
	if n > 1 {
		file = fmt.Sprintf("kafka-%d.pid", n)
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, "run", file))
	if err != nil {
		t.Fatalf("pid of broker %s (node %d): %v", addr, n, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
