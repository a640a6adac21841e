//go:build integration

package relay_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/spec"
)

// TestRelayCutoverToCDC moves a PostgreSQL outbox from the relay to the
// Debezium connector under a steady writer: the connector is deployed while
// the relay runs, CutoverToCDC waits until it streams, the relay is stopped
// when the cutover waits for it, the cutover drains what is left. Every
// event must be on the topic at least once (duplicates of the overlap window
// are counted and reported), none lost.
func TestRelayCutoverToCDC(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	db, sfx, topic, conf, name := cutoverOutbox(t, s, "cut")

	// the writer
	var mu sync.Mutex
	var written []string
	stopWriter := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := 0; ; i++ {
			select {
			case <-stopWriter:
				return
			case <-time.After(10 * time.Millisecond):
			}
			id := itest.UUID(t)
			if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', $2, 'OrderCreated', '{}', 1)`, id, fmt.Sprint(i%4)); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			written = append(written, id)
			mu.Unlock()
		}
	}()

	// the relay publishes
	relayCtx, stopRelay := context.WithCancel(context.Background())
	defer stopRelay()
	r1, err := relay.New(relayCtx, db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 50 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	relayDone := make(chan error, 1)
	go func() { relayDone <- r1.Run(relayCtx) }()
	time.Sleep(time.Second)

	// the connector is deployed while the relay runs
	itest.PutConnector(t, s.ConnectURL, name, conf)
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := relay.New(context.Background(), db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 200 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer cut.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var steps []string
	err = cut.CutoverToCDC(ctx, cc, name, func(s string) {
		steps = append(steps, s)
		t.Logf("cutover: ok %s", s)
		if strings.Contains(s, "streams") {
			// the operator stops the relay now
			stopRelay()
			if err := <-relayDone; err != nil {
				t.Errorf("relay: %v", err)
			}
			r1.Close()
		}
	})
	if err != nil {
		t.Fatalf("cutover: %v (steps done: %q)", err, steps)
	}
	if len(steps) != 4 {
		t.Errorf("steps %q, want 4", steps)
	}
	time.Sleep(time.Second) // the connector alone publishes
	close(stopWriter)
	<-writerDone
	mu.Lock()
	want := append([]string{}, written...)
	mu.Unlock()

	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": "cut-" + sfx, "auto.offset.reset": "earliest", "enable.auto.commit": false})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	if err := cons.Subscribe(topic, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	records := 0
	byRelay := 0
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); {
		m, ok := cons.Poll(200).(*kafka.Message)
		if !ok || m.TopicPartition.Error != nil {
			if len(seen) >= len(want) {
				break
			}
			continue
		}
		records++
		seen[header(m, "id")]++
		if rid := header(m, "__debezium.context.runId"); rid == r1.RunID() || rid == cut.RunID() {
			byRelay++
		}
	}
	lost := 0
	for _, id := range want {
		if seen[id] == 0 {
			lost++
		}
	}
	t.Logf("COUNTS cutover to cdc: written %d, records %d (relay %d, connector %d), distinct %d, duplicates %d, lost %d", len(want), records, byRelay, records-byRelay, len(seen), records-len(seen), lost)
	if lost > 0 {
		t.Errorf("%d events lost in the cutover", lost)
	}
	if byRelay == 0 || records-byRelay == 0 {
		t.Errorf("want records from both publishers (relay %d, connector %d)", byRelay, records-byRelay)
	}
}

// TestRelayCutoverToRelay moves a PostgreSQL outbox from the connector to
// the relay under a steady writer: the connector is stopped, CutoverToRelay
// confirms it and counts the rows, the relay starts and publishes them all
// (again, for those the connector published). None lost.
func TestRelayCutoverToRelay(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	db, sfx, topic, conf, name := cutoverOutbox(t, s, "cut2")
	itest.PutConnector(t, s.ConnectURL, name, conf)
	itest.WaitRunning(t, s.ConnectURL, name, 90*time.Second)
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// wait until the connector streams, then write under CDC
	for {
		o, err := cc.Offsets(ctx, name)
		if err == nil && len(o.Offsets) > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("connector does not stream")
		}
		time.Sleep(200 * time.Millisecond)
	}
	var written []string
	write := func(n int) {
		for i := 0; i < n; i++ {
			id := itest.UUID(t)
			if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', $2, 'OrderCreated', '{}', 1)`, id, fmt.Sprint(i%4)); err != nil {
				t.Fatal(err)
			}
			written = append(written, id)
			time.Sleep(5 * time.Millisecond)
		}
	}
	write(100)
	if err := cc.Stop(ctx, name); err != nil {
		t.Fatal(err)
	}
	write(100) // while the connector stops: nothing may be lost
	r, err := relay.New(ctx, db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 100 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var steps []string
	if err := r.CutoverToRelay(ctx, cc, name, relay.CutoverToRelayOptions{Observe: -1}, func(s string) { steps = append(steps, s); t.Logf("cutover: ok %s", s) }); err != nil {
		t.Fatalf("cutover: %v (steps %q)", err, steps)
	}
	write(50) // after the cutover, before the relay starts
	if err := r.Drain(ctx); err != nil {
		t.Fatal(err)
	}

	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": "cut2-" + sfx, "auto.offset.reset": "earliest", "enable.auto.commit": false})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	if err := cons.Subscribe(topic, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	records, byRelay := 0, 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		m, ok := cons.Poll(200).(*kafka.Message)
		if !ok || m.TopicPartition.Error != nil {
			if len(seen) >= len(written) {
				break
			}
			continue
		}
		records++
		seen[header(m, "id")]++
		if header(m, "__debezium.context.runId") == r.RunID() {
			byRelay++
		}
	}
	lost := 0
	for _, id := range written {
		if seen[id] == 0 {
			lost++
		}
	}
	t.Logf("COUNTS cutover to relay: written %d, records %d (relay %d, connector %d), distinct %d, duplicates %d, lost %d", len(written), records, byRelay, records-byRelay, len(seen), records-len(seen), lost)
	if lost > 0 {
		t.Errorf("%d events lost in the cutover", lost)
	}
	if int(r.Stats().Published) != len(written) {
		t.Errorf("relay published %d, want every row of the table (%d)", r.Stats().Published, len(written))
	}
}

// TestRelayCutoverRefusesDeleteAfterInsert: a writer that deletes each row
// in its inserting transaction keeps the table from growing while its
// insert counter grows; the cutover to the relay refuses before it waits for
// the connector to stop. A quiet table is a warning step, not a refusal.
func TestRelayCutoverRefusesDeleteAfterInsert(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	db, _, _, conf, name := cutoverOutbox(t, s, "dai")
	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	r, err := relay.New(context.Background(), db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 100 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// quiet: the connector is not deployed, so the cutover goes on past the
	// check and finds it gone
	var steps []string
	if err := r.CutoverToRelay(ctx, cc, name, relay.CutoverToRelayOptions{Observe: time.Second}, func(s string) { steps = append(steps, s) }); err != nil {
		t.Fatalf("quiet outbox: %v", err)
	}
	if len(steps) != 3 || !strings.HasPrefix(steps[0], "WARNING: no rows written") {
		t.Errorf("quiet outbox: steps %q, want a warning, then the connector and the count", steps)
	}

	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		n := 0
		defer func() { done <- n }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			tx, err := db.Begin()
			if err != nil {
				t.Error(err)
				return
			}
			id := itest.UUID(t)
			if _, err := tx.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', '1', 'OrderCreated', '{}', 1)`, id); err != nil {
				t.Error(err)
				return
			}
			if _, err := tx.Exec(`DELETE FROM outbox WHERE id = $1`, id); err != nil {
				t.Error(err)
				return
			}
			if err := tx.Commit(); err != nil {
				t.Error(err)
				return
			}
			n++
		}
	}()
	steps = nil
	err = r.CutoverToRelay(ctx, cc, name, relay.CutoverToRelayOptions{Observe: 2 * time.Second}, func(s string) { steps = append(steps, s) })
	close(stop)
	n := <-done
	t.Logf("writer inserted and deleted %d rows; cutover: %v", n, err)
	if !errors.Is(err, relay.ErrDeleteAfterInsert) || len(steps) != 0 {
		t.Errorf("cutover under a delete-after-insert writer: %v (steps %q), want ErrDeleteAfterInsert before any step", err, steps)
	}
}

// cutoverOutbox creates a PostgreSQL outbox (database relay_<tag>_<sfx>,
// its table and its topic) and generates its connector config (connector
// relay-<tag>-<sfx>, topic prefix <tag><sfx>).
func cutoverOutbox(t *testing.T, s settings.Settings, tag string) (db *sql.DB, sfx, topic string, conf map[string]string, name string) {
	t.Helper()
	sfx = strings.ToLower(itest.Suffix())
	dbName := "relay_" + tag + "_" + sfx
	db = itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	topic = "relay." + sfx + ".Order"
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: cut%s
    database:
      kind: postgres
      connection: {host: %s, port: %s, user: postgres, dbname: %s}
    payloadFormat: json
    routing:
      topicReplacement: relay.%s.${routedByValue}
    connector: {name: relay-%s-%s, topicPrefix: %s%s, heartbeat: 1s}
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, sfx, tag, sfx, tag, sfx)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	itest.CreateTopic(t, s.BootstrapServers, topic)
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	return db, sfx, topic, cs[0].Config, cs[0].Name
}
