// Package kafkaclient is the one configuration of every Kafka client of
// outboxctl and its SDK: the consumer, the DLQ producer, the relay's
// producer, the bench and the CLI's admin client. A Config holds the
// bootstrap servers, the connection's security (TLS, SASL/PLAIN,
// SASL/SCRAM) and any further librdkafka properties, and renders the
// librdkafka configuration (ConfigMap).
//
// Secrets (the SASL password, the key password, and properties whose name
// says they hold one) never appear in String, in JSON or in an error.
//
//	cfg := kafkaclient.Config{
//		BootstrapServers: "broker-1:9094,broker-2:9094",
//		Security: kafkaclient.Security{
//			Protocol:   kafkaclient.SASLSSL,
//			Mechanism:  kafkaclient.ScramSHA512,
//			Username:   "orders-service",
//			Password:   os.Getenv("KAFKA_PASSWORD"),
//			CALocation: "/etc/kafka/ca.pem",
//		},
//	}
//	p, err := kafkaclient.NewProducer(cfg, nil)
package kafkaclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/redact"
)

// Mask replaces a secret in String, JSON and errors.
const Mask = redact.Mask

// ErrInvalidConfig is wrapped by every error of Validate.
var ErrInvalidConfig = errors.New("invalid kafka client configuration")

// Protocol is librdkafka's security.protocol.
type Protocol string

// The security protocols.
const (
	Plaintext     Protocol = "PLAINTEXT"
	SSL           Protocol = "SSL"
	SASLPlaintext Protocol = "SASL_PLAINTEXT"
	SASLSSL       Protocol = "SASL_SSL"
)

// Mechanism is a SASL mechanism (sasl.mechanism).
type Mechanism string

// The SASL mechanisms with a username and password. Others (OAUTHBEARER,
// GSSAPI) can be set through Config.Properties.
const (
	Plain       Mechanism = "PLAIN"
	ScramSHA256 Mechanism = "SCRAM-SHA-256"
	ScramSHA512 Mechanism = "SCRAM-SHA-512"
)

// Security is how a client authenticates to the brokers and verifies them.
// The zero value is PLAINTEXT.
type Security struct {
	// Protocol is security.protocol (default PLAINTEXT).
	Protocol Protocol `json:"protocol,omitempty"`
	// Mechanism is sasl.mechanism, required with SASL_SSL and
	// SASL_PLAINTEXT unless Properties sets sasl.mechanism(s).
	Mechanism Mechanism `json:"mechanism,omitempty"`
	// Username and Password are sasl.username and sasl.password.
	Username string `json:"username,omitempty"`
	Password string `json:"-"`
	// CALocation is ssl.ca.location: the PEM CA bundle that verifies the
	// brokers (default: the system's).
	CALocation string `json:"caLocation,omitempty"`
	// CertificateLocation, KeyLocation and KeyPassword are the client
	// certificate for mutual TLS: ssl.certificate.location,
	// ssl.key.location and ssl.key.password.
	CertificateLocation string `json:"certificateLocation,omitempty"`
	KeyLocation         string `json:"keyLocation,omitempty"`
	KeyPassword         string `json:"-"`
}

// Config is a Kafka client's connection.
type Config struct {
	// BootstrapServers is bootstrap.servers (required).
	BootstrapServers string `json:"bootstrapServers"`
	// Security is the connection's security.
	Security Security `json:"security"`
	// Properties are further librdkafka properties (client.id,
	// ssl.endpoint.identification.algorithm, ...). A property that a
	// field of Security also sets is an error; a client's own settings
	// (such as a consumer's group.id) win over them.
	Properties map[string]string `json:"properties,omitempty"`
}

// owned maps the librdkafka properties a Config sets from its fields to a
// description of the field.
var owned = map[string]string{
	"bootstrap.servers":        "BootstrapServers",
	"security.protocol":        "Security.Protocol",
	"sasl.mechanism":           "Security.Mechanism",
	"sasl.mechanisms":          "Security.Mechanism",
	"sasl.username":            "Security.Username",
	"sasl.password":            "Security.Password",
	"ssl.ca.location":          "Security.CALocation",
	"ssl.certificate.location": "Security.CertificateLocation",
	"ssl.key.location":         "Security.KeyLocation",
	"ssl.key.password":         "Security.KeyPassword",
}

// IsSecret reports whether the librdkafka property key holds a secret
// (passwords, JAAS and OAuth settings, PEM keys): its value is masked.
func IsSecret(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "jaas", "token", "key.pem", "oauthbearer.config", "credentials"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

func (s Security) protocol() Protocol {
	if s.Protocol == "" {
		return Plaintext
	}
	return Protocol(strings.ToUpper(string(s.Protocol)))
}

func (p Protocol) sasl() bool { return p == SASLPlaintext || p == SASLSSL }
func (p Protocol) tls() bool  { return p == SSL || p == SASLSSL }

// Validate checks the configuration. Errors wrap ErrInvalidConfig and name
// the field, never a secret's value.
func (c Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.BootstrapServers) == "" {
		errs = append(errs, errors.New("BootstrapServers is required"))
	}
	s := c.Security
	p := s.protocol()
	if !slices.Contains([]Protocol{Plaintext, SSL, SASLPlaintext, SASLSSL}, p) {
		errs = append(errs, fmt.Errorf("security protocol %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", s.Protocol))
	}
	if m := Mechanism(strings.ToUpper(string(s.Mechanism))); m != "" && !slices.Contains([]Mechanism{Plain, ScramSHA256, ScramSHA512}, m) {
		errs = append(errs, fmt.Errorf("SASL mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (others through Properties)", s.Mechanism))
	}
	_, propMech := c.Properties["sasl.mechanism"]
	if _, ok := c.Properties["sasl.mechanisms"]; ok {
		propMech = true
	}
	switch {
	case p.sasl():
		if s.Mechanism == "" && !propMech {
			errs = append(errs, fmt.Errorf("security protocol %s needs a SASL mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", p))
		}
		if s.Mechanism != "" && (s.Username == "" || s.Password == "") {
			errs = append(errs, fmt.Errorf("SASL mechanism %s needs a username and a password", s.Mechanism))
		}
	case s.Mechanism != "" || s.Username != "" || s.Password != "":
		errs = append(errs, fmt.Errorf("SASL mechanism, username or password set, but security protocol is %s (want SASL_SSL or SASL_PLAINTEXT)", p))
	}
	if !p.tls() && (s.CALocation != "" || s.CertificateLocation != "" || s.KeyLocation != "" || s.KeyPassword != "") {
		errs = append(errs, fmt.Errorf("TLS CA, certificate or key set, but security protocol is %s (want SSL or SASL_SSL)", p))
	}
	if (s.CertificateLocation == "") != (s.KeyLocation == "") {
		errs = append(errs, errors.New("a client certificate needs both CertificateLocation and KeyLocation"))
	}
	if s.KeyPassword != "" && s.KeyLocation == "" {
		errs = append(errs, errors.New("KeyPassword without KeyLocation"))
	}
	fieldSet := map[string]bool{
		"bootstrap.servers": c.BootstrapServers != "", "security.protocol": s.Protocol != "",
		"sasl.mechanism": s.Mechanism != "", "sasl.mechanisms": s.Mechanism != "",
		"sasl.username": s.Username != "", "sasl.password": s.Password != "",
		"ssl.ca.location": s.CALocation != "", "ssl.certificate.location": s.CertificateLocation != "",
		"ssl.key.location": s.KeyLocation != "", "ssl.key.password": s.KeyPassword != "",
	}
	for _, k := range slices.Sorted(maps.Keys(c.Properties)) {
		if fieldSet[k] {
			errs = append(errs, fmt.Errorf("property %s is also set by %s: set it once", k, owned[k]))
		}
		if strings.HasPrefix(k, "go.") {
			errs = append(errs, fmt.Errorf("property %s is a Go client setting, not a librdkafka property", k))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	return nil
}

// ConfigMap validates c and renders its librdkafka configuration. The
// client's own settings go over it (kafka.ConfigMap is a map: set them
// after).
func (c Config) ConfigMap() (kafka.ConfigMap, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := kafka.ConfigMap{}
	for k, v := range c.Properties {
		m[k] = v
	}
	for k, v := range c.settings(false) {
		m[k] = v
	}
	return m, nil
}

// settings are the properties c's fields set; masked replaces secrets.
func (c Config) settings(masked bool) map[string]string {
	s := c.Security
	out := map[string]string{}
	put := func(k, v string, secret bool) {
		if v == "" {
			return
		}
		if secret && masked {
			v = Mask
		}
		out[k] = v
	}
	put("bootstrap.servers", c.BootstrapServers, false)
	if s.Protocol != "" {
		put("security.protocol", string(s.protocol()), false)
	}
	put("sasl.mechanism", strings.ToUpper(string(s.Mechanism)), false)
	put("sasl.username", s.Username, false)
	put("sasl.password", s.Password, true)
	put("ssl.ca.location", s.CALocation, false)
	put("ssl.certificate.location", s.CertificateLocation, false)
	put("ssl.key.location", s.KeyLocation, false)
	put("ssl.key.password", s.KeyPassword, true)
	return out
}

// Masked returns the librdkafka properties of c (fields and Properties)
// with every secret replaced by Mask, for display.
func (c Config) Masked() map[string]string {
	out := map[string]string{}
	for k, v := range c.Properties {
		if IsSecret(k) && v != "" {
			v = Mask
		}
		out[k] = v
	}
	maps.Copy(out, c.settings(true))
	return out
}

// String is the masked configuration, "key=value" pairs in key order.
func (c Config) String() string {
	m := c.Masked()
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// MarshalJSON writes c with its secrets masked.
func (c Config) MarshalJSON() ([]byte, error) {
	props := map[string]string{}
	for k, v := range c.Properties {
		if IsSecret(k) && v != "" {
			v = Mask
		}
		props[k] = v
	}
	type plain Config // no MarshalJSON
	return json.Marshal(plain{BootstrapServers: c.BootstrapServers, Security: c.Security, Properties: props})
}

// MarshalJSON writes s with its passwords masked.
func (s Security) MarshalJSON() ([]byte, error) {
	type plain Security
	out := struct {
		plain
		Password    string `json:"password,omitempty"`
		KeyPassword string `json:"keyPassword,omitempty"`
	}{plain: plain(s)}
	if s.Password != "" {
		out.Password = Mask
	}
	if s.KeyPassword != "" {
		out.KeyPassword = Mask
	}
	return json.Marshal(out)
}

// String is s with its passwords masked.
func (s Security) String() string { return Config{Security: s}.String() }

// GoString keeps %#v from printing the passwords.
func (s Security) GoString() string { return "kafkaclient.Security{" + s.String() + "}" }

// GoString keeps %#v from printing the passwords.
func (c Config) GoString() string { return "kafkaclient.Config{" + c.String() + "}" }
