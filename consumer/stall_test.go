package consumer_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// deafStore is an inbox whose Begin ignores its context: it blocks until
// release is closed, as a driver that does not honour deadlines on a
// database that does not answer.
type deafStore struct {
	*consumertest.Inbox
	release chan struct{}
}

func (d *deafStore) Begin(ctx context.Context) (*sql.Tx, error) {
	<-d.release
	return nil, errors.New("connection reset")
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInboxTimeoutDeafDriver: with a driver that ignores the deadline the
// stall is still reported (WARN with the step, one ObservedInboxTimeout)
// soon after InboxTimeout, while the lane waits; when the driver returns
// the record fails with a transient ErrInboxTimeout, reported once.
func TestInboxTimeoutDeafDriver(t *testing.T) {
	in := consumertest.NewInbox()
	defer in.Close()
	store := &deafStore{Inbox: in, release: make(chan struct{})}
	logs := &lockedBuffer{}
	obs := &observed{}
	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store, ConsumerGroup: "g", Observer: obs,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), InboxTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	must(t, consumer.Handle(r, "T", 1, func(context.Context, consumer.Event[any]) error { return nil }))
	done := make(chan error, 1)
	go func() { done <- r.Process(context.Background(), obsRecord("a", false)) }()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "ignores the deadline") {
		if time.Now().After(deadline) {
			t.Fatalf("no WARN line on the blocked inbox transaction within 5s: %q", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Process returned %v while the driver still blocks", err)
	default:
	}
	if line := logs.String(); !strings.Contains(line, "level=WARN") || !strings.Contains(line, "step=begin") || !strings.Contains(line, "event_id=a") {
		t.Errorf("log %q: want a WARN naming the step and the event", line)
	}
	close(store.release)
	err = <-done
	if !errors.Is(err, consumer.ErrInboxTimeout) || !consumer.IsTransient(err) {
		t.Errorf("Process = %v, want a transient ErrInboxTimeout", err)
	}
	if got, want := obs.take(), []string{"a inbox_timeout", "a failed"}; !slices.Equal(got, want) {
		t.Errorf("observed %q, want %q (the stall told once)", got, want)
	}
	if n := strings.Count(logs.String(), "timed out"); n != 1 {
		t.Errorf("%d stall lines, want 1: %q", n, logs.String())
	}
}
