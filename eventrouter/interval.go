package eventrouter

import (
	"fmt"
	"math"
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

// pgIntervalMicros is a PostgreSQL interval as PostgresValueConverter
// delivers it under interval.handling.mode=numeric: MicroDuration's
// approximation ((years×12 + months) × 30.4375 + days) days plus the time,
// computed in doubles and truncated to microseconds.
//
// The input: any text PostgreSQL 15's interval_in reads (pgIntervalIn),
// as an INSERT literal stores it in a column of type it (the fields decide
// what a bare number and a two-part time mean): PostgreSQL's output
// form ("1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00"), verbose
// units with fractions, abbreviations and "ago" ("@ 1.5 days ago", "1
// millennium", "3 us"), SQL-standard ("1-2", "1-2 3 4:05:06"), a bare
// number, h:mm, mm:ss.f, and ISO 8601 with designators
// ("P1Y2M3DT4H5M6.5S", "P1.5Y", "PT-0.5S") or in the alternative format
// ("P0001-02-03T04:05:06"). Text interval_in refuses is refused.
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
	m32, d32, t, e := pgIntervalIn(v, it)
	switch e {
	case pgDtBadFormat:
		return pgInterval{}, fmt.Errorf("%w: interval %q: invalid input syntax for type interval (PostgreSQL 15's interval_in refuses it)", ErrInvalidEvent, v)
	case pgDtFieldOverflow:
		return pgInterval{}, fmt.Errorf("%w: interval %q: interval field value out of range (PostgreSQL 15's interval_in refuses it)", ErrInvalidEvent, v)
	case pgDtNotModeled:
		return pgInterval{}, fmt.Errorf("%w: interval %q: a form the model does not read (non-ASCII text, or a hexadecimal or underflowing number in ISO 8601 text)", ErrUnsupported, v)
	}
	months, days := int64(m32), int64(d32)
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
		// (PostgreSQL 15 adds the half unit without an overflow check:
		// the sum wraps, as here)
		if t >= 0 {
			t += unit / 2
		} else {
			t -= unit / 2
		}
		t -= t % unit
	}
	if h := t / 3_600_000_000; h > math.MaxInt32 || h < math.MinInt32 {
		// the driver's PGInterval reads the hours as an int
		return pgInterval{}, fmt.Errorf("%w: interval %q: more than 2147483647 hours in the time part, which the driver's PGInterval cannot read (not modelled)", ErrUnsupported, v)
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
