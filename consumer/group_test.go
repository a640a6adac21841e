package consumer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// The inbox's consumer group comes from ConsumerConfig.GroupID: an empty
// RouterConfig.ConsumerGroup takes it, an equal one is fine, a different
// one is refused by NewConsumer with both names in the error.
func TestConsumerGroupFromGroupID(t *testing.T) {
	tests := []struct {
		name        string
		routerGroup string
		wantGroup   string // the group the inbox marks the event for
		wantErr     bool
	}{
		{"derived", "", "billing", false},
		{"equal", "billing", "billing", false},
		{"conflict", "shipping", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := consumertest.NewInbox()
			defer in.Close()
			r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: tt.routerGroup})
			if err != nil {
				t.Fatalf("NewRouter: %v", err)
			}
			must(t, consumer.Handle(r, "A", 0, func(context.Context, consumer.Event[any]) error { return nil }))
			cfg := consumer.ConsumerConfig{BootstrapServers: "localhost:1", GroupID: "billing", Topics: []string{"t"}, FinalCommitTimeout: time.Millisecond}
			c, err := consumer.NewConsumer(cfg, r)
			if tt.wantErr {
				if !errors.Is(err, consumer.ErrInvalidConfig) || !strings.Contains(err.Error(), `"shipping"`) || !strings.Contains(err.Error(), `"billing"`) {
					t.Fatalf("NewConsumer = %v, want ErrInvalidConfig naming both groups", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewConsumer: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_ = c.Run(ctx) // closes the client
			m := &consumer.Message{Value: []byte(`{}`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("A")}, {Key: "id", Value: []byte("e1")}}}
			if err := r.Process(context.Background(), m); err != nil {
				t.Fatalf("Process: %v", err)
			}
			if !in.Processed(tt.wantGroup, "e1") {
				t.Errorf("event not marked processed for group %q", tt.wantGroup)
			}
		})
	}
}

// A Router with an Inbox fed by Process directly needs its ConsumerGroup.
func TestRouterInboxWithoutGroup(t *testing.T) {
	in := consumertest.NewInbox()
	defer in.Close()
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in})
	if err != nil {
		t.Fatalf("NewRouter: %v", err)
	}
	must(t, consumer.Handle(r, "A", 0, func(context.Context, consumer.Event[any]) error { return nil }))
	m := &consumer.Message{Value: []byte(`{}`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("A")}, {Key: "id", Value: []byte("e1")}}}
	if err := r.Process(context.Background(), m); !errors.Is(err, consumer.ErrInvalidConfig) || !strings.Contains(err.Error(), "ConsumerGroup") {
		t.Errorf("Process = %v, want ErrInvalidConfig naming ConsumerGroup", err)
	}
	if err := r.ProcessBatch(context.Background(), []*consumer.Message{m, m}); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("ProcessBatch = %v, want ErrInvalidConfig", err)
	}
}
