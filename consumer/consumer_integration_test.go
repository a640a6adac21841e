//go:build integration

package consumer_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// registerSubject registers schema under subject in the stack's registry
// with the schemas/registry client and deletes the subject (soft, then hard)
// on cleanup.
func registerSubject(t *testing.T, url, subject, schema string) (*registry.Client, int) {
	t.Helper()
	client, err := registry.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Cleanup(func() {
		_ = client.DeleteSubject(ctx, subject, false)
		if err := client.DeleteSubject(ctx, subject, true); err != nil {
			t.Errorf("delete subject %s: %v", subject, err)
		}
	})
	reg, err := client.Register(ctx, subject, schema)
	if err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
	return client, reg.ID
}

// wireEncoder returns an encoder of datums in Confluent wire format with the
// schema id (what a producer service does).
func wireEncoder(t *testing.T, schema string, id int) func(map[string]any) []byte {
	codec, err := goavro.NewCodec(schema)
	if err != nil {
		t.Fatal(err)
	}
	return func(datum map[string]any) []byte {
		b := []byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
		b, err := codec.BinaryFromNative(b, datum)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// resetGroup sets the group's offset of topic partition 0 back to 0, as if
// the consumer had crashed before committing anything.
func resetGroup(t *testing.T, bootstrap, group, topic string) {
	t.Helper()
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": bootstrap})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := admin.AlterConsumerGroupOffsets(ctx, []kafka.ConsumerGroupTopicPartitions{{Group: group, Partitions: []kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: 0}}}})
	if err != nil {
		t.Fatalf("reset offsets: %v", err)
	}
	for _, g := range res.ConsumerGroupsTopicPartitions {
		for _, p := range g.Partitions {
			if p.Error != nil {
				t.Fatalf("reset offsets: %v", p.Error)
			}
		}
	}
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// counters records what the router saw, safely across goroutines.
type counters struct {
	mu                     sync.Mutex
	handled, dups, unknown int
	dlq                    int
	errs                   []error
	payloads               []OrderCreated
}

func (c *counters) inc(f *int) {
	c.mu.Lock()
	*f++
	c.mu.Unlock()
}

func (c *counters) get(f *int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *f
}

// TestConsumerKafka runs the Consumer against the real Kafka and registry:
// routed-looking records (built by the eventrouter emulator and produced with
// confluent-kafka-go) of which one is Avro written with a registered writer
// schema and read with an evolved reader schema, one fails and ends in the
// DLQ topic, one has an unknown type; offsets are committed; after a restart
// with the offsets lost the redelivered events are skipped by the inbox.
func TestConsumerKafka(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Registry, itest.Postgres)
	sfx := itest.Suffix()
	aggType := "Order" + sfx
	topic := "outbox.event." + aggType
	dlqTopic := "consumer-it-dlq-" + sfx
	group := "consumer-it-" + sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })

	client, writerID := registerSubject(t, s.SchemaRegistryURL, topic+"-com.acme.order.OrderCreated", writerV1)

	db := itest.PostgresDatabase(t, s.PostgresDSN, "consumer_it_"+sfx)
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE invoices (event_id text PRIMARY KEY, order_id text NOT NULL, amount bigint NOT NULL, currency text NOT NULL)`)

	// The records, as the EventRouter routes them.
	jsonP, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	avroP, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatAvro))
	wire := wireEncoder(t, writerV1, writerID)
	uuid := func(n int) string { return fmt.Sprintf("%s-0000-4000-8000-%012d", sfx, n) }
	recs := []*consumer.Message{
		avroP.MustRecord(consumertest.Row{ID: uuid(1), AggregateType: aggType, AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Payload: wire(writerDatum(map[string]any{"string": "gift"}))}),
		jsonP.MustRecord(consumertest.Row{ID: uuid(2), AggregateType: aggType, AggregateID: "o-2", Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{"orderId": "o-2", "amount": -5, "currency": "CHF"}`)}),
		jsonP.MustRecord(consumertest.Row{ID: uuid(3), AggregateType: aggType, AggregateID: "o-3", Type: "OrderArchived", SchemaVersion: 1, Payload: []byte(`{}`)}),
		jsonP.MustRecord(consumertest.Row{ID: uuid(4), AggregateType: aggType, AggregateID: "o-4", Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{"orderId": "o-4", "amount": 40, "currency": "CHF"}`)}),
	}
	p := newProducer(t, s.BootstrapServers)
	kp := consumer.NewKafkaProducer(p)
	for _, m := range recs {
		if m.Topic != topic {
			t.Fatalf("record topic %s, want %s", m.Topic, topic)
		}
		if err := kp.Produce(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	run := func(c *counters) (stop func()) {
		r, err := consumer.NewRouter(consumer.RouterConfig{
			Schemas: consumer.RegistryByID(client), Inbox: store,
			Unknown:     consumer.UnknownSkip,
			OnUnknown:   func(context.Context, *consumer.Message) { c.inc(&c.unknown) },
			OnDuplicate: func(context.Context, *consumer.Message) { c.inc(&c.dups) },
		})
		if err != nil {
			t.Fatal(err)
		}
		r.Use(
			consumer.DLQ{Topic: dlqTopic, Producer: kp, OnSent: func(context.Context, *consumer.Message, error) { c.inc(&c.dlq) }}.Middleware,
			consumer.Retry{MaxAttempts: 3, InitialInterval: 10 * time.Millisecond}.Middleware,
			consumer.Recover(),
		)
		must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
			if ev.Payload.Amount < 0 {
				return fmt.Errorf("order %s: negative amount", ev.Payload.OrderID)
			}
			if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices VALUES ($1, $2, $3, $4)`, ev.EventID, ev.Payload.OrderID, ev.Payload.Amount, ev.Payload.Currency); err != nil {
				return err
			}
			c.mu.Lock()
			c.handled++
			c.payloads = append(c.payloads, ev.Payload)
			c.mu.Unlock()
			return nil
		}, consumer.ReaderSchema(readerV1)))
		run := runConsumer(t, consumer.ConsumerConfig{
			BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
			CommitInterval: 200 * time.Millisecond, RedeliveryBackoff: 100 * time.Millisecond,
			OnError: func(err error) {
				c.mu.Lock()
				c.errs = append(c.errs, err)
				c.mu.Unlock()
			},
		}, r)
		return func() {
			if err := run.stop(t); err != nil {
				t.Errorf("Run: %v", err)
			}
		}
	}

	// First run: everything processed once.
	var c1 counters
	stop := run(&c1)
	waitFor(t, 60*time.Second, "2 handled, 1 dead-lettered, 1 unknown", func() bool {
		return c1.get(&c1.handled) == 2 && c1.get(&c1.dlq) == 1 && c1.get(&c1.unknown) == 1
	})
	stop()
	if off := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0]; off != int64(len(recs)) {
		t.Errorf("committed offset = %d, want %d (every record done)", off, len(recs))
	}
	c1.mu.Lock()
	got := c1.payloads
	c1.mu.Unlock()
	want0 := OrderCreated{OrderID: "o-1", Amount: 1250, Currency: "EUR", Status: "PAID", Note: ptr("gift"), CreatedAt: created, Lines: []Line{{"A", 2}, {"B", 1}}}
	if len(got) != 2 || !reflect.DeepEqual(got[0], want0) || got[1].OrderID != "o-4" || got[1].Currency != "CHF" {
		t.Errorf("payloads = %+v\nwant first %+v (Avro resolved: currency from the reader default)", got, want0)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM invoices`).Scan(&n); err != nil || n != 2 {
		t.Errorf("invoices = %d (%v), want 2", n, err)
	}

	// The dead-lettered record.
	rd := itest.NewReader(t, s.BootstrapServers, dlqTopic)
	dm := rd.Next(30 * time.Second)
	if dm == nil {
		t.Fatal("no record in the DLQ topic")
	}
	if string(dm.Key) != "o-2" || string(dm.Value) != string(recs[1].Value) {
		t.Errorf("DLQ record key/value = %q/%q", dm.Key, dm.Value)
	}
	wantH := map[string]string{
		"id":                        uuid(2),
		"eventType":                 "OrderCreated",
		consumer.HeaderDLQError:     "order o-2: negative amount",
		consumer.HeaderDLQAttempts:  "3",
		consumer.HeaderDLQTopic:     topic,
		consumer.HeaderDLQPartition: "0",
		consumer.HeaderDLQOffset:    "1",
	}
	for k, v := range wantH {
		if got, ok := itest.Header(dm, k); !ok || got != v {
			t.Errorf("DLQ header %s = %q, want %q", k, got, v)
		}
	}

	// Restart with the offsets lost (a crash before the commit): the two
	// processed events are redelivered and skipped by the inbox.
	resetGroup(t, s.BootstrapServers, group, topic)
	var c2 counters
	stop = run(&c2)
	waitFor(t, 60*time.Second, "2 duplicates skipped", func() bool {
		return c2.get(&c2.dups) == 2 && c2.get(&c2.unknown) == 1 && c2.get(&c2.dlq) == 1
	})
	stop()
	if h := c2.get(&c2.handled); h != 0 {
		t.Errorf("handler ran %d times on redelivery, want 0", h)
	}
	if err := db.QueryRow(`SELECT count(*) FROM invoices`).Scan(&n); err != nil || n != 2 {
		t.Errorf("invoices after redelivery = %d (%v), want 2", n, err)
	}
	if off := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0]; off != int64(len(recs)) {
		t.Errorf("committed offset after the second run = %d, want %d", off, len(recs))
	}
	for _, err := range append(c1.errs, c2.errs...) {
		if !errors.Is(err, consumer.ErrInvalidConfig) {
			t.Logf("reported: %v", err)
		}
	}
}

// TestConsumerRedeliversInOrder: without Retry or DLQ a failing record is
// redelivered by the Consumer (its partition sought back), and the records
// after it in the partition wait for it: the order per aggregate holds.
func TestConsumerRedeliversInOrder(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	aggType := "Order" + sfx
	topic := "outbox.event." + aggType
	group := "consumer-it-order-" + sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })

	jsonP, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	kp := consumer.NewKafkaProducer(newProducer(t, s.BootstrapServers))
	for i := 1; i <= 4; i++ {
		m := jsonP.MustRecord(consumertest.Row{ID: fmt.Sprintf("%s-0000-4000-8000-%012d", sfx, i), AggregateType: aggType, AggregateID: "o-1",
			Type: "OrderLineAdded", SchemaVersion: 1, Payload: []byte(fmt.Sprintf(`{"line": %d}`, i))})
		if err := kp.Produce(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var seen []int
	var reported []error
	failures := 0
	r, _ := consumer.NewRouter(consumer.RouterConfig{})
	must(t, consumer.Handle(r, "OrderLineAdded", 1, func(ctx context.Context, ev consumer.Event[struct{ Line int }]) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ev.Payload.Line)
		if ev.Payload.Line == 2 && failures < 2 {
			failures++
			return consumertest.ErrInjected
		}
		return nil
	}))
	cons, err := consumer.NewConsumer(consumer.ConsumerConfig{
		BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: -1, RedeliveryBackoff: 50 * time.Millisecond,
		OnError: func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
	}, r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cons.Run(ctx) }()
	waitFor(t, 60*time.Second, "line 4 handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) > 0 && seen[len(seen)-1] == 4
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []int{1, 2, 2, 2, 3, 4}; !reflect.DeepEqual(seen, want) {
		t.Errorf("handled lines %v, want %v (record 2 redelivered twice, 3 and 4 waiting for it)", seen, want)
	}
	injected := 0
	for _, err := range reported {
		if errors.Is(err, consumertest.ErrInjected) {
			injected++
		}
	}
	if injected != 2 {
		t.Errorf("OnError got %d injected failures, want 2: %v", injected, reported)
	}
	if off := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0]; off != 4 {
		t.Errorf("committed offset = %d, want 4", off)
	}
}

// TestConsumerRebalance: a second group member joins while the first is
// processing a 4-partition topic. Every event is handled exactly once (the
// inbox skips what a revoked partition redelivers), per-key order holds, and
// the committed offsets cover every record.
func TestConsumerRebalance(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	aggType := "Order" + sfx
	topic := "outbox.event." + aggType
	group := "consumer-it-rebalance-" + sfx
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: 4, ReplicationFactor: 1}}); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })

	db := itest.PostgresDatabase(t, s.PostgresDSN, "consumer_rb_"+sfx)
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE handled (event_id text PRIMARY KEY)`)

	const n = 60
	jsonP, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
	kp := consumer.NewKafkaProducer(newProducer(t, s.BootstrapServers))
	for i := 0; i < n; i++ {
		m := jsonP.MustRecord(consumertest.Row{ID: fmt.Sprintf("%s-0000-4000-8000-%012d", sfx, i), AggregateType: aggType, AggregateID: fmt.Sprintf("k%d", i%10),
			Type: "OrderLineAdded", SchemaVersion: 1, Payload: []byte(fmt.Sprintf(`{"line": %d}`, i))})
		if err := kp.Produce(ctx, m); err != nil {
			t.Fatal(err)
		}
	}

	var mu sync.Mutex
	lines := map[string][]int{} // key -> lines handled (first time)
	byMember := map[string]int{}
	dups := 0
	start := func(name string) func() {
		r, _ := consumer.NewRouter(consumer.RouterConfig{Inbox: store,
			OnDuplicate: func(context.Context, *consumer.Message) { mu.Lock(); dups++; mu.Unlock() }})
		must(t, consumer.Handle(r, "OrderLineAdded", 1, func(ctx context.Context, ev consumer.Event[struct{ Line int }]) error {
			time.Sleep(40 * time.Millisecond)
			if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO handled VALUES ($1)`, ev.EventID); err != nil {
				return err
			}
			mu.Lock()
			lines[ev.AggregateID] = append(lines[ev.AggregateID], ev.Payload.Line)
			byMember[name]++
			mu.Unlock()
			return nil
		}))
		run := runConsumer(t, consumer.ConsumerConfig{
			BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
			CommitInterval: 100 * time.Millisecond, RedeliveryBackoff: 50 * time.Millisecond,
			Kafka:   kafka.ConfigMap{"heartbeat.interval.ms": 200},
			OnError: func(err error) { t.Logf("%s: %v", name, err) },
		}, r)
		return func() {
			if err := run.stop(t); err != nil {
				t.Errorf("%s: Run: %v", name, err)
			}
		}
	}
	total := func() int {
		mu.Lock()
		defer mu.Unlock()
		c := 0
		for _, l := range lines {
			c += len(l)
		}
		return c
	}
	stopA := start("a")
	waitFor(t, 60*time.Second, "first events", func() bool { return total() >= 5 })
	stopB := start("b")
	waitFor(t, 90*time.Second, "all events", func() bool { return total() >= n })
	// Let the last commits happen, then stop both.
	time.Sleep(300 * time.Millisecond)
	stopB()
	stopA()

	mu.Lock()
	defer mu.Unlock()
	t.Logf("handled per member: %v, duplicates skipped by the inbox: %d", byMember, dups)
	if byMember["b"] == 0 {
		t.Errorf("the second member handled nothing: no rebalance happened during processing (%v)", byMember)
	}
	if total := func() int {
		c := 0
		for _, l := range lines {
			c += len(l)
		}
		return c
	}(); total != n {
		t.Errorf("handled %d events, want exactly %d", total, n)
	}
	for key, ls := range lines {
		for i := 1; i < len(ls); i++ {
			if ls[i] <= ls[i-1] {
				t.Errorf("key %s: lines %v out of order", key, ls)
				break
			}
		}
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM handled`).Scan(&rows); err != nil || rows != n {
		t.Errorf("handled rows = %d (%v), want %d", rows, err, n)
	}
	// Committed offsets cover every record.
	offs := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 4)
	var sum int64
	for _, off := range offs {
		if off >= 0 {
			sum += off
		}
	}
	if sum != n {
		t.Errorf("committed offsets sum to %d, want %d: %v", sum, n, offs)
	}
}
