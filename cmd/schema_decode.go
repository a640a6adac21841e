package cmd

import (
	"fmt"

	"github.com/linkedin/goavro/v2"
	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/schemas/resolve"
)

type schemaDecodeOptions struct {
	Writer string
	Reader string
	Input  string // "-" is standard input
	Parse  schemaParseFlags
}

func newSchemaDecodeCmd(env *Env) *cobra.Command {
	opts := &schemaDecodeOptions{}
	c := &cobra.Command{
		Use:   "decode --writer FILE --reader FILE [INPUT|-]",
		Short: "Read one Avro binary datum with a writer schema as a reader schema",
		Long: `Read ONE Avro binary datum (raw binary: no Confluent wire header, no
single-object header) written with the writer schema from INPUT (standard
input when INPUT is "-" or omitted), resolve it to the reader schema as Avro
Java's decoder does (promotions, defaults, enum defaults, union branch choice,
aliases, the reader's logical types), and print the reader datum in Avro's
JSON encoding on one line: unions as {"type": value}, bytes and fixed as
ISO-8859-1 strings.

The writer schema is parsed as a registered schema (leniently), the reader
schema as a new one (strictly, defaults checked).

Exit status: 0 on success, 2 when a schema does not parse (file:line:col) or
the command line is wrong, 1 when the datum cannot be read or resolved
(incompatible schemas, truncated or trailing data, an unknown enum symbol
without a reader default, an int varint longer than 5 bytes or a long varint
longer than 10 bytes, which Avro Java rejects as an invalid encoding).`,
		Example: `  $ outboxctl schema decode --writer OrderCreated.v1.avsc --reader OrderCreated.v2.avsc datum.bin
  $ kcat -C -t orders -c 1 -f '%s' | tail -c +6 | outboxctl schema decode --writer v1.avsc --reader v2.avsc`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Input = "-"
			if len(args) == 1 {
				opts.Input = args[0]
			}
			return runSchemaDecode(env, opts)
		},
	}
	c.Flags().StringVar(&opts.Writer, "writer", "", "the schema the datum was written with (required)")
	c.Flags().StringVar(&opts.Reader, "reader", "", "the schema to read the datum as (required)")
	_ = c.MarkFlagRequired("writer")
	_ = c.MarkFlagRequired("reader")
	opts.Parse.add(c)
	return c
}

// maxDecodeItems bounds the items of one array or map block that schema
// decode accepts beyond one per datum byte: items of zero size (null, an
// empty record) cost no bytes, so the bound is memory: goavro preallocates
// 16 bytes per claimed item, 256 MiB at this bound. Avro Java 1.12 bounds
// them by memory too (collectionItems.maxAllocation, about 197 M with its
// default heap; it reads 1.5 M and 20 M nulls).
const maxDecodeItems = 16 << 20

func runSchemaDecode(env *Env, opts *schemaDecodeOptions) error {
	if opts.Writer == "-" || opts.Reader == "-" {
		return UsageError(fmt.Errorf("--writer and --reader must be files (standard input is the datum)"))
	}
	if err := opts.Parse.loadRefs(env.IO.In); err != nil {
		return schemaFileError(err)
	}
	writer, err := parseSchemaFile(env.IO.In, opts.Writer, opts.Parse.options(false))
	if err != nil {
		return schemaFileError(err)
	}
	reader, err := parseSchemaFile(env.IO.In, opts.Reader, opts.Parse.options(true))
	if err != nil {
		return schemaFileError(err)
	}

	data, err := readInput(env.IO.In, opts.Input, inputDatum)
	if err != nil {
		return UsageError(fmt.Errorf("read datum: %w", err))
	}
	// goavro preallocates arrays for a block's item count; a corrupt count
	// must not allocate gigabytes.
	goavro.MaxBlockCount = max(int64(len(data)), maxDecodeItems)

	r, err := resolve.Compile(writer, reader)
	if err != nil {
		return WithExitCode(ExitError, fmt.Errorf("resolve %s to %s: %w", opts.Writer, opts.Reader, err))
	}
	out, err := r.DecodeJSON(data)
	if err != nil {
		input := opts.Input
		if input == "-" {
			input = "<stdin>"
		}
		return WithExitCode(ExitError, fmt.Errorf("decode %s: %w", input, err))
	}
	out = append(out, '\n')
	_, err = env.IO.Out.Write(out)
	return err
}
