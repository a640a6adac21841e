package consumer_test

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// registryAnswering is a registry whose GET /schemas/ids/{id} answers with
// status and body.
func registryAnswering(t *testing.T, status int, body string) *registry.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := registry.NewClient(srv.URL, registry.WithCallTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRegistryFailureSemantics: what the registry answers for a record's
// schema id decides whether the record is dead-lettered (permanent, with
// the reason) or kept undelivered and retried (transient), also behind
// Retry and DLQ.
func TestRegistryFailureSemantics(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	refused, err := registry.NewClient(closedURL, registry.WithCallTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		client    *registry.Client
		permanent bool
		why       string // in the DLQ error header (permanent) or the error (transient)
	}{
		{"unknown schema id (40403)", registryAnswering(t, 404, `{"error_code":40403,"message":"Schema 7 not found"}`), true, "error code 40403"},
		{"protobuf schema", registryAnswering(t, 200, `{"schema":"syntax = \"proto3\"; message A {}","schemaType":"PROTOBUF"}`), true, "is PROTOBUF, not AVRO"},
		{"json schema", registryAnswering(t, 200, `{"schema":"{}","schemaType":"JSON"}`), true, "is JSON, not AVRO"},
		{"schema references", registryAnswering(t, 200, `{"schema":"{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"b\",\"type\":\"B\"}]}","references":[{"name":"B","subject":"b","version":1}]}`), true, "schema references"},
		{"server error 500", registryAnswering(t, 500, `{"error_code":50001,"message":"store error"}`), false, "store error"},
		{"unavailable 503", registryAnswering(t, 503, `<html>down</html>`), false, "503"},
		{"connection refused", refused, false, "unreachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dlq := &consumertest.Producer{}
			r, err := consumer.NewRouter(consumer.RouterConfig{Schemas: consumer.RegistryByID(c.client)})
			if err != nil {
				t.Fatal(err)
			}
			must(t, r.Use(consumer.DLQ{Topic: "dlq", Producer: dlq}.Middleware, consumer.Retry{MaxAttempts: 3, InitialInterval: time.Millisecond}.Middleware))
			calls := 0
			must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[map[string]any]) error { calls++; return nil }))
			m := &consumer.Message{Topic: "outbox.event.Order", Key: []byte("o-1"), Value: []byte{0, 0, 0, 0, 7, 2, 'x'},
				Headers: []consumer.Header{{Key: "id", Value: []byte("e-1")}, {Key: "eventType", Value: []byte("OrderCreated")}, {Key: "schemaVersion", Value: []byte("1")}}}
			err = r.Process(context.Background(), m)
			if calls != 0 {
				t.Errorf("handler ran %d times", calls)
			}
			recs := dlq.Records()
			if c.permanent {
				if err != nil || len(recs) != 1 {
					t.Fatalf("Process = %v with %d DLQ records, want nil and the record dead-lettered", err, len(recs))
				}
				reason, _ := recs[0].Header(consumer.HeaderDLQReason)
				attempts, _ := recs[0].Header(consumer.HeaderDLQAttempts)
				msg, _ := recs[0].Header(consumer.HeaderDLQError)
				if string(reason) != "permanent" || string(attempts) != "1" || !strings.Contains(string(msg), c.why) || !strings.Contains(string(msg), consumer.ErrSchema.Error()) {
					t.Errorf("DLQ reason %q attempts %s error %q, want permanent, 1, naming %q", reason, attempts, msg, c.why)
				}
				return
			}
			if !consumer.IsTransient(err) || !errors.Is(err, consumer.ErrSchema) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("Process = %v, want a transient ErrSchema naming %q", err, c.why)
			}
			if m.Attempt != 3 {
				t.Errorf("attempts = %d, want 3 (Retry retries a transient error)", m.Attempt)
			}
			if len(recs) != 0 {
				t.Errorf("%d records dead-lettered, want 0: a registry outage is never dead-lettered", len(recs))
			}
		})
	}
}

// TestTransientNeverDeadLettered: a transient error is returned (the
// record stays undelivered) after Retry gave up, whatever DLQ.Filter says;
// a plain error is dead-lettered as "failed" after the retries; a stop is
// neither retried nor dead-lettered.
func TestTransientNeverDeadLettered(t *testing.T) {
	k := newKit(t)
	cases := []struct {
		name       string
		err        error
		dlq        bool
		attempts   int
		transient  bool
		stop       bool
		deadLetter bool
	}{
		{"transient", consumer.Transient(errors.New("db down")), false, 3, true, false, false},
		{"transient wrapping permanent", consumer.Transient(consumer.Permanent(errors.New("x"))), false, 3, true, false, false},
		{"connection refused in the handler", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true, 3, false, false, true},
		{"plain error", errors.New("bad order"), true, 3, false, false, true},
		{"permanent", consumer.Permanent(errors.New("bad order")), true, 1, false, false, true},
		{"stop", consumer.Stop(errors.New("halt")), false, 1, false, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dlq := &consumertest.Producer{}
			r := k.router(consumer.RouterConfig{})
			must(t, r.Use(
				consumer.DLQ{Topic: "dlq", Producer: dlq, Filter: func(error) bool { return true }}.Middleware,
				consumer.Retry{MaxAttempts: 3, InitialInterval: time.Millisecond}.Middleware))
			runs := 0
			must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[OrderCreated]) error { runs++; return c.err }))
			err := r.Process(context.Background(), k.jsonRecord("OrderCreated", 1, `{}`))
			if runs != c.attempts {
				t.Errorf("handler ran %d times, want %d", runs, c.attempts)
			}
			if got := len(dlq.Records()) == 1; got != c.deadLetter {
				t.Errorf("dead-lettered = %v, want %v", got, c.deadLetter)
			}
			if c.deadLetter {
				if err != nil {
					t.Errorf("Process = %v, want nil (dead-lettered)", err)
				}
				return
			}
			if consumer.IsTransient(err) != c.transient || consumer.IsStop(err) != c.stop || !errors.Is(err, errors.Unwrap(c.err)) && !errors.Is(err, c.err) {
				t.Errorf("Process = %v (transient %v, stop %v), want %v (transient %v, stop %v)", err, consumer.IsTransient(err), consumer.IsStop(err), c.err, c.transient, c.stop)
			}
		})
	}
}

// TestUnknownPolicies: every policy, with and without a DLQ in the chain:
// the outcome, the log line and the counters. The default dead-letters
// when there is a DLQ and stops otherwise.
func TestUnknownPolicies(t *testing.T) {
	k := newKit(t)
	cases := []struct {
		policy  consumer.UnknownPolicy
		dlq     bool
		want    string // "skip", "dlq", "stop"
		logWant string
	}{
		{consumer.UnknownDefault, true, "dlq", "level=WARN"},
		{consumer.UnknownDefault, false, "stop", "level=ERROR"},
		{consumer.UnknownSkip, true, "skip", "level=INFO"},
		{consumer.UnknownSkip, false, "skip", "level=INFO"},
		{consumer.UnknownDLQ, true, "dlq", "level=WARN"},
		{consumer.UnknownStop, true, "stop", "level=ERROR"},
		{consumer.UnknownStop, false, "stop", "level=ERROR"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/dlq=%v", c.policy, c.dlq), func(t *testing.T) {
			var logs bytes.Buffer
			skipped := 0
			r := k.router(consumer.RouterConfig{Unknown: c.policy, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				OnUnknown: func(context.Context, *consumer.Message) { skipped++ }})
			dlq := &consumertest.Producer{}
			if c.dlq {
				must(t, r.Use(consumer.DLQ{Topic: "dlq", Producer: dlq}.Middleware))
			}
			must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[any]) error { return nil }))
			err := r.Process(context.Background(), k.jsonRecord("OrderShipped", 2, `{}`))
			st := r.Stats()
			switch c.want {
			case "skip":
				if err != nil || skipped != 1 || st.UnknownSkipped != 1 {
					t.Errorf("Process = %v, OnUnknown %d, stats %+v: want skipped once", err, skipped, st)
				}
			case "dlq":
				if err != nil || len(dlq.Records()) != 1 || st.UnknownDeadLettered != 1 || st.DeadLettered != 1 {
					t.Errorf("Process = %v, %d DLQ records, stats %+v: want dead-lettered once", err, len(dlq.Records()), st)
				}
			case "stop":
				if !consumer.IsStop(err) || !errors.Is(err, consumer.ErrUnknownEventType) || !errors.Is(err, consumer.ErrStopped) || len(dlq.Records()) != 0 || st.UnknownStopped != 1 {
					t.Errorf("Process = %v, %d DLQ records, stats %+v: want a stop wrapping ErrUnknownEventType, nothing dead-lettered", err, len(dlq.Records()), st)
				}
			}
			line := logs.String()
			if !strings.Contains(line, c.logWant) || !strings.Contains(line, "event_type=OrderShipped") || !strings.Contains(line, "version=2") || !strings.Contains(line, "policy="+c.want) {
				t.Errorf("log = %q, want a %s line naming the type, version and policy %s", line, c.logWant, c.want)
			}
		})
	}
	if err := (consumer.RouterConfig{Unknown: 9}).Validate(); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("Validate(Unknown 9) = %v", err)
	}
	if consumer.UnknownFail != consumer.UnknownDLQ {
		t.Error("UnknownFail is the former name of UnknownDLQ")
	}
}

// TestMiddlewareCheckedWhenBuilt: an invalid Retry or DLQ is an error of
// Use (and of NewRetry/NewDLQ), not a failure of every record at run time.
func TestMiddlewareCheckedWhenBuilt(t *testing.T) {
	p := &consumertest.Producer{}
	cases := []struct {
		name string
		mw   consumer.Middleware
		ok   bool
	}{
		{"valid retry", consumer.Retry{MaxAttempts: 2}.Middleware, true},
		{"valid dlq", consumer.DLQ{Topic: "dlq", Producer: p}.Middleware, true},
		{"recover", consumer.Recover(), true},
		{"zero retry", consumer.Retry{}.Middleware, false},
		{"retry with a bad interval", consumer.Retry{MaxAttempts: 2, InitialInterval: time.Second, MaxInterval: time.Millisecond}.Middleware, false},
		{"zero dlq", consumer.DLQ{}.Middleware, false},
		{"dlq without producer", consumer.DLQ{Topic: "dlq"}.Middleware, false},
		{"nil", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := consumer.NewRouter(consumer.RouterConfig{})
			err := r.Use(c.mw)
			if c.ok {
				if err != nil || r.Err() != nil {
					t.Fatalf("Use = %v", err)
				}
				return
			}
			if !errors.Is(err, consumer.ErrInvalidConfig) || !errors.Is(r.Err(), consumer.ErrInvalidConfig) {
				t.Fatalf("Use = %v, Err = %v, want ErrInvalidConfig", err, r.Err())
			}
			must(t, consumer.Handle(r, "A", 0, func(context.Context, consumer.Event[any]) error { return nil }))
			m := &consumer.Message{Value: []byte(`{}`), Headers: []consumer.Header{{Key: "eventType", Value: []byte("A")}}}
			if perr := r.Process(context.Background(), m); !errors.Is(perr, consumer.ErrInvalidConfig) {
				t.Errorf("Process on a router with an invalid middleware = %v", perr)
			}
		})
	}
	if _, err := consumer.NewRetry(consumer.Retry{}); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("NewRetry(Retry{}) = %v", err)
	}
	if _, err := consumer.NewDLQ(consumer.DLQ{Topic: "x"}); !errors.Is(err, consumer.ErrInvalidConfig) {
		t.Errorf("NewDLQ without producer = %v", err)
	}
	if mw, err := consumer.NewRetry(consumer.Retry{MaxAttempts: 1}); err != nil || mw == nil {
		t.Errorf("NewRetry(valid) = %v, %v", mw, err)
	}
	if mw, err := consumer.NewDLQ(consumer.DLQ{Topic: "x", Producer: p}); err != nil || mw == nil {
		t.Errorf("NewDLQ(valid) = %v, %v", mw, err)
	}
}

type sqlStateErr string

func (e sqlStateErr) Error() string    { return "sqlstate " + string(e) }
func (e sqlStateErr) SQLState() string { return string(e) }

func TestIsConnectionError(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("duplicate key"), false},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("exec: %w", driver.ErrBadConn), true},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), true},
		{context.Canceled, false},
		{sqlStateErr("08006"), true},  // connection failure
		{sqlStateErr("57P01"), true},  // admin shutdown
		{sqlStateErr("40001"), true},  // serialization failure
		{sqlStateErr("40P01"), true},  // deadlock
		{sqlStateErr("23505"), false}, // unique violation
		{sqlStateErr("22P02"), false}, // invalid text representation
		{fmt.Errorf("exec: %w", mysql.ErrInvalidConn), true},
		{&mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}, Message: "Deadlock found"}, true},
		{fmt.Errorf("insert: %w", &mysql.MySQLError{Number: 1205, SQLState: [5]byte{'H', 'Y', '0', '0', '0'}, Message: "Lock wait timeout"}), true},
		{&mysql.MySQLError{Number: 1062, SQLState: [5]byte{'2', '3', '0', '0', '0'}, Message: "Duplicate entry"}, false},
		{&mysql.MySQLError{Number: 1999, SQLState: [5]byte{'0', '8', 'S', '0', '1'}, Message: "lost"}, true},
		{errors.New("invalid connection string"), false},
	}
	for _, c := range cases {
		if got := consumer.IsConnectionError(c.err); got != c.want {
			t.Errorf("IsConnectionError(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestTestRegistryUnknownID: consumertest.Registry answers an unknown id as
// the registry client does, so the Router dead-letters the record.
func TestTestRegistryUnknownID(t *testing.T) {
	k := newKit(t)
	r := k.router(consumer.RouterConfig{})
	dlq := &consumertest.Producer{}
	must(t, r.Use(consumer.DLQ{Topic: "dlq", Producer: dlq}.Middleware))
	must(t, consumer.Handle(r, "OrderCreated", 1, func(context.Context, consumer.Event[map[string]any]) error { return nil }))
	m := k.jsonRecord("OrderCreated", 1, `{}`)
	m.Value = []byte{0, 0, 0, 0x7f, 0, 2}
	if err := r.Process(context.Background(), m); err != nil || len(dlq.Records()) != 1 {
		t.Fatalf("Process = %v, %d DLQ records: want the unknown schema id dead-lettered", err, len(dlq.Records()))
	}
	if e, _ := dlq.Records()[0].Header(consumer.HeaderDLQError); !strings.Contains(string(e), registry.ErrSchemaNotFound.Error()) {
		t.Errorf("DLQ error %q, want it to name %q", e, registry.ErrSchemaNotFound)
	}
}
