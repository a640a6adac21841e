package eventrouter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/spec"
)

// The inputs of a preview or a relay as files hold them: a connector config,
// a Java properties file (worker or producer config) and a sample row. Each
// parser takes the file's name (for messages) and its bytes; reading the
// file is the caller's.

// ParseConnectorConfig parses a Kafka Connect connector config: the
// {"name": …, "config": {…}} document of the Connect REST API, or the flat
// config object. Values must be strings (booleans and numbers are taken as
// their text); a key given twice is an error.
func ParseConnectorConfig(name string, data []byte) (map[string]string, error) {
	if err := spec.CheckJSONDuplicateKeys(name, data); err != nil {
		return nil, err
	}
	var wrapped struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	raw := wrapped.Config
	if raw == nil {
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	out := map[string]string{}
	for k, v := range raw {
		switch x := v.(type) {
		case string:
			out[k] = x
		case bool, float64:
			out[k] = fmt.Sprint(x)
		default:
			return nil, fmt.Errorf("%s: config key %s: want a string", name, k)
		}
	}
	return out, nil
}

// ParseProperties parses a Java properties file as Kafka Connect's worker
// and producer configs use it: key=value or key: value, one a line, # and !
// comments, a key alone for an empty value. It takes no line continuations
// and no escapes.
func ParseProperties(data []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			out[line] = ""
			continue
		}
		out[strings.TrimSpace(line[:i])] = strings.TrimSpace(line[i+1:])
	}
	return out
}

// ParseSampleRowFile is ParseSampleRow for a file's bytes, stricter and with
// messages for people: a key given twice, a document that is not an object,
// a field of the wrong JSON kind (named by field), and an op Debezium does
// not emit are errors that name the file.
func ParseSampleRowFile(name string, data []byte) (*SampleRow, error) {
	if err := spec.CheckJSONDuplicateKeys(name, data); err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '{' {
		return nil, fmt.Errorf("%s: a sample row is a JSON object such as {\"op\": \"c\", \"row\": {\"id\": …}}, not %s", name, jsonKind(t[0]))
	}
	if err := checkSampleShape(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sr, err := ParseSampleRow(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch sr.Op {
	case OpCreate, OpRead, OpUpdate, OpDelete, OpTruncate:
	default:
		return nil, fmt.Errorf("%s: op %q: want c, r, u, d or t (Debezium emits no other op)", name, sr.Op)
	}
	return sr, nil
}

// checkSampleShape checks the JSON kind of each field of a sample row, so
// that a mistake is reported by field name, not as a Go type.
func checkSampleShape(data []byte) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil // the parser reports the syntax error with its position
	}
	want := map[string]byte{"op": '"', "table": '"', "runId": '"', "columns": '{', "row": '{', "tsMs": '0', "primaryKey": '['}
	names := map[byte]string{'"': "a string", '{': "an object", '[': "an array", '0': "a number"}
	for k, raw := range top {
		w, ok := want[k]
		t := bytes.TrimSpace(raw)
		if !ok || len(t) == 0 || string(t) == "null" {
			continue
		}
		got := t[0]
		if got == '-' || (got >= '0' && got <= '9') {
			got = '0'
		}
		if got != w {
			return fmt.Errorf("%q: want %s, got %s", k, names[w], jsonKind(t[0]))
		}
	}
	return nil
}

// jsonKind names the JSON value that starts with b, for messages.
func jsonKind(b byte) string {
	switch b {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	}
	return "a number"
}

// ApplyContract types the sample's columns from the outbox's table contract
// (spec.Outbox.ColumnContract) where the sample does not type them, for the
// columns the row has, and defaults the sample's table to the outbox's.
func (sr *SampleRow) ApplyContract(o *spec.Outbox) {
	if sr.Table == "" {
		sr.Table = o.QualifiedTable()
	}
	if sr.Columns == nil {
		sr.Columns = map[string]ColumnSpec{}
	}
	for _, c := range o.ColumnContract() {
		if _, ok := sr.Columns[c.Name]; ok {
			continue
		}
		present := false
		for _, v := range sr.Row {
			present = present || v.Name == c.Name
		}
		if !present {
			continue
		}
		nullable := c.Nullable
		sr.Columns[c.Name] = ColumnSpec{Type: c.SQLType, Nullable: &nullable}
	}
}
