//go:build integration

package consumer_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
)

// TestUpcastEndToEnd: OrderCreated v1 and v2 events, written through the
// outbox Writer into one PostgreSQL outbox (Avro in Confluent wire format,
// v1 and v2 as different schemas and subjects in the real Apicurio
// registry), routed by the real Debezium EventRouter onto one topic, are
// consumed by a service that has only a v2 handler and a v1->v2 upcaster,
// both reading with the spec's .avsc files. Each v1 event is first resolved
// from its older v1 writer schema to the spec's v1 schema (a currency field
// with a default), then upcast. Every event is handled exactly once, also
// when the whole topic is delivered a second time (offsets reset: the inbox
// skips them before the upcaster runs), in order per aggregate, with Meta
// telling the version written and the version delivered.
func TestUpcastEndToEnd(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Registry, itest.Postgres)
	sfx := itest.Suffix()
	dbName := "consumer_upcast_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	aggType := "Order" + sfx
	topic := "outbox.event." + aggType

	// One spec: the outbox, and OrderCreated v1 and v2 with their schema files.
	sp := loadSpecFiles(t, map[string]string{
		"outbox.yaml": fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: cup%s
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, password: "${env:CUP_PASSWORD}", dbname: %s}
    payloadFormat: avro
    events:
      - name: OrderCreated
        aggregate: %s
        versions:
          - {major: 1, schema: schemas/OrderCreated.v1.avsc}
          - {major: 2, schema: schemas/OrderCreated.v2.avsc}
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, aggType),
		"schemas/OrderCreated.v1.avsc": readerUpV1,
		"schemas/OrderCreated.v2.avsc": schemaUpV2,
	})
	o := &sp.Outboxes[0]

	deployOutbox(t, s, db, sp, topic)

	// The producer: v1 events still written with the oldest v1 schema, v2
	// events with the v2 schema; one subject per major version.
	client, idV1 := registerSubject(t, s.SchemaRegistryURL, topic+"-com.acme.order.OrderCreated", writerUpV1)
	_, idV2 := registerSubject(t, s.SchemaRegistryURL, topic+"-com.acme.order.v2.OrderCreated", schemaUpV2)
	if idV1 == idV2 {
		t.Fatalf("v1 and v2 got the same schema id %d", idV1)
	}
	encV1, encV2 := avroEncoder(t, writerUpV1, idV1), avroEncoder(t, schemaUpV2, idV2)
	w, err := outbox.NewWriter(outbox.TableFor(o)) // checks events against the spec
	if err != nil {
		t.Fatal(err)
	}
	warmW, err := outbox.NewWriter(outbox.TableFor(o), outbox.AllowUndeclaredEvents())
	if err != nil {
		t.Fatal(err)
	}

	// The consumer: inbox and invoices in its database (here the outbox's).
	ctx := context.Background()
	store, err := inbox.NewPostgres(db, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, `CREATE TABLE invoices (event_id varchar(64) PRIMARY KEY, order_id text NOT NULL, cents bigint NOT NULL, currency text NOT NULL, written int NOT NULL)`)

	var mu sync.Mutex
	var handled []consumer.Event[upV2]
	upcasts, dups := 0, 0
	warm := map[string]bool{}
	var reported []error
	r, err := consumer.NewRouter(consumer.RouterConfig{
		Schemas: consumer.RegistryByID(client), Inbox: store,
		Unknown:     consumer.UnknownSkip, // the warm-up events
		OnUnknown:   func(_ context.Context, m *consumer.Message) { mu.Lock(); warm[m.Meta.AggregateID] = true; mu.Unlock() },
		OnDuplicate: func(context.Context, *consumer.Message) { mu.Lock(); dups++; mu.Unlock() },
	}.ForOutbox(o))
	if err != nil {
		t.Fatal(err)
	}
	r.Use(consumer.Retry{MaxAttempts: 3, InitialInterval: 50 * time.Millisecond}.Middleware, consumer.Recover())
	must(t, consumer.Handle(r, "OrderCreated", 2, func(ctx context.Context, ev consumer.Event[upV2]) error {
		if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices VALUES ($1, $2, $3, $4, $5)`,
			ev.EventID, ev.Payload.OrderID, ev.Payload.Total.Cents, ev.Payload.Total.Currency, ev.WrittenVersion); err != nil {
			return err
		}
		mu.Lock()
		handled = append(handled, ev)
		mu.Unlock()
		return nil
	}, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 2)))
	must(t, consumer.Upcast(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[upV1]) (upV2, error) {
		mu.Lock()
		upcasts++
		mu.Unlock()
		return v1to2(ctx, ev)
	}, consumer.ReaderSchemaFromSpec(o, "OrderCreated", 1)))

	group := "consumer-upcast-" + sfx
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	ccfg := consumer.ConsumerConfig{
		BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: 200 * time.Millisecond,
		OnError:        func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
	}
	run := runConsumer(t, ccfg, r)

	warmUp(ctx, t, db, warmW, aggType, func(key string) bool { mu.Lock(); defer mu.Unlock(); return warm[key] })

	// 12 events of 3 aggregates, v1 and v2 interleaved, in two transactions.
	type written struct {
		id      string
		version int
		want    upV2
	}
	var events []written
	for batch := 0; batch < 2; batch++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 6; j++ {
			i := batch*6 + j
			order := fmt.Sprintf("o-%d", i%3)
			ev := outbox.Event{AggregateType: aggType, AggregateID: order, Type: "OrderCreated"}
			var want upV2
			var err error
			if i%2 == 0 {
				ev.SchemaVersion = 1
				ev.Payload, err = encV1.Encode(map[string]any{"orderId": order, "amount": int32(i + 1)})
				want = upV2{OrderID: order, Total: money{Cents: int64(i+1) * 100, Currency: "EUR"}}
			} else {
				ev.SchemaVersion = 2
				ev.Payload, err = encV2.Encode(map[string]any{"orderId": order, "total": map[string]any{"cents": int64(i), "currency": "CHF"}})
				want = upV2{OrderID: order, Total: money{Cents: int64(i), Currency: "CHF"}}
			}
			if err != nil {
				t.Fatal(err)
			}
			id, err := w.Write(ctx, tx, ev)
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			events = append(events, written{id, ev.SchemaVersion, want})
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	n := len(events)
	waitFor(t, 60*time.Second, fmt.Sprintf("%d events handled", n), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled) >= n
	})
	// Let the offsets commit, then deliver the whole topic again.
	time.Sleep(time.Second)
	if err := run.stop(t); err != nil {
		t.Errorf("Run: %v", err)
	}
	resetGroup(t, s.BootstrapServers, group, topic)
	run2 := runConsumer(t, ccfg, r)
	waitFor(t, 60*time.Second, fmt.Sprintf("%d redelivered events skipped", n), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return dups >= n
	})
	time.Sleep(500 * time.Millisecond) // anything still in flight would show up below
	if err := run2.stop(t); err != nil {
		t.Errorf("second Run: %v", err)
	}

	mu.Lock()
	defer mu.Unlock()
	byID := map[string]int{}
	for i, e := range events {
		byID[e.id] = i
	}
	t.Logf("%d events (ids v1 %d, v2 %d): %d handled, %d upcast, %d redeliveries skipped", n, idV1, idV2, len(handled), upcasts, dups)
	if len(handled) != n || dups != n {
		t.Errorf("handled %d events and skipped %d duplicates, want %d and %d", len(handled), dups, n, n)
	}
	if upcasts != n/2 {
		t.Errorf("%d upcaster calls, want %d (one per v1 event, none for its redelivery)", upcasts, n/2)
	}
	once := map[string]int{}
	last := map[string]int{}
	for _, ev := range handled {
		i, ok := byID[ev.EventID]
		if !ok {
			t.Fatalf("handled event id %q was not written", ev.EventID)
		}
		once[ev.EventID]++
		e := events[i]
		if !reflect.DeepEqual(ev.Payload, e.want) {
			t.Errorf("event %d (v%d): payload %+v, want %+v", i, e.version, ev.Payload, e.want)
		}
		wantID := idV2
		if e.version == 1 {
			wantID = idV1
		}
		if ev.EventType != "OrderCreated" || ev.Version != 2 || ev.WrittenVersion != e.version || ev.SchemaID != wantID || ev.AggregateID != e.want.OrderID {
			t.Errorf("event %d meta = %+v, want OrderCreated, Version 2, WrittenVersion %d, SchemaID %d", i, ev.Meta, e.version, wantID)
		}
		if p, seen := last[ev.AggregateID]; seen && i < p {
			t.Errorf("aggregate %s: event %d handled after event %d", ev.AggregateID, i, p)
		}
		last[ev.AggregateID] = i
	}
	for _, e := range events {
		if once[e.id] != 1 {
			t.Errorf("event %s handled %d times, want once", e.id, once[e.id])
		}
	}
	var rows, v1rows int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE written = 1) FROM invoices`).Scan(&rows, &v1rows); err != nil || rows != n || v1rows != n/2 {
		t.Errorf("invoices: %d rows, %d written as v1 (%v); want %d and %d", rows, v1rows, err, n, n/2)
	}
	for _, err := range reported {
		t.Errorf("consumer reported: %v", err)
	}
}
