package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/spec"
)

// Baseliner is a Pipeline that can run, next to its SDK consumer, a bare
// consumer of the same topic (Options.Baseline): what the pipeline costs
// without the SDK, measured in the same run.
type Baseliner interface {
	// StartBaseline starts the bare consumer; every bench event it reads
	// is reported to deliver (At: when it was read and decoded). It
	// returns once the consumer is subscribed; Close stops it.
	StartBaseline(ctx context.Context, deliver func(Delivery)) error
}

// StartBaseline runs a bare confluent-kafka-go consumer (a consumer group
// of its own, <group>-baseline; no consumer package, no inbox): it reads
// the run's topic, takes the event id from the outbox's id header and
// decodes the JSON payload with encoding/json. JSON outboxes only
// (ErrUnsupported for Avro).
func (p *pipeline) StartBaseline(ctx context.Context, deliver func(Delivery)) error {
	if p.cfg.Outbox.PayloadFormat == spec.FormatAvro {
		return fmt.Errorf("%w: the baseline consumer decodes JSON payloads only; outbox %s is Avro", ErrUnsupported, p.cfg.Outbox.Name)
	}
	idHeader := consumer.RouterConfig{}.ForOutbox(p.cfg.Outbox).IDHeader
	if idHeader == "" {
		idHeader = consumer.DefaultIDHeader
	}
	cm, err := kafkaclient.Config{BootstrapServers: p.cfg.BootstrapServers, Security: p.cfg.Security}.ConfigMap()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
	}
	for k, v := range p.cfg.Kafka {
		cm[k] = v
	}
	p.baseGroup = p.group + "-baseline"
	cm["group.id"] = p.baseGroup
	cm["auto.offset.reset"] = "earliest"
	cm["enable.auto.commit"] = true
	stopLogs := kafkaclient.ForwardLogs(cm, nil)
	c, err := kafka.NewConsumer(&cm)
	if err != nil {
		stopLogs()
		return fmt.Errorf("baseline consumer: %w", err)
	}
	if err := c.Subscribe(p.topic, nil); err != nil {
		c.Close()
		stopLogs()
		return fmt.Errorf("baseline consumer: subscribe %s: %w", p.topic, err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	p.baseStop, p.baseDone = stop, done
	go func() {
		defer close(done)
		defer stopLogs()
		defer c.Close()
		var v payload
		for {
			select {
			case <-stop:
				return
			default:
			}
			m, err := c.ReadMessage(100 * time.Millisecond)
			if err != nil {
				var ke kafka.Error
				if errors.As(err, &ke) && ke.Code() == kafka.ErrTimedOut {
					continue
				}
				continue // the SDK consumer reports the cluster's errors
			}
			at := time.Now()
			var id string
			for _, h := range m.Headers {
				if h.Key == idHeader {
					id = string(h.Value)
				}
			}
			v = payload{}
			if json.Unmarshal(m.Value, &v) != nil || v.Run != p.cfg.RunID || v.Step < 0 {
				continue // a warm-up marker, or not the run's
			}
			deliver(Delivery{Step: v.Step, N: v.N, ID: id, Aggregate: string(m.Key), Seq: v.Seq, At: at})
		}
	}()
	return nil
}

// stopBaseline stops the baseline consumer, if any, and returns its
// consumer group ("" without one).
func (p *pipeline) stopBaseline() string {
	if p.baseStop == nil {
		return ""
	}
	close(p.baseStop)
	<-p.baseDone
	p.baseStop = nil
	return p.baseGroup
}
