package javaregex

import "fmt"

// CheckReplacement checks a java.util.regex.Matcher replacement string
// against the groups of a checked pattern, as Matcher.appendReplacement
// does at run time: "${name}" needs a named group, "$n" a group number (Java
// reads further digits only while the number stays a valid group), "\x" is a
// literal x, and a lone "$" or a trailing "\" are errors.
func CheckReplacement(repl string, r *Result) error {
	names := map[string]bool{}
	for _, n := range r.Names {
		names[n] = true
	}
	for i := 0; i < len(repl); i++ {
		switch repl[i] {
		case '\\':
			i++
			if i >= len(repl) {
				return fmt.Errorf("character to be escaped is missing at the end of %q", repl)
			}
		case '$':
			i++
			if i >= len(repl) {
				return fmt.Errorf("illegal group reference: group index is missing at the end of %q", repl)
			}
			if repl[i] == '{' {
				j := i + 1
				for j < len(repl) && isASCIIAlnum(repl[j]) {
					j++
				}
				if j >= len(repl) || repl[j] != '}' {
					return fmt.Errorf("named capturing group is missing trailing '}' in %q", repl)
				}
				name := repl[i+1 : j]
				if name == "" {
					return fmt.Errorf("named capturing group has 0 length name in %q", repl)
				}
				if name[0] >= '0' && name[0] <= '9' {
					return fmt.Errorf("capturing group name {%s} starts with digit character", name)
				}
				if !names[name] {
					return fmt.Errorf("no group with name {%s} in route.topic.regex", name)
				}
				i = j
				continue
			}
			if repl[i] < '0' || repl[i] > '9' {
				return fmt.Errorf("illegal group reference in %q", repl)
			}
			n := int(repl[i] - '0')
			if n > r.Groups {
				return fmt.Errorf("no group %d in route.topic.regex (it has %d)", n, r.Groups)
			}
			for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' {
				next := n*10 + int(repl[i+1]-'0')
				if next > r.Groups {
					break
				}
				n = next
				i++
			}
		}
	}
	return nil
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
