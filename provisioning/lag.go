package provisioning

import (
	"context"
	"fmt"
	"sort"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// LagAdmin is the part of the Kafka admin client that ConsumerLag uses
// (*kafka.AdminClient).
type LagAdmin interface {
	ListConsumerGroupOffsets(ctx context.Context, groups []kafka.ConsumerGroupTopicPartitions, options ...kafka.ListConsumerGroupOffsetsAdminOption) (kafka.ListConsumerGroupOffsetsResult, error)
	ListOffsets(ctx context.Context, offsets map[kafka.TopicPartition]kafka.OffsetSpec, options ...kafka.ListOffsetsAdminOption) (kafka.ListOffsetsResult, error)
}

// PartitionLag is a consumer group's lag on one partition: the log end
// offset minus the group's committed offset.
type PartitionLag struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed int64  `json:"committed"`
	End       int64  `json:"end"`
	Lag       int64  `json:"lag"`
}

// ConsumerLag reads the committed offsets of each group and the end offsets
// of their partitions, and returns the lag per group, topic and partition
// (sorted). It is the one place consumer lag is computed (doctor and the
// exporter). A group with no committed offsets has no rows.
func ConsumerLag(ctx context.Context, admin LagAdmin, groups []string) ([]PartitionLag, error) {
	var out []PartitionLag
	for _, g := range groups {
		res, err := admin.ListConsumerGroupOffsets(ctx, []kafka.ConsumerGroupTopicPartitions{{Group: g}}, kafka.SetAdminRequireStableOffsets(false))
		if err != nil {
			return nil, fmt.Errorf("%w: offsets of group %s: %w", ErrTopics, g, err)
		}
		ends := map[kafka.TopicPartition]kafka.OffsetSpec{}
		var committed []kafka.TopicPartition
		for _, gp := range res.ConsumerGroupsTopicPartitions {
			for _, tp := range gp.Partitions {
				if tp.Error != nil {
					return nil, fmt.Errorf("%w: offsets of group %s: %s[%d]: %w", ErrTopics, g, *tp.Topic, tp.Partition, tp.Error)
				}
				if tp.Offset < 0 { // no committed offset
					continue
				}
				committed = append(committed, tp)
				ends[kafka.TopicPartition{Topic: tp.Topic, Partition: tp.Partition}] = kafka.LatestOffsetSpec
			}
		}
		if len(committed) == 0 {
			continue
		}
		lo, err := admin.ListOffsets(ctx, ends)
		if err != nil {
			return nil, fmt.Errorf("%w: end offsets for group %s: %w", ErrTopics, g, err)
		}
		type key struct {
			topic string
			part  int32
		}
		end := map[key]int64{}
		for tp, info := range lo.ResultInfos {
			if info.Error.Code() != kafka.ErrNoError {
				return nil, fmt.Errorf("%w: end offset of %s[%d]: %w", ErrTopics, *tp.Topic, tp.Partition, info.Error)
			}
			end[key{*tp.Topic, tp.Partition}] = int64(info.Offset)
		}
		for _, tp := range committed {
			e, ok := end[key{*tp.Topic, tp.Partition}]
			if !ok {
				continue
			}
			out = append(out, PartitionLag{Group: g, Topic: *tp.Topic, Partition: tp.Partition, Committed: int64(tp.Offset), End: e, Lag: max(e-int64(tp.Offset), 0)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return out, nil
}
