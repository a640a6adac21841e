// Package consumerotel traces the consumer's handler calls with
// OpenTelemetry (go.opentelemetry.io/otel). It is the only consumer package
// that imports OpenTelemetry.
//
// Middleware is the one thing to learn: add it to the Router after Retry
// (router.Use(dlq, retry, consumerotel.Middleware(cfg))) to get one span
// per handler call. Each span continues the trace that the record carries:
//
//   - a W3C traceparent (and tracestate) header, which Debezium's
//     EventRouter writes when its worker runs an OpenTelemetry SDK;
//   - else the tracing column placed as a header (spec headers.traceContext,
//     default header name "tracingspancontext"), whose value is the
//     java.util.Properties text the writer put in the column
//     ("traceparent=00-…"), as the EventRouter reads it.
//
// The package does not configure an exporter or a global TracerProvider.
package consumerotel

import (
	"bufio"
	"context"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/outboxctl/outboxctl/consumer"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/outboxctl/outboxctl/consumer/consumerotel"

// DefaultTraceContextHeader is the header that carries the tracing column
// (the EventRouter's tracing.span.context.field default).
const DefaultTraceContextHeader = "tracingspancontext"

// Attribute keys of the outbox event, beside the messaging semantic
// conventions.
const (
	AttrEventType    = attribute.Key("outbox.event.type")
	AttrEventVersion = attribute.Key("outbox.event.version")
	AttrAttempt      = attribute.Key("outbox.attempt")
)

// Config configures Middleware. The zero value is valid.
type Config struct {
	// TracerProvider makes the tracer (default otel.GetTracerProvider()).
	TracerProvider trace.TracerProvider
	// Propagator reads the parent context from the headers (default W3C
	// trace context and baggage).
	Propagator propagation.TextMapPropagator
	// ConsumerGroup is messaging.consumer.group.name (omitted when empty).
	ConsumerGroup string
	// TraceContextHeader is the header with the tracing column's
	// Properties text (default DefaultTraceContextHeader).
	TraceContextHeader string
}

// Middleware returns the tracing middleware: a span of kind consumer named
// "process <topic>" around each handler call, with the messaging
// attributes (messaging.system=kafka, messaging.operation.type=process,
// messaging.destination.name, messaging.destination.partition.id,
// messaging.kafka.offset, messaging.kafka.message.key,
// messaging.message.id = the event id, messaging.consumer.group.name) and
// the event's type and version. A handler error is recorded on the span,
// which gets status Error and error.type. The handler's ctx carries the
// span. It is marked with consumer.Tracing: Router.Use rejects it before a
// Retry (consumer.ErrMiddlewareOrder).
func Middleware(cfg Config) consumer.Middleware {
	tp := cfg.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	prop := cfg.Propagator
	if prop == nil {
		prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	hdr := cfg.TraceContextHeader
	if hdr == "" {
		hdr = DefaultTraceContextHeader
	}
	tracer := tp.Tracer(ScopeName)
	return consumer.Tracing(func(next consumer.Handler) consumer.Handler {
		return func(ctx context.Context, m *consumer.Message) error {
			ctx = Extract(ctx, prop, m, hdr)
			attrs := []attribute.KeyValue{
				semconv.MessagingSystemKafka,
				semconv.MessagingOperationTypeProcess,
				semconv.MessagingOperationName("process"),
				semconv.MessagingDestinationName(m.Topic),
				semconv.MessagingDestinationPartitionID(strconv.Itoa(int(m.Partition))),
				semconv.MessagingKafkaOffset(int(m.Offset)),
			}
			if len(m.Key) > 0 {
				attrs = append(attrs, semconv.MessagingKafkaMessageKey(string(m.Key)))
			}
			if m.Meta.EventID != "" {
				attrs = append(attrs, semconv.MessagingMessageID(m.Meta.EventID))
			}
			if cfg.ConsumerGroup != "" {
				attrs = append(attrs, semconv.MessagingConsumerGroupName(cfg.ConsumerGroup))
			}
			if m.Meta.Tombstone {
				attrs = append(attrs, semconv.MessagingKafkaMessageTombstone(true))
			}
			if m.Meta.EventType != "" {
				attrs = append(attrs, AttrEventType.String(m.Meta.EventType), AttrEventVersion.Int(m.Meta.Version))
			}
			attrs = append(attrs, AttrAttempt.Int(m.Attempt))
			ctx, span := tracer.Start(ctx, "process "+m.Topic, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...))
			defer span.End()
			err := next(ctx, m)
			if err != nil {
				span.RecordError(err)
				span.SetStatus(codes.Error, err.Error())
				span.SetAttributes(semconv.ErrorType(err))
			}
			return err
		}
	})
}

// Extract returns ctx with the remote span context of m: from the headers
// the propagator reads (traceparent), else from the Properties text in
// header traceContextHeader. Without either, ctx is returned unchanged.
func Extract(ctx context.Context, prop propagation.TextMapPropagator, m *consumer.Message, traceContextHeader string) context.Context {
	if out := prop.Extract(ctx, headerCarrier{m}); trace.SpanContextFromContext(out).IsValid() {
		return out
	}
	if v, ok := m.Header(traceContextHeader); ok && len(v) > 0 {
		return prop.Extract(ctx, propagation.MapCarrier(ParseProperties(string(v))))
	}
	return ctx
}

// headerCarrier reads a record's headers (the last one of a name wins,
// as the EventRouter replaces a header of the same name).
type headerCarrier struct{ m *consumer.Message }

func (c headerCarrier) Get(key string) string {
	v, _ := c.m.Header(key)
	return string(v)
}

func (c headerCarrier) Set(string, string) {}

func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c.m.Headers))
	for _, h := range c.m.Headers {
		keys = append(keys, h.Key)
	}
	return keys
}

// ParseProperties reads java.util.Properties text as the EventRouter reads
// the tracing column: one key=value (or key:value, or key value) per line,
// '#' and '!' comments, surrounding blanks trimmed, backslash escapes of
// the separators undone. Continuation lines and \u escapes, which a trace
// context never needs, are not supported.
func ParseProperties(text string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		var key strings.Builder
		i := 0
		for ; i < len(line); i++ {
			ch := line[i]
			if ch == '\\' && i+1 < len(line) {
				i++
				key.WriteByte(line[i])
				continue
			}
			if ch == '=' || ch == ':' || ch == ' ' || ch == '\t' || ch == '\f' {
				break
			}
			key.WriteByte(ch)
		}
		rest := strings.TrimLeft(line[i:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
		out[key.String()] = strings.NewReplacer(`\=`, "=", `\:`, ":", `\\`, `\`, `\ `, " ").Replace(strings.TrimRight(rest, "\r"))
	}
	return out
}
