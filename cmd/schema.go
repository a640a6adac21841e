package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

func newSchemaCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "schema <command>",
		Short: "Check, validate and inspect Avro schemas",
		Long: `Work with the Avro schemas of the outbox events: validate them as Confluent
Schema Registry (Avro Java 1.12) would, and check a candidate against its
previous versions at a Confluent compatibility level.`,
	}
	// One line per subcommand, in name order.
	c.AddCommand(
		newSchemaCheckCmd(env),
		newSchemaCompatCmd(env),
		newSchemaDecodeCmd(env),
		newSchemaDiffCmd(env),
		newSchemaGetCmd(env),
		newSchemaListCmd(env),
		newSchemaRegisterCmd(env),
		newSchemaValidateCmd(env),
	)
	return c
}

// schemaParseFlags are the flags that choose how schema files are parsed.
type schemaParseFlags struct {
	Refs      []string
	Avro111   bool
	refSchema []avro.NamedSchema
}

func (f *schemaParseFlags) add(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.Refs, "ref", nil, "a schema file whose named types the others may use by full name (a Confluent schema reference); repeatable, in dependency order")
	c.Flags().BoolVar(&f.Avro111, "avro-1.11", false, "validate union defaults as Avro 1.11 (Confluent Platform 7.x) does: against the first branch only")
}

// loadRefs parses the --ref files (leniently: they are registered schemas).
func (f *schemaParseFlags) loadRefs(stdin io.Reader) error {
	for _, path := range f.Refs {
		opts := avro.Lenient()
		opts.Named = f.refSchema
		s, err := parseSchemaFile(stdin, path, opts)
		if err != nil {
			return err
		}
		f.refSchema = append(f.refSchema, avro.NamedTypes(s)...)
	}
	return nil
}

// options are the parse options for a new schema (strict) or a registered
// one (lenient, as Confluent loads the versions it stores).
func (f *schemaParseFlags) options(strict bool) avro.Options {
	opts := avro.Lenient()
	if strict {
		opts = avro.Options{UnionDefaultFirstBranch: f.Avro111}
	}
	opts.Named = f.refSchema
	return opts
}

// parseSchemaFile reads and parses path ("-" is stdin, the command's
// injected input stream).
func parseSchemaFile(stdin io.Reader, path string, opts avro.Options) (avro.Schema, error) {
	data, err := readInput(stdin, path, inputSchema)
	if err != nil {
		return nil, err
	}
	opts.File = path
	return avro.ParseWith(data, opts)
}

// schemaFileError turns a parse or read error into a usage error (exit 2).
func schemaFileError(err error) error {
	var pe *avro.ParseError
	if errors.As(err, &pe) {
		return UsageError(pe)
	}
	return UsageError(fmt.Errorf("read schema: %w", err))
}
