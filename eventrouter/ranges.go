package eventrouter

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// isPgDiscreteRange reports a PostgreSQL int4range, int8range, daterange,
// numrange or tsrange column (the name is historical: the discrete ones
// and the two whose text depends on no session setting): the connector
// delivers it as a plain Connect string, the range as PostgreSQL prints it
// (discrete ones canonical: [lower,upper); empty). tstzrange too: its
// bounds are printed in the replication session's time zone, which the
// driver sets at connect to the Connect worker JVM's default time zone
// (pgjdbc's TimeZone startup parameter; PostgresConnection sets none, and
// the startup parameter overrides an options -c TimeZone): UTC unless
// ColumnSettings.WorkerTimeZone names another zone (pgRangeValueIn).
func isPgDiscreteRange(kind ConnectorKind, sqlType string) bool {
	if kind != Postgres && kind != "" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(sqlType)) {
	case "int4range", "int8range", "daterange", "numrange", "tsrange", "tstzrange":
		return true
	}
	return false
}

// rangeBound is one finite bound: its text as PostgreSQL prints it and a
// value to compare (int64 for the discrete types, *big.Rat for numrange,
// time.Time for tsrange).
type rangeBound struct {
	text string
	n    int64
	r    *big.Rat
	t    time.Time
}

func (a rangeBound) cmp(typ string, b rangeBound) int {
	switch typ {
	case "numrange":
		return a.r.Cmp(b.r)
	case "tsrange", "tstzrange":
		return a.t.Compare(b.t)
	}
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	}
	return 0
}

// pgRangeValue is the text PostgreSQL prints for a range input: a
// discrete range (int4range, int8range, daterange) canonical, "(1,5]" is
// [2,6), "[5,5)" and "(4,5)" are empty; numrange and tsrange keep their
// brackets, empty when the bounds are equal and not both inclusive;
// numrange bounds as numeric_out prints them (the input's scale: 1.50,
// 1e2 is 100), tsrange bounds quoted ISO ("2024-01-01 10:00:00.5"). An
// omitted bound is infinite ("(,6)", "[1,)"). Surrounding blanks and
// quoted bounds are read as PostgreSQL reads them; a lower bound above the
// upper one, a bound out of the element type's range, infinity, NaN and
// other forms are refused.
func pgRangeValue(sqlType, v string) (string, error) {
	return pgRangeValueIn(sqlType, v, time.UTC)
}

// pgRangeValueIn is pgRangeValue with a tstzrange's bounds printed in the
// time zone loc (the replication session's TimeZone).
func pgRangeValueIn(sqlType, v string, loc *time.Location) (string, error) {
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
	// a bound: blank-trimmed (the element types' input functions ignore
	// blanks), optionally double-quoted; nothing at all is infinite
	bound := func(b string) (rb rangeBound, inf bool, err error) {
		if b == "" {
			return rb, true, nil
		}
		b = strings.TrimSpace(b)
		if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
			b = strings.TrimSpace(b[1 : len(b)-1])
		}
		if strings.ContainsAny(b, `"\`) {
			return rb, false, fmt.Errorf("bound %q: not modelled", b)
		}
		switch t {
		case "daterange":
			d, err := time.Parse("2006-01-02", b)
			if err != nil {
				return rb, false, fmt.Errorf("bound %q: want YYYY-MM-DD", b)
			}
			rb.n = d.Unix() / 86400
		case "int4range":
			rb.n, err = strconv.ParseInt(b, 10, 32)
		case "int8range":
			rb.n, err = strconv.ParseInt(b, 10, 64)
		case "numrange":
			rb.r, rb.text, err = pgNumericText(b)
		case "tsrange":
			rb.t, rb.text, err = pgTimestampText(b)
		case "tstzrange":
			rb.t, rb.text, err = pgTimestamptzText(b, loc)
		}
		return rb, false, err
	}
	lo, loInf, err := bound(lowText)
	if err != nil {
		return bad(err.Error())
	}
	hi, hiInf, err := bound(upText)
	if err != nil {
		return bad(err.Error())
	}
	if !loInf && !hiInf && lo.cmp(t, hi) > 0 {
		return bad("range lower bound must be less than or equal to range upper bound")
	}
	discrete := t == "int4range" || t == "int8range" || t == "daterange"
	if discrete {
		// canonical form: [lower, upper); the element type's successor
		// must exist
		max := int64(math.MaxInt64)
		if t == "int4range" {
			max = math.MaxInt32
		}
		if !loInf && !lowInc {
			if lo.n == max {
				return bad("integer out of range")
			}
			lo.n++
		}
		if !hiInf && upInc {
			if hi.n == max {
				return bad("integer out of range")
			}
			hi.n++
		}
		lowInc, upInc = true, false
		if !loInf && !hiInf && lo.n >= hi.n {
			return "empty", nil
		}
		for _, b := range []*rangeBound{&lo, &hi} {
			if t == "daterange" {
				b.text = time.Unix(b.n*86400, 0).UTC().Format("2006-01-02")
			} else {
				b.text = strconv.FormatInt(b.n, 10)
			}
		}
	} else if !loInf && !hiInf && lo.cmp(t, hi) == 0 && !(lowInc && upInc) {
		return "empty", nil
	}
	var b strings.Builder
	if loInf || !lowInc {
		b.WriteByte('(')
	} else {
		b.WriteByte('[')
	}
	if !loInf {
		b.WriteString(lo.text)
	}
	b.WriteByte(',')
	if !hiInf {
		b.WriteString(hi.text)
	}
	if hiInf || !upInc {
		b.WriteByte(')')
	} else {
		b.WriteByte(']')
	}
	return b.String(), nil
}

var pgNumericRe = regexp.MustCompile(`^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$`)

// pgNumericText reads a numeric as numeric_in does and prints it as
// numeric_out: the display scale is the input's fraction digits less the
// exponent (at least 0), "-0.00" is 0.00. NaN and Infinity are refused.
func pgNumericText(v string) (*big.Rat, string, error) {
	m := pgNumericRe.FindStringSubmatch(v)
	if m == nil || m[2]+m[3] == "" {
		return nil, "", fmt.Errorf("bound %q: want a number", v)
	}
	exp := 0
	if m[4] != "" {
		exp, _ = strconv.Atoi(m[4])
	}
	r, ok := new(big.Rat).SetString(m[1] + m[2] + "." + m[3] + "0")
	if !ok {
		return nil, "", fmt.Errorf("bound %q: want a number", v)
	}
	if exp != 0 {
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil))
		if exp > 0 {
			r.Mul(r, p)
		} else {
			r.Quo(r, p)
		}
	}
	scale := len(m[3]) - exp
	if scale < 0 {
		scale = 0
	}
	text := r.FloatString(scale)
	if r.Sign() == 0 {
		text = strings.TrimPrefix(text, "-")
	}
	return r, text, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// pgTimestampText reads a timestamp bound (2024-01-01, 2024-01-01
// 10:00:00[.ffffff], T for the blank) and prints it as timestamp_out
// does under DateStyle ISO, quoted as a range bound: "2024-01-01
// 10:00:00.5" (the fraction without trailing zeros). More than 6 fraction
// digits are refused.
func pgTimestampText(v string) (time.Time, string, error) {
	for _, l := range []string{"2006-01-02 15:04:05.999999", "2006-01-02T15:04:05.999999", "2006-01-02"} {
		if ts, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			if frac := strings.SplitN(v, ".", 2); len(frac) == 2 && len(frac[1]) > 6 {
				break
			}
			text := ts.Format("2006-01-02 15:04:05.999999")
			return ts, `"` + text + `"`, nil
		}
	}
	return time.Time{}, "", fmt.Errorf("bound %q: want YYYY-MM-DD[ HH:MM:SS[.ffffff]]", v)
}

var pgTimestamptzRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?))?\s*(Z|[+-]\d{2}(?::?\d{2}(?::\d{2})?)?)?$`)

// pgTimestamptzText reads a tstzrange bound (2024-01-01 10:00:00.5+02, an
// offset Z, ±hh, ±hhmm, ±hh:mm or ±hh:mm:ss; none is UTC, the zone of the
// session the sample stands for) and prints it as timestamptz_out does
// under DateStyle ISO in the session time zone loc, quoted as a range
// bound: "2024-01-01 08:00:00.5+00", "1850-01-01 00:09:21+00:09:21" (the
// offset as EncodeTimezone writes it: ±hh, ±hh:mm when it has minutes,
// ±hh:mm:ss when it has seconds, as the zone's local mean time does).
// More than 6 fraction digits and a local year outside 1-9999 are
// refused.
func pgTimestamptzText(v string, loc *time.Location) (time.Time, string, error) {
	m := pgTimestamptzRe.FindStringSubmatch(v)
	if m == nil {
		return time.Time{}, "", fmt.Errorf("bound %q: want YYYY-MM-DD[ HH:MM:SS[.ffffff]][±hh[:mm]]", v)
	}
	clock := m[2]
	switch len(clock) {
	case 0:
		clock = "00:00:00"
	case 5:
		clock += ":00"
	}
	ts, err := time.ParseInLocation("2006-01-02 15:04:05.999999", m[1]+" "+clock, time.UTC)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("bound %q: %v", v, err)
	}
	if z := m[3]; z != "" && z != "Z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(z[1:], ":", "")
		h, _ := strconv.Atoi(digits[:2])
		mi, sec := 0, 0
		if len(digits) >= 4 {
			mi, _ = strconv.Atoi(digits[2:4])
		}
		if len(digits) == 6 {
			sec, _ = strconv.Atoi(digits[4:])
		}
		if h > 15 || mi > 59 || sec > 59 {
			return time.Time{}, "", fmt.Errorf("bound %q: time zone displacement out of range", v)
		}
		ts = ts.Add(-time.Duration(sign) * (time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second))
	}
	local := ts.In(loc)
	if y := local.Year(); y < 1 || y > 9999 {
		return time.Time{}, "", fmt.Errorf("bound %q: year %d in the session's time zone is not modelled", v, y)
	}
	_, off := local.Zone()
	text := local.Format("2006-01-02 15:04:05.999999") + pgEncodeTimezone(off)
	return ts.UTC(), `"` + text + `"`, nil
}

// pgEncodeTimezone is EncodeTimezone's ISO form of a UTC offset in
// seconds east: +00, +05:30, -00:44:30.
func pgEncodeTimezone(off int) string {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	h, mi, sec := off/3600, off/60%60, off%60
	switch {
	case sec != 0:
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, h, mi, sec)
	case mi != 0:
		return fmt.Sprintf("%c%02d:%02d", sign, h, mi)
	}
	return fmt.Sprintf("%c%02d", sign, h)
}

// WorkerLocation is the time zone a PostgreSQL tstzrange's bounds are
// printed in for a Connect worker whose JVM default zone is zone (pgjdbc
// sends it as the session's TimeZone startup parameter): "" and UTC are
// UTC; an IANA zone name is that zone (from the system's time zone
// database, the one Debian's PostgreSQL uses too). A GMT±hh:mm custom ID
// (which pgjdbc sends with the sign inverted), "Local" and a name the
// database does not know are refused.
func WorkerLocation(zone string) (*time.Location, error) {
	z := strings.TrimSpace(zone)
	switch strings.ToUpper(z) {
	case "", "UTC", "ETC/UTC", "Z":
		return time.UTC, nil
	case "LOCAL":
		return nil, fmt.Errorf("time zone %q: name the zone", zone)
	}
	if len(z) > 3 && strings.HasPrefix(strings.ToUpper(z), "GMT") {
		return nil, fmt.Errorf("time zone %q: a custom GMT offset ID is not modelled (pgjdbc inverts its sign)", zone)
	}
	loc, err := time.LoadLocation(z)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %v", zone, err)
	}
	return loc, nil
}

// isPgTstzrange reports a PostgreSQL tstzrange column.
func isPgTstzrange(kind ConnectorKind, sqlType string) bool {
	return (kind == Postgres || kind == "") && strings.EqualFold(strings.TrimSpace(sqlType), "tstzrange")
}
