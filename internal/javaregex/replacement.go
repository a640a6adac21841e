package javaregex

import (
	"errors"
	"fmt"
	"strings"
)

// ReplacementError is a replacement string that
// java.util.regex.Matcher.appendReplacement rejects.
type ReplacementError struct {
	// Exception is the Java exception class Matcher throws:
	// java.lang.IllegalArgumentException or
	// java.lang.IndexOutOfBoundsException.
	Exception string
	// Java is Matcher's message, as Java prints it.
	Java string
	// Msg explains the problem in the replacement.
	Msg string
}

func (e *ReplacementError) Error() string { return e.Msg }

// The exceptions Matcher throws for a bad replacement.
const (
	IllegalArgument  = "java.lang.IllegalArgumentException"
	IndexOutOfBounds = "java.lang.IndexOutOfBoundsException"
)

// ErrReplacement is what every *ReplacementError unwraps to.
var ErrReplacement = errors.New("invalid java.util.regex replacement")

// Unwrap makes errors.Is(err, ErrReplacement) true.
func (e *ReplacementError) Unwrap() error { return ErrReplacement }

func replErr(exc, java, msg string) *ReplacementError {
	return &ReplacementError{Exception: exc, Java: java, Msg: msg}
}

// piece is a literal (group < 0) or a group reference of a replacement.
type piece struct {
	lit   string
	group int
}

// parseReplacement reads repl as Matcher.appendExpandedReplacement does:
// "\x" is a literal x, "$n" a group number (further digits are read while
// the number stays a valid group), "${name}" a named group. groups is the
// number of capturing groups, index maps a group name to its number.
func parseReplacement(repl string, groups int, index func(string) int) ([]piece, error) {
	var out []piece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, piece{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(repl); {
		c := repl[i]
		switch c {
		case '\\':
			i++
			if i >= len(repl) {
				return nil, replErr(IllegalArgument, "character to be escaped is missing",
					fmt.Sprintf("character to be escaped is missing at the end of %q", repl))
			}
			lit.WriteByte(repl[i])
			i++
		case '$':
			i++
			if i >= len(repl) {
				return nil, replErr(IllegalArgument, "Illegal group reference: group index is missing",
					fmt.Sprintf("illegal group reference: group index is missing at the end of %q", repl))
			}
			var ref int
			if repl[i] == '{' {
				i++
				j := i
				for j < len(repl) && isASCIIAlnum(repl[j]) {
					j++
				}
				name := repl[i:j]
				// Java checks the name's length before the closing brace.
				if name == "" {
					return nil, replErr(IllegalArgument, "named capturing group has 0 length name",
						fmt.Sprintf("named capturing group has 0 length name in %q", repl))
				}
				if j >= len(repl) || repl[j] != '}' {
					return nil, replErr(IllegalArgument, "named capturing group is missing trailing '}'",
						fmt.Sprintf("named capturing group is missing trailing '}' in %q", repl))
				}
				if name[0] >= '0' && name[0] <= '9' {
					m := fmt.Sprintf("capturing group name {%s} starts with digit character", name)
					return nil, replErr(IllegalArgument, m, m)
				}
				i = j + 1
				ref = index(name)
				if ref < 0 {
					return nil, replErr(IllegalArgument, fmt.Sprintf("No group with name {%s}", name),
						fmt.Sprintf("no group with name {%s} in route.topic.regex", name))
				}
			} else {
				d := repl[i]
				if d < '0' || d > '9' {
					return nil, replErr(IllegalArgument, "Illegal group reference",
						fmt.Sprintf("illegal group reference in %q", repl))
				}
				ref = int(d - '0')
				if ref > groups {
					return nil, replErr(IndexOutOfBounds, fmt.Sprintf("No group %d", ref),
						fmt.Sprintf("no group %d in route.topic.regex (it has %d)", ref, groups))
				}
				i++
				for i < len(repl) && repl[i] >= '0' && repl[i] <= '9' {
					n := ref*10 + int(repl[i]-'0')
					if n > groups {
						break
					}
					ref = n
					i++
				}
			}
			flush()
			out = append(out, piece{group: ref})
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return out, nil
}

// CheckReplacement checks a java.util.regex.Matcher replacement string
// against the groups of a checked pattern, as Matcher.appendReplacement
// does at run time: "${name}" needs a named group, "$n" a group number (Java
// reads further digits only while the number stays a valid group), "\x" is a
// literal x, and a lone "$" or a trailing "\" are errors. The error is a
// *ReplacementError.
func CheckReplacement(repl string, r *Result) error {
	_, err := parseReplacement(repl, r.Groups, r.groupIndex)
	return err
}

// groupIndex is the number of the named group, or -1.
func (r *Result) groupIndex(name string) int {
	// Names are in order of their '(' but unnamed groups interleave: the
	// Go translation numbers groups as Java does.
	re, err := r.Compile()
	if err != nil {
		return -1
	}
	return re.SubexpIndex(name)
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
