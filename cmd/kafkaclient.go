package cmd

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// kafkaEndpoint is a Kafka connection: the context file's kafka: block and
// the per-command flags. Passwords are env:NAME or file:PATH references.
type kafkaEndpoint struct {
	BootstrapServers string            `yaml:"bootstrap-servers,omitempty"`
	SecurityProtocol string            `yaml:"security-protocol,omitempty"`
	SASLMechanism    string            `yaml:"sasl-mechanism,omitempty"`
	SASLUsername     string            `yaml:"sasl-username,omitempty"`
	SASLPassword     string            `yaml:"sasl-password,omitempty"` // env:NAME or file:PATH
	SSLCA            string            `yaml:"ssl-ca,omitempty"`
	SSLCert          string            `yaml:"ssl-cert,omitempty"`
	SSLKey           string            `yaml:"ssl-key,omitempty"`
	SSLKeyPassword   string            `yaml:"ssl-key-password,omitempty"` // env:NAME or file:PATH
	Config           map[string]string `yaml:"config,omitempty"`
}

// kafkaClientFlags are the Kafka security flags of the commands that
// connect to Kafka.
type kafkaClientFlags struct {
	kafkaEndpoint
	ConfigPairs []string
}

func addKafkaClientFlags(fs *pflag.FlagSet, f *kafkaClientFlags) {
	fs.StringVar(&f.SecurityProtocol, "kafka-security-protocol", "", "Kafka security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (default $"+settings.EnvKafkaSecurityProtocol+", the context, or PLAINTEXT)")
	fs.StringVar(&f.SASLMechanism, "kafka-sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (default $"+settings.EnvKafkaSASLMechanism+")")
	fs.StringVar(&f.SASLUsername, "kafka-sasl-username", "", "SASL username (default $"+settings.EnvKafkaSASLUsername+")")
	fs.StringVar(&f.SASLPassword, "kafka-sasl-password", "", "SASL password as a reference, env:NAME or file:PATH (default $"+settings.EnvKafkaSASLPassword+", which holds the password, or $"+settings.EnvKafkaSASLPasswordFile+")")
	fs.StringVar(&f.SSLCA, "kafka-ssl-ca", "", "PEM CA bundle that verifies the brokers (ssl.ca.location; default $"+settings.EnvKafkaSSLCA+")")
	fs.StringVar(&f.SSLCert, "kafka-ssl-cert", "", "PEM client certificate for mutual TLS (default $"+settings.EnvKafkaSSLCert+")")
	fs.StringVar(&f.SSLKey, "kafka-ssl-key", "", "PEM client key for mutual TLS (default $"+settings.EnvKafkaSSLKey+")")
	fs.StringVar(&f.SSLKeyPassword, "kafka-ssl-key-password", "", "client key password as a reference, env:NAME or file:PATH (default $"+settings.EnvKafkaSSLKeyPassword+")")
	fs.StringArrayVar(&f.ConfigPairs, "kafka-config", nil, "further librdkafka property KEY=VALUE (repeatable; default $"+settings.EnvKafkaConfig+", KEY=VALUE,KEY=VALUE)")
}

// secretRef resolves a reference (settings.ResolveRef): env:NAME,
// ${env:NAME}, file:PATH or ${file:PATH}. A literal is a usage error:
// secrets never sit in a flag or in the context file.
func secretRef(env *Env, v, what string) (string, error) {
	s, err := settings.ResolveRef(env.Getenv, v, what)
	return s, secretErr(err)
}

// resolveSecret resolves a secret by the one precedence of secrets
// (settings.ResolveSecret); an unresolvable one is a usage error.
func resolveSecret(env *Env, s settings.Secret) (string, error) {
	v, err := settings.ResolveSecret(env.Getenv, s)
	return v, secretErr(err)
}

func secretErr(err error) error {
	if err != nil {
		return UsageError(err)
	}
	return nil
}

// isSecretRef reports whether v is a secret reference (settings.IsRef).
func isSecretRef(v string) bool { return settings.IsRef(v) }

func parsePairs(pairs []string, what string) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if k = strings.TrimSpace(k); !ok || k == "" {
			return nil, UsageError(fmt.Errorf("%s %q: want KEY=VALUE", what, p))
		}
		m[k] = v
	}
	return m, nil
}

// kafkaConfig resolves a command's Kafka connection: flags > environment >
// context > the native stack's default. bootstrapFlag is the command's
// --bootstrap-servers ("" if it has none or it is unset).
func (env *Env) kafkaConfig(f *kafkaClientFlags, bootstrapFlag string) (kafkaclient.Config, error) {
	var ep kafkaEndpoint
	if f == nil {
		f = &kafkaClientFlags{}
	}
	ctx, err := env.currentContext()
	if err != nil {
		return kafkaclient.Config{}, err
	}
	ep = ctx.Kafka
	ep.BootstrapServers = env.resolve(settings.Value{Flag: bootstrapFlag, Env: settings.EnvBootstrapServers, Context: ep.BootstrapServers,
		Default: cmp.Or(env.Settings.BootstrapServers, settings.DefaultBootstrapServers)})
	ep.SecurityProtocol = env.resolve(settings.Value{Flag: f.SecurityProtocol, Env: settings.EnvKafkaSecurityProtocol, Context: ep.SecurityProtocol})
	ep.SASLMechanism = env.resolve(settings.Value{Flag: f.SASLMechanism, Env: settings.EnvKafkaSASLMechanism, Context: ep.SASLMechanism})
	ep.SASLUsername = env.resolve(settings.Value{Flag: f.SASLUsername, Env: settings.EnvKafkaSASLUsername, Context: ep.SASLUsername})
	ep.SSLCA = env.resolve(settings.Value{Flag: f.SSLCA, Env: settings.EnvKafkaSSLCA, Context: ep.SSLCA})
	ep.SSLCert = env.resolve(settings.Value{Flag: f.SSLCert, Env: settings.EnvKafkaSSLCert, Context: ep.SSLCert})
	ep.SSLKey = env.resolve(settings.Value{Flag: f.SSLKey, Env: settings.EnvKafkaSSLKey, Context: ep.SSLKey})
	cfg := kafkaclient.Config{
		BootstrapServers: ep.BootstrapServers,
		Security: kafkaclient.Security{
			Protocol: kafkaclient.Protocol(strings.ToUpper(ep.SecurityProtocol)), Mechanism: kafkaclient.Mechanism(strings.ToUpper(ep.SASLMechanism)),
			Username: ep.SASLUsername, CALocation: ep.SSLCA, CertificateLocation: ep.SSLCert, KeyLocation: ep.SSLKey,
		},
	}
	if cfg.Security.Password, err = resolveSecret(env, settings.Secret{
		What: "kafka sasl-password", FlagName: "--kafka-sasl-password", FlagRef: f.SASLPassword,
		Env: settings.EnvKafkaSASLPassword, EnvFile: settings.EnvKafkaSASLPasswordFile, ContextRef: ep.SASLPassword,
	}); err != nil {
		return cfg, err
	}
	if cfg.Security.KeyPassword, err = resolveSecret(env, settings.Secret{
		What: "kafka ssl-key-password", FlagName: "--kafka-ssl-key-password", FlagRef: f.SSLKeyPassword,
		Env: settings.EnvKafkaSSLKeyPassword, ContextRef: ep.SSLKeyPassword,
	}); err != nil {
		return cfg, err
	}
	props := maps.Clone(ep.Config)
	if props == nil {
		props = map[string]string{}
	}
	if v, name := env.lookupEnv(settings.EnvKafkaConfig); v != "" {
		m, err := parsePairs(strings.Split(v, ","), "$"+name)
		if err != nil {
			return cfg, err
		}
		maps.Copy(props, m)
	}
	m, err := parsePairs(f.ConfigPairs, "--kafka-config")
	if err != nil {
		return cfg, err
	}
	maps.Copy(props, m)
	if len(props) > 0 {
		cfg.Properties = props
	}
	if err := cfg.Validate(); err != nil {
		return cfg, UsageError(err)
	}
	return cfg, nil
}

// maskedKafka is cfg for display: every property, secrets masked, in key
// order.
func maskedKafka(cfg kafkaclient.Config) []string {
	m := cfg.Masked()
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
