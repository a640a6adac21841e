package javaregex

import "testing"

func TestCheck(t *testing.T) {
	tests := []struct {
		pattern string
		ok      bool
		exact   bool
		groups  int
		match   string // a string the Go translation must fully match (if ok)
	}{
		{`(?<routedByValue>.*)`, true, true, 1, "Order"},
		{`(?<routed_by>.*)`, false, false, 0, ""},     // '_' is not allowed in Java group names
		{`(?P<name>.*)`, false, false, 0, ""},         // Go/Python syntax, Java rejects
		{`order{x}`, false, false, 0, ""},             // Go: literal "{x}"; Java: Illegal repetition
		{`a{2,3}`, true, true, 0, "aa"},               // a real repetition
		{`(.*)_v\d+`, true, true, 1, "order_v2"},      // plain regex
		{`(.*+)`, true, false, 1, "abc"},              // possessive: Java yes, Go no
		{`(?=x).*`, true, false, 0, "abc"},            // lookahead: Java yes, Go no
		{`(?<!x)y`, true, false, 0, "y"},              // lookbehind
		{`(?>ab)c`, true, false, 0, "abc"},            // atomic group
		{`(a)\1`, true, false, 1, "a"},                // back-reference dropped
		{`\p{Lu}.*`, true, true, 0, "Order"},          // general category: both
		{`\p{Greek}`, false, false, 0, ""},            // Go accepts bare script names, Java does not
		{`\p{IsGreek}+`, true, true, 0, "αβ"},         // Java's Is-prefixed script
		{`\p{Alpha}+`, true, true, 0, "abc"},          // POSIX class (Java only)
		{`\p{javaLowerCase}+`, true, false, 0, "abc"}, // java.lang.Character class
		{`[a-z&&[^e]]+`, true, false, 0, "abc"},       // intersection
		{`\y`, false, false, 0, ""},                   // unknown escape
		{`*abc`, false, false, 0, ""},                 // dangling meta character
		{`(abc`, false, false, 0, ""},                 // unclosed group
		{`abc)`, false, false, 0, ""},                 // unmatched ')'
		{`(?<a>x)(?<a>y)`, false, false, 0, ""},       // duplicate group name
		{`(?i)order`, true, true, 0, "ORDER"},         // inline flag
		{`(?z)order`, false, false, 0, ""},            // unknown flag
		{`\u0041+`, true, true, 0, "AA"},              // \\uhhhh (Java only)
		{`\k<nope>`, false, false, 0, ""},             // named back-reference to a missing group
		{`[z-a]`, false, false, 0, ""},                // bad range
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			r, err := Check(tt.pattern)
			if (err == nil) != tt.ok {
				t.Fatalf("Check(%q) error = %v, want ok=%v", tt.pattern, err, tt.ok)
			}
			if err != nil {
				return
			}
			if r.Exact != tt.exact {
				t.Errorf("Exact = %v (notes %v), want %v", r.Exact, r.Notes, tt.exact)
			}
			if r.Groups != tt.groups {
				t.Errorf("Groups = %d, want %d", r.Groups, tt.groups)
			}
			re, err := r.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if loc := re.FindStringIndex(tt.match); loc == nil || loc[0] != 0 || loc[1] != len(tt.match) {
				t.Errorf("Go pattern %q does not fully match %q", r.Go, tt.match)
			}
		})
	}
}

func TestCheckReplacement(t *testing.T) {
	r, err := Check(`(?<routedByValue>.*)`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		repl string
		ok   bool
	}{
		{`outbox.event.${routedByValue}`, true},
		{`outbox.event.$1`, true},
		{`outbox.event.$0`, true},
		{`outbox.event.$2`, false},
		{`outbox.event.${other}`, false},
		{`outbox.event.${routed_by}`, false},
		{`cost\$`, true},
		{`cost$`, false},
		{`trailing\`, false},
		{`outbox.${}`, false},
	} {
		err := CheckReplacement(tt.repl, r)
		if (err == nil) != tt.ok {
			t.Errorf("CheckReplacement(%q) = %v, want ok=%v", tt.repl, err, tt.ok)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`(?<a>.*)`, `[a-z&&[^b]]`, `\p{IsGreek}`, `a{1,2}+`, `(?=x)`, `\Qa.b\E`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Check(s)
		if err == nil {
			if _, err := r.Compile(); err != nil {
				t.Fatalf("accepted %q but Go pattern %q does not compile: %v", s, r.Go, err)
			}
		}
	})
}
