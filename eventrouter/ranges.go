package eventrouter

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// isPgDiscreteRange reports a PostgreSQL int4range, int8range or
// daterange column: the connector delivers it as a plain Connect string,
// the range as PostgreSQL prints it (canonical: [lower,upper), empty).
// numrange, tsrange and tstzrange are not modelled (numeric_out's scale,
// the session time zone).
func isPgDiscreteRange(kind ConnectorKind, sqlType string) bool {
	if kind != Postgres && kind != "" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(sqlType)) {
	case "int4range", "int8range", "daterange":
		return true
	}
	return false
}

// pgRangeValue is the text PostgreSQL prints for a discrete range input:
// "(1,5]" is [2,6), "[5,5)" and "(4,5)" are empty, an omitted bound is
// infinite ("(,6)", "[1,)"). Surrounding blanks and quoted bounds are
// read as PostgreSQL reads them; a lower bound above the upper one, a
// bound out of the element type's range and infinity dates are refused.
func pgRangeValue(sqlType, v string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(sqlType))
	bad := func(msg string) (string, error) {
		return "", fmt.Errorf("%w: %s value %q: %s", ErrInvalidEvent, t, v, msg)
	}
	s := strings.TrimSpace(v)
	if strings.EqualFold(s, "empty") {
		return "empty", nil
	}
	if len(s) < 3 || (s[0] != '[' && s[0] != '(') || (s[len(s)-1] != ']' && s[len(s)-1] != ')') {
		return bad(`want [lower,upper), (lower,upper], "empty"`)
	}
	lowInc, upInc := s[0] == '[', s[len(s)-1] == ']'
	lowText, upText, ok := strings.Cut(s[1:len(s)-1], ",")
	if !ok || strings.Contains(upText, ",") {
		return bad("want two bounds separated by one comma")
	}
	// a bound: blank-trimmed (int4in, date_in ignore blanks), optionally
	// double-quoted; nothing at all is infinite
	bound := func(b string) (val int64, inf bool, err error) {
		if b == "" {
			return 0, true, nil
		}
		b = strings.TrimSpace(strings.Trim(strings.TrimSpace(b), `"`))
		switch t {
		case "daterange":
			d, err := time.Parse("2006-01-02", b)
			if err != nil {
				return 0, false, fmt.Errorf("bound %q: want YYYY-MM-DD", b)
			}
			return d.Unix() / 86400, false, nil
		case "int4range":
			n, err := strconv.ParseInt(b, 10, 32)
			return n, false, err
		}
		n, err := strconv.ParseInt(b, 10, 64)
		return n, false, err
	}
	lo, loInf, err := bound(lowText)
	if err != nil {
		return bad(err.Error())
	}
	hi, hiInf, err := bound(upText)
	if err != nil {
		return bad(err.Error())
	}
	if !loInf && !hiInf && lo > hi {
		return bad("range lower bound must be less than or equal to range upper bound")
	}
	// canonical form: [lower, upper); the element type's successor must
	// exist
	max := int64(math.MaxInt64)
	if t == "int4range" {
		max = math.MaxInt32
	}
	if !loInf && !lowInc {
		if lo == max {
			return bad("integer out of range")
		}
		lo++
	}
	if !hiInf && upInc {
		if hi == max {
			return bad("integer out of range")
		}
		hi++
	}
	if !loInf && !hiInf && lo >= hi {
		return "empty", nil
	}
	text := func(n int64) string {
		if t == "daterange" {
			return time.Unix(n*86400, 0).UTC().Format("2006-01-02")
		}
		return strconv.FormatInt(n, 10)
	}
	var b strings.Builder
	if loInf {
		b.WriteString("(")
	} else {
		b.WriteString("[" + text(lo))
	}
	b.WriteByte(',')
	if !hiInf {
		b.WriteString(text(hi))
	}
	b.WriteByte(')')
	return b.String(), nil
}
