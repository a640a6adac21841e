package cmd

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/relay/cutover"
	"github.com/outboxctl/outboxctl/relay/relayprom"
	"github.com/outboxctl/outboxctl/spec"
)

type relayOptions struct {
	Config             string
	Files              []string
	Outbox             string
	Transform          string
	WorkerConfig       string
	EventRouterVersion string
	BootstrapServers   string
	ProducerConfig     string
	DSN                string
	PollInterval       time.Duration
	Batch              int
	Once               bool
	OrderColumn        string
	MarkColumn         string
	Listen             string
	MetricsAddr        string
	Kafka              kafkaClientFlags
	// Connector, ConnectURL, NoConnectCheck: the probe of the outbox's
	// connector before publishing (run only; cutover has its own).
	Connector      string
	ConnectURL     string
	NoConnectCheck bool
	// MaxDBOutage: Options.MaxDatabaseOutage.
	MaxDBOutage time.Duration
	// Filter (--filter COLUMN=VALUE): Options.Filter.
	Filter string
	// BooleanColumns: Options.BooleanColumns.
	BooleanColumns []string
	// JSONColumns: Options.JSONColumns.
	JSONColumns []string
	// WorkerTimeZone: Options.WorkerTimeZone.
	WorkerTimeZone string
}

func newRelayCmd(env *Env) *cobra.Command {
	opts := &relayOptions{}
	c := &cobra.Command{
		Use:   "relay (--config CONNECTOR.json | -f outbox.yaml [--outbox NAME]) [flags]",
		Short: "Publish an outbox table by polling, with the records the Debezium EventRouter would produce",
		Long: `Relay reads the outbox table and publishes every row as exactly the Kafka
record the Debezium connector with the outbox EventRouter would produce under
the same connector config: topic, partition, key, headers in order, value and
timestamp (only the __debezium.context.runId header differs, as it does
between two task starts). Consumers cannot tell the two publishers apart.

The connector config comes from --config (the JSON body of POST /connectors,
or a flat config map) or from an outbox spec (-f, with --outbox when it has
several). The relay reads the table named by table.include.list through the
config's database.* settings (or --dsn) and publishes to --bootstrap-servers
(default $OUTBOXCTL_BOOTSTRAP_SERVERS).

Rows are published in the database-assigned order that outboxctl provision
gives every outbox table (PostgreSQL: the inserting transaction's id, then
insert order, and only once every transaction that began writing before has
ended; MySQL/MariaDB: AUTO_INCREMENT), never by a client clock; a table
without those columns is refused (exit 2, naming the ALTER TABLE) unless
--order-column names the order, which is then yours to guarantee. Rows are
deleted (or, with --mark-column, marked) once the broker has acknowledged
them. Several
relays may run: one holds the outbox's advisory lock and publishes, the
others wait and take over when its database session ends. With --once the
relay publishes what is pending and exits 0.

Before publishing, the relay asks Kafka Connect (--connect-url) about the
outbox's connector (the spec's, --config's "name", or --connector): when it
is RUNNING (or being started) it publishes the table already, and the relay
refuses (exit 3) instead of publishing every event a second time; move the
outbox with "relay cutover --to relay". Connect unreachable is a warning.
After "relay cutover --to cdc" the table carries a fence: no relay publishes
(--once: exit 3; otherwise it waits as a standby) until "relay cutover --to
relay" lifts it.

A config the relay cannot honour (a converter not emulated, a missing table
or column, a table without a primary key, a nullable order column) is an
error at start (exit 2). A row the real task would fail on
stops the relay with the task's error (exit 1) and stays in the table; so
does a record the broker rejects for good (too large, a timestamp too far
ahead; with errors.tolerance=all it is skipped), and a fatal producer error
stops it too. On MySQL/MariaDB a BOOLEAN column is tinyint(1) in the
catalog, read as an int16 as the connector does after a snapshot of the
schema; when the connector learnt the table from a CREATE TABLE in the
binlog (created after it started) it delivers a boolean: name such columns
with --boolean-columns. Likewise a MariaDB JSON column is longtext in the
catalog (a plain string, as after a snapshot of the schema); learnt from the
binlog's CREATE TABLE it is io.debezium.data.Json: name such columns with
--json-columns. Retriable Kafka errors are retried after the poll interval. See
docs/relay.md for what polling cannot see that CDC does.`,
		Example: `  $ outboxctl relay --config connector.json --once
  $ outboxctl relay -f outbox.yaml --outbox orders --poll-interval 100ms --listen outbox_orders`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runRelay(c.Context(), env, opts, func(name string) bool { return c.Flags().Changed(name) })
		},
	}
	fs := c.Flags()
	fs.StringVar(&opts.Config, "config", "", "connector JSON file: {\"name\",\"config\"} or a flat config map")
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder: relay with the generated connector config")
	fs.StringVar(&opts.Outbox, "outbox", "", "the outbox of the spec (needed when the spec has several)")
	fs.StringVar(&opts.Transform, "transform", "", "alias of the EventRouter transform (default: the only one in transforms)")
	fs.StringVar(&opts.WorkerConfig, "worker-config", "", "Kafka Connect worker properties file (its converters apply when the connector sets none)")
	fs.StringVar(&opts.EventRouterVersion, "eventrouter-version", eventrouter.Version36, "EventRouter semantics to reproduce: 3.6, or 3.5 (the MariaDB 3.5.0 connector plugin)")
	fs.StringVar(&opts.BootstrapServers, "bootstrap-servers", "", "Kafka bootstrap servers (default $OUTBOXCTL_BOOTSTRAP_SERVERS)")
	fs.StringVar(&opts.ProducerConfig, "producer-config", "", "properties file of further librdkafka producer settings (security, client.id)")
	fs.StringVar(&opts.DSN, "dsn", "", "outbox database DSN (default: built from the config's database.* settings)")
	fs.DurationVar(&opts.PollInterval, "poll-interval", relay.DefaultPollInterval, "time between polls when the table is drained")
	fs.IntVar(&opts.Batch, "batch", relay.DefaultBatch, "rows per poll")
	fs.BoolVar(&opts.Once, "once", false, "publish what is pending, then exit")
	fs.StringVar(&opts.OrderColumn, "order-column", "", "column giving the publish order, your responsibility (default: the database-assigned order, relay_tx/relay_seq)")
	fs.StringVar(&opts.MarkColumn, "mark-column", "", "nullable timestamp column to set instead of deleting published rows")
	fs.StringVar(&opts.Listen, "listen", "", "PostgreSQL: LISTEN on this channel to wake up before the poll interval")
	fs.StringVar(&opts.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address at /metrics (for example :9464)")
	fs.StringVar(&opts.Connector, "connector", "", "the outbox's connector, checked not to be RUNNING (default: the spec's, or the name in --config)")
	fs.StringVar(&opts.ConnectURL, "connect-url", "", "Kafka Connect REST URL for that check (default $OUTBOXCTL_CONNECT_URL)")
	fs.BoolVar(&opts.NoConnectCheck, "no-connect-check", false, "do not ask Kafka Connect whether the outbox's connector runs")
	fs.DurationVar(&opts.MaxDBOutage, "max-db-outage", relay.DefaultMaxDatabaseOutage, "exit 1 once the outbox database has failed for this long (retried every poll interval until then; 0: retry for ever)")
	fs.StringVar(&opts.Filter, "filter", "", "COLUMN=VALUE: publish (and delete) only the rows whose COLUMN equals VALUE, under a lock of their own (outboxctl bench --relay-process runs the relay so, on its aggregate type)")
	fs.StringSliceVar(&opts.BooleanColumns, "boolean-columns", nil, "MySQL/MariaDB: tinyint(1) columns the connector delivers as booleans because it read their CREATE TABLE ... BOOLEAN in the binlog (a table created after the connector started); comma-separated")
	fs.StringSliceVar(&opts.JSONColumns, "json-columns", nil, "MariaDB: JSON (longtext) columns the connector delivers as io.debezium.data.Json because it read their CREATE TABLE ... JSON in the binlog (a table created after the connector started); comma-separated")
	fs.StringVar(&opts.WorkerTimeZone, "worker-time-zone", "UTC", "the Connect worker JVM's default time zone (UTC or an IANA zone name), in which the connector's PostgreSQL tstzrange text is printed and pgjdbc parses temporal array elements (a GMT+hh:mm custom ID refuses a tstzrange column; a zone other than UTC refuses timestamp, timestamptz, time, timetz and tstzrange arrays; exit 2)")
	addKafkaClientFlags(fs, &opts.Kafka)
	c.AddCommand(newRelayCutoverCmd(env))
	return c
}

type relayCutoverOptions struct {
	relayOptions
	To         string
	Connector  string
	ConnectURL string
	Timeout    time.Duration
	Observe    time.Duration
}

func newRelayCutoverCmd(env *Env) *cobra.Command {
	opts := &relayCutoverOptions{}
	c := &cobra.Command{
		Use:   "cutover --to cdc|relay (--config CONNECTOR.json | -f outbox.yaml [--outbox NAME]) [flags]",
		Short: "Check the steps of a move between the relay and the Debezium connector, one by one",
		Long: `Cutover checks, one by one and waiting for each, the steps of moving an
outbox between the polling relay and the Debezium connector (same connector
config, so consumers see the same records).

--to cdc (deploy the connector while the relay runs, then run this):
  1. the connector and its task are RUNNING;
  2. the connector streams (Kafka Connect holds offsets for it);
  3. the relays are fenced: a marker in the outbox table's comment that
     every relay checks keeps them from publishing, even a standby nobody
     stopped, until "cutover --to relay" removes it;
  4. no relay publishes any more: the cutover takes their lock;
  5. the rows still in the table are published once more.
  Events of the overlap window are published twice with the same event id;
  the inbox absorbs them. None is lost.

--to relay (run this while the connector still runs and the writer writes):
  1. the writer does not delete rows after inserting them: with -f, the
     spec's writer.deleteAfterInsert must be off; then the table is watched
     for --observe and must grow (PostgreSQL: rows inserted, by the table's
     insert counter, while the table never grew are a refusal; MySQL and
     MariaDB: a warning). Otherwise rows deleted in their inserting
     transaction would never be published once the connector stops;
  2. the connector is STOPPED or PAUSED (or deleted): stop it now;
  3. the fence of "cutover --to cdc" is removed: relays may publish;
  4. the rows in the table are counted: the relay publishes them all, again
     for those the connector published. Then start the relay.

Exit 0 when every step completed, 3 when the delete-after-insert check
refused the cutover (nothing was waited for), 1 when a step failed or
--timeout passed.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runRelayCutover(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringVar(&opts.To, "to", "", "cdc or relay")
	fs.StringVar(&opts.Config, "config", "", "connector JSON file: {\"name\",\"config\"} or a flat config map (then --connector)")
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder")
	fs.StringVar(&opts.Outbox, "outbox", "", "the outbox of the spec")
	fs.StringVar(&opts.Connector, "connector", "", "connector name (default: the name in --config, or the spec's)")
	fs.StringVar(&opts.ConnectURL, "connect-url", "", "Kafka Connect REST URL (default $OUTBOXCTL_CONNECT_URL)")
	fs.StringVar(&opts.BootstrapServers, "bootstrap-servers", "", "Kafka bootstrap servers (default $OUTBOXCTL_BOOTSTRAP_SERVERS)")
	fs.StringVar(&opts.DSN, "dsn", "", "outbox database DSN (default: built from the config's database.* settings)")
	fs.StringVar(&opts.EventRouterVersion, "eventrouter-version", eventrouter.Version36, "EventRouter semantics: 3.6, or 3.5")
	fs.DurationVar(&opts.PollInterval, "poll-interval", time.Second, "time between checks")
	fs.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "give up after this long")
	fs.DurationVar(&opts.Observe, "observe", cutover.DefaultObserve, "--to relay: how long to watch the table for delete-after-insert (0: skip the live check)")
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

func runRelayCutover(ctx context.Context, env *Env, opts *relayCutoverOptions) error {
	if opts.To != "cdc" && opts.To != "relay" {
		return UsageError(fmt.Errorf("--to %q: want cdc or relay", opts.To))
	}
	if (opts.Config != "") == (len(opts.Files) > 0) {
		return UsageError(errors.New("give exactly one of --config or -f"))
	}
	var conf map[string]string
	var err error
	name := opts.Connector
	if opts.Config != "" {
		if conf, err = readConnectorConfig(opts.Config); err != nil {
			return err
		}
		if name == "" {
			name = connectorName(opts.Config)
		}
	} else {
		var o *spec.Outbox
		if conf, o, err = specOutboxConnectorConfig(env, opts.Files, opts.Outbox, true); err != nil {
			return err
		}
		if name == "" {
			name = o.Connector.Name
		}
		if opts.To == "relay" && o.DeletesAfterInsert() {
			return WithExitCode(ExitCheckFailed, fmt.Errorf("outbox %q: writer.deleteAfterInsert is on: the relay would never see the rows; turn it off in the writer and the spec, then cut over", o.Name))
		}
	}
	if name == "" {
		return UsageError(errors.New("no connector name: pass --connector"))
	}
	_, _, db, err := openRelayDB(conf, opts.DSN)
	if err != nil {
		return err
	}
	defer db.Close()
	cc, err := connectClient(env, &connectFlags{connectEndpoint: connectEndpoint{URL: opts.ConnectURL}})
	if err != nil {
		return UsageError(err)
	}
	ro := relay.Options{BootstrapServers: opts.BootstrapServers, EventRouterVersion: opts.EventRouterVersion, PollInterval: opts.PollInterval,
		Logf: func(f string, a ...any) { fmt.Fprintf(env.IO.ErrOut, f+"\n", a...) }}
	kc, err := env.kafkaConfig(&opts.Kafka, opts.BootstrapServers)
	if err != nil {
		return err
	}
	ro.BootstrapServers, ro.Security, ro.Kafka = kc.BootstrapServers, kc.Security, kc.Properties
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	r, err := relay.New(ctx, db, conf, ro)
	if err != nil {
		if errors.Is(err, relay.ErrConfig) {
			return UsageError(err)
		}
		return err
	}
	defer r.Close()
	step := func(s string) {
		if w, ok := strings.CutPrefix(s, "WARNING: "); ok {
			fmt.Fprintf(env.IO.Out, "warn %s\n", w)
			return
		}
		fmt.Fprintf(env.IO.Out, "ok  %s\n", s)
	}
	if opts.To == "cdc" {
		return cutover.ToCDC(ctx, r, cc, name, step)
	}
	observe := opts.Observe
	if observe == 0 {
		observe = -1 // no live check
	}
	err = cutover.ToRelay(ctx, r, cc, name, cutover.ToRelayOptions{Observe: observe}, step)
	if errors.Is(err, cutover.ErrDeleteAfterInsert) {
		return WithExitCode(ExitCheckFailed, err)
	}
	return err
}

// connectorName is the "name" of a {"name","config"} connector file.
func connectorName(path string) string {
	b, err := readInput(nil, path, inputConnectorConfig)
	if err != nil {
		return ""
	}
	var v struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(b, &v)
	return v.Name
}

func runRelay(ctx context.Context, env *Env, opts *relayOptions, flagsSet func(string) bool) error {
	if (opts.Config != "") == (len(opts.Files) > 0) {
		return UsageError(errors.New("give exactly one of --config or -f"))
	}
	if opts.Outbox != "" && len(opts.Files) == 0 {
		return UsageError(errors.New("--outbox needs -f"))
	}
	if opts.Batch <= 0 {
		return UsageError(fmt.Errorf("--batch %d: want a positive number of rows", opts.Batch))
	}
	if opts.PollInterval <= 0 {
		return UsageError(fmt.Errorf("--poll-interval %s: want a positive duration", opts.PollInterval))
	}
	var conf map[string]string
	var err error
	connector := opts.Connector
	if opts.Config != "" {
		conf, err = readConnectorConfig(opts.Config)
		if connector == "" {
			connector = connectorName(opts.Config)
		}
	} else {
		var o *spec.Outbox
		if conf, o, err = specOutboxConnectorConfig(env, opts.Files, opts.Outbox, true); err == nil && o.Relay != nil {
			err = relayDefaults(opts, o.Relay, flagsSet)
		}
		if err == nil && connector == "" {
			connector = o.Connector.Name
		}
	}
	if err != nil {
		return err
	}
	ro := relay.Options{
		BootstrapServers:   opts.BootstrapServers,
		Transform:          opts.Transform,
		EventRouterVersion: opts.EventRouterVersion,
		OrderColumn:        opts.OrderColumn,
		MarkColumn:         opts.MarkColumn,
		Batch:              opts.Batch,
		PollInterval:       opts.PollInterval,
		MaxDatabaseOutage:  opts.MaxDBOutage,
		BooleanColumns:     opts.BooleanColumns,
		JSONColumns:        opts.JSONColumns,
		WorkerTimeZone:     opts.WorkerTimeZone,
		Logf:               func(f string, a ...any) { fmt.Fprintf(env.IO.ErrOut, f+"\n", a...) },
	}
	if opts.MaxDBOutage <= 0 {
		ro.MaxDatabaseOutage = -1 // retry for ever
	}
	if opts.Filter != "" {
		col, val, ok := strings.Cut(opts.Filter, "=")
		if !ok || col == "" {
			return UsageError(fmt.Errorf("--filter %q: want COLUMN=VALUE", opts.Filter))
		}
		ro.Filter = relay.Filter{Column: col, Value: val}
	}
	kc, err := env.kafkaConfig(&opts.Kafka, opts.BootstrapServers)
	if err != nil {
		return err
	}
	ro.BootstrapServers, ro.Security, ro.Kafka = kc.BootstrapServers, kc.Security, kc.Properties
	if opts.WorkerConfig != "" {
		if ro.Worker, err = readProperties(opts.WorkerConfig); err != nil {
			return UsageError(err)
		}
	}
	if opts.ProducerConfig != "" {
		props, err := readProperties(opts.ProducerConfig)
		if err != nil {
			return UsageError(err)
		}
		// The --kafka-config properties win over the file's.
		maps.Copy(props, ro.Kafka)
		ro.Kafka = props
	}
	driver, dsn, db, err := openRelayDB(conf, opts.DSN)
	if err != nil {
		return err
	}
	defer db.Close()

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if opts.Listen != "" {
		if driver != "pgx" {
			return UsageError(errors.New("--listen needs a PostgreSQL outbox"))
		}
		wake, err := relay.Listen(ctx, dsn, opts.Listen, ro.Logf)
		if err != nil {
			return err
		}
		ro.Wake = wake
	}
	var metrics *relayprom.Metrics
	if opts.MetricsAddr != "" {
		if metrics, err = relayprom.New(relayprom.Config{}); err != nil {
			return err
		}
		ro.OnBatch = metrics.ObserveBatch
	}
	r, err := relay.New(ctx, db, conf, ro)
	if err != nil {
		if errors.Is(err, relay.ErrConfig) {
			return UsageError(err)
		}
		return err
	}
	defer r.Close()
	if metrics != nil {
		metrics.Add(r)
		ln, err := net.Listen("tcp", opts.MetricsAddr)
		if err != nil {
			return UsageError(fmt.Errorf("--metrics-addr: %w", err))
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", metrics.Handler())
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		ro.Logf("relay: metrics on http://%s/metrics", ln.Addr())
	}
	if connector != "" && !opts.NoConnectCheck {
		if err := checkNoConnector(ctx, env, opts.ConnectURL, connector, r.Table(), ro.Logf); err != nil {
			return err
		}
	}
	if opts.Once {
		err = r.Drain(ctx)
	} else {
		err = r.Run(ctx)
	}
	st := r.Stats()
	fmt.Fprintf(env.IO.Out, "relay %s: published %d, dropped %d, failed attempts %d\n", r.Table(), st.Published, st.Dropped, st.Failed)
	if errors.Is(err, relay.ErrFenced) {
		return WithExitCode(ExitCheckFailed, err)
	}
	return err
}

// checkNoConnector refuses (exit 3) to relay a table whose connector runs:
// the connector publishes it, and the relay would publish every event a
// second time. A connector that is not deployed, PAUSED, STOPPED or FAILED
// publishes nothing; Connect unreachable is a warning.
func checkNoConnector(ctx context.Context, env *Env, url, name, table string, logf func(string, ...any)) error {
	cc, err := connectClient(env, &connectFlags{connectEndpoint: connectEndpoint{URL: url}})
	if err != nil {
		return UsageError(err)
	}
	st, err := cc.Status(ctx, name)
	switch {
	case errors.Is(err, connect.ErrNotFound):
		return nil
	case err != nil:
		logf("relay: warning: could not check that connector %s does not publish %s (%v): make sure it is stopped, or pass --no-connect-check", name, table, err)
		return nil
	}
	active := func(s string) bool {
		return s == connect.StateRunning || s == connect.StateUnassigned || s == connect.StateRestarting
	}
	running := active(st.Connector.State)
	for _, tk := range st.Tasks {
		running = running || active(tk.State)
	}
	if running {
		return WithExitCode(ExitCheckFailed, fmt.Errorf("connector %s is %s and publishes %s: the relay would publish every event a second time; stop the connector first (outboxctl relay cutover --to relay checks the steps), or give the relay's outbox another connector name", name, st.Connector.State, table))
	}
	return nil
}

// relayDefaults takes the spec's relay settings for the flags not given.
func relayDefaults(opts *relayOptions, r *spec.RelaySpec, set func(string) bool) error {
	ss, err := relay.ParseSpec(r)
	if err != nil {
		return UsageError(err)
	}
	if ss.OrderColumn != "" && !set("order-column") {
		opts.OrderColumn = ss.OrderColumn
	}
	if ss.Batch > 0 && !set("batch") {
		opts.Batch = ss.Batch
	}
	if ss.Notify != "" && !set("listen") {
		opts.Listen = ss.Notify
	}
	if ss.PollInterval > 0 && !set("poll-interval") {
		opts.PollInterval = ss.PollInterval
	}
	if len(ss.BooleanColumns) > 0 && !set("boolean-columns") {
		opts.BooleanColumns = ss.BooleanColumns
	}
	if len(ss.JSONColumns) > 0 && !set("json-columns") {
		opts.JSONColumns = ss.JSONColumns
	}
	return nil
}

// skipRelay drops the connectors of the outboxes the relay publishes: plan
// and deploy leave no connector for them (with --prune, a deployed one is
// deleted).
func skipRelay(cs []connectorconfig.Connector) []connectorconfig.Connector {
	var out []connectorconfig.Connector
	for _, c := range cs {
		if !c.Provenance.Relay {
			out = append(out, c)
		}
	}
	return out
}

// openRelayDB opens the outbox's database for the relay: the DSN given
// (--dsn) or the connector config's, with its driver (relay.DSN). Errors
// are bad input.
func openRelayDB(conf map[string]string, dsnFlag string) (driver, dsn string, db *sql.DB, err error) {
	if driver, dsn, err = relay.DSN(conf, dsnFlag); err != nil {
		return "", "", nil, UsageError(err)
	}
	if db, err = sql.Open(driver, dsn); err != nil {
		return "", "", nil, UsageError(err)
	}
	return driver, dsn, db, nil
}
