package provisioning

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// hangingAdmin is a broker that never answers: metadata requests time out
// after the time they are given, admin calls when their context ends.
type hangingAdmin struct{ gotMs int }

func (h *hangingAdmin) GetMetadata(_ *string, _ bool, ms int) (*kafka.Metadata, error) {
	h.gotMs = ms
	return nil, kafka.NewError(kafka.ErrTimedOut, "Local: Timed out", false)
}

func (h *hangingAdmin) CreateTopics(ctx context.Context, _ []kafka.TopicSpecification, _ ...kafka.CreateTopicsAdminOption) ([]kafka.TopicResult, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (h *hangingAdmin) DescribeConfigs(ctx context.Context, _ []kafka.ConfigResource, _ ...kafka.DescribeConfigsAdminOption) ([]kafka.ConfigResourceResult, error) {
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
	_, err = admin.CreateTopics(context.Background(), nil)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("create topics: %v", err)
	}
	_, err = admin.DescribeConfigs(context.Background(), nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("describe configs: %v", err)
	}
	if WithRequestTimeout(h, 0) != TopicAdmin(h) {
		t.Error("0 should leave the admin unchanged")
	}
}
