//go:build integration

package relay_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
)

// createTopicWith creates a one-partition topic with the given topic
// configs, deleted with t.Cleanup.
func createTopicWith(t *testing.T, boot, topic string, cfg map[string]string) {
	t.Helper()
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": boot})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: 1, ReplicationFactor: 1, Config: cfg}})
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	for _, r := range res {
		if r.Error.Code() != kafka.ErrNoError {
			t.Fatalf("create topic %s: %v", topic, r.Error)
		}
	}
	t.Cleanup(func() { itest.DeleteTopics(t, boot, topic) })
}

// routed makes the fixture route by aggregatetype to
// relay.<sfx>.<aggregatetype>: "events" is the fixture's own topic.
func (f *fixture) routed() string {
	base := strings.TrimSuffix(f.topic, ".events")
	f.conf["transforms.outbox.route.topic.replacement"] = base + ".${routedByValue}"
	return base
}

// countIDs reads topic until it stays quiet for quiet and counts the
// records per event id (the id header).
func (f *fixture) countIDs(topic string, quiet time.Duration) map[string]int {
	f.t.Helper()
	rd := itest.NewReader(f.t, f.boot, topic)
	n := map[string]int{}
	for {
		m := rd.Next(quiet)
		if m == nil {
			return n
		}
		n[header(m, "id")]++
	}
}

// runFor runs r until it returns or d has passed (then it fails the test:
// Run must stop by itself).
func runFor(t *testing.T, r *relay.Relay, d time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cancel()
		<-done
		t.Fatalf("Run did not stop within %s (stats %+v)", d, r.Stats())
		return nil
	}
}

// Issue 24 item 3: one record too large for its topic, with
// errors.tolerance=none, stops Run with a *RejectedError naming the row,
// and no record is published twice: the rows acknowledged after it are
// deleted, the rejected one stays.
func TestRelayRejectedRecordStops(t *testing.T) {
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			base := f.routed()
			small := base + ".small"
			createTopicWith(t, f.boot, small, map[string]string{"max.message.bytes": "1024"})
			var ids []string
			var bad string
			for i := 0; i < 5; i++ {
				id := itest.UUID(t)
				ids = append(ids, id)
				if i == 1 {
					bad = id
					f.insert(f.db, id, "small", "big", fmt.Sprintf(`{"pad": %q}`, strings.Repeat("x", 4000)))
					continue
				}
				f.insert(f.db, id, "events", fmt.Sprint("o-", i), `{}`)
			}
			r := f.relay(relay.Options{PollInterval: 50 * time.Millisecond, MessageTimeout: 5 * time.Second})
			err := runFor(t, r, 20*time.Second)
			var re *relay.RejectedError
			var ke kafka.Error
			if !errors.Is(err, relay.ErrKafka) || !errors.Is(err, relay.ErrRejected) || !errors.As(err, &re) || !errors.As(err, &ke) {
				t.Fatalf("Run: %v, want a *RejectedError", err)
			}
			if re.EventID != bad || re.Topic != small || ke.Code() != kafka.ErrMsgSizeTooLarge || !strings.Contains(err.Error(), bad) {
				t.Errorf("rejected %+v (code %v): want event %s, topic %s, MSG_SIZE_TOO_LARGE", re, ke.Code(), bad, small)
			}
			t.Logf("Run: %v", err)
			var left string
			if err := f.db.QueryRow("SELECT id FROM outbox").Scan(&left); err != nil || left != bad || f.count() != 1 {
				t.Errorf("rows left: %d (%q, %v), want the rejected row only", f.count(), left, err)
			}
			got := f.countIDs(f.topic, 3*time.Second)
			for i, id := range ids {
				if want := map[bool]int{true: 0, false: 1}[i == 1]; got[id] != want {
					t.Errorf("row %d (%s): published %d times on %s, want %d", i, id, got[id], f.topic, want)
				}
			}
			if n := f.countIDs(small, time.Second); len(n) != 0 {
				t.Errorf("records on %s: %v, want none", small, n)
			}
			if st := r.Stats(); st.Published != 4 || st.Failed != 1 {
				t.Errorf("stats %+v, want 4 published, 1 failed attempt", st)
			}
		})
	}
}

// Issue 31 (records the broker refuses) and item 3's path: a record
// timestamp 2 h ahead is beyond the broker's
// log.message.timestamp.after.max.ms (1 h): INVALID_TIMESTAMP. With
// errors.tolerance=none Run stops and the row stays; with
// errors.tolerance=all it is skipped (deleted unpublished), as Connect does.
func TestRelayFutureTimestamp(t *testing.T) {
	for _, tol := range []string{"none", "all"} {
		t.Run(tol, func(t *testing.T) {
			f := newFixture(t, sides[0], map[string]string{"errors.tolerance": tol, "transforms.outbox.table.field.event.timestamp": "created_at"})
			// the broker rejects the whole batch of the partition: the other
			// row goes to another topic, so that it is never batched with it
			future := f.routed() + ".future"
			itest.CreateTopic(t, f.boot, future)
			ahead, ok := itest.UUID(t), itest.UUID(t)
			f.insert(f.db, ahead, "future", "1", `{}`)
			f.insert(f.db, ok, "events", "2", `{}`)
			if _, err := f.db.Exec(`UPDATE outbox SET created_at = (now() AT TIME ZONE 'UTC') + CASE WHEN id = $1 THEN interval '2 hours' ELSE interval '0' END`, ahead); err != nil {
				t.Fatal(err)
			}
			r := f.relay(relay.Options{PollInterval: 50 * time.Millisecond, MessageTimeout: 5 * time.Second})
			if tol == "all" {
				if err := r.Drain(context.Background()); err != nil {
					t.Fatal(err)
				}
				if st := r.Stats(); f.count() != 0 || st.Published != 1 || st.Dropped != 1 {
					t.Errorf("%d rows left, stats %+v: want the future row skipped, the other published", f.count(), st)
				}
			} else {
				err := runFor(t, r, 20*time.Second)
				var re *relay.RejectedError
				var ke kafka.Error
				if !errors.As(err, &re) || !errors.As(err, &ke) || ke.Code() != kafka.ErrInvalidTimestamp || re.EventID != ahead {
					t.Fatalf("Run: %v, want a *RejectedError of %s with INVALID_TIMESTAMP", err, ahead)
				}
				if f.count() != 1 {
					t.Errorf("%d rows left, want the rejected one", f.count())
				}
			}
			if got := f.countIDs(f.topic, 3*time.Second); got[ok] != 1 || len(got) != 1 {
				t.Errorf("published %v, want %s once", got, ok)
			}
			if got := f.countIDs(future, time.Second); len(got) != 0 {
				t.Errorf("published %v on %s, want nothing", got, future)
			}
		})
	}
}

// Issue 24 item 4: a missing topic (the producer may not auto-create it)
// is retriable, also with errors.tolerance=all: the row stays, and once the
// topic exists the relay publishes it.
func TestRelayMissingTopicIsRetried(t *testing.T) {
	f := newFixture(t, sides[0], map[string]string{"errors.tolerance": "all"})
	base := f.routed()
	missing := base + ".later"
	first := itest.UUID(t)
	f.insert(f.db, first, "later", "1", `{}`)
	second := itest.UUID(t)
	f.insert(f.db, second, "events", "2", `{}`)
	r := f.relay(relay.Options{MessageTimeout: 3 * time.Second, Kafka: map[string]string{
		"allow.auto.create.topics":           "false",
		"topic.metadata.propagation.max.ms":  "500",
		"topic.metadata.refresh.interval.ms": "500",
	}})
	err := r.Drain(context.Background())
	if !errors.Is(err, relay.ErrKafka) || errors.Is(err, relay.ErrRejected) {
		t.Fatalf("Drain to a missing topic: %v, want a retriable ErrKafka", err)
	}
	t.Logf("Drain: %v", err)
	var left string
	if err := f.db.QueryRow("SELECT id FROM outbox").Scan(&left); err != nil || left != first || f.count() != 1 {
		t.Fatalf("rows left: %d (%q, %v), want the row of the missing topic", f.count(), left, err)
	}
	if st := r.Stats(); st.Dropped != 0 {
		t.Errorf("stats %+v: a row was dropped", st)
	}
	createTopicWith(t, f.boot, missing, nil)
	deadline := time.Now().Add(20 * time.Second)
	for f.count() > 0 && time.Now().Before(deadline) {
		if err := r.Drain(context.Background()); err != nil {
			t.Logf("Drain: %v", err)
			time.Sleep(200 * time.Millisecond)
		}
	}
	if f.count() != 0 {
		t.Fatalf("%d rows left once the topic exists", f.count())
	}
	if got := f.countIDs(missing, 3*time.Second); got[first] != 1 || len(got) != 1 {
		t.Errorf("records on %s: %v, want %s once", missing, got, first)
	}
	if got := f.countIDs(f.topic, time.Second); got[second] != 1 || len(got) != 1 {
		t.Errorf("records on %s: %v, want %s once", f.topic, got, second)
	}
}

// Issue 24 item 5: a fatal error of the real producer
// (Producer.TestFatalError) stops Run with ErrProducerFatal; the row
// written after it stays, and a new relay publishes it.
func TestRelayFatalProducerError(t *testing.T) {
	f := newFixture(t, sides[0], nil)
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": f.boot, "enable.idempotence": true, "acks": "all",
		"partitioner": "murmur2_random", "linger.ms": 0, "message.timeout.ms": 5000})
	if err != nil {
		t.Fatal(err)
	}
	before := itest.UUID(t)
	f.insert(f.db, before, "Order", "1", `{}`)
	r := f.relay(relay.Options{Producer: p, PollInterval: 50 * time.Millisecond})
	if err := r.Drain(context.Background()); err != nil || f.count() != 0 {
		t.Fatalf("Drain before the fatal error: %v, %d rows left", err, f.count())
	}
	p.TestFatalError(kafka.ErrOutOfOrderSequenceNumber, "test fatal error")
	after := itest.UUID(t)
	f.insert(f.db, after, "Order", "2", `{}`)
	err = runFor(t, r, 10*time.Second)
	if !errors.Is(err, relay.ErrKafka) || !errors.Is(err, relay.ErrProducerFatal) {
		t.Fatalf("Run after a fatal error: %v, want ErrProducerFatal", err)
	}
	t.Logf("Run: %v", err)
	if f.count() != 1 {
		t.Fatalf("%d rows left, want the row written after the fatal error", f.count())
	}
	r.Close()
	if err := f.relay(relay.Options{}).Drain(context.Background()); err != nil || f.count() != 0 {
		t.Fatalf("a new relay: %v, %d rows left", err, f.count())
	}
	if got := f.countIDs(f.topic, 3*time.Second); got[before] != 1 || got[after] != 1 || len(got) != 2 {
		t.Errorf("published %v, want each row once", got)
	}
}
