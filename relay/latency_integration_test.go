//go:build integration

package relay_test

import (
	"context"
	"fmt"
	"sort"
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

// BenchmarkRelayLatency measures commit→consumer latency on PostgreSQL:
// b.N events written at 500 events/s, one per transaction, published by a
// relay polling every 100 ms, by a relay woken by LISTEN/NOTIFY (with the
// same 100 ms poll as the safety net), and by the Debezium connector
// generated with the latency profile (cdc; needs Kafka Connect). It reports
// p50 and p99 in ms.
//
//	go test -tags integration ./relay -run '^$' -bench RelayLatency -benchtime 3000x
func BenchmarkRelayLatency(b *testing.B) {
	for _, mode := range []string{"poll100ms", "listen", "cdc"} {
		b.Run(mode, func(b *testing.B) { latencyRun(b, mode) })
	}
}

func latencyRun(b *testing.B, mode string) {
	s := itest.Require(b, itest.Kafka, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "relay_lat_" + sfx
	db := itest.PostgresDatabase(b, s.PostgresDSN, dbName)
	topic := "relay." + sfx + ".Order"
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: lat
    database:
      kind: postgres
      connection: {host: %s, port: %s, user: postgres, dbname: %s}
    payloadFormat: json
    routing:
      topicReplacement: relay.%s.${routedByValue}
    connector: {name: relay-lat-%s, topicPrefix: lat%s, profile: latency}
    relay: {notify: lat_%s}
`, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, sfx, sfx, sfx, sfx)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		b.Fatal(err)
	}
	itest.CreateOutboxTable(b, db, &sp.Outboxes[0])
	itest.CreateTopic(b, s.BootstrapServers, topic)
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		b.Fatal(err)
	}
	conf := cs[0].Config
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if mode == "cdc" {
		itest.Require(b, itest.Connect)
		itest.PutConnector(b, s.ConnectURL, cs[0].Name, conf)
		cc, err := connect.NewClient(s.ConnectURL)
		if err != nil {
			b.Fatal(err)
		}
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if o, err := cc.Offsets(ctx, cs[0].Name); err == nil && len(o.Offsets) > 0 {
				break // streaming
			}
			if time.Now().After(deadline) {
				b.Fatal("the connector does not stream")
			}
		}
	} else {
		opts := relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: 100 * time.Millisecond, Kafka: map[string]string{"linger.ms": "0"}}
		if mode == "listen" {
			if opts.Wake, err = relay.Listen(ctx, settings.PostgresDSNWithDatabase(s.PostgresDSN, dbName), "lat_"+sfx, nil); err != nil {
				b.Fatal(err)
			}
		}
		r, err := relay.New(ctx, db, conf, opts)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		go func() { _ = r.Run(ctx) }()
	}

	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": "lat-" + sfx, "auto.offset.reset": "earliest", "enable.auto.commit": false, "fetch.wait.max.ms": 10})
	if err != nil {
		b.Fatal(err)
	}
	if err := cons.Subscribe(topic, nil); err != nil {
		cons.Close()
		b.Fatal(err)
	}
	var mu sync.Mutex
	committed := map[string]time.Time{}
	recv := map[string]time.Time{}
	recvDone := make(chan struct{})
	defer func() { cancel(); <-recvDone; cons.Close() }()
	go func() {
		defer close(recvDone)
		for ctx.Err() == nil {
			mu.Lock()
			n := len(recv)
			mu.Unlock()
			if n >= b.N {
				return
			}
			m, ok := cons.Poll(50).(*kafka.Message)
			if !ok || m.TopicPartition.Error != nil {
				continue
			}
			mu.Lock()
			recv[header(m, "id")] = time.Now()
			mu.Unlock()
		}
	}()
	time.Sleep(time.Second) // consumer assigned
	b.ResetTimer()
	tick := time.NewTicker(2 * time.Millisecond) // 500 events/s
	defer tick.Stop()
	for i := 0; i < b.N; i++ {
		<-tick.C
		id := itest.UUID(b)
		if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', $2, 'T', '{}', 1)`, id, fmt.Sprint(i%16)); err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		committed[id] = time.Now()
		mu.Unlock()
	}
	select {
	case <-recvDone:
	case <-time.After(60 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("consumed %d of %d events", len(recv), b.N)
	}
	b.StopTimer()
	var lat []time.Duration
	for id, c := range committed {
		d := recv[id].Sub(c)
		if d < 0 { // consumed before the INSERT's commit reached the writer
			d = 0
		}
		lat = append(lat, d)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
