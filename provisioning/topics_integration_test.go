//go:build integration

package provisioning_test

import (
	"context"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/provisioning/kafkaadmin"
	"github.com/outboxctl/outboxctl/spec"
)

// TestEnsureTopicsKafka creates the routed and schema history topics of a
// MariaDB outbox on the real broker: the dry run (ValidateOnly) creates
// nothing, the real run creates them with the history topic's config, a
// second run finds them existing without findings. Every name carries the
// run suffix (the heartbeat topic too, through topicPrefix): another test
// of the same run may create __debezium-heartbeat.orders.
func TestEnsureTopicsKafka(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	tg := target(t, spec.MariaDB, `
    events:
      - {name: OrderCreated, aggregate: Order`+sfx+`, versions: [{major: 1, schema: a.avsc}]}
    connector: {schemaHistoryTopic: schema-history.it-`+sfx+`, topicPrefix: it-`+sfx+`}
`)
	specs, _ := provisioning.TopicSpecs([]provisioning.Target{tg}, provisioning.TopicOptions{Partitions: 2})
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Name)
	}
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, names...) })
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()

	res, fs, err := provisioning.EnsureTopics(ctx, kafkaadmin.New(admin), specs, true)
	if err != nil || len(fs) != 0 {
		t.Fatalf("dry run: %v %v", fs, err)
	}
	md, _ := admin.GetMetadata(nil, true, 10000)
	for _, n := range names {
		if _, ok := md.Topics[n]; ok {
			t.Errorf("dry run created %s", n)
		}
	}
	if res[0].Action != "create" {
		t.Errorf("dry run action = %s", res[0].Action)
	}
	if _, fs, err = provisioning.EnsureTopics(ctx, kafkaadmin.New(admin), specs, false); err != nil || len(fs) != 0 {
		t.Fatalf("create: %v %v", fs, err)
	}
	res, fs, err = provisioning.EnsureTopics(ctx, kafkaadmin.New(admin), specs, false)
	if err != nil || len(fs) != 0 {
		t.Fatalf("second run: %v %v", fs, err)
	}
	for _, r := range res {
		want := 2
		if r.Purpose == provisioning.TopicSchemaHistory || r.Purpose == provisioning.TopicHeartbeat {
			want = 1
		}
		if r.Action != "exists" || r.ActualPartitions != want {
			t.Errorf("%s: action %s, %d partitions; want exists with %d", r.Name, r.Action, r.ActualPartitions, want)
		}
	}
	// Health sees them all.
	hfs, err := provisioning.TopicHealth(ctx, kafkaadmin.New(admin), specs)
	if err != nil || len(hfs) != 0 {
		t.Errorf("TopicHealth: %v %v", hfs, err)
	}
}

// TestEnsureTopicsCreatesDLQ: the dead-letter topic of a consumer the spec
// declares is created on the real broker (which auto-creates nothing for
// a consumer: a consumer without it refuses to start), with its
// partitions.
func TestEnsureTopicsCreatesDLQ(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	dlq := "billing-" + sfx + ".dlq"
	tg := target(t, spec.Postgres, `
    events:
      - {name: OrderCreated, aggregate: Order`+sfx+`, versions: [{major: 1, schema: a.avsc}]}
    connector: {topicPrefix: it-`+sfx+`}
    consumers:
      - {group: billing-`+sfx+`, dlqTopic: `+dlq+`, partitions: 3}
`)
	specs, _ := provisioning.TopicSpecs([]provisioning.Target{tg}, provisioning.TopicOptions{Partitions: 1})
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Name)
	}
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, names...) })
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	res, fs, err := provisioning.EnsureTopics(context.Background(), kafkaadmin.New(admin), specs, false)
	if err != nil || len(fs) != 0 {
		t.Fatalf("EnsureTopics: %v %v", fs, err)
	}
	found := false
	for _, r := range res {
		found = found || (r.Name == dlq && r.Purpose == provisioning.TopicDLQ && r.Action == "create")
	}
	if !found {
		t.Errorf("results %+v lack the created DLQ topic %s", res, dlq)
	}
	// A KRaft broker lists a just-created topic shortly after the
	// controller committed it: read the metadata until it does (10 s).
	var tm kafka.TopicMetadata
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		md, err := admin.GetMetadata(&dlq, false, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if tm = md.Topics[dlq]; (tm.Error.Code() == kafka.ErrNoError && len(tm.Partitions) > 0) || time.Now().After(deadline) {
			break
		}
	}
	if tm.Error.Code() != kafka.ErrNoError || len(tm.Partitions) != 3 {
		t.Errorf("topic %s: %v, %d partitions; want it created with 3", dlq, tm.Error, len(tm.Partitions))
	}
}

// TestEnsureTopicsClusterReplication provisions an outbox's topics on the
// 3-broker cluster instance with the spec's topics.replicationFactor and
// minInsyncReplicas: every topic (routed, heartbeat) has that many
// replicas per partition and its min.insync.replicas set on the topic. The
// values (2, 1) differ from the cluster's broker defaults (3, 2), so that
// only the spec can have set them.
func TestEnsureTopicsClusterReplication(t *testing.T) {
	c := itest.RequireCluster(t, itest.Kafka)
	sfx := itest.Suffix()
	tg := target(t, spec.Postgres, `
    topics: {replicationFactor: 2, minInsyncReplicas: 1}
    events:
      - {name: OrderCreated, aggregate: EosRf`+sfx+`, versions: [{major: 1, schema: a.avsc}]}
    connector: {topicPrefix: eosrf-`+sfx+`}
`)
	specs, _ := provisioning.TopicSpecs([]provisioning.Target{tg}, provisioning.TopicOptions{Partitions: 2})
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Name)
	}
	if len(names) != 2 {
		t.Fatalf("topics %v, want the routed and the heartbeat topic", names)
	}
	t.Cleanup(func() { itest.DeleteTopics(t, c.BootstrapServers, names...) })
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": c.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	if _, fs, err := provisioning.EnsureTopics(ctx, kafkaadmin.New(admin), specs, false); err != nil || len(fs) != 0 {
		t.Fatalf("create: %v %v", fs, err)
	}
	for _, n := range names {
		md, err := admin.GetMetadata(&n, false, 10000)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range md.Topics[n].Partitions {
			if len(p.Replicas) != 2 {
				t.Errorf("%s partition %d: replicas %v, want 2", n, p.ID, p.Replicas)
			}
		}
		res, err := admin.DescribeConfigs(ctx, []kafka.ConfigResource{{Type: kafka.ResourceTopic, Name: n}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res[0].Config["min.insync.replicas"]; got.Value != "1" || got.Source != kafka.ConfigSourceDynamicTopic {
			t.Errorf("%s: min.insync.replicas %q (source %v), want 1 set on the topic", n, got.Value, got.Source)
		}
	}
}
