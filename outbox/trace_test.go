package outbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/spec"
)

const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestTraceContextColumn(t *testing.T) {
	tracing := "    columns: {tracing: tracingspancontext}\n"
	ev := outbox.Event{AggregateType: "Order", AggregateID: "o-1", Type: "OrderCreated", SchemaVersion: 1, Payload: []byte(`{}`)}
	cases := []struct {
		name  string
		extra string
		opts  []outbox.Option
		ctx   context.Context
		raw   string
		want  any    // the tracing column's argument
		err   string // "" = ok
	}{
		{"no trace in ctx", tracing, nil, context.Background(), "", nil, ""},
		{"traceparent from ctx", tracing, nil, outbox.ContextWithTraceparent(context.Background(), tp, ""), "", "traceparent=" + tp, ""},
		{"traceparent and tracestate", tracing, nil, outbox.ContextWithTraceparent(context.Background(), tp, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"), "",
			"traceparent=" + tp + "\ntracestate=congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", ""},
		{"raw string wins", tracing, nil, outbox.ContextWithTraceparent(context.Background(), tp, ""), "traceparent=raw", "traceparent=raw", ""},
		{"hook", tracing, []outbox.Option{outbox.WithTraceContext(func(context.Context) map[string]string {
			return map[string]string{"traceparent": tp, "baggage": "k=v"}
		})}, context.Background(), "", "baggage=k=v\ntraceparent=" + tp, ""},
		{"hook off", tracing, []outbox.Option{outbox.WithTraceContext(nil)}, outbox.ContextWithTraceparent(context.Background(), tp, ""), "", nil, ""},
		{"malformed traceparent", tracing, nil, outbox.ContextWithTraceparent(context.Background(), "00-zz-00f067aa0ba902b7-01", ""), "", nil, "not W3C Trace Context"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := table(t, spec.Postgres, spec.FormatJSON, c.extra)
			w, err := outbox.NewWriter(tab, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			pos := -1
			for i, col := range tab.Columns {
				if col.Role == spec.RoleTracing {
					pos = i
				}
			}
			if pos < 0 {
				t.Fatal("no tracing column")
			}
			e := ev
			e.TraceContext = c.raw
			f := &fakeTx{}
			_, err = w.Write(c.ctx, f, e)
			if c.err != "" {
				if !errors.Is(err, outbox.ErrInvalidEvent) || !strings.Contains(err.Error(), c.err) || len(f.calls) != 0 {
					t.Fatalf("err = %v, calls %d; want ErrInvalidEvent %q and nothing written", err, len(f.calls), c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.calls[0].args[pos]; got != c.want {
				t.Errorf("tracing column = %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestValidTraceparent(t *testing.T) {
	for s, want := range map[string]bool{
		tp: true,
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra": false,
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01":       false,
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":       false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01":       false,
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01":       false,
		"": false,
	} {
		if got := outbox.ValidTraceparent(s); got != want {
			t.Errorf("ValidTraceparent(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPropertiesText(t *testing.T) {
	got := outbox.PropertiesText(map[string]string{"a b": " x\\y\n", "k=": "#v", "z": "1=2"})
	want := "a\\ b=\\ x\\\\y\\n\nk\\==\\#v\nz=1=2"
	if got != want {
		t.Errorf("PropertiesText = %q, want %q", got, want)
	}
}
