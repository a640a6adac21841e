package cmd

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/exporter"
)

type exporterOptions struct {
	Files         []string
	Listen        string
	Groups        []string
	ScrapeTimeout time.Duration
	NoConnect     bool
	Connect       connectFlags
	Kafka         kafkaClientFlags
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
and task states on Kafka Connect, and the lag of the consumer groups that
--group names. Every metric starts with outbox_; 'go doc ./exporter' lists
them.

The databases are read as the connector's user, with the host, port and
password the spec's connection and ${env:…}/${file:…} references give (the
same DSN as 'outboxctl relay'). Each scrape is bounded by --scrape-timeout;
a target (a database, a connector, Kafka) that fails or does not answer in
time is outbox_up{target=…}=0, not a failed scrape.`,
		Example: `  $ outboxctl exporter -f outbox.yaml --listen :9187
  $ outboxctl exporter -f outbox.yaml --group billing --group shipping --scrape-timeout 5s`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runExporter(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.Listen, "listen", ":9187", "address to serve /metrics on")
	fs.StringArrayVar(&opts.Groups, "group", nil, "consumer group whose lag to export (repeatable; needs $OUTBOXCTL_BOOTSTRAP_SERVERS)")
	fs.DurationVar(&opts.ScrapeTimeout, "scrape-timeout", exporter.DefaultTimeout, "bound of each scrape; targets still running at it are up=0")
	fs.BoolVar(&opts.NoConnect, "no-connect", false, "do not read connector states from Kafka Connect")
	addConnectFlags(fs, &opts.Connect)
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

func runExporter(ctx context.Context, env *Env, opts *exporterOptions) error {
	if opts.ScrapeTimeout <= 0 {
		return UsageError(fmt.Errorf("--scrape-timeout %s: want a positive duration", opts.ScrapeTimeout))
	}
	targets, _, err := specTargets(env, opts.Files)
	if err != nil {
		return err
	}
	cfg := exporter.Config{Groups: opts.Groups, Timeout: opts.ScrapeTimeout}
	for _, t := range targets {
		driver, dsn, err := relayDSN(t.Connector.Config, "")
		if err != nil {
			return UsageError(fmt.Errorf("outbox %s: %w", t.Outbox.Name, err))
		}
		db, err := sql.Open(driver, dsn)
		if err != nil {
			return UsageError(fmt.Errorf("outbox %s: %w", t.Outbox.Name, err))
		}
		defer db.Close()
		db.SetMaxOpenConns(2)
		et := exporter.Target{Outbox: t.Outbox, DB: db, Slot: t.Config("slot.name")}
		if !t.Outbox.RelayPublished() {
			et.Connector = t.Connector.Name
		}
		cfg.Targets = append(cfg.Targets, et)
	}
	if !opts.NoConnect {
		if cfg.Connect, err = connectClient(env, &opts.Connect); err != nil {
			return err
		}
	}
	if len(opts.Groups) > 0 {
		kc, err := env.kafkaConfig(&opts.Kafka, "")
		if err != nil {
			return err
		}
		admin, err := newKafkaAdmin(env, kc)
		if err != nil {
			return err
		}
		defer admin.Close()
		cfg.Kafka = admin.AdminClient
	}
	col, err := exporter.New(cfg)
	if err != nil {
		return UsageError(err)
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(col); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
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
