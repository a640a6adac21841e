package provisioning

import (
	"context"
	"errors"
	"time"
)

// The Kafka admin interfaces are declared with the package's own types, so
// that provisioning (and what imports it for its SQL checks, such as the
// exporter) builds without cgo. provisioning/kafkaadmin adapts
// confluent-kafka-go's *kafka.AdminClient to both.

// TopicAdmin is the part of a Kafka admin client the topic functions use
// (EnsureTopics); kafkaadmin.New(*kafka.AdminClient) satisfies it.
type TopicAdmin interface {
	// TopicPartitions returns the partition count of every topic the
	// broker's metadata lists without an error, waiting at most timeout.
	TopicPartitions(timeout time.Duration) (map[string]int, error)
	// CreateTopics creates topics (validateOnly: the broker only validates
	// the creation) and returns one result per topic. A topic that exists
	// already has an Err wrapping ErrTopicExists.
	CreateTopics(ctx context.Context, topics []NewTopic, validateOnly bool) ([]CreateResult, error)
	// TopicConfigs returns the config of each topic, in order.
	TopicConfigs(ctx context.Context, topics []string) ([]map[string]string, error)
}

// NewTopic is a topic to create; Partitions and ReplicationFactor -1 take
// the broker default.
type NewTopic struct {
	Name              string
	Partitions        int
	ReplicationFactor int
	Config            map[string]string
}

// CreateResult is the broker's answer for one topic of CreateTopics.
type CreateResult struct {
	Topic string
	Err   error // nil: created (or, validating, valid)
}

// ErrTopicExists: CreateTopics found the topic already there.
var ErrTopicExists = errors.New("topic already exists")

// LagAdmin is the part of a Kafka admin client ConsumerLag uses;
// kafkaadmin.New(*kafka.AdminClient) satisfies it.
type LagAdmin interface {
	// CommittedOffsets returns the group's committed offset on each
	// partition it has one for (a negative Offset: none).
	CommittedOffsets(ctx context.Context, group string) ([]PartitionOffset, error)
	// EndOffsets returns the log end offset of each partition.
	EndOffsets(ctx context.Context, partitions []TopicPartition) ([]PartitionOffset, error)
}

// TopicPartition is a partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// PartitionOffset is an offset on a partition, or the error the broker
// gave for it.
type PartitionOffset struct {
	TopicPartition
	Offset int64
	Err    error
}
