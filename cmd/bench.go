package cmd

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/bench"
	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/relay"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

type benchOptions struct {
	Files      []string
	Outbox     string
	Compare    string
	Rate       string
	Duration   time.Duration
	Inbox      bool
	Partitions int
	Batch      int
	BatchWait  time.Duration
	Output     string
	Plot       string
	Kafka      kafkaClientFlags

	Publisher         string
	RelayPollInterval time.Duration
	RelayNotify       bool
	RelayBatch        int
	// RelayProcess: the relay runs as an outboxctl relay process of its
	// own; RelayCommand is that executable (default: this one).
	RelayProcess bool
	RelayCommand string
	// relayFlags: a --relay-* flag was given.
	relayFlags bool
	// Baseline: a bare confluent-kafka-go consumer reads the same topic
	// in the same run (the SDK's overhead is the difference of the p50s).
	Baseline bool
	// CPUProfile (hidden --cpuprofile): where the bench's own CPU goes.
	CPUProfile string
}

func newBenchCmd(env *Env) *cobra.Command {
	opts := &benchOptions{}
	c := &cobra.Command{
		Use:   "bench -f SPEC --outbox NAME [--compare NAME] [--rate N|max|N,N...] [--duration D] [--inbox] [--partitions N] [--publisher cdc|relay] [-o text|json|yaml] [--plot FILE]",
		Short: "Measure an outbox pipeline end to end: loss, duplicates, order, commit->handler latency",
		Long: `Bench writes events into the outbox table of --outbox with the outbox
writer, one real transaction per event, at a steady open-loop rate: every
send time is scheduled in advance, and a send that starts late counts its
delay in its latency (no coordinated omission). The outbox's connector
(outboxctl provision + deploy) routes them to a topic of the run's own
(aggregate type bench<run id>, --partitions partitions), and a consumer
built with the SDK (consumer.Router + consumer.Consumer) reads it from a
fresh consumer group, with --inbox through an inbox.SQLStore in the outbox's
database. Events are matched by event id.

Reported: sent, handled, lost, duplicate effects, events out of order per
aggregate, the achieved rate and the latency commit->handler (p50, p90,
p99, p99.9, max); where time goes: the writers' largest delay behind
their schedule, the CPU of the bench's process (percent of one core) and
the machine's 1-minute load average at the end of the run (each step). --rate max searches for the highest rate sustained
(nothing lost, duplicated or reordered, >= 90 % of the target sent, p99 <=
2 s): it doubles from 200/s until a step fails, then bisects to within
15 %, in at most 12 steps of --duration each (halving from 200/s when
that already fails). --plot writes the latency histogram (PNG, SVG or
PDF by the file's extension).

--publisher relay measures the relay package instead of the connector:
the bench runs a relay in-process (relay.New with the outbox's generated
connector config, as outboxctl relay does) on the same outbox table,
restricted to the run's aggregate type: it reads, publishes and deletes
only the bench's rows, and takes a lock of its own, so the table's own
relay is neither blocked nor waited for. --relay-poll-interval (default
100ms) and --relay-batch are its poll settings; --relay-notify wakes it with
LISTEN on the spec's relay.notify channel (postgres; outboxctl provision
creates the NOTIFY trigger). Before the relay starts, the bench writes a
probe row and waits 3 s: if it reaches the consumer, the outbox's
connector (or another relay) publishes the table and would publish every
bench row twice, and the bench stops with exit 1; pause the connector or
bench an outbox the relay publishes (relay: in the spec, no connector).
--relay-process runs that relay as a separate "outboxctl relay" process,
as users run it, so that the writer, the consumer and the relay do not
share one Go runtime: the bench starts it on the outbox's generated
connector config with the same --relay-* settings and --filter on the
run's aggregate type, stops it with an interrupt at the end (killed 30 s
later) and fails with its exit status and last output lines if it exits
with an error; its output goes to stderr.

Connections are those of provision: OUTBOXCTL_PG_DSN, OUTBOXCTL_MARIADB_DSN or
OUTBOXCTL_MYSQL_DSN (pointed at the outbox's database) and
OUTBOXCTL_BOOTSTRAP_SERVERS. The run's topic, consumer group and inbox tables
are deleted afterwards; its rows stay in the outbox table (aggregate type
bench<run id>) for the usual outbox cleanup. For an avro outbox the bench
registers its own schema as <topic>-value in the registry of
OUTBOXCTL_SCHEMA_REGISTRY_URL (credentials as for the schema commands) and
deletes it afterwards; a json outbox gets JSON payloads.

--compare OUTBOX measures a second outbox in the same run: for each rate of
--rate (a comma-separated list, such as 100,1000), --outbox, then the
--compare outbox, each with a topic and consumer group of its own. The
report is a table (rate, outbox, delivery, counts, p50, p99, p99.9) with
the second outbox's p99 as a multiple of the first's: give an
at-least-once and an exactly-once outbox (spec delivery) to measure what
exactly-once costs.

--baseline also runs a bare confluent-kafka-go consumer (its own consumer
group, no SDK, no inbox: the event id from the header, the JSON payload
with encoding/json) on the same topic in the same run, and reports its
latency commit->read and the SDK's overhead: the SDK consumer's p50 minus
the bare consumer's (with --inbox the inbox transactions count in it).
JSON outboxes only.

Exit codes: 0 nothing lost, duplicated or reordered; 3 something was; 1 an
operational error (a service unreachable, the connector not streaming).`,
		Example: `  $ outboxctl bench -f outbox.yaml --outbox orders --rate 1000 --duration 30s --inbox
  $ outboxctl bench -f outbox.yaml --outbox orders --rate max --duration 10s -o json --plot latency.png
  $ outboxctl bench -f outbox.yaml --outbox orders --publisher relay --relay-notify --rate 1000 --inbox
  $ outboxctl bench -f outbox.yaml --outbox orders --compare orders-eos --rate 100,1000 --duration 30s --inbox`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, f := range []string{"relay-poll-interval", "relay-notify", "relay-batch"} {
				opts.relayFlags = opts.relayFlags || c.Flags().Changed(f)
			}
			stop, err := startCPUProfile(opts.CPUProfile)
			if err != nil {
				return err
			}
			defer stop()
			return runBench(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	fs.StringVar(&opts.Outbox, "outbox", "", "the outbox to measure (default: the spec's only outbox)")
	fs.StringVar(&opts.Rate, "rate", "100", "events per second, or max to search for the highest sustained rate (with --compare: a list such as 100,1000)")
	fs.StringVar(&opts.Compare, "compare", "", "a second outbox measured at the same rates in the same run, after --outbox at each rate (for example its exactly-once twin)")
	fs.DurationVar(&opts.Duration, "duration", 10*time.Second, "how long to send (each step, with --rate max)")
	fs.BoolVar(&opts.Inbox, "inbox", false, "consume through an inbox (inbox.SQLStore) in the outbox's database")
	fs.IntVar(&opts.Partitions, "partitions", 4, "partitions of the run's topic")
	fs.IntVar(&opts.Batch, "batch", 1, "with --inbox: up to N records of a partition in one inbox transaction (consumer.Batch; 1: one per transaction)")
	fs.DurationVar(&opts.BatchWait, "batch-wait", 2*time.Millisecond, "with --batch > 1: the longest a batch waits to fill")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	fs.StringVar(&opts.Plot, "plot", "", "write the latency distribution to this file (.png, .svg, .pdf)")
	fs.StringVar(&opts.Publisher, "publisher", bench.PublisherCDC, "what publishes the outbox's rows: cdc (its Debezium connector) or relay (the relay package, in-process)")
	fs.DurationVar(&opts.RelayPollInterval, "relay-poll-interval", 100*time.Millisecond, "--publisher relay: time between polls when the table is drained")
	fs.BoolVar(&opts.RelayNotify, "relay-notify", false, "--publisher relay: wake the relay with LISTEN on the spec's relay.notify channel (postgres; the NOTIFY trigger of outboxctl provision)")
	fs.IntVar(&opts.RelayBatch, "relay-batch", relay.DefaultBatch, "--publisher relay: rows per poll")
	fs.BoolVar(&opts.RelayProcess, "relay-process", false, "--publisher relay: run the relay as a separate outboxctl relay process (as users run it), not in the bench's process")
	fs.StringVar(&opts.RelayCommand, "relay-command", "", "--relay-process: the outboxctl executable to run (default: this one)")
	_ = fs.MarkHidden("relay-command")
	addKafkaClientFlags(fs, &opts.Kafka)
	fs.BoolVar(&opts.Baseline, "baseline", false, "also measure a bare confluent-kafka-go consumer (no SDK) on the same topic in the same run: its latency and the SDK's p50 overhead (json outboxes)")
	fs.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a Go CPU profile of the run (writer, consumer, inbox) to this file")
	_ = fs.MarkHidden("cpuprofile")
	return c
}

// startCPUProfile writes a Go CPU profile to path (none when path is "")
// until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// benchTarget is what runBench measures: the pipeline and a description.
type benchTarget struct {
	Pipeline bench.Pipeline
	Setup    bench.Setup
	Close    func()
	// Drain overrides how long the run waits for the last events (0: the
	// default).
	Drain time.Duration
}

// openBenchTarget builds the real pipeline; tests replace it.
var openBenchTarget = openRealBenchTarget

func runBench(ctx context.Context, env *Env, opts *benchOptions) error {
	if opts.Compare != "" {
		return runBenchCompare(ctx, env, opts)
	}
	rate := float64(bench.RateMax)
	if opts.Rate != "max" {
		r, err := strconv.ParseFloat(opts.Rate, 64)
		if err != nil || !(r > 0) {
			return UsageError(fmt.Errorf("--rate %q: want a positive number of events per second or max", opts.Rate))
		}
		rate = r
	}
	if err := checkBenchFlags(opts, rate); err != nil {
		return err
	}
	s, err := loadSpec(env, opts.Files)
	if err != nil {
		return err
	}
	o, err := pickOutbox(s, opts.Outbox)
	if err != nil {
		return err
	}
	if err := checkBenchOutbox(opts, o); err != nil {
		return err
	}
	rep, err := runBenchOnce(ctx, env, s, o, opts, rate)
	if err != nil {
		return err
	}
	setup := rep.Setup
	if opts.Plot != "" {
		title := fmt.Sprintf("outbox %s, %.0f events/s", o.Name, rep.RateTarget)
		if setup.Inbox != "" {
			title += ", inbox"
		}
		if err := bench.Plot(rep, title, opts.Plot); err != nil {
			return err
		}
	}
	if isStructured(opts.Output) {
		if err := writeStructured(env.IO.Out, opts.Output, rep); err != nil {
			return err
		}
	} else if _, err := io.WriteString(env.IO.Out, rep.Text()); err != nil {
		return err
	}
	if rep.Failed() {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

// runBenchCompare is bench --compare: each rate of the --rate list on
// --outbox, then on the --compare outbox, one report.
func runBenchCompare(ctx context.Context, env *Env, opts *benchOptions) error {
	var rates []float64
	for _, f := range strings.Split(opts.Rate, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(r > 0) {
			return UsageError(fmt.Errorf("--rate %q with --compare: want a comma-separated list of positive events per second (max is not a rate to compare at)", opts.Rate))
		}
		if err := checkBenchFlags(opts, r); err != nil {
			return err
		}
		rates = append(rates, r)
	}
	if opts.Plot != "" {
		return UsageError(errors.New("--plot plots one run: it does not go with --compare"))
	}
	s, err := loadSpec(env, opts.Files)
	if err != nil {
		return err
	}
	first, err := pickOutbox(s, opts.Outbox)
	if err != nil {
		return err
	}
	second, err := pickOutbox(s, opts.Compare)
	if err != nil {
		return err
	}
	if first.Name == second.Name {
		return UsageError(fmt.Errorf("--compare %s: compare --outbox with another outbox", opts.Compare))
	}
	for _, o := range []*spec.Outbox{first, second} {
		if err := checkBenchOutbox(opts, o); err != nil {
			return err
		}
	}
	cmp := &bench.Comparison{}
	for _, rate := range rates {
		for _, o := range []*spec.Outbox{first, second} {
			fmt.Fprintf(env.IO.ErrOut, "bench: outbox %s (%s) at %.0f/s\n", o.Name, o.Delivery, rate)
			rep, err := runBenchOnce(ctx, env, s, o, opts, rate)
			if err != nil {
				return fmt.Errorf("outbox %s at %.0f/s: %w", o.Name, rate, err)
			}
			cmp.Runs = append(cmp.Runs, bench.ComparisonRun{Outbox: o.Name, Delivery: o.Delivery, Rate: rate, Report: rep})
		}
	}
	if isStructured(opts.Output) {
		if err := writeStructured(env.IO.Out, opts.Output, cmp); err != nil {
			return err
		}
	} else if _, err := io.WriteString(env.IO.Out, cmp.Text()); err != nil {
		return err
	}
	if cmp.Failed() {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

// runBenchOnce measures o at rate with a pipeline of its own.
func runBenchOnce(ctx context.Context, env *Env, s *spec.Spec, o *spec.Outbox, opts *benchOptions, rate float64) (*bench.Report, error) {
	target, err := openBenchTarget(ctx, env, s, o, opts)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	progress := func(line string) { fmt.Fprintf(env.IO.ErrOut, "bench: %s\n", line) }
	rep, err := bench.Run(ctx, target.Pipeline, bench.Options{Rate: rate, Duration: opts.Duration, Drain: target.Drain, Aggregates: bench.DefaultAggregates, Progress: progress, Baseline: opts.Baseline})
	if err != nil {
		return nil, err
	}
	setup := target.Setup
	setup.Duration = opts.Duration.Seconds()
	setup.Aggregates = bench.DefaultAggregates
	rep.Setup = &setup
	rep.Publisher = opts.Publisher
	return rep, nil
}

// checkBenchFlags checks the flags that do not depend on the spec.
func checkBenchFlags(opts *benchOptions, rate float64) error {
	if opts.Duration <= 0 {
		return UsageError(fmt.Errorf("--duration %s: want > 0", opts.Duration))
	}
	if rate != bench.RateMax && rate*opts.Duration.Seconds() > bench.MaxEvents {
		return UsageError(fmt.Errorf("--rate %s × --duration %s is more than %d events: lower one of them", opts.Rate, opts.Duration, bench.MaxEvents))
	}
	if rate == bench.RateMax && 200*opts.Duration.Seconds() > bench.MaxEvents {
		return UsageError(fmt.Errorf("--rate max × --duration %s: the first step alone is more than %d events: lower --duration", opts.Duration, bench.MaxEvents))
	}
	if opts.Partitions <= 0 {
		return UsageError(fmt.Errorf("--partitions %d: want > 0", opts.Partitions))
	}
	if opts.Batch <= 0 {
		return UsageError(fmt.Errorf("--batch %d: want > 0", opts.Batch))
	}
	if opts.Batch > 1 && !opts.Inbox {
		return UsageError(fmt.Errorf("--batch %d needs --inbox: batches are inbox transactions", opts.Batch))
	}
	if err := checkBenchPublisher(opts); err != nil {
		return err
	}
	return nil
}

// checkBenchOutbox checks the flags against the outbox o.
func checkBenchOutbox(opts *benchOptions, o *spec.Outbox) error {
	if opts.RelayNotify && o.Database.Kind != spec.Postgres {
		return UsageError(fmt.Errorf("--relay-notify: outbox %s is a %s outbox: LISTEN/NOTIFY is PostgreSQL's", o.Name, o.Database.Kind))
	}
	if opts.RelayNotify && (o.Relay == nil || o.Relay.Notify == "") {
		return UsageError(fmt.Errorf("--relay-notify: outbox %s has no relay.notify channel in the spec (outboxctl provision creates the NOTIFY trigger for it)", o.Name))
	}
	if opts.Baseline && o.PayloadFormat == spec.FormatAvro {
		return UsageError(fmt.Errorf("--baseline: outbox %s has Avro payloads; the bare consumer decodes JSON only", o.Name))
	}
	return nil
}

// checkBenchPublisher checks --publisher and the --relay-* flags.
func checkBenchPublisher(opts *benchOptions) error {
	switch opts.Publisher {
	case bench.PublisherCDC:
		if opts.relayFlags {
			return UsageError(errors.New("--relay-poll-interval, --relay-notify and --relay-batch need --publisher relay"))
		}
		if opts.RelayProcess || opts.RelayCommand != "" {
			return UsageError(errors.New("--relay-process runs the relay as a process: it needs --publisher relay"))
		}
	case bench.PublisherRelay:
		if opts.RelayPollInterval <= 0 {
			return UsageError(fmt.Errorf("--relay-poll-interval %s: want > 0", opts.RelayPollInterval))
		}
		if opts.RelayBatch <= 0 {
			return UsageError(fmt.Errorf("--relay-batch %d: want > 0", opts.RelayBatch))
		}
		if opts.RelayCommand != "" && !opts.RelayProcess {
			return UsageError(errors.New("--relay-command needs --relay-process"))
		}
		if opts.RelayCommand != "" {
			if _, err := exec.LookPath(opts.RelayCommand); err != nil {
				return UsageError(fmt.Errorf("--relay-command %s: %w", opts.RelayCommand, err))
			}
		}
	default:
		return UsageError(fmt.Errorf("unknown --publisher %q: use cdc or relay", opts.Publisher))
	}
	return nil
}

func openRealBenchTarget(ctx context.Context, env *Env, s *spec.Spec, o *spec.Outbox, opts *benchOptions) (*benchTarget, error) {
	driver, dsn := adminDB(env, o)
	var err error
	if o.Database.Kind == spec.Postgres {
		dsn = settings.PostgresDSNWithDatabase(dsn, o.Database.Connection.DBName)
	} else if dsn, err = settings.MySQLDSNWithDatabase(dsn, o.Database.Connection.DBName); err != nil {
		return nil, UsageError(err)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("outbox %s: %w", o.Name, err)
	}
	db.SetMaxOpenConns(24)
	db.SetMaxIdleConns(24)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("outbox %s: database %s: %w", o.Name, o.Database.Connection.DBName, err)
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		db.Close()
		return nil, err
	}
	runID := time.Now().UTC().Format("0102150405") + hex.EncodeToString(b)
	kc, err := env.kafkaConfig(&opts.Kafka, "")
	if err != nil {
		db.Close()
		return nil, err
	}
	cfg := bench.PipelineConfig{Outbox: o, DB: db, BootstrapServers: kc.BootstrapServers, Security: kc.Security, Partitions: opts.Partitions, RunID: runID,
		Logger: slog.New(slog.NewTextHandler(env.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if len(kc.Properties) > 0 {
		cfg.Kafka = kafka.ConfigMap{}
		for k, v := range kc.Properties {
			cfg.Kafka[k] = v
		}
	}
	if o.PayloadFormat == spec.FormatAvro {
		// The registry of the schema commands: OUTBOXCTL_SCHEMA_REGISTRY_URL
		// and its credentials from the environment.
		if cfg.Registry, err = (&registryFlags{Timeout: registry.DefaultTimeout}).client(env); err != nil {
			db.Close()
			return nil, err
		}
	}
	if opts.Batch > 1 {
		cfg.Batch = consumer.Batch{MaxRecords: opts.Batch, MaxWait: opts.BatchWait}
	}
	setup := bench.Setup{Outbox: o.Name, Database: o.Database.Kind, Format: o.PayloadFormat, Partitions: opts.Partitions}
	closeRelay := func() {}
	if opts.Batch > 1 {
		setup.Batch = opts.Batch
	}
	if opts.Publisher == bench.PublisherRelay {
		conf, _, err := outboxConnectorConfig(env, s, o.Name, true)
		if err != nil {
			db.Close()
			return nil, err
		}
		rc := &bench.RelayConfig{Connector: conf, Options: relay.Options{BootstrapServers: kc.BootstrapServers, Security: kc.Security, Kafka: kc.Properties,
			PollInterval: opts.RelayPollInterval, Batch: opts.RelayBatch, Logf: func(f string, a ...any) { fmt.Fprintf(env.IO.ErrOut, "bench: "+f+"\n", a...) }}}
		setup.Relay = fmt.Sprintf("poll %s, batch %d", opts.RelayPollInterval, opts.RelayBatch)
		if opts.RelayNotify {
			rc.ListenDSN, rc.Channel = dsn, o.Relay.Notify
			setup.Relay += ", LISTEN " + o.Relay.Notify
		}
		if opts.RelayProcess {
			proc, cleanup, err := benchRelayProcess(conf, o, kc, opts)
			if err != nil {
				db.Close()
				return nil, err
			}
			rc.Process = proc
			setup.Relay += ", separate process"
			closeRelay = cleanup
		}
		cfg.Relay = rc
	}
	var inboxDB *sql.DB
	if opts.Inbox {
		// The consumer's own pool: its transactions never wait for the
		// writers' connections.
		if inboxDB, err = sql.Open(driver, dsn); err != nil {
			db.Close()
			return nil, err
		}
		inboxDB.SetMaxOpenConns(opts.Partitions + 4)
		// and keeps them: database/sql keeps 2 idle connections by
		// default, so with more lanes than that a finished transaction's
		// connection was closed and the next one opened a new session
		// (152 sessions in a 5 s run at 1,000/s)
		inboxDB.SetMaxIdleConns(opts.Partitions + 4)
		cfg.InboxDB, cfg.InboxDialect = inboxDB, inbox.MySQL
		if o.Database.Kind == spec.Postgres {
			cfg.InboxDialect = inbox.Postgres
		}
		setup.Inbox = string(cfg.InboxDialect)
	}
	closeAll := func() {
		closeRelay()
		db.Close()
		if inboxDB != nil {
			inboxDB.Close()
		}
	}
	p, err := bench.NewPipeline(ctx, cfg)
	if err != nil {
		closeAll()
		if errors.Is(err, bench.ErrUnsupported) {
			return nil, UsageError(err)
		}
		return nil, err
	}
	setup.Topic = p.(interface{ Topic() string }).Topic()
	return &benchTarget{Pipeline: p, Setup: setup, Close: closeAll}, nil
}

// benchRelayProcess is bench --relay-process: the command that runs
// `outboxctl relay` on the outbox's connector config (written to a private
// temporary file, with its secrets resolved as the in-process relay gets
// it, so the relay connects to the database as the connector would), the
// bench's Kafka (its security and properties in a private producer config
// file), the --relay-* settings and the run's filter. Cleanup
// removes the temporary files.
func benchRelayProcess(conf map[string]string, o *spec.Outbox, kc kafkaclient.Config, opts *benchOptions) (func(relay.Filter) (*exec.Cmd, error), func(), error) {
	exe := opts.RelayCommand
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, nil, fmt.Errorf("--relay-process: this executable: %w", err)
		}
	} else if p, err := exec.LookPath(exe); err == nil {
		exe = p
	} else {
		return nil, nil, UsageError(fmt.Errorf("--relay-command %s: %w", exe, err))
	}
	dir, err := os.MkdirTemp("", "outboxctl-bench-relay-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	km, err := kc.ConfigMap()
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	var props []string
	for k, v := range km {
		props = append(props, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(props)
	b, err := json.Marshal(conf)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "connector.json"), b, 0o600)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "producer.properties"), []byte(strings.Join(props, "\n")+"\n"), 0o600)
	}
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return func(f relay.Filter) (*exec.Cmd, error) {
		args := []string{"relay", "--config", filepath.Join(dir, "connector.json"), "--producer-config", filepath.Join(dir, "producer.properties"),
			"--bootstrap-servers", kc.BootstrapServers,
			"--poll-interval", opts.RelayPollInterval.String(), "--batch", strconv.Itoa(opts.RelayBatch),
			"--filter", f.Column + "=" + f.Value,
			// the bench's probe checked that nothing else publishes the
			// table; the relay's own check would ask Connect about the
			// outbox's connector
			"--no-connect-check"}
		if opts.RelayNotify {
			args = append(args, "--listen", o.Relay.Notify)
		}
		return exec.Command(exe, args...), nil
	}, cleanup, nil
}
