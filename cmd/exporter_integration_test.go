//go:build integration

package cmd_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/cmd"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
)

// TestCLIExporterGroups runs `outboxctl exporter --group` against the real
// Kafka: the group the spec declares under an outbox's consumers is
// exported from the first scrape without any --group and carries that
// outbox's label, its lag is exported in seconds (the record at its
// committed offset was written an hour ago), and a misspelt --group has
// NaN maxima and its Kafka target down with reason missing.
func TestCLIExporterGroups(t *testing.T) {
	s := itest.Require(t, itest.Kafka)
	sfx := strings.ToLower(itest.Suffix())
	topic, group, typo := "cliexp."+sfx, "cliexp-"+sfx, "cliexp-typo-"+sfx
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() {
		itest.DeleteConsumerGroup(t, s.BootstrapServers, group)
		itest.DeleteTopics(t, s.BootstrapServers, topic)
	})
	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dr := make(chan kafka.Event, 2)
	for i := 0; i < 2; i++ {
		if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte("v"), Timestamp: time.Now().Add(-time.Hour)}, dr); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 2; i++ {
		select {
		case ev := <-dr:
			if m, ok := ev.(*kafka.Message); !ok || m.TopicPartition.Error != nil {
				t.Fatalf("delivery: %v", ev)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("records not delivered in 30s")
		}
	}
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers, "group.id": group})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitOffsets([]kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: 0}}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	if err := os.WriteFile(specFile, []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 1, user: postgres, dbname: shop}
    payloadFormat: json
    connector: {name: orders-outbox}
    consumers:
      - {group: `+group+`, dlqTopic: `+topic+`.dlq}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "OUTBOXCTL_CONTEXT" || k == "XDG_CONFIG_HOME" {
			return ""
		}
		return os.Getenv(k)
	}
	st := settings.FromEnv(getenv)
	st.BootstrapServers = s.BootstrapServers
	env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Settings: st, Getenv: getenv}
	body := scrapeExporter(t, env, &errOut, addr, "-f", specFile, "--no-connect", "--listen", addr, "--scrape-timeout", "10s",
		"--group", typo) // the declared group without --group: from the spec's consumers:
	for _, want := range []string{
		`outbox_consumer_group_lag{group="` + group + `",outbox="orders",partition="0",topic="` + topic + `"} 2`,
		`outbox_consumer_group_max_lag{group="` + group + `",outbox="orders"} 2`,
		`outbox_up{outbox="orders",target="kafka"} 1`,
		`outbox_consumer_group_max_lag{group="` + typo + `",outbox=""} NaN`,
		`outbox_consumer_group_max_lag_seconds{group="` + typo + `",outbox=""} NaN`,
		`outbox_target_error{outbox="",reason="missing",target="kafka"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s\nstderr: %s", want, body, errOut.String())
		}
	}
	m := regexp.MustCompile(`outbox_consumer_group_max_lag_seconds\{group="` + regexp.QuoteMeta(group) + `",outbox="orders"\} (\S+)`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no lag in seconds for %s:\n%s", group, body)
	}
	if v, err := strconv.ParseFloat(m[1], 64); err != nil || v < 3500 || v > 3700 {
		t.Errorf("lag seconds of %s = %s, want about an hour", group, m[1])
	}
}

// TestCLIExporterDBAddress runs `outboxctl exporter` against the real
// PostgreSQL where the spec's host and port are what Kafka Connect sees (a
// name and port the exporter cannot reach): without --db-address the
// database target is unreachable; with --db-address NAME=HOST:PORT, and
// with --dsn NAME=DSN, it is reached (the outbox table is not there:
// reason missing, not unreachable), and one outbox's failure does not stop
// the others.
func TestCLIExporterDBAddress(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbname := "cliexpaddr_" + sfx
	itest.PostgresDatabase(t, s.PostgresDSN, dbname)
	u, err := url.Parse(s.PostgresDSN)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	dsn := settings.PostgresDSNWithDatabase(s.PostgresDSN, dbname)
	password := ""
	if pw != "" {
		password = `, password: "${env:CLIEXP_PW}"`
	}
	outbox := func(name string) string {
		return `  - name: ` + name + `
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: 1, user: ` + u.User.Username() + password + `, dbname: ` + dbname + `}
    payloadFormat: json
    connector: {name: ` + name + `-outbox}
`
	}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	if err := os.WriteFile(specFile, []byte("apiVersion: outboxctl.dev/v1alpha1\noutboxes:\n"+outbox("direct")+outbox("viaaddr")+outbox("viadsn")), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var out, errOut syncBuffer
	getenv := func(k string) string {
		switch k {
		case "OUTBOXCTL_CONTEXT", "XDG_CONFIG_HOME":
			return ""
		case "CLIEXP_PW":
			return pw
		case "CLIEXP_DSN":
			return dsn
		}
		return os.Getenv(k)
	}
	env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Settings: settings.FromEnv(getenv), Getenv: getenv}
	body := scrapeExporter(t, env, &errOut, addr, "-f", specFile, "--no-connect", "--listen", addr, "--scrape-timeout", "10s",
		"--db-address", "viaaddr="+u.Host, "--dsn", "viadsn=env:CLIEXP_DSN")
	for _, want := range []string{
		`outbox_target_error{outbox="direct",reason="unreachable",target="database"} 1`,
		`outbox_target_error{outbox="viaaddr",reason="missing",target="database"} 1`,
		`outbox_target_error{outbox="viaaddr",reason="unreachable",target="database"} 0`,
		`outbox_target_error{outbox="viadsn",reason="missing",target="database"} 1`,
		`outbox_target_error{outbox="viadsn",reason="unreachable",target="database"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s\nstderr: %s", want, body, errOut.String())
		}
	}
	if strings.Contains(body+errOut.String(), pw) && pw != "" {
		t.Errorf("the database password is in the output")
	}
}

// scrapeExporter runs `outboxctl exporter args...` (listening on addr)
// until the test ends and returns its first /metrics page.
func scrapeExporter(t *testing.T, env *cmd.Env, errOut *syncBuffer, addr string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- cmd.Run(ctx, env, append([]string{"exporter"}, args...)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("exporter does not stop on cancel")
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("exporter does not serve: %v\nstderr: %s", err, errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
