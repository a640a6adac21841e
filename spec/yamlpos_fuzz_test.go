package spec

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzLocate: for any source yaml.v3 rejects, Locate does not panic and
// points inside the source (a line that exists, a column at most one past
// its end).
func FuzzLocate(f *testing.F) {
	for _, s := range []string{"a: 1\n\tb: 2\n", "a: [1, 2\n", "a: \"x\n", "- a\nb: 1\n", "a: *x\n", "é: [ü\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2000 {
			return
		}
		dec := yaml.NewDecoder(bytes.NewReader([]byte(src)))
		var err error
		for {
			var n yaml.Node
			if err = dec.Decode(&n); err != nil {
				break
			}
		}
		if err == nil || errors.Is(err, io.EOF) {
			return
		}
		pos, _, ok := LocateYAML([]byte(src), err)
		lines := bytes.Split([]byte(src), []byte("\n"))
		if pos.Line < 1 || pos.Line > len(lines) {
			if ok {
				t.Fatalf("Locate(%q) = line %d of %d", src, pos.Line, len(lines))
			}
			return
		}
		if ok && (pos.Col < 1 || pos.Col > len([]rune(string(lines[pos.Line-1])))+1) {
			t.Fatalf("Locate(%q) = %d:%d, line has %d characters", src, pos.Line, pos.Col, len([]rune(string(lines[pos.Line-1]))))
		}
	})
}
