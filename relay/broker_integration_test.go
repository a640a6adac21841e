//go:build integration

package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
)

// TestRelayBrokerRestart restarts the Kafka broker (of the fault instance,
// never the shared stack's: SIGTERM, then devstack/stack.sh up) under a
// running relay and a steady writer of 8 aggregates. While the broker is
// down publishing fails and the rows stay; once it is back the relay
// publishes them. Every row must be published at least once, none lost,
// per aggregate in writer order; the counts are reported.
func TestRelayBrokerRestart(t *testing.T) {
	fault := itest.RequireFault(t, itest.Kafka)
	f := newFixture(t, sides[0], nil)
	f.onTopic(fault.BootstrapServers, 3)
	r := f.relay(relay.Options{PollInterval: 50 * time.Millisecond, Batch: 20, MessageTimeout: 3 * time.Second})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(ctx) }()

	const aggs, total = 8, 1200
	writer := f.writeSteady(aggs, total, 5*time.Millisecond)
	time.Sleep(1500 * time.Millisecond) // publishing under load
	before := r.Stats()
	fault.Stop(t, itest.Kafka)
	time.Sleep(4 * time.Second) // the broker stays down: rows pile up
	pendingDown := f.count()
	fault.Start(t)
	written := <-writer

	deadline := time.Now().Add(90 * time.Second)
	for f.count() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d rows still unpublished 90s after the writer ended (stats %+v)", f.count(), r.Stats())
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	if err := <-runErr; err != nil {
		t.Fatalf("relay: %v", err)
	}
	st := r.Stats()
	if st.Failed == 0 {
		t.Errorf("no failed publish attempt while the broker was down (stats %+v)", st)
	}
	if st.Published < int64(total) {
		t.Errorf("published %d, want at least %d", st.Published, total)
	}
	d := f.checkDelivery(written, aggs)
	t.Logf("COUNTS broker restart: %s; relay: published %d (%d before the stop), failed attempts %d, %d rows pending while the broker was down", d, st.Published, before.Published, st.Failed, pendingDown)
}
