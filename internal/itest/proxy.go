package itest

import (
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a target. Freeze blackholes it: the
// open connections stay open and new ones are accepted, but nothing is
// forwarded in either direction (as when a firewall or a network
// partition drops the packets: no reset, no refusal) until Thaw, which
// delivers what was held back. Cut closes every connection and refuses new
// ones until Restore.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond
	frozen bool
	cut    bool
	conns  map[net.Conn]struct{}
}

// NewProxy listens on a free port of 127.0.0.1 and forwards to target; it
// is closed at the end of the test.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	t.Cleanup(func() {
		ln.Close()
		p.Thaw()
		p.closeAll()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Freeze stops forwarding (see Proxy).
func (p *Proxy) Freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

// Thaw forwards again, what was held back first.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	p.frozen = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Cut closes every open connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cut = true
	p.mu.Unlock()
	p.closeAll()
}

// Restore accepts connections again after Cut.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// wait blocks while the proxy is frozen; false when it is cut.
func (p *Proxy) wait() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.frozen && !p.cut {
		p.cond.Wait()
	}
	return !p.cut
}

func (p *Proxy) serve(c net.Conn) {
	if !p.wait() {
		c.Close()
		return
	}
	u, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		c.Close()
		u.Close()
		return
	}
	p.conns[c], p.conns[u] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.copy(u, c); done <- struct{}{} }()
	go func() { p.copy(c, u); done <- struct{}{} }()
	<-done
	c.Close()
	u.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, u)
	p.mu.Unlock()
}

// copy forwards from src to dst, holding each chunk while frozen.
func (p *Proxy) copy(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
