package relay

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/relay/relaytest"
)

// stuckProducer is a relaytest.Producer whose every delivery fails with
// code, as librdkafka's producer after a broker restart that it never
// recovers from (librdkafka #3009: "new leader-1 not found in cache",
// every record "Local: Message timed out") until it is recreated.
func stuckProducer(code kafka.ErrorCode) *relaytest.Producer {
	p := relaytest.NewProducer()
	p.Deliver = func(*kafka.Message) error { return kafka.NewError(code, code.String(), false) }
	return p
}

// factory hands out the producers of ps in turn and records them.
type factory struct {
	mu    sync.Mutex
	ps    []*relaytest.Producer
	made  int
	fails error
}

func (f *factory) New() (Producer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails != nil {
		return nil, f.fails
	}
	p := f.ps[f.made]
	f.made++
	return p, nil
}

// The relay's producer stuck after a broker restart (every record of an
// attempt times out locally, nothing acknowledged) is closed and recreated
// before the next attempt, which publishes the rows in order.
func TestPublishRecreatesStuckProducer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		stuck   *relaytest.Producer
		restart bool
	}{
		{name: "message timed out", stuck: stuckProducer(kafka.ErrMsgTimedOut), restart: true},
		{name: "timed out in queue", stuck: stuckProducer(kafka.ErrTimedOutQueue), restart: true},
		{name: "queue full", stuck: func() *relaytest.Producer {
			p := relaytest.NewProducer()
			p.ProduceErr = failOn(kafka.ErrQueueFull, "1", "2", "3")
			return p
		}(), restart: true},
		// a broker error is the broker's answer: the producer is connected
		{name: "not enough replicas: kept", stuck: stuckProducer(kafka.ErrNotEnoughReplicas)},
		{name: "some acked: kept", stuck: func() *relaytest.Producer {
			p := relaytest.NewProducer()
			p.Deliver = failOn(kafka.ErrMsgTimedOut, "2", "3")
			return p
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			var mu sync.Mutex
			fresh := relaytest.NewProducer()
			f := &factory{ps: []*relaytest.Producer{fresh}}
			r := fakeRelay("none", tc.stuck)
			r.opts.Logf = func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				lines = append(lines, fmt.Sprintf(format, args...))
			}
			r.makeProducer = f.New
			batch := rows(3, []string{"a"})
			done, err := r.publish(batch)
			if !errors.Is(err, ErrKafka) || errors.Is(err, ErrProducerFatal) {
				t.Fatalf("first attempt: err %v, want ErrKafka alone", err)
			}
			left := batch[len(done):]
			done2, err := r.publish(left)
			if !tc.restart {
				if f.made != 0 || r.Stats().ProducerRestarts != 0 {
					t.Fatalf("producer recreated %d times (stats %d), want kept", f.made, r.Stats().ProducerRestarts)
				}
				return
			}
			if err != nil || keys(done2) != "[1 2 3]" {
				t.Fatalf("after the restart: done %s, err %v; want [1 2 3]", keys(done2), err)
			}
			if got := ackedValues(fresh); got != "[1 2 3]" {
				t.Errorf("recreated producer acked %s, want [1 2 3] in order", got)
			}
			if f.made != 1 || r.Stats().ProducerRestarts != 1 {
				t.Errorf("producers made %d, stats.ProducerRestarts %d; want 1, 1", f.made, r.Stats().ProducerRestarts)
			}
			if err := tc.stuck.Produce(&kafka.Message{}, nil); err == nil {
				t.Errorf("the stuck producer was not closed")
			}
			mu.Lock()
			defer mu.Unlock()
			var warn int
			for _, l := range lines {
				if strings.Contains(l, "recreating the Kafka producer") {
					warn++
				}
			}
			if warn != 1 {
				t.Errorf("%d restart log lines, want 1: %q", warn, lines)
			}
			// nothing more to recreate
			if _, err := r.publish(rows(2, []string{"a"})); err != nil || f.made != 1 {
				t.Errorf("third attempt: err %v, producers made %d", err, f.made)
			}
		})
	}
}

// A producer the caller supplied (Options.Producer) without a factory
// (Options.NewProducer) is not recreated: the attempts keep failing,
// retriable, as before.
func TestPublishKeepsCallerProducer(t *testing.T) {
	t.Parallel()
	p := stuckProducer(kafka.ErrMsgTimedOut)
	r := fakeRelay("none", p)
	for i := 0; i < 2; i++ {
		if _, err := r.publish(rows(2, []string{"a"})); !errors.Is(err, ErrKafka) {
			t.Fatalf("attempt %d: err %v, want ErrKafka", i, err)
		}
	}
	if r.producer != Producer(p) || r.Stats().ProducerRestarts != 0 {
		t.Errorf("caller's producer replaced (restarts %d)", r.Stats().ProducerRestarts)
	}
	if err := p.Produce(&kafka.Message{}, make(chan kafka.Event, 1)); err != nil {
		t.Errorf("caller's producer closed: %v", err)
	}
}

// A factory that fails leaves the rows; the next attempt tries again.
func TestPublishRecreateFails(t *testing.T) {
	t.Parallel()
	fresh := relaytest.NewProducer()
	f := &factory{ps: []*relaytest.Producer{fresh}, fails: errors.New("no producer")}
	r := fakeRelay("none", stuckProducer(kafka.ErrMsgTimedOut))
	r.makeProducer = f.New
	batch := rows(2, []string{"a"})
	if _, err := r.publish(batch); !errors.Is(err, ErrKafka) {
		t.Fatalf("first attempt: %v", err)
	}
	if done, err := r.publish(batch); !errors.Is(err, ErrKafka) || len(done) != 0 {
		t.Fatalf("failed recreation: done %s, err %v; want ErrKafka, none", keys(done), err)
	}
	f.fails = nil
	if done, err := r.publish(batch); err != nil || keys(done) != "[1 2]" {
		t.Fatalf("after recreation: done %s, err %v", keys(done), err)
	}
	if got := r.Stats().ProducerRestarts; got != 1 {
		t.Errorf("ProducerRestarts %d, want 1", got)
	}
}

// A factory that returns neither a producer nor an error fails the attempt
// (ErrKafka) instead of the relay.
func TestPublishRecreateNilProducer(t *testing.T) {
	t.Parallel()
	r := fakeRelay("none", stuckProducer(kafka.ErrMsgTimedOut))
	r.makeProducer = func() (Producer, error) { return nil, nil }
	batch := rows(1, []string{"a"})
	for i := 0; i < 2; i++ {
		if _, err := r.publish(batch); !errors.Is(err, ErrKafka) {
			t.Fatalf("attempt %d: err %v, want ErrKafka", i, err)
		}
	}
	if got := r.Stats().ProducerRestarts; got != 0 {
		t.Errorf("ProducerRestarts %d, want 0", got)
	}
}
