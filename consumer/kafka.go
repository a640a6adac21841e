//go:build cgo

package consumer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/logattr"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// ConsumerConfig configures a Consumer.
type ConsumerConfig struct {
	// Client is the connection to Kafka (bootstrap servers, Security and
	// generic librdkafka Properties), the same kafkaclient.Config that
	// producers (kafkaclient.NewProducer), dlq.Options and verify.Options
	// take. Client.BootstrapServers (or the deprecated BootstrapServers),
	// GroupID and Topics are required.
	//
	// Precedence with the deprecated BootstrapServers and Security: each
	// is used when the matching Client field is empty (zero); when both
	// are set they must be equal, or Validate fails with ErrInvalidConfig.
	// Client.Properties go over the consumer's defaults and under Kafka: a
	// key set in both takes Kafka's value.
	Client kafkaclient.Config
	// BootstrapServers is bootstrap.servers.
	//
	// Deprecated: set Client.BootstrapServers. It is still used when
	// Client.BootstrapServers is empty (see Client for the precedence).
	BootstrapServers string
	// GroupID is also the Router's inbox consumer group: NewConsumer sets
	// an empty RouterConfig.ConsumerGroup to it, and refuses a different
	// one.
	GroupID string
	Topics  []string
	// InstanceID, when set, makes the Consumer a static member of its
	// group (librdkafka group.instance.id). Without it a member that dies
	// without leaving the group (kill -9, OOM kill, a lost node) keeps its
	// partitions until its session times out (session.timeout.ms,
	// librdkafka's default 45 s, plus the rebalance: about 77 s in a
	// test), and its restarted process handles nothing meanwhile. A static
	// member restarted with the same InstanceID takes its partitions back
	// at once (under 2 s in the same test).
	//
	// It is off by default: the id must be stable across restarts of one
	// instance and unique among the group's live members, which only the
	// deployment knows (a StatefulSet pod name, a host name with a
	// per-host index); the library reads no environment. Trade-offs: two
	// live processes with the same InstanceID fence each other (the
	// broker refuses the older one, whose Run ends with a fatal
	// FENCED_INSTANCE_ID error); and a static member that stops for good
	// (scale-down) does not leave the group on Close, so its partitions
	// wait for session.timeout.ms before they move to the others. Without
	// it, Run logs a WARN when no assignment arrived within
	// AssignmentWarnAfter, naming session.timeout.ms and this option. A
	// group.instance.id in Kafka must agree with it.
	InstanceID string
	// AssignmentWarnAfter is how long Run waits for its first partition
	// assignment before it logs a WARN that says why it may wait
	// (default 10s; negative: never). The line repeats every
	// AssignmentWarnAfter until the assignment arrives.
	AssignmentWarnAfter time.Duration
	// Security is the connection's security (TLS, SASL/PLAIN,
	// SASL/SCRAM); the zero value is PLAINTEXT. A failed authentication or
	// TLS handshake (whether set here or in Client.Security) ends Run with
	// a *kafkaclient.SecurityError (errors.Is kafkaclient.ErrAuthentication
	// or kafkaclient.ErrTLS) instead of retrying for ever.
	//
	// Deprecated: set Client.Security. It is still used when
	// Client.Security is the zero value (see Client for the precedence).
	Security kafkaclient.Security
	// Kafka holds extra librdkafka settings of the consumer, applied over
	// the defaults (auto.offset.reset=earliest,
	// enable.auto.offset.store=false, isolation.level=read_committed) and
	// over Client.Properties. The
	// connection's own properties (bootstrap.servers, security.*, sasl.*,
	// ssl.* keys of Client's fields) belong in Client; bootstrap.servers
	// here is ignored.
	// enable.auto.commit cannot be set to true: offsets are committed only
	// after a record is done.
	Kafka kafka.ConfigMap
	// ReadUncommitted opts in to reading records of open and aborted
	// transactions (isolation.level=read_uncommitted). The consumer reads
	// with read_committed by default (librdkafka's default, set
	// explicitly): an exactly-once outbox (spec delivery: exactly-once)
	// writes each poll's records in a Kafka transaction, and a worker crash
	// aborts it; the records of the aborted transaction stay in the log and
	// are written again by the next transaction. A read_uncommitted
	// consumer sees both copies. An isolation.level=read_uncommitted in
	// Kafka or Client.Properties without this option is refused
	// (ErrReadUncommitted).
	ReadUncommitted bool
	// CommitInterval is how often done offsets are committed (default 1s;
	// negative: after every poll that completed a record). This periodic
	// commit runs in the background, one at a time (a tick while one is in
	// flight is skipped), so that a slow or frozen group coordinator does
	// not hold up the records. Done offsets are also committed, after the
	// commit in flight ended and synchronously, when partitions are
	// revoked and when Run returns.
	CommitInterval time.Duration
	// RedeliveryBackoff is the first wait before a record whose processing
	// failed is processed again (default 1s). Every further failure of the
	// same record doubles it, up to MaxRedeliveryBackoff (default 30s), and
	// each wait is jittered (between half and all of it). The record's
	// partition is paused meanwhile; the other partitions go on.
	RedeliveryBackoff    time.Duration
	MaxRedeliveryBackoff time.Duration
	// MaxConcurrentPartitions bounds how many partitions have a record (or
	// a batch) in processing at the same time (default 0: no bound, every
	// assigned partition runs in its own lane).
	MaxConcurrentPartitions int
	// QueueSize is how many polled records a partition's lane holds
	// before the partition is paused (default 10000); it is resumed when
	// the lane is down to half of it. A pause makes librdkafka drop what it
	// had prefetched for the partition and fetch it again on resume, so
	// keep it large enough for a few hundred milliseconds of records: with
	// 1000 the batched benchmark ran at a quarter of its speed.
	QueueSize int
	// DrainTimeout bounds the shutdown: when Run's ctx is cancelled, the
	// records in processing finish and their offsets are committed; their
	// handler context is cancelled only once DrainTimeout has passed
	// (default 30s).
	DrainTimeout time.Duration
	// RevokeTimeout is the same bound for the partitions revoked in a
	// rebalance: their records in processing finish (for at most
	// RevokeTimeout, default 10s) and are committed before the partitions
	// are given up, unless the assignment was lost.
	RevokeTimeout time.Duration
	// FinalCommitTimeout bounds how long Run, when it returns, waits for a
	// group rebalance in progress to end so that it can commit its done
	// offsets (default 10s). Offsets not committed by then are delivered
	// again after a restart (at least once).
	FinalCommitTimeout time.Duration
	// Batch, when Batch.MaxRecords > 1, processes up to MaxRecords records
	// of one partition in one inbox transaction (see Batch). The default
	// is one record per transaction.
	Batch Batch
	// OnError, if set, is called with processing errors (the record will
	// be redelivered) and non-fatal Kafka errors. Without it they are
	// logged to Logger.
	OnError func(err error)
	// Logger receives the Consumer's warnings (default slog.Default()).
	// A record's processing error is logged with the record's topic,
	// partition, offset, event id, type and version (internal/logattr
	// keys).
	Logger *slog.Logger
	// OnStatistics, if set, receives librdkafka's statistics JSON every
	// statistics.interval.ms (set it in Kafka; librdkafka sends none by
	// default), on the poll goroutine: keep it quick.
	// consumerprom.Metrics.ObserveStatistics reads the consumer lag per
	// partition from it. Without it the statistics are dropped.
	OnStatistics func(json string)
}

// Validate checks the configuration. Errors wrap ErrInvalidConfig.
func (c ConsumerConfig) Validate() error {
	var errs []error
	conn, cerr := c.connection()
	if cerr != nil {
		errs = append(errs, cerr)
	} else if conn.BootstrapServers == "" {
		errs = append(errs, errors.New("Client.BootstrapServers is required (or the deprecated BootstrapServers)"))
	}
	if c.GroupID == "" {
		errs = append(errs, errors.New("GroupID is required"))
	}
	if len(c.Topics) == 0 {
		errs = append(errs, errors.New("Topics is required"))
	}
	if cerr == nil && conn.BootstrapServers != "" {
		if _, err := c.client(); err != nil {
			errs = append(errs, err)
		}
	}
	if v, where, ok := c.setting("group.instance.id"); ok && c.InstanceID != "" && v != c.InstanceID {
		errs = append(errs, fmt.Errorf("%s: group.instance.id %q differs from InstanceID %q (set one of them)", where, v, c.InstanceID))
	}
	if v, where, ok := c.setting("isolation.level"); ok && v == "read_uncommitted" && !c.ReadUncommitted {
		errs = append(errs, fmt.Errorf("%s: %w: isolation.level=read_uncommitted delivers the records of aborted transactions (the duplicates an exactly-once outbox avoids); set ReadUncommitted to mean it", where, ErrReadUncommitted))
	}
	if v, where, ok := c.setting("enable.auto.commit"); ok && v != "false" {
		errs = append(errs, fmt.Errorf("%s: enable.auto.commit must stay false (offsets are committed after processing)", where))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"MaxRedeliveryBackoff", c.MaxRedeliveryBackoff}, {"DrainTimeout", c.DrainTimeout}, {"RevokeTimeout", c.RevokeTimeout}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s = %s, want >= 0", d.name, d.v))
		}
	}
	if c.MaxConcurrentPartitions < 0 {
		errs = append(errs, fmt.Errorf("MaxConcurrentPartitions = %d, want >= 0", c.MaxConcurrentPartitions))
	}
	if c.QueueSize < 0 {
		errs = append(errs, fmt.Errorf("QueueSize = %d, want >= 0", c.QueueSize))
	}
	if err := c.Batch.validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: consumer: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	return nil
}

// Consumer reads topics as a member of a Kafka consumer group and runs each
// record through a Router, committing a partition's offset only after
// Process returned nil for every record before it (at-least-once).
//
// Each assigned partition has its own lane: a goroutine with a queue that
// processes the partition's records one after the other in offset order,
// so the order within a partition, and with the EventRouter's key =
// aggregate id the order per aggregate, is kept, while partitions run in
// parallel (at most MaxConcurrentPartitions at a time). A record whose
// processing fails pauses its partition and is processed again, by its
// lane, after a capped and jittered backoff; the records after it in its
// partition wait, the other partitions keep their pace. The offset of a
// partition never moves past a record that has not succeeded (or been
// dead-lettered by the DLQ middleware).
//
// On partition revocation the revoked lanes finish their record in
// processing (for at most RevokeTimeout) and their done offsets are
// committed before the partitions are given up (unless the assignment was
// lost). Run returns when ctx is cancelled, after the records in processing
// finished (for at most DrainTimeout) and what is done was committed.
type Consumer struct {
	cfg    ConsumerConfig
	router *Router
	kc     *kafka.Consumer
	sem    chan struct{} // MaxConcurrentPartitions slots; nil: no bound
	// stopLogs ends the forwarding of librdkafka's log lines to Logger.
	stopLogs func()

	mu       sync.Mutex
	lanes    map[tpKey]*lane
	order    []*lane // the lanes of lanes, for flowControl without allocating
	draining bool

	// base is the parent of the handler contexts: Run's ctx without its
	// cancellation; hardCancel ends it after DrainTimeout.
	base       context.Context
	hardCancel context.CancelFunc

	// assigned: the group gave this member an assignment (possibly
	// empty); until then Run warns every AssignmentWarnAfter.
	assigned atomic.Bool
	started  time.Time

	fatalOnce sync.Once
	fatalErr  error
	fatalCh   chan struct{}

	// inflight is the periodic commit in flight (nil: none); only the
	// poll goroutine reads or sets it.
	inflight *inflightCommit
}

type tpKey struct {
	topic     string
	partition int32
}

// NewConsumer creates the underlying confluent-kafka-go consumer. Call Run to
// start it. A Router whose Use refused a middleware is an error here. An
// empty RouterConfig.ConsumerGroup of r becomes cfg.GroupID (build the
// Consumer before r processes anything); a different non-empty one is an
// ErrInvalidConfig error.
func NewConsumer(cfg ConsumerConfig, r *Router) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%w: consumer: nil Router", ErrInvalidConfig)
	}
	if err := r.bindGroup(cfg.GroupID); err != nil {
		return nil, err
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if cfg.Batch.MaxRecords > 1 && r.cfg.Inbox == nil {
		return nil, fmt.Errorf("%w: consumer: Batch needs a Router with an Inbox (a batch is one inbox transaction)", ErrInvalidConfig)
	}
	if cfg.CommitInterval == 0 {
		cfg.CommitInterval = time.Second
	}
	if cfg.RedeliveryBackoff <= 0 {
		cfg.RedeliveryBackoff = time.Second
	}
	if cfg.MaxRedeliveryBackoff == 0 {
		cfg.MaxRedeliveryBackoff = defaultMaxRedeliveryBackoff
	}
	if cfg.MaxRedeliveryBackoff < cfg.RedeliveryBackoff {
		cfg.MaxRedeliveryBackoff = cfg.RedeliveryBackoff
	}
	if cfg.QueueSize == 0 {
		cfg.QueueSize = defaultQueueSize
	}
	if cfg.DrainTimeout == 0 {
		cfg.DrainTimeout = defaultDrainTimeout
	}
	if cfg.RevokeTimeout == 0 {
		cfg.RevokeTimeout = defaultRevokeTimeout
	}
	if cfg.FinalCommitTimeout <= 0 {
		cfg.FinalCommitTimeout = defaultFinalCommitTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.AssignmentWarnAfter == 0 {
		cfg.AssignmentWarnAfter = defaultAssignmentWarnAfter
	}
	cfg.Batch = cfg.Batch.withDefaults()
	km, err := cfg.client()
	if err != nil {
		return nil, fmt.Errorf("%w: consumer: %w", ErrInvalidConfig, err)
	}
	km["group.id"] = cfg.GroupID
	km["enable.auto.commit"] = false
	stopLogs := func() {}
	if _, set := km["go.logs.channel.enable"]; !set {
		// librdkafka's log lines go to Logger at debug level, not to
		// stderr in librdkafka's own format.
		logger := cfg.Logger
		stopLogs = kafkaclient.ForwardLogs(km, func(format string, args ...any) { logger.Debug(fmt.Sprintf(format, args...)) })
	}
	kc, err := kafka.NewConsumer(&km)
	if err != nil {
		stopLogs()
		return nil, fmt.Errorf("consumer: %w", err)
	}
	c := &Consumer{cfg: cfg, router: r, kc: kc, lanes: map[tpKey]*lane{}, fatalCh: make(chan struct{}), stopLogs: stopLogs}
	if cfg.MaxConcurrentPartitions > 0 {
		c.sem = make(chan struct{}, cfg.MaxConcurrentPartitions)
	}
	return c, nil
}

// setting is the librdkafka property key as Kafka, or else
// Client.Properties, sets it, and which of them does.
func (c ConsumerConfig) setting(key string) (value, where string, ok bool) {
	if v, ok := c.Kafka[key]; ok {
		return fmt.Sprint(v), "Kafka", true
	}
	if v, ok := c.Client.Properties[key]; ok {
		return v, "Client.Properties", true
	}
	return "", "", false
}

// connection is the effective kafkaclient.Config: Client, with the
// deprecated BootstrapServers and Security filling its empty fields. A
// field set in both places with different values is an error.
func (c ConsumerConfig) connection() (kafkaclient.Config, error) {
	conn := c.Client
	var errs []error
	switch {
	case c.BootstrapServers == "":
	case conn.BootstrapServers == "":
		conn.BootstrapServers = c.BootstrapServers
	case conn.BootstrapServers != c.BootstrapServers:
		errs = append(errs, fmt.Errorf("Client.BootstrapServers %q differs from the deprecated BootstrapServers %q (set Client only)", conn.BootstrapServers, c.BootstrapServers))
	}
	switch {
	case c.Security == (kafkaclient.Security{}):
	case conn.Security == (kafkaclient.Security{}):
		conn.Security = c.Security
	case conn.Security != c.Security:
		// Security's String masks the passwords.
		errs = append(errs, fmt.Errorf("Client.Security (%s) differs from the deprecated Security (%s) (set Client only)", conn.Security, c.Security))
	}
	if len(errs) > 0 {
		return kafkaclient.Config{}, errors.Join(errs...)
	}
	return conn, nil
}

// client renders the librdkafka configuration: the defaults
// (auto.offset.reset=earliest, enable.auto.offset.store=false), then the
// connection (Client, with the deprecated BootstrapServers and Security;
// Client.Properties over the defaults) and, over all of them, Kafka.
func (c ConsumerConfig) client() (kafka.ConfigMap, error) {
	conn, err := c.connection()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", kafkaclient.ErrInvalidConfig, err)
	}
	km := kafka.ConfigMap{
		"auto.offset.reset":        "earliest",
		"enable.auto.offset.store": false,
		"isolation.level":          "read_committed",
	}
	if c.ReadUncommitted {
		km["isolation.level"] = "read_uncommitted"
	}
	// Client.Properties stay in conn (Config.With checks them against the
	// connection's fields); they win over the defaults, Kafka's keys win
	// over them.
	props := map[string]string{}
	for k, v := range conn.Properties {
		if _, ok := c.Kafka[k]; !ok {
			props[k] = v
			delete(km, k)
		}
	}
	conn.Properties = props
	maps.Copy(km, c.Kafka)
	delete(km, "bootstrap.servers") // the connection's bootstrap servers win, as before
	if c.InstanceID != "" {
		km["group.instance.id"] = c.InstanceID
	}
	m, err := conn.With(km)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Defaults of ConsumerConfig.
const (
	defaultMaxRedeliveryBackoff = 30 * time.Second
	defaultQueueSize            = 10000
	defaultDrainTimeout         = 30 * time.Second
	defaultRevokeTimeout        = 10 * time.Second
	defaultFinalCommitTimeout   = 10 * time.Second
	defaultAssignmentWarnAfter  = 10 * time.Second
)

// pollTimeout is how long one Poll waits for an event; it bounds how late
// a pause, a resume or a commit after every record happens.
const pollTimeout = 50

// Run subscribes and processes records until ctx is cancelled, a record
// asks to stop (a StopError, such as an unknown event type under
// UnknownStop) or a fatal Kafka error occurs. Then it lets the records in
// processing finish (DrainTimeout), commits the done offsets and closes the
// consumer. If that commit meets a rebalance in progress, Run serves the
// rebalance and commits again (for at most FinalCommitTimeout). It returns
// nil after a cancellation, an error wrapping ErrStopped and the record's
// error after a stop, else the fatal error or the error of that last commit
// (the records it did not cover are delivered again). Call it once.
func (c *Consumer) Run(ctx context.Context) (err error) {
	c.base, c.hardCancel = context.WithCancel(context.WithoutCancel(ctx))
	c.started = time.Now()
	defer c.hardCancel()
	defer func() {
		c.drain()
		if cerr := c.finalCommit(); cerr != nil && err == nil {
			err = cerr
		}
		if cerr := c.kc.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("consumer: close: %w", cerr)
		}
		c.stopLogs()
	}()
	if err := c.checkDLQTopics(); err != nil {
		return err
	}
	if err := c.kc.SubscribeTopics(c.cfg.Topics, c.rebalance); err != nil {
		return fmt.Errorf("consumer: subscribe %s: %w", strings.Join(c.cfg.Topics, ","), err)
	}
	lastCommit := time.Now()
	nextAssignWarn := time.Now().Add(c.cfg.AssignmentWarnAfter)
	for ctx.Err() == nil {
		if c.cfg.AssignmentWarnAfter > 0 && !c.assigned.Load() && time.Now().After(nextAssignWarn) {
			c.warnNoAssignment()
			nextAssignWarn = time.Now().Add(c.cfg.AssignmentWarnAfter)
		}
		select {
		case <-c.fatalCh:
			return c.fatalErr
		default:
		}
		switch e := c.kc.Poll(pollTimeout).(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				c.report(fmt.Errorf("consumer: %w", e.TopicPartition.Error))
				continue
			}
			c.dispatch(e)
		case kafka.Error:
			if se := kafkaclient.Classify(e); se != nil {
				return fmt.Errorf("consumer: %w", se)
			}
			if e.IsFatal() {
				return fmt.Errorf("consumer: fatal kafka error: %w", e)
			}
			c.report(fmt.Errorf("consumer: kafka: %w", e))
		case *kafka.Stats:
			if c.cfg.OnStatistics != nil {
				c.cfg.OnStatistics(e.String())
			}
		}
		c.flowControl()
		c.collectCommit(false)
		if c.cfg.CommitInterval < 0 || time.Since(lastCommit) >= c.cfg.CommitInterval {
			// Asynchronous: a slow or unreachable group coordinator
			// must not hold up the poll loop (and so every lane's
			// records). A tick while the last commit is in flight is
			// skipped; the next one commits what is done by then.
			if c.inflight == nil {
				c.commitAsync()
				lastCommit = time.Now()
			}
		}
	}
	return nil
}

// inflightCommit is a periodic commit running in its own goroutine.
type inflightCommit struct {
	done chan struct{}
	err  error
}

// commitAsync starts a commit of every lane's done offsets in a goroutine
// (c.inflight until collectCommit collects it). The offsets are taken
// now, on the poll goroutine; a lane's committed mark moves only once the
// coordinator acknowledged them, so at-least-once holds: a record is never
// marked committed before its offset is.
//
// The commits on revocation and when Run returns (commit, finalCommit)
// first wait for the commit in flight (collectCommit(true)), then commit
// synchronously: the partitions are never given up, nor the consumer
// closed, with a commit still running.
func (c *Consumer) commitAsync() {
	offs, ps := c.pendingOffsets(nil)
	if len(offs) == 0 {
		return
	}
	ic := &inflightCommit{done: make(chan struct{})}
	c.inflight = ic
	go func() {
		defer close(ic.done)
		if _, err := c.kc.CommitOffsets(offs); err != nil {
			ic.err = fmt.Errorf("consumer: commit: %w", err)
			return
		}
		for _, p := range ps {
			p.l.committedUpTo(p.off)
		}
	}()
}

// collectCommit reports the result of the commit in flight, if any, once
// it ended; wait waits for it to end. It runs on the poll goroutine (Run,
// or the rebalance callback Poll calls), the only one that starts commits.
func (c *Consumer) collectCommit(wait bool) {
	ic := c.inflight
	if ic == nil {
		return
	}
	if wait {
		<-ic.done
	} else {
		select {
		case <-ic.done:
		default:
			return
		}
	}
	c.inflight = nil
	if ic.err != nil && !isNoOffset(ic.err) {
		c.report(ic.err)
	}
}

// warnNoAssignment logs that no assignment arrived yet, and the likely
// reason: a member of the group that died without leaving holds the
// partitions until its session times out.
func (c *Consumer) warnNoAssignment() {
	km, _ := c.cfg.client()
	session := "45000 (librdkafka default)"
	if v, ok := km["session.timeout.ms"]; ok {
		session = fmt.Sprint(v)
	}
	msg := "consumer: no partition assignment yet: the group may be waiting for a member that died without leaving (kill -9, a lost node) until its session times out; set ConsumerConfig.InstanceID (static membership, group.instance.id) so that a restarted member takes its partitions back at once"
	instance := ""
	if v, ok := km["group.instance.id"]; ok {
		instance = fmt.Sprint(v)
	}
	if instance != "" {
		msg = "consumer: no partition assignment yet (static member): the group coordinator may be unreachable or rebalancing"
	}
	c.cfg.Logger.Warn(msg, slog.String("group", c.cfg.GroupID), slog.Duration("waited", time.Since(c.started).Round(time.Second)),
		slog.String("session.timeout.ms", session), slog.String("group.instance.id", instance))
}

// dlqCheckTimeout bounds the metadata request of checkDLQTopics.
const dlqCheckTimeout = 10 * time.Second

// checkDLQTopics makes sure the topics of the Router's DLQ middleware
// exist: a missing one is an error wrapping ErrDLQTopicMissing. It reads
// the cluster's metadata for all topics (a request naming the topic could
// create it on a broker with auto-creation). When the metadata cannot be
// read (the cluster is not reachable yet) it logs a warning and goes on:
// Run waits for the cluster anyway.
func (c *Consumer) checkDLQTopics() error {
	want := c.router.DLQTopics()
	if len(want) == 0 {
		return nil
	}
	md, err := c.kc.GetMetadata(nil, true, int(dlqCheckTimeout/time.Millisecond))
	if err != nil {
		c.cfg.Logger.Warn("consumer: could not check that the dead-letter topics exist", slog.Any("dlq_topics", want), slog.String(logattr.Error, err.Error()))
		return nil
	}
	var missing []string
	for _, t := range want {
		tm, ok := md.Topics[t]
		if !ok || tm.Error.Code() == kafka.ErrUnknownTopicOrPart || tm.Error.Code() == kafka.ErrUnknownTopic {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("consumer: %w: %s (create it, e.g. with `outboxctl provision` from the spec's consumers section; the consumer would fail at its first dead-lettered record)", ErrDLQTopicMissing, strings.Join(missing, ", "))
	}
	return nil
}

// dispatch hands a polled record to its partition's lane (started on the
// partition's first record).
func (c *Consumer) dispatch(km *kafka.Message) {
	k := tpKey{*km.TopicPartition.Topic, km.TopicPartition.Partition}
	c.mu.Lock()
	if c.draining {
		c.mu.Unlock()
		return // not done: delivered again after a restart
	}
	l := c.lanes[k]
	if l == nil {
		l = newLane(c, k)
		c.lanes[k] = l
		c.order = append(c.order, l)
		go l.run()
	}
	c.mu.Unlock()
	l.push(km)
}

// flowControl pauses the partitions whose lane is failing (backing off) or
// full, and resumes them when the lane recovered or is down to half. On
// resume librdkafka fetches again from the record after the last one
// polled, so nothing fetched while paused is lost.
//
// It runs on the poll goroutine, the only one that changes the lanes.
func (c *Consumer) flowControl() {
	for _, l := range c.order {
		pause, resume := l.flow(c.cfg.QueueSize)
		switch {
		case pause && !l.paused:
			if err := c.kc.Pause(l.tp()); err != nil {
				c.report(fmt.Errorf("consumer: pause %s/%d: %w", l.key.topic, l.key.partition, err))
				continue
			}
			l.paused = true
		case resume && l.paused:
			if err := c.kc.Resume(l.tp()); err != nil {
				c.report(fmt.Errorf("consumer: resume %s/%d: %w", l.key.topic, l.key.partition, err))
				continue
			}
			l.paused = false
		}
	}
}

// drain stops every lane after its record in processing and waits for them
// for at most DrainTimeout, polling meanwhile (records polled are dropped:
// they were not processed, so they are delivered again); then it cancels
// the handler contexts and waits a little more.
func (c *Consumer) drain() {
	c.mu.Lock()
	c.draining = true
	lanes := make([]*lane, 0, len(c.lanes))
	for _, l := range c.lanes {
		lanes = append(lanes, l)
	}
	c.mu.Unlock()
	for _, l := range lanes {
		l.stop()
	}
	deadline := time.Now().Add(c.cfg.DrainTimeout)
	for !allFinished(lanes) {
		if time.Now().After(deadline) {
			c.report(fmt.Errorf("consumer: records still in processing after the drain timeout (%s): cancelling their context", c.cfg.DrainTimeout))
			c.hardCancel()
			waitFinished(lanes, cancelGrace)
			return
		}
		c.kc.Poll(pollTimeout)
	}
}

// cancelGrace is how long a drain or a revocation waits for handlers after
// it cancelled their context.
const cancelGrace = 5 * time.Second

func allFinished(lanes []*lane) bool {
	for _, l := range lanes {
		select {
		case <-l.finished:
		default:
			return false
		}
	}
	return true
}

// waitFinished waits for the lanes to end, for at most d; it reports
// whether they all did.
func waitFinished(lanes []*lane, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, l := range lanes {
		select {
		case <-l.finished:
		case <-t.C:
			return false
		}
	}
	return true
}

// fatal records the first StopError of a lane; Run returns it.
func (c *Consumer) fatal(err error) {
	c.fatalOnce.Do(func() {
		c.fatalErr = err
		close(c.fatalCh)
	})
}

func (c *Consumer) rebalance(kc *kafka.Consumer, ev kafka.Event) error {
	cooperative := kc.GetRebalanceProtocol() == "COOPERATIVE"
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		c.assigned.Store(true)
		if cooperative {
			return kc.IncrementalAssign(e.Partitions)
		}
		return kc.Assign(e.Partitions)
	case kafka.RevokedPartitions:
		lost := kc.AssignmentLost()
		c.mu.Lock()
		var lanes []*lane
		for _, tp := range e.Partitions {
			if l := c.lanes[tpKey{*tp.Topic, tp.Partition}]; l != nil {
				lanes = append(lanes, l)
			}
		}
		c.mu.Unlock()
		for _, l := range lanes {
			l.stop()
		}
		if !waitFinished(lanes, c.cfg.RevokeTimeout) {
			c.report(fmt.Errorf("consumer: revoked partitions still in processing after %s: cancelling their context", c.cfg.RevokeTimeout))
			for _, l := range lanes {
				l.cancel()
			}
		}
		if !lost {
			if err := c.commit(e.Partitions); err != nil && !isNoOffset(err) {
				c.report(err)
			}
		}
		c.mu.Lock()
		for _, l := range lanes {
			delete(c.lanes, l.key)
		}
		c.order = c.order[:0]
		for _, l := range c.lanes {
			c.order = append(c.order, l)
		}
		c.mu.Unlock()
		for _, l := range lanes {
			if l.paused {
				// Given back unpaused, should it be assigned here again.
				_ = kc.Resume(l.tp())
			}
		}
		if cooperative {
			return kc.IncrementalUnassign(e.Partitions)
		}
		return kc.Unassign()
	}
	return nil
}

// pendingCommit is a lane's done offset to be committed.
type pendingCommit struct {
	l   *lane
	off int64
}

// pendingOffsets returns the done offsets of the given partitions (all
// when nil) that moved since their last commit.
func (c *Consumer) pendingOffsets(only []kafka.TopicPartition) (offs []kafka.TopicPartition, ps []pendingCommit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, l := range c.lanes {
		if only != nil && !containsTP(only, k) {
			continue
		}
		if off, ok := l.uncommitted(); ok {
			topic := k.topic
			offs = append(offs, kafka.TopicPartition{Topic: &topic, Partition: k.partition, Offset: kafka.Offset(off)})
			ps = append(ps, pendingCommit{l, off})
		}
	}
	return offs, ps
}

// commit commits, synchronously, the done offsets of the given partitions
// (all when nil) that moved since their last commit, after the periodic
// commit in flight, if any, ended.
func (c *Consumer) commit(only []kafka.TopicPartition) error {
	c.collectCommit(true)
	offs, ps := c.pendingOffsets(only)
	if len(offs) == 0 {
		return nil
	}
	if _, err := c.kc.CommitOffsets(offs); err != nil {
		return fmt.Errorf("consumer: commit: %w", err)
	}
	for _, p := range ps {
		p.l.committedUpTo(p.off)
	}
	return nil
}

// finalCommit commits the done offsets when Run returns. A commit sent while
// the group rebalances (another member joins or leaves, as in a rolling
// deploy) fails with REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION; then it
// polls, which lets librdkafka finish the rebalance and runs the rebalance
// callback (committing revoked partitions), and commits again, for at most
// ConsumerConfig.FinalCommitTimeout. Records polled meanwhile are dropped: they are not done,
// so they are delivered again after a restart.
func (c *Consumer) finalCommit() error {
	deadline := time.Now().Add(c.cfg.FinalCommitTimeout)
	for {
		err := c.commit(nil)
		if err == nil || isNoOffset(err) {
			return nil
		}
		if !isRebalancing(err) || time.Now().After(deadline) {
			return err
		}
		c.report(err)
		c.kc.Poll(100)
	}
}

func isRebalancing(err error) bool {
	var ke kafka.Error
	return errors.As(err, &ke) && (ke.Code() == kafka.ErrRebalanceInProgress || ke.Code() == kafka.ErrIllegalGeneration)
}

func containsTP(tps []kafka.TopicPartition, k tpKey) bool {
	for _, tp := range tps {
		if tp.Topic != nil && *tp.Topic == k.topic && tp.Partition == k.partition {
			return true
		}
	}
	return false
}

func isNoOffset(err error) bool {
	var ke kafka.Error
	return errors.As(err, &ke) && ke.Code() == kafka.ErrNoOffset
}

func (c *Consumer) report(err error) {
	if c.cfg.OnError != nil {
		c.cfg.OnError(err)
		return
	}
	c.cfg.Logger.Warn(err.Error())
}

// reportRecord reports the processing error of m (logged with m's
// attributes).
func (c *Consumer) reportRecord(err error, m *Message) {
	if c.cfg.OnError != nil {
		c.cfg.OnError(err)
		return
	}
	c.cfg.Logger.Warn("consumer: processing failed, the record is delivered again",
		append(recordAttrs(m), slog.Int(logattr.Attempt, m.Attempt), slog.String(logattr.Error, err.Error()))...)
}

func fromKafka(km *kafka.Message) *Message {
	m := &Message{
		Topic:     *km.TopicPartition.Topic,
		Partition: km.TopicPartition.Partition,
		Offset:    int64(km.TopicPartition.Offset),
		Key:       km.Key,
		Value:     km.Value,
		Timestamp: km.Timestamp,
	}
	for _, h := range km.Headers {
		m.Headers = append(m.Headers, Header{Key: h.Key, Value: h.Value})
	}
	return m
}

// KafkaProducer is a Producer over a confluent-kafka-go producer: Produce
// waits for the delivery report. Configure the producer with acks=all (the
// librdkafka default) and enable.idempotence=true for a DLQ.
type KafkaProducer struct {
	p *kafka.Producer
}

// NewKafkaProducer wraps p. The caller keeps owning p (Flush and Close it).
// kafkaclient.NewProducer creates p with the consumer's connection
// (ConsumerConfig.Client):
//
//	p, err := kafkaclient.NewProducer(cfg.Client, kafka.ConfigMap{"enable.idempotence": true})
func NewKafkaProducer(p *kafka.Producer) *KafkaProducer { return &KafkaProducer{p: p} }

// Produce writes m to m.Topic (partition chosen by key) and waits for the
// broker's acknowledgement or ctx.
func (k *KafkaProducer) Produce(ctx context.Context, m *Message) error {
	topic := m.Topic
	km := &kafka.Message{
		TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
		Key:            m.Key,
		Value:          m.Value,
	}
	if !m.Timestamp.IsZero() {
		km.Timestamp = m.Timestamp
	}
	for _, h := range m.Headers {
		km.Headers = append(km.Headers, kafka.Header{Key: h.Key, Value: h.Value})
	}
	ch := make(chan kafka.Event, 1)
	if err := k.p.Produce(km, ch); err != nil {
		return fmt.Errorf("produce to %s: %w", topic, err)
	}
	select {
	case ev := <-ch:
		if dm, ok := ev.(*kafka.Message); ok && dm.TopicPartition.Error != nil {
			return fmt.Errorf("produce to %s: %w", topic, dm.TopicPartition.Error)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("produce to %s: %w", topic, ctx.Err())
	}
}
