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

// PostgreSQL hstore under hstore.handling.mode=json (the default):
// PostgresValueConverter reads the column's text with the driver's
// HStoreConverter.fromString into a java.util.HashMap and writes that map's
// entries with Jackson as a JSON object (io.debezium.data.Json), so the
// keys come in the HashMap's iteration order, neither the order written
// nor PostgreSQL's. hstore.handling.mode=map (a Connect map, in the same
// order) is not modelled.

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

// pgHstoreValue is the io.debezium.data.Json text the connector delivers
// for a sample hstore value: PostgreSQL's hstore text ("a"=>"1", b=>NULL)
// or a JSON object of strings and nulls. Duplicate keys are refused
// (PostgreSQL keeps one, which is not specified).
func pgHstoreValue(sqlType, raw string, isStr bool) (string, error) {
	var pairs []hstorePair
	var err error
	if t := strings.TrimSpace(raw); !isStr && strings.HasPrefix(t, "{") {
		pairs, err = hstoreFromJSON(t)
	} else {
		pairs, err = parseHstore(raw)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s value %q: %v", ErrInvalidEvent, sqlType, raw, err)
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
			return "", fmt.Errorf("%w: %s value %q: key %q twice (PostgreSQL keeps one of them, which is not specified)", ErrInvalidEvent, sqlType, raw, pairs[i].key)
		}
	}
	ordered, err := javaHashMapOrder(pairs)
	if err != nil {
		return "", fmt.Errorf("%w: %s value %q: %v", ErrUnsupported, sqlType, raw, err)
	}
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
	return b.String(), nil
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

// javaHashMapOrder is the iteration order of a java.util.HashMap (default
// capacity and load factor) after putting pairs in order: by bucket
// (spread hash & (capacity-1)), each bucket in insertion order, the table
// doubled whenever the size passes 3/4 of it. A bucket of 8 entries (where
// HashMap treeifies a bin, or resizes the table early) is refused.
func javaHashMapOrder(pairs []hstorePair) ([]hstorePair, error) {
	n := 16
	buckets := make([][]hstorePair, n)
	spread := func(k string) uint32 {
		h := uint32(javaStringHash(k))
		return h ^ (h >> 16)
	}
	size := 0
	for _, p := range pairs {
		idx := spread(p.key) & uint32(n-1)
		buckets[idx] = append(buckets[idx], p)
		if len(buckets[idx]) >= 8 {
			return nil, fmt.Errorf("8 keys in one java.util.HashMap bucket (a tree bin): the connector's key order is not modelled")
		}
		size++
		if size > n*3/4 {
			n *= 2
			next := make([][]hstorePair, n)
			for _, bk := range buckets {
				for _, q := range bk {
					j := spread(q.key) & uint32(n-1)
					next[j] = append(next[j], q)
				}
			}
			buckets = next
		}
	}
	out := make([]hstorePair, 0, size)
	for _, bk := range buckets {
		out = append(out, bk...)
	}
	return out, nil
}
