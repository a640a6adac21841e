package consumer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// TestCanaryNeverReachesHandlers: a canary record (JSON, Avro-framed
// without a registry, or a tombstone) is skipped before any handler and
// counted in Stats.Canaries, also under the default unknown policy (stop)
// and in a batch; a handler for the canary type is refused.
func TestCanaryNeverReachesHandlers(t *testing.T) {
	t.Parallel()
	canary := func(value []byte) *consumer.Message {
		return &consumer.Message{Topic: "outbox.event.order", Key: []byte("outboxctl-canary"), Value: value, Headers: []consumer.Header{
			{Key: "id", Value: []byte("0190a000-0000-7000-8000-000000000001")}, {Key: "eventType", Value: []byte(consumer.CanaryEventType)}, {Key: "schemaVersion", Value: []byte("1")}}}
	}
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	must(t, err)
	calls := 0
	must(t, consumer.Handle(r, "OrderPlaced", 1, func(context.Context, consumer.Event[map[string]any]) error { calls++; return nil }))
	if err := consumer.Handle(r, consumer.CanaryEventType, 1, func(context.Context, consumer.Event[map[string]any]) error { calls++; return nil }); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("Handle(%s) = %v, want ErrInvalidConfig", consumer.CanaryEventType, err)
	}
	for _, v := range [][]byte{[]byte(`{"canary":true}`), {0, 0, 0, 0, 42, 2, 'x'}, nil} {
		m := canary(v)
		if err := r.Process(context.Background(), m); err != nil {
			t.Errorf("canary %q: Process = %v", v, err)
		}
		if m.Meta.EventID != "0190a000-0000-7000-8000-000000000001" || m.Meta.AggregateID != "outboxctl-canary" {
			t.Errorf("canary meta: %+v", m.Meta)
		}
	}
	if st := r.Stats(); st.Canaries != 3 || st.Handled != 0 || st.UnknownSkipped != 0 || st.UnknownStopped != 0 || calls != 0 {
		t.Errorf("stats %+v, handler calls %d", st, calls)
	}

	// In a batch the canary is counted once the batch committed.
	rb, err := consumer.NewRouter(consumer.RouterConfig{Inbox: consumertest.NewInbox(), ConsumerGroup: "g"})
	must(t, err)
	must(t, consumer.Handle(rb, "OrderPlaced", 1, func(context.Context, consumer.Event[map[string]any]) error { calls++; return nil }))
	order := &consumer.Message{Topic: "outbox.event.order", Offset: 1, Key: []byte("o-1"), Value: []byte(`{}`), Headers: []consumer.Header{
		{Key: "id", Value: []byte("0190a000-0000-7000-8000-000000000002")}, {Key: "eventType", Value: []byte("OrderPlaced")}, {Key: "schemaVersion", Value: []byte("1")}}}
	must(t, rb.ProcessBatch(context.Background(), []*consumer.Message{canary([]byte(`{}`)), order}))
	if st := rb.Stats(); st.Canaries != 1 || st.Handled != 1 || calls != 1 {
		t.Errorf("batch: stats %+v, handler calls %d", st, calls)
	}
}
