package spec

// This file finds where a gopkg.in/yaml.v3 syntax error really is (it
// was internal/yamlpos; it lives here so that spec imports nothing from
// the module, and the other readers of YAML files use it from here).
//
// yaml.v3 reports a syntax error as "yaml: line N: problem", where N is the
// line of the construct the parser was in (the plain scalar before a tab,
// the mapping that an indentation error breaks), often one or two lines
// before the problem and sometimes missing; it never gives a column. Locate
// re-parses prefixes of the source to find the first byte at which yaml.v3
// reports the same problem, and turns that into the 1-based line and column
// of the offending character or token.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var lineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlMessage returns the problem of a yaml.v3 error without the "yaml: " and
// "line N: " prefixes, and the line yaml.v3 reported (0 when none).
func yamlMessage(err error) (msg string, line int) {
	s := err.Error()
	if m := lineRe.FindStringSubmatch(s); m != nil {
		line, _ = strconv.Atoi(m[1])
		return m[2], line
	}
	return strings.TrimPrefix(s, "yaml: "), 0
}

// problem is the problem text yaml.v3 gives for src (all documents decoded
// into nodes), or "" when src decodes.
func problem(src []byte) string {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			msg, _ := yamlMessage(err)
			return msg
		}
	}
}

// LocateYAML returns the position in src of err, a syntax error yaml.v3
// returned for src, and the problem text without yaml.v3's prefixes. ok is
// false when err is not a syntax error of src (a *yaml.TypeError, or an
// error the prefixes do not reproduce); pos (with no File) is then yaml.v3's line, column
// 1 (or 1:1).
func LocateYAML(src []byte, err error) (pos Pos, msg string, ok bool) {
	msg, line := yamlMessage(err)
	fallback := Pos{Line: max(line, 1), Col: 1}
	var te *yaml.TypeError
	if errors.As(err, &te) || problem(src) != msg {
		return fallback, msg, false
	}
	// Binary search for the shortest prefix (cut at a character boundary)
	// that reproduces the problem.
	lo, hi := 0, len(src) // problem(src[:lo]) != msg, problem(src[:hi]) == msg
	if problem(nil) == msg {
		return Pos{Line: 1, Col: 1}, msg, true
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(src[mid]) {
			mid--
		}
		if mid == lo {
			mid = (lo + hi) / 2
			for mid < hi && !utf8.RuneStart(src[mid]) {
				mid++
			}
			if mid == hi {
				break
			}
		}
		if problem(src[:mid]) == msg {
			hi = mid
		} else {
			lo = mid
		}
	}
	// The prefix ends with the character that made yaml.v3 fail.
	off := hi - 1
	for off > 0 && !utf8.RuneStart(src[off]) {
		off--
	}
	off = adjust(src, off, msg, line)
	return position(src, off), msg, true
}

// YAMLError is a YAML syntax error of a file at its exact position.
type YAMLError struct {
	File string
	Pos  Pos
	// Msg is yaml.v3's problem text.
	Msg string
	// Err is yaml.v3's error.
	Err error
}

// Error is "file:line:col: yaml: problem".
func (e *YAMLError) Error() string {
	return fmt.Sprintf("%s:%d:%d: yaml: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Unwrap returns yaml.v3's error.
func (e *YAMLError) Unwrap() error { return e.Err }

// WrapYAML returns err, a yaml.v3 error for src read from file, as a *YAMLError at
// the exact position; an error that is not a syntax error of src (a
// *yaml.TypeError, for example) comes back as "file: err".
func WrapYAML(file string, src []byte, err error) error {
	pos, msg, ok := LocateYAML(src, err)
	if !ok {
		return fmt.Errorf("%s: %w", file, err)
	}
	return &YAMLError{File: file, Pos: pos, Msg: msg, Err: err}
}

var anchorRe = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// adjust moves off from the character at which yaml.v3 noticed the problem
// to the place to show: the start of the offending token, the unclosed
// bracket, the key without its ':'.
func adjust(src []byte, off int, msg string, line int) int {
	switch {
	case strings.HasPrefix(msg, "did not find expected key"),
		strings.HasPrefix(msg, "did not find expected '-' indicator"),
		strings.HasPrefix(msg, "did not find expected node content"),
		strings.HasPrefix(msg, "did not find expected <document start>"):
		// The offending token is complete at off; a quoted one starts at
		// its opening quote. At a ':' the token is the key before it: a
		// plain scalar at the end of the input would be a key without ':'.
		if src[off] == ':' {
			return keyStart(src, off)
		}
		if q := src[off]; q == '"' || q == '\'' {
			if i := bytes.LastIndexByte(src[:off], q); i >= 0 {
				return i
			}
		}
	case msg == "did not find expected ',' or ']'", msg == "did not find expected ',' or '}'":
		// A collection never closed: at its bracket. Else a stray token
		// inside a (closed) flow collection: at the token.
		if i := unclosedBracket(src); i >= 0 {
			return i
		}
		if i := strayFlowToken(src, msg); i >= 0 {
			return i
		}
	case msg == "could not find expected ':'":
		// Reported at the scalar that should have been a key: yaml.v3's
		// line is that scalar's line (scanner errors count from 1).
		if line > 0 {
			start := lineStart(src, line)
			for start < len(src) && (src[start] == ' ' || src[start] == '\t') {
				start++
			}
			if start <= off {
				return start
			}
		}
	}
	if m := anchorRe.FindStringSubmatch(msg); m != nil {
		if i := off - len(m[1]); i >= 0 && src[i] == '*' {
			return i
		}
	}
	return off
}

// keyStart is the start of the key before the ':' at off: the first
// character of its line after blanks and "- " or "? " indicators.
func keyStart(src []byte, off int) int {
	i := bytes.LastIndexByte(src[:off], '\n') + 1
	for i < off {
		switch {
		case src[i] == ' ' || src[i] == '\t':
			i++
		case (src[i] == '-' || src[i] == '?') && i+1 < off && (src[i+1] == ' ' || src[i+1] == '\t'):
			i += 2
		default:
			return i
		}
	}
	return off
}

// strayFlowToken finds the token inside a flow collection where yaml.v3
// expected ',' or a closing bracket (msg): the first k at which src[:k],
// with the flow collections open there closed, already fails with msg. Any
// prefix ending inside a flow collection fails with msg at its end, so the
// binary search of LocateYAML cannot find it. -1 when no prefix does (the
// collection is only never closed).
func strayFlowToken(src []byte, msg string) int {
	fails := func(k int) bool {
		open, quote := flowState(src[:k])
		if quote >= 0 {
			return false
		}
		b := make([]byte, 0, k+len(open)+1)
		b = append(b, src[:k]...)
		for i := len(open) - 1; i >= 0; i-- {
			if src[open[i]] == '[' {
				b = append(b, ']')
			} else {
				b = append(b, '}')
			}
		}
		return problem(append(b, '\n')) == msg
	}
	// Cut points are the ends of characters; one inside a quoted scalar
	// moves past its closing quote (keeps the search monotone).
	next := func(k int) int {
		for k < len(src) && !utf8.RuneStart(src[k]) {
			k++
		}
		if _, q := flowState(src[:k]); q >= 0 {
			if j := bytes.IndexByte(src[k:], src[q]); j >= 0 {
				return k + j + 1
			}
			return len(src)
		}
		return k
	}
	if !fails(len(src)) {
		return -1
	}
	lo, hi := 0, len(src) // fails(lo) false, fails(hi) true
	for hi-lo > 1 {
		mid := next((lo + hi) / 2)
		if mid >= hi {
			break
		}
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	off := hi - 1
	for off > 0 && !utf8.RuneStart(src[off]) {
		off--
	}
	if q := src[off]; q == '"' || q == '\'' {
		if i := bytes.LastIndexByte(src[:off], q); i >= 0 {
			return i
		}
	}
	// The start of a plain token: back to a blank or flow indicator.
	for off > 0 && !bytes.ContainsRune([]byte(" \t\n,[]{}"), rune(src[off-1])) {
		off--
	}
	return off
}

// flowState returns the offsets of the '[' and '{' still open at the end
// of src, innermost last, and the offset of the opening quote of a quoted
// scalar src ends inside (-1 when none). Comments are skipped.
func flowState(src []byte) (open []int, quote int) {
	quote = -1
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '[', '{':
			open = append(open, i)
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case '"':
			start := i
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			if i >= len(src) {
				return open, start
			}
		case '\'':
			start := i
			for i++; i < len(src) && src[i] != '\''; i++ {
			}
			if i >= len(src) {
				return open, start
			}
		case '#':
			if i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		}
	}
	return open, quote
}

// unclosedBracket returns the offset of the innermost '[' or '{' of a flow
// collection still open at the end of src, or -1. Quoted scalars and
// comments are skipped.
func unclosedBracket(src []byte) int {
	var open []int
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '[', '{':
			open = append(open, i)
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(src) && src[i] != '\''; i++ {
			}
		case '#':
			if i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		}
	}
	if len(open) == 0 {
		return -1
	}
	return open[len(open)-1]
}

// lineStart is the offset of 1-based line n (len(src) past the end).
func lineStart(src []byte, n int) int {
	off := 0
	for l := 1; l < n; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return off
}

// position is the 1-based line and column (in characters) of offset off.
func position(src []byte, off int) Pos {
	off = min(off, len(src))
	before := src[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return Pos{Line: line, Col: utf8.RuneCount(before[start:]) + 1}
}
