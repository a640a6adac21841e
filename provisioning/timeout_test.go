package provisioning

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hangingAdmin is a broker that never answers: metadata requests time out
// after the time they are given (as a client's own time-out, which
// kafkaadmin makes unwrap to context.DeadlineExceeded), admin calls when
// their context ends.
type hangingAdmin struct{ gotMs int }

func (h *hangingAdmin) TopicPartitions(timeout time.Duration) (map[string]int, error) {
	h.gotMs = int(timeout / time.Millisecond)
	return nil, fmt.Errorf("Local: Timed out: %w", context.DeadlineExceeded)
}

func (h *hangingAdmin) CreateTopics(ctx context.Context, _ []NewTopic, _ bool) ([]CreateResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (h *hangingAdmin) TopicConfigs(ctx context.Context, _ []string) ([]map[string]string, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestWithRequestTimeout(t *testing.T) {
	t.Parallel()
	h := &hangingAdmin{}
	admin := WithRequestTimeout(h, 50*time.Millisecond)
	_, _, err := EnsureTopics(context.Background(), admin, []TopicSpec{{Name: "t", Partitions: 1, ReplicationFactor: 1}}, true)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrTopics) || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Fatalf("err = %v, want ErrTimeout saying the bound", err)
	}
	if h.gotMs != 50 {
		t.Errorf("metadata timeout = %dms, want the request timeout (50ms)", h.gotMs)
	}
	_, err = admin.CreateTopics(context.Background(), nil, false)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("create topics: %v", err)
	}
	_, err = admin.TopicConfigs(context.Background(), nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("describe configs: %v", err)
	}
	if WithRequestTimeout(h, 0) != TopicAdmin(h) {
		t.Error("0 should leave the admin unchanged")
	}
}
