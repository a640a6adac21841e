package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/avro"
)

type schemaValidateOptions struct {
	Files   []string
	Output  string
	Lenient bool
	Parse   schemaParseFlags
}

func newSchemaValidateCmd(env *Env) *cobra.Command {
	opts := &schemaValidateOptions{}
	c := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check that Avro schema files parse as Confluent Schema Registry would accept them",
		Long: `Parse each Avro schema file as Confluent Schema Registry parses a new schema
(Avro Java 1.12: strict names, default values checked against their types,
no nested unions or duplicate names). Each invalid file is reported as
file:line:col: message (the first error of the file, as Java stops at it).

Exit status: 0 when every file is a valid schema, 3 when one is not, 2 when
a file cannot be read (missing, a directory); every file is still reported.`,
		Example: `  $ outboxctl schema validate schemas/order/*.avsc
  $ outboxctl schema validate -o github-actions schemas/order/OrderCreated.v2.avsc`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			return runSchemaValidate(env, opts)
		},
	}
	addOutputFlag(c, &opts.Output, formatText, checkFormats...)
	c.Flags().BoolVar(&opts.Lenient, "lenient", false, "use the rules for schemas already registered: defaults and namespaces unchecked, names checked with the Unicode rule")
	opts.Parse.add(c)
	return c
}

// validateJSON is what `schema validate -o json` prints.
type validateJSON struct {
	Valid bool               `json:"valid"`
	Files []validateJSONFile `json:"files"`
}

type validateJSONFile struct {
	File   string              `json:"file"`
	Valid  bool                `json:"valid"`
	Errors []validateJSONError `json:"errors"`
}

type validateJSONError struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

func runSchemaValidate(env *Env, opts *schemaValidateOptions) error {
	if err := opts.Parse.loadRefs(env.IO.In); err != nil {
		return schemaFileError(err)
	}
	report := validateJSON{Valid: true, Files: []validateJSONFile{}}
	unreadable := 0
	for _, file := range opts.Files {
		res := validateJSONFile{File: file, Valid: true, Errors: []validateJSONError{}}
		_, err := parseSchemaFile(env.IO.In, file, opts.Parse.options(!opts.Lenient))
		if err != nil {
			res.Valid, report.Valid = false, false
			var pe *avro.ParseError
			var fe *fs.PathError
			if errors.As(err, &fe) || isUnreadable(err) {
				unreadable++ // missing, a directory, no permission: bad input
				res.Errors = append(res.Errors, validateJSONError{Message: "cannot read: " + err.Error()})
			} else if errors.As(err, &pe) {
				res.Errors = append(res.Errors, validateJSONError{Line: pe.Pos.Line, Column: pe.Pos.Col, Message: pe.Msg})
			} else {
				res.Errors = append(res.Errors, validateJSONError{Message: err.Error()})
			}
		}
		report.Files = append(report.Files, res)
	}

	w := env.IO.Out
	switch opts.Output {
	case formatJSON, formatYAML:
		if err := writeAs(w, opts.Output, func(w io.Writer) error { return findings.WriteJSON(w, report) }); err != nil {
			return err
		}
	case "github-actions":
		var out []findings.Finding
		for _, f := range report.Files {
			for _, e := range f.Errors {
				out = append(out, findings.Finding{Rule: schemas.RuleSchemaInvalid, Severity: findings.SeverityError, File: f.File, Line: e.Line, Col: e.Column, Message: e.Message})
			}
		}
		if err := findings.PrintGitHubActions(w, out); err != nil {
			return err
		}
	default:
		invalid := 0
		for _, f := range report.Files {
			for _, e := range f.Errors {
				if e.Line > 0 {
					fmt.Fprintf(w, "%s:%d:%d: %s\n", f.File, e.Line, e.Column, e.Message)
				} else {
					fmt.Fprintf(w, "%s: %s\n", f.File, e.Message)
				}
			}
			if !f.Valid {
				invalid++
			}
		}
		if invalid == 0 {
			fmt.Fprintf(env.IO.ErrOut, "%s valid\n", plural(len(report.Files), "schema"))
		} else {
			fmt.Fprintf(env.IO.ErrOut, "%d of %s invalid\n", invalid, plural(len(report.Files), "schema"))
		}
	}
	if unreadable > 0 {
		return SilentExit(ExitUsage)
	}
	if !report.Valid {
		return SilentExit(ExitCheckFailed)
	}
	return nil
}
