package connectorconfig

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Document is the JSON form of a generated connector (generate -o json):
// the body of POST /connectors plus the desired state, where it was
// declared and why the important keys have their values. Secrets are
// masked.
type Document struct {
	Name    string            `json:"name"`
	State   string            `json:"state,omitempty"`
	Source  string            `json:"source,omitempty"`
	Config  map[string]string `json:"config"`
	Reasons map[string]string `json:"reasons,omitempty"`
}

// Documents returns the masked output form of cs.
func Documents(cs []Connector) []Document {
	out := make([]Document, 0, len(cs))
	for i := range cs {
		c := &cs[i]
		d := Document{Name: c.Name, State: c.State, Source: c.Source, Config: c.MaskedConfig()}
		if len(c.Reasons) > 0 {
			d.Reasons = map[string]string{}
			for k, v := range c.Reasons {
				if _, ok := c.Config[k]; ok {
					d.Reasons[k] = v
				}
			}
		}
		out = append(out, d)
	}
	return out
}

// WriteJSON writes cs as an indented JSON array of Documents (keys sorted,
// secrets masked). ReadConnectors reads it back, refusing the masked values.
func WriteJSON(w io.Writer, cs []Connector) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(Documents(cs))
}

// WriteJSONObject writes one connector as an indented JSON object, a
// Document: the body of POST /connectors (keys sorted, secrets masked).
// ReadConnectors reads it back.
func WriteJSONObject(w io.Writer, c Connector) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(Documents([]Connector{c})[0])
}

var plainYAMLKey = regexp.MustCompile(`^[A-Za-z0-9_.\-]+$`)

// WriteYAML writes cs as a YAML list of Documents with keys sorted, secrets
// masked, and each reason as a "# reason:" comment above its key.
// ReadConnectors reads it back, refusing the masked values.
func WriteYAML(w io.Writer, cs []Connector) error {
	var b strings.Builder
	for _, d := range Documents(cs) {
		if d.Source != "" {
			fmt.Fprintf(&b, "# from %s\n", d.Source)
		}
		fmt.Fprintf(&b, "- name: %s\n", yamlString(d.Name))
		if d.State != "" {
			fmt.Fprintf(&b, "  state: %s\n", yamlString(d.State))
		}
		b.WriteString("  config:\n")
		keys := make([]string, 0, len(d.Config))
		for k := range d.Config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if r := d.Reasons[k]; r != "" {
				fmt.Fprintf(&b, "    # reason: %s\n", r)
			}
			key := k
			if !plainYAMLKey.MatchString(k) {
				key = yamlString(k)
			}
			fmt.Fprintf(&b, "    %s: %s\n", key, yamlString(d.Config[k]))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// yamlString renders s as a double-quoted YAML scalar (JSON string syntax is
// valid YAML).
func yamlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
