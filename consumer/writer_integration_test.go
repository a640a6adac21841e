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

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

type twLine struct {
	SKU string `avro:"sku"`
	Qty int32  `avro:"qty"`
}

type twOrder struct {
	OrderID string   `avro:"orderId"`
	Cents   int64    `avro:"cents"`
	Note    *string  `avro:"note"`
	Lines   []twLine `avro:"lines"`
}

const twSchema = `{"type":"record","name":"OrderPlaced","namespace":"com.acme.typed","fields":[
 {"name":"orderId","type":"string"},{"name":"cents","type":"long"},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}}]}`

const twTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// TestTypedWriterEndToEnd: typed writes (Go values, no hand-made payloads)
// through outbox.Writer with delete-after-insert and the trace context
// from ctx, on PostgreSQL (database/sql and pgx) and MariaDB
// (database/sql), Avro (schema id looked up in the real Apicurio through
// the spec's catalog) and JSON. The real Debezium connector generated from
// the spec routes them; the SDK consumer decodes them back to the same Go
// values. The outbox table stays empty, the topic holds exactly one record
// per event and no tombstone, the tracing column reaches the record as a
// header, and a value that does not fit the schema writes nothing.
func TestTypedWriterEndToEnd(t *testing.T) {
	for _, c := range []struct {
		name, kind, format string
		viaPgx, viaSQL     bool
	}{
		{"postgres_avro", "postgres", "avro", true, true},
		{"postgres_json", "postgres", "json", true, false},
		{"mariadb_avro", "mariadb", "avro", false, true},
		{"mariadb_json", "mariadb", "json", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc := itest.Postgres
			if c.kind == "mariadb" {
				svc = itest.MariaDB
			}
			s := itest.Require(t, itest.Kafka, itest.Connect, itest.Registry, svc)
			typedEndToEnd(t, s, c.kind, c.format, c.viaPgx, c.viaSQL)
		})
	}
}

func typedEndToEnd(t *testing.T, s settings.Settings, kind, format string, viaPgx, viaSQL bool) {
	sfx := itest.Suffix()
	name := "tw" + sfx
	dbName := "consumer_tw_" + sfx
	var db *sql.DB
	var pool *pgxpool.Pool
	var database string
	if kind == "postgres" {
		db = itest.PostgresDatabase(t, s.PostgresDSN, dbName)
		pool = itest.PostgresPool(t, s.PostgresDSN, dbName)
		database = fmt.Sprintf("kind: postgres\n      connection: {host: %q, port: %s, user: postgres, password: \"${env:TW_PASSWORD}\", dbname: %s}",
			s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	} else {
		db = itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
		t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, "schema-history."+name) })
		database = fmt.Sprintf("kind: mariadb\n      connection: {host: %q, port: %s, user: root, dbname: %s}",
			s.ConnectMariaDBHost, s.ConnectMariaDBPort, dbName)
	}
	aggType := "Order" + sfx
	topic := "outbox.event." + aggType
	sp := loadSpecFiles(t, map[string]string{
		"outbox.yaml": fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: %s
    database:
      %s
    payloadFormat: %s
    columns: {tracing: tracingspancontext}
    headers: {traceContext: tracectx}
    writer: {deleteAfterInsert: true}
    events:
      - name: OrderPlaced
        aggregate: %s
        versions: [{major: 1, schema: schemas/OrderPlaced.v1.avsc}]
`, name, database, format, aggType),
		"schemas/OrderPlaced.v1.avsc": twSchema,
	})
	o := &sp.Outboxes[0]
	deployOutbox(t, s, db, sp, topic)

	opts := []outbox.Option{}
	var client *registry.Client
	if format == "avro" {
		cat, err := schemas.BuildCatalog(sp)
		if err != nil {
			t.Fatal(err)
		}
		client, _ = registerSubject(t, s.SchemaRegistryURL, cat.Entries[0].Subject, twSchema)
		opts = append(opts, outbox.WithSchemas(outbox.RegistryByEventType(client, cat, o.Name)))
	}
	w, err := outbox.NewWriter(outbox.TableFor(o), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if w.DeleteSQL() == "" {
		t.Fatal("the spec's writer.deleteAfterInsert did not reach the writer")
	}
	warmW, err := outbox.NewWriter(outbox.TableFor(o), outbox.AllowUndeclaredEvents())
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	handled := map[string]consumer.Event[twOrder]{}
	warm := map[string]bool{}
	var reported []error
	rcfg := consumer.RouterConfig{
		Unknown:   consumer.UnknownSkip,
		OnUnknown: func(_ context.Context, m *consumer.Message) { mu.Lock(); warm[m.Meta.AggregateID] = true; mu.Unlock() },
	}
	if client != nil {
		rcfg.Schemas = consumer.RegistryByID(client)
	}
	r, err := consumer.NewRouter(rcfg.ForOutbox(o))
	if err != nil {
		t.Fatal(err)
	}
	var hopts []consumer.HandlerOption
	if format == "avro" {
		hopts = append(hopts, consumer.ReaderSchemaFromSpec(o, "OrderPlaced", 1))
	}
	must(t, consumer.Handle(r, "OrderPlaced", 1, func(ctx context.Context, ev consumer.Event[twOrder]) error {
		mu.Lock()
		handled[ev.EventID] = ev
		mu.Unlock()
		return nil
	}, hopts...))
	group := "consumer-tw-" + sfx
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
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
	ctx := context.Background()
	warmUp(ctx, t, db, warmW, aggType, func(key string) bool { mu.Lock(); defer mu.Unlock(); return warm[key] })

	note := "gift"
	want := map[string]twOrder{}
	traced := map[string]bool{}
	write := func(label string, begin func() (outbox.Execer, func() error), base int) {
		ex, commit := begin()
		for i := 0; i < 3; i++ {
			v := twOrder{OrderID: fmt.Sprintf("o-%d", i), Cents: int64(base + i), Lines: []twLine{{"A", int32(i + 1)}}}
			if i == 1 {
				v.Note = &note
			}
			wctx := ctx
			if i != 2 {
				wctx = outbox.ContextWithTraceparent(ctx, twTraceparent, "")
			}
			id, err := w.Write(wctx, ex, outbox.Event{AggregateType: aggType, AggregateID: v.OrderID, Type: "OrderPlaced", SchemaVersion: 1, Value: v})
			if err != nil {
				t.Fatalf("%s: typed write: %v", label, err)
			}
			want[id] = v
			traced[id] = i != 2
		}
		// WriteAll: one multi-row INSERT and one DELETE of its ids; each
		// event is still exactly one record.
		var evs []outbox.Event
		var vals []twOrder
		for i := 3; i < 6; i++ {
			v := twOrder{OrderID: fmt.Sprintf("o-%d", i), Cents: int64(base + i), Lines: []twLine{{"B", int32(i)}}}
			vals = append(vals, v)
			evs = append(evs, outbox.Event{AggregateType: aggType, AggregateID: v.OrderID, Type: "OrderPlaced", SchemaVersion: 1, Value: v})
		}
		ids, err := w.WriteAll(outbox.ContextWithTraceparent(ctx, twTraceparent, ""), ex, evs)
		if err != nil {
			t.Fatalf("%s: typed WriteAll: %v", label, err)
		}
		for i, id := range ids {
			want[id] = vals[i]
			traced[id] = true
		}
		// A value that does not fit (the Avro schema; JSON at all): nothing
		// is written, even though the transaction commits.
		var misfit any = struct{ OrderID int }{7}
		if format == "json" {
			misfit = map[string]any{"orderId": make(chan int)}
		}
		if _, err := w.Write(ctx, ex, outbox.Event{AggregateType: aggType, AggregateID: "bad", Type: "OrderPlaced", SchemaVersion: 1,
			Value: misfit}); !errors.Is(err, outbox.ErrInvalidEvent) {
			t.Fatalf("%s: misfit value: err = %v, want ErrInvalidEvent", label, err)
		}
		if err := commit(); err != nil {
			t.Fatalf("%s: commit: %v", label, err)
		}
	}
	if viaSQL {
		write("database/sql", func() (outbox.Execer, func() error) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			return tx, tx.Commit
		}, 100)
	}
	if viaPgx {
		write("pgx", func() (outbox.Execer, func() error) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return outbox.Pgx(tx), func() error { return tx.Commit(ctx) }
		}, 200)
	}
	n := len(want)
	waitFor(t, 60*time.Second, fmt.Sprintf("%d typed events handled", n), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(handled) >= n
	})

	// The table stays empty.
	var rows int
	if err := db.QueryRow("SELECT count(*) FROM " + sqlident.Quote(o.Database.Kind, o.Table)).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("outbox table rows = %d (%v), want 0 (delete after insert)", rows, err)
	}
	// Exactly one record per event, no tombstone, no other record.
	rd := itest.NewReader(t, s.BootstrapServers, topic)
	perID := map[string]int{}
	for {
		m := rd.NextEvent(5 * time.Second)
		if m == nil {
			break
		}
		if m.Value == nil {
			t.Errorf("tombstone at offset %v (key %q)", m.TopicPartition.Offset, m.Key)
			continue
		}
		id, _ := itest.Header(m, "id")
		if _, ok := want[id]; !ok {
			t.Errorf("unexpected record at offset %v: key %q id %q", m.TopicPartition.Offset, m.Key, id)
			continue
		}
		perID[id]++
		tc, has := itest.Header(m, "tracectx")
		if traced[id] && tc != "traceparent="+twTraceparent {
			t.Errorf("event %s: tracectx header = %q (present %v), want traceparent=%s", id, tc, has, twTraceparent)
		}
		if !traced[id] && tc != "" {
			t.Errorf("event %s written without a trace: tracectx header = %q", id, tc)
		}
	}
	for id := range want {
		if perID[id] != 1 {
			t.Errorf("event %s: %d records on the topic, want exactly 1", id, perID[id])
		}
	}

	mu.Lock()
	defer mu.Unlock()
	for id, v := range want {
		ev, ok := handled[id]
		if !ok {
			t.Errorf("event %s not handled", id)
			continue
		}
		if !reflect.DeepEqual(ev.Payload, v) {
			t.Errorf("event %s: consumer decoded %+v, want %+v", id, ev.Payload, v)
		}
		if format == "avro" && ev.SchemaID == 0 {
			t.Errorf("event %s: no schema id", id)
		}
	}
	for _, err := range reported {
		t.Errorf("consumer reported: %v", err)
	}
}
