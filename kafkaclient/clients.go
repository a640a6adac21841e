package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Security failures of a connection, which retrying with the same
// configuration does not mend.
var (
	// ErrAuthentication: the brokers refused the SASL credentials (or the
	// mechanism).
	ErrAuthentication = errors.New("kafka authentication failed")
	// ErrTLS: the TLS handshake failed (an untrusted or mismatched broker
	// certificate, a protocol mismatch).
	ErrTLS = errors.New("kafka TLS handshake failed")
)

// SecurityError is a security failure reported by librdkafka. It unwraps
// to ErrAuthentication or ErrTLS and to the kafka.Error.
type SecurityError struct {
	Kind error // ErrAuthentication or ErrTLS
	Err  kafka.Error
}

func (e *SecurityError) Error() string {
	return fmt.Sprintf("%v: %s", e.Kind, thrdPrefix.ReplaceAllString(e.Err.String(), ""))
}

// Unwrap returns the kind and the kafka.Error.
func (e *SecurityError) Unwrap() []error { return []error{e.Kind, e.Err} }

// Classify returns a *SecurityError when err is (or wraps) a kafka.Error
// of a failed authentication or TLS handshake, else nil.
func Classify(err error) error {
	var ke kafka.Error
	if !errors.As(err, &ke) {
		return nil
	}
	switch ke.Code() {
	case kafka.ErrAuthentication, kafka.ErrSaslAuthenticationFailed:
		return &SecurityError{Kind: ErrAuthentication, Err: ke}
	case kafka.ErrSsl:
		return &SecurityError{Kind: ErrTLS, Err: ke}
	}
	// librdkafka reports some handshake failures as transport errors.
	if ke.Code() == kafka.ErrTransport && strings.Contains(strings.ToLower(ke.String()), "ssl handshake failed") {
		return &SecurityError{Kind: ErrTLS, Err: ke}
	}
	return nil
}

// With renders c (see ConfigMap) and adds extra, a client's own
// settings. An extra key that a field of c sets is an error; go.* keys
// (the Go client's settings, such as channels) are allowed.
func (c Config) With(extra kafka.ConfigMap) (kafka.ConfigMap, error) {
	m, err := c.ConfigMap()
	if err != nil {
		return nil, err
	}
	set := c.settings(false)
	for k, v := range extra {
		if _, ok := set[k]; ok {
			return nil, fmt.Errorf("%w: property %s is also set by %s: set it once", ErrInvalidConfig, k, owned[k])
		}
		m[k] = v // a client's setting wins over a generic property
	}
	return m, nil
}

// NewProducer creates a producer of c with the client settings extra (may
// be nil), for instance the consumer's DLQ producer:
//
//	p, err := kafkaclient.NewProducer(cfg, nil)
//	dlq := consumer.DLQ{Topic: "orders.dlq", Producer: consumer.NewKafkaProducer(p)}
func NewProducer(c Config, extra kafka.ConfigMap) (*kafka.Producer, error) {
	m, err := c.With(extra)
	if err != nil {
		return nil, err
	}
	p, err := kafka.NewProducer(&m)
	if err != nil {
		return nil, fmt.Errorf("kafka producer (bootstrap servers %s): %w", c.BootstrapServers, err)
	}
	return p, nil
}

// thrdPrefix is librdkafka's "[thrd:host:port/bootstrap]: " message prefix.
var thrdPrefix = regexp.MustCompile(`\[thrd:[^\]]*\]: `)

// AdminClient is a Kafka admin client (over a producer of its own) that
// fails fast: once librdkafka reported a failed authentication or TLS
// handshake, its calls return that failure (a *SecurityError) instead of
// waiting for their timeout. librdkafka's log lines go to LastLog, not to
// stderr.
type AdminClient struct {
	*kafka.AdminClient
	p    *kafka.Producer
	logs chan kafka.LogEvent

	failed chan struct{} // closed on the first security failure
	once   sync.Once
	mu     sync.Mutex
	err    error
	last   string
	logf   func(format string, args ...any)
}

// NewAdminClient creates an admin client of c.
func NewAdminClient(c Config) (*AdminClient, error) {
	a := &AdminClient{logs: make(chan kafka.LogEvent, 64), failed: make(chan struct{})}
	p, err := NewProducer(c, kafka.ConfigMap{"go.logs.channel.enable": true, "go.logs.channel": a.logs})
	if err != nil {
		return nil, fmt.Errorf("kafka admin: %w", err)
	}
	a.p = p
	if a.AdminClient, err = kafka.NewAdminClientFromProducer(p); err != nil {
		p.Close()
		return nil, fmt.Errorf("kafka admin: %w", err)
	}
	go func() { // ends with the process: the library never closes the channel
		for ev := range a.logs {
			msg := thrdPrefix.ReplaceAllString(ev.Message, "")
			a.mu.Lock()
			if ev.Level <= 4 { // syslog levels: 4 warning, 3 error
				a.last = msg
			}
			logf := a.logf
			a.mu.Unlock()
			if logf != nil {
				logf("librdkafka %s %s: %s", levelName(ev.Level), ev.Tag, msg)
			}
		}
	}()
	go func() { // ends when the producer is closed
		for ev := range p.Events() {
			if ke, ok := ev.(kafka.Error); ok {
				if se := Classify(ke); se != nil {
					a.once.Do(func() {
						a.mu.Lock()
						a.err = se
						a.mu.Unlock()
						close(a.failed)
					})
				}
			}
		}
	}()
	return a, nil
}

// Err is the security failure seen so far (nil if none).
func (a *AdminClient) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// SetLogf makes the admin client pass every librdkafka log line to logf
// (the CLI: its log at -v) as well as keeping the last warning for
// LastLog.
func (a *AdminClient) SetLogf(logf func(format string, args ...any)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.logf = logf
}

// LastLog is the last warning or error librdkafka logged ("" if none).
func (a *AdminClient) LastLog() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// call runs f, returning early with the security failure if one comes
// first.
func call[T any](a *AdminClient, ctx context.Context, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if err := a.Err(); err != nil {
		return zero, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			if se := a.Err(); se != nil {
				return r.v, se
			}
		}
		return r.v, r.err
	case <-a.failed:
		cancel() // the call returns promptly; wait for it (Close must not race it)
		<-done
		return zero, a.Err()
	}
}

// GetMetadata is AdminClient.GetMetadata, failing fast.
// It asks in slices of at most 250 ms (GetMetadata takes no context),
// until timeoutMs has passed.
func (a *AdminClient) GetMetadata(topic *string, allTopics bool, timeoutMs int) (*kafka.Metadata, error) {
	deadline := time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)
	for {
		if err := a.Err(); err != nil {
			return nil, err
		}
		slice := min(time.Until(deadline), 250*time.Millisecond)
		md, err := a.AdminClient.GetMetadata(topic, allTopics, max(int(slice/time.Millisecond), 1))
		if err == nil || time.Until(deadline) <= 0 {
			if se := a.Err(); err != nil && se != nil {
				return md, se
			}
			return md, err
		}
	}
}

// CreateTopics is AdminClient.CreateTopics, failing fast.
func (a *AdminClient) CreateTopics(ctx context.Context, topics []kafka.TopicSpecification, options ...kafka.CreateTopicsAdminOption) ([]kafka.TopicResult, error) {
	return call(a, ctx, func(ctx context.Context) ([]kafka.TopicResult, error) {
		return a.AdminClient.CreateTopics(ctx, topics, options...)
	})
}

// DeleteTopics is AdminClient.DeleteTopics, failing fast.
func (a *AdminClient) DeleteTopics(ctx context.Context, topics []string, options ...kafka.DeleteTopicsAdminOption) ([]kafka.TopicResult, error) {
	return call(a, ctx, func(ctx context.Context) ([]kafka.TopicResult, error) {
		return a.AdminClient.DeleteTopics(ctx, topics, options...)
	})
}

// DescribeConfigs is AdminClient.DescribeConfigs, failing fast.
func (a *AdminClient) DescribeConfigs(ctx context.Context, resources []kafka.ConfigResource, options ...kafka.DescribeConfigsAdminOption) ([]kafka.ConfigResourceResult, error) {
	return call(a, ctx, func(ctx context.Context) ([]kafka.ConfigResourceResult, error) {
		return a.AdminClient.DescribeConfigs(ctx, resources, options...)
	})
}

// Close closes the admin client and its producer.
func (a *AdminClient) Close() {
	a.AdminClient.Close()
	a.p.Close()
}
