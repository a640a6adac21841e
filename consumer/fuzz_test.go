package consumer_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
)

// FuzzProcess: no record value or header makes the Router panic; every
// failure is an error.
func FuzzProcess(f *testing.F) {
	reg := &consumertest.Registry{}
	id, err := reg.Register(writerV1)
	if err != nil {
		f.Fatal(err)
	}
	good := reg.MustEncode(id, writerDatum(map[string]any{"string": "x"}))
	f.Add(good, "OrderCreated", "1")
	f.Add([]byte(`{"orderId":"o"}`), "OrderCreated", "1")
	f.Add([]byte(`"{\"orderId\":\"o\"}"`), "OrderCreated", "")
	f.Add([]byte{0, 0, 0, 0, 1}, "", "")
	f.Add([]byte{0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0x0f}, "OrderCreated", "x")
	f.Fuzz(func(t *testing.T, value []byte, typ, version string) {
		r, err := consumer.NewRouter(consumer.RouterConfig{Schemas: reg, Unknown: consumer.UnknownFail})
		if err != nil {
			t.Fatal(err)
		}
		_ = consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error { return nil }, consumer.ReaderSchema(readerV1))
		_ = consumer.Handle(r, "OrderCreated", 0, func(ctx context.Context, ev consumer.Event[map[string]any]) error { return nil })
		_ = consumer.Handle(r, "com.acme.order.OrderCreated", 2, func(ctx context.Context, ev consumer.Event[any]) error { return nil })
		m := &consumer.Message{Value: value, Headers: []consumer.Header{{Key: "eventType", Value: []byte(typ)}, {Key: "schemaVersion", Value: []byte(version)}}}
		_ = r.Process(context.Background(), m)
	})
}
