package consumerotel_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerotel"
)

const (
	traceID = "0af7651916cd43dd8448eb211c80319c"
	spanID  = "b7ad6b7169203331"
	parent  = "00-" + traceID + "-" + spanID + "-01"
)

type payload struct {
	Fail bool `json:"fail"`
}

func TestMiddlewareContinuesTrace(t *testing.T) {
	for _, c := range []struct {
		name    string
		headers []consumer.Header
		root    bool
	}{
		{"traceparent header", []consumer.Header{{Key: "traceparent", Value: []byte(parent)}}, false},
		{"tracing column header", []consumer.Header{{Key: "tracingspancontext", Value: []byte("# written by the app\ntraceparent=" + parent + "\n")}}, false},
		{"traceparent wins over the column", []consumer.Header{{Key: "tracingspancontext", Value: []byte("traceparent=00-11111111111111111111111111111111-2222222222222222-01")}, {Key: "traceparent", Value: []byte(parent)}}, false},
		{"bad traceparent falls back to the column", []consumer.Header{{Key: "traceparent", Value: []byte("garbage")}, {Key: "tracingspancontext", Value: []byte("traceparent: " + parent)}}, false},
		{"no context: a root span", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sr := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
			r, err := consumer.NewRouter(consumer.RouterConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Use(consumerotel.Middleware(consumerotel.Config{TracerProvider: tp, ConsumerGroup: "billing"})); err != nil {
				t.Fatal(err)
			}
			var inHandler trace.SpanContext
			if err := consumer.Handle(r, "OrderPlaced", 2, func(ctx context.Context, ev consumer.Event[payload]) error {
				inHandler = trace.SpanContextFromContext(ctx)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			m := &consumer.Message{Topic: "orders", Partition: 3, Offset: 42, Key: []byte("order-7"), Value: []byte(`{}`),
				Headers: append(c.headers, consumer.Header{Key: "id", Value: []byte("ev-1")}, consumer.Header{Key: "eventType", Value: []byte("OrderPlaced")}, consumer.Header{Key: "schemaVersion", Value: []byte("2")})}
			if err := r.Process(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			spans := sr.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			s := spans[0]
			if s.Name() != "process orders" || s.SpanKind() != trace.SpanKindConsumer {
				t.Errorf("span %q kind %v, want \"process orders\" consumer", s.Name(), s.SpanKind())
			}
			if inHandler.SpanID() != s.SpanContext().SpanID() {
				t.Errorf("handler ctx span %s, want the middleware's span %s", inHandler.SpanID(), s.SpanContext().SpanID())
			}
			if c.root {
				if s.Parent().IsValid() {
					t.Errorf("parent %v, want none", s.Parent())
				}
			} else {
				if got := s.SpanContext().TraceID().String(); got != traceID {
					t.Errorf("trace id %s, want %s", got, traceID)
				}
				if got := s.Parent().SpanID().String(); got != spanID || !s.Parent().IsRemote() {
					t.Errorf("parent span %s (remote %v), want remote %s", got, s.Parent().IsRemote(), spanID)
				}
			}
			want := map[attribute.Key]attribute.Value{
				"messaging.system":                   attribute.StringValue("kafka"),
				"messaging.operation.type":           attribute.StringValue("process"),
				"messaging.destination.name":         attribute.StringValue("orders"),
				"messaging.destination.partition.id": attribute.StringValue("3"),
				"messaging.kafka.offset":             attribute.IntValue(42),
				"messaging.kafka.message.key":        attribute.StringValue("order-7"),
				"messaging.message.id":               attribute.StringValue("ev-1"),
				"messaging.consumer.group.name":      attribute.StringValue("billing"),
				"outbox.event.type":                  attribute.StringValue("OrderPlaced"),
				"outbox.event.version":               attribute.IntValue(2),
			}
			got := map[attribute.Key]attribute.Value{}
			for _, kv := range s.Attributes() {
				got[kv.Key] = kv.Value
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("attribute %s = %v, want %v", k, got[k].Emit(), v.Emit())
				}
			}
		})
	}
}

// TestMiddlewareSpanPerAttempt: under Retry every handler call is a span,
// and a failing call records its error.
func TestMiddlewareSpanPerAttempt(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Use(consumer.Retry{MaxAttempts: 3}.Middleware, consumerotel.Middleware(consumerotel.Config{TracerProvider: tp})); err != nil {
		t.Fatal(err)
	}
	calls := 0
	if err := consumer.Handle(r, "T", 1, func(context.Context, consumer.Event[payload]) error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	m := &consumer.Message{Topic: "t", Value: []byte(`{}`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("T")}, {Key: "traceparent", Value: []byte(parent)}}}
	if err := r.Process(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	spans := sr.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3 (one per attempt)", len(spans))
	}
	for i, s := range spans {
		wantErr := i < 2
		if (s.Status().Code == codes.Error) != wantErr || (len(s.Events()) > 0) != wantErr {
			t.Errorf("span %d: status %v, %d events; want error=%v", i, s.Status(), len(s.Events()), wantErr)
		}
		if s.Parent().SpanID().String() != spanID {
			t.Errorf("span %d parent %s, want %s", i, s.Parent().SpanID(), spanID)
		}
		for _, kv := range s.Attributes() {
			if kv.Key == consumerotel.AttrAttempt && kv.Value.AsInt64() != int64(i+1) {
				t.Errorf("span %d attempt %d", i, kv.Value.AsInt64())
			}
		}
	}
}

func TestParseProperties(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]string
	}{
		{"traceparent=" + parent, map[string]string{"traceparent": parent}},
		{"  traceparent : " + parent + "\r\n! comment\ntracestate=a=1,b=2", map[string]string{"traceparent": parent, "tracestate": "a=1,b=2"}},
		{"k v", map[string]string{"k": "v"}},
		{`a\=b=c\:d`, map[string]string{"a=b": "c:d"}},
		{"#only\n\n", map[string]string{}},
	} {
		got := consumerotel.ParseProperties(c.in)
		if len(got) != len(c.want) {
			t.Errorf("ParseProperties(%q) = %v, want %v", c.in, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("ParseProperties(%q)[%q] = %q, want %q", c.in, k, got[k], v)
			}
		}
	}
}

// TestMiddlewareBeforeRetryRejected: the tracing middleware outside Retry
// is an order error at Use (#28 item 2).
func TestMiddlewareBeforeRetryRejected(t *testing.T) {
	r, err := consumer.NewRouter(consumer.RouterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Use(consumerotel.Middleware(consumerotel.Config{}), consumer.Retry{MaxAttempts: 2}.Middleware)
	if !errors.Is(err, consumer.ErrMiddlewareOrder) {
		t.Fatalf("Use(tracing, retry) = %v, want ErrMiddlewareOrder", err)
	}
}
