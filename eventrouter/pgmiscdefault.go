package eventrouter

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pgMiscDefault is the schema default of a PostgreSQL column of one of the
// types below declared with DEFAULT expr (not NULL), as
// PostgresDefaultValueConverter derives it (seen on the stack: the
// default_pg_* differential variants); ok is false for another type.
//
//   - money, timetz, inet, cidr, macaddr, macaddr8, the ranges and hstore
//     have no default value mapper ("Mapper for type … not found"): no
//     default, whatever the expression.
//
//   - xml: the text between the first pair of quotes, as for text ("" for
//     a function call).
//
//   - bit, varbit: the bit string between the quotes (B'101' or
//     pg_get_expr's '101'::"bit"), converted as a value of the column.
//
//   - time: pg_get_expr prints the constant time_in read without the
//     column's precision (the typmod coercion is hidden), and pgjdbc's
//     toLocalTime reads it (24:00:00 is LocalTime.MAX,
//     23:59:59.999999999); io.debezium.time.Time truncates to
//     milliseconds, MicroTime keeps the microseconds. A function call or
//     CURRENT_TIME / LOCALTIME is the placeholder 00:00.
//
//   - interval, with or without fields: a quoted literal is read by
//     interval_in with the column's fields and precision (pg_get_expr:
//     '1 day 02:00:00'::interval hour for '1 day 2:03:04'), so it is the
//     value the column would store; with an explicit ::interval cast the
//     constant is a plain interval and the coercion to the column's
//     fields is hidden: the value of a plain interval column.
//
//   - a function call (or CURRENT_TIME…) on bit, varbit or interval: the
//     mapper's placeholder, a bit string without a set bit ("00", "0")
//     or new PGInterval("epoch"), a zero interval.
//
// Other expressions on these types (an arithmetic expression) are refused.
func pgMiscDefault(sqlType string, s *Schema, expr string) (any, bool, error) {
	base, _ := parseSQLType(sqlType)
	base = strings.ToLower(base)
	generated := pgFunctionDefault.MatchString(expr) || pgCurrentDateTime[strings.ToLower(expr)]
	switch {
	case isPgNetType(Postgres, sqlType) || isPgDiscreteRange(Postgres, sqlType) || isPgHstore(Postgres, sqlType) ||
		base == "money" || base == "timetz" || base == "time with time zone":
		return nil, true, nil
	case base == "xml":
		if generated {
			return "", true, nil
		}
		if !strings.Contains(expr, "'") {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of an xml column (modelled: a quoted literal)", ErrUnsupported, expr)
		}
		return pgLiteralDefault.FindStringSubmatch(expr)[1], true, nil
	case (base == "bit" || base == "varbit" || base == "bit varying") && generated:
		// the mapper's placeholder: "00" for bit, "0" for varbit, a bit
		// string without a set bit (bit(1), varbit(1): false; longer:
		// Bits without bytes)
		n := 1
		if _, p := parseSQLType(sqlType); p > 0 && base == "bit" {
			n = p
		}
		d, err := ColumnValue(Postgres, sqlType, s, mustJSONString(strings.Repeat("0", n)))
		return d, true, err
	case base == "bit" || base == "varbit" || base == "bit varying":
		m := pgBitDefault.FindStringSubmatch(expr)
		if m == nil {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: B'0101' or '0101')", ErrUnsupported, expr, sqlType)
		}
		d, err := ColumnValue(Postgres, sqlType, s, mustJSONString(m[1]))
		if err != nil {
			return nil, true, err
		}
		return d, true, nil
	case base == "time" || base == "time without time zone":
		text := "00:00"
		if !generated {
			m := pgQuotedDefault.FindStringSubmatch(expr)
			if m == nil {
				return nil, true, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: a quoted time, a function call)", ErrUnsupported, expr, sqlType)
			}
			text = m[1]
		}
		us, err := pgTimeDefaultMicros(text)
		if err != nil {
			return nil, true, err
		}
		switch s.Name {
		case NameTime:
			return int32(us / 1000), true, nil
		case NameMicroTime:
			return us, true, nil
		case NameNanoTime:
			if us == (24*3600*1_000_000_000-1)/1000 {
				return int64(24*3600*1_000_000_000 - 1), true, nil // LocalTime.MAX
			}
			return us * 1000, true, nil
		}
		if us == (24*3600*1_000_000_000-1)/1000 {
			return nil, true, fmt.Errorf("%w: the DEFAULT 24:00:00 of a %s column under time.precision.mode connect or isostring (not modelled)", ErrUnsupported, sqlType)
		}
		// connect, isostring: the LocalTime as the mode converts a value
		text = fmt.Sprintf("%02d:%02d:%02d.%06d", us/3600_000_000, us/60_000_000%60, us/1_000_000%60, us%1_000_000)
		d, err := modeValue(Postgres, "time(6)", s, mustJSONString(text))
		return d, true, err
	case isPgInterval(sqlType) && generated:
		// the mapper's placeholder new PGInterval("epoch"): pgjdbc finds
		// no unit in it, a zero interval
		d, err := ColumnValue(Postgres, sqlType, s, mustJSONString("00:00:00"))
		return d, true, err
	case isPgInterval(sqlType):
		m := pgQuotedDefault.FindStringSubmatch(expr)
		if m == nil {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of an %s column (modelled: a quoted interval)", ErrUnsupported, expr, sqlType)
		}
		typ, err := pgIntervalDefaultType(sqlType, m[2])
		if err != nil {
			return nil, true, err
		}
		ts := s
		if typ != sqlType {
			if ts, err = ColumnSchemaWith(Postgres, typ, s.Optional, ColumnSettings{IntervalHandlingMode: intervalModeOf(s)}); err != nil {
				return nil, true, err
			}
		}
		d, err := ColumnValue(Postgres, typ, ts, mustJSONString(m[1]))
		if err != nil {
			return nil, true, err
		}
		return d, true, nil
	}
	return nil, false, nil
}

var (
	// pgBitDefault: B'0101' as written, '0101'::"bit" / ::varbit as
	// pg_get_expr prints it
	pgBitDefault = regexp.MustCompile(`^[Bb]?'([01]*)'(?:::(?:"bit"|bit|varbit|bit varying)(?:\(\d+\))?)?$`)
	// pgQuotedDefault: a quoted literal with an optional cast
	pgQuotedDefault = regexp.MustCompile(`^'([^']*)'(?:::([a-z ]+(?:\(\d+\))?))?$`)
	pgTimeDefaultRe = regexp.MustCompile(`^\s*(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?\s*$`)
)

// pgTimeDefaultMicros is a time DEFAULT as the connector reads it, in
// microseconds past midnight: hh:mm[:ss[.ffffff]] (more fraction digits,
// which time_in rounds through a double, and other input forms are
// refused); 24:00:00 is LocalTime.MAX.
func pgTimeDefaultMicros(text string) (int64, error) {
	m := pgTimeDefaultRe.FindStringSubmatch(text)
	if m == nil {
		return 0, fmt.Errorf("%w: time DEFAULT %q (modelled: hh:mm[:ss[.ffffff]])", ErrUnsupported, text)
	}
	h, _ := strconv.ParseInt(m[1], 10, 64)
	mi, _ := strconv.ParseInt(m[2], 10, 64)
	sec, frac := int64(0), int64(0)
	if m[3] != "" {
		sec, _ = strconv.ParseInt(m[3], 10, 64)
	}
	if m[4] != "" {
		frac, _ = strconv.ParseInt((m[4] + "000000")[:6], 10, 64)
	}
	us := ((h*60+mi)*60+sec)*1_000_000 + frac
	switch {
	case mi > 59 || sec > 59 || us > 24*3600*1_000_000:
		return 0, fmt.Errorf("%w: time DEFAULT %q: out of range", ErrInvalidEvent, text)
	case us == 24*3600*1_000_000:
		return (24*3600*1_000_000_000 - 1) / 1000, nil // LocalTime.MAX
	}
	return us, nil
}

// intervalModeOf is the interval.handling.mode schema s has.
func intervalModeOf(s *Schema) string {
	if s.Name == NameMicroDuration {
		return "numeric"
	}
	return "string"
}

// pgIntervalDefaultType is the type an interval DEFAULT's quoted constant
// is read as: the column's own (no cast, or a cast to it), or the plain
// interval (a ::interval cast); another cast is refused.
func pgIntervalDefaultType(sqlType, cast string) (string, error) {
	norm := func(t string) string { return strings.Join(strings.Fields(strings.ToLower(t)), " ") }
	switch c := norm(cast); {
	case c == "" || c == norm(sqlType):
		return sqlType, nil
	case c == "interval":
		return "interval", nil
	}
	return "", fmt.Errorf("%w: an interval DEFAULT cast to %s on a %s column", ErrUnsupported, cast, sqlType)
}
