//go:build cgo

package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
	"github.com/outboxctl/outboxctl/spec"
)

// Options configures FromSpec: what the spec does not say. Only GroupID
// is required; every other field has a default or turns its part off.
type Options struct {
	// GroupID is the Kafka consumer group, and the consumer's name in the
	// inbox. Required.
	GroupID string
	// Kafka is the connection (default: the spec's kafka.bootstrapServers,
	// without security).
	Kafka kafkaclient.Config

	// RegistryURL is the schema registry (registry.NewClient) the writer
	// schemas of Avro records are fetched from by id. Schemas, when set,
	// is used instead. Neither: Avro records fail with ErrSchema.
	RegistryURL string
	Schemas     schemasource.ByID

	// Inbox, if set, runs each handler in an inbox transaction (see
	// RouterConfig.Inbox); its consumer group is GroupID. For pgx use
	// inbox.NewPgxPool, whose transaction a handler gets with
	// Event.PgxTx.
	Inbox inbox.Store

	// DLQTopic, if set, adds the DLQ middleware: what fails permanently, or
	// still fails after Retry, is produced there. When empty, the dlqTopic
	// the outbox's consumers section declares for GroupID is used (the
	// topic `outboxctl provision` creates); with neither, no DLQ. DLQProducer produces it
	// (default: an idempotent Kafka producer on Kafka, closed by
	// App.Run and App.Close).
	DLQTopic    string
	DLQProducer Producer
	// Retry is the Retry middleware. MaxAttempts 0 means
	// DefaultRetryAttempts (1: no retry); unset intervals mean the default
	// capped exponential backoff with jitter.
	Retry Retry
	// Tracing, if set, is the tracing middleware (for example
	// consumerotel.Middleware(consumerotel.Config{ConsumerGroup: ...})).
	Tracing Middleware
	// Timeout, if positive, bounds each handler attempt (Timeout(d)).
	Timeout time.Duration
	// Middleware is added inside all of the above, just outside Recover.
	Middleware []Middleware

	// Observer receives every outcome (metrics: consumerprom.Metrics).
	// When it has a Declare(topic string, eventTypes ...string) method,
	// FromSpec calls it with each topic and the outbox's event types, so
	// their series exist at 0 from the start.
	Observer Observer
	// Logger (default slog.Default()).
	Logger *slog.Logger
	// Unknown is RouterConfig.Unknown.
	Unknown UnknownPolicy

	// Consumer holds further Consumer settings (CommitInterval,
	// DrainTimeout, Kafka properties, OnStatistics, Batch...). FromSpec
	// sets its Client, GroupID, Topics and Logger.
	Consumer ConsumerConfig
}

// DefaultRetryAttempts is the MaxAttempts of FromSpec's Retry when
// Options.Retry is zero.
const DefaultRetryAttempts = 5

// App is a consumer of one spec outbox built by FromSpec: its Router (to
// register handlers and upcasters on, by event type and major version
// only) and what Run needs to consume the outbox's topics.
type App struct {
	// Router is the configured Router: register with Handle and Upcast.
	Router *Router
	// Outbox is the spec outbox consumed.
	Outbox *spec.Outbox
	// Topics are the routed topics of the outbox's event types.
	Topics []string

	cfg      ConsumerConfig
	producer *kafka.Producer // the DLQ producer FromSpec made, or nil
}

// FromSpec builds the consumer of outbox outboxName of sp in one call. From
// the spec it derives the topics (the EventRouter's routes of the
// outbox's event types), the header names (RouterConfig.ForOutbox) and the
// reader schema of every (event type, major version) from the outbox's .avsc
// files (RouterConfig.Outbox), so that
//
//	app, err := consumer.FromSpec(sp, "orders", consumer.Options{GroupID: "billing", ...})
//	consumer.Handle(app.Router, "OrderPlaced", 2, handleV2)
//	consumer.Upcast(app.Router, "OrderPlaced", 1, v1toV2)
//	err = app.Run(ctx)
//
// needs no schema, topic or header name in code. The middleware chain is
// the standard one, in this order (outermost first): DLQ (when DLQTopic is
// set), Retry (always; Options.Retry), Tracing (when set), Timeout (when
// set), Options.Middleware, Recover. The long form (NewRouter, Use,
// NewConsumer) stays for other chains.
//
// Errors wrap ErrInvalidConfig (no such outbox, no GroupID, topics that
// cannot be derived, an invalid Retry) or are those of registry.NewClient
// and the DLQ producer.
func FromSpec(sp *spec.Spec, outboxName string, o Options) (*App, error) {
	if sp == nil {
		return nil, fmt.Errorf("%w: from spec: nil spec", ErrInvalidConfig)
	}
	if o.GroupID == "" {
		return nil, fmt.Errorf("%w: from spec: Options.GroupID is required", ErrInvalidConfig)
	}
	var ob *spec.Outbox
	for i := range sp.Outboxes {
		if sp.Outboxes[i].Name == outboxName {
			ob = &sp.Outboxes[i]
		}
	}
	if ob == nil {
		return nil, fmt.Errorf("%w: from spec: no outbox %q in the spec", ErrInvalidConfig, outboxName)
	}
	topics, err := schemas.OutboxTopics(ob)
	if err != nil {
		return nil, fmt.Errorf("%w: from spec: topics of outbox %q: %w", ErrInvalidConfig, outboxName, err)
	}
	if o.DLQTopic == "" {
		for _, c := range ob.Consumers {
			if c.Group == o.GroupID {
				o.DLQTopic = c.DLQTopic
			}
		}
	}
	if o.Kafka.BootstrapServers == "" {
		o.Kafka.BootstrapServers = sp.Kafka.BootstrapServers
	}
	src := o.Schemas
	if src == nil && o.RegistryURL != "" {
		reg, err := registry.NewClient(o.RegistryURL)
		if err != nil {
			return nil, fmt.Errorf("from spec: %w", err)
		}
		src = RegistryByID(reg)
	}
	if o.Retry.MaxAttempts == 0 {
		o.Retry.MaxAttempts = DefaultRetryAttempts
	}
	retry, err := NewRetry(o.Retry)
	if err != nil {
		return nil, fmt.Errorf("from spec: %w", err)
	}
	r, err := RouterFromSpec(ob, RouterConfig{
		Schemas: src, Inbox: o.Inbox, Observer: o.Observer, Logger: o.Logger, Unknown: o.Unknown,
	})
	if err != nil {
		return nil, err
	}
	app := &App{Router: r, Outbox: ob, Topics: topics}
	var chain []Middleware
	if o.DLQTopic != "" {
		p := o.DLQProducer
		if p == nil {
			kp, err := kafkaclient.NewProducer(o.Kafka, kafka.ConfigMap{"enable.idempotence": true})
			if err != nil {
				return nil, fmt.Errorf("from spec: dlq producer: %w", err)
			}
			app.producer, p = kp, NewKafkaProducer(kp)
		}
		dlq, err := NewDLQ(DLQ{Topic: o.DLQTopic, Producer: p})
		if err != nil {
			app.Close()
			return nil, fmt.Errorf("from spec: %w", err)
		}
		chain = append(chain, dlq)
	}
	chain = append(chain, retry)
	if o.Tracing != nil {
		chain = append(chain, o.Tracing)
	}
	if o.Timeout > 0 {
		chain = append(chain, Timeout(o.Timeout))
	}
	chain = append(chain, o.Middleware...)
	chain = append(chain, Recover())
	if err := r.Use(chain...); err != nil {
		app.Close()
		return nil, fmt.Errorf("from spec: %w", err)
	}
	if d, ok := o.Observer.(interface{ Declare(string, ...string) }); ok {
		for _, t := range topics {
			d.Declare(t, eventTypesOn(ob, t)...)
		}
	}
	cfg := o.Consumer
	cfg.Client, cfg.GroupID, cfg.Topics = o.Kafka, o.GroupID, topics
	if cfg.Logger == nil {
		cfg.Logger = o.Logger
	}
	app.cfg = cfg
	return app, nil
}

// eventTypesOn returns the event types of o routed to topic t.
func eventTypesOn(o *spec.Outbox, t string) []string {
	var out []string
	for i := range o.Events {
		one := *o
		one.Events = o.Events[i : i+1]
		if ts, err := schemas.OutboxTopics(&one); err == nil && len(ts) == 1 && ts[0] == t {
			out = append(out, o.Events[i].Name)
		}
	}
	return out
}

// Consumer returns the Consumer of the App (NewConsumer with the derived
// ConsumerConfig), for those who run it themselves; Run is this and
// Consumer.Run.
func (a *App) Consumer() (*Consumer, error) { return NewConsumer(a.cfg, a.Router) }

// Config returns the ConsumerConfig FromSpec derived.
func (a *App) Config() ConsumerConfig { return a.cfg }

// Run consumes the outbox's topics until ctx is done (see Consumer.Run),
// then flushes and closes the DLQ producer FromSpec made.
func (a *App) Run(ctx context.Context) error {
	defer a.Close()
	c, err := a.Consumer()
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// Close flushes (up to 5 s) and closes the DLQ producer FromSpec made, if
// any. Run calls it; call it when Run is not called.
func (a *App) Close() {
	if a.producer == nil {
		return
	}
	a.producer.Flush(5000)
	a.producer.Close()
	a.producer = nil
}
