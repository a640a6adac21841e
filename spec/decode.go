package spec

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// decoder turns yaml.Nodes into spec structs, recording the position of
// every key and collecting every error (unknown keys, wrong types).
type decoder struct {
	file string
	errs *ErrorList
	// visits counts decoded nodes, so that alias expansion ("billion
	// laughs") cannot make decoding explode.
	visits  int
	tooMany bool
	// aliased: an alias was expanded (the size error names the cause).
	aliased bool
}

// maxVisits bounds the nodes decoded per document, aliases expanded.
const maxVisits = 200_000

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.errs.add(d.pos(n), fmt.Sprintf(format, args...))
}

var nodeType = reflect.TypeOf(Node{})

// yamlKeys returns the YAML keys of struct type t, in field order.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		keys = append(keys, strings.Split(tag, ",")[0])
	}
	return keys
}

// decode decodes n into v (a pointer to the target).
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if d.visits++; d.visits > maxVisits {
		if !d.tooMany {
			d.tooMany = true
			cause := ""
			if d.aliased {
				cause = " after expanding aliases"
			}
			d.errorf(n, "document too large: more than %d values%s (split the outboxes into several files)", maxVisits, cause)
		}
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			d.errorf(n, "%s: unresolvable alias", path)
			return
		}
		n, d.aliased = n.Alias, true
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // absent value: keep the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		d.decode(n, elem.Elem(), path)
		v.Set(elem)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "%s: expected a list, got %s", path, kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "%s: expected a string, got %s", path, kindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "%s: expected an integer, got %s", path, kindName(n))
			return
		}
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			d.errorf(n, "%s: expected an integer, got %q", path, n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			d.errorf(n, "%s: expected true or false, got %q", path, n.Value)
			return
		}
		v.SetBool(b)
	default:
		d.errorf(n, "%s: unsupported field type %s", path, v.Type())
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unexpected node"
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: expected a mapping, got %s", strings.TrimPrefix(path, "."), kindName(n))
		return
	}
	t := v.Type()
	var node *Node
	fields := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == nodeType && f.Anonymous {
			node = v.Field(i).Addr().Interface().(*Node)
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "" || tag == "-" {
			continue
		}
		fields[strings.Split(tag, ",")[0]] = i
	}
	if node != nil {
		node.Pos = d.pos(n)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		key := k.Value
		sub := key
		if path != "" {
			sub = path + "." + key
		}
		idx, ok := fields[key]
		if !ok {
			d.errorf(k, "unknown key %q%s", sub, suggest(key, yamlKeys(t)))
			continue
		}
		if seen[key] {
			d.errorf(k, "duplicate key %q", sub)
			continue
		}
		seen[key] = true
		if node != nil {
			node.setKey(key, d.pos(val))
		}
		d.decode(val, v.Field(idx), sub)
		if node != nil && v.Field(idx).Kind() == reflect.Map {
			// Remember where each map entry (connector override) is.
			for j := 0; j+1 < len(val.Content); j += 2 {
				node.setKey(key+"."+val.Content[j].Value, d.pos(val.Content[j+1]))
			}
		}
	}
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: expected a mapping, got %s", path, kindName(n))
		return
	}
	m := reflect.MakeMap(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			d.errorf(val, "%s.%s: expected a scalar value, got %s", path, k.Value, kindName(val))
			continue
		}
		if m.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			d.errorf(k, "duplicate key %q", path+"."+k.Value)
			continue
		}
		value := val.Value
		if val.Tag == "!!null" {
			value = ""
		}
		m.SetMapIndex(reflect.ValueOf(k.Value), reflect.ValueOf(value))
	}
	v.Set(m)
}

// suggest returns ` (did you mean "x"?)` for the closest known key.
func suggest(key string, known []string) string {
	best, bestD := "", 1<<30
	for _, k := range known {
		if dd := editDistance(strings.ToLower(key), strings.ToLower(k)); dd < bestD {
			best, bestD = k, dd
		}
	}
	if best != "" && bestD <= 3 {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	return fmt.Sprintf(" (known keys: %s)", strings.Join(sorted, ", "))
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
