package outbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// TraceContextFunc returns the trace context of ctx as W3C Trace Context
// fields (key "traceparent", optionally "tracestate" and others a
// propagator injects), or nil for none. It is the hook through which a
// tracing library plugs into the writer without package outbox importing
// it: outbox/outboxotel's hook is an OpenTelemetry propagator's Inject into
// a map carrier.
type TraceContextFunc func(ctx context.Context) map[string]string

type traceKey struct{}

type traceFields struct{ parent, state string }

// ContextWithTraceparent returns a copy of ctx carrying a W3C traceparent
// ("00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>") and an optional
// tracestate (empty for none). Without WithTraceContext the writer reads
// them with TraceparentFromContext into the tracing column.
func ContextWithTraceparent(ctx context.Context, traceparent, tracestate string) context.Context {
	return context.WithValue(ctx, traceKey{}, traceFields{traceparent, tracestate})
}

// TraceparentFromContext returns what ContextWithTraceparent stored in ctx
// (empty strings for nothing). It is the writer's default TraceContextFunc.
func TraceparentFromContext(ctx context.Context) (traceparent, tracestate string) {
	f, _ := ctx.Value(traceKey{}).(traceFields)
	return f.parent, f.state
}

func contextTrace(ctx context.Context) map[string]string {
	p, s := TraceparentFromContext(ctx)
	if p == "" {
		return nil
	}
	m := map[string]string{"traceparent": p}
	if s != "" {
		m["tracestate"] = s
	}
	return m
}

// WithTraceContext sets how the writer takes the trace context from the
// ctx of Write, overriding the default TraceparentFromContext. The fields
// go into the tracing column (spec columns.tracing, the EventRouter's
// tracing.span.context.field) as java.util.Properties text, one key=value
// line each, sorted by key, which Debezium's ActivateTracingSpan reads as
// the parent of its span and propagates to the record's headers. An
// Event.TraceContext given as a raw string wins over the hook. f nil turns
// the trace context from ctx off.
func WithTraceContext(f TraceContextFunc) Option {
	return func(w *Writer) { w.trace = f }
}

// traceColumn is the tracing column's value for an event written with
// ctx: raw when set, else the hook's fields as Properties text ("" for
// none).
func (w *Writer) traceColumn(ctx context.Context, raw string) (string, error) {
	if raw != "" || w.trace == nil {
		return raw, nil
	}
	fields := w.trace(ctx)
	if len(fields) == 0 {
		return "", nil
	}
	if p, ok := fields["traceparent"]; ok && !ValidTraceparent(p) {
		return "", fmt.Errorf("%w: traceparent %q is not W3C Trace Context (00-<32 hex>-<16 hex>-<2 hex>)", ErrInvalidEvent, p)
	}
	return PropertiesText(fields), nil
}

// ValidTraceparent reports whether s is a W3C traceparent of version 00
// (or a later version, whose first four fields have the same shape): a
// 2-hex-digit version other than ff, a 32-hex-digit trace id and a
// 16-hex-digit parent id, neither all zeros, and 2 hex digits of flags,
// all lower case.
func ValidTraceparent(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) < 4 || (parts[0] == "00" && len(parts) != 4) {
		return false
	}
	for i, n := range []int{2, 32, 16, 2} {
		p := parts[i]
		if len(p) != n || strings.Trim(p, "0123456789abcdef") != "" {
			return false
		}
		if (i == 1 || i == 2) && strings.Trim(p, "0") == "" {
			return false
		}
	}
	return parts[0] != "ff"
}

// PropertiesText renders fields as java.util.Properties text, which
// Properties.load reads back to the same map: one key=value line per
// field, sorted by key, with the separator characters, backslashes, line
// breaks and leading spaces escaped.
func PropertiesText(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		propEscape(&b, k, true)
		b.WriteByte('=')
		propEscape(&b, fields[k], false)
	}
	return b.String()
}

func propEscape(b *strings.Builder, s string, key bool) {
	for i, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == ' ' && (key || i == 0):
			b.WriteString(`\ `)
		case key && (r == '=' || r == ':' || r == '#' || r == '!'):
			b.WriteByte('\\')
			b.WriteRune(r)
		case i == 0 && (r == '#' || r == '!'):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
}
