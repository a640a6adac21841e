package consumer_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
)

// TestHandleChecksPayloadType: with a ReaderSchema, a struct field that
// matches no reader field, or whose Go type cannot hold its schema type, is
// an error at Handle; `avro:"-"` and AllowUnmappedFields opt out.
func TestHandleChecksPayloadType(t *testing.T) {
	type typo struct {
		OrderID string `avro:"orderID_"`
	}
	type narrow struct {
		OrderID string `avro:"orderId"`
		Amount  int32  `avro:"amount"` // a long in readerV1
	}
	type wrongKind struct {
		Status int `avro:"status"` // an enum
	}
	type optedOut struct {
		OrderID string `avro:"orderId"`
		Cache   string `avro:"-"`
	}
	type untagged struct {
		OrderID  string
		Currency string
		Extra    bool
	}
	h := func(t *testing.T, r *consumer.Router, opts []consumer.HandlerOption, typ string) error {
		opts = append([]consumer.HandlerOption{consumer.ReaderSchema(readerV1)}, opts...)
		switch typ {
		case "typo":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[typo]) error { return nil }, opts...)
		case "narrow":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[narrow]) error { return nil }, opts...)
		case "wrongKind":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[*wrongKind]) error { return nil }, opts...)
		case "optedOut":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[optedOut]) error { return nil }, opts...)
		case "untagged":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[untagged]) error { return nil }, opts...)
		case "OrderCreated":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[OrderCreated]) error { return nil }, opts...)
		case "map":
			return consumer.Handle(r, "A", 1, func(context.Context, consumer.Event[map[string]any]) error { return nil }, opts...)
		}
		t.Fatalf("no type %s", typ)
		return nil
	}
	cases := []struct {
		typ     string
		allow   bool
		wantErr error
		mention string
	}{
		{"OrderCreated", false, nil, ""},
		{"map", false, nil, ""},
		{"optedOut", false, nil, ""},
		{"typo", false, avrobind.ErrUnmappedField, "typo.OrderID"},
		{"typo", true, nil, ""},
		{"untagged", false, avrobind.ErrUnmappedField, "untagged.Extra"},
		{"untagged", true, nil, ""},
		{"narrow", false, avrobind.ErrType, "narrow.Amount"},
		{"narrow", true, avrobind.ErrType, "narrow.Amount"},
		{"wrongKind", false, avrobind.ErrType, "wrongKind.Status"},
	}
	for _, c := range cases {
		r, _ := consumer.NewRouter(consumer.RouterConfig{})
		var opts []consumer.HandlerOption
		if c.allow {
			opts = append(opts, consumer.AllowUnmappedFields())
		}
		err := h(t, r, opts, c.typ)
		if c.wantErr == nil {
			if err != nil {
				t.Errorf("%s (allow %v): %v", c.typ, c.allow, err)
			}
			continue
		}
		if !errors.Is(err, consumer.ErrInvalidConfig) || !errors.Is(err, c.wantErr) ||
			!strings.Contains(err.Error(), c.mention) || !strings.Contains(err.Error(), "com.acme.order.OrderCreated") {
			t.Errorf("%s (allow %v): err = %v, want ErrInvalidConfig and %v naming %s and the schema", c.typ, c.allow, err, c.wantErr, c.mention)
		}
	}
}

// TestTypedMatchesLegacy: the compiled path and the generic path give the
// same payload for the same records.
func TestTypedMatchesLegacy(t *testing.T) {
	k := newKit(t)
	records := []*consumer.Message{
		k.avroRecord("OrderCreated", 1, writerV1, writerDatum(map[string]any{"string": "gift"})),
		k.avroRecord("OrderCreated", 1, writerV1, writerDatum(nil)),
	}
	for _, withReader := range []bool{true, false} {
		var got [2][]OrderCreated
		for i, legacy := range []bool{false, true} {
			r := k.router(consumer.RouterConfig{})
			consumer.SetLegacyDecode(r, legacy)
			var opts []consumer.HandlerOption
			if withReader {
				opts = append(opts, consumer.ReaderSchema(readerV1))
			}
			must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
				got[i] = append(got[i], ev.Payload)
				return nil
			}, opts...))
			for _, m := range records {
				must(t, r.Process(context.Background(), m))
			}
		}
		if !reflect.DeepEqual(got[0], got[1]) || len(got[0]) != 2 {
			t.Errorf("reader %v:\ncompiled %+v\n generic %+v", withReader, got[0], got[1])
		}
	}
	// A datum the plan cannot decode is a permanent ErrDecode.
	r := k.router(consumer.RouterConfig{})
	must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[OrderCreated]) error { return nil }, consumer.ReaderSchema(readerV1)))
	m := k.avroRecord("OrderCreated", 1, writerV1, writerDatum(nil))
	m.Value = m.Value[:len(m.Value)-2]
	if err := r.Process(context.Background(), m); !errors.Is(err, consumer.ErrDecode) || !consumer.IsPermanent(err) || !strings.Contains(err.Error(), "lines[1]") {
		t.Errorf("truncated: %v", err)
	}
}
