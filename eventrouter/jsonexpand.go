package eventrouter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// jnode is a parsed JSON payload: javatext's Jackson-compatible tree
// (objects keep key order, a duplicate key keeps its first position and its
// last value, numbers keep their literal).
type jnode = javatext.Node

// jkind is the JsonNode class readTree builds: numbers are split into
// IntNode, LongNode, BigIntegerNode and DoubleNode.
type jkind int

const (
	jNull jkind = iota
	jBool
	jString
	jInt    // IntNode (fits int32)
	jLong   // LongNode
	jBigInt // BigIntegerNode
	jDouble // DoubleNode
	jArray
	jObject
)

func kindOf(n *jnode) jkind {
	switch n.Kind {
	case javatext.Null:
		return jNull
	case javatext.Bool:
		return jBool
	case javatext.String:
		return jString
	case javatext.Array:
		return jArray
	case javatext.Object:
		return jObject
	}
	switch n.NumberKind() {
	case javatext.IntNode:
		return jInt
	case javatext.LongNode:
		return jLong
	case javatext.BigIntNode:
		return jBigInt
	}
	return jDouble
}

// nodeInt is the value of an IntNode or LongNode.
func nodeInt(n *jnode) int64 {
	v, _ := strconv.ParseInt(n.Text, 10, 64)
	return v
}

// nodeFloat is the value of a DoubleNode (beyond the double range: the
// infinities, as Jackson's parser gives).
func nodeFloat(n *jnode) float64 {
	f, _ := strconv.ParseFloat(n.Text, 64)
	return f
}

func isNumber(n *jnode) bool { return n.Kind == javatext.Number }

// nodeType is Jackson's JsonNodeType (numbers are one type).
func nodeType(n *jnode) string {
	switch n.Kind {
	case javatext.Number:
		return "NUMBER"
	case javatext.Null:
		return "NULL"
	case javatext.Bool:
		return "BOOLEAN"
	case javatext.String:
		return "STRING"
	case javatext.Array:
		return "ARRAY"
	}
	return "OBJECT"
}

// asText is JsonNode.asText() (containers give "").
func asText(n *jnode) string {
	switch kindOf(n) {
	case jString, jBigInt:
		return n.Text
	case jBool:
		return strconv.FormatBool(n.Bool)
	case jNull:
		return "null"
	case jInt, jLong:
		return strconv.FormatInt(nodeInt(n), 10)
	case jDouble:
		return javatext.FormatDouble(nodeFloat(n))
	}
	return ""
}

var errJSON = errors.New("json parse error")

// parseJSON parses the JSON value at the start of s (after whitespace)
// with Jackson's rules and limits (javatext.ParseJSON with opts) and
// returns it with the offset just past it.
func parseJSON(s string, opts javatext.ParseOptions) (*jnode, int, error) {
	n, end, err := javatext.ParseJSON(s, 0, opts)
	if se := (*javatext.SyntaxError)(nil); errors.As(err, &se) {
		return nil, end, fmt.Errorf("%w at offset %d: %s", errJSON, se.Offset, se.Msg)
	}
	return n, end, err
}

// parseJackson parses the first JSON value of s the way a default Jackson
// ObjectMapper.readTree does: strict JSON, at most 1000 nested arrays and
// objects, trailing content ignored.
func parseJackson(s string) (*jnode, error) {
	n, _, err := parseJSON(s, javatext.ParseOptions{})
	return n, err
}

// ---------------------------------------------------------------- schema inference (JsonSchemaData)

type jsonSchemaData struct {
	optionalBytesForNull bool
	adjust               func(string) string
}

func newJSONSchemaData(cfg *Config) *jsonSchemaData {
	d := &jsonSchemaData{optionalBytesForNull: cfg.JSONNullBehavior == "optional_bytes", adjust: func(s string) string { return s }}
	switch cfg.FieldNameAdjust {
	case "avro":
		d.adjust = func(s string) string { return avroFieldName(s, false) }
	case "avro_unicode":
		d.adjust = func(s string) string { return avroFieldName(s, true) }
	}
	return d
}

type jsonExpandError struct{ msg string }

func (e *jsonExpandError) Error() string { return e.msg }

// toConnectSchema infers the schema of n; key is the struct name for objects
// (hasKey false is Java's null key). A nil schema means "no schema" (JSON
// null under ignore, an empty array).
func (d *jsonSchemaData) toConnectSchema(key string, hasKey bool, n *jnode) (*Schema, error) {
	switch kindOf(n) {
	case jString:
		return optional(String), nil
	case jBool:
		return optional(Boolean), nil
	case jInt:
		return optional(Int32), nil
	case jLong:
		return optional(Int64), nil
	case jBigInt, jDouble:
		return optional(Float64), nil
	case jArray:
		if len(n.Elems) == 0 {
			return nil, nil
		}
		items, err := d.arraySchema(key, hasKey, n)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: Array, Optional: true, Items: items}, nil
	case jObject:
		s := &Schema{Type: StructT, Optional: true}
		if hasKey {
			s.Name = key
		}
		for i, k := range n.Keys {
			name := d.adjust(k)
			fk := name
			if hasKey && strings.TrimSpace(key) != "" {
				fk = key + "." + name
			}
			fs, err := d.toConnectSchema(fk, true, n.Vals[i])
			if err != nil {
				return nil, err
			}
			if fs != nil && s.Field(name) == nil {
				s.Fields = append(s.Fields, Field{Name: name, Schema: fs})
			}
		}
		return s, nil
	case jNull:
		if d.optionalBytesForNull {
			return optional(Bytes), nil
		}
		return nil, nil
	}
	return nil, nil
}

func (d *jsonSchemaData) arraySchema(key string, hasKey bool, arr *jnode) (*Schema, error) {
	sample, err := d.firstArrayElement(arr)
	if err != nil {
		return nil, err
	}
	if kindOf(sample) == jObject {
		// Java collects the element schemas in a HashSet and merges them in
		// its (JVM-dependent) iteration order; distinct shapes therefore
		// merge in an order we cannot know. First-seen order is used here.
		var set []*Schema
		for _, e := range arr.Elems {
			if kindOf(e) != jObject {
				continue
			}
			s, err := d.toConnectSchema(key, hasKey, e)
			if err != nil {
				return nil, err
			}
			dup := false
			for _, o := range set {
				if o.Equal(s) {
					dup = true
					break
				}
			}
			if !dup {
				set = append(set, s)
			}
		}
		var merged *Schema
		for _, s := range set {
			merged = mergeSchema(merged, s)
		}
		return merged, nil
	}
	s, err := d.toConnectSchema("", false, sample)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, &jsonExpandError{fmt.Sprintf("Array '%s' has unrecognized member schema.", asText(arr))}
	}
	return s, nil
}

func (d *jsonSchemaData) firstArrayElement(arr *jnode) (*jnode, error) {
	ref := &jnode{Kind: javatext.Null}
	var refSchema *Schema
	for _, e := range arr.Elems {
		if kindOf(e) == jNull {
			continue
		}
		if kindOf(ref) == jNull {
			ref = e
		}
		if nodeType(e) != nodeType(ref) {
			return nil, &jsonExpandError{fmt.Sprintf("Field is not a homogenous array (%s x %s).", asText(ref), nodeType(e))}
		}
		if isNumber(ref) {
			if refSchema == nil {
				refSchema, _ = d.toConnectSchema("", false, ref)
			}
			es, _ := d.toConnectSchema("", false, e)
			if es.Type != refSchema.Type {
				return nil, &jsonExpandError{fmt.Sprintf("Field is not a homogenous array (%s x %s), different number types (%s x %s)", asText(ref), asText(e), refSchema, es)}
			}
		}
	}
	return ref, nil
}

// mergeSchema unions struct fields; the merged schema copies name, version,
// doc and parameters but not the optional flag (SchemaUtil.copySchemaBasics),
// so it is required.
func mergeSchema(left, right *Schema) *Schema {
	if left == nil {
		return right
	}
	fields := append([]Field{}, left.Fields...)
	for _, f := range right.Fields {
		idx := -1
		for i := range fields {
			if fields[i].Name == f.Name {
				idx = i
				break
			}
		}
		if idx < 0 {
			fields = append(fields, f)
		} else if !fields[idx].Schema.Equal(f.Schema) && fields[idx].Schema.Type == Bytes && f.Schema.Type != Bytes {
			fields[idx] = f
		}
	}
	return &Schema{Type: left.Type, Name: left.Name, Version: left.Version, Doc: left.Doc, Parameters: left.Parameters, Fields: fields}
}

// toConnectData builds the struct for the top-level document.
func (d *jsonSchemaData) toConnectData(n *jnode, s *Schema) (any, error) {
	return d.toStruct(n, s)
}

func (d *jsonSchemaData) toStruct(n *jnode, s *Schema) (*Struct, error) {
	if s == nil {
		return nil, taskErr(excNPE, "schema is null")
	}
	if s.Type != StructT {
		return nil, dataException("Not a struct schema: %s", s)
	}
	st := NewStruct(s)
	for _, f := range s.Fields {
		child := n.Get(f.Name) // nil unless n is an object with the key
		if child == nil {
			continue
		}
		v, err := d.fieldValue(child, f.Schema)
		if err != nil {
			return nil, err
		}
		if err := st.Put(f.Name, v); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func (d *jsonSchemaData) fieldValue(n *jnode, s *Schema) (any, error) {
	switch kindOf(n) {
	case jString:
		return n.Text, nil
	case jBool:
		return n.Bool, nil
	case jDouble:
		return nodeFloat(n), nil
	case jInt:
		return int32(nodeInt(n)), nil
	case jLong:
		return nodeInt(n), nil
	case jBigInt:
		return bigDecimal(n.Text), nil
	case jArray:
		out := make([]any, 0, len(n.Elems))
		for _, e := range n.Elems {
			var es *Schema
			if s != nil {
				es = s.Items
			}
			v, err := d.fieldValue(e, es)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case jObject:
		return d.toStruct(n, s)
	}
	return nil, nil
}

// avroFieldName is Debezium's AVRO_FIELD_NAMER / AVRO_UNICODE_FIELD_NAMER.
func avroFieldName(s string, unicode bool) string {
	if s == "" {
		return s
	}
	u := utf16.Encode([]rune(s))
	validFirst := func(c uint16) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (!unicode && c == '_')
	}
	validNext := func(c uint16) bool { return validFirst(c) || c >= '0' && c <= '9' }
	repl := func(c uint16) string {
		if !unicode {
			return "_"
		}
		h := strconv.FormatInt(int64(c), 16)
		if len(h) <= 2 {
			h = "00" + h
		}
		return "_u" + h
	}
	var b strings.Builder
	changed := false
	for i, c := range u {
		ok := validNext(c)
		if i == 0 {
			ok = validFirst(c)
		}
		if ok {
			b.WriteString(string(utf16.Decode([]uint16{c})))
			continue
		}
		changed = true
		b.WriteString(repl(c))
		if i == 0 && !unicode && c >= '0' && c <= '9' {
			b.WriteByte(byte(c))
		}
	}
	if !changed {
		return s
	}
	return b.String()
}
