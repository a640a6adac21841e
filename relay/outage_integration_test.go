//go:build integration

package relay_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/relay"
)

// tcpProxy forwards to a database until cut: then every connection through
// it is closed and new ones are refused, as when the database is gone.
type tcpProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
	return p
}

func (p *tcpProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestRelayDatabaseOutageEndsRun: Run retries a database that fails, and
// returns ErrDatabase once it has failed for MaxDatabaseOutage (as a
// Debezium task fails once its retries are exhausted), instead of retrying
// without end.
func TestRelayDatabaseOutageEndsRun(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres, itest.MariaDB)
	for _, sd := range sides {
		t.Run(sd.name, func(t *testing.T) {
			f := newFixture(t, sd, nil)
			var driver, dsn string
			var proxy *tcpProxy
			if sd.kind == eventrouter.Postgres {
				u, err := url.Parse(settings.PostgresDSNWithDatabase(s.PostgresDSN, f.dbName))
				if err != nil {
					t.Fatal(err)
				}
				p := startProxy(t, u.Host)
				u.Host = p.ln.Addr().String()
				driver, dsn = "pgx", u.String()
				proxy = p
			} else {
				mc, err := mysql.ParseDSN(s.MariaDBDSN)
				if err != nil {
					t.Fatal(err)
				}
				p := startProxy(t, mc.Addr)
				mc.Addr, mc.DBName = p.ln.Addr().String(), f.dbName
				driver, dsn = "mysql", mc.FormatDSN()
				proxy = p
			}
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			opts := relay.Options{BootstrapServers: f.boot, PollInterval: 50 * time.Millisecond, MaxDatabaseOutage: time.Second, Logf: t.Logf}
			if sd.kind == eventrouter.MariaDB {
				opts.EventRouterVersion = eventrouter.Version35
			}
			r, err := relay.New(context.Background(), db, f.conf, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			f.insert(f.db, itest.UUID(t), "Order", "1", `{}`)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			for deadline := time.Now().Add(20 * time.Second); r.Stats().Published < 1; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("nothing published through the proxy")
				}
			}
			proxy.cut()
			cutAt := time.Now()
			select {
			case err := <-done:
				if !errors.Is(err, relay.ErrDatabase) {
					t.Fatalf("Run after the database went away: %v, want ErrDatabase", err)
				}
				if d := time.Since(cutAt); d < time.Second {
					t.Errorf("Run gave up after %s, before MaxDatabaseOutage (1s)", d)
				}
				t.Logf("Run returned %s after the cut: %v", time.Since(cutAt).Round(time.Millisecond), err)
			case <-time.After(15 * time.Second):
				t.Fatal("Run still retries 15s after the database went away (MaxDatabaseOutage 1s): want ErrDatabase")
			}
		})
	}
}
