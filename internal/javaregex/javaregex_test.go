package javaregex

import (
	"errors"
	"testing"
)

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
	for _, s := range []string{`(?<a>.*)`, `[a-z&&[^b]]`, `\p{IsGreek}`, `a{1,2}+`, `(?=x)`, `\Qa.b\E`, `(?:(?s).).`, `[\S]+`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Check(s)
		if err == nil {
			if _, err := r.Compile(); err != nil {
				t.Fatalf("accepted %q but Go pattern %q does not compile: %v", s, r.Go, err)
			}
		}
		re, err := Compile(s)
		if err != nil {
			return
		}
		// A match must survive the default EventRouter replacement and a
		// group reference to every group.
		for _, in := range []string{"", "Order", "a\nb", s} {
			if !re.Matches(in) {
				continue
			}
			if _, err := re.ReplaceFirst(in, "x.$0"); err != nil {
				t.Fatalf("%q on %q: $0: %v", s, in, err)
			}
		}
	})
}

// TestJavaMatching pins matching results checked against java.util.regex
// (Temurin 25, Pattern.matches) where RE2 spells the same thing differently.
func TestJavaMatching(t *testing.T) {
	for _, tt := range []struct {
		pattern, in string
		want        bool
	}{
		{`\s`, "\x0B", true},           // Java's \s includes VT, RE2's does not
		{`[\S]`, "\x0B", false},        // nor does \S inside a class
		{`[\S]`, "x", true},            //
		{`\S`, " ", false},             //
		{`.`, "\r", false},             // '.' excludes every line terminator
		{`.`, "\u0085", false},         //
		{`.`, "\u2028", false},         //
		{`(?s).`, "\r", true},          // DOTALL
		{`(?:(?s).).`, "\n\n", false},  // (?s) ends with its group
		{`(?:(?s).)\.?.`, "\nx", true}, //
		{`(?s:.).`, "\n\n", false},     // (?s:…) is scoped
		{`(?s)(?-s).`, "\n", false},    // turned off again
		{`\u0041+`, "AA", true},
		{`\e`, "\x1b", true},
		{`\cA`, "\x01", true},
		{`\p{Alpha}+`, "abc", true},
	} {
		re, err := Compile(tt.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", tt.pattern, err)
			continue
		}
		if got := re.Matches(tt.in); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v (Go %q)", tt.pattern, tt.in, got, tt.want, re.Result().Go)
		}
	}
}

func TestCompileInexact(t *testing.T) {
	for _, p := range []string{`(?=a)`, `(?<!a)b`, `(?>a)`, `a*+`, `a{2}+`, `(a)\1`, `(?<x>a)\k<x>`, `[a&&b]`, `(?x)a`, `\p{javaLowerCase}`, `\R`, `\G`} {
		if _, err := Compile(p); !errors.Is(err, ErrInexact) {
			t.Errorf("Compile(%q) = %v, want ErrInexact", p, err)
		}
	}
	var se *SyntaxError
	for _, p := range []string{`\k<x>`, `(?<routed_by>.*)`, `(?P<x>.*)`, `order{x}`, `\p{Greek}`, `(`} {
		if _, err := Compile(p); !errors.As(err, &se) {
			t.Errorf("Compile(%q) = %v, want *SyntaxError", p, err)
		}
	}
}

// TestReplaceFirst pins Matcher.replaceFirst results and exceptions checked
// against Java.
func TestReplaceFirst(t *testing.T) {
	for _, tt := range []struct {
		re, repl, in, want, exc, java string
	}{
		{`(?<routedByValue>.*)`, `outbox.event.${routedByValue}`, "Order", "outbox.event.Order", "", ""},
		{`(a)(b)?`, `x$2y`, "a", "xy", "", ""}, // unmatched group appends nothing
		{`(a)`, `$12`, "a", "a2", "", ""},      // $1 then '2': no group 12
		{`(a)`, `\$1\\`, "a", `$1\`, "", ""},
		{`a|ab`, `X`, "ab", "Xb", "", ""}, // leftmost-first alternation
		{`(a)`, `$9`, "b", "b", "", ""},   // no match: the replacement is not read
		{`(a)`, `$`, "a", "", IllegalArgument, "Illegal group reference: group index is missing"},
		{`(a)`, `$x`, "a", "", IllegalArgument, "Illegal group reference"},
		{`(a)`, `$2`, "a", "", IndexOutOfBounds, "No group 2"},
		{`(a)`, `${n}`, "a", "", IllegalArgument, "No group with name {n}"},
		{`(a)`, `${}`, "a", "", IllegalArgument, "named capturing group has 0 length name"},
		{`(a)`, `${a`, "a", "", IllegalArgument, "named capturing group is missing trailing '}'"},
		{`(a)`, `${1a}`, "a", "", IllegalArgument, "capturing group name {1a} starts with digit character"},
		{`(a)`, `x\`, "a", "", IllegalArgument, "character to be escaped is missing"},
	} {
		re := MustCompile(tt.re)
		got, err := re.ReplaceFirst(tt.in, tt.repl)
		if tt.exc != "" {
			var re *ReplacementError
			if !errors.As(err, &re) || re.Exception != tt.exc || re.Java != tt.java || !errors.Is(err, ErrReplacement) {
				t.Errorf("%s / %s on %q: got %q, %v; want %s: %s", tt.re, tt.repl, tt.in, got, err, tt.exc, tt.java)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s / %s on %q: got %q, %v; want %q", tt.re, tt.repl, tt.in, got, err, tt.want)
		}
	}
}
