package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// registryFlags are the connection flags of the registry commands.
type registryFlags struct {
	URL                string
	User               string
	PasswordFile       string
	TokenFile          string
	CAFile             string
	CertFile           string
	KeyFile            string
	InsecureSkipVerify bool
	Timeout            time.Duration
}

func addRegistryFlags(fs *pflag.FlagSet, f *registryFlags) {
	fs.StringVar(&f.URL, "registry-url", "", "Schema Registry URL (default $"+settings.EnvSchemaRegistryURL+" or "+settings.DefaultSchemaRegistryURL+")")
	fs.StringVar(&f.User, "registry-user", "", "basic-auth user (default $"+settings.EnvSchemaRegistryUser+"; password from $"+settings.EnvSchemaRegistryPassword+" or --registry-password-file)")
	fs.StringVar(&f.PasswordFile, "registry-password-file", "", "file holding the basic-auth password (default $"+settings.EnvSchemaRegistryPasswordFile+")")
	fs.StringVar(&f.TokenFile, "registry-token-file", "", "file holding a bearer token (overrides $"+settings.EnvSchemaRegistryToken+", which holds the token itself)")
	fs.StringVar(&f.CAFile, "registry-ca-file", "", "PEM CA bundle to verify the registry's certificate")
	fs.StringVar(&f.CertFile, "registry-cert-file", "", "PEM client certificate (mutual TLS)")
	fs.StringVar(&f.KeyFile, "registry-key-file", "", "PEM client key (mutual TLS)")
	fs.BoolVar(&f.InsecureSkipVerify, "registry-insecure-skip-verify", false, "do not verify the registry's TLS certificate")
	fs.DurationVar(&f.Timeout, "registry-timeout", registry.DefaultTimeout, "timeout of each registry call")
}

// resolvedRegistry is the registry connection of a command after flags >
// environment > context > defaults, its secrets read.
type resolvedRegistry struct {
	URL, User, Password, Token string
	// PasswordFile is the file the password was read from, "" when none.
	PasswordFile string
	TLS          registry.TLSConfig
}

// resolve merges flags > environment > context > defaults
// (settings.Resolve) and reads the secrets (settings.ResolveSecret). The
// context's password applies only with the context's user; its TLS files
// apply as a set, when no TLS file flag is given.
func (f *registryFlags) resolve(env *Env) (resolvedRegistry, error) {
	cc, err := env.currentContext()
	if err != nil {
		return resolvedRegistry{}, err
	}
	rc := cc.Registry
	r := resolvedRegistry{
		URL: env.resolve(settings.Value{Flag: f.URL, Env: settings.EnvSchemaRegistryURL, Context: rc.URL,
			Default: cmp.Or(env.Settings.SchemaRegistryURL, settings.DefaultSchemaRegistryURL)}),
		TLS: registry.TLSConfig{CAFile: f.CAFile, CertFile: f.CertFile, KeyFile: f.KeyFile, InsecureSkipVerify: f.InsecureSkipVerify},
	}
	user, src, _ := settings.Resolve(env.Getenv, settings.Value{Flag: f.User, Env: settings.EnvSchemaRegistryUser, Context: rc.User})
	r.User = user
	if user != "" {
		password := settings.Secret{What: "registry password", FlagFile: f.PasswordFile, Env: settings.EnvSchemaRegistryPassword, EnvFile: settings.EnvSchemaRegistryPasswordFile}
		if src == settings.SourceContext {
			password.ContextRef = rc.Password
		}
		if r.Password, err = resolveSecret(env, password); err != nil {
			return r, err
		}
		r.PasswordFile = password.File(env.Getenv)
	}
	if r.Token, err = resolveSecret(env, settings.Secret{What: "registry token", FlagFile: f.TokenFile, Env: settings.EnvSchemaRegistryToken, ContextRef: rc.Token}); err != nil {
		return r, err
	}
	if f.CAFile == "" && f.CertFile == "" && f.KeyFile == "" {
		r.TLS.CAFile, r.TLS.CertFile, r.TLS.KeyFile = rc.CAFile, rc.CertFile, rc.KeyFile
	}
	return r, nil
}

// client builds the registry client (resolve).
func (f *registryFlags) client(env *Env) (*registry.Client, error) {
	r, err := f.resolve(env)
	if err != nil {
		return nil, err
	}
	timeout, err := env.requestTimeout()
	if err != nil {
		return nil, err
	}
	opts := []registry.Opt{registry.WithCallTimeout(f.Timeout), registry.WithRequestTimeout(timeout), registry.WithUserAgent("outboxctl")}
	if env.trace != nil {
		opts = append(opts, registry.WithTransportWrapper(env.trace.Wrap))
	}
	if r.User != "" {
		opts = append(opts, registry.WithBasicAuth(r.User, r.Password))
	}
	if r.Token != "" {
		opts = append(opts, registry.WithBearerToken(r.Token))
	}
	if r.TLS != (registry.TLSConfig{}) {
		opts = append(opts, registry.WithTLS(r.TLS))
	}
	c, err := registry.NewClient(r.URL, opts...)
	if err != nil {
		return nil, UsageError(err)
	}
	return c, nil
}

// schemaRegistryError gives registry errors their exit code: bad input for
// invalid arguments, 1 for the rest.
func schemaRegistryError(err error) error {
	if errors.Is(err, registry.ErrInvalidLevel) || errors.Is(err, registry.ErrInvalidVersion) {
		return UsageError(err)
	}
	return err
}

// schemaWriteStructured writes v as json or yaml (writeStructured).
func schemaWriteStructured(env *Env, format string, v any) error {
	return writeStructured(env.IO.Out, format, v)
}

// --- schema list ---

type schemaListOptions struct {
	Registry registryFlags
	Deleted  bool
	Output   string
}

func newSchemaListCmd(env *Env) *cobra.Command {
	opts := &schemaListOptions{}
	c := &cobra.Command{
		Use:   "list [--deleted] [-o text|json|yaml]",
		Short: "List the subjects of the Schema Registry",
		Example: `  $ outboxctl schema list
  outbox.event.Order-com.example.order.v1.OrderCreated`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runSchemaList(c.Context(), env, opts) },
	}
	addRegistryFlags(c.Flags(), &opts.Registry)
	c.Flags().BoolVar(&opts.Deleted, "deleted", false, "include soft-deleted subjects")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	return c
}

func runSchemaList(ctx context.Context, env *Env, opts *schemaListOptions) error {
	cl, err := opts.Registry.client(env)
	if err != nil {
		return err
	}
	subs, err := cl.Subjects(ctx, opts.Deleted)
	if err != nil {
		return schemaRegistryError(err)
	}
	if isStructured(opts.Output) {
		return schemaWriteStructured(env, opts.Output, subs)
	}
	for _, s := range subs {
		fmt.Fprintln(env.IO.Out, s)
	}
	return nil
}

// --- schema get ---

type schemaGetOptions struct {
	Registry registryFlags
	Subject  string
	Version  string
	Output   string
}

func newSchemaGetCmd(env *Env) *cobra.Command {
	opts := &schemaGetOptions{}
	c := &cobra.Command{
		Use:   "get SUBJECT [--version N|latest] [-o text|json|yaml]",
		Short: "Print a registered schema",
		Long: `Print a version of a subject (default the latest). Text output is the schema,
indented; JSON output adds the subject, version, id and references.`,
		Example: `  $ outboxctl schema get outbox.event.Order-com.example.order.v1.OrderCreated --version 1`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Subject = args[0]
			return runSchemaGet(c.Context(), env, opts)
		},
	}
	addRegistryFlags(c.Flags(), &opts.Registry)
	c.Flags().StringVar(&opts.Version, "version", "latest", "version number or latest")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	return c
}

// schemaFetchVersion gets version v ("latest" or a number) of subject.
func schemaFetchVersion(ctx context.Context, cl *registry.Client, subject, v string) (*registry.Schema, error) {
	if v == "" || v == "latest" {
		return cl.Latest(ctx, subject)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return nil, UsageError(fmt.Errorf("--version %q: want a version number or latest", v))
	}
	return cl.Version(ctx, subject, n)
}

func runSchemaGet(ctx context.Context, env *Env, opts *schemaGetOptions) error {
	cl, err := opts.Registry.client(env)
	if err != nil {
		return err
	}
	s, err := schemaFetchVersion(ctx, cl, opts.Subject, opts.Version)
	if err != nil {
		return schemaRegistryError(err)
	}
	if isStructured(opts.Output) {
		return schemaWriteStructured(env, opts.Output, s)
	}
	fmt.Fprintln(env.IO.Out, schemaIndentJSON(s.Schema))
	return nil
}

func schemaIndentJSON(s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), "", "  "); err != nil {
		return s
	}
	return b.String()
}

// --- schema diff ---

type schemaDiffOptions struct {
	Registry registryFlags
	Files    []string
	Subject  string
	Local    string
	From     string
	To       string
	Output   string
	ExitCode bool
}

func newSchemaDiffCmd(env *Env) *cobra.Command {
	opts := &schemaDiffOptions{}
	c := &cobra.Command{
		Use:   "diff SUBJECT [FILE] | diff SUBJECT --from N [--to M|latest]",
		Short: "Diff a local schema against the registry, or two registered versions",
		Long: `Compare a local schema with the latest registered version of its subject, or
two registered versions. The local schema is FILE, or the spec's schema file of
SUBJECT (-f). Both sides are normalized (Avro Java's Schema.toString, indented)
so formatting does not show, and the verdict of the local compatibility checker
at the subject's level is printed after the diff.

Exit status: 0 (also when they differ; with --exit-code, 4 when they differ,
as git diff --exit-code), 1 when the registry cannot be read, 2 for bad input.`,
		Example: `  $ outboxctl schema diff outbox.event.Order-com.example.order.v1.OrderCreated -f outbox.yaml
  $ outboxctl schema diff outbox.event.Order-com.example.order.v1.OrderCreated --from 1 --to 2`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Subject = args[0]
			if len(args) == 2 {
				opts.Local = args[1]
			}
			return runSchemaDiff(c.Context(), env, opts)
		},
	}
	addRegistryFlags(c.Flags(), &opts.Registry)
	c.Flags().StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder, to find SUBJECT's schema file (default "+defaultSpecFile+")")
	c.Flags().StringVar(&opts.From, "from", "", "registered version to diff from (instead of a local schema)")
	c.Flags().StringVar(&opts.To, "to", "latest", "registered version to diff to")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	c.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit 4 (changes pending) when the two sides differ")
	return c
}

type schemaDiffJSON struct {
	Subject    string   `json:"subject"`
	From       string   `json:"from"`
	To         string   `json:"to"`
	Identical  bool     `json:"identical"`
	Diff       string   `json:"diff"`
	Level      string   `json:"level"`
	Compatible bool     `json:"compatible"`
	Messages   []string `json:"messages"`
}

func runSchemaDiff(ctx context.Context, env *Env, opts *schemaDiffOptions) error {
	if opts.From != "" && opts.Local != "" {
		return UsageError(fmt.Errorf("give FILE or --from, not both"))
	}
	cl, err := opts.Registry.client(env)
	if err != nil {
		return err
	}
	// old is the registered side (the latest, or --from); new is the local
	// schema (or --to): the candidate of the compatibility verdict.
	var oldName, newName string
	var oldSchema, newSchema avro.Schema
	if opts.From != "" {
		from, err := schemaFetchVersion(ctx, cl, opts.Subject, opts.From)
		if err != nil {
			return schemaRegistryError(err)
		}
		oldName = fmt.Sprintf("%s version %d", opts.Subject, from.Version)
		if oldSchema, err = avro.ParseWith([]byte(from.Schema), avro.Lenient()); err != nil {
			return fmt.Errorf("%s: %w", oldName, err)
		}
		to, err := schemaFetchVersion(ctx, cl, opts.Subject, opts.To)
		if err != nil {
			return schemaRegistryError(err)
		}
		newName = fmt.Sprintf("%s version %d", opts.Subject, to.Version)
		if newSchema, err = avro.ParseWith([]byte(to.Schema), avro.Lenient()); err != nil {
			return fmt.Errorf("%s: %w", newName, err)
		}
	} else {
		path := opts.Local
		if path == "" {
			_, cat, err := loadCatalog(env, opts.Files)
			if err != nil {
				return err
			}
			e := cat.BySubject(opts.Subject)
			if e == nil {
				return UsageError(fmt.Errorf("subject %q is not in the spec (its subjects: %s); give the schema FILE", opts.Subject, strings.Join(cat.Subjects(), ", ")))
			}
			path = e.File
		}
		data, err := readInput(nil, path, inputSchema)
		if err != nil {
			return UsageError(fmt.Errorf("read schema: %w", err))
		}
		if newSchema, err = avro.ParseWith(data, avro.Options{File: path}); err != nil {
			return schemaFileError(err)
		}
		newName = path
		latest, err := cl.Latest(ctx, opts.Subject)
		if err != nil {
			return schemaRegistryError(err)
		}
		oldName = fmt.Sprintf("%s version %d", opts.Subject, latest.Version)
		if oldSchema, err = avro.ParseWith([]byte(latest.Schema), avro.Lenient()); err != nil {
			return fmt.Errorf("%s: %w", oldName, err)
		}
	}
	a := schemaIndentJSON(avro.JavaString(oldSchema))
	b := schemaIndentJSON(avro.JavaString(newSchema))
	diff := schemaUnifiedDiff(oldName, newName, a, b)

	lvl, err := cl.Level(ctx, opts.Subject)
	if err != nil {
		return schemaRegistryError(err)
	}
	level, err := compat.ParseLevel(lvl)
	if err != nil {
		return err
	}
	rep := compat.CheckLevel(level, newSchema, []avro.Schema{oldSchema})
	out := schemaDiffJSON{Subject: opts.Subject, From: oldName, To: newName, Identical: a == b, Diff: diff,
		Level: string(level), Compatible: rep.Compatible, Messages: []string{}}
	for _, f := range rep.Findings {
		out.Messages = append(out.Messages, fmt.Sprintf("%s at %s: %s", f.Type, f.Location, f.Message))
	}
	differ := func() error {
		if opts.ExitCode && !out.Identical {
			return SilentExit(ExitChangesPending)
		}
		return nil
	}
	if isStructured(opts.Output) {
		if err := schemaWriteStructured(env, opts.Output, out); err != nil {
			return err
		}
		return differ()
	}
	if out.Identical {
		fmt.Fprintf(env.IO.Out, "%s and %s are identical\n", oldName, newName)
		return nil
	}
	fmt.Fprint(env.IO.Out, diff)
	verdict := "compatible"
	if !rep.Compatible {
		verdict = "INCOMPATIBLE"
	}
	fmt.Fprintf(env.IO.Out, "\n%s: %s against %s at %s\n", verdict, newName, oldName, level)
	for _, m := range out.Messages {
		fmt.Fprintf(env.IO.Out, "  %s\n", m)
	}
	return differ()
}

// schemaUnifiedDiff is a line diff of a and b in unified format (hunks with
// 3 lines of context), "" when equal. It is go-internal's diff, the one
// testscript's cmp prints, without its leading "diff a b" line.
func schemaUnifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	d := string(diff.Diff(nameA, []byte(withNewline(a)), nameB, []byte(withNewline(b))))
	if _, rest, ok := strings.Cut(d, "\n"); ok && strings.HasPrefix(d, "diff ") {
		return rest
	}
	return d
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
