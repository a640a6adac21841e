package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

const defaultSpecFile = "outbox.yaml"

type generateOptions struct {
	Files            []string
	Output           string
	OutDir           string
	NoResolve        bool
	BootstrapServers string
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
	fs.StringVarP(&opts.Output, "output", "o", "yaml", "output format: yaml or json")
	fs.StringVar(&opts.OutDir, "out-dir", "", "write one file per connector (<name>.yaml or <name>.json) into this folder instead of stdout")
	fs.BoolVar(&opts.NoResolve, "no-resolve", false, "do not resolve ${env:…}/${file:…} secret references")
	fs.StringVar(&opts.BootstrapServers, "bootstrap-servers", "", "Kafka bootstrap servers for the MySQL/MariaDB schema history when the spec sets none (default $OUTBOX_BOOTSTRAP_SERVERS)")
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
		ReadFile: os.ReadFile,
	}
}

// loadSpec loads the spec files of -f (default outbox.yaml). A spec that
// does not load is bad input (exit 2).
func loadSpec(files []string) (*spec.Spec, error) {
	if len(files) == 0 {
		files = []string{defaultSpecFile}
	}
	s, err := spec.Load(files...)
	if err != nil {
		return nil, UsageError(err)
	}
	return s, nil
}

// generateConnectors generates the connectors of a spec; lookup may be nil.
func generateConnectors(env *Env, s *spec.Spec, lookup *spec.Lookup, bootstrap string) ([]connectorconfig.Connector, error) {
	if bootstrap == "" {
		bootstrap = env.Settings.BootstrapServers
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{Lookup: lookup, BootstrapServers: bootstrap})
	if err != nil {
		if errors.Is(err, spec.ErrSecretUnresolved) {
			return nil, UsageError(err)
		}
		return nil, err
	}
	return cs, nil
}

func init() {
	// Deploy and plan read outbox specs through the generator.
	specConnectors = func(env *Env, paths []string) ([]connectorconfig.Connector, error) {
		s, err := loadSpec(paths)
		if err != nil {
			return nil, err
		}
		return generateConnectors(env, s, envLookup(env), "")
	}
	specConnectors = skipRelayPublished(specConnectors)
}

func runGenerate(env *Env, opts *generateOptions) error {
	if opts.Output != "yaml" && opts.Output != "json" {
		return UsageError(fmt.Errorf("unknown output format %q: use yaml or json", opts.Output))
	}
	s, err := loadSpec(opts.Files)
	if err != nil {
		return err
	}
	var lookup *spec.Lookup
	if !opts.NoResolve {
		lookup = envLookup(env)
	}
	cs, err := generateConnectors(env, s, lookup, opts.BootstrapServers)
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
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return err
	}
	for i := range cs {
		var buf bytes.Buffer
		if opts.Output == "json" {
			// One object per file: the body of POST /connectors.
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(connectorconfig.Documents(cs[i : i+1])[0]); err != nil {
				return err
			}
		} else if err := write(&buf, cs[i:i+1]); err != nil {
			return err
		}
		data := buf.Bytes()
		path := filepath.Join(opts.OutDir, cs[i].Name+"."+opts.Output)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(env.IO.ErrOut, "wrote %s\n", path)
	}
	return nil
}
