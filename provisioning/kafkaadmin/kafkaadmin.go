// Package kafkaadmin adapts confluent-kafka-go's admin client to
// provisioning's TopicAdmin and LagAdmin. It is the one part of
// provisioning that needs cgo (librdkafka): provisioning itself, and what
// imports it for its SQL checks (the exporter), builds with CGO_ENABLED=0.
package kafkaadmin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/provisioning"
)

// Client is the part of *kafka.AdminClient the adapter calls.
type Client interface {
	GetMetadata(topic *string, allTopics bool, timeoutMs int) (*kafka.Metadata, error)
	CreateTopics(ctx context.Context, topics []kafka.TopicSpecification, options ...kafka.CreateTopicsAdminOption) ([]kafka.TopicResult, error)
	DescribeConfigs(ctx context.Context, resources []kafka.ConfigResource, options ...kafka.DescribeConfigsAdminOption) ([]kafka.ConfigResourceResult, error)
	ListConsumerGroupOffsets(ctx context.Context, groups []kafka.ConsumerGroupTopicPartitions, options ...kafka.ListConsumerGroupOffsetsAdminOption) (kafka.ListConsumerGroupOffsetsResult, error)
	ListOffsets(ctx context.Context, offsets map[kafka.TopicPartition]kafka.OffsetSpec, options ...kafka.ListOffsetsAdminOption) (kafka.ListOffsetsResult, error)
}

// Admin is provisioning.TopicAdmin and provisioning.LagAdmin over a Kafka
// admin client.
type Admin struct{ c Client }

var (
	_ provisioning.TopicAdmin = (*Admin)(nil)
	_ provisioning.LagAdmin   = (*Admin)(nil)
)

// New returns the adapter of c (a *kafka.AdminClient). It does not close c.
func New(c Client) *Admin { return &Admin{c: c} }

// CreateTimeout is the broker-side operation timeout of CreateTopics.
const CreateTimeout = 30 * time.Second

// timedOut is a librdkafka time-out (ErrTimedOut): it unwraps to
// context.DeadlineExceeded too, so provisioning.WithRequestTimeout reports
// it as a *provisioning.TimeoutError.
type timedOut struct{ err error }

func (e timedOut) Error() string   { return e.err.Error() }
func (e timedOut) Unwrap() []error { return []error{e.err, context.DeadlineExceeded} }

// wrap marks librdkafka's time-outs.
func wrap(err error) error {
	var ke kafka.Error
	if errors.As(err, &ke) && ke.Code() == kafka.ErrTimedOut {
		return timedOut{err}
	}
	return err
}

// TopicPartitions implements provisioning.TopicAdmin.
func (a *Admin) TopicPartitions(timeout time.Duration) (map[string]int, error) {
	md, err := a.c.GetMetadata(nil, true, int(timeout/time.Millisecond))
	if err != nil {
		return nil, wrap(err)
	}
	out := map[string]int{}
	for name, t := range md.Topics {
		if t.Error.Code() == kafka.ErrNoError {
			out[name] = len(t.Partitions)
		}
	}
	return out, nil
}

// CreateTopics implements provisioning.TopicAdmin.
func (a *Admin) CreateTopics(ctx context.Context, topics []provisioning.NewTopic, validateOnly bool) ([]provisioning.CreateResult, error) {
	specs := make([]kafka.TopicSpecification, len(topics))
	for i, t := range topics {
		specs[i] = kafka.TopicSpecification{Topic: t.Name, NumPartitions: t.Partitions, ReplicationFactor: t.ReplicationFactor, Config: t.Config}
	}
	opts := []kafka.CreateTopicsAdminOption{kafka.SetAdminOperationTimeout(CreateTimeout)}
	if validateOnly {
		opts = append(opts, kafka.SetAdminValidateOnly(true))
	}
	res, err := a.c.CreateTopics(ctx, specs, opts...)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]provisioning.CreateResult, len(res))
	for i, r := range res {
		out[i].Topic = r.Topic
		switch r.Error.Code() {
		case kafka.ErrNoError:
		case kafka.ErrTopicAlreadyExists:
			out[i].Err = fmt.Errorf("%w: %v", provisioning.ErrTopicExists, r.Error)
		default:
			out[i].Err = r.Error
		}
	}
	return out, nil
}

// TopicConfigs implements provisioning.TopicAdmin.
func (a *Admin) TopicConfigs(ctx context.Context, topics []string) ([]map[string]string, error) {
	res := make([]kafka.ConfigResource, len(topics))
	for i, t := range topics {
		res[i] = kafka.ConfigResource{Type: kafka.ResourceTopic, Name: t}
	}
	got, err := a.c.DescribeConfigs(ctx, res)
	if err != nil {
		return nil, wrap(err)
	}
	out := make([]map[string]string, len(got))
	for i, c := range got {
		out[i] = make(map[string]string, len(c.Config))
		for k, v := range c.Config {
			out[i][k] = v.Value
		}
	}
	return out, nil
}

// CommittedOffsets implements provisioning.LagAdmin.
func (a *Admin) CommittedOffsets(ctx context.Context, group string) ([]provisioning.PartitionOffset, error) {
	res, err := a.c.ListConsumerGroupOffsets(ctx, []kafka.ConsumerGroupTopicPartitions{{Group: group}}, kafka.SetAdminRequireStableOffsets(false))
	if err != nil {
		return nil, wrap(err)
	}
	var out []provisioning.PartitionOffset
	for _, gp := range res.ConsumerGroupsTopicPartitions {
		for _, tp := range gp.Partitions {
			out = append(out, provisioning.PartitionOffset{TopicPartition: provisioning.TopicPartition{Topic: *tp.Topic, Partition: tp.Partition}, Offset: int64(tp.Offset), Err: tp.Error})
		}
	}
	return out, nil
}

// EndOffsets implements provisioning.LagAdmin.
func (a *Admin) EndOffsets(ctx context.Context, partitions []provisioning.TopicPartition) ([]provisioning.PartitionOffset, error) {
	specs := make(map[kafka.TopicPartition]kafka.OffsetSpec, len(partitions))
	for _, p := range partitions {
		topic := p.Topic
		specs[kafka.TopicPartition{Topic: &topic, Partition: p.Partition}] = kafka.LatestOffsetSpec
	}
	res, err := a.c.ListOffsets(ctx, specs)
	if err != nil {
		return nil, wrap(err)
	}
	var out []provisioning.PartitionOffset
	for tp, info := range res.ResultInfos {
		o := provisioning.PartitionOffset{TopicPartition: provisioning.TopicPartition{Topic: *tp.Topic, Partition: tp.Partition}, Offset: int64(info.Offset)}
		if info.Error.Code() != kafka.ErrNoError {
			o.Err = info.Error
		}
		out = append(out, o)
	}
	return out, nil
}
