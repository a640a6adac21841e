// Package javaregex checks java.util.regex patterns and Matcher replacement
// strings from Go, as far as Go's RE2-based regexp allows.
//
// Debezium's EventRouter compiles route.topic.regex with java.util.regex and
// applies route.topic.replacement with Matcher semantics. Go's regexp has a
// different syntax, so a pattern is not checked by compiling it with Go
// directly. Check scans the pattern with Java's grammar, reports what Java
// rejects (bad group names, "(?P<…>)", "{" that does not start a
// repetition, unknown \p{…} classes, unknown inline flags, bad named
// back-references) and translates what Java accepts but RE2 lacks into an
// approximate Go pattern:
//
//   - possessive quantifiers (a*+) become greedy ones;
//   - atomic groups (?>…) become non-capturing groups;
//   - lookarounds (?=…) (?!…) (?<=…) (?<!…) are dropped;
//   - back-references \1 \k<name> are dropped;
//   - \h \v \R \X \G \Z \u hhhh \0oo \e \cX, Java-only \p{…} names and
//     class intersections/unions ([a-z&&[^e]], [a[b]]) are approximated.
//
// The translation is then compiled with Go to catch the remaining syntax
// errors (unbalanced parentheses, nothing to repeat, bad ranges). When a
// construct had to be approximated, Result.Exact is false: the verdict
// "Java compiles it" stays right, but matching with Result.Go may differ from
// Java. Known gaps: comments mode (?x) is not interpreted, and repetition
// counts above 1000 (accepted by Java) are clamped (both make Result.Exact
// false). Not flagged: case-insensitive matching (?i) folds Unicode in Go but
// only ASCII in Java, and "^"/"$" follow Go's line rules.
//
// Where Java and RE2 give the same spelling different meanings, the
// translation keeps Java's: "." outside DOTALL mode excludes all of Java's
// line terminators (\n \r \u0085 \u2028 \u2029), with (?s) scoped to its
// group as in Java, and \s is [ \t\n\x0B\f\r] (RE2's \s lacks \x0B).
//
// Compile builds a matcher for patterns that translate exactly
// (Result.Exact); Regexp.Matches, Regexp.Find and Regexp.ReplaceFirst follow
// java.util.regex.Matcher, with Matcher's replacement syntax ("$n",
// "${name}", "\x"), which CheckReplacement checks and ReplaceFirst applies.
// Debezium's EventRouter (package eventrouter) and the connector config
// rules (package connectorconfig) both use this package.
package javaregex

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// SyntaxError is a pattern java.util.regex.Pattern.compile would reject.
type SyntaxError struct {
	// Offset is the byte offset in the pattern.
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s near index %d", e.Msg, e.Offset)
}

// Result is a pattern that Java compiles.
type Result struct {
	// Go is the pattern translated to Go's syntax.
	Go string
	// Exact is false when Go approximates a Java construct (see package doc).
	Exact bool
	// Groups is the number of capturing groups, as Java counts them.
	Groups int
	// Names are the named groups in order.
	Names []string
	// Notes say what was approximated.
	Notes []string
}

// Compile returns the Go regexp of the translated pattern.
func (r *Result) Compile() (*regexp.Regexp, error) { return regexp.Compile(r.Go) }

var groupNameRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9]*$`)

// Java's POSIX and java.lang.Character property names accepted without a
// prefix, and Unicode general categories.
var javaProps = map[string]bool{
	"Lower": true, "Upper": true, "ASCII": true, "Alpha": true, "Digit": true, "Alnum": true, "Punct": true,
	"Graph": true, "Print": true, "Blank": true, "Cntrl": true, "XDigit": true, "Space": true,
	"javaLowerCase": true, "javaUpperCase": true, "javaWhitespace": true, "javaMirrored": true,
	"javaAlphabetic": true, "javaIdeographic": true, "javaTitleCase": true, "javaDigit": true,
	"javaDefined": true, "javaLetter": true, "javaLetterOrDigit": true, "javaJavaIdentifierStart": true,
	"javaJavaIdentifierPart": true, "javaUnicodeIdentifierStart": true, "javaUnicodeIdentifierPart": true,
	"javaIdentifierIgnorable": true, "javaSpaceChar": true, "javaISOControl": true,
	"all": true,
}

var posixGo = map[string]string{
	"Lower": `a-z`, "Upper": `A-Z`, "ASCII": `\x00-\x7F`, "Alpha": `a-zA-Z`, "Digit": `0-9`,
	"Alnum": `a-zA-Z0-9`, "Punct": `!-/:-@\[-` + "`" + `{-~`, "Graph": `!-~`, "Print": ` -~`,
	"Blank": ` \t`, "Cntrl": `\x00-\x1F\x7F`, "XDigit": `0-9a-fA-F`, "Space": ` \t\n\x0B\f\r`,
}

func isCategory(name string) bool {
	_, ok := unicode.Categories[name]
	return ok || name == "L&" || name == "LC"
}

type parser struct {
	// dotall is whether Java's DOTALL flag is on at ps.i.
	dotall bool
	p      string
	i      int
	out    strings.Builder
	res    *Result
	drops  int // depth of dropped (lookaround) groups being skipped
	names  map[string]bool
}

func (ps *parser) note(s string) {
	ps.res.Exact = false
	for _, n := range ps.res.Notes {
		if n == s {
			return
		}
	}
	ps.res.Notes = append(ps.res.Notes, s)
}

func (ps *parser) errf(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (ps *parser) emit(s string) {
	if ps.drops == 0 {
		ps.out.WriteString(s)
	}
}

// Check parses pattern with java.util.regex's grammar. It returns a
// *SyntaxError when Java would reject the pattern.
func Check(pattern string) (*Result, error) {
	ps := &parser{p: pattern, res: &Result{Exact: true}, names: map[string]bool{}}
	if err := ps.parse(); err != nil {
		return nil, err
	}
	ps.res.Go = ps.out.String()
	if _, err := regexp.Compile(ps.res.Go); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "error parsing regexp") {
			msg = msg[i+2:]
		}
		return nil, &SyntaxError{Offset: 0, Msg: msg}
	}
	return ps.res, nil
}

type frame struct {
	drop bool
	// dotall is the DOTALL flag outside the group, restored at its ')'.
	dotall bool
}

func (ps *parser) parse() error {
	var stack []frame
	atomStart := false // a quantifier may follow
	for ps.i < len(ps.p) {
		c := ps.p[ps.i]
		start := ps.i
		switch c {
		case '\\':
			s, err := ps.escape(false)
			if err != nil {
				return err
			}
			ps.emit(s)
			atomStart = s != ""
			continue
		case '[':
			s, err := ps.class()
			if err != nil {
				return err
			}
			ps.emit(s)
			atomStart = true
			continue
		case '(':
			outer := ps.dotall
			f, err := ps.group()
			if err == errFlagOnly {
				atomStart = false
				continue
			}
			if err != nil {
				return err
			}
			f.dotall = outer
			stack = append(stack, f)
			atomStart = false
			continue
		case ')':
			if len(stack) == 0 {
				return ps.errf(start, "Unmatched closing ')'")
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ps.dotall = f.dotall
			if f.drop {
				ps.drops--
				ps.i++
				// A quantifier after a dropped lookaround is dropped too.
				ps.skipQuantifier()
				atomStart = false
				continue
			}
			ps.emit(")")
			ps.i++
			atomStart = true
			continue
		case '*', '+', '?':
			if !atomStart {
				return ps.errf(start, "Dangling meta character '%c'", c)
			}
			ps.emit(string(c))
			ps.i++
			ps.quantSuffix()
			atomStart = false
			continue
		case '{':
			if !atomStart {
				return ps.errf(start, "Illegal repetition")
			}
			q, ok := ps.repetition()
			if !ok {
				return ps.errf(start, "Illegal repetition")
			}
			ps.emit(q)
			ps.quantSuffix()
			atomStart = false
			continue
		case '^', '$':
			ps.emit(string(c))
			ps.i++
			atomStart = false
			continue
		case '.':
			// Java's '.' excludes every line terminator unless DOTALL.
			if ps.dotall {
				ps.emit(`(?s:.)`)
			} else {
				ps.emit(`[^\n\r\x{85}\x{2028}\x{2029}]`)
			}
			ps.i++
			atomStart = true
			continue
		}
		ps.emit(ps.p[ps.i : ps.i+1])
		ps.i++
		atomStart = true
	}
	if len(stack) > 0 {
		return ps.errf(len(ps.p), "Unclosed group")
	}
	return nil
}

// quantSuffix handles a lazy '?' or possessive '+' after a quantifier.
func (ps *parser) quantSuffix() {
	if ps.i < len(ps.p) {
		switch ps.p[ps.i] {
		case '?':
			ps.emit("?")
			ps.i++
		case '+':
			ps.note("possessive quantifier matched as greedy")
			ps.i++
		}
	}
}

func (ps *parser) skipQuantifier() {
	if ps.i >= len(ps.p) {
		return
	}
	switch ps.p[ps.i] {
	case '*', '+', '?':
		ps.i++
	case '{':
		save := ps.i
		if _, ok := ps.repetition(); !ok {
			ps.i = save
			return
		}
	default:
		return
	}
	if ps.i < len(ps.p) && (ps.p[ps.i] == '?' || ps.p[ps.i] == '+') {
		ps.i++
	}
}

var repRe = regexp.MustCompile(`^\{(\d+)(,(\d*))?\}`)

// repetition parses {n}, {n,}, {n,m} at ps.i.
func (ps *parser) repetition() (string, bool) {
	m := repRe.FindStringSubmatch(ps.p[ps.i:])
	if m == nil {
		return "", false
	}
	ps.i += len(m[0])
	lo, err1 := strconv.Atoi(m[1])
	if err1 != nil {
		return "", false
	}
	clamp := func(n int) int {
		if n > 1000 {
			ps.note("repetition count above 1000 clamped")
			return 1000
		}
		return n
	}
	if m[2] == "" {
		return fmt.Sprintf("{%d}", clamp(lo)), true
	}
	if m[3] == "" {
		return fmt.Sprintf("{%d,}", clamp(lo)), true
	}
	hi, err := strconv.Atoi(m[3])
	if err != nil || hi < lo {
		return "", false
	}
	return fmt.Sprintf("{%d,%d}", clamp(lo), clamp(hi)), true
}

func (ps *parser) group() (frame, error) {
	start := ps.i
	rest := ps.p[ps.i:]
	switch {
	case strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!"):
		ps.note("lookaround (lookbehind) ignored")
		ps.i += 4
		ps.drops++
		return frame{drop: true}, nil
	case strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!"):
		ps.note("lookaround (lookahead) ignored")
		ps.i += 3
		ps.drops++
		return frame{drop: true}, nil
	case strings.HasPrefix(rest, "(?<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return frame{}, ps.errf(start, "named capturing group is missing trailing '>'")
		}
		name := rest[3:end]
		if !groupNameRe.MatchString(name) {
			return frame{}, ps.errf(start+3, "named capturing group <%s> has an invalid name (Java allows only ASCII letters and digits, starting with a letter)", name)
		}
		if ps.names[name] {
			return frame{}, ps.errf(start+3, "Named capturing group <%s> is already defined", name)
		}
		ps.names[name] = true
		ps.res.Groups++
		ps.res.Names = append(ps.res.Names, name)
		ps.i += end + 1
		ps.emit("(?P<" + name + ">")
		return frame{}, nil
	case strings.HasPrefix(rest, "(?>"):
		ps.note("atomic group matched as a plain group")
		ps.i += 3
		ps.emit("(?:")
		return frame{}, nil
	case strings.HasPrefix(rest, "(?:"):
		ps.i += 3
		ps.emit("(?:")
		return frame{}, nil
	case strings.HasPrefix(rest, "(?"):
		// Inline flags (?idmsuxU-idmsuxU) or (?flags:...).
		j := 2
		var goFlags strings.Builder
		dotall, off := ps.dotall, false
		for ; j < len(rest); j++ {
			f := rest[j]
			if f == 's' {
				dotall = !off
			}
			switch {
			case f == '-':
				off = true
				goFlags.WriteByte('-')
				continue
			case f == ')' || f == ':':
			case strings.IndexByte("idmsuxUc", f) >= 0:
				switch f {
				case 'i', 'm', 's':
					goFlags.WriteByte(f)
				case 'x':
					ps.note("comments mode (?x) not interpreted")
				default:
					ps.note(fmt.Sprintf("inline flag %c ignored", f))
				}
				continue
			default:
				return frame{}, ps.errf(start+j, "Unknown inline modifier")
			}
			break
		}
		if j >= len(rest) {
			return frame{}, ps.errf(start, "Unknown group type")
		}
		flags := strings.TrimSuffix(goFlags.String(), "-")
		ps.i += j + 1
		ps.dotall = dotall
		if rest[j] == ')' {
			if flags != "" {
				ps.emit("(?" + flags + ")")
			}
			// A flag group opens nothing.
			return frame{}, errFlagOnly
		}
		if flags != "" {
			ps.emit("(?" + flags + ":")
		} else {
			ps.emit("(?:")
		}
		return frame{}, nil
	}
	ps.res.Groups++
	ps.i++
	ps.emit("(")
	return frame{}, nil
}

// errFlagOnly signals a (?flags) group, which opens nothing.
var errFlagOnly = fmt.Errorf("flag-only group")

// escape parses a backslash escape at ps.i and returns its Go form.
func (ps *parser) escape(inClass bool) (string, error) {
	start := ps.i
	if ps.i+1 >= len(ps.p) {
		return "", ps.errf(start, "Unexpected internal error")
	}
	c := ps.p[ps.i+1]
	ps.i += 2
	switch {
	case c >= '1' && c <= '9':
		if inClass {
			return "", ps.errf(start, "Illegal/unsupported escape sequence")
		}
		for ps.i < len(ps.p) && ps.p[ps.i] >= '0' && ps.p[ps.i] <= '9' {
			ps.i++
		}
		ps.note("backreference ignored")
		return "", nil
	case c == 'k':
		if inClass {
			return "", ps.errf(start, "Illegal/unsupported escape sequence")
		}
		rest := ps.p[ps.i:]
		end := strings.IndexByte(rest, '>')
		if !strings.HasPrefix(rest, "<") || end < 0 {
			return "", ps.errf(start, "\\k is not followed by '<' for named capturing group")
		}
		name := rest[1:end]
		if !ps.names[name] {
			return "", ps.errf(start, "named capturing group <%s> does not exist", name)
		}
		ps.i += end + 1
		ps.note("backreference ignored")
		return "", nil
	case c == '0':
		j := ps.i
		for j < len(ps.p) && j-ps.i < 3 && ps.p[j] >= '0' && ps.p[j] <= '7' {
			j++
		}
		if j == ps.i {
			return "", ps.errf(start, "Illegal octal escape sequence")
		}
		v, _ := strconv.ParseInt(ps.p[ps.i:j], 8, 32)
		if v > 0377 {
			j--
			v, _ = strconv.ParseInt(ps.p[ps.i:j], 8, 32)
		}
		ps.i = j
		return fmt.Sprintf(`\x{%x}`, v), nil
	case c == 'u':
		if ps.i+4 > len(ps.p) {
			return "", ps.errf(start, "Illegal Unicode escape sequence")
		}
		v, err := strconv.ParseUint(ps.p[ps.i:ps.i+4], 16, 32)
		if err != nil {
			return "", ps.errf(start, "Illegal Unicode escape sequence")
		}
		ps.i += 4
		return fmt.Sprintf(`\x{%x}`, v), nil
	case c == 'x':
		rest := ps.p[ps.i:]
		if strings.HasPrefix(rest, "{") {
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return "", ps.errf(start, "Unclosed hexadecimal escape sequence")
			}
			if _, err := strconv.ParseUint(rest[1:end], 16, 32); err != nil {
				return "", ps.errf(start, "Illegal hexadecimal escape sequence")
			}
			ps.i += end + 1
			return `\x` + rest[:end+1], nil
		}
		if len(rest) < 2 {
			return "", ps.errf(start, "Illegal hexadecimal escape sequence")
		}
		if _, err := strconv.ParseUint(rest[:2], 16, 8); err != nil {
			return "", ps.errf(start, "Illegal hexadecimal escape sequence")
		}
		ps.i += 2
		return `\x` + rest[:2], nil
	case c == 'c':
		if ps.i >= len(ps.p) {
			return "", ps.errf(start, "Illegal control escape sequence")
		}
		v := ps.p[ps.i] ^ 64
		ps.i++
		return fmt.Sprintf(`\x{%x}`, v), nil
	case c == 'e':
		return `\x1B`, nil
	case c == 'p' || c == 'P':
		return ps.property(start, c == 'P', inClass)
	case c == 'Q':
		end := strings.Index(ps.p[ps.i:], `\E`)
		lit := ps.p[ps.i:]
		if end >= 0 {
			lit = ps.p[ps.i : ps.i+end]
			ps.i += end + 2
		} else {
			ps.i = len(ps.p)
		}
		return regexp.QuoteMeta(lit), nil
	case c == 'h':
		ps.note(`\h approximated`)
		return class(inClass, `\t \x{a0}\x{1680}\x{180e}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}`), nil
	case c == 'H':
		ps.note(`\H approximated`)
		return neg(inClass, `\t \x{a0}\x{1680}\x{180e}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}`), nil
	case c == 'v':
		ps.note(`\v approximated`)
		return class(inClass, `\n\x0B\f\r\x{85}\x{2028}\x{2029}`), nil
	case c == 'V':
		ps.note(`\V approximated`)
		return neg(inClass, `\n\x0B\f\r\x{85}\x{2028}\x{2029}`), nil
	case c == 'R' || c == 'X':
		if inClass {
			return "", ps.errf(start, "Illegal/unsupported escape sequence")
		}
		ps.note(`\` + string(c) + ` approximated`)
		if c == 'R' {
			return `(?:\r\n|[\n\x0B\f\r\x{85}\x{2028}\x{2029}])`, nil
		}
		return `(?s:.)`, nil
	case c == 'G' || c == 'Z':
		if inClass {
			return "", ps.errf(start, "Illegal/unsupported escape sequence")
		}
		ps.note(`\` + string(c) + ` approximated`)
		if c == 'Z' {
			return `\z`, nil
		}
		return ``, nil
	case c == 'b' || c == 'B' || c == 'A' || c == 'z':
		if inClass {
			return "", ps.errf(start, "Illegal/unsupported escape sequence")
		}
		return `\` + string(c), nil
	case c == 's':
		// Java's \s includes \x0B, RE2's does not.
		return class(inClass, `\t-\r `), nil
	case c == 'S':
		if inClass {
			return `\x00-\x08\x0E-\x1F\x21-\x{10FFFF}`, nil
		}
		return `[^\t-\r ]`, nil
	case strings.IndexByte("dDwWtnrfa", c) >= 0:
		return `\` + string(c), nil
	case c == 'N':
		return "", ps.errf(start, `\N{name} is not supported by this check`)
	case c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))):
		return "", ps.errf(start, "Illegal/unsupported escape sequence")
	}
	return regexp.QuoteMeta(string(c)), nil
}

func class(inClass bool, body string) string {
	if inClass {
		return body
	}
	return "[" + body + "]"
}

func neg(inClass bool, body string) string {
	if inClass {
		return `\x{10FFFF}` // approximation inside a class
	}
	return "[^" + body + "]"
}

func (ps *parser) property(start int, negated, inClass bool) (string, error) {
	var name string
	if ps.i < len(ps.p) && ps.p[ps.i] == '{' {
		end := strings.IndexByte(ps.p[ps.i:], '}')
		if end < 0 {
			return "", ps.errf(start, "Unclosed character family")
		}
		name = ps.p[ps.i+1 : ps.i+end]
		ps.i += end + 1
	} else if ps.i < len(ps.p) {
		name = ps.p[ps.i : ps.i+1]
		ps.i++
	} else {
		return "", ps.errf(start, "Illegal character family")
	}
	if name == "" {
		return "", ps.errf(start, "Empty character family")
	}
	p := "p"
	if negated {
		p = "P"
	}
	wrap := func(s string) string {
		if inClass {
			return s
		}
		return "[" + s + "]"
	}
	key, val, hasEq := strings.Cut(name, "=")
	switch {
	case hasEq:
		switch key {
		case "sc", "script":
			if _, ok := unicode.Scripts[val]; ok {
				return `\` + p + "{" + val + "}", nil
			}
			ps.note("script name not checked: " + val)
			return wrap(`\` + p + "{L}"), nil
		case "gc", "general_category":
			if isCategory(val) {
				return `\` + p + "{" + val + "}", nil
			}
			return "", ps.errf(start, "Unknown character property name {%s}", name)
		case "blk", "block":
			ps.note("Unicode block approximated")
			return wrap(`\` + p + "{L}"), nil
		}
		return "", ps.errf(start, "Unknown Unicode property {name=<%s>, value=<%s>}", key, val)
	case strings.HasPrefix(name, "In"):
		ps.note("Unicode block approximated")
		return wrap(`\` + p + "{L}"), nil
	case strings.HasPrefix(name, "Is"):
		n := name[2:]
		if isCategory(n) {
			return `\` + p + "{" + n + "}", nil
		}
		if _, ok := unicode.Scripts[n]; ok {
			return `\` + p + "{" + n + "}", nil
		}
		ps.note("binary property approximated: " + n)
		return wrap(`\` + p + "{L}"), nil
	case isCategory(name):
		if name == "L&" || name == "LC" {
			return wrap(`\` + p + `{Lu}\` + p + `{Ll}\` + p + `{Lt}`), nil
		}
		return `\` + p + "{" + name + "}", nil
	case javaProps[name]:
		if body, ok := posixGo[name]; ok {
			if negated {
				if inClass {
					ps.note("negated POSIX class inside a class approximated")
					return `\x{10FFFF}`, nil
				}
				return "[^" + body + "]", nil
			}
			return wrap(body), nil
		}
		ps.note("java.lang.Character class approximated: " + name)
		return wrap(`\` + p + "{L}"), nil
	}
	return "", ps.errf(start, "Unknown character property name {%s}", name)
}

// class parses a character class at ps.i, with Java's nested classes and
// intersections.
func (ps *parser) class() (string, error) {
	start := ps.i
	ps.i++ // '['
	var b strings.Builder
	b.WriteByte('[')
	if ps.i < len(ps.p) && ps.p[ps.i] == '^' {
		b.WriteByte('^')
		ps.i++
	}
	first := true
	approx := false
	for {
		if ps.i >= len(ps.p) {
			return "", ps.errf(start, "Unclosed character class")
		}
		c := ps.p[ps.i]
		switch {
		case c == ']' && !first:
			ps.i++
			b.WriteByte(']')
			if approx {
				ps.note("class union/intersection approximated")
				return `[\x{0}-\x{10FFFF}]`, nil
			}
			return b.String(), nil
		case c == '[':
			// Nested class (union) in Java; POSIX [:alpha:] in Go.
			if _, err := ps.class(); err != nil {
				return "", err
			}
			approx = true
			first = false
			continue
		case c == '&' && strings.HasPrefix(ps.p[ps.i:], "&&"):
			ps.i += 2
			approx = true
			first = false
			continue
		case c == '\\':
			s, err := ps.escape(true)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		default:
			if c == ']' {
				// Java: a ']' right after '[' or '[^' is a literal.
				b.WriteString(`\]`)
			} else {
				b.WriteByte(c)
			}
			ps.i++
		}
		first = false
	}
}
