package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

const defaultSpecFile = "outbox.yaml"

type generateOptions struct {
	Files     []string
	Output    string
	OutDir    string
	NoResolve bool
	Kafka     kafkaFlags
}

func newGenerateCmd(env *Env) *cobra.Command {
	opts := &generateOptions{}
	c := &cobra.Command{
		Use:   "generate [-f outbox.yaml|dir]... [-o yaml|json] [--out-dir DIR]",
		Short: "Generate Debezium connector configs with the outbox EventRouter from an outbox spec",
		Long: `Generate turns an outbox spec into Debezium 3.6 connector configs
(PostgreSQL, MySQL, MariaDB) with the Outbox EventRouter. Keys are sorted and
the output is deterministic. In YAML output each important value carries a
"# reason:" comment; JSON output has a "reasons" object.

${env:NAME} and ${file:PATH} secret references are resolved (so a missing
variable is reported now), and every secret is masked in the output. Kafka
Connect config-provider placeholders such as ${file:/path:key} are passed
through as written. Use --no-resolve to skip the resolution.`,
		Example: `  $ outboxctl generate -f examples/outbox.yaml
  $ outboxctl generate -f specs/ -o json --out-dir build/connectors`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runGenerate(env, opts)
		},
	}
	fs := c.Flags()
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder (repeatable; default "+defaultSpecFile+")")
	addOutputFlag(c, &opts.Output, formatYAML, formatYAML, formatJSON)
	fs.StringVar(&opts.OutDir, "out-dir", "", "write one file per connector (<name>.yaml or <name>.json) into this folder instead of stdout")
	fs.BoolVar(&opts.NoResolve, "no-resolve", false, "do not resolve ${env:…}/${file:…} secret references")
	addKafkaFlags(fs, &opts.Kafka)
	return c
}

// envLookup resolves secret references from the process environment and
// files.
func envLookup(env *Env) *spec.Lookup {
	return &spec.Lookup{
		Env: func(n string) (string, bool) {
			if env.Getenv == nil {
				return "", false
			}
			v := env.Getenv(n)
			return v, v != ""
		},
		ReadFile: spec.ReadSecretFile,
	}
}

// loadSpec loads the spec files of -f (default outbox.yaml). A spec that
// does not load is bad input (exit 2). The files of a folder that are not
// outbox specs are named on stderr.
func loadSpec(env *Env, files []string, extra ...spec.Source) (*spec.Spec, error) {
	var paths []string
	stdin := stdinOnce(env)
	if len(extra) > 0 {
		stdin = func() (spec.Source, error) { return spec.Source{}, UsageError(errStdinTwice) }
	}
	for _, f := range files {
		if f != "-" {
			paths = append(paths, f)
			continue
		}
		src, err := stdin()
		if err != nil {
			return nil, err
		}
		extra = append(extra, src)
	}
	if len(paths) == 0 && len(extra) == 0 {
		paths = []string{defaultSpecFile}
	}
	s, err := spec.LoadWith(paths, extra...)
	if err != nil {
		return nil, UsageError(err)
	}
	for _, f := range s.Skipped {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: skipped %s: not an outbox spec\n", f)
	}
	return s, nil
}

// stdinName names standard input in messages and positions.
const stdinName = "<stdin>"

// errStdinTwice: -f - given more than once (standard input is read once).
var errStdinTwice = errors.New("-f -: standard input can be read only once")

// stdinOnce reads standard input (readStdin) on its first call, as the
// input named stdinName, and fails with errStdinTwice on the next ones.
func stdinOnce(env *Env) func() (spec.Source, error) {
	read := false
	return func() (spec.Source, error) {
		if read {
			return spec.Source{}, UsageError(errStdinTwice)
		}
		read = true
		data, err := readStdin(env)
		return spec.Source{Name: stdinName, Data: data}, err
	}
}

// readStdin reads the command's standard input, at most spec.MaxFileSize
// bytes.
func readStdin(env *Env) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(env.IO.In, spec.MaxFileSize+1))
	if err != nil {
		return nil, UsageError(fmt.Errorf("%s: %w", stdinName, err))
	}
	if len(data) > spec.MaxFileSize {
		return nil, UsageError(fmt.Errorf("%s: larger than %d bytes", stdinName, spec.MaxFileSize))
	}
	return data, nil
}

// kafkaFlags are the Kafka addresses generate and validate write into the
// MySQL/MariaDB schema history config.
type kafkaFlags struct {
	BootstrapServers        string
	ConnectBootstrapServers string
}

func addKafkaFlags(fs *pflag.FlagSet, f *kafkaFlags) {
	fs.StringVar(&f.BootstrapServers, "bootstrap-servers", "", "Kafka bootstrap servers for the MySQL/MariaDB schema history when the spec sets none (default: the "+settings.EnvBootstrapServers+" variable, else "+settings.DefaultBootstrapServers+")")
	fs.StringVar(&f.ConnectBootstrapServers, "connect-bootstrap-servers", "", "Kafka as Kafka Connect sees it (kafka:9092 under docker compose), for the MySQL/MariaDB schema history; overrides the spec's kafka.bootstrapServers (default: the "+settings.EnvConnectBootstrapServers+" variable)")
}

// genOptions are the generator options of a command: the flags, else the
// OUTBOX_* settings.
func genOptions(env *Env, lookup *spec.Lookup, kf *kafkaFlags) connectorconfig.Options {
	o := connectorconfig.Options{Lookup: lookup, BootstrapServers: env.Settings.BootstrapServers, ConnectBootstrapServers: env.Settings.ConnectBootstrapServers}
	if kf != nil && kf.BootstrapServers != "" {
		o.BootstrapServers = kf.BootstrapServers
	}
	if kf != nil && kf.ConnectBootstrapServers != "" {
		o.ConnectBootstrapServers = kf.ConnectBootstrapServers
	}
	return o
}

// generateConnectors generates the connectors of a spec; lookup and kf may
// be nil.
func generateConnectors(env *Env, s *spec.Spec, lookup *spec.Lookup, kf *kafkaFlags) ([]connectorconfig.Connector, error) {
	cs, err := connectorconfig.Generate(s, genOptions(env, lookup, kf))
	if err != nil {
		if errors.Is(err, spec.ErrSecretUnresolved) {
			return nil, UsageError(err)
		}
		return nil, err
	}
	return cs, nil
}

// specConnectors turns outbox spec files into the connectors plan and deploy
// compare with Kafka Connect: generated with secrets resolved, without the
// outboxes the relay publishes (see skipRelayPublished).
//
// With preflight (the command's name), validate's blocking rules run
// first (preflightSpec): deploy changes nothing for a spec validate refuses.
func specConnectors(env *Env, paths []string, preflight string, extra ...spec.Source) ([]connectorconfig.Connector, error) {
	s, err := loadSpec(env, paths, extra...)
	if err != nil {
		return nil, err
	}
	if preflight != "" {
		if err := preflightSpec(env, s, preflight); err != nil {
			return nil, err
		}
	}
	cs, err := generateConnectors(env, s, envLookup(env), nil)
	if err != nil {
		return nil, err
	}
	return skipRelay(cs), nil
}

func runGenerate(env *Env, opts *generateOptions) error {
	s, err := loadSpec(env, opts.Files)
	if err != nil {
		return err
	}
	var lookup *spec.Lookup
	if !opts.NoResolve {
		lookup = envLookup(env)
	}
	cs, err := generateConnectors(env, s, lookup, &opts.Kafka)
	if errors.Is(err, spec.ErrSecretUnresolved) {
		return UsageError(fmt.Errorf("%w\nset the variable (or make the file readable), or run with --no-resolve to print the references as written (the output then deploys too)", err))
	}
	if err != nil {
		return err
	}
	write := connectorconfig.WriteYAML
	if opts.Output == "json" {
		write = connectorconfig.WriteJSON
	}
	if opts.OutDir == "" {
		return write(env.IO.Out, cs)
	}
	// File names are connector names: refuse any that is not one plain
	// name inside the folder before writing anything (CONNECTOR_NAME_INVALID in validate).
	for i := range cs {
		if err := connectorconfig.ValidConnectorName(cs[i].Name); err != nil {
			return UsageError(fmt.Errorf("--out-dir: %w (no file written)", err))
		}
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return err
	}
	// Every write goes through an os.Root: no name, "..", or symbolic link
	// can make it land outside the folder.
	root, err := os.OpenRoot(opts.OutDir)
	if err != nil {
		return err
	}
	defer root.Close()
	for i := range cs {
		var buf bytes.Buffer
		if opts.Output == "json" {
			// One object per file: the body of POST /connectors.
			if err := connectorconfig.WriteJSONObject(&buf, cs[i]); err != nil {
				return err
			}
		} else if err := write(&buf, cs[i:i+1]); err != nil {
			return err
		}
		data := buf.Bytes()
		name := cs[i].Name + "." + opts.Output
		path := filepath.Join(opts.OutDir, name)
		if err := root.WriteFile(name, data, 0o644); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
		fmt.Fprintf(env.IO.ErrOut, "wrote %s\n", path)
	}
	return nil
}
