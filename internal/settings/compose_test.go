package settings_test

import (
	"bufio"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Ports       []string          `yaml:"ports"`
		Environment map[string]string `yaml:"environment"`
		Healthcheck *struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

// TestDockerCompose keeps docker-compose.yml in step with the native stack:
// every service exists, publishes on 127.0.0.1 the port the OUTBOX_*
// defaults point at, has a health check, and carries the settings Debezium
// needs (logical WAL, ROW binlog, registry deletes and BACKWARD).
func TestDockerCompose(t *testing.T) {
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(b, &cf); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	d := settings.Defaults()
	port := func(raw string) string {
		if strings.Contains(raw, "://") {
			u, err := url.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			return u.Port()
		}
		return raw[strings.LastIndex(raw, ":")+1:]
	}
	mysqlPort := func(dsn string) string {
		return port(strings.TrimSuffix(dsn[strings.Index(dsn, "tcp(")+4:], ")/"))
	}
	want := map[string]string{
		"kafka":    port(d.BootstrapServers),
		"connect":  port(d.ConnectURL),
		"registry": port(d.SchemaRegistryURL),
		"postgres": port(d.PostgresDSN),
		"mariadb":  mysqlPort(d.MariaDBDSN),
		"mysql":    mysqlPort(d.MySQLDSN),
	}
	for name, hostPort := range want {
		svc, ok := cf.Services[name]
		if !ok {
			t.Errorf("service %s missing", name)
			continue
		}
		if svc.Image == "" {
			t.Errorf("service %s has no image", name)
		}
		found := false
		for _, p := range svc.Ports {
			if strings.HasPrefix(p, "127.0.0.1:"+hostPort+":") {
				found = true
			}
		}
		if !found {
			t.Errorf("service %s: ports %v do not publish 127.0.0.1:%s", name, svc.Ports, hostPort)
		}
		if svc.Healthcheck == nil || len(svc.Healthcheck.Test) == 0 {
			t.Errorf("service %s has no healthcheck", name)
		}
	}
	cmd := func(name string) string { return strings.Join(cf.Services[name].Command, " ") }
	for name, needles := range map[string][]string{
		"postgres": {"wal_level=logical"},
		"mariadb":  {"--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id="},
		"mysql":    {"--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id=", "--gtid-mode=ON"},
	} {
		for _, n := range needles {
			if !strings.Contains(cmd(name), n) {
				t.Errorf("service %s: command %q lacks %s", name, cmd(name), n)
			}
		}
	}
	reg := cf.Services["registry"].Environment
	if reg["APICURIO_RULES_GLOBAL_COMPATIBILITY"] != "BACKWARD" || reg["APICURIO_REST_DELETION_ARTIFACT_ENABLED"] != "true" {
		t.Errorf("registry must enable deletes and a global BACKWARD rule: %v", reg)
	}
	if !strings.Contains(d.SchemaRegistryURL, "/apis/ccompat/v7") {
		t.Errorf("default registry URL %s is not the ccompat API", d.SchemaRegistryURL)
	}
}

// TestComposeEnv checks that devstack/compose.env names only real variables.
func TestComposeEnv(t *testing.T) {
	f, err := os.Open("../../devstack/compose.env")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]bool{
		settings.EnvConnectBootstrapServers: true,
		settings.EnvConnectPostgresHost:     true, settings.EnvConnectPostgresPort: true,
		settings.EnvConnectMariaDBHost: true, settings.EnvConnectMariaDBPort: true,
		settings.EnvConnectMySQLHost: true, settings.EnvConnectMySQLPort: true,
		"OUTBOX_MYSQL_REQUIRED": true,
	}
	sc := bufio.NewScanner(f)
	vals := map[string]string{}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if _, isVar := settings.LookupVar(k); !ok || !known[k] && !isVar {
			t.Errorf("compose.env: unknown line %q", line)
		}
		vals[k] = v
	}
	if len(vals) == 0 {
		t.Error("compose.env sets nothing")
	}

	// Kafka as Connect sees it must be the broker's listener for the other
	// containers (KAFKA_ADVERTISED_LISTENERS of the compose kafka service),
	// not 127.0.0.1, which inside the Connect container is Connect itself.
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	connectKafka := cf.Services["connect"].Environment["BOOTSTRAP_SERVERS"]
	got, _ := settings.LookupEnv(func(k string) string { return vals[k] }, settings.EnvConnectBootstrapServers)
	if got == "" || got != connectKafka || strings.HasPrefix(got, "127.") || strings.HasPrefix(got, "localhost") {
		t.Errorf("compose.env: %s=%q, want the Connect worker's own BOOTSTRAP_SERVERS %q", settings.EnvConnectBootstrapServers, got, connectKafka)
	}
	if adv := cf.Services["kafka"].Environment["KAFKA_ADVERTISED_LISTENERS"]; !strings.Contains(adv, "//"+connectKafka) {
		t.Errorf("kafka advertises %q, which lacks %s", adv, connectKafka)
	}
	s := settings.FromEnv(func(k string) string { return vals[k] })
	if s.ConnectBootstrap() != connectKafka {
		t.Errorf("ConnectBootstrap() under compose = %q", s.ConnectBootstrap())
	}
	if d := settings.Defaults(); d.ConnectBootstrap() != settings.DefaultBootstrapServers || d.ConnectBootstrapServers != "" {
		t.Errorf("native stack: ConnectBootstrap() = %q", d.ConnectBootstrap())
	}
}

// TestComposeKafkaVersion keeps the compose Kafka image at the version of
// the native stack (devstack/pom.xml's kafka.version).
func TestComposeKafkaVersion(t *testing.T) {
	b, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(b, &cf); err != nil {
		t.Fatal(err)
	}
	stack, err := os.ReadFile("../../devstack/pom.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<kafka.version>([0-9.]+)</kafka.version>`).FindSubmatch(stack)
	if m == nil {
		t.Fatal("devstack/pom.xml: no kafka.version")
	}
	if img, want := cf.Services["kafka"].Image, "apache/kafka:"+string(m[1]); img != want {
		t.Errorf("compose kafka image %s, native stack runs %s", img, want)
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{settings.EnvConnectURL: "http://connect:8083", settings.EnvPostgresDSN: ""}
	s := settings.FromEnv(func(k string) string { return env[k] })
	if s.ConnectURL != "http://connect:8083" {
		t.Errorf("ConnectURL = %s", s.ConnectURL)
	}
	if s.PostgresDSN != settings.DefaultPostgresDSN {
		t.Errorf("empty OUTBOXCTL_PG_DSN must fall back to the default, got %s", s.PostgresDSN)
	}
	if s.BootstrapServers != settings.DefaultBootstrapServers {
		t.Errorf("BootstrapServers = %s", s.BootstrapServers)
	}
}

// TestDemoUnderCompose: with devstack/compose.env exported, the demo runs on
// a spec whose databases are the compose services, and the generated MariaDB
// connector's schema history reaches Kafka by the compose service name.
func TestDemoUnderCompose(t *testing.T) {
	vals := composeEnv(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run scripts/demo.sh")
	}
	c := exec.Command("bash", "scripts/demo.sh", "--print-spec")
	c.Dir = "../.."
	c.Env = os.Environ()
	for k, v := range vals {
		c.Env = append(c.Env, k+"="+v)
	}
	out, err := c.Output()
	if err != nil {
		t.Fatalf("demo.sh --print-spec: %v", err)
	}
	sp, err := spec.Parse(spec.Source{Name: "../../examples/demo/outbox.yaml", Data: out})
	if err != nil {
		t.Fatal(err)
	}
	st := settings.FromEnv(func(k string) string { return vals[k] })
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: st.BootstrapServers, ConnectBootstrapServers: st.ConnectBootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"io.debezium.connector.postgresql.PostgresConnector": {st.ConnectPostgresHost, st.ConnectPostgresPort},
		"io.debezium.connector.mariadb.MariaDbConnector":     {st.ConnectMariaDBHost, st.ConnectMariaDBPort},
	}
	for _, c := range cs {
		w, ok := want[c.Config["connector.class"]]
		if !ok {
			t.Fatalf("unexpected connector %s", c.Name)
		}
		if c.Config["database.hostname"] != w[0] || c.Config["database.port"] != w[1] {
			t.Errorf("%s: database %s:%s, want %s:%s", c.Name, c.Config["database.hostname"], c.Config["database.port"], w[0], w[1])
		}
		if bs, ok := c.Config["schema.history.internal.kafka.bootstrap.servers"]; ok && bs != "kafka:9092" {
			t.Errorf("%s: schema history reaches Kafka at %s, want kafka:9092 under compose", c.Name, bs)
		}
	}
	if cs[1].Config["schema.history.internal.kafka.bootstrap.servers"] != "kafka:9092" {
		t.Errorf("the MariaDB connector has no compose schema history servers: %v", cs[1].Config)
	}
}

// composeEnv reads devstack/compose.env.
func composeEnv(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../devstack/compose.env")
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			vals[k] = v
		}
	}
	return vals
}
