package cmd

import (
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/kafkaclient"
)

// kafkaAdmin is the commands' Kafka admin client: a kafkaclient.AdminClient
// (librdkafka's log lines kept for messages instead of going to stderr; a
// failed authentication or TLS handshake ends its calls at once) that
// remembers its bootstrap servers for messages.
type kafkaAdmin struct {
	*kafkaclient.AdminClient
	bootstrap string
}

// newKafkaAdmin creates the admin client of cfg; librdkafka's log lines go
// to the CLI's log (-v).
func newKafkaAdmin(env *Env, cfg kafkaclient.Config) (*kafkaAdmin, error) {
	a, err := kafkaclient.NewAdminClient(cfg)
	if err != nil {
		if errors.Is(err, kafkaclient.ErrInvalidConfig) {
			return nil, UsageError(err)
		}
		return nil, err
	}
	a.SetLogf(env.logf)
	return &kafkaAdmin{AdminClient: a, bootstrap: cfg.BootstrapServers}, nil
}

// openKafkaAdmin resolves a command's Kafka connection from its flags f
// (kafkaConfig; the command has no --bootstrap-servers of its own) and
// creates its admin client (newKafkaAdmin); the caller closes it.
func (env *Env) openKafkaAdmin(f *kafkaClientFlags) (*kafkaAdmin, kafkaclient.Config, error) {
	kc, err := env.kafkaConfig(f, "")
	if err != nil {
		return nil, kc, err
	}
	a, err := newKafkaAdmin(env, kc)
	return a, kc, err
}

// wrap adds the bootstrap servers and, unless the error names a security
// failure already, librdkafka's last log line to a Kafka error.
func (a *kafkaAdmin) wrap(err error) error {
	var se *kafkaclient.SecurityError
	if l := a.LastLog(); l != "" && !errors.As(err, &se) {
		return fmt.Errorf("%w (bootstrap servers %s; %s)", err, a.bootstrap, l)
	}
	return fmt.Errorf("%w (bootstrap servers %s)", err, a.bootstrap)
}
