package connectorconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/spec"
)

// ErrBadConnectorsFile is the sentinel every error of ReadConnectors
// unwraps to.
var ErrBadConnectorsFile = errors.New("bad connectors file")

// ErrMaskedValue is returned (wrapped in a *MaskedValueError) when a
// connectors file holds a masked value such as Masked: deploying it would
// overwrite the real secret in Kafka Connect.
var ErrMaskedValue = errors.New("masked value")

// MaskedValueError names the file, connector and key of a masked value. It
// unwraps to ErrMaskedValue and ErrBadConnectorsFile.
type MaskedValueError struct {
	File, Connector, Key, Value string
}

func (e *MaskedValueError) Error() string {
	return fmt.Sprintf("%s: connector %q: config key %q holds the masked value %q, not the secret: writing it would replace the real value in Kafka Connect", e.File, e.Connector, e.Key, e.Value)
}

// Unwrap returns ErrMaskedValue and ErrBadConnectorsFile.
func (e *MaskedValueError) Unwrap() []error { return []error{ErrMaskedValue, ErrBadConnectorsFile} }

// fileError is an error of ReadConnectors; it prints only its message.
type fileError struct {
	msg string
	err error // the cause, if any (a spec.ErrSecretUnresolved)
}

func (e *fileError) Error() string { return e.msg }

func (e *fileError) Unwrap() []error {
	if e.err != nil {
		return []error{ErrBadConnectorsFile, e.err}
	}
	return []error{ErrBadConnectorsFile}
}

var maskedRE = regexp.MustCompile(`^(\[hidden\]|\*{3,}|<hidden>|\(sensitive\)|\[redacted\])$`)

// IsMasked reports whether v is a masked value: Masked as WriteJSON and
// WriteYAML write it, or a mask Kafka Connect or other tools print
// ("[hidden]", "****", "<hidden>", "(sensitive)", "[redacted]").
func IsMasked(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || !strings.ContainsAny(v[:1], "[*<(") {
		return false
	}
	return maskedRE.MatchString(v)
}

// fileConnector is one connector of a connectors file: a Document, plus the
// sensitive keys a hand-written file may declare.
type fileConnector struct {
	Name      string                     `json:"name"`
	Config    map[string]json.RawMessage `json:"config"`
	State     string                     `json:"state"`
	Sensitive []string                   `json:"sensitive"`
	Source    string                     `json:"source"`
	Reasons   map[string]string          `json:"reasons"`
}

// IsConnectorsFile reports whether data looks like a connectors file (the
// output of WriteJSON or WriteYAML, or one Document as JSON) rather than an
// outbox spec: a JSON array or object, or a YAML sequence. name's extension
// decides between JSON and YAML (without one, the content does).
func IsConnectorsFile(name string, data []byte) bool {
	trimmed := bytes.TrimSpace(data)
	if isJSON(name, data) {
		return len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{')
	}
	var n yaml.Node
	if yaml.Unmarshal(data, &n) != nil || len(n.Content) == 0 {
		return false
	}
	return n.Content[0].Kind == yaml.SequenceNode
}

// isJSON decides how ReadConnectors parses data: YAML for a .yaml or .yml
// name, JSON for a .json name, else by the first byte (stdin).
func isJSON(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return false
	case ".json":
		return true
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '[' || t[0] == '{')
}

// ReadConnectors parses a connectors file: the JSON or YAML that WriteJSON
// and WriteYAML write (a list of Documents), or one Document as JSON. name
// is the file's name for messages; a .yaml or .yml name is read as YAML, a
// .json name as JSON, anything else (stdin) by its first byte. Unknown
// fields are errors, and so is a key given twice in one object
// (spec.ErrDuplicateKey, with file:line:col and the key).
//
// ${env:…} and ${file:…} references are resolved with lookup (and their keys
// marked Sensitive); with a nil lookup they are kept as written. A masked
// value (IsMasked) is refused with a *MaskedValueError. Every error wraps
// ErrBadConnectorsFile and names the file and, where known, the connector
// and key. Secret values never appear in errors.
func ReadConnectors(name string, data []byte, lookup *spec.Lookup) ([]Connector, error) {
	bad := func(format string, a ...any) error {
		return &fileError{msg: fmt.Sprintf(format, a...)}
	}
	jsonData := data
	asJSON := isJSON(name, data)
	if !asJSON {
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			return nil, bad("%v", spec.WrapYAML(name, data, err))
		}
		var err error
		if jsonData, err = json.Marshal(v); err != nil {
			return nil, bad("%s: %v", name, err)
		}
	}
	if asJSON {
		// encoding/json keeps the last of two equal keys: a file could
		// show ${env:…} first and deploy a literal given after it.
		if err := spec.CheckJSONDuplicateKeys(name, data); err != nil {
			return nil, &fileError{msg: err.Error(), err: err}
		}
	}
	var list []fileConnector
	var err error
	trimmed := bytes.TrimSpace(jsonData)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var one fileConnector
		err = strictJSON(trimmed, &one)
		list = []fileConnector{one}
	} else {
		err = strictJSON(trimmed, &list)
	}
	if err != nil {
		pos := name
		if asJSON {
			pos = jsonPos(name, jsonData, err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Name the field and the JSON kinds, not the Go types.
			field := te.Field
			if field == "" {
				field = "the file"
			} else {
				field = strconv.Quote(field)
			}
			return nil, bad("%s: %s: want %s, got %s", pos, field, jsonKindOf(te.Type), te.Value)
		}
		return nil, bad("%s: %v", pos, err)
	}
	if len(list) == 0 {
		return nil, bad("%s: no connectors declared", name)
	}
	out := make([]Connector, 0, len(list))
	for i, fc := range list {
		where := fmt.Sprintf("%s: connector %d", name, i+1)
		if fc.Name == "" {
			return nil, bad("%s: no name", where)
		}
		where = fmt.Sprintf("%s: connector %q", name, fc.Name)
		state := strings.ToLower(fc.State)
		switch state {
		case "", "running", "paused", "stopped":
		default:
			return nil, bad("%s: state %q: want running, paused or stopped", where, fc.State)
		}
		src := name
		if fc.Source != "" {
			src = fc.Source
		}
		c := Connector{Name: fc.Name, State: state, Sensitive: fc.Sensitive, Source: src, Config: map[string]string{}}
		for k, raw := range fc.Config {
			v, err := configValue(raw)
			if err != nil {
				return nil, bad("%s: config key %q: %v", where, k, err)
			}
			if IsMasked(v) {
				return nil, &MaskedValueError{File: name, Connector: fc.Name, Key: k, Value: strings.TrimSpace(v)}
			}
			if s, perr := spec.ParseSecret(v); perr == nil && (s.Kind == spec.SecretEnv || s.Kind == spec.SecretFile) {
				if lookup != nil {
					if v, err = lookup.Resolve(v); err != nil {
						return nil, &fileError{msg: fmt.Sprintf("%s: config key %q: %v", where, k, err), err: err}
					}
				}
				c.Sensitive = append(c.Sensitive, k)
			}
			c.Config[k] = v
		}
		if c.Config["connector.class"] == "" {
			return nil, bad("%s: config has no connector.class", where)
		}
		if n, ok := c.Config["name"]; ok && n != c.Name {
			return nil, bad("%s: config name %q differs from the connector name", where, n)
		}
		delete(c.Config, "name")
		out = append(out, c)
	}
	return out, nil
}

// jsonKindOf names the JSON value a Go type decodes from.
func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "a " + t.Kind().String()
}

func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// configValue accepts a string, number or boolean (Connect stores strings).
func configValue(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("want a string, number or boolean, got %s", string(raw))
}

func jsonPos(path string, data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	if errors.As(err, &se) {
		off = se.Offset - 1 // Offset is just after the offending byte
	} else if errors.As(err, &te) {
		off = te.Offset
	}
	if off < 0 {
		return path
	}
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%s:%d:%d", path, line, col)
}
