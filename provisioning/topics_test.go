package provisioning_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
)

// fakeAdmin is an in-memory TopicAdmin.
type fakeAdmin struct {
	topics       map[string]int
	configs      map[string]map[string]string
	created      []provisioning.NewTopic
	validateOnly bool
	// hidden topics exist (CreateTopics answers ErrTopicExists) but the
	// metadata lists them only after lag more TopicPartitions calls, as a
	// KRaft broker that has not yet applied a just-created topic; a hidden
	// value of 0 lists the topic without partitions in the meantime.
	hidden map[string]int
	lag    int
}

func (f *fakeAdmin) TopicPartitions(time.Duration) (map[string]int, error) {
	out := maps.Clone(f.topics)
	if out == nil {
		out = map[string]int{}
	}
	if f.lag > 0 {
		f.lag--
		for name, n := range f.hidden {
			if n == 0 {
				out[name] = 0
			}
		}
	} else {
		for name := range f.hidden {
			out[name] = 2
		}
	}
	return out, nil
}

func (f *fakeAdmin) CreateTopics(_ context.Context, ts []provisioning.NewTopic, validateOnly bool) ([]provisioning.CreateResult, error) {
	f.validateOnly = validateOnly
	var out []provisioning.CreateResult
	for _, t := range ts {
		if _, ok := f.hidden[t.Name]; ok {
			out = append(out, provisioning.CreateResult{Topic: t.Name, Err: fmt.Errorf("%w: Topic '%s' already exists.", provisioning.ErrTopicExists, t.Name)})
			continue
		}
		f.created = append(f.created, t)
		out = append(out, provisioning.CreateResult{Topic: t.Name})
	}
	return out, nil
}

func (f *fakeAdmin) TopicConfigs(_ context.Context, names []string) ([]map[string]string, error) {
	var out []map[string]string
	for _, n := range names {
		out = append(out, maps.Clone(f.configs[n]))
	}
	return out, nil
}

const topicSpec = `
    payloadFormat: json
    events:
      - {name: OrderCreated, aggregate: Order, versions: [{major: 1, schema: a.avsc}]}
      - {name: OrderShipped, aggregate: Order, versions: [{major: 1, schema: b.avsc}]}
      - {name: InvoiceSent, aggregate: Invoice, versions: [{major: 1, schema: c.avsc}]}
`

func TestTopicSpecs(t *testing.T) {
	tg := target(t, spec.MariaDB, topicSpec)
	specs, fs := provisioning.TopicSpecs([]provisioning.Target{tg}, provisioning.TopicOptions{Partitions: 6})
	if len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
	var got []string
	for _, s := range specs {
		got = append(got, fmt.Sprintf("%s %s %d %v", s.Name, s.Purpose, s.Partitions, s.Config))
	}
	want := []string{
		"outbox.event.Invoice routed 6 map[]",
		"outbox.event.Order routed 6 map[]",
		"schema-history.orders schema-history 1 map[cleanup.policy:delete retention.bytes:-1 retention.ms:-1]",
		"__debezium-heartbeat.orders heartbeat 1 map[]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("TopicSpecs =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	pg := target(t, spec.Postgres, topicSpec)
	specs, _ = provisioning.TopicSpecs([]provisioning.Target{pg}, provisioning.TopicOptions{})
	if len(specs) != 3 || specs[0].Partitions != -1 || specs[2].Purpose != provisioning.TopicHeartbeat {
		t.Errorf("postgres: %+v, want 2 routed topics with the broker's partitions (-1) and the heartbeat topic", specs)
	}
	dlq := target(t, spec.Postgres, topicSpec+"    consumers:\n      - {group: billing, dlqTopic: billing.dlq, partitions: 2}\n      - {group: audit, dlqTopic: audit.dlq}\n")
	specs, _ = provisioning.TopicSpecs([]provisioning.Target{dlq}, provisioning.TopicOptions{})
	got = got[:0]
	for _, s := range specs {
		if s.Purpose == provisioning.TopicDLQ {
			got = append(got, fmt.Sprintf("%s %s %d", s.Name, s.Outbox, s.Partitions))
		}
	}
	if want := []string{"billing.dlq orders 2", "audit.dlq orders -1"}; !slices.Equal(got, want) {
		t.Errorf("DLQ topics = %v, want %v", got, want)
	}
	// Routing by another column: the routed topics depend on row values,
	// so none is listed, and TOPIC_ROUTING says so (info).
	byType := target(t, spec.Postgres, topicSpec+"    routing: {byField: type}\n")
	specs, fs = provisioning.TopicSpecs([]provisioning.Target{byType}, provisioning.TopicOptions{})
	if len(fs) != 1 || fs[0].Rule != provisioning.IDTopicRouting || fs[0].Severity != provisioning.SeverityInfo || fs[0].Subject != "routing.byField" {
		t.Errorf("routing by type: findings %+v, want one TOPIC_ROUTING info on routing.byField", fs)
	}
	for _, s := range specs {
		if s.Purpose == provisioning.TopicRouted {
			t.Errorf("routing by type: routed topic %s listed", s.Name)
		}
	}
	off := target(t, spec.Postgres, topicSpec+"    connector: {heartbeat: \"off\"}\n")
	if specs, _ = provisioning.TopicSpecs([]provisioning.Target{off}, provisioning.TopicOptions{}); len(specs) != 2 {
		t.Errorf("heartbeat off: %+v, want the 2 routed topics only", specs)
	}
}

func TestEnsureTopics(t *testing.T) {
	tg := target(t, spec.MariaDB, topicSpec)
	specs, _ := provisioning.TopicSpecs([]provisioning.Target{tg}, provisioning.TopicOptions{Partitions: 3})
	admin := &fakeAdmin{
		topics:  map[string]int{"outbox.event.Order": 6, "schema-history.orders": 2},
		configs: map[string]map[string]string{"schema-history.orders": {"cleanup.policy": "compact", "retention.ms": "604800000"}},
	}
	res, fs, err := provisioning.EnsureTopics(context.Background(), admin, specs, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(admin.created) != 2 || admin.created[0].Name != "outbox.event.Invoice" || admin.created[0].Partitions != 3 ||
		admin.created[1].Name != "__debezium-heartbeat.orders" || admin.created[1].Partitions != 1 {
		t.Errorf("created %+v, want outbox.event.Invoice with 3 partitions and the heartbeat topic with 1", admin.created)
	}
	if !admin.validateOnly {
		t.Error("a dry run created the topics without validateOnly")
	}
	actions := map[string]string{}
	for _, r := range res {
		actions[r.Name] = r.Action
	}
	if actions["outbox.event.Invoice"] != "create" || actions["outbox.event.Order"] != "exists" {
		t.Errorf("actions = %v", actions)
	}
	var got []string
	for _, f := range fs {
		got = append(got, string(f.Severity)+" "+f.Rule+" "+f.Subject)
	}
	slices.Sort(got)
	want := []string{
		"error TOPIC_CONFIG topic schema-history.orders",
		"error TOPIC_CONFIG topic schema-history.orders",
		"error TOPIC_PARTITIONS topic schema-history.orders",
		"warning TOPIC_PARTITIONS topic outbox.event.Order",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEnsureTopicsLateMetadata: topics just created elsewhere that the
// broker's metadata does not list yet (or lists without partitions) are
// reported as existing with their real partition count, once the metadata
// has caught up, and checked like any existing topic.
func TestEnsureTopicsLateMetadata(t *testing.T) {
	tg := target(t, spec.MariaDB, topicSpec)
	specs, _ := provisioning.TopicSpecs([]provisioning.Target{tg}, provisioning.TopicOptions{Partitions: 2})
	admin := &fakeAdmin{
		topics: map[string]int{},
		// Not listed at all, listed without partitions.
		hidden: map[string]int{"outbox.event.Order": -1, "schema-history.orders": 0},
		lag:    3,
	}
	res, fs, err := provisioning.EnsureTopics(context.Background(), admin, specs, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%s %s %d", r.Name, r.Action, r.ActualPartitions))
	}
	want := []string{"outbox.event.Invoice create 0", "outbox.event.Order exists 2", "schema-history.orders exists 2", "__debezium-heartbeat.orders create 0"}
	if !slices.Equal(got, want) {
		t.Errorf("results =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The history topic has 2 partitions where it needs 1.
	if len(fs) != 1 || fs[0].Rule != provisioning.IDTopicPartitions || fs[0].Subject != "topic schema-history.orders" {
		t.Errorf("findings = %+v, want the history topic's partition count", fs)
	}

	never := &fakeAdmin{topics: map[string]int{}, hidden: map[string]int{"outbox.event.Order": -1}, lag: 1 << 30}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := provisioning.EnsureTopics(ctx, never, specs, false); !errors.Is(err, provisioning.ErrTopics) {
		t.Errorf("metadata that never lists the topic: err = %v, want ErrTopics", err)
	}
}

func TestHealth(t *testing.T) {
	tg := target(t, spec.Postgres, topicSpec)
	statuses := map[string]string{
		"orders-outbox": `{"name":"orders-outbox","connector":{"state":"RUNNING"},"tasks":[{"id":0,"state":"FAILED","trace":"org.apache.kafka.connect.errors.ConnectException: boom\n\tat x"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/connectors/"), "/status")
		body, ok := statuses[name]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error_code":404,"message":"No status found"}`)
			return
		}
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	admin := &fakeAdmin{topics: map[string]int{"outbox.event.Order": 1, "__debezium-heartbeat.orders": 1}}
	client, err := connect.NewClient(srv.URL, connect.WithRetry(connect.Retry{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	rep := provisioning.Health(context.Background(), provisioning.HealthInput{
		Targets: []provisioning.Target{tg},
		Preflight: func(context.Context, provisioning.Target) ([]provisioning.Finding, error) {
			return []provisioning.Finding{{Rule: provisioning.IDPGWalLevel, Severity: provisioning.SeverityError, Outbox: "orders", Subject: "wal_level", Message: "replica"}}, nil
		},
		Connect: client,
		Admin:   admin,
	})
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Rule)
		if f.Rule == provisioning.IDConnectorState && !strings.Contains(f.Message, "ConnectException: boom") {
			t.Errorf("task finding misses the trace: %q", f.Message)
		}
	}
	slices.Sort(got)
	if want := []string{provisioning.IDConnectorState, provisioning.IDPGWalLevel, provisioning.IDTopicMissing}; !slices.Equal(got, want) {
		t.Errorf("findings = %v, want %v", got, want)
	}
	if !rep.Failed || len(rep.Errors) != 0 {
		t.Errorf("report: failed=%v errors=%v", rep.Failed, rep.Errors)
	}
	if len(admin.created) != 0 {
		t.Error("Health created topics")
	}
	// A task no worker runs (its worker died): the rebalance delay advice.
	statuses["orders-outbox"] = `{"name":"orders-outbox","connector":{"state":"RUNNING","worker_id":"w2:8083"},"tasks":[{"id":0,"state":"UNASSIGNED","worker_id":"w1:8083"}]}`
	fs, err := provisioning.ConnectorHealth(context.Background(), client, tg)
	if err != nil || len(fs) != 1 || fs[0].Rule != provisioning.IDConnectorState || fs[0].Hint != provisioning.RebalanceDelayHint ||
		!strings.Contains(fs[0].Hint, "scheduled.rebalance.max.delay.ms") {
		t.Errorf("unassigned task: %+v, %v", fs, err)
	}
	// A task RUNNING on a worker that does not answer (killed): a warning
	// with the same advice; on a worker that answers, nothing.
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close()
	statuses["orders-outbox"] = `{"name":"orders-outbox","connector":{"state":"RUNNING"},"tasks":[{"id":0,"state":"RUNNING","worker_id":"` + deadAddr + `"}]}`
	fs, err = provisioning.ConnectorHealth(context.Background(), client, tg)
	if err != nil || len(fs) != 1 || fs[0].Rule != provisioning.IDConnectWorkerGone || fs[0].Severity != provisioning.SeverityWarning ||
		!strings.Contains(fs[0].Message, deadAddr) || fs[0].Hint != provisioning.RebalanceDelayHint {
		t.Errorf("task on a dead worker: %+v, %v", fs, err)
	}
	statuses["orders-outbox"] = `{"name":"orders-outbox","connector":{"state":"RUNNING"},"tasks":[{"id":0,"state":"RUNNING","worker_id":"` + strings.TrimPrefix(srv.URL, "http://") + `"}]}`
	if fs, err = provisioning.ConnectorHealth(context.Background(), client, tg); err != nil || len(fs) != 0 {
		t.Errorf("task on a live worker: %+v, %v", fs, err)
	}
	// A connector that is not deployed, and Connect unreachable.
	delete(statuses, "orders-outbox")
	fs, err = provisioning.ConnectorHealth(context.Background(), client, tg)
	if err != nil || len(fs) != 1 || fs[0].Rule != provisioning.IDConnectorNotFound || fs[0].Hint != provisioning.ConnectorMissingHint {
		t.Errorf("missing connector: %v, %v", fs, err)
	}
	srv.Close()
	if _, err := provisioning.ConnectorHealth(context.Background(), client, tg); err == nil {
		t.Error("unreachable Connect: no error")
	}
}

// TestTopicSpecsReplication: the outbox's topics.replicationFactor and
// topics.minInsyncReplicas reach every topic it needs (routed, heartbeat,
// dead-letter); --replication-factor (TopicOptions) wins over the spec.
func TestTopicSpecsReplication(t *testing.T) {
	tg := target(t, spec.Postgres, topicSpec+"    topics: {replicationFactor: 3, minInsyncReplicas: 2}\n    consumers:\n      - {group: billing, dlqTopic: billing.dlq}\n")
	for _, tc := range []struct {
		opts   provisioning.TopicOptions
		wantRF int
	}{
		{provisioning.TopicOptions{}, 3},
		{provisioning.TopicOptions{ReplicationFactor: 1}, 1},
	} {
		specs, fs := provisioning.TopicSpecs([]provisioning.Target{tg}, tc.opts)
		if len(fs) != 0 || len(specs) != 4 {
			t.Fatalf("TopicSpecs = %+v, %v; want 2 routed, heartbeat and DLQ topics", specs, fs)
		}
		for _, s := range specs {
			if s.ReplicationFactor != tc.wantRF || s.Config["min.insync.replicas"] != "2" {
				t.Errorf("opts %+v: %s (%s): RF %d, config %v; want RF %d, min.insync.replicas 2", tc.opts, s.Name, s.Purpose, s.ReplicationFactor, s.Config, tc.wantRF)
			}
		}
	}
	plain := target(t, spec.Postgres, topicSpec)
	specs, _ := provisioning.TopicSpecs([]provisioning.Target{plain}, provisioning.TopicOptions{})
	for _, s := range specs {
		if s.ReplicationFactor != -1 || s.Config != nil {
			t.Errorf("no topics block: %s RF %d config %v, want the broker defaults", s.Name, s.ReplicationFactor, s.Config)
		}
	}
}
