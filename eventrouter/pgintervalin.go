package eventrouter

import (
	"math"
	"strconv"
	"strings"
)

// PostgreSQL 15's interval_in, as a sample's interval value is stored:
// ParseDateTime splits the text into fields, DecodeInterval reads them
// (right to left), and when that finds a bad format,
// DecodeISO8601Interval reads the whole text as ISO 8601 (format with
// designators or alternative format). The column's fields decide what a
// bare number and a two-part time mean. IntervalStyle is taken as the
// server's default, postgres (sql_standard would apply a leading minus
// to every field). A form PostgreSQL reads that the port does not
// (hexadecimal numbers in ISO 8601 text, non-ASCII text) is refused as
// not modelled, never guessed.

// pgItmIn is PostgreSQL's struct pg_itm_in: the interval being read.
type pgItmIn struct {
	usec      int64
	mday, mon int32
	year      int32
}

// dterr codes of datetime.c (only the ones interval_in tells apart).
type pgDtErr int

const (
	pgDtOK pgDtErr = iota
	pgDtBadFormat
	pgDtFieldOverflow
	pgDtNotModeled
)

// ParseDateTime's field types.
const (
	dtkNumber = iota
	dtkString
	dtkDate
	dtkTime
	dtkTz
	dtkSpecial
)

// DecodeUnits' unit values (DTK_*) and the token types (datetime.h).
const (
	dtkSecond = iota + 18
	dtkMinute
	dtkHour
	dtkDay
	dtkWeek
	dtkMonth
	dtkQuarter
	dtkYear
	dtkDecade
	dtkCentury
	dtkMillennium
	dtkMillisec
	dtkMicrosec
	dtkTzUnit
	dtkNone       = 0 // the AGO token's value
	dtkIgnoreType = -1
)

// tmask bits: DTK_M(field type) of datetime.h.
const (
	mYear        = 1 << 2
	mDay         = 1 << 3
	mMonth       = 1 << 1
	mHour        = 1 << 10
	mMinute      = 1 << 11
	mSecond      = 1 << 12
	mMillisecond = 1 << 13
	mMicrosecond = 1 << 14
	mWeek        = 1 << 24
	mDecade      = 1 << 25
	mCentury     = 1 << 26
	mMillennium  = 1 << 27
	mAllSecs     = mSecond | mMillisecond | mMicrosecond
	mTime        = mHour | mMinute | mAllSecs
)

const (
	usecsPerSec    = 1_000_000
	usecsPerMinute = 60 * usecsPerSec
	usecsPerHour   = 60 * usecsPerMinute
	usecsPerDay    = 24 * usecsPerHour
	pgDaysPerMonth = 30
)

// pgDeltaUnits is deltatktbl: the unit words of interval input (DecodeUnits
// compares at most 10 characters: "microseconds" is "microsecon").
// "ago" is the AGO token; "@" never reaches it (ParseDateTime skips
// punctuation). The reserved words of PostgreSQL 15's table ("invalid",
// "undefined") make interval_in fail, as any word not here does.
var pgDeltaUnits = map[string]int{
	"c": dtkCentury, "cent": dtkCentury, "centuries": dtkCentury, "century": dtkCentury,
	"d": dtkDay, "day": dtkDay, "days": dtkDay,
	"dec": dtkDecade, "decade": dtkDecade, "decades": dtkDecade, "decs": dtkDecade,
	"h": dtkHour, "hour": dtkHour, "hours": dtkHour, "hr": dtkHour, "hrs": dtkHour,
	"m": dtkMinute, "microsecon": dtkMicrosec,
	"mil": dtkMillennium, "millennia": dtkMillennium, "millennium": dtkMillennium, "millisecon": dtkMillisec, "mils": dtkMillennium,
	"min": dtkMinute, "mins": dtkMinute, "minute": dtkMinute, "minutes": dtkMinute,
	"mon": dtkMonth, "mons": dtkMonth, "month": dtkMonth, "months": dtkMonth,
	"ms": dtkMillisec, "msec": dtkMillisec, "msecond": dtkMillisec, "mseconds": dtkMillisec, "msecs": dtkMillisec,
	"qtr": dtkQuarter, "quarter": dtkQuarter,
	"s": dtkSecond, "sec": dtkSecond, "second": dtkSecond, "seconds": dtkSecond, "secs": dtkSecond,
	"timezone": dtkTzUnit,
	"us":       dtkMicrosec, "usec": dtkMicrosec, "usecond": dtkMicrosec, "useconds": dtkMicrosec, "usecs": dtkMicrosec,
	"w": dtkWeek, "week": dtkWeek, "weeks": dtkWeek,
	"y": dtkYear, "year": dtkYear, "years": dtkYear, "yr": dtkYear, "yrs": dtkYear,
}

// pgDateKeywordsBeforeDigit are the words of datetktbl that are also
// units: ParseDateTime keeps a word followed by a digit or '+' as a word
// only when datetktbl knows it ("1d2h"); any other word runs on into a
// date field ("1day2"), which an interval refuses (as it refuses the
// other datetktbl words, none of which is a unit).
var pgDateKeywordsBeforeDigit = map[string]bool{"d": true, "dec": true, "h": true, "m": true, "mon": true, "s": true, "y": true}

// decodeUnits is DecodeUnits: (unit, true) for a unit, (dtkNone, true)
// for "ago" (ok false: not a unit word).
func decodeUnits(tok string) (unit int, ago, ok bool) {
	if tok == "ago" {
		return dtkNone, true, true
	}
	if u, found := pgDeltaUnits[tok]; found {
		return u, false, true
	}
	if len(tok) > 10 {
		if u, found := pgDeltaUnits[tok[:10]]; found && len(tok[:10]) == 10 {
			return u, false, true
		}
	}
	return 0, false, false
}

func cIsSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
func cIsDigit(c byte) bool { return c >= '0' && c <= '9' }
func cIsAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func cIsAlnum(c byte) bool { return cIsDigit(c) || cIsAlpha(c) }
func cIsPunct(c byte) bool { return c > ' ' && c < 0x7f && !cIsAlnum(c) }
func cLower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 0x20
	}
	return c
}

// pgParseDateTime is ParseDateTime with interval_in's work buffer (256
// bytes, each field NUL-terminated) and MAXDATEFIELDS (25).
func pgParseDateTime(s string) ([]string, []int, pgDtErr) {
	const bufLen, maxFields = 256, 25
	var fields []string
	var ftypes []int
	used := 0
	i := 0
	for i < len(s) {
		if cIsSpace(s[i]) {
			i++
			continue
		}
		if len(fields) >= maxFields {
			return nil, nil, pgDtBadFormat
		}
		var b []byte
		bad := false
		app := func(c byte) {
			if used+1 >= bufLen {
				bad = true
				return
			}
			used++
			b = append(b, c)
		}
		var ft int
		c := s[i]
		switch {
		case cIsDigit(c):
			app(s[i])
			i++
			for i < len(s) && cIsDigit(s[i]) {
				app(s[i])
				i++
			}
			switch {
			case i < len(s) && s[i] == ':':
				ft = dtkTime
				app(s[i])
				i++
				for i < len(s) && (cIsDigit(s[i]) || s[i] == ':' || s[i] == '.') {
					app(s[i])
					i++
				}
			case i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.'):
				delim := s[i]
				app(s[i])
				i++
				if i < len(s) && cIsDigit(s[i]) {
					ft = dtkDate
					if delim == '.' {
						ft = dtkNumber
					}
					for i < len(s) && cIsDigit(s[i]) {
						app(s[i])
						i++
					}
					if i < len(s) && s[i] == delim {
						ft = dtkDate
						app(s[i])
						i++
						for i < len(s) && (cIsDigit(s[i]) || s[i] == delim) {
							app(s[i])
							i++
						}
					}
				} else {
					ft = dtkDate
					for i < len(s) && (cIsAlnum(s[i]) || s[i] == delim) {
						app(cLower(s[i]))
						i++
					}
				}
			default:
				ft = dtkNumber
			}
		case c == '.':
			app(s[i])
			i++
			for i < len(s) && cIsDigit(s[i]) {
				app(s[i])
				i++
			}
			ft = dtkNumber
		case cIsAlpha(c):
			ft = dtkString
			app(cLower(s[i]))
			i++
			for i < len(s) && cIsAlpha(s[i]) {
				app(cLower(s[i]))
				i++
			}
			isDate := false
			if i < len(s) && (s[i] == '-' || s[i] == '/' || s[i] == '.') {
				isDate = true
			} else if i < len(s) && (s[i] == '+' || cIsDigit(s[i])) && !pgDateKeywordsBeforeDigit[string(b)] {
				isDate = true
			}
			if isDate {
				ft = dtkDate
				for {
					app(cLower(s[i]))
					i++
					if !(i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '/' || s[i] == '_' || s[i] == '.' || s[i] == ':' || cIsAlnum(s[i]))) {
						break
					}
				}
			}
		case c == '+' || c == '-':
			app(s[i])
			i++
			for i < len(s) && cIsSpace(s[i]) {
				i++
			}
			switch {
			case i < len(s) && cIsDigit(s[i]):
				ft = dtkTz
				app(s[i])
				i++
				for i < len(s) && (cIsDigit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == '-') {
					app(s[i])
					i++
				}
			case i < len(s) && cIsAlpha(s[i]):
				ft = dtkSpecial
				app(cLower(s[i]))
				i++
				for i < len(s) && cIsAlpha(s[i]) {
					app(cLower(s[i]))
					i++
				}
			default:
				return nil, nil, pgDtBadFormat
			}
		case cIsPunct(c):
			i++
			continue
		default:
			return nil, nil, pgDtBadFormat
		}
		if bad {
			return nil, nil, pgDtBadFormat
		}
		used++ // the field's NUL
		fields = append(fields, string(b))
		ftypes = append(ftypes, ft)
	}
	return fields, ftypes, pgDtOK
}

// cStrtol is strtol / strtoi64 (base 10): leading blanks and a sign, the
// digits; rest is what follows them (the whole text when there are no
// digits: 0, no error); overflow reports ERANGE (ovf) with the
// saturated value.
func cStrtol(s string, bits int) (v int64, rest string, ovf bool) {
	i := 0
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := i
	for j < len(s) && cIsDigit(s[j]) {
		j++
	}
	if j == i {
		return 0, s, false
	}
	limit := uint64(1) << (bits - 1) // the magnitude of the most negative value
	if !neg {
		limit--
	}
	var acc uint64
	for _, c := range s[i:j] {
		if acc = acc*10 + uint64(c-'0'); acc > limit {
			ovf = true
			break
		}
	}
	switch {
	case ovf && neg:
		return -int64(limit-1) - 1, s[j:], true
	case ovf:
		return int64(limit), s[j:], true
	case neg:
		return -int64(acc), s[j:], false
	}
	return int64(acc), s[j:], false
}

// pgParseFraction is ParseFraction: "." and digits (strtod of the rest;
// "." alone is 0).
func pgParseFraction(s string) (float64, pgDtErr) {
	if s == "." {
		return 0, pgDtOK
	}
	if len(s) < 2 || s[0] != '.' || strings.TrimLeft(s[1:], "0123456789") != "" {
		return 0, pgDtBadFormat
	}
	f, err := strconv.ParseFloat("0"+s, 64)
	if err != nil {
		return 0, pgDtBadFormat
	}
	return f, pgDtOK
}

func addS64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return c, false
	}
	return c, true
}

func mulS64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return c, false
	}
	return c, true
}

func addS32(a, b int32) (int32, bool) {
	c := int64(a) + int64(b)
	return int32(c), c >= math.MinInt32 && c <= math.MaxInt32
}

func (itm *pgItmIn) adjustFractMicroseconds(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac = float64(frac * float64(scale))
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	var ok bool
	itm.usec, ok = addS64(itm.usec, usec)
	return ok
}

func (itm *pgItmIn) adjustFractDays(frac float64, scale int) bool {
	if frac == 0 {
		return true
	}
	frac = float64(frac * float64(scale))
	extra := int32(frac)
	var ok bool
	if itm.mday, ok = addS32(itm.mday, extra); !ok {
		return false
	}
	frac -= float64(extra)
	return itm.adjustFractMicroseconds(frac, usecsPerDay)
}

func (itm *pgItmIn) adjustFractYears(frac float64, scale int) bool {
	extra := int32(math.RoundToEven(float64(float64(frac*float64(scale)) * 12)))
	var ok bool
	itm.mon, ok = addS32(itm.mon, extra)
	return ok
}

func (itm *pgItmIn) adjustMicroseconds(val int64, fval float64, scale int64) bool {
	p, ok := mulS64(val, scale)
	if !ok {
		return false
	}
	if itm.usec, ok = addS64(itm.usec, p); !ok {
		return false
	}
	return itm.adjustFractMicroseconds(fval, scale)
}

func (itm *pgItmIn) adjustDays(val int64, scale int) bool { return addScaledS32(&itm.mday, val, scale) }

func (itm *pgItmIn) adjustMonths(val int64) bool { return addScaledS32(&itm.mon, val, 1) }

func (itm *pgItmIn) adjustYears(val int64, scale int) bool {
	return addScaledS32(&itm.year, val, scale)
}

// addScaledS32 adds val*scale to *dst as PostgreSQL's AdjustDays,
// AdjustMonths and AdjustYears do: val, the product and the sum must each
// fit an int32.
func addScaledS32(dst *int32, val int64, scale int) bool {
	if val < math.MinInt32 || val > math.MaxInt32 {
		return false
	}
	p := val * int64(scale)
	if p < math.MinInt32 || p > math.MaxInt32 {
		return false
	}
	var ok bool
	*dst, ok = addS32(*dst, int32(p))
	return ok
}

// decodeTimeForInterval is DecodeTimeCommon + DecodeTimeForInterval:
// h:mm[:ss[.f]], mm:ss.f, and mm:ss under minute to second; the time
// replaces what the fields to its right added (as PostgreSQL does).
func (itm *pgItmIn) decodeTimeForInterval(s string, it pgIntervalType) pgDtErr {
	hour, cp, ovf := cStrtol(s, 64)
	if ovf {
		return pgDtFieldOverflow
	}
	if !strings.HasPrefix(cp, ":") {
		return pgDtBadFormat
	}
	m64, cp, ovf := cStrtol(cp[1:], 32)
	if ovf {
		return pgDtFieldOverflow
	}
	min, sec := m64, int64(0)
	var fsec int64
	switch {
	case cp == "":
		if it.fields == "minute to second" {
			if hour > math.MaxInt32 || hour < math.MinInt32 {
				return pgDtFieldOverflow
			}
			sec, min, hour = min, hour, 0
		}
	case cp[0] == '.':
		f, e := pgParseFraction(cp)
		if e != pgDtOK {
			return e
		}
		fsec = int64(math.RoundToEven(f * 1e6))
		if hour > math.MaxInt32 || hour < math.MinInt32 {
			return pgDtFieldOverflow
		}
		sec, min, hour = min, hour, 0
	case cp[0] == ':':
		sec, cp, ovf = cStrtol(cp[1:], 32)
		if ovf {
			return pgDtFieldOverflow
		}
		if strings.HasPrefix(cp, ".") {
			f, e := pgParseFraction(cp)
			if e != pgDtOK {
				return e
			}
			fsec = int64(math.RoundToEven(f * 1e6))
		} else if cp != "" {
			return pgDtBadFormat
		}
	default:
		return pgDtBadFormat
	}
	if hour < 0 || min < 0 || min > 59 || sec < 0 || sec > 60 || fsec < 0 || fsec > usecsPerSec {
		return pgDtFieldOverflow
	}
	itm.usec = fsec
	for _, p := range [][2]int64{{hour, usecsPerHour}, {min, usecsPerMinute}, {sec, usecsPerSec}} {
		v, ok := mulS64(p[0], p[1])
		if !ok {
			return pgDtFieldOverflow
		}
		if itm.usec, ok = addS64(itm.usec, v); !ok {
			return pgDtFieldOverflow
		}
	}
	return pgDtOK
}

// pgDecodeInterval is PostgreSQL 15's DecodeInterval under IntervalStyle
// postgres.
func pgDecodeInterval(fields []string, ftypes []int, it pgIntervalType) (pgItmIn, pgDtErr) {
	var itm pgItmIn
	isBefore := false
	fmask := 0
	typ := dtkIgnoreType
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		tmask := 0
		switch ftypes[i] {
		case dtkTime:
			if e := itm.decodeTimeForInterval(f, it); e != pgDtOK {
				return itm, e
			}
			tmask = mTime
			typ = dtkDay
		case dtkTz, dtkDate, dtkNumber:
			if ftypes[i] == dtkTz && strings.Contains(f[1:], ":") {
				save := itm.usec
				if itm.decodeTimeForInterval(f[1:], it) == pgDtOK {
					if f[0] == '-' {
						itm.usec = -itm.usec
					}
					tmask = mTime
					typ = dtkDay
					break
				}
				itm.usec = save
			}
			if typ == dtkIgnoreType {
				typ = map[string]int{"year": dtkYear, "month": dtkMonth, "day": dtkDay, "hour": dtkHour, "minute": dtkMinute}[it.rightmost()]
				if typ == 0 {
					typ = dtkSecond
				}
			}
			val, cp, ovf := cStrtol(f, 64)
			if ovf {
				return itm, pgDtFieldOverflow
			}
			var fval float64
			switch {
			case strings.HasPrefix(cp, "-"):
				// SQL "years-months"
				v2, rest, ovf2 := cStrtol(cp[1:], 32)
				if ovf2 || v2 < 0 || v2 >= 12 {
					return itm, pgDtFieldOverflow
				}
				if rest != "" {
					return itm, pgDtBadFormat
				}
				typ = dtkMonth
				if f[0] == '-' {
					v2 = -v2
				}
				var ok bool
				if val, ok = mulS64(val, 12); !ok {
					return itm, pgDtFieldOverflow
				}
				if val, ok = addS64(val, v2); !ok {
					return itm, pgDtFieldOverflow
				}
			case strings.HasPrefix(cp, "."):
				var e pgDtErr
				if fval, e = pgParseFraction(cp); e != pgDtOK {
					return itm, e
				}
				if f[0] == '-' {
					fval = -fval
				}
			case cp == "":
			default:
				return itm, pgDtBadFormat
			}
			ok := true
			switch typ {
			case dtkMicrosec:
				ok, tmask = itm.adjustMicroseconds(val, fval, 1), mMicrosecond
			case dtkMillisec:
				ok, tmask = itm.adjustMicroseconds(val, fval, 1000), mMillisecond
			case dtkSecond:
				ok, tmask = itm.adjustMicroseconds(val, fval, usecsPerSec), mSecond
				if fval != 0 {
					tmask = mAllSecs
				}
			case dtkMinute:
				ok, tmask = itm.adjustMicroseconds(val, fval, usecsPerMinute), mMinute
			case dtkHour:
				ok, tmask = itm.adjustMicroseconds(val, fval, usecsPerHour), mHour
				typ = dtkDay
			case dtkDay:
				ok = itm.adjustDays(val, 1) && itm.adjustFractMicroseconds(fval, usecsPerDay)
				tmask = mDay
			case dtkWeek:
				ok = itm.adjustDays(val, 7) && itm.adjustFractDays(fval, 7)
				tmask = mWeek
			case dtkMonth:
				ok = itm.adjustMonths(val) && itm.adjustFractDays(fval, pgDaysPerMonth)
				tmask = mMonth
			case dtkYear:
				ok = itm.adjustYears(val, 1) && itm.adjustFractYears(fval, 1)
				tmask = mYear
			case dtkDecade:
				ok = itm.adjustYears(val, 10) && itm.adjustFractYears(fval, 10)
				tmask = mDecade
			case dtkCentury:
				ok = itm.adjustYears(val, 100) && itm.adjustFractYears(fval, 100)
				tmask = mCentury
			case dtkMillennium:
				ok = itm.adjustYears(val, 1000) && itm.adjustFractYears(fval, 1000)
				tmask = mMillennium
			default:
				return itm, pgDtBadFormat
			}
			if !ok {
				return itm, pgDtFieldOverflow
			}
		case dtkString, dtkSpecial:
			u, ago, ok := decodeUnits(f)
			if !ok {
				return itm, pgDtBadFormat
			}
			if ago {
				isBefore = true
			}
			typ = u
		default:
			return itm, pgDtBadFormat
		}
		if tmask&fmask != 0 {
			return itm, pgDtBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 {
		return itm, pgDtBadFormat
	}
	if isBefore {
		if itm.usec == math.MinInt64 || itm.mday == math.MinInt32 || itm.mon == math.MinInt32 || itm.year == math.MinInt32 {
			return itm, pgDtFieldOverflow
		}
		itm.usec, itm.mday, itm.mon, itm.year = -itm.usec, -itm.mday, -itm.mon, -itm.year
	}
	return itm, pgDtOK
}

// cStrtodPrefix is the part of s that C's strtod reads as a decimal
// number: [-]digits[.digits][e[+-]digits] (at least one digit). hex is
// true for a hexadecimal number or an infinity / NaN word, which the port
// does not read.
func cStrtodPrefix(s string) (num string, hex bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	rest := strings.ToLower(s[i:])
	if strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "inf") || strings.HasPrefix(rest, "nan") {
		return "", true
	}
	d := 0
	for i < len(s) && cIsDigit(s[i]) {
		i++
		d++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && cIsDigit(s[i]) {
			i++
			d++
		}
	}
	if d == 0 {
		return "", false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && cIsDigit(s[j]) {
			for j < len(s) && cIsDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return s[:i], false
}

// parseISO8601Number is ParseISO8601Number: the integer part (toward
// zero) and the fraction of the number at the start of s.
func parseISO8601Number(s string) (ipart int64, fpart float64, rest string, e pgDtErr) {
	if s == "" || !(cIsDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, pgDtBadFormat
	}
	num, hex := cStrtodPrefix(s)
	if hex {
		return 0, 0, s, pgDtNotModeled
	}
	if num == "" {
		return 0, 0, s, pgDtBadFormat
	}
	val, err := strconv.ParseFloat(num, 64)
	if err != nil {
		// overflow: strtod's ERANGE
		return 0, 0, s, pgDtBadFormat
	}
	if (val == 0 && strings.Trim(strings.ToLower(num), "-+.0e") != "" && strings.ContainsAny(strings.SplitN(strings.ToLower(num), "e", 2)[0], "123456789")) ||
		(val != 0 && math.Abs(val) < 0x1p-1022) {
		// underflow (ERANGE or not, as glibc decides): not modelled
		return 0, 0, s, pgDtNotModeled
	}
	if math.IsNaN(val) || val < -1.0e15 || val > 1.0e15 {
		return 0, 0, s, pgDtFieldOverflow
	}
	if val >= 0 {
		ipart = int64(math.Floor(val))
	} else {
		ipart = -int64(math.Floor(-val))
	}
	return ipart, val - float64(ipart), s[len(num):], pgDtOK
}

func iso8601IntegerWidth(s string) int {
	s = strings.TrimPrefix(s, "-")
	return len(s) - len(strings.TrimLeft(s, "0123456789"))
}

// pgDecodeISO8601Interval is DecodeISO8601Interval: P1Y2M3DT4H5M6.5S
// (a week W may be given with the others, any field may have a
// fraction), P0001-02-03T04:05:06 and P00010203T040506.
func pgDecodeISO8601Interval(s string) (pgItmIn, pgDtErr) {
	var itm pgItmIn
	if len(s) < 2 || s[0] != 'P' {
		return itm, pgDtBadFormat
	}
	s = s[1:]
	datepart, havefield := true, false
	ovf := func(ok bool) pgDtErr {
		if ok {
			return pgDtOK
		}
		return pgDtFieldOverflow
	}
	for s != "" {
		if s[0] == 'T' {
			datepart, havefield = false, false
			s = s[1:]
			continue
		}
		fieldstart := s
		val, fval, rest, e := parseISO8601Number(s)
		if e != pgDtOK {
			return itm, e
		}
		var unit byte
		if rest != "" {
			unit, s = rest[0], rest[1:]
		} else {
			s = ""
		}
		if datepart {
			switch unit {
			case 'Y':
				if e := ovf(itm.adjustYears(val, 1) && itm.adjustFractYears(fval, 1)); e != pgDtOK {
					return itm, e
				}
			case 'M':
				if e := ovf(itm.adjustMonths(val) && itm.adjustFractDays(fval, pgDaysPerMonth)); e != pgDtOK {
					return itm, e
				}
			case 'W':
				if e := ovf(itm.adjustDays(val, 7) && itm.adjustFractDays(fval, 7)); e != pgDtOK {
					return itm, e
				}
			case 'D':
				if e := ovf(itm.adjustDays(val, 1) && itm.adjustFractMicroseconds(fval, usecsPerDay)); e != pgDtOK {
					return itm, e
				}
			case 'T', 0, '-':
				if unit != '-' && iso8601IntegerWidth(fieldstart) == 8 && !havefield {
					if e := ovf(itm.adjustYears(val/10000, 1) && itm.adjustMonths((val/100)%100) && itm.adjustDays(val%100, 1) && itm.adjustFractMicroseconds(fval, usecsPerDay)); e != pgDtOK {
						return itm, e
					}
					if unit == 0 {
						return itm, pgDtOK
					}
					datepart, havefield = false, false
					continue
				}
				if havefield {
					return itm, pgDtBadFormat
				}
				if e := ovf(itm.adjustYears(val, 1) && itm.adjustFractYears(fval, 1)); e != pgDtOK {
					return itm, e
				}
				if unit == 0 {
					return itm, pgDtOK
				}
				if unit == 'T' {
					datepart, havefield = false, false
					continue
				}
				val, fval, s, e = parseISO8601Number(s)
				if e != pgDtOK {
					return itm, e
				}
				if e := ovf(itm.adjustMonths(val) && itm.adjustFractDays(fval, pgDaysPerMonth)); e != pgDtOK {
					return itm, e
				}
				if s == "" {
					return itm, pgDtOK
				}
				if s[0] == 'T' {
					datepart, havefield = false, false
					continue
				}
				if s[0] != '-' {
					return itm, pgDtBadFormat
				}
				val, fval, s, e = parseISO8601Number(s[1:])
				if e != pgDtOK {
					return itm, e
				}
				if e := ovf(itm.adjustDays(val, 1) && itm.adjustFractMicroseconds(fval, usecsPerDay)); e != pgDtOK {
					return itm, e
				}
				if s == "" {
					return itm, pgDtOK
				}
				if s[0] == 'T' {
					datepart, havefield = false, false
					continue
				}
				return itm, pgDtBadFormat
			default:
				return itm, pgDtBadFormat
			}
		} else {
			switch unit {
			case 'H':
				if e := ovf(itm.adjustMicroseconds(val, fval, usecsPerHour)); e != pgDtOK {
					return itm, e
				}
			case 'M':
				if e := ovf(itm.adjustMicroseconds(val, fval, usecsPerMinute)); e != pgDtOK {
					return itm, e
				}
			case 'S':
				if e := ovf(itm.adjustMicroseconds(val, fval, usecsPerSec)); e != pgDtOK {
					return itm, e
				}
			case 0, ':':
				if unit == 0 && iso8601IntegerWidth(fieldstart) == 6 && !havefield {
					e := ovf(itm.adjustMicroseconds(val/10000, 0, usecsPerHour) && itm.adjustMicroseconds((val/100)%100, 0, usecsPerMinute) &&
						itm.adjustMicroseconds(val%100, 0, usecsPerSec) && itm.adjustFractMicroseconds(fval, 1))
					return itm, e
				}
				if havefield {
					return itm, pgDtBadFormat
				}
				if e := ovf(itm.adjustMicroseconds(val, fval, usecsPerHour)); e != pgDtOK {
					return itm, e
				}
				if unit == 0 {
					return itm, pgDtOK
				}
				val, fval, s, e = parseISO8601Number(s)
				if e != pgDtOK {
					return itm, e
				}
				if e := ovf(itm.adjustMicroseconds(val, fval, usecsPerMinute)); e != pgDtOK {
					return itm, e
				}
				if s == "" {
					return itm, pgDtOK
				}
				if s[0] != ':' {
					return itm, pgDtBadFormat
				}
				val, fval, s, e = parseISO8601Number(s[1:])
				if e != pgDtOK {
					return itm, e
				}
				if e := ovf(itm.adjustMicroseconds(val, fval, usecsPerSec)); e != pgDtOK {
					return itm, e
				}
				if s == "" {
					return itm, pgDtOK
				}
				return itm, pgDtBadFormat
			default:
				return itm, pgDtBadFormat
			}
		}
		havefield = true
	}
	return itm, pgDtOK
}

// pgIntervalIn is interval_in up to itmin2interval: the months, days and
// microseconds PostgreSQL 15 reads from s for a column of type it
// (before AdjustIntervalForTypmod).
func pgIntervalIn(s string, it pgIntervalType) (months, days int32, usec int64, e pgDtErr) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == 0 {
			return 0, 0, 0, pgDtNotModeled
		}
	}
	var itm pgItmIn
	fields, ftypes, e := pgParseDateTime(s)
	if e == pgDtOK {
		itm, e = pgDecodeInterval(fields, ftypes, it)
	}
	if e == pgDtBadFormat {
		itm, e = pgDecodeISO8601Interval(s)
	}
	if e != pgDtOK {
		return 0, 0, 0, e
	}
	total := int64(itm.year)*12 + int64(itm.mon)
	if total > math.MaxInt32 || total < math.MinInt32 {
		return 0, 0, 0, pgDtFieldOverflow
	}
	return int32(total), itm.mday, itm.usec, pgDtOK
}
