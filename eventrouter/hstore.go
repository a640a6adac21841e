package eventrouter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// PostgreSQL hstore: PostgresValueConverter reads the column's text with
// the driver's HStoreConverter.fromString into a java.util.HashMap. Under
// hstore.handling.mode=json (the default) it writes that map's entries
// with Jackson as a JSON object (io.debezium.data.Json); under map it
// delivers the HashMap itself as a Connect map<string, optional string>
// (ConnectMap). Either way the keys come in the HashMap's iteration order
// (javaHashMap), neither the order written nor PostgreSQL's.

// isPgHstore reports a PostgreSQL hstore column.
func isPgHstore(kind ConnectorKind, sqlType string) bool {
	base, _ := parseSQLType(sqlType)
	return (kind == Postgres || kind == "") && base == "hstore"
}

// hstorePair is one key and its value (nil: NULL).
type hstorePair struct {
	key string
	val *string
}

// pgHstoreMapSchema is the schema of an hstore column under
// hstore.handling.mode=map: a map of (required) string keys to optional
// string values.
func pgHstoreMapSchema(nullable bool) *Schema {
	return &Schema{Type: Map, Optional: nullable, Keys: &Schema{Type: String}, Items: &Schema{Type: String, Optional: true}}
}

// pgHstoreValue is the value the connector delivers for a sample hstore
// value (PostgreSQL's hstore text ("a"=>"1", b=>NULL) or a JSON object of
// strings and nulls): a ConnectMap when s is a map schema
// (hstore.handling.mode=map), else the io.debezium.data.Json text.
func pgHstoreValue(sqlType string, s *Schema, raw string, isStr bool) (any, error) {
	ordered, err := pgHstorePairs(sqlType, raw, isStr)
	if err != nil {
		return nil, err
	}
	if s != nil && s.Type == Map {
		m := make(ConnectMap, len(ordered))
		for i, p := range ordered {
			m[i].Key = p.key
			if p.val != nil {
				m[i].Value = *p.val
			}
		}
		return m, nil
	}
	return pgHstoreJSON(ordered), nil
}

// pgHstorePairs reads a sample hstore value and returns its pairs in the
// order of the java.util.HashMap HStoreConverter.fromString fills.
// Duplicate keys are refused (PostgreSQL keeps one, which is not
// specified).
func pgHstorePairs(sqlType, raw string, isStr bool) ([]hstorePair, error) {
	var pairs []hstorePair
	var err error
	if t := strings.TrimSpace(raw); !isStr && strings.HasPrefix(t, "{") {
		pairs, err = hstoreFromJSON(t)
	} else {
		pairs, err = parseHstore(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s value %q: %v", ErrInvalidEvent, sqlType, raw, err)
	}
	// hstore_in stores the pairs sorted by key length, then bytes
	// (hstore_out prints them in that order, the order fromString puts
	// them into the HashMap)
	sort.SliceStable(pairs, func(i, j int) bool {
		a, b := pairs[i].key, pairs[j].key
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	for i := 1; i < len(pairs); i++ {
		if pairs[i].key == pairs[i-1].key {
			return nil, fmt.Errorf("%w: %s value %q: key %q twice (PostgreSQL keeps one of them, which is not specified)", ErrInvalidEvent, sqlType, raw, pairs[i].key)
		}
	}
	return javaHashMapOrder(pairs), nil
}

// pgHstoreJSON is Jackson's JSON object of the pairs, in their order.
func pgHstoreJSON(ordered []hstorePair) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ordered {
		if i > 0 {
			b.WriteByte(',')
		}
		javatext.WriteString(&b, p.key)
		b.WriteByte(':')
		if p.val == nil {
			b.WriteString("null")
		} else {
			javatext.WriteString(&b, *p.val)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// hstoreFromJSON reads a JSON object of strings and nulls, in its order.
func hstoreFromJSON(t string) ([]hstorePair, error) {
	dec := json.NewDecoder(strings.NewReader(t))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object of strings and nulls")
	}
	var pairs []hstorePair
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		p := hstorePair{key: key}
		if string(bytes.TrimSpace(v)) != "null" {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, fmt.Errorf("key %q: want a string or null, not %s", key, v)
			}
			p.val = &s
		}
		pairs = append(pairs, p)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the object")
	}
	return pairs, nil
}

// parseHstore reads hstore text as hstore_in does: key => value pairs
// separated by commas, each item double-quoted (backslash escapes) or bare
// (up to a blank, '=', '>' or ','); a bare NULL value (any case) is NULL.
func parseHstore(v string) ([]hstorePair, error) {
	s := v
	i := 0
	skip := func() {
		for i < len(s) && isPgArraySpace(s[i]) {
			i++
		}
	}
	item := func() (string, bool, error) {
		skip()
		if i >= len(s) {
			return "", false, fmt.Errorf("unexpected end of input")
		}
		var b strings.Builder
		if s[i] == '"' {
			text, next, ok := readQuoted(s, i)
			if !ok {
				return "", false, fmt.Errorf("an unterminated quoted item")
			}
			i = next
			return text, true, nil
		}
		for i < len(s) && !isPgArraySpace(s[i]) && s[i] != '=' && s[i] != ',' && s[i] != '>' {
			if s[i] == '\\' && i+1 < len(s) {
				b.WriteByte(s[i+1])
				i += 2
				continue
			}
			if s[i] == '"' {
				return "", false, fmt.Errorf("a quote inside a bare item")
			}
			b.WriteByte(s[i])
			i++
		}
		if b.Len() == 0 {
			return "", false, fmt.Errorf("an empty item at offset %d", i)
		}
		return b.String(), false, nil
	}
	var pairs []hstorePair
	skip()
	if i >= len(s) {
		return pairs, nil
	}
	for {
		key, _, err := item()
		if err != nil {
			return nil, err
		}
		skip()
		if !strings.HasPrefix(s[i:], "=>") {
			return nil, fmt.Errorf("want => after key %q", key)
		}
		i += 2
		val, quoted, err := item()
		if err != nil {
			return nil, err
		}
		p := hstorePair{key: key}
		if quoted || !strings.EqualFold(val, "null") {
			p.val = &val
		}
		pairs = append(pairs, p)
		skip()
		if i >= len(s) {
			return pairs, nil
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("want a comma after the value of %q", key)
		}
		i++
	}
}

// javaStringHash is java.lang.String.hashCode (over UTF-16 code units).
func javaStringHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}
