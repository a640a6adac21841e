//go:build integration

package crashtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

const eventSchema = `{"type":"record","name":"CrashEvent","namespace":"dev.outboxctl.crash","fields":[
 {"name":"aggregate","type":"string"},
 {"name":"seq","type":"long"}]}`

// duplicateMsg is the consumer process's log message for a redelivery the
// inbox skipped.
const duplicateMsg = "inbox skipped a redelivered event"

const (
	partitions = 4
	aggregates = 16
	rate       = 100 // events per second
)

type crashEvent struct {
	Aggregate string `avro:"aggregate"`
	Seq       int64  `avro:"seq"`
}

// suite is one pipeline on the crash instance.
type suite struct {
	t       *testing.T
	cs      *crashStack
	sfx     string
	outDB   *sql.DB // the outbox's database
	inboxDB *sql.DB // the consumer's database (direct, for counting)
	proxy   *proxy  // the consumer reaches its database through it
	o       *spec.Outbox
	writer  *outbox.Writer
	enc     *outbox.AvroEncoder
	topic   string
	group   string
	aggType string
	seq     [aggregates]int64

	consumer *exec.Cmd
	exited   chan error
	logFile  string
	rows     []string // the crash table
	skipped  int      // redeliveries the inbox skipped, up to the last row

	// The relay rows (relay_integration_test.go): the relay deletes what it
	// published, so the committed events are counted in committedTable,
	// which a trigger fills in the writer's transaction; conf is the
	// connector config the relay publishes by (no connector is deployed).
	committedTable string
	conf           map[string]string

	// commits, when set (the cluster rows), records each committed event
	// and when its transaction committed, for the time to recover.
	commits *commitLog
	// connector is the Debezium connector's name ("" for the relay rows).
	connector string
	// consumerEnv is more environment for the consumer process
	// (KEY=VALUE).
	consumerEnv []string
}

// TestMain runs the crash suite's consumer process instead of the tests
// when CRASH_CONSUMER is set: the suite starts this test binary as the
// consumer that it kills with SIGKILL.
func TestMain(m *testing.M) {
	if os.Getenv("CRASH_CONSUMER") != "" {
		if err := runConsumerProcess(); err != nil {
			fmt.Fprintln(os.Stderr, "consumer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runConsumerProcess() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	level := slog.LevelInfo
	if os.Getenv("OUTBOX_CRASH_KAFKA_DEBUG") != "" {
		level = slog.LevelDebug // the SDK logs librdkafka's lines at debug level
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	db, err := sql.Open("pgx", os.Getenv("CRASH_INBOX_DSN"))
	if err != nil {
		return err
	}
	defer db.Close()
	store, err := inbox.NewPostgres(db, "inbox")
	if err != nil {
		return err
	}
	client, err := registry.NewClient(os.Getenv("CRASH_REGISTRY_URL"))
	if err != nil {
		return err
	}
	group := os.Getenv("CRASH_GROUP")
	r, err := consumer.NewRouter(consumer.RouterConfig{Schemas: consumer.RegistrySchemas(client), Inbox: store, Logger: log,
		// The suite counts these lines: redeliveries the inbox skipped.
		OnDuplicate: func(_ context.Context, m *consumer.Message) { log.Info(duplicateMsg, "id", m.Meta.EventID) }})
	if err != nil {
		return err
	}
	if err := r.Use(consumer.Recover()); err != nil {
		return err
	}
	batch := inboxBatch()
	if batch.MaxRecords > 1 {
		// the batched, pipelined inbox: one INSERT for the effects of a run
		err = consumer.HandleBatch(r, "CrashEvent", 1, func(ctx context.Context, tx *sql.Tx, evs []consumer.Event[crashEvent]) error {
			ids, aggs, seqs := make([]string, len(evs)), make([]string, len(evs)), make([]int64, len(evs))
			for i, ev := range evs {
				ids[i], aggs[i], seqs[i] = ev.EventID, ev.AggregateID, ev.Payload.Seq
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO effects (event_id, aggregate, seq)
SELECT i, a, s FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS u(i, a, s, o) ORDER BY o`, ids, aggs, seqs)
			return err
		}, consumer.ReaderSchema(eventSchema))
	} else {
		err = consumer.Handle(r, "CrashEvent", 1, func(ctx context.Context, ev consumer.Event[crashEvent]) error {
			_, err := ev.Tx.ExecContext(ctx, `INSERT INTO effects (event_id, aggregate, seq) VALUES ($1, $2, $3)`, ev.EventID, ev.AggregateID, ev.Payload.Seq)
			return err
		}, consumer.ReaderSchema(eventSchema))
	}
	if err != nil {
		return err
	}
	session := 6000
	if v, err := strconv.Atoi(os.Getenv("CRASH_SESSION_TIMEOUT_MS")); err == nil && v > 0 {
		session = v
	}
	kconf := kafka.ConfigMap{"session.timeout.ms": session, "heartbeat.interval.ms": 1000}
	if d := os.Getenv("OUTBOX_CRASH_KAFKA_DEBUG"); d != "" {
		kconf["debug"] = d // librdkafka's debug contexts (e.g. cgrp,fetch) into the consumer log
	}
	c, err := consumer.NewConsumer(consumer.ConsumerConfig{
		BootstrapServers: os.Getenv("CRASH_BOOTSTRAP"), GroupID: group, Topics: []string{os.Getenv("CRASH_TOPIC")},
		CommitInterval: 500 * time.Millisecond, RedeliveryBackoff: 200 * time.Millisecond, MaxRedeliveryBackoff: 2 * time.Second,
		Kafka:      kconf,
		InstanceID: os.Getenv("CRASH_INSTANCE_ID"),
		Logger:     log, OnError: func(err error) { log.Warn("processing", "err", err) },
		Batch: batch,
	}, r)
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// inboxBatch is the consumer processes' inbox batch: with
// OUTBOX_CRASH_INBOX_BATCH=N (N > 1) up to N records per inbox transaction,
// their effects written by a HandleBatch function in one statement; else
// one record per transaction and a Handle function (the default).
func inboxBatch() consumer.Batch {
	n, _ := strconv.Atoi(os.Getenv("OUTBOX_CRASH_INBOX_BATCH"))
	if n <= 1 {
		return consumer.Batch{}
	}
	return consumer.Batch{MaxRecords: n, MaxWait: 20 * time.Millisecond}
}

func (s *suite) startConsumer() {
	t := s.t
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "CRASH_CONSUMER=1",
		"CRASH_INBOX_DSN=postgres://postgres@"+s.proxy.addr()+"/crash_inbox_"+s.sfx+"?sslmode=disable&connect_timeout=5",
		"CRASH_REGISTRY_URL="+s.cs.registryURL(), "CRASH_GROUP="+s.group, "CRASH_TOPIC="+s.topic, "CRASH_BOOTSTRAP="+s.cs.bootstrap())
	cmd.Env = append(cmd.Env, s.consumerEnv...)
	f, err := os.OpenFile(s.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.consumer, s.exited = cmd, make(chan error, 1)
	go func() { s.exited <- cmd.Wait(); f.Close() }()
}

func (s *suite) killConsumer() {
	s.t.Helper()
	if err := s.consumer.Process.Signal(syscall.SIGKILL); err != nil {
		s.t.Fatalf("kill -9 consumer: %v", err)
	}
	<-s.exited
	s.t.Logf("consumer (pid %d) killed with SIGKILL", s.consumer.Process.Pid)
}

func (s *suite) stopConsumer() {
	if s.consumer == nil {
		return
	}
	_ = s.consumer.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(40 * time.Second):
		_ = s.consumer.Process.Kill()
		<-s.exited
	}
	s.consumer = nil
}

// load writes events at rate until stop is closed, each in its own
// transaction, round robin over the aggregates. A failed write (the
// database restarting) is tried again at the next tick; whether it was
// committed is read back from the table, not assumed.
func (s *suite) load(stop <-chan struct{}) (done <-chan struct{}) {
	ch := make(chan struct{})
	var failures atomic.Int64
	go func() {
		defer close(ch)
		tick := time.NewTicker(time.Second / rate)
		defer tick.Stop()
		n := 0
		for {
			select {
			case <-stop:
				if f := failures.Load(); f > 0 {
					s.t.Logf("writer: %d writes failed during the fault (not counted unless committed)", f)
				}
				return
			case <-tick.C:
			}
			a := n % aggregates
			n++
			s.seq[a]++
			b, err := s.enc.Encode(map[string]any{"aggregate": fmt.Sprintf("agg-%02d", a), "seq": s.seq[a]})
			if err != nil {
				s.t.Errorf("encode: %v", err)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			err = s.write(ctx, outbox.Event{AggregateType: s.aggType, AggregateID: fmt.Sprintf("agg-%02d", a), Type: "CrashEvent", Payload: b, SchemaVersion: 1})
			cancel()
			if err != nil {
				failures.Add(1)
			}
		}
	}()
	return ch
}

func (s *suite) write(ctx context.Context, e outbox.Event) error {
	tx, err := s.outDB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	id, err := s.writer.Write(ctx, tx, e)
	if err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if s.commits != nil {
		s.commits.add(id, e.AggregateID, time.Now())
	}
	return nil
}

// counts are the exact figures after a fault.
type counts struct {
	committed, effects, distinct, lost, foreign, reordered int
}

func (s *suite) count(ctx context.Context) (counts, error) {
	var c counts
	committed := map[string]bool{}
	col := map[string]string{}
	for _, c := range s.o.ColumnContract() {
		col[c.Role] = c.Name
	}
	q := fmt.Sprintf(`SELECT %q::text FROM %q.%q WHERE %q = $1`, col[spec.RoleID], s.o.Schema, s.o.Table, col[spec.RoleAggregateType])
	if s.committedTable != "" {
		q = fmt.Sprintf(`SELECT id FROM %q WHERE aggregate_type = $1`, s.committedTable)
	}
	rows, err := s.outDB.QueryContext(ctx, q, s.aggType)
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return c, err
		}
		committed[strings.ToLower(id)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	c.committed = len(committed)
	rows, err = s.inboxDB.QueryContext(ctx, `SELECT event_id, aggregate, seq FROM effects ORDER BY n`)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	seen := map[string]bool{}
	last := map[string]int64{}
	for rows.Next() {
		var id, agg string
		var seq int64
		if err := rows.Scan(&id, &agg, &seq); err != nil {
			return c, err
		}
		c.effects++
		id = strings.ToLower(id)
		if !committed[id] {
			c.foreign++
		}
		if !seen[id] {
			seen[id] = true
			c.distinct++
		}
		if seq <= last[agg] {
			c.reordered++
		}
		last[agg] = max(last[agg], seq)
	}
	for id := range committed {
		if !seen[id] {
			c.lost++
		}
	}
	return c, rows.Err()
}

// settle stops the load after tail more seconds, waits until every
// committed event has its effect (at most wait), and asserts the exact
// counts. It returns the counts for the crash table.
func (s *suite) settle(fault string, rep int, stopLoad chan struct{}, loadDone <-chan struct{}, tail, wait time.Duration) {
	c, skipped := s.measure(fault, rep, stopLoad, loadDone, tail, wait)
	s.rows = append(s.rows, fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d |", fault, rep, c.committed, c.distinct, c.lost, c.effects-c.distinct, c.reordered, skipped))
}

// measure is settle without the row: the counts and the redeliveries the
// inbox skipped during the row.
func (s *suite) measure(fault string, rep int, stopLoad chan struct{}, loadDone <-chan struct{}, tail, wait time.Duration) (counts, int) {
	t := s.t
	t.Helper()
	c := s.awaitCounts(fault, rep, stopLoad, loadDone, tail, wait)
	b, _ := os.ReadFile(s.logFile)
	skipped := strings.Count(string(b), duplicateMsg)
	rowSkipped := skipped - s.skipped
	s.skipped = skipped
	t.Logf("%s #%d: committed %d, handled effects %d (distinct %d), lost %d, duplicate effects %d, reordered %d, foreign %d; redeliveries skipped by the inbox so far %d",
		fault, rep, c.committed, c.effects, c.distinct, c.lost, c.effects-c.distinct, c.reordered, c.foreign, skipped)
	if c.committed == 0 || c.lost != 0 || c.effects != c.committed || c.distinct != c.committed || c.reordered != 0 || c.foreign != 0 {
		t.Errorf("%s #%d: want every one of the %d committed events handled exactly once and in order; got %d effects of %d events, %d lost, %d reordered, %d foreign (consumer log: %s)",
			fault, rep, c.committed, c.effects, c.distinct, c.lost, c.reordered, c.foreign, s.logFile)
	}
	return c, rowSkipped
}

// awaitCounts ends a row's load after tail, waits (up to wait) until every
// committed event is handled, and counts again 2 s later, when duplicates
// would have arrived.
func (s *suite) awaitCounts(fault string, rep int, stopLoad chan struct{}, loadDone <-chan struct{}, tail, wait time.Duration) counts {
	t := s.t
	t.Helper()
	time.Sleep(tail)
	close(stopLoad)
	<-loadDone
	ctx := context.Background()
	deadline := time.Now().Add(wait)
	var c counts
	var err error
	for {
		c, err = s.count(ctx)
		if err == nil && c.lost == 0 && c.committed > 0 {
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("%s #%d: count: %v", fault, rep, err)
	}
	// Duplicates would arrive after the last first delivery: give them a
	// moment, then count again.
	time.Sleep(2 * time.Second)
	if c, err = s.count(ctx); err != nil {
		t.Fatalf("%s #%d: count: %v", fault, rep, err)
	}
	return c
}

// fault runs one fault under load: the load starts, the consumer has been
// running, hit is applied after a random 1-3 s, then settle.
func (s *suite) fault(name string, reps int, hit func(rep int)) {
	if !selected(name) {
		return
	}
	for rep := 1; rep <= reps; rep++ {
		stop := make(chan struct{})
		done := s.load(stop)
		time.Sleep(time.Second + time.Duration(rand.IntN(2000))*time.Millisecond)
		start := time.Now()
		hit(rep)
		s.t.Logf("%s #%d: fault and recovery took %s", name, rep, time.Since(start).Round(time.Millisecond))
		s.settle(name, rep, stop, done, 3*time.Second, 3*time.Minute)
		if s.t.Failed() {
			return
		}
	}
}

func TestCrashSuite(t *testing.T) {
	cs := requireCrash(t)
	full := os.Getenv("OUTBOX_CRASH_FULL") != ""
	reps := map[string]int{"consumer": 1, "connect": 1, "kafka": 1}
	if full {
		reps = map[string]int{"consumer": 10, "connect": 3, "kafka": 2}
	}
	if b := inboxBatch(); b.MaxRecords > 1 {
		t.Logf("consumers: inbox batches of up to %d records, effects written by a HandleBatch function (OUTBOX_CRASH_INBOX_BATCH)", b.MaxRecords)
	}
	s := setup(t, cs)
	s.startConsumer()
	defer s.stopConsumer()
	s.warmUp()

	s.fault("kill -9 consumer, restart", reps["consumer"], func(int) {
		s.killConsumer()
		time.Sleep(500 * time.Millisecond)
		s.startConsumer()
	})
	s.fault("kill -9 Kafka Connect, restart", reps["connect"], func(int) {
		cs.signal(t, "connect", syscall.SIGKILL, true)
		time.Sleep(time.Second)
		cs.up(t)
		itest.WaitRunning(t, cs.connectURL(), s.o.Name+"-outbox", 3*time.Minute)
	})
	s.fault("restart Kafka broker", reps["kafka"], func(int) {
		cs.signal(t, "kafka", syscall.SIGTERM, true)
		cs.up(t)
	})
	s.fault("registry unreachable 30 s (consumer restarted meanwhile)", 1, func(int) {
		cs.signal(t, "registry", syscall.SIGSTOP, false)
		resumed := false
		resume := func() {
			if !resumed {
				resumed = true
				cs.signal(t, "registry", syscall.SIGCONT, false)
			}
		}
		defer resume()
		// A fresh consumer process has no cached writer schema: it must
		// fetch it from the registry that does not answer.
		s.killConsumer()
		s.startConsumer()
		time.Sleep(30 * time.Second)
		resume()
	})
	s.fault("inbox database unreachable 20 s", 1, func(int) {
		s.proxy.Cut()
		time.Sleep(20 * time.Second)
		s.proxy.Restore()
	})
	s.fault("inbox database blackholed 40 s (packets dropped)", 1, func(int) {
		s.blackholeInbox(40 * time.Second)
	})
	s.fault("PostgreSQL restart under the connector", 1, func(int) {
		cs.signal(t, "postgres", syscall.SIGINT, true) // fast shutdown
		cs.up(t)
		itest.WaitRunning(t, cs.connectURL(), s.o.Name+"-outbox", 3*time.Minute)
	})
	relayRows := relayFaults(t, cs, full)
	if out := os.Getenv("OUTBOX_CRASH_REPORT"); out != "" {
		text := reportHeader + strings.Join(append(cdcRows(s.rows), relayRows...), "\n") + "\n"
		if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func setup(t *testing.T, cs *crashStack) *suite { return setupPipeline(t, cs, false) }

func setupPipeline(t *testing.T, cs *crashStack, relay bool) *suite {
	return setupPipelineWith(t, cs, relay, nil)
}

// setupPipeline sets up the pipeline: the outbox table published by the
// Debezium connector, or with relay by no connector (the caller runs
// `outboxctl relay` with s.conf). extra is merged into the generated
// connector config (the cluster's exactly-once connector).
func setupPipelineWith(t *testing.T, cs *crashStack, relay bool, extra map[string]string) *suite {
	sfx := itest.Suffix()
	s := &suite{t: t, cs: cs, sfx: sfx, aggType: "crash" + sfx, group: "crash-" + sfx, logFile: filepath.Join(t.TempDir(), "consumer.log")}
	if d := os.Getenv("OUTBOX_CRASH_LOG_DIR"); d != "" {
		s.logFile = filepath.Join(d, "consumer-"+sfx+".log")
	}
	admin := cs.pgDSN("postgres")
	s.outDB = itest.PostgresDatabase(t, admin, "crash_"+sfx)
	s.inboxDB = itest.PostgresDatabase(t, admin, "crash_inbox_"+sfx)
	s.outDB.SetMaxOpenConns(4)
	ctx := context.Background()
	store, err := inbox.NewPostgres(s.inboxDB, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.inboxDB.ExecContext(ctx, `CREATE TABLE effects (n bigserial PRIMARY KEY, event_id text NOT NULL, aggregate text NOT NULL, seq bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`); err != nil {
		t.Fatal(err)
	}
	s.proxy = newProxy(t, cs.pgAddr())

	dir := t.TempDir()
	specText := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: crash-%s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: %d, user: postgres, password: "${env:UNUSED}", dbname: crash_%s}
    table: outbox
    payloadFormat: avro
    connector:
      profile: latency
`, sfx, cs.port(15432), sfx)
	if err := os.WriteFile(filepath.Join(dir, "outbox.yaml"), []byte(specText), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Load(filepath.Join(dir, "outbox.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s.o = &sp.Outboxes[0]
	itest.CreateOutboxTable(t, s.outDB, s.o)
	topic, _, err := eventrouter.RoutingTopic(s.o.Routing, s.aggType)
	if err != nil {
		t.Fatal(err)
	}
	s.topic = topic
	ka, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": cs.bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	cfgs, err := connectorconfig.Generate(sp, connectorconfig.Options{
		Lookup: &spec.Lookup{Env: func(string) (string, bool) { return "unused", true }}, BootstrapServers: cs.bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	topics := []kafka.TopicSpecification{{Topic: topic, NumPartitions: partitions, ReplicationFactor: cs.replicas()}}
	if hb := connectorconfig.HeartbeatTopicOf(cfgs[0].Config); hb != "" && cs.replicas() > 1 {
		// Provisioning on a cluster: Debezium's heartbeat topic is created
		// lazily by the producer's metadata request otherwise, which fails
		// while a broker is down (replication factor 3 with 2 live
		// brokers) and fails the task during a rolling restart.
		topics = append(topics, kafka.TopicSpecification{Topic: hb, NumPartitions: 1, ReplicationFactor: cs.replicas()})
	}
	res, err := ka.CreateTopics(tctx, topics)
	cancel()
	ka.Close()
	for _, r := range res {
		if err == nil && r.Error.Code() != kafka.ErrNoError {
			err = r.Error
		}
	}
	if err != nil {
		t.Fatalf("create topics %v: %v", topics, err)
	}
	itest.CleanupRun(t, cs.connectURL(), cs.bootstrap(), sfx)
	if relay {
		s.conf = cfgs[0].Config
	} else {
		s.connector = cfgs[0].Name
		itest.PutConnector(t, cs.connectURL(), cfgs[0].Name, itest.MergeConfigs(cfgs[0].Config, extra))
		itest.WaitRunning(t, cs.connectURL(), cfgs[0].Name, 2*time.Minute)
	}

	client, err := registry.NewClient(cs.registryURL())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := client.Register(ctx, topic+"-value", eventSchema)
	if err != nil {
		t.Fatalf("register schema: %v", err)
	}
	t.Cleanup(func() {
		_ = client.DeleteSubject(context.Background(), topic+"-value", false)
		_ = client.DeleteSubject(context.Background(), topic+"-value", true)
	})
	if s.enc, err = outbox.NewAvroEncoderFromSchema(uint32(reg.ID), eventSchema); err != nil {
		t.Fatal(err)
	}
	if s.writer, err = outbox.NewWriter(outbox.TableFor(s.o), outbox.AllowUndeclaredEvents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { itest.DeleteConsumerGroup(t, cs.bootstrap(), s.group) })
	return s
}

// warmUp writes events until the first effect appears: the connector
// streams and the consumer has its partitions.
func (s *suite) warmUp() {
	stop := make(chan struct{})
	done := s.load(stop)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var n int
		if err := s.inboxDB.QueryRow(`SELECT count(*) FROM effects`).Scan(&n); err != nil && !errors.Is(err, sql.ErrNoRows) {
			s.t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			<-done
			b, _ := os.ReadFile(s.logFile)
			s.t.Fatalf("no effect within 2 min of load: connector or consumer not working\nconsumer log:\n%s", b)
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.settle("warm-up", 1, stop, done, time.Second, time.Minute)
}
