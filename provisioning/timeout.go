package provisioning

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
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
// requests wait at most d, and CreateTopics and DescribeConfigs get a
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

func (t *timedAdmin) timeout(op string, err error) error {
	var ke kafka.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ke) && ke.Code() == kafka.ErrTimedOut) {
		return &TimeoutError{Op: op, After: t.d, Err: err}
	}
	return err
}

func (t *timedAdmin) GetMetadata(topic *string, allTopics bool, timeoutMs int) (*kafka.Metadata, error) {
	if ms := int(t.d / time.Millisecond); ms < timeoutMs || timeoutMs <= 0 {
		timeoutMs = ms
	}
	start := time.Now()
	md, err := t.a.GetMetadata(topic, allTopics, timeoutMs)
	if err != nil && time.Since(start) >= time.Duration(timeoutMs)*time.Millisecond*9/10 {
		// librdkafka reports a metadata request that found no broker in
		// time as a transport failure: it ran out of time all the same.
		return md, &TimeoutError{Op: "kafka metadata request", After: time.Duration(timeoutMs) * time.Millisecond, Err: err}
	}
	return md, t.timeout("kafka metadata request", err)
}

func (t *timedAdmin) CreateTopics(ctx context.Context, topics []kafka.TopicSpecification, options ...kafka.CreateTopicsAdminOption) ([]kafka.TopicResult, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	res, err := t.a.CreateTopics(ctx, topics, options...)
	return res, t.timeout("kafka create topics request", err)
}

func (t *timedAdmin) DescribeConfigs(ctx context.Context, resources []kafka.ConfigResource, options ...kafka.DescribeConfigsAdminOption) ([]kafka.ConfigResourceResult, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	res, err := t.a.DescribeConfigs(ctx, resources, options...)
	return res, t.timeout("kafka describe configs request", err)
}
