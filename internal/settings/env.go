package settings

// The environment of outboxctl: every variable the CLI reads has one
// canonical OUTBOXCTL_* name and may have older names (the OUTBOX_* names of
// earlier releases, still exported by the Makefile, the dev stack and CI)
// that keep working as aliases. Precedence for each setting: the flag > the
// canonical variable > an alias (in table order) > the context file > the
// default. `outboxctl help environment` prints Environment.

// Canonical names of the variables (see Environment for their aliases).
const (
	EnvConfig  = "OUTBOXCTL_CONFIG"
	EnvContext = "OUTBOXCTL_CONTEXT"

	EnvConnectUser         = "OUTBOXCTL_CONNECT_USER"
	EnvConnectPassword     = "OUTBOXCTL_CONNECT_PASSWORD"
	EnvConnectPasswordFile = "OUTBOXCTL_CONNECT_PASSWORD_FILE"
	EnvConnectToken        = "OUTBOXCTL_CONNECT_TOKEN"

	EnvSchemaRegistryUser         = "OUTBOXCTL_SCHEMA_REGISTRY_USER"
	EnvSchemaRegistryPassword     = "OUTBOXCTL_SCHEMA_REGISTRY_PASSWORD"
	EnvSchemaRegistryPasswordFile = "OUTBOXCTL_SCHEMA_REGISTRY_PASSWORD_FILE"
	EnvSchemaRegistryToken        = "OUTBOXCTL_SCHEMA_REGISTRY_TOKEN"

	EnvKafkaSecurityProtocol = "OUTBOXCTL_KAFKA_SECURITY_PROTOCOL"
	EnvKafkaSASLMechanism    = "OUTBOXCTL_KAFKA_SASL_MECHANISM"
	EnvKafkaSASLUsername     = "OUTBOXCTL_KAFKA_SASL_USERNAME"
	EnvKafkaSASLPassword     = "OUTBOXCTL_KAFKA_SASL_PASSWORD"
	EnvKafkaSASLPasswordFile = "OUTBOXCTL_KAFKA_SASL_PASSWORD_FILE"
	EnvKafkaSSLCA            = "OUTBOXCTL_KAFKA_SSL_CA"
	EnvKafkaSSLCert          = "OUTBOXCTL_KAFKA_SSL_CERT"
	EnvKafkaSSLKey           = "OUTBOXCTL_KAFKA_SSL_KEY"
	EnvKafkaSSLKeyPassword   = "OUTBOXCTL_KAFKA_SSL_KEY_PASSWORD"
	EnvKafkaConfig           = "OUTBOXCTL_KAFKA_CONFIG"
)

// EnvVar is one variable of the CLI.
type EnvVar struct {
	// Name is the canonical name (OUTBOXCTL_*).
	Name string
	// Aliases are older names, read when Name is unset or empty.
	Aliases []string
	// Flag is the flag the variable is the default of ("" when none).
	Flag string
	// Meaning says what the variable sets.
	Meaning string
}

// Environment is the table of every variable outboxctl reads, in the order
// `outboxctl help environment` prints them. The dev stack's and the tests'
// own variables (OUTBOX_STACK_DIR, OUTBOX_CONNECT_PG_HOST, ...) are not in
// it: the CLI does not use them.
var Environment = []EnvVar{
	{EnvConfig, nil, "--config", "context file (default $XDG_CONFIG_HOME/outboxctl/config.yaml)"},
	{EnvContext, nil, "--context", "named context of the context file (default its current-context)"},
	{EnvRequestTimeout, []string{"OUTBOX_REQUEST_TIMEOUT"}, "--request-timeout", "bound of each request to Connect, the registry and Kafka (a Go duration; 0: no bound)"},

	{EnvConnectURL, []string{"OUTBOX_CONNECT_URL"}, "--connect-url", "Kafka Connect REST URL (default " + DefaultConnectURL + ")"},
	{EnvConnectUser, []string{"OUTBOX_CONNECT_USER"}, "--connect-user", "Kafka Connect basic-auth user"},
	{EnvConnectPassword, []string{"OUTBOX_CONNECT_PASSWORD"}, "", "Kafka Connect basic-auth password itself"},
	{EnvConnectPasswordFile, []string{"OUTBOX_CONNECT_PASSWORD_FILE"}, "--connect-password-file", "file holding the Kafka Connect basic-auth password"},
	{EnvConnectToken, []string{"OUTBOX_CONNECT_TOKEN"}, "", "Kafka Connect bearer token itself (--connect-token-file overrides it)"},

	{EnvSchemaRegistryURL, []string{"OUTBOX_SCHEMA_REGISTRY_URL"}, "--registry-url", "Schema Registry URL (default " + DefaultSchemaRegistryURL + ")"},
	{EnvSchemaRegistryUser, []string{"OUTBOX_SCHEMA_REGISTRY_USER"}, "--registry-user", "Schema Registry basic-auth user"},
	{EnvSchemaRegistryPassword, []string{"OUTBOX_SCHEMA_REGISTRY_PASSWORD"}, "", "Schema Registry basic-auth password itself"},
	{EnvSchemaRegistryPasswordFile, []string{"OUTBOX_SCHEMA_REGISTRY_PASSWORD_FILE"}, "--registry-password-file", "file holding the Schema Registry basic-auth password"},
	{EnvSchemaRegistryToken, []string{"OUTBOX_SCHEMA_REGISTRY_TOKEN"}, "", "Schema Registry bearer token itself (--registry-token-file overrides it)"},

	{EnvBootstrapServers, []string{"OUTBOX_BOOTSTRAP_SERVERS"}, "--bootstrap-servers", "Kafka bootstrap servers (default " + DefaultBootstrapServers + ")"},
	{EnvConnectBootstrapServers, []string{"OUTBOX_CONNECT_BOOTSTRAP_SERVERS"}, "--connect-bootstrap-servers", "Kafka as Kafka Connect sees it, for the MySQL/MariaDB schema history"},
	{EnvKafkaSecurityProtocol, []string{"OUTBOX_KAFKA_SECURITY_PROTOCOL"}, "--kafka-security-protocol", "Kafka security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"},
	{EnvKafkaSASLMechanism, []string{"OUTBOX_KAFKA_SASL_MECHANISM"}, "--kafka-sasl-mechanism", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"},
	{EnvKafkaSASLUsername, []string{"OUTBOX_KAFKA_SASL_USERNAME"}, "--kafka-sasl-username", "SASL username"},
	{EnvKafkaSASLPassword, []string{"OUTBOX_KAFKA_SASL_PASSWORD"}, "--kafka-sasl-password", "SASL password itself (the flag takes a reference)"},
	{EnvKafkaSASLPasswordFile, []string{"OUTBOX_KAFKA_SASL_PASSWORD_FILE"}, "", "file holding the SASL password"},
	{EnvKafkaSSLCA, []string{"OUTBOX_KAFKA_SSL_CA"}, "--kafka-ssl-ca", "PEM CA bundle that verifies the brokers"},
	{EnvKafkaSSLCert, []string{"OUTBOX_KAFKA_SSL_CERT"}, "--kafka-ssl-cert", "PEM client certificate for mutual TLS"},
	{EnvKafkaSSLKey, []string{"OUTBOX_KAFKA_SSL_KEY"}, "--kafka-ssl-key", "PEM client key for mutual TLS"},
	{EnvKafkaSSLKeyPassword, []string{"OUTBOX_KAFKA_SSL_KEY_PASSWORD"}, "--kafka-ssl-key-password", "client key password itself (the flag takes a reference)"},
	{EnvKafkaConfig, []string{"OUTBOX_KAFKA_CONFIG"}, "--kafka-config", "further librdkafka properties, KEY=VALUE,KEY=VALUE"},

	{EnvPostgresDSN, []string{"OUTBOX_PG_DSN"}, "", "PostgreSQL admin DSN (provision, doctor, relay, bench, verify, cleanup)"},
	{EnvMariaDBDSN, []string{"OUTBOX_MARIADB_DSN"}, "", "MariaDB admin DSN (go-sql-driver form)"},
	{EnvMySQLDSN, []string{"OUTBOX_MYSQL_DSN"}, "", "MySQL admin DSN (go-sql-driver form)"},
}

// LookupVar returns the entry of name, a canonical name or an alias.
func LookupVar(name string) (EnvVar, bool) {
	for _, v := range Environment {
		if v.Name == name {
			return v, true
		}
		for _, a := range v.Aliases {
			if a == name {
				return v, true
			}
		}
	}
	return EnvVar{}, false
}

// LookupEnv reads the variable name through getenv: its canonical name,
// else its aliases in order. It returns the value and the name it was read
// from ("" when every name is unset or empty). A name not in Environment is
// read as is; an alias is read as its canonical variable.
func LookupEnv(getenv func(string) string, name string) (value, from string) {
	if getenv == nil {
		return "", ""
	}
	v, ok := LookupVar(name)
	if !ok {
		if s := getenv(name); s != "" {
			return s, name
		}
		return "", ""
	}
	for _, n := range append([]string{v.Name}, v.Aliases...) {
		if s := getenv(n); s != "" {
			return s, n
		}
	}
	return "", ""
}

// AliasAware returns getenv that reads each variable of Environment through
// LookupEnv (canonical name, then aliases) and every other name as is.
func AliasAware(getenv func(string) string) func(string) string {
	return func(name string) string {
		s, _ := LookupEnv(getenv, name)
		return s
	}
}

// EnvConflict is a canonical variable and an alias set to different values:
// the canonical one wins.
type EnvConflict struct {
	Name, Alias string
}

// Conflicts lists the variables whose canonical name and an alias are both
// set, to different values. Equal values are no conflict.
func Conflicts(getenv func(string) string) []EnvConflict {
	if getenv == nil {
		return nil
	}
	var out []EnvConflict
	for _, v := range Environment {
		c := getenv(v.Name)
		if c == "" {
			continue
		}
		for _, a := range v.Aliases {
			if s := getenv(a); s != "" && s != c {
				out = append(out, EnvConflict{Name: v.Name, Alias: a})
			}
		}
	}
	return out
}
