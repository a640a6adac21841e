package consumer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// ConsumerConfig configures a Consumer.
type ConsumerConfig struct {
	// BootstrapServers, GroupID and Topics are required.
	BootstrapServers string
	GroupID          string
	Topics           []string
	// Kafka holds extra librdkafka settings, applied over the defaults
	// (auto.offset.reset=earliest, enable.auto.offset.store=false).
	// enable.auto.commit cannot be set to true: offsets are committed only
	// after a record is done.
	Kafka kafka.ConfigMap
	// CommitInterval is how often done offsets are committed (default 1s;
	// negative: after every record). They are also committed when
	// partitions are revoked and when Run returns.
	CommitInterval time.Duration
	// RedeliveryBackoff is the wait before a record whose processing
	// failed is delivered again (default 1s).
	RedeliveryBackoff time.Duration
	// FinalCommitTimeout bounds how long Run, when it returns, waits for a
	// group rebalance in progress to end so that it can commit its done
	// offsets (default 10s). Offsets not committed by then are delivered
	// again after a restart (at least once).
	FinalCommitTimeout time.Duration
	// OnError, if set, is called with processing errors (the record will
	// be redelivered) and non-fatal Kafka errors.
	OnError func(err error)
}

// Validate checks the configuration. Errors wrap ErrInvalidConfig.
func (c ConsumerConfig) Validate() error {
	var errs []error
	if c.BootstrapServers == "" {
		errs = append(errs, errors.New("BootstrapServers is required"))
	}
	if c.GroupID == "" {
		errs = append(errs, errors.New("GroupID is required"))
	}
	if len(c.Topics) == 0 {
		errs = append(errs, errors.New("Topics is required"))
	}
	if v, ok := c.Kafka["enable.auto.commit"]; ok && fmt.Sprint(v) != "false" {
		errs = append(errs, errors.New("Kafka: enable.auto.commit must stay false (offsets are committed after processing)"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: consumer: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	return nil
}

// Consumer reads topics as a member of a Kafka consumer group and runs each
// record through a Router, committing a record's offset only after Process
// returned nil for it (at-least-once). Records are processed one at a time
// in the order they are polled, so the order within a partition, and with
// the EventRouter's key = aggregate id the order per aggregate, is kept. A
// record whose processing fails is delivered again (its partition is sought
// back to it) after RedeliveryBackoff; the records after it in its partition
// wait. Scale with partitions and consumer instances.
//
// On partition revocation the done offsets of the revoked partitions are
// committed first (unless the assignment was lost). Run returns when ctx is
// cancelled, after committing what is done.
type Consumer struct {
	cfg    ConsumerConfig
	router *Router
	kc     *kafka.Consumer

	mu      sync.Mutex
	pending map[tpKey]int64 // next offset to commit, per partition
}

type tpKey struct {
	topic     string
	partition int32
}

// NewConsumer creates the underlying confluent-kafka-go consumer. Call Run to
// start it.
func NewConsumer(cfg ConsumerConfig, r *Router) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%w: consumer: nil Router", ErrInvalidConfig)
	}
	if cfg.CommitInterval == 0 {
		cfg.CommitInterval = time.Second
	}
	if cfg.RedeliveryBackoff <= 0 {
		cfg.RedeliveryBackoff = time.Second
	}
	if cfg.FinalCommitTimeout <= 0 {
		cfg.FinalCommitTimeout = defaultFinalCommitTimeout
	}
	km := kafka.ConfigMap{
		"auto.offset.reset":        "earliest",
		"enable.auto.offset.store": false,
	}
	maps.Copy(km, cfg.Kafka)
	km["bootstrap.servers"] = cfg.BootstrapServers
	km["group.id"] = cfg.GroupID
	km["enable.auto.commit"] = false
	kc, err := kafka.NewConsumer(&km)
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	return &Consumer{cfg: cfg, router: r, kc: kc, pending: map[tpKey]int64{}}, nil
}

// Run subscribes and processes records until ctx is cancelled or a fatal
// Kafka error occurs, then commits the done offsets and closes the consumer.
// If that commit meets a rebalance in progress, Run serves the rebalance and
// commits again (for at most 10 seconds). It returns nil after a
// cancellation, else the fatal error or the error of that last commit (the
// records it did not cover are delivered again). Call it once.
func (c *Consumer) Run(ctx context.Context) (err error) {
	defer func() {
		if cerr := c.finalCommit(); cerr != nil && err == nil {
			err = cerr
		}
		if cerr := c.kc.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("consumer: close: %w", cerr)
		}
	}()
	if err := c.kc.SubscribeTopics(c.cfg.Topics, c.rebalance); err != nil {
		return fmt.Errorf("consumer: subscribe %s: %w", strings.Join(c.cfg.Topics, ","), err)
	}
	lastCommit := time.Now()
	for ctx.Err() == nil {
		switch e := c.kc.Poll(100).(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				c.report(fmt.Errorf("consumer: %w", e.TopicPartition.Error))
				continue
			}
			c.handle(ctx, e)
		case kafka.Error:
			if e.IsFatal() {
				return fmt.Errorf("consumer: fatal kafka error: %w", e)
			}
			c.report(fmt.Errorf("consumer: kafka: %w", e))
		}
		if c.cfg.CommitInterval < 0 || time.Since(lastCommit) >= c.cfg.CommitInterval {
			if err := c.commit(nil); err != nil && !isNoOffset(err) {
				c.report(err)
			}
			lastCommit = time.Now()
		}
	}
	return nil
}

func (c *Consumer) handle(ctx context.Context, km *kafka.Message) {
	k := tpKey{*km.TopicPartition.Topic, km.TopicPartition.Partition}
	off := int64(km.TopicPartition.Offset)
	m := fromKafka(km)
	err := c.router.Process(ctx, m)
	if err == nil {
		c.mu.Lock()
		c.pending[k] = off + 1
		c.mu.Unlock()
		return
	}
	if ctx.Err() != nil {
		return // shutting down: not done, redelivered after restart
	}
	c.report(fmt.Errorf("consumer: %s/%d@%d (%s %s): %w", k.topic, k.partition, off, m.Meta.EventType, m.Meta.EventID, err))
	// Seek back: librdkafka drops the records of this partition fetched
	// before the seek (fetch version barrier), so the failed record is the
	// next one of its partition.
	if serr := c.kc.Seek(kafka.TopicPartition{Topic: &k.topic, Partition: k.partition, Offset: kafka.Offset(off)}, -1); serr != nil {
		c.report(fmt.Errorf("consumer: seek %s/%d to %d: %w", k.topic, k.partition, off, serr))
	}
	t := time.NewTimer(c.cfg.RedeliveryBackoff)
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	t.Stop()
}

func (c *Consumer) rebalance(kc *kafka.Consumer, ev kafka.Event) error {
	cooperative := kc.GetRebalanceProtocol() == "COOPERATIVE"
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		if cooperative {
			return kc.IncrementalAssign(e.Partitions)
		}
		return kc.Assign(e.Partitions)
	case kafka.RevokedPartitions:
		if !kc.AssignmentLost() {
			if err := c.commit(e.Partitions); err != nil && !isNoOffset(err) {
				c.report(err)
			}
		}
		c.mu.Lock()
		for _, tp := range e.Partitions {
			k := tpKey{*tp.Topic, tp.Partition}
			delete(c.pending, k)
		}
		c.mu.Unlock()
		if cooperative {
			return kc.IncrementalUnassign(e.Partitions)
		}
		return kc.Unassign()
	}
	return nil
}

// commit commits the done offsets of the given partitions (all when nil).
func (c *Consumer) commit(only []kafka.TopicPartition) error {
	c.mu.Lock()
	var offs []kafka.TopicPartition
	for k, off := range c.pending {
		if only != nil && !containsTP(only, k) {
			continue
		}
		topic := k.topic
		offs = append(offs, kafka.TopicPartition{Topic: &topic, Partition: k.partition, Offset: kafka.Offset(off)})
	}
	c.mu.Unlock()
	if len(offs) == 0 {
		return nil
	}
	if _, err := c.kc.CommitOffsets(offs); err != nil {
		return fmt.Errorf("consumer: commit: %w", err)
	}
	c.mu.Lock()
	for _, tp := range offs {
		k := tpKey{*tp.Topic, tp.Partition}
		if c.pending[k] == int64(tp.Offset) {
			delete(c.pending, k)
		}
	}
	c.mu.Unlock()
	return nil
}

// defaultFinalCommitTimeout is the default ConsumerConfig.FinalCommitTimeout.
const defaultFinalCommitTimeout = 10 * time.Second

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
	}
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
