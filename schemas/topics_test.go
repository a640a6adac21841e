package schemas

import (
	"errors"
	"slices"
	"testing"
)

// TestTopics: the routed topics of an outbox without looping over
// Catalog.Entries (#28 item 8), from the catalog and from the spec alone.
func TestTopics(t *testing.T) {
	ckWorkspace(t, ckFiles())
	s, cat := ckCatalog(t)
	tests := []struct {
		outbox string
		want   []string
	}{
		{"orders", []string{"events.Order"}}, // two majors, one topic
		{"payments", []string{"outbox.event.Payment"}},
		{"nope", nil},
	}
	for _, tt := range tests {
		if got := cat.Topics(tt.outbox); !slices.Equal(got, tt.want) {
			t.Errorf("Catalog.Topics(%q) = %q, want %q", tt.outbox, got, tt.want)
		}
	}
	for i := range s.Outboxes {
		got, err := OutboxTopics(&s.Outboxes[i])
		if err != nil || !slices.Equal(got, tests[i].want) {
			t.Errorf("OutboxTopics(%s) = %q, %v; want %q", s.Outboxes[i].Name, got, err, tests[i].want)
		}
	}
	if got, ok := cat.Topic("orders", "OrderCreated"); !ok || got != "events.Order" {
		t.Errorf("Topic(orders, OrderCreated) = %q, %v", got, ok)
	}
	if got, ok := cat.Topic("orders", "PaymentCaptured"); ok {
		t.Errorf("Topic(orders, PaymentCaptured) = %q, true; want false", got)
	}

	// Several event types on several topics, in spec order, deduplicated.
	o := s.Outboxes[0]
	o.Routing.ByField = o.Columns.Type
	o.Routing.TopicRegex, o.Routing.TopicReplacement = "", "ev.${routedByValue}"
	o.Events = append(slices.Clone(o.Events), o.Events[0])
	o.Events[1].Name = "OrderShipped"
	got, err := OutboxTopics(&o)
	if want := []string{"ev.OrderCreated", "ev.OrderShipped"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("OutboxTopics(by type) = %q, %v; want %q", got, err, want)
	}

	// A topic that cannot be derived is an error.
	o.Routing.TopicRegex, o.Routing.TopicReplacement = "Pay.*", "x"
	if _, err := OutboxTopics(&o); err == nil || !errors.Is(err, ErrBadCatalog) {
		t.Errorf("OutboxTopics(no match) = %v, want ErrBadCatalog", err)
	}
}
