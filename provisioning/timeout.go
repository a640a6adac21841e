package provisioning

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrTimeout: a Kafka admin request got no answer within the request
// timeout of WithRequestTimeout.
var ErrTimeout = errors.New("kafka admin request timed out")

// TimeoutError is a Kafka admin request that ran out of time.
type TimeoutError struct {
	Op    string        // e.g. "kafka metadata request"
	After time.Duration // the bound
	Err   error         // what the Kafka client reported
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s timed out after %s (is the broker up and are the bootstrap servers right?): %v", e.Op, e.After, e.Err)
}

// Unwrap returns ErrTimeout and the Kafka client's error.
func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, e.Err} }

// WithRequestTimeout returns admin with each call bounded by d: metadata
// requests wait at most d, and CreateTopics and TopicConfigs get a
// context deadline of d (the Kafka client uses it as its request timeout).
// A call that runs out of time fails with an error wrapping ErrTimeout that
// says "timed out after d". d <= 0 returns admin unchanged.
func WithRequestTimeout(admin TopicAdmin, d time.Duration) TopicAdmin {
	if d <= 0 {
		return admin
	}
	return &timedAdmin{a: admin, d: d}
}

type timedAdmin struct {
	a TopicAdmin
	d time.Duration
}

// timeout makes err a *TimeoutError when it is one: the context's deadline,
// or a client's own time-out (kafkaadmin's errors unwrap to
// context.DeadlineExceeded for librdkafka's ErrTimedOut).
func (t *timedAdmin) timeout(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &TimeoutError{Op: op, After: t.d, Err: err}
	}
	return err
}

func (t *timedAdmin) TopicPartitions(timeout time.Duration) (map[string]int, error) {
	if t.d < timeout || timeout <= 0 {
		timeout = t.d
	}
	start := time.Now()
	md, err := t.a.TopicPartitions(timeout)
	if err != nil && time.Since(start) >= timeout*9/10 {
		// librdkafka reports a metadata request that found no broker in
		// time as a transport failure: it ran out of time all the same.
		return md, &TimeoutError{Op: "kafka metadata request", After: timeout, Err: err}
	}
	return md, t.timeout("kafka metadata request", err)
}

func (t *timedAdmin) CreateTopics(ctx context.Context, topics []NewTopic, validateOnly bool) ([]CreateResult, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	res, err := t.a.CreateTopics(ctx, topics, validateOnly)
	return res, t.timeout("kafka create topics request", err)
}

func (t *timedAdmin) TopicConfigs(ctx context.Context, topics []string) ([]map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	res, err := t.a.TopicConfigs(ctx, topics)
	return res, t.timeout("kafka describe configs request", err)
}
