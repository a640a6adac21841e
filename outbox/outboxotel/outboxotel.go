// Package outboxotel gives the outbox writer the trace context of the
// OpenTelemetry span in a context (go.opentelemetry.io/otel). It is the
// only outbox package that imports OpenTelemetry.
//
// Traceparent is the W3C traceparent of the span; TracingColumn is the
// java.util.Properties text that Debezium's EventRouter reads from the
// tracing column (tracing.span.context.field), and that
// consumer/consumerotel continues the trace from.
package outboxotel

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/propagation"
)

// Traceparent returns the W3C traceparent header value
// ("00-<trace id>-<span id>-<flags>") of the span in ctx, or "" when ctx
// has no valid span context.
func Traceparent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}

// TracingColumn returns the value for the outbox's tracing column: the
// Properties text "traceparent=…", with a "tracestate=…" line when the span
// context has a trace state, or "" when ctx has no valid span context.
func TracingColumn(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	tp := c["traceparent"]
	if tp == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("traceparent=" + tp)
	if ts := c["tracestate"]; ts != "" {
		// '=' and ':' inside a value need no escape in Properties text.
		b.WriteString("\ntracestate=" + ts)
	}
	return b.String()
}

// TraceContext is an outbox.TraceContextFunc: the W3C trace context fields
// ("traceparent", and "tracestate" when set) of the span in ctx, nil when
// ctx has no valid span context. Give it to the writer:
//
//	outbox.NewWriter(table, outbox.WithTraceContext(outboxotel.TraceContext))
func TraceContext(ctx context.Context) map[string]string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	if c["traceparent"] == "" {
		return nil
	}
	m := map[string]string{"traceparent": c["traceparent"]}
	if ts := c["tracestate"]; ts != "" {
		m["tracestate"] = ts
	}
	return m
}
