//go:build integration

package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/relay/internal/relayitest"
)

// The provisioned NOTIFY trigger wakes a relay whose poll interval is far
// longer than the wait: the row is published on the notification.
func TestRelayListenWakesUp(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	o := relayitest.NewSpecOutbox(t, s, "listen", true) // with the NOTIFY trigger
	db, topic, conf := o.DB, o.Topic, o.Conf
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wake, err := relay.Listen(ctx, settings.PostgresDSNWithDatabase(s.PostgresDSN, o.DBName), o.Outbox.Relay.Notify, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	r, err := relay.New(ctx, db, conf, relay.Options{BootstrapServers: s.BootstrapServers, PollInterval: time.Minute, Wake: wake, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	rd := itest.NewReader(t, s.BootstrapServers, topic)
	for i := 0; i < 3; i++ {
		time.Sleep(300 * time.Millisecond) // the relay is idle, waiting for its minute
		id := itest.UUID(t)
		start := time.Now()
		if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', '1', 'OrderCreated', '{}', 1)`, id); err != nil {
			t.Fatal(err)
		}
		m := rd.Next(10 * time.Second)
		if m == nil {
			t.Fatalf("row %d not published within 10s (poll interval 1m): the notification did not wake the relay", i)
		}
		if got, _ := itest.Header(m, "id"); got != id {
			t.Fatalf("got %s, want %s", got, id)
		}
		t.Logf("row %d: commit -> consumed in %s", i, time.Since(start).Round(time.Millisecond))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
