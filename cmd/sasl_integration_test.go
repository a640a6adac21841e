//go:build integration

package cmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/kafkaclient"
)

// TestCLIKafkaSASLSSL runs `outboxctl provision --topics` against the
// stack's SASL_SSL listener with each mechanism, configured by flags, by
// OUTBOX_KAFKA_* variables and by a context (set with `context set`); the
// topic is created, then found by `provision --dry-run --live`. Wrong
// credentials and an untrusted CA exit 1 within seconds, naming the cause,
// and the password is in no output.
func TestCLIKafkaSASLSSL(t *testing.T) {
	k := itest.RequireSASL(t)
	sfx := itest.Suffix()
	name := "sasl-" + sfx
	topic := "__debezium-heartbeat." + name
	dir := t.TempDir()
	specFile := filepath.Join(dir, "outbox.yaml")
	if err := os.WriteFile(specFile, []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: `+name+`
    database:
      kind: postgres
      connection: {host: pg, user: dbz, password: "${env:IT_PG_PASSWORD}", dbname: orders}
    payloadFormat: json
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := kafkaclient.Config{BootstrapServers: k.BootstrapServers, Security: kafkaclient.Security{
		Protocol: kafkaclient.SASLSSL, Mechanism: kafkaclient.ScramSHA512, Username: k.Username, Password: k.Password, CALocation: k.CAFile}}
	t.Cleanup(func() {
		admin, err := kafkaclient.NewAdminClient(cfg)
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.DeleteTopics(ctx, []string{topic}); err != nil {
			t.Errorf("delete %s: %v", topic, err)
		}
	})
	pwFile := filepath.Join(dir, "kafka-password")
	if err := os.WriteFile(pwFile, []byte(k.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{
		"IT_PG_PASSWORD": "unused", "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "OUTBOXCTL_CONTEXT": "",
		"OUTBOX_BOOTSTRAP_SERVERS": k.BootstrapServers, "KAFKA_PW": k.Password, "WRONG_PW": "wrong-" + sfx,
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	run := func(t *testing.T, vars map[string]string, want int, args ...string) (string, string, time.Duration) {
		t.Helper()
		start := time.Now()
		code, out, errOut := runCLI(t, vars, args...)
		took := time.Since(start)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		if strings.Contains(out+errOut, k.Password) {
			t.Errorf("outboxctl %s: the password is in the output:\n%s\n%s", strings.Join(args, " "), out, errOut)
		}
		return out, errOut, took
	}
	flags := func(mech string) []string {
		return []string{"--kafka-security-protocol", "SASL_SSL", "--kafka-sasl-mechanism", mech, "--kafka-sasl-username", k.Username,
			"--kafka-sasl-password", "env:KAFKA_PW", "--kafka-ssl-ca", k.CAFile}
	}
	provision := []string{"provision", "-f", specFile, "--topics"}

	t.Run("flags", func(t *testing.T) {
		out, _, _ := run(t, base, 0, append(provision, flags("SCRAM-SHA-512")...)...)
		if !strings.Contains(out, "+ topic "+topic) {
			t.Errorf("provision did not create %s:\n%s", topic, out)
		}
		for _, mech := range k.Mechanisms {
			out, _, _ := run(t, base, 0, append(append(provision, "--dry-run", "--live"), flags(mech)...)...)
			if !strings.Contains(out, "= topic "+topic) {
				t.Errorf("%s: provision --dry-run --live does not see %s:\n%s", mech, topic, out)
			}
		}
	})
	t.Run("env", func(t *testing.T) {
		vars := with(map[string]string{
			"OUTBOX_KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "OUTBOX_KAFKA_SASL_MECHANISM": "SCRAM-SHA-256",
			"OUTBOX_KAFKA_SASL_USERNAME": k.Username, "OUTBOX_KAFKA_SASL_PASSWORD_FILE": pwFile, "OUTBOX_KAFKA_SSL_CA": k.CAFile,
			"OUTBOX_KAFKA_CONFIG": "client.id=outboxctl-it-" + sfx,
		})
		out, _, _ := run(t, vars, 0, append(provision, "--dry-run", "--live")...)
		if !strings.Contains(out, "= topic "+topic) {
			t.Errorf("provision --dry-run --live does not see %s:\n%s", topic, out)
		}
	})
	t.Run("context", func(t *testing.T) {
		vars := with(map[string]string{"OUTBOX_BOOTSTRAP_SERVERS": ""})
		run(t, vars, 0, "context", "set", "secured", "--kafka-bootstrap-servers", k.BootstrapServers, "--kafka-security-protocol", "SASL_SSL",
			"--kafka-sasl-mechanism", "PLAIN", "--kafka-sasl-username", k.Username, "--kafka-sasl-password", "file:"+pwFile, "--kafka-ssl-ca", k.CAFile)
		show, _, _ := run(t, vars, 0, "context", "show")
		if !strings.Contains(show, "sasl.password=********") || !strings.Contains(show, "bootstrap.servers="+k.BootstrapServers) {
			t.Errorf("context show:\n%s", show)
		}
		out, _, _ := run(t, vars, 0, append(provision, "--dry-run", "--live")...)
		if !strings.Contains(out, "= topic "+topic) {
			t.Errorf("provision --dry-run --live does not see %s:\n%s", topic, out)
		}
		// A flag beats the context: the wrong password fails.
		_, errOut, _ := run(t, vars, 1, append(provision, "--dry-run", "--live", "--kafka-sasl-password", "env:WRONG_PW")...)
		if !strings.Contains(errOut, "kafka authentication failed") {
			t.Errorf("a wrong --kafka-sasl-password over the context: %s", errOut)
		}
	})
	for _, tc := range []struct {
		name  string
		args  []string
		cause []string
	}{
		{"wrong password", []string{"--kafka-sasl-password", "env:WRONG_PW", "--kafka-ssl-ca", k.CAFile},
			[]string{"kafka authentication failed", "invalid credentials with SASL mechanism SCRAM-SHA-512"}},
		{"untrusted CA", []string{"--kafka-sasl-password", "env:KAFKA_PW", "--kafka-ssl-ca", itest.UntrustedCA(t)},
			[]string{"kafka TLS handshake failed", "certificate verify failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(provision, "--kafka-security-protocol", "SASL_SSL", "--kafka-sasl-mechanism", "SCRAM-SHA-512",
				"--kafka-sasl-username", k.Username), tc.args...)
			_, errOut, took := run(t, base, 1, args...)
			for _, c := range tc.cause {
				if !strings.Contains(errOut, c) {
					t.Errorf("stderr does not name the cause %q:\n%s", c, errOut)
				}
			}
			if strings.Contains(errOut, "wrong-"+sfx) {
				t.Errorf("stderr shows the wrong password: %s", errOut)
			}
			if took > 15*time.Second {
				t.Errorf("failed after %s, want within 15s (the request timeout is 30s)", took)
			}
			t.Logf("exit 1 in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(errOut))
		})
	}
}
