//go:build integration

package consumer_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/dlq"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// TestDLQReplayByType: a consumer with a PostgreSQL inbox dead-letters
// every event while its handlers fail permanently (events of two types);
// once fixed, dlq.Replay re-publishes only the "Step" ones to the original
// topic, twice. Each replayed event is handled exactly once (the second
// replay's copies are inbox duplicates), the "Other" ones stay in the DLQ
// without effect, and a dry run produces nothing.
func TestDLQReplayByType(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.Replay"+sfx, "replay-dlq-"+sfx, "replay-"+sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, 2)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
		itest.DeleteTopics(t, s.BootstrapServers, topic, dlqTopic)
	})
	evs := events("replay"+sfx, 2, 6, 2, seqValue)
	var steps []event
	for i := range evs {
		if i%3 == 2 {
			evs[i].typ = "Other"
		} else {
			steps = append(steps, evs[i])
		}
	}
	produceEvents(t, s.BootstrapServers, topic, evs)

	db, store := effectsInbox(t, s.PostgresDSN, "replay_"+sfx)
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store})
	if err != nil {
		t.Fatal(err)
	}
	p := consumer.NewKafkaProducer(newProducer(t, s.BootstrapServers))
	must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: p}.Middleware, consumer.Retry{MaxAttempts: 2, InitialInterval: 10 * time.Millisecond}.Middleware))
	var broken atomic.Bool
	broken.Store(true)
	handle := func(ctx context.Context, ev consumer.Event[Step]) error {
		if broken.Load() {
			return consumer.Permanent(errors.New("handler broken"))
		}
		return insertEffect(ctx, ev)
	}
	must(t, consumer.Handle(r, "Step", 1, handle))
	must(t, consumer.Handle(r, "Other", 1, handle))
	stop := runFor(t, consumer.ConsumerConfig{
		BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic}, CommitInterval: 100 * time.Millisecond,
	}, r)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	}()
	waitFor(t, 60*time.Second, "every event dead-lettered", func() bool { return r.Stats().DeadLettered == int64(len(evs)) })
	broken.Store(false)

	opts := dlq.Options{
		Topic:  dlqTopic,
		Filter: dlq.Filter{Types: []string{"Step"}, Reasons: []string{"permanent"}, OriginalTopics: []string{topic}},
		Kafka:  kafkaclient.Config{BootstrapServers: s.BootstrapServers},
	}
	ctx := context.Background()
	dry := opts
	dry.DryRun = true
	rep, err := dlq.Replay(ctx, dry)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Read != len(evs) || rep.Selected != len(steps) || rep.Replayed != 0 || rep.ByType["Step"] != len(steps) || rep.ByTopic[topic] != len(steps) {
		t.Fatalf("dry run = %+v, want %d read, %d selected, none replayed", rep, len(evs), len(steps))
	}
	time.Sleep(time.Second)
	if st := r.Stats(); st.Handled != 0 {
		t.Fatalf("the dry run replayed: %+v", st)
	}
	for range 2 {
		rep, err := dlq.Replay(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Read != len(evs) || rep.Replayed != len(steps) || rep.Unreplayable != 0 {
			t.Fatalf("replay = %+v, want %d read, %d replayed", rep, len(evs), len(steps))
		}
	}
	waitFor(t, 60*time.Second, "every replayed copy done", func() bool {
		st := r.Stats()
		return st.Handled+st.Duplicates == int64(2*len(steps))
	})
	checkEffects(t, db, steps)
	if st := r.Stats(); st.Handled != int64(len(steps)) || st.Duplicates != int64(len(steps)) || st.DeadLettered != int64(len(evs)) {
		t.Errorf("Stats = %+v, want %d handled, %d duplicates, %d dead-lettered (none after the fix)", st, len(steps), len(steps), len(evs))
	}
	// The replayed records carry no DLQ header, the event id, and the
	// original key, on the original partition.
	rd := itest.NewReader(t, s.BootstrapServers, topic)
	byID := map[string]event{}
	for _, e := range steps {
		byID[e.id] = e
	}
	seen := 0
	for m := rd.Next(10 * time.Second); m != nil; m = rd.Next(2 * time.Second) {
		id, _ := itest.Header(m, "id")
		e, ok := byID[id]
		if int64(m.TopicPartition.Offset) < int64(len(evs)/2) || !ok {
			continue // partition 0's originals
		}
		seen++
		if string(m.Key) != e.agg || m.TopicPartition.Partition != e.partition || string(m.Value) != string(e.value) {
			t.Errorf("replayed %s: key %q partition %d value %s, want %q %d %s", id, m.Key, m.TopicPartition.Partition, m.Value, e.agg, e.partition, e.value)
		}
		for _, h := range m.Headers {
			if strings.HasPrefix(h.Key, dlq.HeaderPrefix) {
				t.Errorf("replayed %s carries %s", id, h.Key)
			}
		}
	}
	if seen == 0 {
		t.Error("no replayed record read back from partition 0")
	}
}
