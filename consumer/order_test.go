package consumer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// TestUseMiddlewareOrder: Use rejects a chain in the wrong order (#28 item
// 2): DLQ must be outside Retry, tracing inside Retry. The check spans Use
// calls, and a rejected chain leaves the Router unusable.
func TestUseMiddlewareOrder(t *testing.T) {
	dlq := consumer.DLQ{Topic: "dlq", Producer: &consumertest.Producer{}}.Middleware
	retry := consumer.Retry{MaxAttempts: 2}.Middleware
	retryNew, err := consumer.NewRetry(consumer.Retry{MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	dlqNew, err := consumer.NewDLQ(consumer.DLQ{Topic: "dlq2", Producer: &consumertest.Producer{}})
	if err != nil {
		t.Fatal(err)
	}
	tracing := consumer.Tracing(func(next consumer.Handler) consumer.Handler { return next })
	hooks := consumer.Hooks{}.Middleware
	tests := []struct {
		name  string
		calls [][]consumer.Middleware
		ok    bool
	}{
		{"recommended", [][]consumer.Middleware{{hooks, dlq, retry, tracing, consumer.Timeout(1), consumer.Recover()}}, true},
		{"dlq only", [][]consumer.Middleware{{dlq, tracing}}, true},
		{"retry only", [][]consumer.Middleware{{retry}}, true},
		{"tracing without retry", [][]consumer.Middleware{{tracing, dlq}}, true},
		{"retry then dlq", [][]consumer.Middleware{{retry, dlq}}, false},
		{"NewRetry then NewDLQ", [][]consumer.Middleware{{retryNew, dlqNew}}, false},
		{"retry then dlq in two calls", [][]consumer.Middleware{{retry}, {consumer.Recover(), dlq}}, false},
		{"tracing then retry", [][]consumer.Middleware{{dlq, tracing, retry}}, false},
		{"tracing then retry in two calls", [][]consumer.Middleware{{tracing}, {retry}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := consumer.NewRouter(consumer.RouterConfig{})
			if err != nil {
				t.Fatal(err)
			}
			var last error
			for _, c := range tt.calls {
				if last = r.Use(c...); last != nil {
					break
				}
			}
			if tt.ok {
				if last != nil || r.Err() != nil {
					t.Fatalf("Use = %v, Err = %v, want nil", last, r.Err())
				}
				return
			}
			if !errors.Is(last, consumer.ErrMiddlewareOrder) || !errors.Is(last, consumer.ErrInvalidConfig) {
				t.Fatalf("Use = %v, want ErrMiddlewareOrder (ErrInvalidConfig)", last)
			}
			if !errors.Is(r.Err(), consumer.ErrMiddlewareOrder) {
				t.Errorf("Err = %v, want the order error", r.Err())
			}
			if err := r.Process(context.Background(), &consumer.Message{Topic: "t"}); !errors.Is(err, consumer.ErrMiddlewareOrder) {
				t.Errorf("Process = %v, want the order error", err)
			}
		})
	}
}

// TestTracingMarkerRuns: Tracing(mw) runs mw.
func TestTracingMarkerRuns(t *testing.T) {
	ran := false
	mw := consumer.Tracing(func(next consumer.Handler) consumer.Handler {
		return func(ctx context.Context, m *consumer.Message) error { ran = true; return next(ctx, m) }
	})
	if err := mw(func(context.Context, *consumer.Message) error { return nil })(context.Background(), &consumer.Message{}); err != nil || !ran {
		t.Fatalf("err = %v, ran = %v", err, ran)
	}
	if consumer.Tracing(nil) != nil {
		t.Error("Tracing(nil) != nil")
	}
}
