package consumer_test

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// observed records what an Observer is told, as "<event id> <kind>".
type observed struct {
	mu   sync.Mutex
	seen []string
}

func (o *observed) ObserveRecord(_ context.Context, m *consumer.Message, ob consumer.Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := m.Meta.EventID + " " + ob.Kind.String()
	if ob.Kind == consumer.ObservedHandlerCall && ob.Err != nil {
		s += " error"
	}
	o.seen = append(o.seen, s)
}

func (o *observed) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.seen
	o.seen = nil
	return out
}

func obsRecord(id string, fail bool) *consumer.Message {
	v := `{}`
	if fail {
		v = `{"fail":true}`
	}
	return &consumer.Message{Topic: "t", Value: []byte(v), Headers: []consumer.Header{{Key: "id", Value: []byte(id)}, {Key: "eventType", Value: []byte("T")}}}
}

// TestObserverBatch: in a batch the outcomes are told once the batch
// committed; a rolled-back batch tells only its handler calls.
func TestObserverBatch(t *testing.T) {
	in := consumertest.NewInbox()
	defer in.Close()
	obs := &observed{}
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: in, ConsumerGroup: "g", Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if err := consumer.Handle(r, "T", 1, func(_ context.Context, ev consumer.Event[struct {
		Fail bool `json:"fail"`
	}]) error {
		if ev.Payload.Fail {
			return errors.New("fail")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Process(ctx, obsRecord("a", false)); err != nil {
		t.Fatal(err)
	}
	if got, want := obs.take(), []string{"a handler_call", "a handled"}; !slices.Equal(got, want) {
		t.Errorf("Process: observed %q, want %q", got, want)
	}
	if err := r.ProcessBatch(ctx, []*consumer.Message{obsRecord("b", false), obsRecord("a", false), obsRecord("c", false)}); err != nil {
		t.Fatal(err)
	}
	if got, want := obs.take(), []string{"b handler_call", "c handler_call", "b handled", "a duplicate", "c handled"}; !slices.Equal(got, want) {
		t.Errorf("ProcessBatch: observed %q, want %q", got, want)
	}
	if err := r.ProcessBatch(ctx, []*consumer.Message{obsRecord("d", false), obsRecord("e", true)}); err == nil {
		t.Fatal("ProcessBatch with a failing record = nil")
	}
	if got, want := obs.take(), []string{"d handler_call", "e handler_call error"}; !slices.Equal(got, want) {
		t.Errorf("failed batch: observed %q, want %q", got, want)
	}
	if err := r.Process(ctx, obsRecord("e", true)); err == nil {
		t.Fatal("Process of a failing record = nil")
	}
	if got, want := obs.take(), []string{"e handler_call error", "e failed"}; !slices.Equal(got, want) {
		t.Errorf("failing Process: observed %q, want %q", got, want)
	}
}

// TestCoreImportsNoMetricsOrTracing: the core packages depend on neither
// Prometheus nor OpenTelemetry (the optional subpackages do).
func TestCoreImportsNoMetricsOrTracing(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/outboxctl/outboxctl/consumer", "github.com/outboxctl/outboxctl/outbox", "github.com/outboxctl/outboxctl/relay").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/outboxctl/outboxctl/internal/logattr") {
		t.Fatalf("go list -deps lacks internal/logattr: %v", deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/prometheus/") || strings.HasPrefix(d, "go.opentelemetry.io/") {
			t.Errorf("a core package depends on %s", d)
		}
	}
}
