package provisioning

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/eventrouter"
)

// Topic purposes.
const (
	TopicRouted        = "routed"
	TopicSchemaHistory = "schema-history"
	TopicHeartbeat     = "heartbeat"
	TopicDLQ           = "dlq"
)

// TopicSpec is a topic an outbox needs.
type TopicSpec struct {
	Name    string `json:"name"`
	Outbox  string `json:"outbox"`
	Purpose string `json:"purpose"`
	// Partitions and ReplicationFactor; -1 takes the broker default.
	Partitions        int               `json:"partitions"`
	ReplicationFactor int               `json:"replicationFactor"`
	Config            map[string]string `json:"config,omitempty"`
}

// TopicOptions tune the routed topics.
type TopicOptions struct {
	// Partitions of routed topics (0: the broker's num.partitions). Events
	// of one aggregate stay in order in any case: the key is the aggregate id.
	Partitions int
	// ReplicationFactor of every topic (0: each outbox's
	// topics.replicationFactor, else the broker default).
	ReplicationFactor int
}

// Kafka's bounds: partitions are an int32, replication factors an int16.
const (
	MaxPartitions        = math.MaxInt32
	MaxReplicationFactor = math.MaxInt16
)

// Validate returns an error wrapping ErrInvalidOptions when Partitions or
// ReplicationFactor is negative (0 is the broker default) or beyond what
// Kafka takes (a larger int was truncated to 32 bits: 4294967299 created 3
// partitions).
func (o TopicOptions) Validate() error {
	if o.Partitions < 0 || o.Partitions > MaxPartitions {
		return fmt.Errorf("%w: partitions %d: want 1..%d, or 0 for the broker default", ErrInvalidOptions, o.Partitions, MaxPartitions)
	}
	if o.ReplicationFactor < 0 || o.ReplicationFactor > MaxReplicationFactor {
		return fmt.Errorf("%w: replication factor %d: want 1..%d, or 0 for the broker default", ErrInvalidOptions, o.ReplicationFactor, MaxReplicationFactor)
	}
	return nil
}

// SchemaHistoryConfig is the config of a MySQL/MariaDB schema history topic:
// Debezium must read the whole history back on every start.
var SchemaHistoryConfig = map[string]string{
	"cleanup.policy":  "delete",
	"retention.ms":    "-1",
	"retention.bytes": "-1",
}

// TopicSpecs lists the topics the targets need: one routed topic per
// aggregate type of the spec's events, the schema history topic of every
// MySQL/MariaDB connector (1 partition, cleanup.policy=delete, infinite
// retention) and the heartbeat topic of every connector with heartbeats
// (1 partition; a worker or broker that may not create topics would fail
// the task at its first heartbeat), and the dead-letter topic of every
// consumer the spec declares (consumers[].dlqTopic; a consumer refuses to
// start without it). Every topic of an outbox gets its
// topics.replicationFactor (unless opts sets one) and
// topics.minInsyncReplicas. Findings say what cannot be derived.
func TopicSpecs(targets []Target, opts TopicOptions) ([]TopicSpec, []Finding) {
	fs := &findings{}
	parts := opts.Partitions
	if parts == 0 {
		parts = -1
	}
	seen := map[string]bool{}
	var out []TopicSpec
	for _, t := range targets {
		o := t.Outbox
		fs.outbox = o.Name
		// The replication factor: the option (--replication-factor), else
		// the outbox's topics.replicationFactor, else the broker default.
		specRF, minISR := o.TopicReplication()
		rf := opts.ReplicationFactor
		if rf == 0 {
			rf = specRF
		}
		if rf == 0 {
			rf = -1
		}
		// withISR adds the outbox's topics.minInsyncReplicas to cfg.
		withISR := func(cfg map[string]string) map[string]string {
			if minISR == 0 {
				return cfg
			}
			if cfg == nil {
				cfg = map[string]string{}
			}
			cfg["min.insync.replicas"] = strconv.Itoa(minISR)
			return cfg
		}
		if o.Routing.ByField != o.Columns.AggregateType {
			fs.add(IDTopicRouting, SeverityInfo, "routing.byField", "create the routed topics yourself",
				"routing by column %s: the topic names depend on row values the spec does not list", o.Routing.ByField)
		} else {
			var aggs []string
			for _, e := range o.Events {
				if e.Aggregate != "" && !seen[o.Name+"\x00"+e.Aggregate] {
					seen[o.Name+"\x00"+e.Aggregate] = true
					aggs = append(aggs, e.Aggregate)
				}
			}
			sort.Strings(aggs)
			for _, a := range aggs {
				// An unmatched value stays the topic, as in the EventRouter.
				name, _, err := eventrouter.RoutingTopic(o.Routing, a)
				if err != nil {
					fs.add(IDTopicRouting, SeverityWarning, "routing.topicRegex", "create the routed topics yourself", "%v", err)
					break
				}
				if seen[name] {
					continue
				}
				seen[name] = true
				out = append(out, TopicSpec{Name: name, Outbox: o.Name, Purpose: TopicRouted, Partitions: parts, ReplicationFactor: rf, Config: withISR(nil)})
			}
		}
		if h := t.Config("schema.history.internal.kafka.topic"); h != "" && !seen[h] {
			seen[h] = true
			cfg := map[string]string{}
			for k, v := range SchemaHistoryConfig {
				cfg[k] = v
			}
			out = append(out, TopicSpec{Name: h, Outbox: o.Name, Purpose: TopicSchemaHistory, Partitions: 1, ReplicationFactor: rf, Config: withISR(cfg)})
		}
		if h := connectorconfig.HeartbeatTopicOf(t.Connector.Config); h != "" && !seen[h] {
			seen[h] = true
			out = append(out, TopicSpec{Name: h, Outbox: o.Name, Purpose: TopicHeartbeat, Partitions: 1, ReplicationFactor: rf, Config: withISR(nil)})
		}
		for _, c := range o.Consumers {
			if c.DLQTopic == "" || seen[c.DLQTopic] {
				continue
			}
			seen[c.DLQTopic] = true
			p := c.Partitions
			if p == 0 {
				p = -1
			}
			out = append(out, TopicSpec{Name: c.DLQTopic, Outbox: o.Name, Purpose: TopicDLQ, Partitions: p, ReplicationFactor: rf, Config: withISR(nil)})
		}
	}
	return out, fs.list
}

// TopicResult is what EnsureTopics did with one topic.
type TopicResult struct {
	TopicSpec
	// Action is "create" (created, or would be with dryRun) or "exists".
	Action string `json:"action"`
	// ActualPartitions of an existing topic.
	ActualPartitions int `json:"actualPartitions,omitempty"`
}

// EnsureTopics creates the missing topics (with dryRun: asks the broker to
// validate the creation, ValidateOnly, and creates nothing) and checks the
// existing ones: a different partition count, a schema history topic with
// more than one partition or finite retention are findings, not errors.
// Errors (wrapping ErrTopics) are for an unreachable or failing broker.
func EnsureTopics(ctx context.Context, admin TopicAdmin, specs []TopicSpec, dryRun bool) ([]TopicResult, []Finding, error) {
	existing, err := topicPartitions(admin)
	if err != nil {
		return nil, nil, err
	}
	fs := &findings{}
	var results []TopicResult
	var create []NewTopic
	var createIdx []int
	var late []int // exist, but the metadata lists no partitions yet
	for _, s := range specs {
		r := TopicResult{TopicSpec: s}
		if n, ok := existing[s.Name]; ok {
			r.Action = "exists"
			r.ActualPartitions = n
			if n == 0 {
				late = append(late, len(results))
			}
		} else {
			r.Action = "create"
			create = append(create, NewTopic{Name: s.Name, Partitions: s.Partitions, ReplicationFactor: s.ReplicationFactor, Config: s.Config})
			createIdx = append(createIdx, len(results))
		}
		results = append(results, r)
	}
	if len(create) > 0 {
		res, err := admin.CreateTopics(ctx, create, dryRun)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: create %d topics: %w", ErrTopics, len(create), err)
		}
		for i, r := range res {
			switch {
			case r.Err == nil:
			case errors.Is(r.Err, ErrTopicExists):
				// Created concurrently, or just created and not yet in the
				// metadata the broker answered with (KRaft brokers apply
				// new topics shortly after the controller commits them).
				results[createIdx[i]].Action = "exists"
				late = append(late, createIdx[i])
			default:
				return results, fs.list, fmt.Errorf("%w: create topic %s: %v", ErrTopics, r.Topic, r.Err)
			}
		}
	}
	if err := lateMetadata(ctx, admin, results, late); err != nil {
		return nil, nil, err
	}
	for _, r := range results {
		if r.Action != "exists" {
			continue
		}
		fs.outbox = r.Outbox
		if r.Partitions > 0 && r.ActualPartitions != r.Partitions {
			sev := SeverityWarning
			if r.Purpose == TopicSchemaHistory {
				sev = SeverityError
			}
			fs.add(IDTopicPartitions, sev, "topic "+r.Name, "recreate the topic (routed topics: adding partitions moves aggregates to other partitions)",
				"topic has %d partitions, want %d", r.ActualPartitions, r.Partitions)
		}
	}
	if err := checkHistoryConfigs(ctx, admin, results, fs); err != nil {
		return nil, nil, err
	}
	return results, fs.list, nil
}

// lateMetadata fills ActualPartitions of the results at idx, topics the
// broker said exist but its metadata did not list yet, waiting (up to 10 s
// or ctx) until the metadata lists them with their partitions.
func lateMetadata(ctx context.Context, admin TopicAdmin, results []TopicResult, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		existing, err := topicPartitions(admin)
		if err != nil {
			return err
		}
		missing := 0
		for _, i := range idx {
			if n := existing[results[i].Name]; n > 0 {
				results[i].ActualPartitions = n
			} else {
				missing++
			}
		}
		if missing == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %d topic(s) exist but the broker's metadata does not list their partitions after 10s", ErrTopics, missing)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrTopics, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// metadataTimeout bounds a metadata request (less with
// WithRequestTimeout).
const metadataTimeout = 15 * time.Second

func topicPartitions(admin TopicAdmin) (map[string]int, error) {
	out, err := admin.TopicPartitions(metadataTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata: %w", ErrTopics, err)
	}
	return out, nil
}

func checkHistoryConfigs(ctx context.Context, admin TopicAdmin, results []TopicResult, fs *findings) error {
	var res []string
	var idx []int
	for i, r := range results {
		if r.Purpose == TopicSchemaHistory && r.Action == "exists" {
			res = append(res, r.Name)
			idx = append(idx, i)
		}
	}
	if len(res) == 0 {
		return nil
	}
	got, err := admin.TopicConfigs(ctx, res)
	if err != nil {
		return fmt.Errorf("%w: describe configs: %w", ErrTopics, err)
	}
	for i, c := range got {
		r := results[idx[i]]
		fs.outbox = r.Outbox
		val := func(k string) string { return c[k] }
		if p := val("cleanup.policy"); p != "" && p != "delete" {
			fs.add(IDTopicConfig, SeverityError, "topic "+r.Name, "kafka-configs --alter --add-config cleanup.policy=delete",
				"schema history topic has cleanup.policy=%s: compaction loses DDL history", p)
		}
		if ms, err := strconv.ParseInt(val("retention.ms"), 10, 64); err == nil && ms >= 0 {
			fs.add(IDTopicConfig, SeverityError, "topic "+r.Name, "kafka-configs --alter --add-config retention.ms=-1",
				"schema history topic has retention.ms=%d: the connector fails to start once history expires", ms)
		}
	}
	return nil
}
