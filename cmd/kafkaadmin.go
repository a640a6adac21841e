package cmd

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// kafkaAdmin is a Kafka admin client for bootstrap whose librdkafka log
// lines ("%3|…|FAIL|rdkafka#producer-1| … Connection refused") go to a
// channel instead of stderr: the command reports errors itself, once.
// lastLog returns the last warning or error librdkafka logged, for messages.
type kafkaAdmin struct {
	*kafka.AdminClient
	p    *kafka.Producer
	logs chan kafka.LogEvent

	mu   sync.Mutex
	last string
}

// thrdPrefix is librdkafka's "[thrd:host:port/bootstrap]: " message prefix.
var thrdPrefix = regexp.MustCompile(`^\[thrd:[^\]]*\]: `)

func newKafkaAdmin(bootstrap string) (*kafkaAdmin, error) {
	a := &kafkaAdmin{logs: make(chan kafka.LogEvent, 64)}
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers":      bootstrap,
		"go.logs.channel.enable": true,
		"go.logs.channel":        a.logs,
	})
	if err != nil {
		return nil, fmt.Errorf("kafka admin: %w", err)
	}
	a.p = p
	if a.AdminClient, err = kafka.NewAdminClientFromProducer(p); err != nil {
		p.Close()
		return nil, fmt.Errorf("kafka admin: %w", err)
	}
	go func() { // ends with the process: the library never closes the channel
		for ev := range a.logs {
			if ev.Level <= 4 { // syslog levels: 4 warning, 3 error
				a.mu.Lock()
				a.last = thrdPrefix.ReplaceAllString(ev.Message, "")
				a.mu.Unlock()
			}
		}
	}()
	return a, nil
}

// lastLog is the last warning or error librdkafka logged ("" if none).
func (a *kafkaAdmin) lastLog() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// wrap adds the broker's last log line to a Kafka error.
func (a *kafkaAdmin) wrap(err error, bootstrap string) error {
	if l := a.lastLog(); l != "" {
		return fmt.Errorf("%w (bootstrap servers %s; %s)", err, bootstrap, l)
	}
	return fmt.Errorf("%w (bootstrap servers %s)", err, bootstrap)
}

// Close closes the admin client and its producer.
func (a *kafkaAdmin) Close() {
	a.AdminClient.Close()
	a.p.Close()
}
