package eventrouter

import "testing"

func TestReadQuoted(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		text string
		next int
		ok   bool
	}{
		{`"a b",x`, 0, "a b", 5, true},
		{`{1,"x\"y\\z"}`, 3, `x"y\z`, 12, true},
		{`""`, 0, "", 2, true},
		{`"abc`, 0, "", 4, false},
		{`"a\`, 0, "", 3, false},
	} {
		text, next, ok := readQuoted(tc.s, tc.i)
		if text != tc.text || next != tc.next || ok != tc.ok {
			t.Errorf("readQuoted(%q, %d) = %q, %d, %v; want %q, %d, %v", tc.s, tc.i, text, next, ok, tc.text, tc.next, tc.ok)
		}
	}
}
