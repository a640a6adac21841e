package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
)

type schemaCompatOptions struct {
	Level     string
	Previous  []string
	Candidate string
	Output    string
	Strict    bool
	Parse     schemaParseFlags
}

func newSchemaCompatCmd(env *Env) *cobra.Command {
	opts := &schemaCompatOptions{}
	c := &cobra.Command{
		Use:   "compat --level LEVEL --previous FILE [--previous FILE ...] CANDIDATE",
		Short: "Check a candidate schema against its previous versions at a Confluent level",
		Long: `Check a candidate Avro schema against the previous versions of its subject
(oldest first) as Confluent Schema Registry does at the given compatibility
level: NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or
FULL_TRANSITIVE (case-insensitive). Non-transitive levels check the latest
previous version only; transitive ones every version, newest first, stopping at
the first that fails.

The candidate is parsed as the registry parses a new schema (strict names,
defaults validated); previous versions as it loads registered ones (leniently).

Each message is one Avro Java SchemaCompatibility incompatibility: its type,
its location in the reader schema, and Java's message. -o confluent prints the
registry's verbose messages instead.

Exit status: 0 compatible, 3 incompatible, 2 when a schema does not parse.`,
		Example: `  $ outboxctl schema compat --level BACKWARD --previous v1.avsc --previous v2.avsc v3.avsc -o json
  {
    "compatible": false,
    "messages": [
      {
        "type": "READER_FIELD_MISSING_DEFAULT_VALUE",
        "location": "/fields/2",
        "message": "note"
      }
    ]
  }`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Candidate = args[0]
			return runSchemaCompat(env, opts)
		},
	}
	c.Flags().StringVar(&opts.Level, "level", string(compat.BackwardTransitive), "compatibility level (NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE)")
	c.Flags().StringArrayVar(&opts.Previous, "previous", nil, "a previous version of the schema; repeat, oldest first")
	addOutputFlag(c, &opts.Output, formatText, formatText, formatJSON, formatYAML, formatConfluent)
	c.Flags().BoolVar(&opts.Strict, "strict-previous", false, "parse the previous versions as strictly as the candidate (by default they are parsed as the registry loads registered schemas)")
	opts.Parse.add(c)
	return c
}

// compatJSON is what `schema compat -o json` prints (a contract).
type compatJSON struct {
	Compatible bool                `json:"compatible"`
	Messages   []compatJSONMessage `json:"messages"`
}

type compatJSONMessage struct {
	Type     string `json:"type"`
	Location string `json:"location"`
	Message  string `json:"message"`
}

func runSchemaCompat(env *Env, opts *schemaCompatOptions) error {
	level, err := compat.ParseLevel(opts.Level)
	if err != nil {
		return UsageError(err)
	}
	if err := opts.Parse.loadRefs(env.IO.In); err != nil {
		return schemaFileError(err)
	}
	candidate, err := parseSchemaFile(env.IO.In, opts.Candidate, opts.Parse.options(true))
	if err != nil {
		return schemaFileError(err)
	}
	var history []avro.Schema
	for _, p := range opts.Previous {
		s, err := parseSchemaFile(env.IO.In, p, opts.Parse.options(opts.Strict))
		if err != nil {
			return schemaFileError(err)
		}
		history = append(history, s)
	}
	rep := compat.CheckLevel(level, candidate, history)

	switch opts.Output {
	case formatJSON, formatYAML:
		out := compatJSON{Compatible: rep.Compatible, Messages: []compatJSONMessage{}}
		for _, f := range rep.Findings {
			out.Messages = append(out.Messages, compatJSONMessage{Type: string(f.Type), Location: f.Location, Message: f.Message})
		}
		if err := writeStructured(env.IO.Out, opts.Output, out); err != nil {
			return err
		}
	case "confluent":
		for _, m := range rep.ConfluentMessages(history) {
			fmt.Fprintln(env.IO.Out, m)
		}
	default:
		writeCompatText(env, opts, rep, len(history))
	}
	if !rep.Compatible {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}

func writeCompatText(env *Env, opts *schemaCompatOptions, rep compat.Report, n int) {
	w := env.IO.Out
	if rep.Compatible {
		switch {
		case rep.Level == compat.None:
			fmt.Fprintf(w, "compatible: %s (level NONE checks nothing)\n", opts.Candidate)
		case n == 0:
			fmt.Fprintf(w, "compatible: %s (no previous version)\n", opts.Candidate)
		default:
			fmt.Fprintf(w, "compatible: %s at %s with %s\n", opts.Candidate, rep.Level, plural(n, "previous version"))
		}
		return
	}
	fmt.Fprintf(w, "incompatible: %s at %s with version %d (%s)\n", opts.Candidate, rep.Level, rep.FailedVersion, opts.Previous[rep.FailedVersion-1])
	for _, f := range rep.Findings {
		dir := "new schema reads old"
		if f.ReaderLabel == "old" {
			dir = "old schema reads new"
		}
		fmt.Fprintf(w, "  %s %s: %s (%s)\n", f.Type, locationOrRoot(f.Location), f.Message, dir)
	}
}

func locationOrRoot(l string) string {
	if l == "" {
		return "-"
	}
	return l
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
