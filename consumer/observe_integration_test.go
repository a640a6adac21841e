//go:build integration

package consumer_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerotel"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/outbox/outboxotel"
)

// TestMetricsScrapedFromRunningConsumer runs a known workload through a
// Consumer on the real Kafka with a PostgreSQL inbox, Retry and a DLQ, and
// scrapes /metrics over HTTP: every counter, the handler-duration count and
// the consumer lag per partition (librdkafka statistics) match what
// happened. Then partition 0 is held by a handler that blocks, K more
// records queue behind it, and the lag gauge of partition 0 reads K until
// the handler is released (K+1 with the held record).
func TestMetricsScrapedFromRunningConsumer(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := itest.Suffix()
	topic, dlqTopic, group := "outbox.event.Metrics"+sfx, "metrics-dlq-"+sfx, "metrics-"+sfx
	itest.CreateTopicN(t, s.BootstrapServers, topic, 2)
	itest.CreateTopic(t, s.BootstrapServers, dlqTopic)
	t.Cleanup(func() {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
		itest.DeleteTopics(t, s.BootstrapServers, topic, dlqTopic)
	})

	// The workload, 29 records on 2 partitions:
	const good, poison, dups, unknown = 20, 3, 4, 2
	var evs []event
	for p := range int32(2) {
		for n := range good / 2 {
			evs = append(evs, event{partition: p, agg: fmt.Sprintf("a%d", p), id: fmt.Sprintf("g-%d-%d", p, n), typ: "OrderPlaced", value: []byte(`{"seq":1}`)})
		}
	}
	for i := range poison { // handler fails twice (Retry 2), then DLQ
		evs = append(evs, event{partition: int32(i % 2), agg: "poison", id: fmt.Sprintf("poison-%d", i), typ: "OrderPlaced", value: []byte(`{"seq":-1}`)})
	}
	// fails transiently twice: retried once, Process fails once, handled on redelivery
	evs = append(evs, event{partition: 1, agg: "flaky", id: "flaky", typ: "OrderPlaced", value: []byte(`{"seq":-2}`)})
	for i := range dups { // redelivered ids: the inbox skips them
		p := int32(i % 2)
		evs = append(evs, event{partition: p, agg: fmt.Sprintf("a%d", p), id: fmt.Sprintf("g-%d-%d", p, i/2), typ: "OrderPlaced", value: []byte(`{"seq":1}`)})
	}
	for i := range unknown {
		evs = append(evs, event{partition: int32(i % 2), agg: "u", id: fmt.Sprintf("u-%d", i), typ: "Mystery", value: []byte(`{}`)})
	}
	produceEvents(t, s.BootstrapServers, topic, evs)

	_, store := effectsInbox(t, s.PostgresDSN, "metrics_"+sfx)
	reg := prometheus.NewRegistry()
	m, err := consumerprom.New(consumerprom.Config{Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	r, err := consumer.NewRouter(consumer.RouterConfig{Inbox: store, ConsumerGroup: group, Observer: m, Unknown: consumer.UnknownSkip})
	if err != nil {
		t.Fatal(err)
	}
	dlq := newProducer(t, s.BootstrapServers)
	must(t, r.Use(consumer.DLQ{Topic: dlqTopic, Producer: consumer.NewKafkaProducer(dlq)}.Middleware, consumer.Retry{MaxAttempts: 2}.Middleware))
	var mu sync.Mutex
	flakyCalls := 0
	gate := make(chan struct{})
	must(t, consumer.Handle(r, "OrderPlaced", 1, func(ctx context.Context, ev consumer.Event[Step]) error {
		switch ev.Payload.Seq {
		case -1:
			return errors.New("poison")
		case -2:
			mu.Lock()
			defer mu.Unlock()
			if flakyCalls++; flakyCalls <= 2 {
				return consumer.Transient(errors.New("flaky"))
			}
		case -3: // the gate of the lag check
			select {
			case <-gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}))
	stop := runFor(t, consumer.ConsumerConfig{
		BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic},
		Kafka:          kafka.ConfigMap{"statistics.interval.ms": 200},
		OnStatistics:   m.ObserveStatistics,
		CommitInterval: 100 * time.Millisecond, RedeliveryBackoff: 50 * time.Millisecond,
		OnError: func(error) {},
	}, r)

	series := func(name string, labels ...string) string {
		return name + "{" + strings.Join(labels, ",") + "}"
	}
	ot := func(name string) string { return series(name, `event_type="OrderPlaced"`, `topic="`+topic+`"`) }
	lag := func(p int) string {
		return series("outboxctl_consumer_lag", fmt.Sprintf(`partition="%d"`, p), `topic="`+topic+`"`)
	}
	want := map[string]float64{
		ot("outboxctl_consumer_processed_total"):                                                        good + 1,
		ot("outboxctl_consumer_dead_lettered_total"):                                                    poison,
		ot("outboxctl_consumer_retried_total"):                                                          poison + 1,
		ot("outboxctl_consumer_failed_total"):                                                           1,
		ot("outboxctl_consumer_duplicates_total"):                                                       dups,
		series("outboxctl_consumer_unknown_skipped_total", `event_type="Mystery"`, `topic="`+topic+`"`): unknown,
		// handler calls: good, two per poison record, three for flaky
		ot("outboxctl_consumer_handler_duration_seconds_count"): good + 2*poison + 3,
		ot("outboxctl_consumer_event_age_seconds_count"):        good + 1,
		lag(0): 0,
		lag(1): 0,
	}
	var got map[string]float64
	deadline := time.Now().Add(90 * time.Second)
	for {
		got = scrapeMetrics(t, srv.URL)
		if matches(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if st := r.Stats(); st.Handled != good+1 || st.Duplicates != dups || st.UnknownSkipped != unknown || st.DeadLettered != poison {
		t.Errorf("Router.Stats = %+v, disagrees with the workload", st)
	}
	rd := itest.NewReader(t, s.BootstrapServers, dlqTopic)
	for i := range poison {
		if rd.Next(10*time.Second) == nil {
			t.Errorf("dead-letter topic: record %d of %d missing", i+1, poison)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// Lag: one blocking record, then K more, on partition 0.
	const k = 5
	held := []event{{partition: 0, agg: "gate", id: "gate", typ: "OrderPlaced", value: []byte(`{"seq":-3}`)}}
	for i := range k {
		held = append(held, event{partition: 0, agg: "gate", id: fmt.Sprintf("after-gate-%d", i), typ: "OrderPlaced", value: []byte(`{"seq":1}`)})
	}
	produceEvents(t, s.BootstrapServers, topic, held)
	waitFor(t, 60*time.Second, fmt.Sprintf("lag of partition 0 = %d (the held record and %d behind it)", k+1, k), func() bool {
		return scrapeMetrics(t, srv.URL)[lag(0)] == k+1
	})
	if v := scrapeMetrics(t, srv.URL)[lag(1)]; v != 0 {
		t.Errorf("lag of partition 1 = %v while partition 0 is held, want 0", v)
	}
	close(gate)
	waitFor(t, 60*time.Second, "lag of partition 0 back to 0", func() bool {
		g := scrapeMetrics(t, srv.URL)
		return g[lag(0)] == 0 && g[ot("outboxctl_consumer_processed_total")] == good+1+k+1
	})
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
}

func matches(got, want map[string]float64) bool {
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			return false
		}
	}
	return true
}

// scrapeMetrics GETs url/metrics over HTTP and returns every
// sample of the text exposition format by its series ("name{labels}", the
// labels as the format writes them).
func scrapeMetrics(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: %s: %s", resp.Status, b)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("scrape: line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestTraceWriterToConsumer: one trace from a writer-side span to the
// consumer's span, through the real Debezium connector. The writer puts
// the span's trace context (outboxotel.TracingColumn) into the outbox's
// tracing column with the Writer's raw-string option; the generated
// connector places the column as a header; consumerotel continues the trace
// from it. Both sides export to in-memory span recorders.
func TestTraceWriterToConsumer(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	sfx := itest.Suffix()
	dbName := "consumer_trace_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	sp := loadSpecFiles(t, map[string]string{"outbox.yaml": fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: trace%s
    database:
      kind: postgres
      connection: {host: %q, port: %s, user: postgres, password: "${env:CTRACE_PASSWORD}", dbname: %s}
    payloadFormat: json
    columns:
      tracing: tracingspancontext
    headers:
      traceContext: tracingspancontext
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)})
	aggType := "Traced" + sfx
	topic := "outbox.event." + aggType
	deployOutbox(t, s, db, sp, topic)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	w, err := outbox.NewWriter(outbox.TableFor(&sp.Outboxes[0]))
	if err != nil {
		t.Fatal(err)
	}

	consumerSpans := tracetest.NewSpanRecorder()
	var mu sync.Mutex
	warm := map[string]bool{}
	var handled []*consumer.Message
	var handlerSpan trace.SpanContext
	r, err := consumer.NewRouter(consumer.RouterConfig{Unknown: consumer.UnknownSkip, OnUnknown: func(_ context.Context, m *consumer.Message) {
		mu.Lock()
		warm[m.Meta.AggregateID] = true
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	group := "consumer-trace-" + sfx
	must(t, r.Use(consumerotel.Middleware(consumerotel.Config{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(consumerSpans)), ConsumerGroup: group,
	})))
	must(t, consumer.Handle(r, "OrderPlaced", 1, func(ctx context.Context, ev consumer.Event[map[string]any]) error {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, ev.Message)
		handlerSpan = trace.SpanContextFromContext(ctx)
		return nil
	}))
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, s.BootstrapServers, group) })
	stop := runFor(t, consumer.ConsumerConfig{BootstrapServers: s.BootstrapServers, GroupID: group, Topics: []string{topic}, CommitInterval: 200 * time.Millisecond}, r)
	ctx := context.Background()
	warmUp(ctx, t, db, w, aggType, func(key string) bool { mu.Lock(); defer mu.Unlock(); return warm[key] })

	// The writer side: a span around the write.
	writerSpans := tracetest.NewSpanRecorder()
	wctx, span := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(writerSpans)).Tracer("order-service").Start(ctx, "place order")
	id, err := w.Write(wctx, db, outbox.Event{AggregateType: aggType, AggregateID: "o-1", Type: "OrderPlaced", SchemaVersion: 1,
		Payload: []byte(`{"orderId":"o-1"}`), TraceContext: outboxotel.TracingColumn(wctx)})
	if err != nil {
		t.Fatal(err)
	}
	span.End()
	writer := span.SpanContext()

	waitFor(t, 60*time.Second, "the traced event handled", func() bool { mu.Lock(); defer mu.Unlock(); return len(handled) == 1 })
	if err := stop(); err != nil {
		t.Errorf("Run = %v", err)
	}
	mu.Lock()
	m := handled[0]
	mu.Unlock()
	if got, _ := m.Header("id"); string(got) != id {
		t.Fatalf("handled event %s, want %s", got, id)
	}
	col, _ := m.Header("tracingspancontext")
	t.Logf("record headers: tracingspancontext=%q", col)
	if len(writerSpans.Ended()) != 1 {
		t.Fatalf("writer spans = %d, want 1", len(writerSpans.Ended()))
	}
	var spans []sdktrace.ReadOnlySpan
	for _, s := range consumerSpans.Ended() {
		if s.Name() == "process "+topic && s.SpanContext().TraceID() == writer.TraceID() {
			spans = append(spans, s)
		}
	}
	if len(spans) != 1 {
		t.Fatalf("consumer spans in the writer's trace %s: %d, want 1 (of %d spans)", writer.TraceID(), len(spans), len(consumerSpans.Ended()))
	}
	cs := spans[0]
	if cs.SpanContext().SpanID() != handlerSpan.SpanID() {
		t.Errorf("the handler ran in span %s, want the consumer span %s", handlerSpan.SpanID(), cs.SpanContext().SpanID())
	}
	if _, debeziumTraced := m.Header("traceparent"); debeziumTraced {
		// A worker with an OpenTelemetry SDK puts its own span between.
		t.Logf("the EventRouter added a traceparent header: the consumer span's parent is Debezium's span %s", cs.Parent().SpanID())
		if !cs.Parent().IsValid() || cs.Parent().TraceID() != writer.TraceID() {
			t.Errorf("consumer span parent %v, want a span of trace %s", cs.Parent(), writer.TraceID())
		}
	} else if cs.Parent().SpanID() != writer.SpanID() || !cs.Parent().IsRemote() {
		t.Errorf("consumer span parent = %s (remote %v), want the writer's span %s", cs.Parent().SpanID(), cs.Parent().IsRemote(), writer.SpanID())
	}
	attrs := map[string]string{}
	for _, kv := range cs.Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	for k, v := range map[string]string{"messaging.system": "kafka", "messaging.destination.name": topic, "messaging.message.id": id,
		"messaging.kafka.message.key": "o-1", "messaging.consumer.group.name": group, "messaging.kafka.offset": strconv.FormatInt(m.Offset, 10)} {
		if attrs[k] != v {
			t.Errorf("consumer span %s = %q, want %q", k, attrs[k], v)
		}
	}
}
