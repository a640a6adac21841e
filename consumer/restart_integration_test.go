//go:build integration

package consumer_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestMain runs a consumer process instead of the tests when
// CONSUMER_HELPER_GROUP is set: TestRestartAfterKill9 starts this test
// binary as the consumer that it kills with SIGKILL.
func TestMain(m *testing.M) {
	if os.Getenv("CONSUMER_HELPER_GROUP") != "" {
		if err := runHelperConsumer(); err != nil {
			fmt.Fprintln(os.Stderr, "helper consumer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperConfig is the Consumer of the helper process and of the test's
// restarted consumer: the same group, topic and instance id.
func helperConfig(bootstrap, group, topic, instance string) consumer.ConsumerConfig {
	return consumer.ConsumerConfig{
		BootstrapServers: bootstrap, GroupID: group, Topics: []string{topic}, InstanceID: instance,
		CommitInterval: 100 * time.Millisecond,
		Kafka:          kafka.ConfigMap{"session.timeout.ms": 45000, "heartbeat.interval.ms": 1000},
	}
}

// runHelperConsumer consumes and prints "handled <id>" per record.
func runHelperConsumer() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		return err
	}
	if err := consumer.Handle(r, "Step", 1, func(_ context.Context, ev consumer.Event[Step]) error {
		fmt.Printf("handled %s\n", ev.EventID)
		return nil
	}); err != nil {
		return err
	}
	c, err := consumer.NewConsumer(helperConfig(os.Getenv("CONSUMER_HELPER_BOOTSTRAP"), os.Getenv("CONSUMER_HELPER_GROUP"),
		os.Getenv("CONSUMER_HELPER_TOPIC"), os.Getenv("CONSUMER_HELPER_INSTANCE")), r)
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// TestRestartAfterKill9: a consumer process killed with SIGKILL never
// leaves its group. Restarted with the same InstanceID (static
// membership) the next consumer handles the next record within seconds;
// without it, it waits for the dead member's session to time out, and
// says so in a WARN line naming session.timeout.ms and InstanceID.
func TestRestartAfterKill9(t *testing.T) {
	for _, static := range []bool{true, false} {
		t.Run(fmt.Sprintf("static=%v", static), func(t *testing.T) { testRestartAfterKill9(t, static) })
	}
}

func testRestartAfterKill9(t *testing.T, static bool) {
	s := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	topic, group := "outbox.event.Restart"+sfx, "restart-"+sfx
	instance := ""
	if static {
		instance = "restart-test-0"
	}
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	evs := events("rs"+sfx, 1, 2, 1, seqValue)
	produceEvents(t, s.BootstrapServers, topic, evs[:1])

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "CONSUMER_HELPER_GROUP="+group, "CONSUMER_HELPER_TOPIC="+topic,
		"CONSUMER_HELPER_BOOTSTRAP="+s.BootstrapServers, "CONSUMER_HELPER_INSTANCE="+instance)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	handled := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "handled "); ok {
				handled <- id
			}
		}
	}()
	select {
	case id := <-handled:
		if id != evs[0].id {
			t.Fatalf("helper handled %s, want %s", id, evs[0].id)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the helper consumer handled nothing within 60s")
	}
	time.Sleep(500 * time.Millisecond) // its offset committed
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	produceEvents(t, s.BootstrapServers, topic, evs[1:])

	logs := &syncBuffer{}
	var mu sync.Mutex
	var got []string
	var handledAt time.Time
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, consumer.Handle(r, "Step", 1, func(_ context.Context, ev consumer.Event[Step]) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev.EventID)
		if handledAt.IsZero() {
			handledAt = time.Now()
		}
		return nil
	}))
	cfg := helperConfig(s.BootstrapServers, group, topic, instance)
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	cfg.AssignmentWarnAfter = 3 * time.Second
	start := time.Now()
	run := runConsumer(t, cfg, r)
	first := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return handledAt
	}
	if static {
		waitFor(t, 10*time.Second, "the restarted static member handling the next record", func() bool { return !first().IsZero() })
		t.Logf("restarted static member handled the next record %s after its start", first().Sub(start).Round(time.Millisecond))
		mu.Lock()
		if len(got) != 1 || got[0] != evs[1].id {
			t.Errorf("handled %v, want [%s]", got, evs[1].id)
		}
		mu.Unlock()
	} else {
		const warn = "no partition assignment yet"
		waitFor(t, 10*time.Second, "a WARN line on the wait for the assignment", func() bool { return strings.Contains(logs.String(), warn) })
		if !first().IsZero() {
			t.Errorf("handled a record before the dead member's session timed out: the test does not reproduce the wait")
		}
		for _, want := range []string{"level=WARN", "session.timeout.ms=45000", "InstanceID", "group=" + group} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("log %q lacks %s", logs.String(), want)
			}
		}
	}
	if err := run.stop(t); err != nil {
		t.Errorf("Run = %v", err)
	}
	if !static {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
	}
}
