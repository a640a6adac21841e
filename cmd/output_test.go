package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// TestOutputFlagEveryCommand walks the whole command tree: every command
// with -o/--output defines it with addOutputFlag (the same help, completion
// of the values, a validator) and accepts text (table), json and yaml; the
// check commands also accept github-actions; an unknown value is exit 2
// naming the allowed formats.
func TestOutputFlagEveryCommand(t *testing.T) {
	checks := []string{"outboxctl validate", "outboxctl plan", "outboxctl doctor", "outboxctl schema check", "outboxctl schema validate"}
	// Commands whose formats are not exactly text|json|yaml(+github-actions).
	special := map[string][]string{
		"outboxctl generate":               {"yaml", "json"}, // connector config files
		"outboxctl schema compat":          {"text", "json", "yaml", "confluent"},
		"outboxctl connectors get":         {"table", "text", "json", "yaml"},
		"outboxctl connectors describe":    {"table", "text", "json", "yaml"},
		"outboxctl connectors status":      {"table", "text", "json", "yaml"},
		"outboxctl connectors offsets get": {"json", "yaml"}, // the shape offsets set -f reads
	}
	root := NewRootCmd(&Env{IO: IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, Getenv: func(string) string { return "" }})
	var seen, seenChecks []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		f := c.Flags().Lookup("output")
		if f == nil {
			if sh := c.Flags().ShorthandLookup("o"); sh != nil {
				t.Errorf("%s: -o is --%s, not --output", c.CommandPath(), sh.Name)
			}
			return
		}
		path := c.CommandPath()
		seen = append(seen, path)
		isCheck := slices.Contains(checks, path)
		if isCheck {
			seenChecks = append(seenChecks, path)
		}
		want := []string{"text", "json", "yaml"}
		if isCheck {
			want = append(want, "github-actions")
		}
		if s, ok := special[path]; ok {
			want = s
		}
		t.Run(path, func(t *testing.T) {
			if f.Shorthand != "o" {
				t.Errorf("--output has shorthand %q, want o", f.Shorthand)
			}
			got := outputFormats(c)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("formats %v, want %v (defined with addOutputFlag?)", got, want)
			}
			if f.DefValue != want[0] {
				t.Errorf("default %q, want %q", f.DefValue, want[0])
			}
			if wantUsage := "output format: " + strings.Join(want, "|"); f.Usage != wantUsage {
				t.Errorf("help %q, want %q", f.Usage, wantUsage)
			}
			comp, ok := c.GetFlagCompletionFunc("output")
			if !ok {
				t.Fatal("no shell completion for -o")
			}
			if vals, _ := comp(c, nil, ""); !reflect.DeepEqual(vals, want) {
				t.Errorf("completion %v, want %v", vals, want)
			}
			valid := []string{"json", "yaml"}
			if path != "outboxctl generate" && path != "outboxctl connectors offsets get" {
				valid = append(valid, "text")
			}
			if want[0] == "table" {
				valid = append(valid, "table")
			}
			if isCheck {
				valid = append(valid, "github-actions")
			}
			for _, v := range valid {
				if err := setAndCheck(c, v); err != nil {
					t.Errorf("-o %s: %v", v, err)
				}
			}
			invalid := []string{"xml", ""}
			if !isCheck {
				invalid = append(invalid, "github-actions")
			}
			for _, v := range invalid {
				err := setAndCheck(c, v)
				if err == nil {
					t.Errorf("-o %q accepted", v)
					continue
				}
				if code := ExitCodeOf(err); code != ExitUsage {
					t.Errorf("-o %q: exit %d, want %d", v, code, ExitUsage)
				}
				if !strings.Contains(err.Error(), "(want "+strings.Join(want, "|")+")") {
					t.Errorf("-o %q: %q does not name the formats", v, err)
				}
			}
			_ = f.Value.Set(f.DefValue)
		})
	}
	walk(root)
	if len(seen) < 20 {
		t.Errorf("only %d commands with -o: %v", len(seen), seen)
	}
	slices.Sort(checks)
	slices.Sort(seenChecks)
	if !reflect.DeepEqual(seenChecks, checks) {
		t.Errorf("check commands with -o: %v, want %v", seenChecks, checks)
	}
	for p := range special {
		if !slices.Contains(seen, p) {
			t.Errorf("%s has no -o", p)
		}
	}
}

func setAndCheck(c *cobra.Command, v string) error {
	if err := c.Flags().Set("output", v); err != nil {
		return err
	}
	return checkOutputFlag(c)
}

// TestWriteAsYAMLIsTheJSONDocument: -o yaml is the -o json document: the
// same data, the same key order (struct order; sorted map keys as
// encoding/json writes them), the same omissions, strings that look like
// other YAML types still strings.
func TestWriteAsYAMLIsTheJSONDocument(t *testing.T) {
	type inner struct {
		Zeta  string `json:"zeta"`
		Alpha int    `json:"alpha"`
	}
	v := struct {
		Name     string            `json:"name"`
		Omitted  string            `json:"omitted,omitempty"`
		Count    int               `json:"count"`
		Ratio    float64           `json:"ratio"`
		Big      float64           `json:"big"`
		OK       bool              `json:"ok"`
		Nothing  *string           `json:"nothing"`
		Empty    []string          `json:"empty"`
		EmptyMap map[string]string `json:"empty_map"`
		Strings  []string          `json:"strings"`
		Config   map[string]string `json:"config"`
		Items    []inner           `json:"items"`
		Text     string            `json:"text"`
		HTML     string            `json:"html"`
	}{
		Name: "orders", Count: 3, Ratio: 0.25, Big: 1e21, OK: true,
		Empty: []string{}, EmptyMap: map[string]string{},
		Strings: []string{"true", "123", "", "null", "~", "a: b", "- x", "#c", "0x1F", "1e3", "yes", "Off", "é ü"},
		Config:  map[string]string{"tasks.max": "1", "b": "y", "a": "x"},
		Items:   []inner{{Zeta: "z", Alpha: 1}},
		Text:    "line one\nline two\n",
		HTML:    "<a & b>",
	}
	var js, ys bytes.Buffer
	if err := writeStructured(&js, "json", v); err != nil {
		t.Fatal(err)
	}
	if err := writeStructured(&ys, "yaml", v); err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML any
	if err := json.Unmarshal(js.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(ys.Bytes(), &fromYAML); err != nil {
		t.Fatalf("%v\n%s", err, ys.String())
	}
	// Normalize the YAML numbers (int) to the JSON ones (float64).
	b, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var normalized any
	if err := json.Unmarshal(b, &normalized); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(normalized, fromJSON) {
		t.Errorf("yaml is not the json document:\nyaml:\n%s\njson:\n%s", ys.String(), js.String())
	}
	// The key order, at every level, is the JSON order.
	if got, want := yamlKeys(t, ys.Bytes()), jsonKeys(t, js.Bytes()); !reflect.DeepEqual(got, want) {
		t.Errorf("key order %v, want %v", got, want)
	}
	// Block style, 2-space indentation.
	for _, want := range []string{"name: orders\ncount: 3\n", "\nempty: []\nempty_map: {}\n", "\nitems:\n  - zeta: z\n    alpha: 1\n", "\nconfig:\n  a: x\n  b: \"y\"\n  tasks.max: \"1\"\n", "\nhtml: <a & b>\n", "\n  - \"yes\"\n", "\n  - \"Off\"\n"} {
		if !strings.Contains(ys.String(), want) {
			t.Errorf("yaml has no %q:\n%s", want, ys.String())
		}
	}
	if strings.Contains(ys.String(), "omitted") {
		t.Errorf("omitempty field in yaml:\n%s", ys.String())

	}
}

// TestWriteAsYAMLStream: a JSON stream becomes a stream of YAML documents.
func TestWriteAsYAMLStream(t *testing.T) {
	var out bytes.Buffer
	err := writeAs(&out, "yaml", func(w io.Writer) error {
		_, err := io.WriteString(w, "{\"b\":1,\"a\":[2]}\n{\"c\":null}\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "b: 1\na:\n  - 2\n---\nc: null\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// jsonKeys lists the object keys of a JSON document in document order.
func jsonKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var keys []string
	var value func()
	value = func() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, k.(string))
				value()
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				value()
			}
			_, _ = dec.Token()
		}
	}
	value()
	return keys
}

// yamlKeys lists the mapping keys of a YAML document in document order.
func yamlKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				keys = append(keys, n.Content[i].Value)
				walk(n.Content[i+1])
			}
		default:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(&doc)
	return keys
}

// TestVersionJSONNotHTMLEscaped: version -o json writes < > & as they are,
// like every other command's JSON (writeStructured), not as \u003c….
func TestVersionJSONNotHTMLEscaped(t *testing.T) {
	saved := version
	t.Cleanup(func() { version = saved })
	version = "1.0.0-<dev>&rc"
	var out bytes.Buffer
	root := NewRootCmd(&Env{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: io.Discard}, Getenv: func(string) string { return "" }})
	root.SetArgs([]string{"version", "-o", "json"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"version": "1.0.0-<dev>&rc"`) {
		t.Errorf("version -o json = %s, want the version unescaped", out.String())
	}
}
