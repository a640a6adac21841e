package eventrouter

import (
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/internal/javaregex"
)

// javaRegex is a java.util.regex.Pattern emulated on Go's RE2 by package
// internal/javaregex, for patterns it translates exactly.
type javaRegex struct {
	re *javaregex.Regexp
}

var (
	errRegexUnsupported = fmt.Errorf("%w: Java regex feature without RE2 equivalent", ErrUnsupported)
	errRegexSyntax      = fmt.Errorf("%w: regex does not compile", ErrInvalidConfig)
)

// compileJavaRegex compiles a Java regex: one Java rejects is
// ErrInvalidConfig (the connector would not start), one Go can only
// approximate is ErrUnsupported.
func compileJavaRegex(src string) (*javaRegex, error) {
	re, err := javaregex.Compile(src)
	switch {
	case errors.Is(err, javaregex.ErrInexact):
		return nil, fmt.Errorf("%w: %v", errRegexUnsupported, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", errRegexSyntax, err)
	}
	return &javaRegex{re: re}, nil
}

// route applies Kafka's RegexRouter: when the regex fully matches value the
// result is Matcher.replaceFirst(replacement); otherwise value is unchanged.
// A bad replacement is the TaskError Matcher's exception becomes.
func (r *javaRegex) route(value, replacement string) (string, error) {
	if !r.re.Matches(value) {
		return value, nil
	}
	out, err := r.re.ReplaceFirst(value, replacement)
	var re *javaregex.ReplacementError
	if errors.As(err, &re) {
		return "", taskErr(re.Exception, "%s", re.Java)
	}
	return out, err
}
