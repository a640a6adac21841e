package consumer

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
)

// Upcast registers fn as the upcaster of eventType from major version
// fromMajor to fromMajor+1: a record written as fromMajor is decoded into From
// (with the options' reader schema, resolved within that major as for
// Handle), passed to fn, and what fn returns goes on to whatever is
// registered for fromMajor+1: the next upcaster or the handler. Chains
// compose, so with
//
//	Handle[V3](r, "OrderCreated", 3, h)
//	Upcast[V2, V3](r, "OrderCreated", 2, v2to3)
//	Upcast[V1, V2](r, "OrderCreated", 1, v1to2)
//
// h receives v1, v2 and v3 events, each as a V3. The handler's Event has
// Meta.Version set to the major it was registered for (3) and
// Meta.WrittenVersion to the major the record was written with.
//
// A chain is registered from its handler down: the target fromMajor+1 must
// already be registered (a handler or an upcaster), and its payload type must
// be To. Otherwise Upcast fails with an error wrapping ErrUpcastChain, so a
// missing link (say Handle v3 and Upcast v1 without an upcaster from v2) is
// an error at registration. A major version is either handled or upcast: a
// second registration for (eventType, fromMajor) fails with
// ErrDuplicateHandler, as for Handle. Options are those of Handle (for
// example ReaderSchema or ReaderSchemaFromSpec for From's major).
//
// fn runs inside the inbox transaction when the Router has one
// (Event[From].Tx), after the duplicate check, so an event the inbox skips is
// not upcast. Its error is the record's error, as a handler's is: Retry
// retries it unless it is Permanent. fn is not called for a tombstone; the
// handler gets the zero payload with Meta.Tombstone set.
func Upcast[From, To any](r *Router, eventType string, fromMajor int, fn func(ctx context.Context, ev Event[From]) (To, error), opts ...HandlerOption) error {
	if fn == nil {
		return fmt.Errorf("%w: upcast: need a function", ErrInvalidConfig)
	}
	link := &upcastLink{to: reflect.TypeFor[To]()}
	step := func(ctx context.Context, ev Event[From]) error {
		var to To
		if !ev.Tombstone {
			var err error
			if to, err = fn(ctx, ev); err != nil {
				return fmt.Errorf("upcast %s v%d to v%d: %w", ev.EventType, fromMajor, fromMajor+1, err)
			}
		}
		return link.next.deliver(ctx, ev.Tx, ev.Message, ev.Meta, to)
	}
	opts = append(opts[:len(opts):len(opts)], func(o *handlerOptions) error {
		o.link = link
		return nil
	})
	return Handle(r, eventType, fromMajor, step, opts...)
}

// upcastLink is the registration of an upcaster: the type it returns and,
// once registered, the entry of the next major version.
type upcastLink struct {
	to   reflect.Type
	next *entry
}

// deliverFunc runs the registered step (handler or upcaster) of an entry
// with an already decoded payload. written is the Meta of the record as
// written (WrittenVersion set); the step sets Version to its own major.
type deliverFunc func(ctx context.Context, tx *sql.Tx, m *Message, written Meta, payload any) error

// handlerDeliver is the deliverFunc of Handle's fn for major version major,
// which the upcaster of major-1 calls. payload is a T (checked at
// registration) or nil for an interface T.
func handlerDeliver[T any](major int, fn func(ctx context.Context, ev Event[T]) error) deliverFunc {
	return func(ctx context.Context, tx *sql.Tx, m *Message, meta Meta, payload any) error {
		p, _ := payload.(T)
		return fn(ctx, Event[T]{Meta: delivered(meta, major), Payload: p, Tx: tx, Message: m})
	}
}

// delivered is the Meta of a record as written, delivered as major version
// major.
func delivered(written Meta, major int) Meta {
	written.Version = major
	return written
}

// register adds e under (eventType, version), checking that a major version
// has one registration and that an upcaster's target exists and takes its
// type.
func (r *Router) register(e *entry, o handlerOptions) error {
	if e.eventType == CanaryEventType {
		return fmt.Errorf("%w: %s is the canary of outboxctl verify, which the Router skips: it never reaches a handler", ErrInvalidConfig, CanaryEventType)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := handlerKey{e.eventType, e.version}
	if prev, dup := r.handlers[k]; dup {
		what := "a handler"
		if prev.upcast {
			what = "an upcaster"
		}
		return fmt.Errorf("%w: %s v%d already has %s", ErrDuplicateHandler, e.eventType, e.version, what)
	}
	if o.link != nil {
		next, ok := r.handlers[handlerKey{e.eventType, e.version + 1}]
		if !ok {
			return fmt.Errorf("%w: upcast %s v%d to v%d: nothing is registered for v%d (register its handler, or its upcaster to v%d, first)",
				ErrUpcastChain, e.eventType, e.version, e.version+1, e.version+1, e.version+2)
		}
		if next.in != o.link.to {
			return fmt.Errorf("%w: upcast %s v%d to v%d returns %v, but v%d takes %v",
				ErrUpcastChain, e.eventType, e.version, e.version+1, o.link.to, e.version+1, next.in)
		}
		o.link.next = next
		e.upcast = true
		e.batched = next.batched
	}
	r.handlers[k] = e
	t := r.types[e.eventType]
	t.name, t.majors = e.eventType, append(t.majors, e.version)
	r.types[e.eventType] = t
	return nil
}
