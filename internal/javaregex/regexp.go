package javaregex

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrInexact is returned by Compile for a pattern Java accepts but that has
// no exact RE2 translation (lookaround, back-references, possessive
// quantifiers, …; see the package doc).
var ErrInexact = errors.New("java.util.regex feature without an exact RE2 equivalent")

// Regexp is a java.util.regex.Pattern whose Go translation matches exactly
// what Java matches.
type Regexp struct {
	// Pattern is the Java source.
	Pattern string
	res     *Result
	search  *regexp.Regexp // Matcher.find
	full    *regexp.Regexp // Matcher.matches
}

// Compile checks pattern with Java's grammar and compiles its translation.
// A pattern Java rejects is a *SyntaxError; one Java accepts but Go can only
// approximate is an error wrapping ErrInexact that names the constructs.
func Compile(pattern string) (*Regexp, error) {
	res, err := Check(pattern)
	if err != nil {
		return nil, err
	}
	if !res.Exact {
		return nil, fmt.Errorf("%w: %s", ErrInexact, strings.Join(res.Notes, "; "))
	}
	search, err := regexp.Compile(res.Go)
	if err != nil { // Check compiled it already
		return nil, &SyntaxError{Msg: err.Error()}
	}
	full, err := regexp.Compile(`\A(?:` + res.Go + `)\z`)
	if err != nil {
		return nil, &SyntaxError{Msg: err.Error()}
	}
	return &Regexp{Pattern: pattern, res: res, search: search, full: full}, nil
}

// MustCompile is Compile that panics on error, for patterns in code.
func MustCompile(pattern string) *Regexp {
	re, err := Compile(pattern)
	if err != nil {
		panic(fmt.Sprintf("javaregex: Compile(%q): %v", pattern, err))
	}
	return re
}

// Result is the checked pattern.
func (re *Regexp) Result() *Result { return re.res }

// Matches reports whether the pattern matches all of s (Matcher.matches).
func (re *Regexp) Matches(s string) bool { return re.full.MatchString(s) }

// Find reports whether the pattern matches somewhere in s (Matcher.find).
func (re *Regexp) Find(s string) bool { return re.search.MatchString(s) }

// expand expands the replacement for a match: loc is the submatch index
// slice of the match in s, as regexp.FindStringSubmatchIndex returns it. An
// unmatched group expands to nothing.
func (re *Regexp) expand(repl, s string, loc []int) (string, error) {
	pieces, err := parseReplacement(repl, re.res.Groups, re.search.SubexpIndex)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range pieces {
		if p.group < 0 {
			b.WriteString(p.lit)
			continue
		}
		if loc[2*p.group] >= 0 {
			b.WriteString(s[loc[2*p.group]:loc[2*p.group+1]])
		}
	}
	return b.String(), nil
}

// ReplaceFirst is Matcher.replaceFirst: the first match of the pattern in s
// is replaced by the expanded replacement. Without a match, s is returned
// and the replacement is not read (as in Java). A bad replacement is a
// *ReplacementError.
func (re *Regexp) ReplaceFirst(s, repl string) (string, error) {
	loc := re.search.FindStringSubmatchIndex(s)
	if loc == nil {
		return s, nil
	}
	rep, err := re.expand(repl, s, loc)
	if err != nil {
		return "", err
	}
	return s[:loc[0]] + rep + s[loc[1]:], nil
}
