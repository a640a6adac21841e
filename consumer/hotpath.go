package consumer

import (
	"context"
	"database/sql"
	"sync"
	"unsafe"
)

// boundCall is a decoded record bound to its handler: call runs the handler
// (in tx, or nil without an inbox), release returns it to its pool. The
// Router calls release once, after the last call.
type boundCall interface {
	call(ctx context.Context, tx *sql.Tx) error
	release()
	// batched: the handler is a HandleBatch function, which collects the
	// record in a batch (entry.batched).
	isBatched() bool
}

// pendingCall is Handle's boundCall for a T. Pooled per registration, so
// that neither the payload nor the bound call costs an allocation per
// record: the handler gets a copy of payload, and release zeroes it before
// the next decode, so no slice or pointer of one record is reused for the
// next.
type pendingCall[T any] struct {
	payload T
	m       *Message
	fn      func(ctx context.Context, ev Event[T]) error
	major   int
	pool    *sync.Pool
	batched bool
}

func (p *pendingCall[T]) isBatched() bool { return p.batched }

func (p *pendingCall[T]) call(ctx context.Context, tx *sql.Tx) error {
	return p.fn(ctx, Event[T]{Meta: delivered(p.m.Meta, p.major), Payload: p.payload, Tx: tx, Message: p.m})
}

func (p *pendingCall[T]) release() {
	var zero T
	p.payload, p.m = zero, nil
	p.pool.Put(p)
}

// twoStrings returns a and b as strings that share one allocation (none
// when both are empty).
func twoStrings(a, b []byte) (string, string) {
	n := len(a) + len(b)
	if n == 0 {
		return "", ""
	}
	buf := make([]byte, n)
	copy(buf, a)
	copy(buf[len(a):], b)
	s := unsafe.String(&buf[0], n) // buf is never written again
	return s[:len(a)], s[len(a):]
}

// typeName is the event type of header value v: the registered string when
// a handler or upcaster is registered for it, else a new string. r.mu must
// be held (read).
func (r *Router) typeName(v []byte) string {
	if t, ok := r.types[string(v)]; ok {
		return t.name
	}
	return string(v)
}
