package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/redact"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/spec"
)

// maxContextFile bounds the context file read.
const maxContextFile = 4 << 20

// cliConfig is the context file ($XDG_CONFIG_HOME/outboxctl/config.yaml):
//
//	current-context: prod
//	contexts:
//	  prod:
//	    connect:
//	      url: https://connect.example.com:8083
//	      user: deployer
//	      password-file: /run/secrets/connect-password
//	      ca-file: /etc/ssl/connect-ca.pem
type cliConfig struct {
	CurrentContext string                `yaml:"current-context"`
	Contexts       map[string]cliContext `yaml:"contexts"`
}

type cliContext struct {
	Connect  connectEndpoint  `yaml:"connect,omitempty"`
	Registry registryEndpoint `yaml:"registry,omitempty"`
	Kafka    kafkaEndpoint    `yaml:"kafka,omitempty"`
	Database databaseEndpoint `yaml:"database,omitempty"`
}

// registryEndpoint is the schema registry of a context. Secrets are
// env:NAME or file:PATH references.
type registryEndpoint struct {
	URL      string `yaml:"url,omitempty"`
	User     string `yaml:"user,omitempty"`
	Password string `yaml:"password,omitempty"` // env:NAME or file:PATH
	Token    string `yaml:"token,omitempty"`    // env:NAME or file:PATH
	CAFile   string `yaml:"ca-file,omitempty"`
	CertFile string `yaml:"cert-file,omitempty"`
	KeyFile  string `yaml:"key-file,omitempty"`
}

// databaseEndpoint are the admin connections of a context (provision,
// doctor, bench): a DSN is a literal without a password, or an env:NAME or
// file:PATH reference.
type databaseEndpoint struct {
	PostgresDSN string `yaml:"postgres-dsn,omitempty"`
	MariaDBDSN  string `yaml:"mariadb-dsn,omitempty"`
	MySQLDSN    string `yaml:"mysql-dsn,omitempty"`
}

// contextSelection is the --config and --context of the running command
// (empty when it has none): see currentContext.
type contextSelection struct {
	ConfigPath, Name string
}

// selectContext loads the context file and returns the selected context:
// name, else $OUTBOXCTL_CONTEXT, else current-context. No selection is the
// zero context.
func selectContext(env *Env, cfgPath, name string) (cliContext, string, error) {
	cfg, path, err := loadCLIConfig(env, cfgPath)
	if err != nil {
		return cliContext{}, "", err
	}
	if name == "" {
		name = env.getenv(settings.EnvContext)
	}
	if name == "" {
		name = cfg.CurrentContext
	}
	if name == "" {
		return cliContext{}, "", nil
	}
	c, ok := cfg.Contexts[name]
	if !ok {
		return c, name, UsageError(fmt.Errorf("context %q not found in %s", name, path))
	}
	return c, name, nil
}

// currentContext is the context of the running command (its --config and
// --context flags, when it has them).
func (env *Env) currentContext() (cliContext, error) {
	c, _, err := selectContext(env, env.ctxSel.ConfigPath, env.ctxSel.Name)
	return c, err
}

// applyDatabaseContext sets the admin DSNs of the settings from the
// context, for each whose variable is unset (flags > environment > context
// > the native stack's defaults).
func (env *Env) applyDatabaseContext() error {
	c, err := env.currentContext()
	if err != nil {
		return err
	}
	for _, d := range []struct {
		dst       *string
		env, v, k string
	}{
		{&env.Settings.PostgresDSN, settings.EnvPostgresDSN, c.Database.PostgresDSN, "postgres-dsn"},
		{&env.Settings.MariaDBDSN, settings.EnvMariaDBDSN, c.Database.MariaDBDSN, "mariadb-dsn"},
		{&env.Settings.MySQLDSN, settings.EnvMySQLDSN, c.Database.MySQLDSN, "mysql-dsn"},
	} {
		v, ok, err := env.contextDSN(d.env, d.v, d.k)
		if err != nil {
			return err
		}
		if ok {
			*d.dst = v
		}
	}
	return nil
}

// contextDSN is the admin DSN of kind from the context, when its
// variable is unset: a reference is resolved; a literal with a password is
// refused.
func (env *Env) contextDSN(envName, ctxValue, what string) (string, bool, error) {
	if _, src, _ := settings.Resolve(env.Getenv, settings.Value{Env: envName, Context: ctxValue}); src != settings.SourceContext {
		return "", false, nil
	}
	if isSecretRef(ctxValue) {
		v, err := secretRef(env, ctxValue, "context file: database "+what)
		return v, err == nil, err
	}
	if redact.HasSecret(ctxValue) {
		return "", false, UsageError(fmt.Errorf("context file: database %s holds a password: use env:NAME or file:PATH", what))
	}
	return ctxValue, true, nil
}

// connectEndpoint holds the connection settings of Kafka Connect. Secrets are
// files (password-file, token-file) or references (env:NAME, file:PATH,
// ${env:NAME}, ${file:PATH}), never literals.
type connectEndpoint struct {
	URL                string `yaml:"url,omitempty"`
	User               string `yaml:"user,omitempty"`
	Password           string `yaml:"password,omitempty"` // a reference
	PasswordFile       string `yaml:"password-file,omitempty"`
	Token              string `yaml:"token,omitempty"` // a reference
	TokenFile          string `yaml:"token-file,omitempty"`
	CAFile             string `yaml:"ca-file,omitempty"`
	CertFile           string `yaml:"cert-file,omitempty"`
	KeyFile            string `yaml:"key-file,omitempty"`
	InsecureSkipVerify bool   `yaml:"insecure-skip-verify,omitempty"`
}

// connectFlags are the per-command connection flags.
type connectFlags struct {
	ConfigPath string
	Context    string
	connectEndpoint
}

func addConnectFlags(fs *pflag.FlagSet, f *connectFlags) {
	fs.StringVar(&f.ConfigPath, "config", "", "context file (default $OUTBOXCTL_CONFIG or $XDG_CONFIG_HOME/outboxctl/config.yaml)")
	fs.StringVar(&f.Context, "context", "", "named context of the context file (default $OUTBOXCTL_CONTEXT or current-context)")
	fs.StringVar(&f.URL, "connect-url", "", "Kafka Connect REST URL (default $OUTBOXCTL_CONNECT_URL, the context, or "+settings.DefaultConnectURL+")")
	fs.StringVar(&f.User, "connect-user", "", "basic-auth user (default $OUTBOXCTL_CONNECT_USER)")
	fs.StringVar(&f.PasswordFile, "connect-password-file", "", "file holding the basic-auth password (default $"+settings.EnvConnectPasswordFile+"; $"+settings.EnvConnectPassword+" holds the password itself)")
	fs.StringVar(&f.TokenFile, "connect-token-file", "", "file holding a bearer token (overrides $"+settings.EnvConnectToken+", which holds the token itself, and the context)")
	fs.StringVar(&f.CAFile, "connect-ca-file", "", "PEM CA bundle to verify Connect's certificate")
	fs.StringVar(&f.CertFile, "connect-cert-file", "", "PEM client certificate (mutual TLS)")
	fs.StringVar(&f.KeyFile, "connect-key-file", "", "PEM client key (mutual TLS)")
	fs.BoolVar(&f.InsecureSkipVerify, "connect-insecure-skip-verify", false, "do not verify Connect's TLS certificate")
}

func configPath(env *Env, flag string) string {
	if flag != "" {
		return flag
	}
	if p := env.getenv(settings.EnvConfig); p != "" {
		return p
	}
	dir := env.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := env.Getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "outboxctl", "config.yaml")
}

// loadCLIConfig reads the context file; a missing file is an empty config
// unless it was named explicitly.
func loadCLIConfig(env *Env, flag string) (cliConfig, string, error) {
	var cfg cliConfig
	path := configPath(env, flag)
	if path == "" {
		return cfg, "", nil
	}
	data, err := spec.ReadFileLimit(path, maxContextFile)
	if err != nil {
		if os.IsNotExist(err) && flag == "" && env.getenv(settings.EnvConfig) == "" {
			return cfg, path, nil
		}
		return cfg, path, UsageError(fmt.Errorf("context file: %w", err))
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && err.Error() != "EOF" {
		return cfg, path, UsageError(fmt.Errorf("context file %w", spec.WrapYAML(path, data, err)))
	}
	return cfg, path, nil
}

// resolveEndpoint merges flags > environment > context > defaults
// (settings.Resolve) and reads the secrets (settings.ResolveSecret): the
// Password and Token of the result are the secrets themselves, its
// PasswordFile and TokenFile the files they were read from ("" when they
// came from a variable or an env: reference).
func resolveEndpoint(env *Env, f *connectFlags) (connectEndpoint, error) {
	c, _, err := selectContext(env, f.ConfigPath, f.Context)
	if err != nil {
		return connectEndpoint{}, err
	}
	ctx := c.Connect
	var ep connectEndpoint
	ep.URL = env.resolve(settings.Value{Flag: f.URL, Env: settings.EnvConnectURL, Context: ctx.URL,
		Default: cmp.Or(env.Settings.ConnectURL, settings.DefaultConnectURL)})
	ep.User = env.resolve(settings.Value{Flag: f.User, Env: settings.EnvConnectUser, Context: ctx.User})
	ep.CAFile = env.resolve(settings.Value{Flag: f.CAFile, Context: ctx.CAFile})
	ep.CertFile = env.resolve(settings.Value{Flag: f.CertFile, Context: ctx.CertFile})
	ep.KeyFile = env.resolve(settings.Value{Flag: f.KeyFile, Context: ctx.KeyFile})
	ep.InsecureSkipVerify = f.InsecureSkipVerify || ctx.InsecureSkipVerify
	password := settings.Secret{
		What: "connect password", FlagFile: f.PasswordFile, Env: settings.EnvConnectPassword, EnvFile: settings.EnvConnectPasswordFile,
		ContextFile: ctx.PasswordFile, ContextRef: ctx.Password,
	}
	token := settings.Secret{
		What: "connect token", FlagFile: f.TokenFile, Env: settings.EnvConnectToken,
		ContextFile: ctx.TokenFile, ContextRef: ctx.Token,
	}
	if ep.Password, err = resolveSecret(env, password); err != nil {
		return ep, err
	}
	if ep.Token, err = resolveSecret(env, token); err != nil {
		return ep, err
	}
	ep.PasswordFile, ep.TokenFile = password.File(env.Getenv), token.File(env.Getenv)
	return ep, nil
}

// connectClient builds the Connect client of a command.
func connectClient(env *Env, f *connectFlags) (*connect.Client, error) {
	ep, err := resolveEndpoint(env, f)
	if err != nil {
		return nil, err
	}
	timeout, err := env.requestTimeout()
	if err != nil {
		return nil, err
	}
	opts := []connect.Opt{connect.WithUserAgent("outboxctl/" + buildVersion().Version), connect.WithRequestTimeout(timeout)}
	if env.trace != nil {
		opts = append(opts, connect.WithTransportWrapper(env.trace.Wrap))
	}
	if ep.User != "" || ep.Password != "" {
		opts = append(opts, connect.WithBasicAuth(ep.User, ep.Password))
	}
	if ep.Token != "" {
		opts = append(opts, connect.WithBearerToken(ep.Token))
	}
	if tf := (connect.TLSConfig{CAFile: ep.CAFile, CertFile: ep.CertFile, KeyFile: ep.KeyFile, InsecureSkipVerify: ep.InsecureSkipVerify}); tf != (connect.TLSConfig{}) {
		opts = append(opts, connect.WithTLS(tf))
	}
	c, err := connect.NewClient(ep.URL, opts...)
	if err != nil {
		return nil, UsageError(err)
	}
	return c, nil
}

// contextLong is the help of `outboxctl context`: the file, the
// precedence of the settings and the secret references.
const contextLong = `Contexts name the connections of outboxctl in a small YAML file, by default
$XDG_CONFIG_HOME/outboxctl/config.yaml (override with --config or $OUTBOXCTL_CONFIG):

  current-context: dev
  contexts:
    dev:
      connect:
        url: http://127.0.0.1:18083
    prod:
      connect:
        url: https://connect.example.com
        user: deployer
        password-file: /run/secrets/connect-password   # or password: ${env:CONNECT_PASSWORD}
        ca-file: /etc/ssl/connect-ca.pem
      registry:
        url: https://registry.example.com/apis/ccompat/v7
        user: deployer
        password: env:REGISTRY_PASSWORD                 # or file:/run/secrets/registry
      kafka:
        bootstrap-servers: broker-1:9094,broker-2:9094
        security-protocol: SASL_SSL
        sasl-mechanism: SCRAM-SHA-512
        sasl-username: outboxctl
        sasl-password: file:/run/secrets/kafka-password # or env:KAFKA_PASSWORD
        ssl-ca: /etc/ssl/kafka-ca.pem
        config: {client.id: outboxctl}
      database:
        postgres-dsn: env:PROD_PG_DSN                   # a literal only without a password
        mariadb-dsn: file:/run/secrets/mariadb-dsn

Precedence, for each setting: command flags > environment
(OUTBOXCTL_CONNECT_*, OUTBOXCTL_SCHEMA_REGISTRY_*, OUTBOXCTL_BOOTSTRAP_SERVERS
and OUTBOXCTL_KAFKA_*, OUTBOXCTL_PG_DSN, OUTBOXCTL_MARIADB_DSN,
OUTBOXCTL_MYSQL_DSN; their old OUTBOX_* names are aliases, see outboxctl help
environment) > the context (--context, $OUTBOXCTL_CONTEXT, current-context) >
the native stack's defaults. Secrets are
never stored in the file: every secret (Connect, registry and Kafka
passwords and tokens, DSNs) takes a reference, env:NAME or file:PATH (also
written ${env:NAME}, ${file:PATH}); the Connect block also has password-file
and token-file. For a secret: the flag > the variable holding it > the
variable naming its file > the context. Every output masks them.`

// newContextCmd is `outboxctl context list|use|show|set`.
func newContextCmd(env *Env) *cobra.Command {
	var cfgPath string
	c := &cobra.Command{
		Use:   "context",
		Short: "List, show, select and set named contexts (Connect, registry, Kafka, databases)",
		Long:  contextLong,
		Example: `  $ outboxctl context set prod --kafka-bootstrap-servers broker-1:9094 --kafka-security-protocol SASL_SSL \
      --kafka-sasl-mechanism SCRAM-SHA-512 --kafka-sasl-username outboxctl --kafka-sasl-password env:KAFKA_PASSWORD
  $ outboxctl context use prod
  $ outboxctl context show
  $ outboxctl context list`,
	}
	c.PersistentFlags().StringVar(&cfgPath, "config", "", "context file")
	c.AddCommand(newContextListCmd(env, &cfgPath), newContextUseCmd(env, &cfgPath), newContextShowCmd(env, &cfgPath), newContextSetCmd(env, &cfgPath))
	return c
}

// contextListOptions are the options of context list: the context file
// (--config).
type contextListOptions struct {
	ConfigPath string
}

// newContextListCmd is `outboxctl context list`.
func newContextListCmd(env *Env, cfgPath *string) *cobra.Command {
	opts := &contextListOptions{}
	return &cobra.Command{
		Use: "list", Short: "List the contexts", Args: cobra.NoArgs,
		RunE: func(cc *cobra.Command, args []string) error {
			opts.ConfigPath = *cfgPath
			return runContextList(env, opts)
		},
	}
}

// contextUseOptions are the options of context use: the context file
// (--config) and the context to select.
type contextUseOptions struct {
	ConfigPath, Name string
}

// newContextUseCmd is `outboxctl context use NAME`.
func newContextUseCmd(env *Env, cfgPath *string) *cobra.Command {
	opts := &contextUseOptions{}
	return &cobra.Command{
		Use: "use NAME", Short: "Make NAME the current context", Args: cobra.ExactArgs(1),
		RunE: func(cc *cobra.Command, args []string) error {
			opts.ConfigPath, opts.Name = *cfgPath, args[0]
			return runContextUse(env, opts)
		},
	}
}

// contextShowOptions are the options of context show: the context file
// (--config) and the context to show ("": the selected one).
type contextShowOptions struct {
	ConfigPath, Name string
}

// newContextShowCmd is `outboxctl context show [NAME]`.
func newContextShowCmd(env *Env, cfgPath *string) *cobra.Command {
	opts := &contextShowOptions{}
	return &cobra.Command{
		Use: "show [NAME]", Short: "Show the connections the commands would use (secrets masked)", Args: cobra.MaximumNArgs(1),
		RunE: func(cc *cobra.Command, args []string) error {
			opts.ConfigPath, opts.Name = *cfgPath, ""
			if len(args) == 1 {
				opts.Name = args[0]
			}
			return runContextShow(env, opts)
		},
	}
}

// runContextList prints the contexts of the file as a table, the current
// one marked (URLs redacted).
func runContextList(env *Env, opts *contextListOptions) error {
	cfg, path, err := loadCLIConfig(env, opts.ConfigPath)
	if err != nil {
		return err
	}
	if len(cfg.Contexts) == 0 {
		fmt.Fprintf(env.IO.ErrOut, "no contexts in %s\n", path)
		return nil
	}
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CURRENT\tNAME\tCONNECT URL\tREGISTRY URL\tKAFKA")
	names := make([]string, 0, len(cfg.Contexts))
	for n := range cfg.Contexts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		mark := ""
		if n == cfg.CurrentContext {
			mark = "*"
		}
		k := cfg.Contexts[n].Kafka
		kafka := k.BootstrapServers
		if k.SecurityProtocol != "" {
			kafka += " (" + strings.ToUpper(k.SecurityProtocol) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", mark, n, redact.URL(cfg.Contexts[n].Connect.URL), redact.URL(cfg.Contexts[n].Registry.URL), kafka)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if l != "" {
			fmt.Fprintln(env.IO.Out, strings.TrimRight(l, " \n"))
		}
	}
	return nil
}

// runContextUse makes opts.Name the current context, rewriting only the
// file's current-context.
func runContextUse(env *Env, opts *contextUseOptions) error {
	if err := checkContextName(opts.Name); err != nil {
		return err
	}
	cfg, path, err := loadCLIConfig(env, opts.ConfigPath)
	if err != nil {
		return err
	}
	if _, ok := cfg.Contexts[opts.Name]; !ok {
		return UsageError(fmt.Errorf("context %q not found in %s", opts.Name, path))
	}
	// Rewrite only current-context, keeping the rest of the file.
	var doc yaml.Node
	data, _ := spec.ReadFileLimit(path, maxContextFile)
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return fmt.Errorf("context file %s: %v", path, err)
	}
	m := doc.Content[0]
	set := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "current-context" {
			m.Content[i+1].Value, set = opts.Name, true
		}
	}
	if !set {
		m.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Value: "current-context"}, {Kind: yaml.ScalarNode, Value: opts.Name}}, m.Content...)
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(env.IO.ErrOut, "current context is now %q\n", opts.Name)
	return nil
}

// runContextShow prints the connections of the context opts.Name (default:
// the selected one) after flags and environment, secrets masked.
func runContextShow(env *Env, opts *contextShowOptions) error {
	env.ctxSel = contextSelection{ConfigPath: opts.ConfigPath, Name: opts.Name}
	_, name, err := selectContext(env, opts.ConfigPath, env.ctxSel.Name)
	if err != nil {
		return err
	}
	ep, err := resolveEndpoint(env, &connectFlags{ConfigPath: opts.ConfigPath, Context: env.ctxSel.Name})
	if err != nil {
		return err
	}
	reg, err := (&registryFlags{}).resolve(env)
	if err != nil {
		return err
	}
	kc, err := env.kafkaConfig(nil, "")
	if err != nil {
		return err
	}
	if err := env.applyDatabaseContext(); err != nil {
		return err
	}
	mask := func(s string) string {
		if s == "" {
			return ""
		}
		return redact.Mask
	}
	if name == "" {
		name = "(none)"
	}
	tw := tabwriter.NewWriter(env.IO.Out, 0, 4, 1, ' ', 0)
	for _, l := range [][2]string{
		{"context:", name},
		{"connect url:", redact.URL(ep.URL)}, {"user:", ep.User}, {"password:", mask(ep.Password)},
		{"password file:", ep.PasswordFile}, {"token:", mask(ep.Token + ep.TokenFile)}, {"ca file:", ep.CAFile},
		{"registry url:", redact.URL(reg.URL)}, {"registry user:", reg.User},
		{"registry password:", mask(reg.Password)}, {"registry token:", mask(reg.Token)},
		{"kafka:", strings.Join(maskedKafka(kc), " ")},
		{"postgres dsn:", redact.DSN(env.Settings.PostgresDSN)},
		{"mariadb dsn:", redact.DSN(env.Settings.MariaDBDSN)},
		{"mysql dsn:", redact.DSN(env.Settings.MySQLDSN)},
	} {
		fmt.Fprintf(tw, "%s\t%s\n", l[0], l[1])
	}
	return tw.Flush()
}

// checkContextName refuses an empty (or blank) context name: stored as
// current-context it would make every command silently fall back to the
// defaults.
func checkContextName(name string) error {
	if strings.TrimSpace(name) == "" {
		return UsageError(errors.New("context name must not be empty"))
	}
	return nil
}

// newContextSetCmd is `outboxctl context set NAME [flags]`: it creates or
// updates the context NAME with the given settings (secrets as env:NAME
// or file:PATH references only).
func newContextSetCmd(env *Env, cfgPath *string) *cobra.Command {
	opts := &contextSetOptions{}
	c := &cobra.Command{
		Use:   "set NAME [flags]",
		Short: "Create or update a context (secrets only as env:NAME or file:PATH references)",
		Example: `  $ outboxctl context set prod --connect-url https://connect.example.com --registry-url https://registry.example.com/apis/ccompat/v7
  $ outboxctl context set prod --kafka-bootstrap-servers broker-1:9094 --kafka-security-protocol SASL_SSL \
      --kafka-sasl-mechanism SCRAM-SHA-512 --kafka-sasl-username outboxctl --kafka-sasl-password file:/run/secrets/kafka \
      --kafka-ssl-ca /etc/ssl/kafka-ca.pem
  $ outboxctl context set prod --postgres-dsn env:PROD_PG_DSN`,
		Args: cobra.ExactArgs(1),
		RunE: func(cc *cobra.Command, args []string) error {
			opts.ConfigPath, opts.Name, opts.Changed = *cfgPath, args[0], cc.Flags().Changed
			return runContextSet(env, opts)
		},
	}
	fs := c.Flags()
	fs.StringVar(&opts.ConnectURL, "connect-url", "", "Kafka Connect REST URL")
	fs.StringVar(&opts.RegistryURL, "registry-url", "", "Schema Registry URL")
	fs.StringVar(&opts.RegistryUser, "registry-user", "", "registry basic-auth user")
	fs.StringVar(&opts.RegistryPassword, "registry-password", "", "registry password reference: env:NAME or file:PATH")
	fs.StringVar(&opts.BootstrapServers, "kafka-bootstrap-servers", "", "Kafka bootstrap servers")
	addKafkaClientFlags(fs, &opts.Kafka)
	fs.StringArrayVar(&opts.UnsetKafkaConfig, "kafka-unset-config", nil, "remove this librdkafka property from the context (repeatable)")
	fs.StringVar(&opts.PostgresDSN, "postgres-dsn", "", "PostgreSQL admin DSN (a reference, or a literal without a password)")
	fs.StringVar(&opts.MariaDBDSN, "mariadb-dsn", "", "MariaDB admin DSN (a reference, or a literal without a password)")
	fs.StringVar(&opts.MySQLDSN, "mysql-dsn", "", "MySQL admin DSN (a reference, or a literal without a password)")
	return c
}

// contextSetOptions are the options of context set: the context file and
// name, and the settings to store (only those whose flag was given, as
// Changed reports, are written).
type contextSetOptions struct {
	ConfigPath, Name                            string
	ConnectURL                                  string
	RegistryURL, RegistryUser, RegistryPassword string
	BootstrapServers                            string
	Kafka                                       kafkaClientFlags
	UnsetKafkaConfig                            []string
	PostgresDSN, MariaDBDSN, MySQLDSN           string
	// Changed reports whether a flag was given.
	Changed func(flag string) bool
}

// runContextSet creates or updates the context opts.Name (creating the
// file), refusing literal secrets.
func runContextSet(env *Env, opts *contextSetOptions) error {
	if err := checkContextName(opts.Name); err != nil {
		return err
	}
	path := configPath(env, opts.ConfigPath)
	if path == "" {
		return UsageError(fmt.Errorf("no context file: set --config, $%s or $HOME", settings.EnvConfig))
	}
	// set creates the file it is given, even when it was named
	// explicitly (--config, $OUTBOXCTL_CONFIG).
	var cfg cliConfig
	if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
		var err error
		if cfg, _, err = loadCLIConfig(env, opts.ConfigPath); err != nil {
			return err
		}
	}
	if cfg.Contexts == nil {
		cfg.Contexts = map[string]cliContext{}
	}
	ctx := cfg.Contexts[opts.Name]
	changed := opts.Changed
	setStr := func(flag string, dst *string, v string) {
		if changed(flag) {
			*dst = v
		}
	}
	for _, r := range []struct{ flag, v string }{
		{"registry-password", opts.RegistryPassword}, {"kafka-sasl-password", opts.Kafka.SASLPassword}, {"kafka-ssl-key-password", opts.Kafka.SSLKeyPassword},
	} {
		if r.v != "" && !isSecretRef(r.v) {
			return UsageError(fmt.Errorf("--%s must be a reference, env:NAME or file:PATH, not a literal", r.flag))
		}
	}
	for _, d := range []struct{ flag, v string }{{"postgres-dsn", opts.PostgresDSN}, {"mariadb-dsn", opts.MariaDBDSN}, {"mysql-dsn", opts.MySQLDSN}} {
		if d.v != "" && !isSecretRef(d.v) && redact.HasSecret(d.v) {
			return UsageError(fmt.Errorf("--%s holds a password: use env:NAME or file:PATH (secrets are never stored in the file)", d.flag))
		}
	}
	for _, u := range []struct{ flag, v string }{{"connect-url", opts.ConnectURL}, {"registry-url", opts.RegistryURL}} {
		if redact.HasSecret(u.v) {
			return UsageError(fmt.Errorf("--%s holds a password in its user info: secrets are never stored in the file (use the user and password settings)", u.flag))
		}
	}
	setStr("connect-url", &ctx.Connect.URL, opts.ConnectURL)
	setStr("registry-url", &ctx.Registry.URL, opts.RegistryURL)
	setStr("registry-user", &ctx.Registry.User, opts.RegistryUser)
	setStr("registry-password", &ctx.Registry.Password, opts.RegistryPassword)
	setStr("kafka-bootstrap-servers", &ctx.Kafka.BootstrapServers, opts.BootstrapServers)
	setStr("kafka-security-protocol", &ctx.Kafka.SecurityProtocol, strings.ToUpper(opts.Kafka.SecurityProtocol))
	setStr("kafka-sasl-mechanism", &ctx.Kafka.SASLMechanism, strings.ToUpper(opts.Kafka.SASLMechanism))
	setStr("kafka-sasl-username", &ctx.Kafka.SASLUsername, opts.Kafka.SASLUsername)
	setStr("kafka-sasl-password", &ctx.Kafka.SASLPassword, opts.Kafka.SASLPassword)
	setStr("kafka-ssl-ca", &ctx.Kafka.SSLCA, opts.Kafka.SSLCA)
	setStr("kafka-ssl-cert", &ctx.Kafka.SSLCert, opts.Kafka.SSLCert)
	setStr("kafka-ssl-key", &ctx.Kafka.SSLKey, opts.Kafka.SSLKey)
	setStr("kafka-ssl-key-password", &ctx.Kafka.SSLKeyPassword, opts.Kafka.SSLKeyPassword)
	setStr("postgres-dsn", &ctx.Database.PostgresDSN, opts.PostgresDSN)
	setStr("mariadb-dsn", &ctx.Database.MariaDBDSN, opts.MariaDBDSN)
	setStr("mysql-dsn", &ctx.Database.MySQLDSN, opts.MySQLDSN)
	pairs, err := parsePairs(opts.Kafka.ConfigPairs, "--kafka-config")
	if err != nil {
		return err
	}
	for k, v := range pairs {
		if kafkaclient.IsSecret(k) && !isSecretRef(v) {
			return UsageError(fmt.Errorf("--kafka-config %s holds a secret: the context file takes none (use a flag or variable)", k))
		}
		if ctx.Kafka.Config == nil {
			ctx.Kafka.Config = map[string]string{}
		}
		ctx.Kafka.Config[k] = v
	}
	for _, k := range opts.UnsetKafkaConfig {
		delete(ctx.Kafka.Config, k)
	}
	cfg.Contexts[opts.Name] = ctx
	if cfg.CurrentContext == "" {
		cfg.CurrentContext = opts.Name
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(env.IO.ErrOut, "context %q set in %s\n", opts.Name, path)
	return nil
}
