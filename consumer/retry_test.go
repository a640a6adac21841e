package consumer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
)

// TestRetryDefaultBackoff: Retry{MaxAttempts: 5} as in the README must not
// retry in a hot loop (#28 item 5): with no interval set it backs off
// exponentially from DefaultRetryInitialInterval, capped at
// DefaultRetryMaxInterval.
func TestRetryDefaultBackoff(t *testing.T) {
	r := consumer.Retry{MaxAttempts: 5}
	tests := []struct {
		n    int
		want time.Duration
	}{
		{1, consumer.DefaultRetryInitialInterval},
		{2, 2 * consumer.DefaultRetryInitialInterval},
		{3, 4 * consumer.DefaultRetryInitialInterval},
		{30, consumer.DefaultRetryMaxInterval},
		{1000, consumer.DefaultRetryMaxInterval},
	}
	for _, tt := range tests {
		if got := r.Delay(tt.n); got != tt.want {
			t.Errorf("Retry{MaxAttempts: 5}.Delay(%d) = %s, want %s", tt.n, got, tt.want)
		}
	}
	if consumer.DefaultRetryInitialInterval <= 0 || consumer.DefaultRetryMaxInterval < consumer.DefaultRetryInitialInterval {
		t.Fatalf("defaults %s, %s", consumer.DefaultRetryInitialInterval, consumer.DefaultRetryMaxInterval)
	}
}

// TestRetryExplicitBackoffUnchanged: explicit intervals keep their meaning
// and no jitter unless asked.
func TestRetryExplicitBackoffUnchanged(t *testing.T) {
	r := consumer.Retry{MaxAttempts: 5, InitialInterval: 10 * time.Millisecond, MaxInterval: 25 * time.Millisecond}
	for n, want := range map[int]time.Duration{1: 10 * time.Millisecond, 2: 20 * time.Millisecond, 3: 25 * time.Millisecond} {
		if got := r.Delay(n); got != want {
			t.Errorf("Delay(%d) = %s, want %s", n, got, want)
		}
		for i := 0; i < 20; i++ {
			if got := r.Wait(n); got != want {
				t.Fatalf("Wait(%d) = %s, want %s (no jitter)", n, got, want)
			}
		}
	}
	// Only MaxInterval set: the initial interval is the default, capped.
	r = consumer.Retry{MaxAttempts: 2, MaxInterval: 50 * time.Millisecond}
	if got := r.Delay(1); got != 50*time.Millisecond {
		t.Errorf("Retry{MaxInterval: 50ms}.Delay(1) = %s, want 50ms", got)
	}
}

// TestRetryJitter: the default waits are jittered within
// [Delay*(1-DefaultRetryJitter), Delay], and not all equal.
func TestRetryJitter(t *testing.T) {
	tests := []struct {
		name   string
		r      consumer.Retry
		jitter float64
	}{
		{"default", consumer.Retry{MaxAttempts: 5}, consumer.DefaultRetryJitter},
		{"explicit", consumer.Retry{MaxAttempts: 5, InitialInterval: time.Second, Jitter: 0.5}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for n := 1; n <= 3; n++ {
				d := tt.r.Delay(n)
				lo := time.Duration(float64(d) * (1 - tt.jitter))
				seen := map[time.Duration]bool{}
				for i := 0; i < 200; i++ {
					w := tt.r.Wait(n)
					if w < lo || w > d {
						t.Fatalf("Wait(%d) = %s, want in [%s, %s]", n, w, lo, d)
					}
					seen[w] = true
				}
				if len(seen) < 2 {
					t.Errorf("Wait(%d) always %v: no jitter", n, seen)
				}
			}
		})
	}
}

func TestRetryJitterValidate(t *testing.T) {
	for _, j := range []float64{-0.1, 1.5} {
		if err := (consumer.Retry{MaxAttempts: 1, Jitter: j}).Validate(); !errors.Is(err, consumer.ErrInvalidConfig) {
			t.Errorf("Validate(Jitter %g) = %v, want ErrInvalidConfig", j, err)
		}
	}
}

// TestRetryWaitsByDefault runs the middleware: a failing handler under
// Retry{MaxAttempts: 2} waits before its second attempt.
func TestRetryWaitsByDefault(t *testing.T) {
	var waits []time.Duration
	r := consumer.Retry{MaxAttempts: 2, OnRetry: func(_ context.Context, _ *consumer.Message, _ error, d time.Duration) {
		waits = append(waits, d)
	}}
	h := r.Middleware(func(context.Context, *consumer.Message) error { return errors.New("boom") })
	start := time.Now()
	if err := h(context.Background(), &consumer.Message{}); err == nil {
		t.Fatal("want the handler's error")
	}
	lo := time.Duration(float64(consumer.DefaultRetryInitialInterval) * (1 - consumer.DefaultRetryJitter))
	if len(waits) != 1 || waits[0] < lo {
		t.Fatalf("waits = %v, want one >= %s", waits, lo)
	}
	if el := time.Since(start); el < waits[0] {
		t.Errorf("elapsed %s < wait %s", el, waits[0])
	}
}
