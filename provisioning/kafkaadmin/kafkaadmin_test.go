package kafkaadmin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/provisioning"
)

// fakeClient answers as a broker would: topic a exists, b is created, c
// fails; the metadata lists a and a topic in error.
type fakeClient struct {
	Client
	gotMs        int
	validateOnly int
}

func (f *fakeClient) GetMetadata(_ *string, _ bool, ms int) (*kafka.Metadata, error) {
	f.gotMs = ms
	return &kafka.Metadata{Topics: map[string]kafka.TopicMetadata{
		"a":   {Topic: "a", Partitions: make([]kafka.PartitionMetadata, 3)},
		"bad": {Topic: "bad", Error: kafka.NewError(kafka.ErrUnknownTopicOrPart, "unknown", false)},
	}}, nil
}

func (f *fakeClient) CreateTopics(_ context.Context, ts []kafka.TopicSpecification, opts ...kafka.CreateTopicsAdminOption) ([]kafka.TopicResult, error) {
	f.validateOnly = len(opts)
	var out []kafka.TopicResult
	for _, t := range ts {
		r := kafka.TopicResult{Topic: t.Topic}
		switch t.Topic {
		case "a":
			r.Error = kafka.NewError(kafka.ErrTopicAlreadyExists, "Topic 'a' already exists.", false)
		case "c":
			r.Error = kafka.NewError(kafka.ErrPolicyViolation, "no", false)
		}
		out = append(out, r)
	}
	return out, nil
}

func (f *fakeClient) DescribeConfigs(context.Context, []kafka.ConfigResource, ...kafka.DescribeConfigsAdminOption) ([]kafka.ConfigResourceResult, error) {
	return nil, kafka.NewError(kafka.ErrTimedOut, "Local: Timed out", false)
}

func TestAdmin(t *testing.T) {
	t.Parallel()
	f := &fakeClient{}
	a := New(f)
	parts, err := a.TopicPartitions(1500 * time.Millisecond)
	if err != nil || len(parts) != 1 || parts["a"] != 3 || f.gotMs != 1500 {
		t.Errorf("TopicPartitions = %v, %v (timeout %d ms), want a with 3 partitions within 1500 ms", parts, err, f.gotMs)
	}
	res, err := a.CreateTopics(context.Background(), []provisioning.NewTopic{{Name: "a"}, {Name: "b"}, {Name: "c"}}, true)
	if err != nil || len(res) != 3 || !errors.Is(res[0].Err, provisioning.ErrTopicExists) || res[1].Err != nil ||
		res[2].Err == nil || errors.Is(res[2].Err, provisioning.ErrTopicExists) {
		t.Errorf("CreateTopics = %+v, %v: want a exists, b created, c failed", res, err)
	}
	if f.validateOnly != 2 {
		t.Errorf("validateOnly: %d options, want the operation timeout and ValidateOnly", f.validateOnly)
	}
	// librdkafka's own time-out is a time-out to WithRequestTimeout.
	_, err = provisioning.WithRequestTimeout(a, time.Second).TopicConfigs(context.Background(), []string{"a"})
	if !errors.Is(err, provisioning.ErrTimeout) || !strings.Contains(err.Error(), "Local: Timed out") {
		t.Errorf("TopicConfigs on a timed-out client: %v, want ErrTimeout", err)
	}
}
