//go:build integration

package consumer_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/spec"
)

// TestEndToEndDebezium is the whole path on the real stack, from one spec:
// provisioning's outbox table DDL, the generated PostgreSQL connector config
// deployed to Kafka Connect, events written with the outbox Writer in one
// transaction (Avro in Confluent wire format, writer schema registered in
// Apicurio), routed by the real Debezium EventRouter, consumed by the
// Consumer: resolved to an evolved reader schema, dispatched by the headers
// the generated config places, handled in the inbox transaction, in order per
// aggregate.
func TestEndToEndDebezium(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		s := itest.Require(t, itest.Kafka, itest.Connect, itest.Registry, itest.Postgres)
		sfx := itest.Suffix()
		dbName := "consumer_e2e_" + sfx
		db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
		mustExec(t, db, `CREATE SCHEMA billing`)
		store, err := inbox.NewPostgres(db, "billing.inbox")
		if err != nil {
			t.Fatal(err)
		}
		runEndToEnd(t, s, sfx, db, store, fmt.Sprintf("kind: postgres\n      connection: {host: %q, port: %s, user: postgres, password: \"${env:CE2E_PASSWORD}\", dbname: %s}",
			s.ConnectPostgresHost, s.ConnectPostgresPort, dbName),
			`CREATE TABLE billing.invoices (event_id varchar(64) PRIMARY KEY, order_id text NOT NULL, amount bigint NOT NULL, currency text NOT NULL)`,
			`INSERT INTO billing.invoices VALUES ($1, $2, $3, $4)`, `SELECT count(*) FROM billing.invoices`)
	})
	t.Run("mariadb", func(t *testing.T) {
		s := itest.Require(t, itest.Kafka, itest.Connect, itest.Registry, itest.MariaDB)
		sfx := itest.Suffix()
		dbName := "consumer_e2e_" + sfx
		db := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
		store, err := inbox.NewMySQL(db, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, "schema-history.ce2e"+sfx) })
		runEndToEnd(t, s, sfx, db, store, fmt.Sprintf("kind: mariadb\n      connection: {host: %q, port: %s, user: root, dbname: %s}",
			s.ConnectMariaDBHost, s.ConnectMariaDBPort, dbName),
			`CREATE TABLE invoices (event_id varchar(64) PRIMARY KEY, order_id text NOT NULL, amount bigint NOT NULL, currency text NOT NULL)`,
			`INSERT INTO invoices VALUES (?, ?, ?, ?)`, `SELECT count(*) FROM invoices`)
	})
}

// deployOutbox creates the outbox table of sp's outbox in db, as
// provisioning does, and topic, and deploys the connector generate writes
// for sp, waiting until it runs.
func deployOutbox(t *testing.T, s settings.Settings, db *sql.DB, sp *spec.Spec, topic string) {
	t.Helper()
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{
		// PostgreSQL: trust auth, any password; MariaDB: root without one.
		Lookup:           &spec.Lookup{Env: func(string) (string, bool) { return "unused", true }},
		BootstrapServers: s.BootstrapServers,
	})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	itest.CreateTopic(t, s.BootstrapServers, topic)
	itest.PutConnector(t, s.ConnectURL, cs[0].Name, cs[0].Config)
	itest.WaitRunning(t, s.ConnectURL, cs[0].Name, 90*time.Second)
}

// avroEncoder is the outbox's Avro encoder of schema, registered as id.
func avroEncoder(t *testing.T, schema string, id int) *outbox.AvroEncoder {
	t.Helper()
	enc, err := outbox.NewAvroEncoderFromSchema(uint32(id), schema)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// warmUp writes warm-up markers (events of type WarmUp of aggType) with w
// until seen reports that the consumer got one: with snapshot.mode=no_data
// only rows written after the connector streams are routed.
func warmUp(ctx context.Context, t *testing.T, db *sql.DB, w *outbox.Writer, aggType string, seen func(key string) bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		key := "warmup-" + itest.Suffix()
		if _, err := w.Write(ctx, db, outbox.Event{AggregateType: aggType, AggregateID: key, Type: "WarmUp", SchemaVersion: 1}); err != nil {
			t.Fatalf("warm-up write: %v", err)
		}
		ok := false
		for i := 0; i < 30 && !ok; i++ {
			time.Sleep(100 * time.Millisecond)
			ok = seen(key)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no warm-up event reached the consumer within 90s")
		}
	}
}

func runEndToEnd(t *testing.T, s settings.Settings, sfx string, db *sql.DB, store *inbox.SQLStore, database, createInvoices, insertInvoice, countInvoices string) {
	specText := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: ce2e%s
    database:
      %s
    payloadFormat: avro
`, sfx, database)
	sp := loadSpecFiles(t, map[string]string{"outbox.yaml": specText})
	o := &sp.Outboxes[0]

	aggType := "Order" + sfx
	topic := "outbox.event." + aggType
	deployOutbox(t, s, db, sp, topic)

	// The writer side: schema registered, encoder, writer.
	client, writerID := registerSubject(t, s.SchemaRegistryURL, topic+"-com.acme.order.OrderCreated", writerV1)
	enc := avroEncoder(t, writerV1, writerID)
	w, err := outbox.NewWriter(outbox.TableFor(o))
	if err != nil {
		t.Fatal(err)
	}

	// The consumer side: inbox and business table in the consumer's own
	// database (here the outbox's database, for brevity).
	ctx := context.Background()
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, createInvoices)

	var mu sync.Mutex
	var handled []consumer.Event[OrderCreated]
	warm := map[string]bool{}
	r, err := consumer.NewRouter(consumer.RouterConfig{
		Schemas: consumer.RegistryByID(client), Inbox: store,
		Unknown: consumer.UnknownSkip, // the warm-up markers have no handler
		OnUnknown: func(_ context.Context, m *consumer.Message) {
			mu.Lock()
			warm[m.Meta.AggregateID] = true
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Use(consumer.Retry{MaxAttempts: 3, InitialInterval: 50 * time.Millisecond}.Middleware, consumer.Recover())
	must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		if _, err := ev.Tx.ExecContext(ctx, insertInvoice, ev.EventID, ev.Payload.OrderID, ev.Payload.Amount, ev.Payload.Currency); err != nil {
			return err
		}
		mu.Lock()
		handled = append(handled, ev)
		mu.Unlock()
		return nil
	}, consumer.ReaderSchema(readerV1)))

	group := "consumer-e2e-" + sfx
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	var reported []error
	run := runConsumer(t, consumer.ConsumerConfig{
		BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
		CommitInterval: 200 * time.Millisecond,
		OnError:        func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() },
	}, r)
	defer func() {
		if err := run.stop(t); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	// Warm-up: write markers (an unknown event type, skipped) until the
	// consumer sees one.
	warmUp(ctx, t, db, w, aggType, func(key string) bool { mu.Lock(); defer mu.Unlock(); return warm[key] })

	// Four events of two aggregates in one transaction.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 4; i++ {
		order := fmt.Sprintf("o-%d", i%2)
		datum := writerDatum(nil)
		datum["orderId"] = order
		datum["amount"] = int32(100 + i)
		payload, err := enc.Encode(datum)
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.Write(ctx, tx, outbox.Event{AggregateType: aggType, AggregateID: order, Type: "OrderCreated", SchemaVersion: 1, Payload: payload})
		if err != nil {
			t.Fatalf("write: %v", err)
		}
		ids = append(ids, id)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "4 events handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled) >= 4
	})

	mu.Lock()
	defer mu.Unlock()
	if len(handled) != 4 {
		t.Fatalf("handled %d events, want 4", len(handled))
	}
	pos := map[string]int{}
	for i, id := range ids {
		pos[id] = i
	}
	last := map[string]int{}
	for _, ev := range handled {
		i, ok := pos[ev.EventID]
		if !ok {
			t.Fatalf("handled event id %q is not one of the written ids %v", ev.EventID, ids)
		}
		want := OrderCreated{OrderID: fmt.Sprintf("o-%d", i%2), Amount: int64(100 + i), Currency: "EUR", Status: "PAID", CreatedAt: created, Lines: []Line{{"A", 2}, {"B", 1}}}
		if !reflect.DeepEqual(ev.Payload, want) {
			t.Errorf("event %d payload = %+v, want %+v", i, ev.Payload, want)
		}
		if ev.EventType != "OrderCreated" || ev.Version != 1 || ev.SchemaID != writerID || ev.AggregateID != want.OrderID || ev.Message.Topic != topic {
			t.Errorf("event %d meta = %+v topic %s", i, ev.Meta, ev.Message.Topic)
		}
		// Routed by the real connector: its context headers are there.
		if v, _ := ev.Message.Header("__debezium.context.connectorLogicalName"); string(v) != o.Connector.TopicPrefix {
			t.Errorf("event %d: connectorLogicalName header = %q, want the topic prefix %q", i, v, o.Connector.TopicPrefix)
		}
		if p, seen := last[ev.AggregateID]; seen && i < p {
			t.Errorf("aggregate %s: event %d handled after event %d", ev.AggregateID, i, p)
		}
		last[ev.AggregateID] = i
	}
	var n int
	if err := db.QueryRow(countInvoices).Scan(&n); err != nil || n != 4 {
		t.Errorf("invoices = %d (%v), want 4", n, err)
	}
	for _, id := range ids {
		if ok, err := store.IsProcessed(ctx, group, id); err != nil || !ok {
			t.Errorf("inbox mark of %s: %v %v", id, ok, err)
		}
	}
	for _, err := range reported {
		t.Errorf("consumer reported: %v", err)
	}
}
