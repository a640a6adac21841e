//go:build integration

package consumer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumertest"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// failFast bounds how long a client with wrong credentials or an untrusted
// CA may take to fail.
const failFast = 15 * time.Second

func saslSecurity(k itest.SASLStack, mech string) kafkaclient.Security {
	return kafkaclient.Security{
		Protocol: kafkaclient.SASLSSL, Mechanism: kafkaclient.Mechanism(mech),
		Username: k.Username, Password: k.Password, CALocation: k.CAFile,
	}
}

// TestConsumerSASLSSL runs the SDK over the stack's SASL_SSL listener with
// each mechanism it offers (SCRAM-SHA-256, SCRAM-SHA-512, PLAIN): the
// topics are created by kafkaclient's admin client, the records produced
// by a kafkaclient producer, consumed by the Consumer (Security), and the
// poison record dead-lettered through a DLQ producer on the same
// connection and read back from the DLQ topic.
func TestConsumerSASLSSL(t *testing.T) {
	k := itest.RequireSASL(t)
	for _, mech := range k.Mechanisms {
		t.Run(mech, func(t *testing.T) {
			sfx := itest.Suffix()
			sec := saslSecurity(k, mech)
			cfg := kafkaclient.Config{BootstrapServers: k.BootstrapServers, Security: sec}
			aggType := "Sasl" + strings.ReplaceAll(mech, "-", "") + sfx
			topic, dlqTopic, group := "outbox.event."+aggType, "sasl-dlq-"+sfx, "sasl-it-"+sfx

			admin, err := kafkaclient.NewAdminClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(admin.Close) // after the topics' deletion below
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: 1, ReplicationFactor: 1}, {Topic: dlqTopic, NumPartitions: 1, ReplicationFactor: 1}})
			if err != nil {
				t.Fatalf("create topics over SASL_SSL/%s: %v", mech, err)
			}
			for _, r := range res {
				if r.Error.Code() != kafka.ErrNoError {
					t.Fatalf("create topic %s: %v", r.Topic, r.Error)
				}
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if _, err := admin.DeleteTopics(ctx, []string{topic, dlqTopic}); err != nil {
					t.Errorf("delete topics: %v", err)
				}
			})

			p, err := kafkaclient.NewProducer(cfg, kafka.ConfigMap{"enable.idempotence": true})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			kp := consumer.NewKafkaProducer(p)
			jsonP, _ := consumertest.NewPipeline(consumertest.ConnectorConfig("postgres", consumertest.FormatJSON))
			uuid := func(n int) string { return fmt.Sprintf("%s-0000-4000-8000-%012d", sfx, n) }
			for i, amount := range []int{5, -1, 7} {
				m := jsonP.MustRecord(consumertest.Row{ID: uuid(i + 1), AggregateType: aggType, AggregateID: fmt.Sprintf("o-%d", i+1),
					Type: "OrderCreated", SchemaVersion: 1, Payload: fmt.Appendf(nil, `{"orderId": "o-%d", "amount": %d, "currency": "CHF"}`, i+1, amount)})
				if err := kp.Produce(ctx, m); err != nil {
					t.Fatalf("produce over SASL_SSL/%s: %v", mech, err)
				}
			}

			var mu sync.Mutex
			var handled []string
			dead := make(chan string, 4)
			r, err := consumer.NewRouter(consumer.RouterConfig{Unknown: consumer.UnknownStop})
			if err != nil {
				t.Fatal(err)
			}
			r.Use(consumer.DLQ{Topic: dlqTopic, Producer: kp, OnSent: func(_ context.Context, m *consumer.Message, _ error) { dead <- string(m.Key) }}.Middleware)
			must(t, consumer.Handle(r, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
				if ev.Payload.Amount < 0 {
					return consumer.Permanent(fmt.Errorf("order %s: negative amount", ev.Payload.OrderID))
				}
				mu.Lock()
				handled = append(handled, ev.Payload.OrderID)
				mu.Unlock()
				return nil
			}))
			var errsMu sync.Mutex
			var errs []error
			run := runConsumer(t, consumer.ConsumerConfig{
				BootstrapServers: k.BootstrapServers, Security: sec, GroupID: group, Topics: []string{topic},
				CommitInterval: 100 * time.Millisecond,
				OnError:        func(err error) { errsMu.Lock(); errs = append(errs, err); errsMu.Unlock() },
			}, r)
			deadline := time.Now().Add(60 * time.Second)
			for {
				mu.Lock()
				n := len(handled)
				mu.Unlock()
				if n == 2 && len(dead) == 1 {
					break
				}
				if time.Now().After(deadline) {
					errsMu.Lock()
					t.Fatalf("after 60s: handled %v, dead-lettered %d; errors: %v", handled, len(dead), errs)
				}
				time.Sleep(50 * time.Millisecond)
			}
			run.stop(t)
			mu.Lock()
			if strings.Join(handled, ",") != "o-1,o-3" {
				t.Errorf("handled %v, want [o-1 o-3]", handled)
			}
			mu.Unlock()

			// The DLQ record is on the DLQ topic: read it over SASL_SSL.
			cm, err := cfg.With(kafka.ConfigMap{"group.id": group + "-dlq", "auto.offset.reset": "earliest"})
			if err != nil {
				t.Fatal(err)
			}
			rd, err := kafka.NewConsumer(&cm)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			if err := rd.Assign([]kafka.TopicPartition{{Topic: &dlqTopic, Partition: 0, Offset: kafka.OffsetBeginning}}); err != nil {
				t.Fatal(err)
			}
			msg, err := rd.ReadMessage(30 * time.Second)
			if err != nil {
				t.Fatalf("read the DLQ topic over SASL_SSL: %v", err)
			}
			if string(msg.Key) != "o-2" {
				t.Errorf("DLQ record key %q, want o-2", msg.Key)
			}
		})
	}
}

// TestConsumerSASLSSLFailsFast: wrong credentials and an untrusted CA end
// the Consumer's Run, the admin client's calls and NewProducer's produce
// within failFast, with an error naming the cause (ErrAuthentication with
// librdkafka's "invalid credentials", ErrTLS with "certificate verify
// failed"), and no password in any message.
func TestConsumerSASLSSLFailsFast(t *testing.T) {
	k := itest.RequireSASL(t)
	wrongPassword := "wrong-" + itest.Suffix()
	untrusted := itest.UntrustedCA(t)
	for _, tc := range []struct {
		name  string
		sec   func(kafkaclient.Security) kafkaclient.Security
		want  error
		cause string
	}{
		{"wrong password SCRAM-SHA-512", func(s kafkaclient.Security) kafkaclient.Security { s.Password = wrongPassword; return s }, kafkaclient.ErrAuthentication, "invalid credentials"},
		{"wrong user PLAIN", func(s kafkaclient.Security) kafkaclient.Security {
			s.Mechanism, s.Username = kafkaclient.Plain, "nobody"
			return s
		}, kafkaclient.ErrAuthentication, "Authentication failed"},
		{"untrusted CA", func(s kafkaclient.Security) kafkaclient.Security { s.CALocation = untrusted; return s }, kafkaclient.ErrTLS, "certificate verify failed"},
		{"system CAs only", func(s kafkaclient.Security) kafkaclient.Security { s.CALocation = ""; return s }, kafkaclient.ErrTLS, "certificate verify failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sec := tc.sec(saslSecurity(k, "SCRAM-SHA-512"))
			check := func(what string, err error, took time.Duration) {
				t.Helper()
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s: err = %v, want %v", what, err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.cause) {
					t.Errorf("%s: %q does not name the cause (%q)", what, err, tc.cause)
				}
				if strings.Contains(err.Error(), k.Password) || strings.Contains(err.Error(), wrongPassword) {
					t.Errorf("%s: the message shows a password: %v", what, err)
				}
				if took > failFast {
					t.Errorf("%s: failed after %s, want within %s", what, took, failFast)
				}
				t.Logf("%s: failed in %s: %v", what, took.Round(time.Millisecond), err)
			}

			r, err := consumer.NewRouter(consumer.RouterConfig{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := consumer.NewConsumer(consumer.ConsumerConfig{BootstrapServers: k.BootstrapServers, Security: sec,
				GroupID: "sasl-fail-" + itest.Suffix(), Topics: []string{"sasl-fail-" + itest.Suffix()}}, r)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*failFast)
			defer cancel()
			start := time.Now()
			err = c.Run(ctx)
			check("Consumer.Run", err, time.Since(start))

			admin, err := kafkaclient.NewAdminClient(kafkaclient.Config{BootstrapServers: k.BootstrapServers, Security: sec})
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			start = time.Now()
			_, err = admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: "sasl-never-" + itest.Suffix(), NumPartitions: 1}})
			check("AdminClient.CreateTopics", err, time.Since(start))
		})
	}
}
