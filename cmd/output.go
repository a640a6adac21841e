package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/outboxctl/outboxctl/findings"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// The -o/--output formats. Every command with structured output offers
// text, json and yaml (yaml is the json document, written as YAML); the
// check commands add github-actions; the connectors commands call their
// text output table and accept text for it. The check formats are
// findings' (the one definition).
const (
	formatText          = findings.FormatText
	formatTable         = "table"
	formatJSON          = findings.FormatJSON
	formatYAML          = findings.FormatYAML
	formatGitHubActions = findings.FormatGitHubActions
	formatConfluent     = "confluent"
)

var (
	// textFormats are the formats of a command with structured output.
	textFormats = []string{formatText, formatJSON, formatYAML}
	// checkFormats are the formats of a check command (validate, plan,
	// doctor, schema check, schema validate).
	checkFormats = []string{formatText, formatJSON, formatYAML, formatGitHubActions}
	// tableFormats are the formats of a command whose text output is a
	// table (connectors get, describe, status): text is table.
	tableFormats = []string{formatTable, formatText, formatJSON, formatYAML}
)

// outputFormatsAnnotation is the flag annotation under which addOutputFlag
// records the formats of a command's -o (read by checkOutputFlag).
const outputFormatsAnnotation = "outboxctl/output-formats"

// addOutputFlag defines -o/--output on c with default def and the allowed
// formats (def first by convention): the one definition of the flag, with
// the same help on every command, shell completion of the values, and the
// formats recorded for checkOutputFlag, which refuses any other value
// before the command runs (exit 2).
func addOutputFlag(c *cobra.Command, p *string, def string, formats ...string) {
	fs := c.Flags()
	fs.StringVarP(p, "output", "o", def, "output format: "+strings.Join(formats, "|"))
	_ = fs.SetAnnotation("output", outputFormatsAnnotation, formats)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// outputFormats returns the formats of c's -o flag as addOutputFlag
// recorded them, or nil when c has no such flag.
func outputFormats(c *cobra.Command) []string {
	f := c.Flags().Lookup("output")
	if f == nil {
		return nil
	}
	return f.Annotations[outputFormatsAnnotation]
}

// checkOutputFlag validates the value of c's -o flag against the formats
// addOutputFlag recorded (usageArgs calls it for every runnable command).
func checkOutputFlag(c *cobra.Command) error {
	formats := outputFormats(c)
	if formats == nil {
		return nil
	}
	return checkOutput(c.Flags().Lookup("output").Value.String(), formats...)
}

// checkOutput validates an -o/--output value: the one place that turns an
// unknown format into a usage error (exit 2) naming the allowed values.
func checkOutput(o string, allowed ...string) error {
	for _, a := range allowed {
		if o == a {
			return nil
		}
	}
	return UsageError(fmt.Errorf("unknown output format %q (want %s)", o, strings.Join(allowed, "|")))
}

// isStructured reports whether format is json or yaml.
func isStructured(format string) bool {
	return format == formatJSON || format == formatYAML
}

// writeStructured writes v as json (indented, no HTML escaping) or yaml
// (that JSON document as YAML, see writeAs).
func writeStructured(w io.Writer, format string, v any) error {
	return writeAs(w, format, func(w io.Writer) error { return findings.WriteJSON(w, v) })
}

// writeAs writes a command's structured output: for json, the command's
// own JSON encoding (findings.WriteJSON for most); for yaml, the document that encoding
// writes, converted to YAML: the same field names, the same order, the same
// omissions. JSON that is a stream of values becomes a stream of YAML
// documents separated by ---.
func writeAs(w io.Writer, format string, writeJSON func(io.Writer) error) error {
	switch format {
	case formatJSON:
		return writeJSON(w)
	case formatYAML:
		var b bytes.Buffer
		if err := writeJSON(&b); err != nil {
			return err
		}
		return jsonToYAML(w, b.Bytes())
	}
	return fmt.Errorf("unknown structured format %q", format)
}

// jsonToYAML writes the JSON values of data as YAML documents in block
// style with 2-space indentation, keeping the order of the keys.
func jsonToYAML(w io.Writer, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for {
		n, err := jsonNode(dec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("json to yaml: %w", err)
		}
		if err := enc.Encode(n); err != nil {
			return err
		}
	}
	return enc.Close()
}

// yaml11Bool are the words YAML 1.1 reads as booleans (YAML 1.2, and so
// yaml.v3, only true and false).
var yaml11Bool = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true}

// jsonNode reads the next JSON value of dec as a YAML node.
func jsonNode(dec *json.Decoder) (*yaml.Node, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := t.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				val, err := jsonNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, val)
			}
			_, err := dec.Token() // }
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := jsonNode(dec)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			_, err := dec.Token() // ]
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", v)
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if yaml11Bool[strings.ToLower(v)] {
			// A YAML 1.1 reader (PyYAML, yaml.v2) takes these for booleans.
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(v.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", t)
}
