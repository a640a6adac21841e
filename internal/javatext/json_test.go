package javatext

import (
	"errors"
	"strings"
	"testing"
)

func TestParseJSONTree(t *testing.T) {
	t.Parallel()
	in := ` {"i":2147483647,"l":2147483648,"b":9223372036854775808,"d":1.0,"e":1e2,"z":-0,` +
		`"s":"x\u00e9\ud83d\ude00\ud800\"\\\/\b\f\n\r\t","a":[true,false,null],"k":1,"k":{"n":[]}} tail`
	n, end, err := ParseJSON(in, 0, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := in[end:]; got != " tail" {
		t.Errorf("rest %q", got)
	}
	if n.Kind != Object || n.Offset != 1 {
		t.Errorf("root kind %d at %d", n.Kind, n.Offset)
	}
	kinds := map[string]NumberKind{"i": IntNode, "l": LongNode, "b": BigIntNode, "d": DoubleNode, "e": DoubleNode, "z": IntNode, "s": NotNumber}
	for k, want := range kinds {
		if got := n.Get(k).NumberKind(); got != want {
			t.Errorf("%s: number kind %d, want %d", k, got, want)
		}
	}
	if got := n.Get("e").Text; got != "1e2" {
		t.Errorf("number literal %q, want as written", got)
	}
	if got, want := n.Get("s").Text, "xé😀\uFFFD\"\\/\b\f\n\r\t"; got != want {
		t.Errorf("string %q, want %q", got, want)
	}
	if got := strings.Join(n.Keys, ","); got != "i,l,b,d,e,z,s,a,k" {
		t.Errorf("keys %s: a duplicate keeps its first place", got)
	}
	if k := n.Get("k"); k.Kind != Object || k.Get("n").Kind != Array {
		t.Errorf("duplicate key: the last value wins, got %s", k)
	}
	a := n.Get("a")
	if a.Offset != strings.Index(in, "[true") || a.Elems[1].Offset != strings.Index(in, "false") {
		t.Errorf("offsets %d %d", a.Offset, a.Elems[1].Offset)
	}
	if n.Get("missing") != nil || a.Get("x") != nil || (*Node)(nil).Get("x") != nil {
		t.Error("Get of a missing key or on a non-object is nil")
	}
}

func TestParseJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		opts   ParseOptions
		off    int
		msg    string
		noCont bool
	}{
		{in: "  ", off: 2, msg: "no content", noCont: true},
		{in: "/* c */", opts: ParseOptions{AllowComments: true}, off: 7, msg: "no content", noCont: true},
		{in: "/* c */ 1", off: 0, msg: "unexpected character '/'"},
		{in: `{"a":01}`, off: 5, msg: "invalid number: leading zeroes not allowed"},
		{in: `[1.]`, off: 3, msg: "invalid number: no digit after the decimal point"},
		{in: `[1e+]`, off: 4, msg: "invalid number: no digit in the exponent"},
		{in: `[-]`, off: 2, msg: "invalid number"},
		{in: `{'a':1}`, off: 1, msg: "expected a string key in object"},
		{in: `{"a" 1}`, off: 5, msg: "expected ':' after object key"},
		{in: `{"a":1,}`, off: 7, msg: "expected a string key in object"},
		{in: `[1,]`, off: 3, msg: "unexpected character ']'"},
		{in: `[1 2]`, off: 3, msg: "expected ',' or ']' in array"},
		{in: `{"a":1 "b"}`, off: 7, msg: "expected ',' or '}' in object"},
		{in: `[tru]`, off: 1, msg: "invalid literal"},
		{in: `{"a":NaN}`, off: 5, msg: "unexpected character 'N'"},
		{in: "[\"a\x01\"]", off: 3, msg: "control character in string"},
		{in: `["\x"]`, off: 2, msg: `invalid escape \x`},
		{in: `["\u12"]`, off: 4, msg: `invalid \u escape`},
		{in: `["abc`, off: 5, msg: "unterminated string"},
		{in: `[1,`, off: 3, msg: "unexpected end of input"},
		{in: `[1`, off: 2, msg: "unexpected end of input in array"},
		{in: `{"a":1`, off: 6, msg: "unexpected end of input in object"},
		{in: `[/* open`, opts: ParseOptions{AllowComments: true}, off: 8, msg: "unexpected end of input"},
		{in: strings.Repeat("[", 1001) + strings.Repeat("]", 1001), off: 1001, msg: "too deeply nested"},
		{in: strings.Repeat("[", 11) + strings.Repeat("]", 11), opts: ParseOptions{MaxDepth: 10}, off: 11, msg: "too deeply nested"},
	}
	for _, tt := range tests {
		_, _, err := ParseJSON(tt.in, 0, tt.opts)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%.40q: error %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.off || se.Msg != tt.msg {
			t.Errorf("%.40q: error at %d %q, want at %d %q", tt.in, se.Offset, se.Msg, tt.off, tt.msg)
		}
		if errors.Is(err, ErrNoContent) != tt.noCont {
			t.Errorf("%.40q: errors.Is(err, ErrNoContent) = %v", tt.in, !tt.noCont)
		}
	}
}

func TestParseJSONOptions(t *testing.T) {
	t.Parallel()
	accepted := []struct {
		in   string
		opts ParseOptions
	}{
		{"/* a */ [1, // b\n 2 /**/]", ParseOptions{AllowComments: true}},
		{strings.Repeat("[", 1000) + strings.Repeat("]", 1000), ParseOptions{}},
		{strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000), ParseOptions{}},
		{strings.Repeat("[", 5000) + `"deep"` + strings.Repeat("]", 5000), ParseOptions{MaxDepth: -1}},
	}
	for _, tt := range accepted {
		if _, _, err := ParseJSON(tt.in, 0, tt.opts); err != nil {
			t.Errorf("%.40q: %v", tt.in, err)
		}
	}
	// start skips a prefix (a byte order mark, say)
	n, end, err := ParseJSON("\uFEFF\"int\"", 3, ParseOptions{})
	if err != nil || n.Text != "int" || n.Offset != 3 || end != 8 {
		t.Errorf("from offset 3: %v %v %d", n, err, end)
	}
}

func TestNodeStringAndClone(t *testing.T) {
	t.Parallel()
	in := `{"a\u001fb" : [ "<&>` + "\u2028" + `", 1.50, -0, true, null, {} ]}`
	n, _, err := ParseJSON(in, 0, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\\u001Fb\":[\"<&>\u2028\",1.50,-0,true,null,{}]}"
	if got := n.String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	c := n.Clone()
	c.Vals[0].Elems[0].Text = "changed"
	c.Keys[0] = "k"
	if got := n.String(); got != want {
		t.Errorf("a clone shares state: %s", got)
	}
	if c.Vals[0].Elems[2].Offset != n.Vals[0].Elems[2].Offset {
		t.Error("a clone keeps offsets")
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9"],"a":null}`, `/**/[]//`, `"\ud800"`, `[-0.0e+1,true]`} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, comments bool) {
		n, end, err := ParseJSON(s, 0, ParseOptions{AllowComments: comments})
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if end < 1 || end > len(s) || n.Offset >= end {
			t.Fatalf("offsets: value at %d, end %d of %d", n.Offset, end, len(s))
		}
		// the compact rendering parses back to itself
		out := n.String()
		again, _, err := ParseJSON(out, 0, ParseOptions{})
		if err != nil {
			t.Fatalf("String() %q does not parse: %v", out, err)
		}
		if again.String() != out {
			t.Fatalf("not stable: %q then %q", out, again.String())
		}
	})
}
