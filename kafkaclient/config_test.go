package kafkaclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

const secret = "s3cr3t-value"

func secured() Config {
	return Config{
		BootstrapServers: "b1:9094,b2:9094",
		Security: Security{
			Protocol: SASLSSL, Mechanism: ScramSHA512, Username: "svc", Password: secret,
			CALocation: "/ca.pem", CertificateLocation: "/c.pem", KeyLocation: "/k.pem", KeyPassword: secret + "-key",
		},
		Properties: map[string]string{"client.id": "orders", "sasl.oauthbearer.client.secret": secret + "-oauth"},
	}
}

func TestConfigMap(t *testing.T) {
	t.Parallel()
	m, err := secured().ConfigMap()
	if err != nil {
		t.Fatal(err)
	}
	want := kafka.ConfigMap{
		"bootstrap.servers": "b1:9094,b2:9094", "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
		"sasl.username": "svc", "sasl.password": secret, "ssl.ca.location": "/ca.pem",
		"ssl.certificate.location": "/c.pem", "ssl.key.location": "/k.pem", "ssl.key.password": secret + "-key",
		"client.id": "orders", "sasl.oauthbearer.client.secret": secret + "-oauth",
	}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Errorf("ConfigMap:\n got %v\nwant %v", m, want)
	}
	plain, err := Config{BootstrapServers: "b:9092"}.ConfigMap()
	if err != nil || fmt.Sprint(plain) != fmt.Sprint(kafka.ConfigMap{"bootstrap.servers": "b:9092"}) {
		t.Errorf("plaintext ConfigMap = %v, %v; want only bootstrap.servers", plain, err)
	}
}

func TestWith(t *testing.T) {
	t.Parallel()
	m, err := secured().With(kafka.ConfigMap{"group.id": "g", "client.id": "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if m["group.id"] != "g" || m["client.id"] != "mine" || m["sasl.password"] != secret {
		t.Errorf("With = %v", m)
	}
	if _, err := secured().With(kafka.ConfigMap{"sasl.username": "other"}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("With(sasl.username) err = %v, want ErrInvalidConfig", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{"plaintext", Config{BootstrapServers: "b"}, ""},
		{"secured", secured(), ""},
		{"lower-case protocol", Config{BootstrapServers: "b", Security: Security{Protocol: "sasl_ssl", Mechanism: "scram-sha-256", Username: "u", Password: "p"}}, ""},
		{"ssl only", Config{BootstrapServers: "b", Security: Security{Protocol: SSL, CALocation: "/ca"}}, ""},
		{"mechanism through properties", Config{BootstrapServers: "b", Security: Security{Protocol: SASLSSL}, Properties: map[string]string{"sasl.mechanism": "OAUTHBEARER"}}, ""},
		{"no bootstrap", Config{}, "BootstrapServers is required"},
		{"bad protocol", Config{BootstrapServers: "b", Security: Security{Protocol: "TLS"}}, `security protocol "TLS"`},
		{"bad mechanism", Config{BootstrapServers: "b", Security: Security{Protocol: SASLSSL, Mechanism: "GSSAPI", Username: "u", Password: "p"}}, `SASL mechanism "GSSAPI"`},
		{"sasl without mechanism", Config{BootstrapServers: "b", Security: Security{Protocol: SASLSSL}}, "needs a SASL mechanism"},
		{"scram without password", Config{BootstrapServers: "b", Security: Security{Protocol: SASLSSL, Mechanism: ScramSHA256, Username: "u"}}, "needs a username and a password"},
		{"sasl on plaintext", Config{BootstrapServers: "b", Security: Security{Username: "u", Password: secret}}, "security protocol is PLAINTEXT"},
		{"ca on sasl_plaintext", Config{BootstrapServers: "b", Security: Security{Protocol: SASLPlaintext, Mechanism: Plain, Username: "u", Password: "p", CALocation: "/ca"}}, "TLS CA, certificate or key set"},
		{"cert without key", Config{BootstrapServers: "b", Security: Security{Protocol: SSL, CertificateLocation: "/c"}}, "needs both"},
		{"property twice", Config{BootstrapServers: "b", Security: Security{Protocol: SSL, CALocation: "/ca"}, Properties: map[string]string{"ssl.ca.location": "/other"}}, "ssl.ca.location is also set by Security.CALocation"},
		{"go property", Config{BootstrapServers: "b", Properties: map[string]string{"go.logs.channel.enable": "true"}}, "Go client setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want ErrInvalidConfig containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error shows the secret: %v", err)
			}
		})
	}
}

func TestMasking(t *testing.T) {
	t.Parallel()
	c := secured()
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"String":          c.String(),
		"%v":              fmt.Sprintf("%v", c),
		"%+v":             fmt.Sprintf("%+v", c),
		"%#v":             fmt.Sprintf("%#v", c),
		"Security %v":     fmt.Sprintf("%v", c.Security),
		"Security %#v":    fmt.Sprintf("%#v", c.Security),
		"pointer %v":      fmt.Sprintf("%v", &c),
		"JSON":            string(js),
		"Masked":          fmt.Sprint(c.Masked()),
		"Security JSON":   mustJSON(t, c.Security),
		"Validate (fail)": fmt.Sprint(Config{Security: c.Security}.Validate()),
	}
	for name, out := range outputs {
		if strings.Contains(out, secret) {
			t.Errorf("%s shows a secret: %s", name, out)
		}
	}
	for _, want := range []string{"sasl.password=********", "ssl.key.password=********", "sasl.oauthbearer.client.secret=********", "sasl.username=svc", "security.protocol=SASL_SSL"} {
		if !strings.Contains(c.String(), want) {
			t.Errorf("String() = %s, want %s in it", c.String(), want)
		}
	}
	if !strings.Contains(string(js), `"password":"********"`) || !strings.Contains(string(js), `"username":"svc"`) {
		t.Errorf("JSON = %s, want a masked password and the username", js)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIsSecret(t *testing.T) {
	t.Parallel()
	for k, want := range map[string]bool{
		"sasl.password": true, "ssl.key.password": true, "sasl.jaas.config": true, "ssl.key.pem": true,
		"sasl.oauthbearer.client.secret": true, "sasl.oauthbearer.config": true,
		"sasl.username": false, "ssl.ca.location": false, "client.id": false, "bootstrap.servers": false,
	} {
		if got := IsSecret(k); got != want {
			t.Errorf("IsSecret(%s) = %v, want %v", k, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	auth := kafka.NewError(kafka.ErrAuthentication, "SASL authentication error: Authentication failed", false)
	tlsErr := kafka.NewError(kafka.ErrSsl, "SSL handshake failed: certificate verify failed", false)
	if err := Classify(fmt.Errorf("x: %w", auth)); !errors.Is(err, ErrAuthentication) || !strings.Contains(err.Error(), "Authentication failed") {
		t.Errorf("Classify(auth) = %v", err)
	}
	if err := Classify(tlsErr); !errors.Is(err, ErrTLS) || !errors.As(err, new(kafka.Error)) {
		t.Errorf("Classify(ssl) = %v", err)
	}
	if err := Classify(kafka.NewError(kafka.ErrTransport, "Connection refused", false)); err != nil {
		t.Errorf("Classify(transport) = %v, want nil", err)
	}
	if err := Classify(errors.New("other")); err != nil {
		t.Errorf("Classify(other) = %v, want nil", err)
	}
}
