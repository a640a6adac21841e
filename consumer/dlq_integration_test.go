//go:build integration

package consumer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestDLQTopicMissingFailsStart: a Consumer whose Router dead-letters to a
// topic that does not exist fails at Run's start with ErrDLQTopicMissing
// naming the topic (not at its first poison record, nor by having the
// broker auto-create it), and starts once the topic exists.
func TestDLQTopicMissingFailsStart(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.DLQCheck"+sfx, "dlqcheck-dlq-"+sfx, "dlqcheck-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic, dlqTopic) })
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	newRouter := func() *consumer.Router {
		r, err := consumer.NewRouter(consumer.RouterConfig{})
		if err != nil {
			t.Fatal(err)
		}
		must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: &consumertest.Producer{}}.Middleware))
		must(t, consumer.Handle(r, "Step", 1, func(context.Context, consumer.Event[Step]) error { return nil }))
		return r
	}
	cfg := consumer.ConsumerConfig{BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic}}
	c, err := consumer.NewConsumer(cfg, newRouter())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	err = c.Run(ctx)
	if !errors.Is(err, consumer.ErrDLQTopicMissing) || !strings.Contains(err.Error(), dlqTopic) {
		t.Fatalf("Run = %v, want ErrDLQTopicMissing naming %s", err, dlqTopic)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Run took %s to fail", d)
	}

	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	run := runConsumer(t, cfg, newRouter())
	time.Sleep(3 * time.Second)
	if err := run.stop(t); err != nil {
		t.Errorf("Run with the DLQ topic created = %v, want nil", err)
	}
}
