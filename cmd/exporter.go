package cmd

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/exporter/exporterkafka"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/provisioning/kafkaadmin"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/spec"
	"github.com/outboxctl/outboxctl/verify"
)

type exporterOptions struct {
	Files           []string
	Listen          string
	Groups          []string
	ScrapeTimeout   time.Duration
	MaxOldestRowAge time.Duration
	NoConnect       bool
	ProbeInterval   time.Duration
	DSNs            []string
	DBAddresses     []string
	Connect         connectFlags
	Kafka           kafkaClientFlags
}

func newExporterCmd(env *Env) *cobra.Command {
	opts := &exporterOptions{}
	c := &cobra.Command{
		Use:   "exporter [-f outbox.yaml] [--listen :9187] [--group NAME]...",
		Short: "Serve Prometheus metrics for the outboxes of a spec",
		Long: `Exporter serves /metrics for every outbox of the spec: the PostgreSQL
replication slot (retained WAL, confirmed-flush lag, active, wal_status),
the MySQL/MariaDB binlog lag and retention left behind the connector's
offset, the outbox table's row estimate and oldest row age, the connector
and task states on Kafka Connect, and the lag of the consumer groups: the
ones the spec declares (an outbox's consumers:, labelled with the outbox,
from the first scrape) and the ones --group names. A group with no
committed offset (not started, or a misspelt --group) is exported with
outbox_target_error{target="kafka",reason="missing"}, not left out. Every metric starts with outbox_; 'go doc ./exporter' lists
them.

The databases are read as the connector's user, with the host, port and
password the spec's connection and ${env:…}/${file:…} references give (the
same DSN as 'outboxctl relay'). --db-address [NAME=]HOST:PORT replaces the
host and port where the exporter reaches the database by another address
than Connect (a Docker service name, a proxy), for outbox NAME or, without
NAME=, for every outbox. --dsn NAME=DSN gives outbox NAME's DSN outright
(a literal, or env:VAR / file:PATH), for example when the connector's
password is a Kafka Connect config provider reference. An outbox with no
DSN (no host, or such a password, and no --dsn) is exported as down with
outbox_target_error reason "missing"; one whose connection cannot be
resolved (an unset ${env:…}) with reason "config"; the others are served,
and each is logged once. When none resolves, it is a usage error.

Each scrape is bounded by --scrape-timeout and by Prometheus's own scrape
timeout (the X-Prometheus-Scrape-Timeout-Seconds header) less a margin: a
target (a database, a connector, Kafka) that fails or does not answer in
time is outbox_up{target=…}=0 with outbox_target_error{reason=…}=1, not a
lost scrape. Each change of a target's state is logged once to stderr.

outbox_retention_seconds (the OutboxKeptRowTooOld alert) is, for each
outbox that keeps rows after publishing, the retention its spec declares
("retention: 72h"), else --max-oldest-row-age: doctor's flag of the same
name and default, and the same rule (provisioning.OldestRowLimit), so the
two thresholds agree.

--probe-interval runs verify's canary for every outbox on that schedule
(off by default; it writes a canary row, as 'outboxctl verify' does, with
the same database connection) and exports its success and stage latencies
(outbox_canary_success, outbox_canary_stage_seconds{stage}).`,
		Example: `  $ outboxctl exporter -f outbox.yaml --listen :9187
  $ outboxctl exporter -f outbox.yaml --group billing --group shipping --scrape-timeout 5s
  $ outboxctl exporter -f outbox.yaml --probe-interval 1m
  $ outboxctl exporter -f outbox.yaml --db-address 127.0.0.1:5432 --dsn billing=env:BILLING_DSN`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runExporter(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.Listen, "listen", ":9187", "address to serve /metrics on")
	fs.StringArrayVar(&opts.Groups, "group", nil, "consumer group whose lag to export besides the spec's declared consumers (repeatable)")
	fs.DurationVar(&opts.ScrapeTimeout, "scrape-timeout", exporter.DefaultTimeout, "bound of each scrape; targets still running at it are up=0")
	fs.DurationVar(&opts.MaxOldestRowAge, "max-oldest-row-age", provisioning.DefaultMaxOldestRowAge, "age the oldest kept row may reach where the spec declares no retention (exported as outbox_retention_seconds; doctor's threshold)")
	fs.BoolVar(&opts.NoConnect, "no-connect", false, "do not read connector states from Kafka Connect")
	fs.StringArrayVar(&opts.DSNs, "dsn", nil, "NAME=DSN: outbox NAME's database DSN (literal, env:VAR or file:PATH; repeatable; default: from the spec's connection)")
	fs.StringArrayVar(&opts.DBAddresses, "db-address", nil, "[NAME=]HOST:PORT: reach outbox NAME's database (every outbox's without NAME=) there instead of the spec's host and port (repeatable)")
	fs.DurationVar(&opts.ProbeInterval, "probe-interval", 0, "run verify's canary for every outbox at this interval and export it (0: off)")
	addConnectFlags(fs, &opts.Connect)
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

func runExporter(ctx context.Context, env *Env, opts *exporterOptions) error {
	if opts.ScrapeTimeout <= 0 {
		return UsageError(fmt.Errorf("--scrape-timeout %s: want a positive duration", opts.ScrapeTimeout))
	}
	if opts.ProbeInterval < 0 {
		return UsageError(fmt.Errorf("--probe-interval %s: want a positive duration, or 0 for no canary", opts.ProbeInterval))
	}
	if opts.MaxOldestRowAge <= 0 {
		return UsageError(fmt.Errorf("--max-oldest-row-age %s: want a positive duration", opts.MaxOldestRowAge))
	}
	targets, err := exporterTargets(env, opts.Files)
	if err != nil {
		return err
	}
	conns, err := exporterConns(env, targets, opts.DSNs, opts.DBAddresses)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(env.IO.ErrOut, nil))
	cfg := exporter.Config{Timeout: opts.ScrapeTimeout, MaxOldestRowAge: opts.MaxOldestRowAge, Logger: logger}
	resolved := 0
	for _, t := range targets {
		if t.err != nil {
			logger.Warn("exporter: outbox not resolved; exported as down", slog.String("outbox", t.outbox.Name), slog.String("error", t.err.Error()))
			cfg.Targets = append(cfg.Targets, exporter.Target{Outbox: t.outbox, Err: t.err})
			continue
		}
		et, db, err := exporterTarget(t.target, conns[t.outbox.Name])
		if err != nil {
			logger.Warn("exporter: outbox not resolved; exported as down", slog.String("outbox", t.outbox.Name), slog.String("error", err.Error()))
			cfg.Targets = append(cfg.Targets, exporter.Target{Outbox: t.outbox, Err: err})
			continue
		}
		defer db.Close()
		cfg.Targets = append(cfg.Targets, et)
		resolved++
	}
	if resolved == 0 && len(cfg.Targets) > 0 {
		t := cfg.Targets[0]
		return UsageError(fmt.Errorf("outbox %s: %w", t.Outbox.Name, t.Err))
	}
	if !opts.NoConnect {
		if cfg.Connect, err = connectClient(env, &opts.Connect); err != nil {
			return err
		}
	}
	// The consumer groups: the spec's declared ones (consumers:, labelled
	// with their outbox) from the first scrape, and the --group ones.
	cfg.Groups, cfg.GroupOutbox = exporterGroups(targets, opts.Groups)
	if len(cfg.Groups) > 0 {
		admin, kc, err := env.openKafkaAdmin(&opts.Kafka)
		if err != nil {
			return err
		}
		defer admin.Close()
		cfg.Kafka = kafkaadmin.New(admin)
		// The lag in seconds reads the record at each committed offset with
		// a consumer that never joins its group nor commits.
		cm, err := kc.With(kafka.ConfigMap{"group.id": "outboxctl-exporter", "enable.auto.commit": false, "auto.offset.reset": "earliest", "enable.partition.eof": true})
		if err != nil {
			return UsageError(err)
		}
		reader, err := kafka.NewConsumer(&cm)
		if err != nil {
			return fmt.Errorf("exporter: kafka consumer (bootstrap servers %s): %w", kc.BootstrapServers, err)
		}
		defer reader.Close()
		cfg.Records = exporterkafka.NewRecordTimes(reader)
	}
	if opts.ProbeInterval > 0 {
		kc, err := env.kafkaConfig(&opts.Kafka, "")
		if err != nil {
			return err
		}
		for _, t := range targets {
			if t.err != nil {
				continue // exported as down already
			}
			db, err := outboxDB(env, t.outbox)
			if err != nil {
				return err
			}
			defer db.Close()
			vo := verify.Options{Outbox: t.outbox, Config: t.target.Connector.Config, DB: db, Kafka: kc,
				Timeout: min(verify.DefaultTimeout, max(opts.ProbeInterval, 10*time.Second)), Logf: env.logf}
			if cfg.Connect != nil && !t.outbox.RelayPublished() {
				client, name := cfg.Connect, t.target.Connector.Name
				vo.ConnectorState = func(ctx context.Context) (string, error) { return connectorState(ctx, client, name) }
			}
			cfg.Probes = append(cfg.Probes, exporterkafka.Probe(vo))
		}
		cfg.ProbeInterval = opts.ProbeInterval
	}
	col, err := exporter.New(cfg)
	if err != nil {
		return UsageError(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", col.Handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "outboxctl exporter: metrics on /metrics")
	})
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("exporter: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: opts.ScrapeTimeout + 10*time.Second}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	probes := make(chan struct{})
	go func() { defer close(probes); col.RunProbes(ctx) }()
	defer func() { stop(); <-probes }() // a canary in flight deletes its row before the exit
	fmt.Fprintf(env.IO.ErrOut, "exporter: serving %d outboxes on http://%s/metrics\n", len(cfg.Targets), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("exporter: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// exporterOutbox is one outbox of the spec: its target, or why it could
// not be resolved.
type exporterOutbox struct {
	outbox *spec.Outbox
	target provisioning.Target
	err    error
}

// exporterTargets resolves the outboxes of the spec one by one, so that
// one whose references do not resolve does not stop the others. A spec
// that does not load, or whose every outbox fails, is an error.
func exporterTargets(env *Env, files []string) ([]exporterOutbox, error) {
	ts, _, err := specTargets(env, files)
	if err == nil {
		out := make([]exporterOutbox, len(ts))
		for i, t := range ts {
			out[i] = exporterOutbox{outbox: t.Outbox, target: t}
		}
		return out, nil
	}
	if !errors.Is(err, spec.ErrSecretUnresolved) {
		return nil, err
	}
	s, lerr := loadSpec(env, files)
	if lerr != nil {
		return nil, lerr
	}
	if len(s.Outboxes) < 2 {
		return nil, err
	}
	opts := genOptions(env, envLookup(env), nil)
	var out []exporterOutbox
	ok := false
	for i := range s.Outboxes {
		one := *s
		one.Outboxes = s.Outboxes[i : i+1]
		ts, terr := provisioning.Targets(&one, opts)
		if terr != nil || len(ts) != 1 {
			if terr == nil {
				terr = fmt.Errorf("outbox %s: no target", s.Outboxes[i].Name)
			}
			out = append(out, exporterOutbox{outbox: &s.Outboxes[i], err: terr})
			continue
		}
		ok = true
		out = append(out, exporterOutbox{outbox: ts[0].Outbox, target: ts[0]})
	}
	if !ok {
		return nil, err
	}
	return out, nil
}

// exporterConn is how the exporter reaches one outbox's database: its
// --dsn, or the address (--db-address) that replaces the connector's
// host and port.
type exporterConn struct {
	dsn        string
	host, port string
}

// exporterConns parses --dsn NAME=DSN and --db-address [NAME=]HOST:PORT
// into each outbox's connection; a NAME that is no outbox of the spec, or
// given twice, is a usage error.
func exporterConns(env *Env, targets []exporterOutbox, dsns, addrs []string) (map[string]exporterConn, error) {
	known := map[string]bool{}
	for _, t := range targets {
		known[t.outbox.Name] = true
	}
	conns := map[string]exporterConn{}
	checkName := func(flag, name string) error {
		if !known[name] {
			return UsageError(fmt.Errorf("%s %s=…: the spec has no outbox %s", flag, name, name))
		}
		return nil
	}
	seenDSN := map[string]bool{}
	for _, v := range dsns {
		name, dsn, ok := strings.Cut(v, "=")
		if name = strings.TrimSpace(name); !ok || name == "" || dsn == "" {
			return nil, UsageError(errors.New("--dsn: want NAME=DSN (NAME an outbox of the spec)"))
		}
		if err := checkName("--dsn", name); err != nil {
			return nil, err
		}
		if seenDSN[name] {
			return nil, UsageError(fmt.Errorf("--dsn %s=…: given twice", name))
		}
		seenDSN[name] = true
		if isSecretRef(dsn) {
			var err error
			if dsn, err = secretRef(env, dsn, "--dsn "+name); err != nil {
				return nil, err
			}
		}
		c := conns[name]
		c.dsn = dsn
		conns[name] = c
	}
	var all *exporterConn
	seenAddr := map[string]bool{}
	for _, v := range addrs {
		name, addr, named := strings.Cut(v, "=")
		if !named {
			name, addr = "", v
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host == "" || port == "" {
			return nil, UsageError(fmt.Errorf("--db-address %q: want [NAME=]HOST:PORT", v))
		}
		if named {
			if err := checkName("--db-address", name); err != nil {
				return nil, err
			}
		}
		if seenAddr[name] {
			return nil, UsageError(fmt.Errorf("--db-address %q: given twice for the same outbox", v))
		}
		seenAddr[name] = true
		if !named {
			all = &exporterConn{host: host, port: port}
			continue
		}
		c := conns[name]
		c.host, c.port = host, port
		conns[name] = c
	}
	if all != nil {
		for name := range known {
			if c := conns[name]; c.host == "" {
				c.host, c.port = all.host, all.port
				conns[name] = c
			}
		}
	}
	return conns, nil
}

// exporterTarget opens t's database (as the relay does) for the exporter:
// with conn's DSN, else the connector's database.* settings with conn's
// host and port. No DSN to be had is ErrNoDSN (reason missing).
func exporterTarget(t provisioning.Target, conn exporterConn) (exporter.Target, *sql.DB, error) {
	driver, dsn, err := exporterDSN(t, conn)
	if err != nil {
		return exporter.Target{}, nil, err
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return exporter.Target{}, nil, err
	}
	db.SetMaxOpenConns(2)
	et := exporter.Target{Outbox: t.Outbox, DB: db, Slot: t.Config("slot.name")}
	if !t.Outbox.RelayPublished() {
		et.Connector = t.Connector.Name
	}
	return et, db, nil
}

// exporterDSN is the driver and DSN exporterTarget opens.
func exporterDSN(t provisioning.Target, conn exporterConn) (string, string, error) {
	conf := t.Connector.Config
	if conn.host != "" && conn.dsn == "" {
		conf = maps.Clone(conf)
		conf["database.hostname"], conf["database.port"] = conn.host, conn.port
	}
	driver, dsn, err := relay.DSN(conf, conn.dsn)
	if err != nil {
		if errors.Is(err, relay.ErrNoDSN) {
			err = fmt.Errorf("%w: %w (--dsn %s=DSN)", exporter.ErrNoDSN, err, t.Outbox.Name)
		}
		return "", "", err
	}
	return driver, dsn, nil
}

// exporterGroups is the consumer groups whose lag the exporter exports:
// every group the spec's outboxes declare (consumers:), with its outbox
// label, then the --group ones not declared (outbox label ""), each once.
// A --group that names no group (a misspelt name) is still exported: its
// Kafka target is down with reason missing.
func exporterGroups(targets []exporterOutbox, flags []string) ([]string, map[string]string) {
	var groups []string
	outboxOf := map[string]string{}
	seen := map[string]bool{}
	for _, t := range targets {
		for _, cs := range t.outbox.Consumers {
			if cs.Group == "" || seen[cs.Group] {
				continue
			}
			seen[cs.Group] = true
			groups = append(groups, cs.Group)
			outboxOf[cs.Group] = t.outbox.Name
		}
	}
	for _, g := range flags {
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	return groups, outboxOf
}
