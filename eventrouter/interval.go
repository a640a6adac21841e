package eventrouter

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pgIntervalType is a PostgreSQL interval column's typmod: the fields
// (range: "" for all, else "year", "month", "year to month", "day",
// "hour", "minute", "second", "day to hour", "day to minute", "day to
// second", "hour to minute", "hour to second", "minute to second") and
// the fraction digits of the seconds (prec, -1 for none, else 0-6).
type pgIntervalType struct {
	fields string
	prec   int
}

var pgIntervalTypeRe = regexp.MustCompile(`^interval(?:\s*\(\s*(\d+)\s*\))?(?:\s+(year|month|day|hour|minute|second)(?:\s+to\s+(month|hour|minute|second))?)?(?:\s*\(\s*(\d+)\s*\))?$`)

// pgIntervalRanges are the field ranges PostgreSQL accepts.
var pgIntervalRanges = map[string]bool{
	"": true, "year": true, "month": true, "year to month": true, "day": true, "hour": true, "minute": true, "second": true,
	"day to hour": true, "day to minute": true, "day to second": true, "hour to minute": true, "hour to second": true, "minute to second": true,
}

// parsePgIntervalType reads interval, interval(p) and interval with
// fields as format_type prints them (interval day to second(3), interval
// second(2), interval year to month); the precision goes only with a
// range ending in second (or none) and is at most 6.
func parsePgIntervalType(sqlType string) (pgIntervalType, bool) {
	t := strings.Join(strings.Fields(strings.ToLower(sqlType)), " ")
	m := pgIntervalTypeRe.FindStringSubmatch(t)
	if m == nil {
		return pgIntervalType{}, false
	}
	it := pgIntervalType{fields: m[2], prec: -1}
	if m[3] != "" {
		it.fields += " to " + m[3]
	}
	if !pgIntervalRanges[it.fields] || (m[1] != "" && m[4] != "") {
		return pgIntervalType{}, false
	}
	p := m[1] + m[4]
	if p != "" {
		if it.fields != "" && !strings.HasSuffix(it.fields, "second") {
			return pgIntervalType{}, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n > 6 {
			return pgIntervalType{}, false
		}
		it.prec = n
	}
	return it, true
}

func isPgInterval(sqlType string) bool {
	_, ok := parsePgIntervalType(sqlType)
	return ok
}

// rightmost is the unit a bare number stands for (DecodeInterval: the
// typmod's last field; seconds without one).
func (it pgIntervalType) rightmost() string {
	f := it.fields
	if i := strings.LastIndex(f, " "); i >= 0 {
		f = f[i+1:]
	}
	if f == "" {
		return "second"
	}
	return f
}

var (
	intervalUnitRe = regexp.MustCompile(`^\s*([+-]?\d+) (years?|mons?|days?)\b`)
	intervalTimeRe = regexp.MustCompile(`^\s*([+-])?(\d+):(\d{2})(?::(\d{2}))?(?:\.(\d{1,6}))?\s*$`)
	intervalBareRe = regexp.MustCompile(`^\s*([+-]?\d{1,9})\s*$`)
)

// pgIntervalMicros is a PostgreSQL interval as PostgresValueConverter
// delivers it under interval.handling.mode=numeric: MicroDuration's
// approximation ((years×12 + months) × 30.4375 + days) days plus the time,
// computed in doubles and truncated to microseconds.
//
// The input: PostgreSQL's output form (IntervalStyle postgres: "1 year 2
// mons 3 days 04:05:06.5", "-1 days +02:00:00"), what the server prints
// whatever the form inserted, with the time part as h:mm:ss[.f], h:mm or
// mm:ss.f (two fields with a fraction); h:mm is mm:ss under minute to
// second; or a bare integer, the typmod's rightmost field (seconds without
// fields), as interval_in reads them. Other forms are refused.
//
// The value is stored as AdjustIntervalForTypmod leaves it: year keeps
// whole years of the months and drops days and time, month and year to
// month drop days and time, day drops the time, hour, day to hour
// truncate the time to hours and minute, day to minute, hour to minute
// to minutes (toward zero; months and days kept); then the seconds are
// rounded half away from zero to the precision.
func pgIntervalMicros(v string, it pgIntervalType) (int64, error) {
	iv, err := parsePgInterval(v, it)
	if err != nil {
		return 0, err
	}
	// MicroDuration.durationMicros on the PGInterval the connector reads
	// from the printed value (years, months, days, hours, minutes and
	// seconds with the sign of the time on each), double by double
	// (explicit conversions keep Go from fusing the multiply-adds)
	numberOfDays := float64(float64(iv.years*12+iv.months)*30.4375) + float64(iv.days)
	numberOfSeconds := float64(float64(float64(float64(float64(numberOfDays*24)+float64(iv.hours))*60)+float64(iv.minutes))*60) + iv.seconds()
	return int64(float64(numberOfSeconds * 1e6)), nil
}

// parsePgInterval reads an interval value of a column of type it (see
// pgIntervalMicros for the input forms) and returns it as PostgreSQL
// stores it (AdjustIntervalForTypmod), in the parts the driver's
// PGInterval reads from its printed form.
func parsePgInterval(v string, it pgIntervalType) (pgInterval, error) {
	bad := func() (pgInterval, error) {
		return pgInterval{}, fmt.Errorf("%w: interval %q: give it as PostgreSQL prints it (IntervalStyle postgres), e.g. \"1 year 2 mons 3 days 04:05:06.5\", or a bare integer (the column's rightmost field)", ErrInvalidEvent, v)
	}
	var months, days, t int64 // t: the time in microseconds
	if m := intervalBareRe.FindStringSubmatch(v); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		switch it.rightmost() {
		case "year":
			months = n * 12
		case "month":
			months = n
		case "day":
			days = n
		case "hour":
			t = n * 3_600_000_000
		case "minute":
			t = n * 60_000_000
		default:
			t = n * 1_000_000
		}
	} else {
		rest := v
		for {
			m := intervalUnitRe.FindStringSubmatchIndex(rest)
			if m == nil {
				break
			}
			n, err := strconv.ParseInt(rest[m[2]:m[3]], 10, 32)
			if err != nil {
				return bad()
			}
			switch rest[m[4]:m[5]][0] {
			case 'y':
				months += n * 12
			case 'm':
				months += n
			case 'd':
				days = n
			}
			rest = rest[m[1]:]
		}
		if strings.TrimSpace(rest) != "" {
			m := intervalTimeRe.FindStringSubmatch(rest)
			if m == nil {
				return bad()
			}
			h, _ := strconv.ParseInt(m[2], 10, 64)
			mi, _ := strconv.ParseInt(m[3], 10, 64)
			var sec int64
			switch {
			case m[4] != "":
				sec, _ = strconv.ParseInt(m[4], 10, 64)
			case m[5] != "" || it.fields == "minute to second":
				// DecodeTime: mm:ss.f always, mm:ss under minute to
				// second
				h, mi, sec = 0, h, mi
			}
			if mi > 59 || sec > 59 {
				// (DecodeTime's overflow check; a 60th second, which it
				// lets through, is refused too)
				return bad()
			}
			frac, _ := strconv.ParseInt((m[5] + "000000")[:6], 10, 64)
			t = ((h*60+mi)*60+sec)*1_000_000 + frac
			if m[1] == "-" {
				t = -t
			}
		} else if rest == v {
			return bad()
		}
	}
	// AdjustIntervalForTypmod
	switch it.fields {
	case "year":
		months = months / 12 * 12
		days, t = 0, 0
	case "month", "year to month":
		days, t = 0, 0
	case "day":
		t = 0
	case "hour", "day to hour":
		t = t / 3_600_000_000 * 3_600_000_000
	case "minute", "day to minute", "hour to minute":
		t = t / 60_000_000 * 60_000_000
	}
	if it.prec >= 0 && it.prec < 6 {
		unit := int64(fractionUnit(it.prec) / 1000)
		if t >= 0 {
			t = (t + unit/2) / unit * unit
		} else {
			t = -((-t + unit/2) / unit * unit)
		}
	}
	iv := pgInterval{years: months / 12, months: months % 12, days: days}
	neg := t < 0
	if neg {
		t = -t
	}
	iv.hours, iv.minutes = t/3_600_000_000, t/60_000_000%60
	iv.wholeSeconds, iv.micros = t/1_000_000%60, t%1_000_000
	if neg {
		iv.hours, iv.minutes, iv.wholeSeconds, iv.micros = -iv.hours, -iv.minutes, -iv.wholeSeconds, -iv.micros
	}
	return iv, nil
}
