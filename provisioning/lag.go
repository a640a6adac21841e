package provisioning

import (
	"context"
	"fmt"
	"sort"
)

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
		offs, err := admin.CommittedOffsets(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("%w: offsets of group %s: %w", ErrTopics, g, err)
		}
		var committed []PartitionOffset
		var parts []TopicPartition
		for _, tp := range offs {
			if tp.Err != nil {
				return nil, fmt.Errorf("%w: offsets of group %s: %s[%d]: %w", ErrTopics, g, tp.Topic, tp.Partition, tp.Err)
			}
			if tp.Offset < 0 { // no committed offset
				continue
			}
			committed = append(committed, tp)
			parts = append(parts, tp.TopicPartition)
		}
		if len(committed) == 0 {
			continue
		}
		ends, err := admin.EndOffsets(ctx, parts)
		if err != nil {
			return nil, fmt.Errorf("%w: end offsets for group %s: %w", ErrTopics, g, err)
		}
		end := map[TopicPartition]int64{}
		for _, e := range ends {
			if e.Err != nil {
				return nil, fmt.Errorf("%w: end offset of %s[%d]: %w", ErrTopics, e.Topic, e.Partition, e.Err)
			}
			end[e.TopicPartition] = e.Offset
		}
		for _, tp := range committed {
			e, ok := end[tp.TopicPartition]
			if !ok {
				continue
			}
			out = append(out, PartitionLag{Group: g, Topic: tp.Topic, Partition: tp.Partition, Committed: tp.Offset, End: e, Lag: max(e-tp.Offset, 0)})
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
