// Package dlq re-publishes dead-lettered records (outboxctl dlq replay).
//
// A record that consumer.DLQ dead-lettered carries the original key, value
// and headers plus its own headers: outbox.dlq.error, outbox.dlq.attempts,
// outbox.dlq.reason and outbox.dlq.original.{topic,partition,offset}
// (consumer.HeaderDLQ*). Replay reads a DLQ topic from the beginning up to
// the end offsets it read at its start (records dead-lettered meanwhile are
// left for the next run), selects records by original topic, event type,
// reason and the time they were dead-lettered, and produces each selected
// record to its original topic and partition with its key, value and
// headers minus the outbox.dlq.* ones. The event id header stays, so a
// consumer with an inbox absorbs a record replayed twice (or one that was
// handled after all). Replay does not delete or commit anything in the DLQ
// topic: it is bounded by the time range and filters, not by consumer
// offsets.
package dlq

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// Sentinel errors.
var (
	// ErrRead: the DLQ topic could not be read (missing topic, broker).
	ErrRead = errors.New("read DLQ topic")
	// ErrPublish: a replayed record was not acknowledged by the broker;
	// the report counts the ones that were.
	ErrPublish = errors.New("replay record")
)

// HeaderPrefix is the prefix of the headers consumer.DLQ adds; a replayed
// record carries none of them.
const HeaderPrefix = "outbox.dlq."

// Filter selects dead-lettered records; an empty field selects all.
type Filter struct {
	// OriginalTopics: the outbox.dlq.original.topic of the record.
	OriginalTopics []string
	// Types: the event type header (TypeHeader).
	Types []string
	// Reasons: outbox.dlq.reason ("permanent", "failed").
	Reasons []string
	// Since and Until bound the record's timestamp in the DLQ topic (when
	// it was dead-lettered): Since <= ts < Until.
	Since, Until time.Time
	// TypeHeader is the event type header (default "eventType").
	TypeHeader string
}

// Options of Replay.
type Options struct {
	// Topic is the DLQ topic.
	Topic  string
	Filter Filter
	// DryRun reads and counts but produces nothing.
	DryRun bool
	// Kafka is the client configuration of the consumer and the producer.
	Kafka kafkaclient.Config
	// Timeout bounds each broker call (default 30s).
	Timeout time.Duration
}

// Report is what Replay did or, on a dry run, would do (the JSON of
// outboxctl dlq replay).
type Report struct {
	Topic  string `json:"topic"`
	DryRun bool   `json:"dryRun"`
	// Read: records read (up to the end offsets at the start).
	Read int `json:"read"`
	// Selected: records the filter matched.
	Selected int `json:"selected"`
	// Replayed: records produced and acknowledged (0 on a dry run).
	Replayed int `json:"replayed"`
	// Unreplayable: selected records without an original topic header.
	Unreplayable int `json:"unreplayable"`
	// ByTopic counts the selected records per original topic.
	ByTopic map[string]int `json:"byTopic"`
	// ByType counts the selected records per event type.
	ByType map[string]int `json:"byType"`
}

// Match reports whether a dead-lettered record passes the filter.
func (f Filter) Match(m *kafka.Message) bool {
	if len(f.OriginalTopics) > 0 && !slices.Contains(f.OriginalTopics, header(m, consumer.HeaderDLQTopic)) {
		return false
	}
	if len(f.Types) > 0 && !slices.Contains(f.Types, header(m, f.typeHeader())) {
		return false
	}
	if len(f.Reasons) > 0 && !slices.Contains(f.Reasons, header(m, consumer.HeaderDLQReason)) {
		return false
	}
	ts := m.Timestamp
	if !f.Since.IsZero() && ts.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !ts.Before(f.Until) {
		return false
	}
	return true
}

func (f Filter) typeHeader() string {
	if f.TypeHeader == "" {
		return "eventType"
	}
	return f.TypeHeader
}

func header(m *kafka.Message, key string) string {
	v := ""
	for _, h := range m.Headers {
		if h.Key == key {
			v = string(h.Value) // the last one wins, as in consumer.Message
		}
	}
	return v
}

// Restored is the record to produce for a dead-lettered one: its original
// topic and partition (kafka.PartitionAny when the header is missing), key,
// value and headers minus the outbox.dlq.* ones. ok is false when the
// record names no original topic.
func Restored(m *kafka.Message) (out *kafka.Message, ok bool) {
	topic := header(m, consumer.HeaderDLQTopic)
	if topic == "" {
		return nil, false
	}
	part := kafka.PartitionAny
	if p, err := strconv.ParseInt(header(m, consumer.HeaderDLQPartition), 10, 32); err == nil && p >= 0 {
		part = int32(p)
	}
	var hs []kafka.Header
	for _, h := range m.Headers {
		if !strings.HasPrefix(h.Key, HeaderPrefix) {
			hs = append(hs, h)
		}
	}
	return &kafka.Message{
		TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: part},
		Key:            m.Key,
		Value:          m.Value,
		Headers:        hs,
	}, true
}

// Replay reads the DLQ topic up to its end offsets at the start and, unless
// DryRun, produces every selected record back to its original topic. It
// waits for every delivery; a failed one is ErrPublish (the report counts
// the acknowledged ones).
func Replay(ctx context.Context, opts Options) (Report, error) {
	rep := Report{Topic: opts.Topic, DryRun: opts.DryRun, ByTopic: map[string]int{}, ByType: map[string]int{}}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tms := int(timeout.Milliseconds())
	cm, err := opts.Kafka.With(kafka.ConfigMap{
		// Assigned, never subscribed: the group id is required by the
		// client but no offset is committed.
		"group.id":           "outboxctl-dlq-replay",
		"enable.auto.commit": false,
		"auto.offset.reset":  "earliest",
		// EOF events end a partition whose last offsets are not records
		// (transaction markers).
		"enable.partition.eof": true,
	})
	if err != nil {
		return rep, err
	}
	c, err := kafka.NewConsumer(&cm)
	if err != nil {
		return rep, fmt.Errorf("%w %s: %w", ErrRead, opts.Topic, err)
	}
	defer c.Close()
	md, err := c.GetMetadata(&opts.Topic, false, tms)
	if err != nil {
		return rep, fmt.Errorf("%w %s: %w", ErrRead, opts.Topic, err)
	}
	tm, ok := md.Topics[opts.Topic]
	if !ok || tm.Error.Code() != kafka.ErrNoError || len(tm.Partitions) == 0 {
		return rep, fmt.Errorf("%w %s: topic not found", ErrRead, opts.Topic)
	}
	// The end offsets now bound the read.
	end := map[int32]int64{}
	var assign []kafka.TopicPartition
	for _, p := range tm.Partitions {
		low, high, err := c.QueryWatermarkOffsets(opts.Topic, p.ID, tms)
		if err != nil {
			return rep, fmt.Errorf("%w %s/%d: %w", ErrRead, opts.Topic, p.ID, err)
		}
		if high > low {
			end[p.ID] = high
			assign = append(assign, kafka.TopicPartition{Topic: &opts.Topic, Partition: p.ID, Offset: kafka.Offset(low)})
		}
	}
	var selected []*kafka.Message
	if len(assign) > 0 {
		if err := c.Assign(assign); err != nil {
			return rep, fmt.Errorf("%w %s: %w", ErrRead, opts.Topic, err)
		}
		idle := time.Now().Add(timeout)
		for len(end) > 0 {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			ev := c.Poll(200)
			switch e := ev.(type) {
			case *kafka.Message:
				idle = time.Now().Add(timeout)
				p, off := e.TopicPartition.Partition, int64(e.TopicPartition.Offset)
				if h, ok := end[p]; !ok || off >= h {
					continue
				}
				if off+1 >= end[p] {
					delete(end, p)
				}
				rep.Read++
				if !opts.Filter.Match(e) {
					continue
				}
				rep.Selected++
				rep.ByTopic[header(e, consumer.HeaderDLQTopic)]++
				rep.ByType[header(e, opts.Filter.typeHeader())]++
				selected = append(selected, e)
			case kafka.PartitionEOF:
				if h, ok := end[e.Partition]; ok && int64(e.Offset) >= h {
					delete(end, e.Partition)
				}
			case kafka.Error:
				if e.IsFatal() {
					return rep, fmt.Errorf("%w %s: %w", ErrRead, opts.Topic, e)
				}
			case nil:
				if time.Now().After(idle) {
					var left []string
					for p, h := range end {
						left = append(left, fmt.Sprintf("%d (end %d)", p, h))
					}
					sort.Strings(left)
					return rep, fmt.Errorf("%w %s: no record within %s before the end offsets of partitions %s", ErrRead, opts.Topic, timeout, strings.Join(left, ", "))
				}
			}
		}
	}
	if opts.DryRun {
		for _, m := range selected {
			if _, ok := Restored(m); !ok {
				rep.Unreplayable++
			}
		}
		return rep, nil
	}
	return rep, publish(ctx, opts, selected, &rep, timeout)
}

func publish(ctx context.Context, opts Options, selected []*kafka.Message, rep *Report, timeout time.Duration) error {
	var out []*kafka.Message
	for _, m := range selected {
		r, ok := Restored(m)
		if !ok {
			rep.Unreplayable++
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	// murmur2 as Java's producer: a record without a partition header goes
	// where Debezium would have put its key.
	p, err := kafkaclient.NewProducer(opts.Kafka, kafka.ConfigMap{"partitioner": "murmur2_random", "enable.idempotence": true})
	if err != nil {
		return err
	}
	defer p.Close()
	done := make(chan kafka.Event, len(out))
	for _, m := range out {
		if err := p.Produce(m, done); err != nil {
			return fmt.Errorf("%w to %s: %w", ErrPublish, *m.TopicPartition.Topic, err)
		}
	}
	var errs []error
	deadline := time.After(timeout + 5*time.Second)
	for range out {
		select {
		case ev := <-done:
			m, _ := ev.(*kafka.Message)
			if m == nil {
				errs = append(errs, fmt.Errorf("%w: unexpected event %v", ErrPublish, ev))
				continue
			}
			if m.TopicPartition.Error != nil {
				errs = append(errs, fmt.Errorf("%w to %s/%d: %w", ErrPublish, *m.TopicPartition.Topic, m.TopicPartition.Partition, m.TopicPartition.Error))
				continue
			}
			rep.Replayed++
		case <-deadline:
			return errors.Join(append(errs, fmt.Errorf("%w: %d record(s) not acknowledged within %s", ErrPublish, len(out)-rep.Replayed-len(errs), timeout))...)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return errors.Join(errs...)
}
