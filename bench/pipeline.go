package bench

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

// Event types the bench writes. They are not declared in the spec: the
// writer runs with outbox.AllowUndeclaredEvents, and they go to a topic of
// their own (aggregate type "bench<RunID>"), so no consumer of the user's
// topics sees them. Payloads are JSON for a json outbox, AvroSchema in
// Confluent wire format for an avro one.
const (
	EventType       = "OutboxctlBenchEvent"
	WarmUpEventType = "OutboxctlBenchWarmUp"
)

// ErrUnsupported: an outbox the bench cannot write to (an Avro outbox
// without a registry client).
var ErrUnsupported = errors.New("bench: unsupported outbox")

// AvroSchema is the writer (and reader) schema of the bench's events in an
// Avro outbox, registered under the subject <topic>-value of the run's
// topic (deleted on Close).
const AvroSchema = `{"type":"record","name":"OutboxctlBenchEvent","namespace":"dev.outboxctl.bench","fields":[` +
	`{"name":"run","type":"string"},{"name":"step","type":"long"},{"name":"n","type":"long"},{"name":"seq","type":"long"}]}`

// PipelineConfig configures the real pipeline: the user's outbox table and
// connector, a topic of the run's own, and an SDK consumer.
type PipelineConfig struct {
	// Outbox is the spec's outbox; its table must exist and its connector
	// run (outboxctl provision + deploy).
	Outbox *spec.Outbox
	// DB is a pool on the outbox's database; the bench sizes it.
	DB *sql.DB
	// InboxDB, when set, makes the consumer use an inbox.SQLStore in this
	// database (tables bench_inbox_<run> and bench_effects_<run>, dropped
	// on Close): each handler writes one effect row in the inbox
	// transaction, and the effects are counted there.
	InboxDB      *sql.DB
	InboxDialect inbox.Dialect
	// BootstrapServers of the Kafka cluster the connector writes to.
	BootstrapServers string
	// Security of the bench's Kafka clients (admin and consumer), see
	// kafkaclient.Config (default PLAINTEXT).
	Security kafkaclient.Security
	// Partitions of the run's topic (default 1).
	Partitions int
	// Batch, when MaxRecords > 1, runs the consumer's records in inbox
	// batches (consumer.ConsumerConfig.Batch) with a consumer.HandleBatch
	// handler that writes the effects of a batch in one multi-row INSERT;
	// the default is one record per transaction.
	Batch consumer.Batch
	// RunID names the run's aggregate type, topic, consumer group and
	// tables: letters and digits only.
	RunID string
	// Registry is required for an Avro outbox: the bench registers
	// AvroSchema there and the consumer reads writer schemas from it.
	Registry *registry.Client
	// Kafka holds extra consumer settings (librdkafka), e.g. for TLS.
	Kafka kafka.ConfigMap
	// Logger receives the consumer's warnings (default: discarded).
	Logger *slog.Logger
	// WarmUpTimeout bounds WarmUp (default 2 min).
	WarmUpTimeout time.Duration
	// Relay, when set, publishes the run's rows with an in-process relay
	// (package relay) instead of the outbox's connector.
	Relay *RelayConfig
}

// Publishers, Report.Publisher.
const (
	PublisherCDC   = "cdc"
	PublisherRelay = "relay"
)

// DefaultProbeWait is RelayConfig.ProbeWait when it is 0.
const DefaultProbeWait = 3 * time.Second

// ErrOtherPublisher: with an in-process relay, something else (the
// outbox's connector, a relay) already publishes the outbox table's rows,
// so every bench row would reach the consumer twice.
var ErrOtherPublisher = errors.New("bench: another publisher is active")

// RelayConfig is the bench's in-process relay: relay.New over the outbox
// table with the outbox's generated connector config, restricted
// (relay.Options.Filter) to the run's aggregate type, so that it neither
// publishes nor deletes any other row of the table, and never takes the
// lock of the table's own relay.
type RelayConfig struct {
	// Connector is the outbox's connector config (connectorconfig.Generate).
	Connector map[string]string
	// Options of the relay: PollInterval, Batch, BootstrapServers,
	// Security, Kafka, EventRouterVersion. Filter is the bench's.
	Options relay.Options
	// ListenDSN and Channel, when Channel is set, wake the relay with
	// PostgreSQL LISTEN (relay.Listen; the table's NOTIFY trigger,
	// provisioned with relay.notify in the spec, sends the notifications).
	ListenDSN, Channel string
	// ProbeWait is how long WarmUp waits for a marker written before the
	// relay starts (default DefaultProbeWait): when it arrives, another
	// publisher is active and WarmUp fails with ErrOtherPublisher.
	ProbeWait time.Duration
	// Process, when set, runs the relay as a process of its own (as users
	// run outboxctl relay) instead of in the bench's process: it returns
	// the command, not started, that relays the outbox table restricted
	// to filter (the run's aggregate type) with the poll settings of
	// Options. The pipeline starts it in WarmUp, stops it on Close with an
	// interrupt (killed after RelayStopTimeout) and reports its exit
	// status, with the end of its stderr, as Close's error; its output
	// lines go to Options.Logf. Options and ListenDSN/Channel are then not
	// used for a relay of the bench's own.
	Process func(filter relay.Filter) (*exec.Cmd, error)
}

// RelayStopTimeout is how long Close waits for a relay process to exit
// after its interrupt before it kills it.
const RelayStopTimeout = 30 * time.Second

// Pipeline is the real pipeline; build it with NewPipeline.
type pipeline struct {
	cfg    PipelineConfig
	writer *outbox.Writer
	topic  string
	group  string
	agg    string
	admin  *kafka.AdminClient
	// adminProducer carries admin (and its log channel); adminStopLogs
	// stops forwarding its log lines.
	adminProducer *kafka.Producer
	adminStopLogs func()

	enc     *outbox.AvroEncoder // nil: JSON payloads
	subject string

	effects string // effects table ("" without inbox)
	inboxT  string
	ph      func(int) string

	cancel context.CancelFunc
	done   chan error

	relay     *relay.Relay // nil: the connector publishes (or a process)
	relayStop context.CancelFunc
	relayDone chan error
	relayProc *relayProcess // the relay as a process (RelayConfig.Process)
	warm      sync.Map      // warm-up aggregate id -> struct{}
	// the baseline consumer (StartBaseline)
	baseGroup          string
	baseStop, baseDone chan struct{}
	closed             atomic.Bool
}

var runID = regexp.MustCompile(`^[A-Za-z0-9]{1,40}$`)

// NewPipeline checks cfg and creates the run's topic (cfg.Partitions
// partitions, the broker's replication factor).
func NewPipeline(ctx context.Context, cfg PipelineConfig) (Pipeline, error) {
	o := cfg.Outbox
	if o == nil || cfg.DB == nil {
		return nil, fmt.Errorf("%w: Outbox and DB are required", ErrInvalidOptions)
	}
	if o.PayloadFormat == spec.FormatAvro && cfg.Registry == nil {
		return nil, fmt.Errorf("%w: outbox %s has Avro payloads: the bench needs a schema registry client", ErrUnsupported, o.Name)
	}
	if !runID.MatchString(cfg.RunID) {
		return nil, fmt.Errorf("%w: RunID %q: letters and digits only", ErrInvalidOptions, cfg.RunID)
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.WarmUpTimeout <= 0 {
		cfg.WarmUpTimeout = 2 * time.Minute
	}
	w, err := outbox.NewWriter(outbox.TableFor(o), outbox.AllowUndeclaredEvents())
	if err != nil {
		return nil, err
	}
	p := &pipeline{cfg: cfg, writer: w, agg: "bench" + cfg.RunID, group: "outboxctl-bench-" + cfg.RunID}
	topic, _, err := eventrouter.RoutingTopic(o.Routing, p.agg)
	if err != nil {
		return nil, fmt.Errorf("outbox %s: routed topic: %w", o.Name, err)
	}
	p.topic = topic
	am, err := kafkaclient.Config{BootstrapServers: cfg.BootstrapServers, Security: cfg.Security}.ConfigMap()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	// librdkafka's lines never on stderr (the errors are returned): an
	// admin client takes no log channel of its own, so it is built on a
	// producer that has one.
	stopLogs := kafkaclient.ForwardLogs(am, nil)
	ap, err := kafka.NewProducer(&am)
	if err != nil {
		stopLogs()
		return nil, fmt.Errorf("kafka admin: %w", err)
	}
	admin, err := kafka.NewAdminClientFromProducer(ap)
	if err != nil {
		ap.Close()
		stopLogs()
		return nil, fmt.Errorf("kafka admin: %w", err)
	}
	p.admin, p.adminProducer, p.adminStopLogs = admin, ap, stopLogs
	if o.PayloadFormat == spec.FormatAvro {
		p.subject = topic + "-value"
		reg, err := cfg.Registry.Register(ctx, p.subject, AvroSchema)
		if err != nil {
			admin.Close()
			return nil, fmt.Errorf("register the bench schema as %s: %w", p.subject, err)
		}
		if p.enc, err = outbox.NewAvroEncoderFromSchema(uint32(reg.ID), AvroSchema); err != nil {
			admin.Close()
			return nil, err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := admin.CreateTopics(cctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: cfg.Partitions}})
	if err == nil && len(res) == 1 && res[0].Error.Code() != kafka.ErrNoError {
		err = res[0].Error
	}
	if err != nil {
		admin.Close()
		return nil, fmt.Errorf("create topic %s (bootstrap servers %s): %w", topic, cfg.BootstrapServers, err)
	}
	return p, nil
}

// Topic is the run's topic.
func (p *pipeline) Topic() string { return p.topic }

func (p *pipeline) NewID() (string, error) { return outbox.NewUUIDv7() }

type payload struct {
	Run  string `json:"run" avro:"run"`
	Step int    `json:"step" avro:"step"`
	N    int    `json:"n" avro:"n"`
	Seq  int    `json:"seq" avro:"seq"`
}

// encode is the payload in the outbox's format.
func (p *pipeline) encode(v payload) ([]byte, error) {
	if p.enc == nil {
		return json.Marshal(v)
	}
	return p.enc.Encode(map[string]any{"run": v.Run, "step": int64(v.Step), "n": int64(v.N), "seq": int64(v.Seq)})
}

func (p *pipeline) write(ctx context.Context, e outbox.Event) error {
	tx, err := p.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := p.writer.Write(ctx, tx, e); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (p *pipeline) Send(ctx context.Context, e Event) error {
	b, err := p.encode(payload{Run: p.cfg.RunID, Step: e.Step, N: e.N, Seq: e.Seq})
	if err != nil {
		return err
	}
	return p.write(ctx, outbox.Event{ID: e.ID, AggregateType: p.agg, AggregateID: e.Aggregate, Type: EventType, Payload: b, SchemaVersion: 1})
}

func (p *pipeline) Start(ctx context.Context, deliver func(Delivery)) error {
	rcfg := consumer.RouterConfig{Logger: p.cfg.Logger, Unknown: consumer.UnknownSkip}.ForOutbox(p.cfg.Outbox)
	var opts []consumer.HandlerOption
	if p.enc != nil {
		rcfg.Schemas = consumer.RegistrySchemas(p.cfg.Registry)
		opts = append(opts, consumer.ReaderSchema(AvroSchema))
	}
	if db := p.cfg.InboxDB; db != nil {
		p.inboxT, p.effects = "bench_inbox_"+p.cfg.RunID, "bench_effects_"+p.cfg.RunID
		store, err := inbox.NewSQLStore(db, p.cfg.InboxDialect, p.inboxT, nil)
		if err != nil {
			return err
		}
		if err := store.CreateTable(ctx); err != nil {
			return fmt.Errorf("inbox table: %w", err)
		}
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+p.effects+" (event_id varchar(64) NOT NULL, step int NOT NULL, n int NOT NULL)"); err != nil {
			return fmt.Errorf("effects table: %w", err)
		}
		p.ph = func(i int) string { return "?" }
		if p.cfg.InboxDialect == inbox.Postgres {
			p.ph = func(i int) string { return fmt.Sprintf("$%d", i) }
		}
		rcfg.Inbox = store // ConsumerGroup: the Consumer's GroupID (p.group)
	}
	r, err := consumer.NewRouter(rcfg)
	if err != nil {
		return err
	}
	if err := r.Use(consumer.Recover()); err != nil {
		return err
	}
	insert := ""
	if p.effects != "" {
		insert = fmt.Sprintf("INSERT INTO %s (event_id, step, n) VALUES (%s, %s, %s)", p.effects, p.ph(1), p.ph(2), p.ph(3))
	}
	if p.effects != "" && p.cfg.Batch.MaxRecords > 1 {
		// The batched inbox: the effects of a batch's run of events in one
		// multi-row INSERT (consumer.HandleBatch).
		err = consumer.HandleBatch(r, EventType, 1, func(ctx context.Context, tx *sql.Tx, evs []consumer.Event[payload]) error {
			at := time.Now()
			var vals []string
			var args []any
			for _, ev := range evs {
				if ev.Payload.Run != p.cfg.RunID {
					continue
				}
				vals = append(vals, fmt.Sprintf("(%s, %s, %s)", p.ph(len(args)+1), p.ph(len(args)+2), p.ph(len(args)+3)))
				args = append(args, ev.EventID, ev.Payload.Step, ev.Payload.N)
			}
			if len(vals) == 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO "+p.effects+" (event_id, step, n) VALUES "+strings.Join(vals, ", "), args...); err != nil {
				return err
			}
			for _, ev := range evs {
				if ev.Payload.Run == p.cfg.RunID {
					deliver(Delivery{Step: ev.Payload.Step, N: ev.Payload.N, ID: ev.EventID, Aggregate: ev.AggregateID, Seq: ev.Payload.Seq, At: at})
				}
			}
			return nil
		}, opts...)
	} else {
		err = consumer.Handle(r, EventType, 1, func(ctx context.Context, ev consumer.Event[payload]) error {
			at := time.Now()
			if ev.Payload.Run != p.cfg.RunID {
				return nil
			}
			if insert != "" {
				if _, err := ev.Tx.ExecContext(ctx, insert, ev.EventID, ev.Payload.Step, ev.Payload.N); err != nil {
					return err
				}
			}
			deliver(Delivery{Step: ev.Payload.Step, N: ev.Payload.N, ID: ev.EventID, Aggregate: ev.AggregateID, Seq: ev.Payload.Seq, At: at})
			return nil
		}, opts...)
	}
	if err != nil {
		return err
	}
	err = consumer.Handle(r, WarmUpEventType, 1, func(ctx context.Context, ev consumer.Event[payload]) error {
		p.warm.Store(ev.AggregateID, struct{}{})
		return nil
	}, opts...)
	if err != nil {
		return err
	}
	c, err := consumer.NewConsumer(consumer.ConsumerConfig{
		BootstrapServers: p.cfg.BootstrapServers, Security: p.cfg.Security, GroupID: p.group, Topics: []string{p.topic},
		Kafka: p.cfg.Kafka, CommitInterval: 500 * time.Millisecond, Logger: p.cfg.Logger,
		RedeliveryBackoff: 100 * time.Millisecond, MaxRedeliveryBackoff: 2 * time.Second,
		Batch: p.cfg.Batch,
	}, r)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.cancel, p.done = cancel, make(chan error, 1)
	go func() { p.done <- c.Run(rctx) }()
	return nil
}

func (p *pipeline) WarmUp(ctx context.Context) error {
	if p.cfg.Relay != nil {
		if err := p.probe(ctx); err != nil {
			return err
		}
		if err := p.startRelay(ctx); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(p.cfg.WarmUpTimeout)
	for i := 0; ; i++ {
		key := fmt.Sprintf("warmup-%d", i)
		b, err := p.encode(payload{Run: p.cfg.RunID, Step: -1, N: i})
		if err != nil {
			return err
		}
		if err := p.write(ctx, outbox.Event{AggregateType: p.agg, AggregateID: key, Type: WarmUpEventType, Payload: b, SchemaVersion: 1}); err != nil {
			return fmt.Errorf("warm-up write into %s: %w", p.cfg.Outbox.QualifiedTable(), err)
		}
		for j := 0; j < 10; j++ {
			select {
			case err := <-p.done:
				p.done <- err
				return fmt.Errorf("%w: the consumer stopped: %v", ErrWarmUp, err)
			case <-p.relayProc.exited():
				return fmt.Errorf("%w: %w", ErrWarmUp, p.relayProc.stop())
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
			if _, ok := p.warm.Load(key); ok {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: no marker event written to %s reached topic %s within %s: is the connector of outbox %s running (outboxctl deploy, outboxctl connectors status)?",
				ErrWarmUp, p.cfg.Outbox.QualifiedTable(), p.topic, p.cfg.WarmUpTimeout, p.cfg.Outbox.Name)
		}
	}
}

// probe writes a marker before the in-process relay runs: if it reaches
// the consumer within ProbeWait, another publisher (the outbox's connector,
// or a relay of the table) is active and would publish every bench row too.
func (p *pipeline) probe(ctx context.Context) error {
	wait := p.cfg.Relay.ProbeWait
	if wait <= 0 {
		wait = DefaultProbeWait
	}
	const key = "probe"
	b, err := p.encode(payload{Run: p.cfg.RunID, Step: -1})
	if err != nil {
		return err
	}
	if err := p.write(ctx, outbox.Event{AggregateType: p.agg, AggregateID: key, Type: WarmUpEventType, Payload: b, SchemaVersion: 1}); err != nil {
		return fmt.Errorf("probe write into %s: %w", p.cfg.Outbox.QualifiedTable(), err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
	}
	if _, ok := p.warm.Load(key); ok {
		return fmt.Errorf("%w: a row written to %s reached topic %s before the bench's relay started: the connector of outbox %s (or a relay of the table) publishes it, and would publish every bench row twice; pause it (outboxctl connectors pause) or bench with --publisher cdc",
			ErrOtherPublisher, p.cfg.Outbox.QualifiedTable(), p.topic, p.cfg.Outbox.Name)
	}
	return nil
}

// startRelay runs the in-process relay on the run's rows until Close.
func (p *pipeline) startRelay(ctx context.Context) error {
	rc := p.cfg.Relay
	ro := rc.Options
	ro.Filter = relay.Filter{Column: p.cfg.Outbox.Columns.AggregateType, Value: p.agg}
	if rc.Process != nil {
		rp, err := startRelayProcess(rc, ro.Filter, ro.Logf)
		if err != nil {
			return err
		}
		p.relayProc = rp
		return nil
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if rc.Channel != "" {
		wake, err := relay.Listen(rctx, rc.ListenDSN, rc.Channel, ro.Logf)
		if err != nil {
			cancel()
			return err
		}
		ro.Wake = wake
	}
	r, err := relay.New(ctx, p.cfg.DB, rc.Connector, ro)
	if err != nil {
		cancel()
		return err
	}
	p.relay, p.relayStop, p.relayDone = r, cancel, make(chan error, 1)
	go func() { p.relayDone <- r.Run(rctx) }()
	return nil
}

// RelayStats are the in-process relay's counters (ok false without one).
func (p *pipeline) RelayStats() (relay.Stats, bool) {
	if p.relay == nil {
		return relay.Stats{}, false
	}
	return p.relay.Stats(), true
}

func (p *pipeline) Effects(ctx context.Context, step int) (distinct, total int, ok bool, err error) {
	if p.effects == "" {
		return 0, 0, false, nil
	}
	err = p.cfg.InboxDB.QueryRowContext(ctx, fmt.Sprintf("SELECT count(DISTINCT event_id), count(*) FROM %s WHERE step = %s", p.effects, p.ph(1)), step).Scan(&distinct, &total)
	return distinct, total, err == nil, err
}

func (p *pipeline) Close(ctx context.Context) error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	var errs []error
	if p.relayProc != nil {
		if err := p.relayProc.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if p.relay != nil {
		p.relayStop()
		if err := <-p.relayDone; err != nil {
			errs = append(errs, fmt.Errorf("relay: %w", err))
		}
		p.relay.Close()
	}
	if p.cancel != nil {
		p.cancel()
		select {
		case err := <-p.done:
			if err != nil && !errors.Is(err, context.Canceled) {
				errs = append(errs, fmt.Errorf("consumer: %w", err))
			}
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("consumer did not stop: %w", ctx.Err()))
		}
	}
	baseGroup := p.stopBaseline()
	if p.effects != "" {
		for _, t := range []string{p.effects, p.inboxT} {
			if _, err := p.cfg.InboxDB.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				errs = append(errs, err)
			}
		}
	}
	res, err := p.admin.DeleteTopics(ctx, []string{p.topic}, kafka.SetAdminOperationTimeout(30*time.Second))
	for _, r := range res {
		if c := r.Error.Code(); c != kafka.ErrNoError && c != kafka.ErrUnknownTopicOrPart && err == nil {
			err = r.Error
		}
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("delete topic %s: %w", p.topic, err))
	}
	groups := []string{p.group}
	if baseGroup != "" {
		groups = append(groups, baseGroup)
	}
	gres, err := p.admin.DeleteConsumerGroups(ctx, groups)
	for _, r := range gres.ConsumerGroupResults {
		if c := r.Error.Code(); c != kafka.ErrNoError && c != kafka.ErrGroupIDNotFound && err == nil {
			err = r.Error
		}
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("delete consumer group %s: %w", p.group, err))
	}
	p.admin.Close()
	p.adminProducer.Close()
	p.adminStopLogs()
	if p.subject != "" {
		// Soft, then permanent delete (the registry refuses the second
		// without the first).
		err := p.cfg.Registry.DeleteSubject(ctx, p.subject, false)
		if err == nil {
			err = p.cfg.Registry.DeleteSubject(ctx, p.subject, true)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("delete subject %s: %w", p.subject, err))
		}
	}
	return errors.Join(errs...)
}
