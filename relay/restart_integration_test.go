//go:build integration

package relay_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/relay"
)

// freezeProxy forwards to the broker, except the connections it accepted
// while frozen: those are held open and never answered, for good, so a
// producer that got one is stuck as after a broker restart it never
// recovers from (librdkafka #3009) while the broker is healthy.
type freezeProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	frozen bool
	conns  []net.Conn
}

func startFreezeProxy(t *testing.T, target string) *freezeProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezeProxy{ln: ln, frozen: true}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			frozen := p.frozen
			p.conns = append(p.conns, c)
			p.mu.Unlock()
			if frozen {
				continue // held, never answered
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

// thaw forwards the connections accepted from now on.
func (p *freezeProxy) thaw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen = false
}

// stuckKafka keeps a producer on a frozen connection for longer than the
// test (librdkafka would otherwise give up on it after 10 s, the ApiVersion
// request's timeout, and reconnect).
var stuckKafka = map[string]string{
	"socket.timeout.ms":                  "300000",
	"api.version.request.timeout.ms":     "300000",
	"socket.connection.setup.timeout.ms": "300000",
}

// The relay's own producer, stuck (every record of an attempt times out
// locally, nothing acknowledged, the broker healthy), is closed and
// recreated after the attempt; the new one publishes the rows, in order.
// Without the recreation the rows stay for the 5 minutes the stuck
// connection lasts.
func TestRelayRecreatesStuckProducer(t *testing.T) {
	f := newFixture(t, sides[0], nil)
	proxy := startFreezeProxy(t, strings.Split(f.boot, ",")[0])
	var ids []string
	for i := 0; i < 3; i++ {
		id := itest.UUID(t)
		ids = append(ids, id)
		f.insert(f.db, id, "Order", "o-1", fmt.Sprintf(`{"n": %d}`, i))
	}
	r := f.relay(relay.Options{BootstrapServers: proxy.ln.Addr().String(), Kafka: stuckKafka,
		MessageTimeout: 2 * time.Second, PollInterval: 50 * time.Millisecond})
	runFresh(t, f, r, proxy, ids)
}

// With a caller's producer and Options.NewProducer, the factory makes the
// replacement; a caller's producer without it is kept (and stays stuck).
func TestRelayNewProducerFactory(t *testing.T) {
	for _, withFactory := range []bool{true, false} {
		t.Run(fmt.Sprint("factory=", withFactory), func(t *testing.T) {
			f := newFixture(t, sides[0], nil)
			proxy := startFreezeProxy(t, strings.Split(f.boot, ",")[0])
			mk := func() (relay.Producer, error) {
				cm := kafka.ConfigMap{"bootstrap.servers": proxy.ln.Addr().String(), "enable.idempotence": true, "acks": "all",
					"partitioner": "murmur2_random", "linger.ms": 0, "message.timeout.ms": 2000}
				for k, v := range stuckKafka {
					cm[k] = v
				}
				return kafka.NewProducer(&cm)
			}
			first, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			id := itest.UUID(t)
			f.insert(f.db, id, "Order", "o-1", `{}`)
			opts := relay.Options{Producer: first, PollInterval: 50 * time.Millisecond}
			if withFactory {
				opts.NewProducer = mk
			}
			r := f.relay(opts)
			if withFactory {
				runFresh(t, f, r, proxy, []string{id})
				return
			}
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			waitFor(t, 20*time.Second, func() bool { return r.Stats().Failed >= 1 }, "a failed attempt")
			proxy.thaw()
			time.Sleep(5 * time.Second) // two more attempts, on the stuck producer
			stop()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if st := r.Stats(); st.ProducerRestarts != 0 || st.Failed < 2 || f.count() != 1 {
				t.Errorf("stats %+v, %d rows left: want the caller's producer kept (no restart, failing on), the row left", st, f.count())
			}
		})
	}
}

// runFresh runs r until its first attempt failed, thaws the proxy and
// wants the rows of ids published by a recreated producer, in order.
func runFresh(t *testing.T, f *fixture, r *relay.Relay, proxy *freezeProxy, ids []string) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	waitFor(t, 20*time.Second, func() bool { return r.Stats().Failed >= 1 }, "a failed attempt")
	proxy.thaw()
	waitFor(t, 20*time.Second, func() bool { return f.count() == 0 }, "the rows published after the producer's recreation")
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if st := r.Stats(); st.ProducerRestarts < 1 || st.Published != int64(len(ids)) {
		t.Errorf("stats %+v: want a producer restart, %d published", st, len(ids))
	}
	for i, m := range f.read(len(ids)) {
		if got := header(m, "id"); got != ids[i] {
			t.Errorf("record %d: id %q, want %q (order)", i, got, ids[i])
		}
	}
}

func waitFor(t *testing.T, d time.Duration, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
