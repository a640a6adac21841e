package avro

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// jnode is a parsed JSON value with the byte offset where it starts
// (javatext's Jackson-compatible tree).
type jnode = javatext.Node

const (
	jNull   = javatext.Null
	jBool   = javatext.Bool
	jNumber = javatext.Number
	jString = javatext.String
	jArray  = javatext.Array
	jObject = javatext.Object
)

// nodeText is Jackson's textValue(): the string, or "" and false for other
// kinds (and for nil).
func nodeText(n *jnode) (string, bool) {
	if n == nil || n.Kind != jString {
		return "", false
	}
	return n.Text, true
}

// fitsInt reports an integral number in Java int range.
func fitsInt(n *jnode) bool { return n.NumberKind() == javatext.IntNode }

// fitsLong reports an integral number in Java long range.
func fitsLong(n *jnode) bool {
	k := n.NumberKind()
	return k == javatext.IntNode || k == javatext.LongNode
}

// nodeValue converts the node to an Avro JSON value (encoding/json with
// UseNumber shapes).
func nodeValue(n *jnode) any {
	switch n.Kind {
	case jNull:
		return nil
	case jBool:
		return n.Bool
	case jNumber:
		return json.Number(n.Text)
	case jString:
		return n.Text
	case jArray:
		out := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			out[i] = nodeValue(e)
		}
		return out
	default:
		out := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			out[k] = nodeValue(n.Vals[i])
		}
		return out
	}
}

// parseJSON parses a schema document from offset start as Avro Java's
// Schema.Parser does: Jackson with comments allowed, and nothing but
// characters up to ' ' after the schema (Java checks the rest with
// String.trim(), so not even a comment may follow). Errors are
// *javatext.SyntaxError.
func parseJSON(data []byte, start int) (*jnode, error) {
	text := string(data)
	n, end, err := javatext.ParseJSON(text, start, javatext.ParseOptions{AllowComments: true})
	if err != nil {
		var se *javatext.SyntaxError
		if errors.As(err, &se) && errors.Is(err, javatext.ErrNoContent) {
			return nil, &javatext.SyntaxError{Offset: se.Offset, Msg: "no content: empty schema"}
		}
		return nil, err
	}
	for end < len(text) && text[end] <= ' ' {
		end++
	}
	if end < len(text) {
		return nil, &javatext.SyntaxError{Offset: end, Msg: "dangling content after end of schema: " + strings.TrimSpace(text[end:])}
	}
	return n, nil
}

// lineIndex maps byte offsets to 1-based line and column.
type lineIndex []int // offsets of line starts

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (li lineIndex) pos(file string, off int) Position {
	i := sort.Search(len(li), func(i int) bool { return li[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return Position{File: file, Line: i + 1, Col: off - li[i] + 1, Offset: off}
}
