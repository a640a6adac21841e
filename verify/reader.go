package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/kafkaclient"
)

// reader reads every partition of one topic from its end offsets as they
// were before the canary was written.
type reader struct {
	c        *kafka.Consumer
	stopLogs func()
}

func newReader(ctx context.Context, opts Options, topic string) (*reader, error) {
	own := kafka.ConfigMap{
		"group.id":           "outboxctl-verify", // never joined or committed: partitions are assigned
		"enable.auto.commit": false,
	}
	bootstrap := opts.Kafka.BootstrapServers
	var conf kafka.ConfigMap
	if bootstrap != "" {
		var err error
		if conf, err = opts.Kafka.With(own); err != nil {
			return nil, fmt.Errorf("kafka consumer: %w", err)
		}
	} else { // the deprecated fields
		bootstrap = opts.BootstrapServers
		conf = kafka.ConfigMap{}
		for k, v := range opts.KafkaConfig {
			conf[k] = v
		}
		conf["bootstrap.servers"] = bootstrap
		for k, v := range own {
			conf[k] = v
		}
	}
	stopLogs := kafkaclient.ForwardLogs(conf, opts.Logf)
	c, err := kafka.NewConsumer(&conf)
	if err != nil {
		stopLogs()
		return nil, fmt.Errorf("kafka consumer: %w", err)
	}
	r := &reader{c: c, stopLogs: stopLogs}
	ms := timeoutMs(ctx)
	md, err := c.GetMetadata(&topic, false, ms)
	if err != nil {
		r.Close()
		// No answer from the brokers: an operational error, not a stage
		// the canary failed.
		return nil, fmt.Errorf("%w: kafka at %s did not answer (metadata of topic %s): %w", ErrUnreachable, bootstrap, topic, err)
	}
	tm, ok := md.Topics[topic]
	if !ok || tm.Error.Code() == kafka.ErrUnknownTopicOrPart || len(tm.Partitions) == 0 {
		r.Close()
		return nil, fmt.Errorf("%w: %s (outboxctl provision --topics)", errTopicMissing, topic)
	}
	var tps []kafka.TopicPartition
	for _, p := range tm.Partitions {
		_, high, err := c.QueryWatermarkOffsets(topic, p.ID, timeoutMs(ctx))
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("%w: end offset of %s/%d: %w", ErrUnreachable, topic, p.ID, err)
		}
		tps = append(tps, kafka.TopicPartition{Topic: &topic, Partition: p.ID, Offset: kafka.Offset(high)})
	}
	if err := c.Assign(tps); err != nil {
		r.Close()
		return nil, fmt.Errorf("assign %s: %w", topic, err)
	}
	return r, nil
}

func timeoutMs(ctx context.Context) int {
	if dl, ok := ctx.Deadline(); ok {
		if ms := int(time.Until(dl).Milliseconds()); ms > 0 {
			return ms
		}
		return 1
	}
	return 30000
}

func (r *reader) Close() {
	r.c.Close()
	r.stopLogs()
}

// await returns the record whose id header is id.
func (r *reader) await(ctx context.Context, topic, id string) (*kafka.Message, error) {
	for {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no canary record on %s within the timeout", topic)
		}
		switch e := r.c.Poll(100).(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				return nil, e.TopicPartition.Error
			}
			var got string
			for _, h := range e.Headers {
				if h.Key == "id" {
					got = string(h.Value)
				}
			}
			if got == id {
				return e, nil
			}
		case kafka.Error:
			if e.IsFatal() {
				return nil, errors.New(e.String())
			}
		}
	}
}
