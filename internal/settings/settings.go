// Package settings holds the connection settings of outboxctl, its tests and
// its demo in one place. Every endpoint is read from an OUTBOXCTL_*
// environment variable (or its OUTBOX_* alias, see Environment) whose default
// points at the native dev stack (make stack-up), so the same binary and
// tests target the native stack, docker-compose.yml (same ports) or a user's
// own cluster.
//
// The package does not read the process environment itself: callers pass a
// lookup function (os.Getenv in the CLI, a map in tests).
package settings

import "time"

// Default endpoints of the native stack (devstack/stack.sh) and of
// docker-compose.yml.
const (
	DefaultBootstrapServers  = "127.0.0.1:19092"
	DefaultConnectURL        = "http://127.0.0.1:18083"
	DefaultSchemaRegistryURL = "http://127.0.0.1:18081/apis/ccompat/v7"
	DefaultPostgresDSN       = "postgres://postgres@127.0.0.1:15432/postgres?sslmode=disable"
	DefaultMariaDBDSN        = "root@tcp(127.0.0.1:13306)/"
	DefaultMySQLDSN          = "root@tcp(127.0.0.1:13307)/"

	// The database endpoints as Kafka Connect (Debezium) sees them. They
	// differ from the DSNs above when Connect runs in a container.
	DefaultConnectPostgresHost = "127.0.0.1"
	DefaultConnectPostgresPort = "15432"
	DefaultConnectMariaDBHost  = "127.0.0.1"
	DefaultConnectMariaDBPort  = "13306"
	DefaultConnectMySQLHost    = "127.0.0.1"
	DefaultConnectMySQLPort    = "13307"
)

// Variable names. The CLI's variables are OUTBOXCTL_* with their old
// OUTBOX_* names as aliases (see Environment in env.go); the Connect-side
// database endpoints are the dev stack's and the tests' own OUTBOX_* names.
const (
	EnvBootstrapServers    = "OUTBOXCTL_BOOTSTRAP_SERVERS"
	EnvConnectURL          = "OUTBOXCTL_CONNECT_URL"
	EnvSchemaRegistryURL   = "OUTBOXCTL_SCHEMA_REGISTRY_URL"
	EnvPostgresDSN         = "OUTBOXCTL_PG_DSN"
	EnvMariaDBDSN          = "OUTBOXCTL_MARIADB_DSN"
	EnvMySQLDSN            = "OUTBOXCTL_MYSQL_DSN"
	EnvConnectPostgresHost = "OUTBOX_CONNECT_PG_HOST"
	EnvConnectPostgresPort = "OUTBOX_CONNECT_PG_PORT"
	EnvConnectMariaDBHost  = "OUTBOX_CONNECT_MARIADB_HOST"
	EnvConnectMariaDBPort  = "OUTBOX_CONNECT_MARIADB_PORT"
	EnvConnectMySQLHost    = "OUTBOX_CONNECT_MYSQL_HOST"
	EnvConnectMySQLPort    = "OUTBOX_CONNECT_MYSQL_PORT"
	// EnvConnectBootstrapServers is Kafka as Kafka Connect sees it (the
	// MySQL/MariaDB schema history): kafka:9092 under docker-compose.yml.
	EnvConnectBootstrapServers = "OUTBOXCTL_CONNECT_BOOTSTRAP_SERVERS"
	// EnvRequestTimeout is the default of outboxctl's --request-timeout, a
	// Go duration (DefaultRequestTimeout when unset). outboxctl parses it
	// itself: a bad value is a usage error of the commands that use it.
	EnvRequestTimeout = "OUTBOXCTL_REQUEST_TIMEOUT"
)

// DefaultRequestTimeout bounds each request to Kafka Connect, the schema
// registry and Kafka unless EnvRequestTimeout or --request-timeout say
// otherwise.
const DefaultRequestTimeout = 30 * time.Second

// Settings are the endpoints outboxctl talks to.
type Settings struct {
	BootstrapServers  string // Kafka bootstrap servers
	ConnectURL        string // Kafka Connect REST API
	SchemaRegistryURL string // Confluent-compatible Schema Registry API
	PostgresDSN       string // PostgreSQL, as seen from this process
	MariaDBDSN        string // MariaDB (go-sql-driver DSN), as seen from this process
	MySQLDSN          string // MySQL (go-sql-driver DSN), as seen from this process

	// ConnectBootstrapServers is Kafka as Kafka Connect sees it, for the
	// schema history of MySQL and MariaDB connectors. Empty when unset: then
	// the spec's kafka.bootstrapServers, else BootstrapServers, apply (the
	// native stack, where both views are the same). See
	// ConnectBootstrap for the value to use.
	ConnectBootstrapServers string

	// Database host and port as seen from Kafka Connect.
	ConnectPostgresHost, ConnectPostgresPort string
	ConnectMariaDBHost, ConnectMariaDBPort   string
	ConnectMySQLHost, ConnectMySQLPort       string
}

// Defaults returns the settings of the native stack.
func Defaults() Settings { return FromEnv(func(string) string { return "" }) }

// FromEnv reads the variables through getenv, each by its canonical name,
// else its aliases (AliasAware), falling back to the native stack's defaults
// for every variable that is unset or empty.
func FromEnv(getenv func(string) string) Settings {
	getenv = AliasAware(getenv)
	get := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	return Settings{
		BootstrapServers:    get(EnvBootstrapServers, DefaultBootstrapServers),
		ConnectURL:          get(EnvConnectURL, DefaultConnectURL),
		SchemaRegistryURL:   get(EnvSchemaRegistryURL, DefaultSchemaRegistryURL),
		PostgresDSN:         get(EnvPostgresDSN, DefaultPostgresDSN),
		MariaDBDSN:          get(EnvMariaDBDSN, DefaultMariaDBDSN),
		MySQLDSN:            get(EnvMySQLDSN, DefaultMySQLDSN),
		ConnectPostgresHost: get(EnvConnectPostgresHost, DefaultConnectPostgresHost),
		ConnectPostgresPort: get(EnvConnectPostgresPort, DefaultConnectPostgresPort),
		ConnectMariaDBHost:  get(EnvConnectMariaDBHost, DefaultConnectMariaDBHost),
		ConnectMariaDBPort:  get(EnvConnectMariaDBPort, DefaultConnectMariaDBPort),
		ConnectMySQLHost:    get(EnvConnectMySQLHost, DefaultConnectMySQLHost),
		ConnectMySQLPort:    get(EnvConnectMySQLPort, DefaultConnectMySQLPort),

		ConnectBootstrapServers: getenv(EnvConnectBootstrapServers),
	}
}

// ConnectBootstrap returns Kafka as Kafka Connect sees it:
// ConnectBootstrapServers when set, else BootstrapServers. Tests that write
// schema.history.internal.kafka.bootstrap.servers use it.
func (s Settings) ConnectBootstrap() string {
	if s.ConnectBootstrapServers != "" {
		return s.ConnectBootstrapServers
	}
	return s.BootstrapServers
}
