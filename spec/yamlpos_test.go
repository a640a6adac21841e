package spec

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"gopkg.in/yaml.v3"
)

func yamlErr(t *testing.T, src string) error {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader([]byte(src)))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			t.Fatalf("%q decodes: want a syntax error", src)
		}
		if err != nil {
			return err
		}
	}
}

// TestLocate: each source has one syntax error at want (line:col of the
// offending character or token); yaml.v3 itself reports the line in the
// comment (and never a column).
func TestLocate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"tab on line 5 (yaml: line 4)", "a: 1\nb: 2\nc:\n  d: 1\n\te: 2\n", 5, 1, "found a tab character that violates indentation"},
		{"tab after a top-level scalar (yaml: line 4)", "a: 1\nb: 2\nc: 3\nd: 4\n\te: 5\n", 5, 1, "found a tab character that violates indentation"},
		{"tab before a sequence entry (yaml: line 3)", "a:\n  - x\n  - y\n\t- z\n", 4, 1, "found a tab character that violates indentation"},
		{"tab indenting a key (yaml: line 4)", "outboxes:\n  - name: x\n    database:\n\tkind: pg\n", 4, 1, "found character that cannot start any token"},
		{"tab at the very start (yaml: no line)", "\ta: 1\n", 1, 1, "found character that cannot start any token"},
		{"tab in a block scalar's indentation", "a: |\n  ok\n\tbad\n", 3, 1, "found a tab character where an indentation space is expected"},
		{"unclosed flow sequence (yaml: line 1)", "a: [1, 2\nb: 3\n", 1, 4, "did not find expected ',' or ']'"},
		{"unclosed flow mapping", "a: {x: 1\nb: 3\n", 1, 4, "did not find expected ',' or '}'"},
		{"a stray token inside a closed flow mapping spanning lines (was reported at its '{')", "a: 1\nb:\n  c: 2\n  d: {kind: postgres,\n      x: 1,\n      y: 2,\n      z: 3,\n      w: 4,\n      connection: {host: pg, user: dbz} \"x\"}\n", 9, 41, "did not find expected ',' or '}'"},
		{"a stray plain scalar after a nested flow sequence", "a: {x: 1, y: [1, 2] zeta}\n", 1, 21, "did not find expected ',' or '}'"},
		{"unclosed flow sequence after multibyte characters", "x: ü\ny: [ä, ö\n", 2, 4, "did not find expected ',' or ']'"},
		{"extra closing bracket (yaml: no line)", "a: [1, 2]]\n", 1, 10, "did not find expected key"},
		{"unterminated double quote (yaml: line 3)", "a: \"abc\nb: 3\n", 1, 4, "found unexpected end of stream"},
		{"unterminated single quote", "a: 'abc\nb: 3\n", 1, 4, "found unexpected end of stream"},
		{"key indented under a scalar (yaml: line 2)", "a: 1\n b: 2\n", 2, 3, "mapping values are not allowed in this context"},
		{"key indented deeper (yaml: line 3)", "a: 1\nb: 2\n  c: 3\n", 3, 4, "mapping values are not allowed in this context"},
		{"two values on one line (yaml: no line)", "a: b: c\n", 1, 5, "mapping values are not allowed in this context"},
		{"dedent to a column no mapping has (yaml: line 2)", "a:\n  b: 1\n c: 2\n", 3, 2, "did not find expected key"},
		{"sequence entry inside a mapping (yaml: line 1)", "a:\n  b: c\n  - d\n", 3, 3, "did not find expected key"},
		{"top-level sequence entry after a mapping (yaml: line 1)", "a: x\n- b\n", 2, 1, "did not find expected key"},
		{"mapping key after a sequence (yaml: line 1)", "- a\nb: 1\n", 2, 1, "did not find expected '-' indicator"},
		{"key after nested sequence entries (yaml: line 1)", "a:\n  - b\n  c: d\n", 3, 3, "did not find expected '-' indicator"},
		{"a key without ':' (yaml: line 3)", "a: 1\nb: 2\nc 2\nd: 3\n", 3, 1, "could not find expected ':'"},
		{"unknown alias (yaml: no line)", "a: &x 1\nb: *yy\n", 2, 4, "unknown anchor 'yy' referenced"},
		{"alias without a name", "a: *\n", 1, 4, "did not find expected alphabetic or numeric character"},
		{"reserved indicator @", "a: @foo\n", 1, 4, "found character that cannot start any token"},
		{"reserved indicator `", "x: 1\ny: `foo\n", 2, 4, "found character that cannot start any token"},
		{"unclosed flow sequence in a second document (yaml: line 3)", "a: 1\n---\nb: [\n", 3, 4, "did not find expected node content"},
		{"unknown directive", "x: 1\n%bad\n", 2, 2, "found unknown directive name"},
		{"unknown escape", "a: \"ok\"\nb: \"x\\qy\"\n", 2, 6, "found unknown escape character"},
		{"mapping value after a quoted key", "a: 1\nb: 2\n\"c\": 3\n d: 4\n", 4, 3, "mapping values are not allowed in this context"},
		{"CRLF line ends", "a: 1\r\nb: 2\r\n\tc: 3\r\n", 3, 1, "found a tab character that violates indentation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pos, msg, ok := LocateYAML([]byte(tc.src), yamlErr(t, tc.src))
			if !ok || pos.Line != tc.line || pos.Col != tc.col || msg != tc.msg {
				t.Errorf("Locate(%q) = %d:%d %q (ok %v), want %d:%d %q", tc.src, pos.Line, pos.Col, msg, ok, tc.line, tc.col, tc.msg)
			}
		})
	}
}

// A decoding error that is not a syntax error keeps yaml.v3's line.
func TestLocateTypeError(t *testing.T) {
	t.Parallel()
	var v struct{ A int }
	src := []byte("x: 1\na: notanumber\n")
	err := yaml.Unmarshal(src, &v)
	pos, _, ok := LocateYAML(src, err)
	if ok || pos.Line != 1 {
		// A TypeError lists several lines; Locate does not pick one.
		t.Errorf("Locate(TypeError) = %v, %v; want not ok", pos, ok)
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	msg, line := yamlMessage(errors.New("yaml: line 4: found a tab character that violates indentation"))
	if msg != "found a tab character that violates indentation" || line != 4 {
		t.Errorf("Message = %q, %d", msg, line)
	}
	if msg, line := yamlMessage(errors.New("yaml: found character that cannot start any token")); msg != "found character that cannot start any token" || line != 0 {
		t.Errorf("Message = %q, %d", msg, line)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	src := []byte("a: 1\n\tb: 2\n")
	yerr := yamlErr(t, string(src))
	err := WrapYAML("f.yaml", src, yerr)
	var e *YAMLError
	if !errors.As(err, &e) || err.Error() != "f.yaml:2:1: yaml: found a tab character that violates indentation" || !errors.Is(err, yerr) {
		t.Errorf("Wrap = %v", err)
	}
	var v struct{ A int }
	terr := yaml.Unmarshal([]byte("a: x\n"), &v)
	if err := WrapYAML("f.yaml", []byte("a: x\n"), terr); errors.As(err, &e) || !errors.Is(err, terr) {
		t.Errorf("Wrap(TypeError) = %v", err)
	}
}
