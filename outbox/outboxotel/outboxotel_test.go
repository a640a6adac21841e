package outboxotel_test

import (
	"context"
	"regexp"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/outboxctl/outboxctl/consumer/consumerotel"
	"github.com/outboxctl/outboxctl/outbox/outboxotel"
)

var traceparentRE = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$`)

func TestTraceparent(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "write order")
	defer span.End()
	sc := span.SpanContext()
	got := outboxotel.Traceparent(ctx)
	if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; got != want {
		t.Errorf("Traceparent = %q, want %q", got, want)
	}
	if !traceparentRE.MatchString(got) {
		t.Errorf("Traceparent %q is not W3C", got)
	}
	if got := outboxotel.Traceparent(context.Background()); got != "" {
		t.Errorf("Traceparent without a span = %q, want empty", got)
	}
}

func TestTracingColumnRoundTrip(t *testing.T) {
	ts, err := trace.ParseTraceState("vendor=abc,other=1:2")
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "write order")
	defer span.End()
	ctx = trace.ContextWithSpanContext(ctx, span.SpanContext().WithTraceState(ts))
	col := outboxotel.TracingColumn(ctx)
	props := consumerotel.ParseProperties(col)
	if props["traceparent"] != outboxotel.Traceparent(ctx) || props["tracestate"] != ts.String() {
		t.Errorf("TracingColumn = %q, parsed %v", col, props)
	}
	if got := outboxotel.TracingColumn(context.Background()); got != "" {
		t.Errorf("TracingColumn without a span = %q, want empty", got)
	}
}

func TestTraceContext(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "write order")
	defer span.End()
	ts, err := trace.ParseTraceState("vendor=1")
	if err != nil {
		t.Fatal(err)
	}
	withState := trace.ContextWithSpanContext(ctx, span.SpanContext().WithTraceState(ts))
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want map[string]string
	}{
		{"span", ctx, map[string]string{"traceparent": outboxotel.Traceparent(ctx)}},
		{"trace state", withState, map[string]string{"traceparent": outboxotel.Traceparent(ctx), "tracestate": "vendor=1"}},
		{"no span", context.Background(), nil},
	} {
		got := outboxotel.TraceContext(tc.ctx)
		if len(got) != len(tc.want) {
			t.Errorf("%s: TraceContext = %v, want %v", tc.name, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: TraceContext[%s] = %q, want %q", tc.name, k, got[k], v)
			}
		}
	}
}
