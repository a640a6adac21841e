//go:build integration

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/outboxctl/outboxctl/cmd"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

// TestServiceRealStack provisions and deploys examples/service/outbox.yaml,
// runs the service as a real process and checks what its README promises:
// POSTed orders are invoiced exactly once, /metrics counts them, a v1 event
// is upcast, a poison event reaches the DLQ topic, SIGTERM exits 0 with the
// offsets committed, and a restart processes nothing again.
func TestServiceRealStack(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres, itest.Registry)
	sfx := itest.Suffix()
	ctx := context.Background()

	// provision, schema register, deploy: as the README does, in-process.
	vars := map[string]string{"SERVICE_DB_PASSWORD": "service-secret", "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	for _, args := range [][]string{
		{"provision", "-f", "outbox.yaml"},
		{"schema", "register", "-f", "outbox.yaml"},
		{"deploy", "-f", "outbox.yaml"},
	} {
		if code, out, errOut := runCLI(vars, args...); code != 0 {
			t.Fatalf("outboxctl %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	sp, err := spec.Load("outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ob := &sp.Outboxes[0]
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		t.Fatal(err)
	}
	topic := cat.Entries[0].Topic
	dsn := settings.PostgresDSNWithDatabase(s.PostgresDSN, ob.Database.Connection.DBName)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	reg, err := registry.NewClient(s.SchemaRegistryURL)
	if err != nil {
		t.Fatal(err)
	}
	w, err := outbox.NewWriter(outbox.TableFor(ob), outbox.WithSchemas(outbox.RegistryByEventType(reg, cat, outboxName)))
	if err != nil {
		t.Fatal(err)
	}
	// writeEvent writes one event the way another producer of the topic
	// would: through the SDK writer, in its own pgx transaction.
	writeEvent := func(orderID string, major int, value any) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := w.Write(ctx, outbox.Pgx(tx), outbox.Event{AggregateType: "Order", AggregateID: orderID, Type: eventType, SchemaVersion: major, Value: value}); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}

	// Warm-up: the connector streams before anything measured is written.
	reader := itest.NewReader(t, s.BootstrapServers, topic)
	itest.WarmUp(t, reader, 90*time.Second, func(key string) error {
		return writeEvent(key, 2, OrderPlacedV2{OrderID: key, Customer: "warm-up", AmountCents: 0, Currency: "EUR"})
	})

	dlq := "service.billing.dlq." + sfx
	itest.CreateTopic(t, s.BootstrapServers, dlq)
	bin := filepath.Join(t.TempDir(), "service")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const group = "service-billing"
	addr := freeAddr(t)
	start := func() *service {
		// No -f, and run from an empty folder: the service reads its
		// embedded spec and schemas (spec.LoadFS), no file on disk.
		return startService(t, bin, "-addr", addr, "-pg-dsn", dsn, "-registry", s.SchemaRegistryURL,
			"-kafka", s.BootstrapServers, "-group", group, "-dlq", dlq, "-shutdown-timeout", "20s")
	}
	svc := start()
	base := "http://" + addr

	// Wait for the backlog (earlier runs, the warm-up markers) to be done:
	// the last marker's invoice is there and the counter stands still.
	marker := lastWarmUpKey(t, pool)
	waitFor(t, 60*time.Second, "the warm-up marker's invoice", func() bool { return invoiceCount(t, pool, marker) == 1 })
	processed0 := settle(t, base, "outboxctl_consumer_processed_total")
	dead0 := metric(t, base, "outboxctl_consumer_dead_lettered_total")

	// POST orders: each an order row and its event in one transaction.
	const n = 5
	var orders []string
	eventIDs := map[string]string{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("order-%s-%d", sfx, i)
		body := fmt.Sprintf(`{"id":%q,"customer":"customer-%d","amountCents":%d,"currency":"USD"}`, id, i, 1000+i)
		req, _ := http.NewRequest(http.MethodPost, base+"/orders", strings.NewReader(body))
		req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || got["eventId"] == "" {
			t.Fatalf("POST /orders %s: %s %v", id, resp.Status, got)
		}
		orders = append(orders, id)
		eventIDs[id] = got["eventId"]
	}
	waitFor(t, 60*time.Second, "the invoices of the POSTed orders", func() bool { return invoiceCount(t, pool, "order-"+sfx+"-%") == n })
	for _, id := range orders {
		var eventID, currency string
		var version int
		if err := pool.QueryRow(ctx, `SELECT event_id, currency, written_version FROM invoices WHERE order_id = $1`, id).Scan(&eventID, &currency, &version); err != nil {
			t.Fatalf("invoice of %s: %v", id, err)
		}
		if eventID != eventIDs[id] || currency != "USD" || version != 2 {
			t.Errorf("invoice of %s: event %s currency %s v%d, want event %s USD v2", id, eventID, currency, version, eventIDs[id])
		}
	}
	if got := settle(t, base, "outboxctl_consumer_processed_total") - processed0; got != n {
		t.Errorf("processed counter grew by %v, want %d", got, n)
	}
	// The request's trace context is in the outbox row's tracing column,
	// as the Properties text the EventRouter reads.
	var tracing string
	if err := pool.QueryRow(ctx, `SELECT tracingspancontext FROM public.outbox WHERE aggregateid = $1`, orders[0]).Scan(&tracing); err != nil {
		t.Fatal(err)
	}
	if want := "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"; !strings.Contains(tracing, want) {
		t.Errorf("tracing column = %q, want it to hold %s", tracing, want)
	}

	// An old producer's v1 event: upcast to v2 (currency EUR).
	v1 := "order-" + sfx + "-v1"
	if err := writeEvent(v1, 1, OrderPlacedV1{OrderID: v1, Customer: "legacy", AmountCents: 700}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the v1 event's invoice", func() bool { return invoiceCount(t, pool, v1) == 1 })
	var currency string
	var version int
	if err := pool.QueryRow(ctx, `SELECT currency, written_version FROM invoices WHERE order_id = $1`, v1).Scan(&currency, &version); err != nil {
		t.Fatal(err)
	}
	if currency != "EUR" || version != 1 {
		t.Errorf("v1 invoice: currency %s written v%d, want EUR (upcast) written v1", currency, version)
	}

	// A poison event (a negative amount): dead-lettered, not invoiced.
	poison := "order-" + sfx + "-poison"
	resp, err := http.Post(base+"/orders", "application/json", strings.NewReader(fmt.Sprintf(`{"id":%q,"customer":"mallory","amountCents":-5}`, poison)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	dr := itest.NewReader(t, s.BootstrapServers, dlq)
	m := dr.Next(60 * time.Second)
	if m == nil {
		t.Fatalf("nothing reached the DLQ topic %s within 60s", dlq)
	}
	if string(m.Key) != poison {
		t.Errorf("DLQ record key = %q, want %q", m.Key, poison)
	}
	if reason, _ := itest.Header(m, consumer.HeaderDLQReason); reason == "" {
		t.Errorf("DLQ record has no %s header: %v", consumer.HeaderDLQReason, m.Headers)
	}
	if invoiceCount(t, pool, poison) != 0 {
		t.Error("the poison order was invoiced")
	}
	if got := settle(t, base, "outboxctl_consumer_dead_lettered_total") - dead0; got != 1 {
		t.Errorf("dead-lettered counter grew by %v, want 1", got)
	}
	if got := settle(t, base, "outboxctl_consumer_processed_total") - processed0; got != n+1 {
		t.Errorf("processed counter grew by %v, want %d", got, n+1)
	}

	// SIGTERM: exit 0 within the bound, offsets committed up to the end.
	svc.stop(t, 30*time.Second)
	high := itest.HighWatermarks(t, s.BootstrapServers, topic, 1)[0]
	if got := itest.CommittedOffsets(t, s.BootstrapServers, group, topic, 1)[0]; got != high {
		t.Errorf("committed offset after SIGTERM = %d, want the high watermark %d", got, high)
	}

	// Restart: nothing is delivered again, no effect doubles. One new
	// order after the restart shows the consumer runs: it is the only
	// record processed, so none before it was redelivered.
	svc = start()
	after := "order-" + sfx + "-after-restart"
	if err := writeEvent(after, 2, OrderPlacedV2{OrderID: after, Customer: "late", AmountCents: 1, Currency: "EUR"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the invoice of the order after the restart", func() bool { return invoiceCount(t, pool, after) == 1 })
	if p, d := settle(t, base, "outboxctl_consumer_processed_total"), metric(t, base, "outboxctl_consumer_duplicates_total"); p != 1 || d != 0 {
		t.Errorf("after the restart: processed %v, duplicates %v; want 1 (the new order) and 0 (offsets were committed)", p, d)
	}
	if got := invoiceCount(t, pool, "order-"+sfx+"-%"); got != n+2 {
		t.Errorf("invoices of this run after the restart = %d, want %d", got, n+2)
	}
	svc.stop(t, 30*time.Second)
}

// runCLI runs outboxctl in-process and returns its exit code and output.
func runCLI(vars map[string]string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: getenv, Settings: settings.FromEnv(getenv)}
	code := cmd.Run(context.Background(), env, args)
	return code, out.String(), errOut.String()
}

// service is the service running as a child process.
type service struct {
	cmd  *exec.Cmd
	log  string
	done chan error
}

func startService(t *testing.T, bin string, args ...string) *service {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "service.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(bin, args...)
	c.Dir = t.TempDir()
	c.Stdout, c.Stderr = f, f
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	svc := &service{cmd: c, log: logPath, done: make(chan error, 1)}
	go func() { svc.done <- c.Wait(); f.Close() }()
	t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
			<-svc.done
		}
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("service log:\n%s", b)
		}
	})
	addr := args[indexOf(args, "-addr")+1]
	waitFor(t, 30*time.Second, "the service's /healthz", func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return svc
}

// stop sends SIGTERM and fails unless the process exits 0 within bound.
func (s *service) stop(t *testing.T, bound time.Duration) {
	t.Helper()
	began := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("the service exited with %v after SIGTERM, want exit 0", err)
		}
		t.Logf("SIGTERM -> exit 0 in %s", time.Since(began).Round(time.Millisecond))
	case <-time.After(bound):
		t.Fatalf("the service did not exit within %s of SIGTERM", bound)
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitFor(t *testing.T, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// invoiceCount counts the invoices whose order id is LIKE pattern.
func invoiceCount(t *testing.T, pool *pgxpool.Pool, pattern string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM invoices WHERE order_id LIKE $1`, pattern).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// lastWarmUpKey is the aggregate id of the newest warm-up row WarmUp wrote:
// the outbox table keeps the rows, ordered by their UUIDv7 ids.
func lastWarmUpKey(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var key string
	if err := pool.QueryRow(context.Background(), `SELECT aggregateid FROM public.outbox WHERE aggregateid LIKE 'warmup-%' ORDER BY id DESC LIMIT 1`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	return key
}

// metric sums every series of a counter on the service's /metrics.
func metric(t *testing.T, base, name string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		sum += v
	}
	return sum
}

// settle reads a counter until it stood still for a second.
func settle(t *testing.T, base, name string) float64 {
	t.Helper()
	last := metric(t, base, name)
	for i := 0; i < 20; i++ {
		time.Sleep(time.Second)
		v := metric(t, base, name)
		if v == last {
			return v
		}
		last = v
	}
	return last
}
