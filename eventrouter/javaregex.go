package eventrouter

import (
	"fmt"
	"regexp"
	"strings"
)

// javaRegex is a java.util.regex.Pattern emulated on Go's RE2 for the subset
// both share (no lookaround, backreferences, possessive or atomic groups).
type javaRegex struct {
	src    string
	full   *regexp.Regexp // \A(?:re)\z, for Matcher.matches()
	search *regexp.Regexp // re, for Matcher.find() inside replaceFirst
}

// compileJavaRegex translates a Java regex to RE2. Java's '.' does not match
// line terminators (\n \r \u0085 \u2028 \u2029) unless DOTALL is on; the
// translation keeps that. Constructs RE2 lacks are ErrUnsupported.
func compileJavaRegex(src string) (*javaRegex, error) {
	tr, err := translateJavaRegex(src)
	if err != nil {
		return nil, err
	}
	search, err := regexp.Compile(tr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRegexSyntax, err)
	}
	full, err := regexp.Compile(`\A(?:` + tr + `)\z`)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRegexSyntax, err)
	}
	return &javaRegex{src: src, full: full, search: search}, nil
}

var (
	errRegexUnsupported = fmt.Errorf("%w: Java regex feature without RE2 equivalent", ErrUnsupported)
	errRegexSyntax      = fmt.Errorf("%w: regex does not compile", ErrInvalidConfig)
)

func translateJavaRegex(src string) (string, error) {
	var b strings.Builder
	inClass := 0
	dotall := false
	unsupported := func(what string) error { return fmt.Errorf("%w: %s", errRegexUnsupported, what) }
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", fmt.Errorf("%w: trailing backslash", errRegexSyntax)
			}
			n := src[i+1]
			switch {
			case n >= '1' && n <= '9' && inClass == 0:
				return "", unsupported("backreference \\" + string(n))
			case strings.IndexByte("kGZRXhHVv", n) >= 0 && inClass == 0:
				return "", unsupported("\\" + string(n))
			case n == 'Q':
				end := strings.Index(src[i+2:], `\E`)
				lit := src[i+2:]
				if end >= 0 {
					lit = src[i+2 : i+2+end]
					i = i + 2 + end + 1
				} else {
					i = len(src)
				}
				b.WriteString(regexp.QuoteMeta(lit))
				continue
			case n == 'p' || n == 'P':
				if i+2 < len(src) && src[i+2] == '{' && strings.HasPrefix(src[i+3:], "java") {
					return "", unsupported("\\p{java…}")
				}
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
		case c == '[':
			if inClass > 0 && i+1 < len(src) && src[i+1] == ':' {
				b.WriteString(`\[`)
				continue
			}
			if inClass > 0 {
				return "", unsupported("nested character class")
			}
			inClass++
			b.WriteByte(c)
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' { // a leading ] is literal in both
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass > 0:
			inClass--
			b.WriteByte(c)
		case c == '&' && inClass > 0 && i+1 < len(src) && src[i+1] == '&':
			return "", unsupported("character class intersection &&")
		case inClass > 0:
			b.WriteByte(c)
		case c == '(' && i+1 < len(src) && src[i+1] == '?':
			rest := src[i+2:]
			switch {
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
				return "", unsupported("lookaround")
			case strings.HasPrefix(rest, ">"):
				return "", unsupported("atomic group")
			case strings.HasPrefix(rest, "<"):
				b.WriteString("(?P<")
				i += 2
			default:
				// inline flags (?idmsux-idmsux) or (?flags:...)
				j := 0
				for j < len(rest) && strings.IndexByte("idmsuxU-", rest[j]) >= 0 {
					j++
				}
				flags := rest[:j]
				if strings.ContainsAny(flags, "dxuU") {
					return "", unsupported("inline flag in (?" + flags + ")")
				}
				on := flags
				if k := strings.IndexByte(flags, '-'); k >= 0 {
					on = flags[:k]
				}
				if strings.Contains(on, "s") {
					dotall = true
				}
				b.WriteString("(?")
				i++
			}
		case c == '.':
			if dotall {
				b.WriteByte('.')
			} else {
				b.WriteString(`[^\n\r\x{85}\x{2028}\x{2029}]`)
			}
		case (c == '+') && i > 0 && isQuantifierEnd(src, i-1):
			return "", unsupported("possessive quantifier")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// isQuantifierEnd reports whether src[i] ends a quantifier (so a following
// '+' makes it possessive).
func isQuantifierEnd(src string, i int) bool {
	c := src[i]
	if c != '*' && c != '+' && c != '?' && c != '}' {
		return false
	}
	// an escaped quantifier character is a literal
	bs := 0
	for k := i - 1; k >= 0 && src[k] == '\\'; k-- {
		bs++
	}
	return bs%2 == 0
}

// route applies Kafka's RegexRouter: when the regex fully matches value the
// result is Matcher.replaceFirst(replacement); otherwise value is unchanged.
func (r *javaRegex) route(value, replacement string) (string, error) {
	if !r.full.MatchString(value) {
		return value, nil
	}
	loc := r.search.FindStringSubmatchIndex(value)
	if loc == nil { // cannot happen: a full match implies a find
		return value, nil
	}
	rep, err := r.expand(replacement, value, loc)
	if err != nil {
		return "", err
	}
	return value[:loc[0]] + rep + value[loc[1]:], nil
}

// expand follows Matcher.appendExpandedReplacement: \x is a literal x, $n
// (greedy while the group exists) and ${name} are group references.
func (r *javaRegex) expand(rep, in string, loc []int) (string, error) {
	groupCount := len(loc)/2 - 1
	group := func(n int) (string, bool) {
		if loc[2*n] < 0 {
			return "", false
		}
		return in[loc[2*n]:loc[2*n+1]], true
	}
	var b strings.Builder
	for i := 0; i < len(rep); {
		c := rep[i]
		switch c {
		case '\\':
			i++
			if i >= len(rep) {
				return "", taskErr(excIllegalArg, "character to be escaped is missing")
			}
			b.WriteByte(rep[i])
			i++
		case '$':
			i++
			if i >= len(rep) {
				return "", taskErr(excIllegalArg, "Illegal group reference: group index is missing")
			}
			ref := -1
			if rep[i] == '{' {
				i++
				j := i
				for j < len(rep) && (isASCIILetter(rep[j]) || rep[j] >= '0' && rep[j] <= '9') {
					j++
				}
				name := rep[i:j]
				if name == "" {
					return "", taskErr(excIllegalArg, "named capturing group has 0 length name")
				}
				if j >= len(rep) || rep[j] != '}' {
					return "", taskErr(excIllegalArg, "named capturing group is missing trailing '}'")
				}
				if name[0] >= '0' && name[0] <= '9' {
					return "", taskErr(excIllegalArg, "capturing group name {%s} starts with digit character", name)
				}
				i = j + 1
				ref = r.search.SubexpIndex(name)
				if ref < 0 {
					return "", taskErr(excIllegalArg, "No group with name {%s}", name)
				}
			} else {
				d := rep[i]
				if d < '0' || d > '9' {
					return "", taskErr(excIllegalArg, "Illegal group reference")
				}
				ref = int(d - '0')
				i++
				for i < len(rep) && rep[i] >= '0' && rep[i] <= '9' {
					n := ref*10 + int(rep[i]-'0')
					if groupCount < n {
						break
					}
					ref = n
					i++
				}
				if ref > groupCount {
					return "", taskErr(excIndexOOB, "No group %d", ref)
				}
			}
			if g, ok := group(ref); ok {
				b.WriteString(g)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
