package cmd

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/kafkaclient"
)

func TestSecretRef(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(map[string]string{"PW": "from-env"})
	for _, tc := range []struct{ ref, want, err string }{
		{"env:PW", "from-env", ""},
		{"${env:PW}", "from-env", ""},
		{"file:" + file, "from-file", ""},
		{"${file:" + file + "}", "from-file", ""},
		{"env:UNSET", "", "environment variable UNSET is not set"},
		{"file:" + file + ".missing", "", "no such file"},
		{"hunter2", "", "must be a reference, env:NAME or file:PATH, not a literal"},
	} {
		got, err := secretRef(env, tc.ref, "pw")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || ExitCodeOf(err) != ExitUsage {
				t.Errorf("secretRef(%q) = %q, %v; want a usage error containing %q", tc.ref, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("secretRef(%q): the error shows the literal: %v", tc.ref, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("secretRef(%q) = %q, %v; want %q", tc.ref, got, err, tc.want)
		}
	}
}

// TestKafkaConfigPrecedence: flag > environment > context > default, per
// setting, and the password variable beats its file.
func TestKafkaConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "outboxctl")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(`current-context: c
contexts:
  c:
    kafka:
      bootstrap-servers: ctx:9094
      security-protocol: SASL_SSL
      sasl-mechanism: SCRAM-SHA-256
      sasl-username: ctx-user
      sasl-password: env:CTX_PW
      ssl-ca: /ctx-ca.pem
      config: {client.id: ctx, socket.timeout.ms: "1000"}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"XDG_CONFIG_HOME": dir, "CTX_PW": "ctx-secret", "FLAG_PW": "flag-secret"}
	for _, tc := range []struct {
		name  string
		vars  map[string]string
		flags kafkaClientFlags
		boot  string
		want  kafkaclient.Config
	}{
		{"context", nil, kafkaClientFlags{}, "", kafkaclient.Config{BootstrapServers: "ctx:9094",
			Security:   kafkaclient.Security{Protocol: "SASL_SSL", Mechanism: "SCRAM-SHA-256", Username: "ctx-user", Password: "ctx-secret", CALocation: "/ctx-ca.pem"},
			Properties: map[string]string{"client.id": "ctx", "socket.timeout.ms": "1000"}}},
		{"environment over context", map[string]string{"OUTBOX_BOOTSTRAP_SERVERS": "env:9094", "OUTBOX_KAFKA_SASL_USERNAME": "env-user", "OUTBOX_KAFKA_SASL_PASSWORD": "env-secret", "OUTBOX_KAFKA_CONFIG": "client.id=env"},
			kafkaClientFlags{}, "", kafkaclient.Config{BootstrapServers: "env:9094",
				Security:   kafkaclient.Security{Protocol: "SASL_SSL", Mechanism: "SCRAM-SHA-256", Username: "env-user", Password: "env-secret", CALocation: "/ctx-ca.pem"},
				Properties: map[string]string{"client.id": "env", "socket.timeout.ms": "1000"}}},
		{"flags over environment", map[string]string{"OUTBOX_KAFKA_SASL_MECHANISM": "PLAIN", "OUTBOX_KAFKA_SASL_PASSWORD": "env-secret"},
			kafkaClientFlags{kafkaEndpoint: kafkaEndpoint{SASLMechanism: "scram-sha-512", SASLPassword: "env:FLAG_PW"}, ConfigPairs: []string{"client.id=flag"}}, "flag:9094",
			kafkaclient.Config{BootstrapServers: "flag:9094",
				Security:   kafkaclient.Security{Protocol: "SASL_SSL", Mechanism: "SCRAM-SHA-512", Username: "ctx-user", Password: "flag-secret", CALocation: "/ctx-ca.pem"},
				Properties: map[string]string{"client.id": "flag", "socket.timeout.ms": "1000"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := maps.Clone(base)
			maps.Copy(vars, tc.vars)
			got, err := testEnv(vars).kafkaConfig(&tc.flags, tc.boot)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want.String() || got.Security.Password != tc.want.Security.Password {
				t.Errorf("kafkaConfig =\n %s (password %q)\nwant\n %s (password %q)", got, got.Security.Password, tc.want, tc.want.Security.Password)
			}
		})
	}
	// No context, no settings: the native stack, PLAINTEXT.
	got, err := testEnv(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}).kafkaConfig(nil, "")
	if err != nil || got.String() != "bootstrap.servers=127.0.0.1:19092" {
		t.Errorf("default kafkaConfig = %s, %v", got, err)
	}
}
