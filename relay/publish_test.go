package relay

import (
	"errors"
	"fmt"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/relay/relaytest"
)

// fakeRelay is a Relay with only what publish needs, over p.
func fakeRelay(tolerance string, p Producer) *Relay {
	return &Relay{
		cfg:      eventrouter.Config{ErrorsTolerance: tolerance},
		t:        &table{kind: eventrouter.Postgres, schema: "public", name: "outbox"},
		producer: p,
		fatal:    make(chan struct{}),
	}
}

// rows is a batch of n rows with keys 1…n; row i goes to topic
// topics[i%len(topics)]. The rows in dropped have no record (the
// EventRouter dropped them).
func rows(n int, topics []string, dropped ...int) []pending {
	var b []pending
	for i := 0; i < n; i++ {
		p := pending{key: []any{i + 1}, eventID: fmt.Sprintf("ev-%d", i+1)}
		p.rec = &eventrouter.Record{Topic: topics[i%len(topics)], Key: []byte(fmt.Sprint("k", i+1)), Value: []byte(fmt.Sprint(i + 1))}
		for _, d := range dropped {
			if d == i {
				p.rec, p.reason = nil, "dropped"
			}
		}
		b = append(b, p)
	}
	return b
}

func keys(ps []pending) string {
	var s []any
	for _, p := range ps {
		s = append(s, p.key[0])
	}
	return fmt.Sprint(s)
}

func ackedValues(p *relaytest.Producer) string {
	var s []string
	for _, m := range p.Acked() {
		s = append(s, string(m.Value))
	}
	return fmt.Sprint(s)
}

// failOn fails the records whose value is in vals with code.
func failOn(code kafka.ErrorCode, vals ...string) func(*kafka.Message) error {
	return func(m *kafka.Message) error {
		for _, v := range vals {
			if string(m.Value) == v {
				return kafka.NewError(code, "Broker: "+code.String(), false)
			}
		}
		return nil
	}
}

func TestPublishPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		tolerance  string
		n          int
		dropped    []int
		deliver    func(*kafka.Message) error
		produceErr func(*kafka.Message) error
		// done are the keys of the rows to delete; acked the values the
		// fake acknowledged.
		done, acked string
		rejected    bool // error unwraps to ErrRejected (a *RejectedError of key 2)
		retry       bool // error is ErrKafka alone
	}{
		{name: "all acked", n: 4, dropped: []int{1}, done: "[1 2 3 4]", acked: "[1 3 4]"},
		{
			// item 3: the rows acked after the rejected one are done (not
			// republished); the rejected one stays, and the relay stops
			name: "too large, tolerance none", n: 4, deliver: failOn(kafka.ErrMsgSizeTooLarge, "2"),
			done: "[1 3 4]", acked: "[1 3 4]", rejected: true,
		},
		{
			name: "invalid timestamp, tolerance none", n: 3, deliver: failOn(kafka.ErrInvalidTimestamp, "2"),
			done: "[1 3]", acked: "[1 3]", rejected: true,
		},
		{
			name: "too large, tolerance all: skipped", tolerance: "all", n: 3, deliver: failOn(kafka.ErrMsgSizeTooLarge, "2"),
			done: "[1 2 3]", acked: "[1 3]",
		},
		{
			name: "not authorized, tolerance all: skipped", tolerance: "all", n: 2, deliver: failOn(kafka.ErrTopicAuthorizationFailed, "1"),
			done: "[1 2]", acked: "[2]",
		},
		{
			// item 4: a missing topic is retriable: the row stays, even
			// with errors.tolerance=all
			name: "unknown topic, tolerance all: stays", tolerance: "all", n: 3, deliver: failOn(kafka.ErrUnknownTopicOrPart, "2"),
			done: "[1 3]", acked: "[1 3]", retry: true,
		},
		{
			name: "local unknown topic, tolerance all: stays", tolerance: "all", n: 2, deliver: failOn(kafka.ErrUnknownTopic, "1", "2"),
			done: "[]", acked: "[]", retry: true,
		},
		{
			name: "timed out, tolerance none: stays", n: 3, deliver: failOn(kafka.ErrMsgTimedOut, "2", "3"),
			done: "[1]", acked: "[1]", retry: true,
		},
		{
			name: "not enough replicas: stays", n: 2, deliver: failOn(kafka.ErrNotEnoughReplicas, "1"),
			done: "[2]", acked: "[2]", retry: true,
		},
		{
			name: "rejected and retriable: the rejection wins", n: 4, deliver: func(m *kafka.Message) error {
				if string(m.Value) == "1" {
					return kafka.NewError(kafka.ErrMsgTimedOut, "timed out", false)
				}
				return failOn(kafka.ErrMsgSizeTooLarge, "2")(m)
			},
			done: "[3 4]", acked: "[3 4]", rejected: true,
		},
		{
			// queue full: the row and those after it are not produced
			name: "Produce queue full", n: 4, dropped: []int{3}, produceErr: failOn(kafka.ErrQueueFull, "2"),
			done: "[1]", acked: "[1]", retry: true,
		},
		{
			name: "Produce too large, tolerance none", n: 3, produceErr: failOn(kafka.ErrMsgSizeTooLarge, "2"),
			done: "[1]", acked: "[1]", rejected: true,
		},
		{
			name: "Produce too large, tolerance all: skipped, the rest produced", tolerance: "all", n: 3, produceErr: failOn(kafka.ErrMsgSizeTooLarge, "2"),
			done: "[1 2 3]", acked: "[1 3]",
		},
		{
			name: "Produce error not a kafka.Error", n: 2, produceErr: func(m *kafka.Message) error {
				if string(m.Value) == "1" {
					return errors.New("boom")
				}
				return nil
			},
			done: "[]", acked: "[]", retry: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tol := tc.tolerance
			if tol == "" {
				tol = "none"
			}
			p := relaytest.NewProducer()
			p.Deliver, p.ProduceErr = tc.deliver, tc.produceErr
			r := fakeRelay(tol, p)
			batch := rows(tc.n, []string{"a", "b"}, tc.dropped...)
			done, err := r.publish(batch)
			if got := keys(done); got != tc.done {
				t.Errorf("done %s, want %s", got, tc.done)
			}
			if got := ackedValues(p); got != tc.acked {
				t.Errorf("acked %s, want %s", got, tc.acked)
			}
			var re *RejectedError
			switch {
			case tc.rejected:
				if !errors.Is(err, ErrKafka) || !errors.Is(err, ErrRejected) || !errors.As(err, &re) {
					t.Fatalf("err %v, want a *RejectedError (ErrKafka, ErrRejected)", err)
				}
				var ke kafka.Error
				if re.Key != "2" || re.EventID != "ev-2" || re.Topic != "b" || !errors.As(err, &ke) {
					t.Errorf("rejected %+v: want row 2, event ev-2, topic b and the kafka.Error", re)
				}
			case tc.retry:
				if !errors.Is(err, ErrKafka) || errors.Is(err, ErrRejected) || errors.Is(err, ErrProducerFatal) {
					t.Errorf("err %v, want ErrKafka alone (retriable)", err)
				}
			default:
				if err != nil {
					t.Errorf("err %v, want nil", err)
				}
			}
			if f := r.Stats().Failed; (err != nil) != (f == 1) {
				t.Errorf("stats.Failed %d with err %v", f, err)
			}
			for _, p := range done {
				if tol == "all" && tc.deliver != nil && p.rec == nil && p.reason == "" {
					t.Errorf("row %v skipped without a reason", p.key)
				}
			}
		})
	}
}

// item 5: a fatal producer error stops the relay: publish returns
// ErrProducerFatal (the acked rows done, the rest stay), and the event
// drain closes r.fatal, which Run selects on.
func TestPublishFatal(t *testing.T) {
	t.Parallel()
	p := relaytest.NewProducer()
	r := fakeRelay("none", p)
	go r.drainEvents(p.Events())
	done, err := r.publish(rows(2, []string{"a"}))
	if err != nil || keys(done) != "[1 2]" {
		t.Fatalf("before the fatal error: done %s, err %v", keys(done), err)
	}
	p.Fatal(kafka.ErrOutOfOrderSequenceNumber, "test fatal error")
	<-r.fatal
	done, err = r.publish(rows(3, []string{"a"}))
	if !errors.Is(err, ErrKafka) || !errors.Is(err, ErrProducerFatal) {
		t.Fatalf("err %v, want ErrProducerFatal", err)
	}
	if len(done) != 0 {
		t.Errorf("done %s after the fatal error, want none", keys(done))
	}
	if got := len(p.Acked()); got != 2 {
		t.Errorf("%d records acked, want the 2 before the fatal error", got)
	}
}

// retriable names the permanent errors; the rest, including those whose
// retriable flag librdkafka never sets on a delivery report, are retried.
func TestRetriable(t *testing.T) {
	t.Parallel()
	for code, want := range map[kafka.ErrorCode]bool{
		kafka.ErrMsgSizeTooLarge:          false,
		kafka.ErrInvalidRecord:            false,
		kafka.ErrInvalidTimestamp:         false,
		kafka.ErrTopicException:           false,
		kafka.ErrTopicAuthorizationFailed: false,
		kafka.ErrUnknownTopicOrPart:       true,
		kafka.ErrUnknownTopic:             true,
		kafka.ErrLeaderNotAvailable:       true,
		kafka.ErrNotEnoughReplicas:        true,
		kafka.ErrMsgTimedOut:              true,
		kafka.ErrAllBrokersDown:           true,
	} {
		if got := retriable(kafka.NewError(code, code.String(), false)); got != want {
			t.Errorf("retriable(%v) = %v, want %v", code, got, want)
		}
	}
}
