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

// Logical schema names of the time-of-day, year, enum and bit types.
const (
	NameTime      = "io.debezium.time.Time"
	NameMicroTime = "io.debezium.time.MicroTime"
	NameZonedTime = "io.debezium.time.ZonedTime"
	NameYear      = "io.debezium.time.Year"
	NameEnum      = "io.debezium.data.Enum"
	NameEnumSet   = "io.debezium.data.EnumSet"
	NameBits      = "io.debezium.data.Bits"
	// NameXML is a PostgreSQL xml column (io.debezium.data.Xml).
	NameXML = "io.debezium.data.Xml"
	// NameMicroDuration is a PostgreSQL interval under
	// interval.handling.mode=numeric (the default).
	NameMicroDuration = "io.debezium.time.MicroDuration"
	// NameInterval is a PostgreSQL interval under
	// interval.handling.mode=string: the ISO-8601 text Interval.toIsoString
	// writes.
	NameInterval = "io.debezium.time.Interval"
)

var (
	enumTypeRe = regexp.MustCompile(`(?is)^\s*(enum|set)\s*\((.*)\)\s*$`)
	enumItemRe = regexp.MustCompile(`^\s*'((?:[^']|'')*)'\s*(,|$)`)
)

// parseEnumType returns the kind (enum or set) and the labels of a MySQL /
// MariaDB ENUM('a','b') or SET('a','b') type; ok is false for another
// type or an unreadable label list.
func parseEnumType(sqlType string) (kind string, labels []string, ok bool) {
	return enumLabelsWith(sqlType, enumItemRe, func(in string) string { return strings.ReplaceAll(in, "''", "'") })
}

// enumLabelsWith splits an ENUM(…) or SET(…) type's label list with
// itemRe (its first group: the inside of one quoted label) and reads each
// label's inside with read; ok is false for another type or an unreadable
// label list.
func enumLabelsWith(sqlType string, itemRe *regexp.Regexp, read func(string) string) (kind string, labels []string, ok bool) {
	m := enumTypeRe.FindStringSubmatch(sqlType)
	if m == nil {
		return "", nil, false
	}
	rest := m[2]
	for strings.TrimSpace(rest) != "" {
		im := itemRe.FindStringSubmatchIndex(rest)
		if im == nil {
			return "", nil, false
		}
		labels = append(labels, read(rest[im[2]:im[3]]))
		rest = rest[im[1]:]
	}
	return strings.ToLower(m[1]), labels, len(labels) > 0
}

// miscSchema is the Connect schema of the time-of-day, year, enum, set and
// bit types (adaptive / adaptive_time_microseconds precision): ok is false
// for another type.
//
// PostgreSQL: time(0-3) → int32 io.debezium.time.Time (milliseconds of
// the day), time and time(4-6) → int64 io.debezium.time.MicroTime, timetz
// → string io.debezium.time.ZonedTime.
// MySQL / MariaDB: time(p) → int64 MicroTime (adaptive_time_microseconds),
// year → int32 io.debezium.time.Year, enum(…) → string io.debezium.data.Enum
// and set(…) → string io.debezium.data.EnumSet (parameter allowed: the
// labels joined by commas), bit(1) → boolean, bit(n) → bytes
// io.debezium.data.Bits (parameter length: n).
func miscSchema(kind ConnectorKind, sqlType string) (s *Schema, ok bool) {
	pg := kind == Postgres || kind == ""
	if !pg {
		if k, labels, ok := mariaEnumLabels(sqlType); ok {
			// MariaDbAntlrDdlParser.escapeOption of each label's printed
			// text: a comma in a label is written \, (seen on the stack:
			// default_maria_types), a doubled backslash stays doubled
			// (default2_maria_enum_labels)
			name := NameEnum
			if k == "set" {
				name = NameEnumSet
			}
			allowed := make([]string, len(labels))
			for i, l := range labels {
				allowed[i] = l.option
			}
			return &Schema{Type: String, Name: name, Version: i32(1), Parameters: []Param{{"allowed", strings.Join(allowed, ",")}}}, true
		}
	}
	if k, labels, ok := parseEnumType(sqlType); ok && pg && k == "enum" {
		// PostgreSQL: a CREATE TYPE … AS ENUM type, given as
		// enum('a','b') with its labels in pg_enum's enumsortorder (the
		// relay reads them from the catalog); the connector's TypeRegistry
		// joins them the same way
		name := NameEnum
		if k == "set" {
			name = NameEnumSet
		}
		return &Schema{Type: String, Name: name, Version: i32(1), Parameters: []Param{{"allowed", strings.Join(labels, ",")}}}, true
	}
	base, prec := parseSQLType(sqlType)
	switch {
	case pg && (base == "time" || base == "time without time zone"):
		if prec >= 0 && prec <= 3 {
			return &Schema{Type: Int32, Name: NameTime, Version: i32(1)}, true
		}
		return &Schema{Type: Int64, Name: NameMicroTime, Version: i32(1)}, true
	case pg && isPgInterval(sqlType):
		// interval, interval(p) and interval with fields (interval day
		// to second(3)): the connector's MicroDuration whatever the
		// typmod (the stored value is what it changes)
		return &Schema{Type: Int64, Name: NameMicroDuration, Version: i32(1)}, true
	case pg && base == "xml":
		return &Schema{Type: String, Name: NameXML, Version: i32(1)}, true
	case isPgHstore(kind, sqlType):
		// hstore.handling.mode=json (ColumnSettings.Check refuses map)
		return &Schema{Type: String, Name: NameJSON, Version: i32(1)}, true
	case isPgNetType(kind, sqlType) || isPgDiscreteRange(kind, sqlType):
		// inet, cidr, macaddr, macaddr8, int4range, int8range,
		// daterange, numrange, tsrange: a plain string, PostgreSQL's
		// output form
		return &Schema{Type: String}, true
	case pg && (base == "bit" || base == "varbit" || base == "bit varying"):
		// PostgresValueConverter: length 1 (bit, bit(1), varbit(1)) is a
		// boolean, more is io.debezium.data.Bits
		n := prec
		if n < 0 && base == "bit" {
			n = 1
		}
		if n < 0 {
			// an unbounded varbit: the connector's column length is
			// Integer.MAX_VALUE, so Bits with that length (a one-bit
			// value too)
			n = math.MaxInt32
		}
		if n < 1 {
			return nil, false
		}
		if n == 1 {
			return &Schema{Type: Boolean}, true
		}
		return &Schema{Type: Bytes, Name: NameBits, Version: i32(1), Parameters: []Param{{"length", strconv.Itoa(n)}}}, true
	case pg && (base == "timetz" || base == "time with time zone"):
		return &Schema{Type: String, Name: NameZonedTime, Version: i32(1)}, true
	case !pg && base == "time":
		return &Schema{Type: Int64, Name: NameMicroTime, Version: i32(1)}, true
	case !pg && base == "year":
		return &Schema{Type: Int32, Name: NameYear, Version: i32(1)}, true
	case !pg && base == "bit":
		n := prec
		if n < 0 {
			n = 1
		}
		if n == 1 {
			return &Schema{Type: Boolean}, true
		}
		return &Schema{Type: Bytes, Name: NameBits, Version: i32(1), Parameters: []Param{{"length", strconv.Itoa(n)}}}, true
	}
	return nil, false
}

// isMiscType reports a type miscSchema models.
func isMiscType(kind ConnectorKind, sqlType string) bool {
	_, ok := miscSchema(kind, sqlType)
	return ok
}

var timeOfDayRe = regexp.MustCompile(`^\s*(-)?(\d{1,3}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*$`)

// parseTimeOfDay reads [-]h:mm[:ss[.fffffffff]] as a duration in
// nanoseconds.
func parseTimeOfDay(v string) (int64, bool, error) {
	m := timeOfDayRe.FindStringSubmatch(v)
	if m == nil {
		return 0, false, fmt.Errorf("%w: time %q: want hh:mm:ss[.ffffff]", ErrInvalidEvent, v)
	}
	h, _ := strconv.ParseInt(m[2], 10, 64)
	mi, _ := strconv.ParseInt(m[3], 10, 64)
	sec := int64(0)
	if m[4] != "" {
		sec, _ = strconv.ParseInt(m[4], 10, 64)
	}
	ns := int64(0)
	if m[5] != "" {
		ns, _ = strconv.ParseInt((m[5] + "000000000")[:9], 10, 64)
	}
	if mi > 59 || sec > 59 {
		return 0, false, fmt.Errorf("%w: time %q: minutes and seconds are 00-59", ErrInvalidEvent, v)
	}
	return ((h*60+mi)*60+sec)*int64(time.Second) + ns, m[1] == "-", nil
}

// miscValue converts a sample value of a miscSchema type.
func miscValue(kind ConnectorKind, sqlType string, s *Schema, raw string, isStr bool) (any, error) {
	pg := kind == Postgres || kind == ""
	if isPgNetType(kind, sqlType) {
		return pgNetValue(sqlType, raw)
	}
	if isPgDiscreteRange(kind, sqlType) {
		return pgRangeValue(sqlType, raw)
	}
	if isPgHstore(kind, sqlType) {
		return pgHstoreValue(sqlType, s, raw, isStr)
	}
	_, prec := parseSQLType(sqlType)
	switch s.Name {
	case NameTime, NameMicroTime:
		ns, neg, err := parseTimeOfDay(raw)
		if err != nil {
			return nil, err
		}
		p := prec
		if pg {
			// PostgreSQL rounds to the column's precision (6 when none)
			if p < 0 || p > 6 {
				p = 6
			}
			unit := int64(fractionUnit(p))
			ns = (ns + unit/2) / unit * unit
			if ns > 24*int64(time.Hour) {
				return nil, fmt.Errorf("%w: time %q: out of range", ErrInvalidEvent, raw)
			}
		} else {
			// MariaDB truncates to the column's precision (0 when none)
			if p < 0 {
				p = 0
			}
			unit := int64(fractionUnit(p))
			ns = ns / unit * unit
			if ns > (838*3600+59*60+59)*int64(time.Second) {
				return nil, fmt.Errorf("%w: time %q: out of range", ErrInvalidEvent, raw)
			}
		}
		if neg {
			if pg {
				return nil, fmt.Errorf("%w: time %q: invalid input syntax", ErrInvalidEvent, raw)
			}
			ns = -ns
		}
		if s.Name == NameTime {
			return int32(ns / int64(time.Millisecond)), nil
		}
		return ns / int64(time.Microsecond), nil
	case NameZonedTime:
		return pgZonedTime(raw, prec)
	case NameMicroDuration:
		it, _ := parsePgIntervalType(sqlType)
		return pgIntervalMicros(raw, it)
	case NameInterval:
		it, _ := parsePgIntervalType(sqlType)
		iv, err := parsePgInterval(raw, it)
		if err != nil {
			return nil, err
		}
		return iv.isoString(), nil
	case NameXML:
		return pgXML(raw)
	case NameYear:
		y, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("%w: year %q", ErrInvalidEvent, raw)
		}
		switch {
		case y == 0 && isStr && len(strings.TrimSpace(raw)) <= 2:
			y = 2000 // '0' and '00' are 2000, the number 0 is 0000
		case y >= 1 && y <= 69:
			y += 2000
		case y >= 70 && y <= 99:
			y += 1900
		}
		if y != 0 && (y < 1901 || y > 2155) {
			return nil, fmt.Errorf("%w: year %q: out of range", ErrInvalidEvent, raw)
		}
		if y == 0 {
			// the binlog holds YEAR as the offset from 1900: the
			// connector delivers 0000 as 1900 (seen on the stack)
			y = 1900
		}
		return int32(y), nil
	case NameEnum, NameEnumSet:
		if pg {
			// enum_in: exactly one of the labels (case and blanks
			// included); the connector passes the label on
			_, labels, _ := parseEnumType(sqlType)
			for _, l := range labels {
				if raw == l {
					return l, nil
				}
			}
			return nil, fmt.Errorf("%w: %q is not one of the enum's labels (PostgreSQL: invalid input value for enum)", ErrInvalidEvent, raw)
		}
		// the binlog holds the label's index (a set: a bit per label);
		// the connector delivers the option its DDL parser made of the
		// label (mariaLabel.option), a set's joined by commas
		_, labels, _ := mariaEnumLabels(sqlType)
		picked, err := mariaPicked(sqlType, s.Name == NameEnum, labels, raw, isStr)
		if err != nil {
			return nil, err
		}
		var out []string
		for i, l := range labels {
			if picked[i] {
				out = append(out, l.option)
			}
		}
		return strings.Join(out, ","), nil
	case NameBits:
		if pg {
			if prec < 0 {
				prec = math.MaxInt32 // unbounded varbit
			}
			return pgBits(sqlType, prec, raw)
		}
		// the bit value as an unsigned number (b'101' is 5), delivered as
		// BitSet.toByteArray: little-endian, padded to (n+7)/8 bytes
		n, ok := new(big.Int).SetString(strings.TrimSpace(raw), 10)
		if !ok || n.Sign() < 0 {
			return nil, fmt.Errorf("%w: bit value %q: want an unsigned number", ErrInvalidEvent, raw)
		}
		width := (prec + 7) / 8
		if n.BitLen() > prec {
			return nil, fmt.Errorf("%w: bit value %s: more than %d bits", ErrInvalidEvent, raw, prec)
		}
		be := n.Bytes()
		out := make([]byte, width)
		for i := range be {
			out[i] = be[len(be)-1-i]
		}
		return out, nil
	}
	if s.Type == Boolean { // bit(1)
		if pg {
			// a bit string of length 1: Integer.valueOf(str, 2) != 0
			switch raw {
			case "1":
				return true, nil
			case "0":
				return false, nil
			}
			return nil, fmt.Errorf("%w: %s value %q: want the bit string \"0\" or \"1\"", ErrInvalidEvent, sqlType, raw)
		}
		switch strings.TrimSpace(raw) {
		case "1", "true":
			return true, nil
		case "0", "false":
			return false, nil
		}
		return nil, fmt.Errorf("%w: bit(1) value %q: want 0 or 1", ErrInvalidEvent, raw)
	}
	return nil, fmt.Errorf("%w: sample value for %s", ErrUnsupported, sqlType)
}

// enumLabel is the label MariaDB stores for an ENUM input: the label
// matching case-insensitively (trailing spaces ignored) or, for a number,
// the label at that 1-based index.
// mariaPicked is which labels a MySQL / MariaDB ENUM (enum true) or SET
// value names: a label (a set's comma-separated, in any order) compared
// as mariaMatchLabel does, or a number (an enum's 1-based index, a set's
// bits). An enum's empty value (index 0) picks none.
func mariaPicked(sqlType string, enum bool, labels []mariaLabel, raw string, isStr bool) ([]bool, error) {
	picked := make([]bool, len(labels))
	if !isStr {
		if enum {
			n, err := strconv.Atoi(raw)
			if err != nil || n < 1 || n > len(labels) {
				return nil, fmt.Errorf("%w: enum index %s out of range", ErrInvalidEvent, raw)
			}
			picked[n-1] = true
			return picked, nil
		}
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: set value %s", ErrInvalidEvent, raw)
		}
		for i := range labels {
			picked[i] = n&(1<<uint(i)) != 0
		}
		return picked, nil
	}
	if enum {
		i := mariaMatchLabel(labels, raw)
		if i < 0 {
			return nil, fmt.Errorf("%w: %q is not one of the enum's labels", ErrInvalidEvent, raw)
		}
		picked[i] = true
		return picked, nil
	}
	if strings.TrimSpace(raw) == "" {
		return picked, nil
	}
	for _, part := range strings.Split(raw, ",") {
		i := mariaMatchLabel(labels, part)
		if i < 0 {
			return nil, fmt.Errorf("%w: %q is not one of %s", ErrInvalidEvent, part, sqlType)
		}
		picked[i] = true
	}
	return picked, nil
}

var timetzRe = regexp.MustCompile(`^\s*(\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(Z|[+-]\d{2}(?::?\d{2})?)?\s*$`)

// pgZonedTime is a PostgreSQL timetz(prec) as ZonedTime.toIsoString
// writes it: rounded to prec fraction digits (6 when prec < 0), moved to UTC, ISO_OFFSET_TIME (seconds always, the fraction without
// trailing zeros, Z).
func pgZonedTime(v string, prec int) (string, error) {
	m := timetzRe.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("%w: timetz %q: want hh:mm:ss[.ffffff][±hh[:mm]]", ErrInvalidEvent, v)
	}
	ns, _, err := parseTimeOfDay(m[1])
	if err != nil {
		return "", err
	}
	// PostgreSQL rounds to the column's precision (timetz(3): seen on
	// the stack, 03:04:05.12345+02 is 01:04:05.123Z), 6 when none
	if prec < 0 || prec > 6 {
		prec = 6
	}
	unit := int64(fractionUnit(prec))
	ns = (ns + unit/2) / unit * unit
	off := int64(0)
	if z := m[2]; z != "" && z != "Z" {
		h, _ := strconv.ParseInt(z[1:3], 10, 64)
		mm := int64(0)
		rest := strings.TrimPrefix(z[3:], ":")
		if rest != "" {
			mm, _ = strconv.ParseInt(rest, 10, 64)
		}
		off = (h*60 + mm) * int64(time.Minute)
		if z[0] == '-' {
			off = -off
		}
	}
	day := 24 * int64(time.Hour)
	ns = ((ns-off)%day + day) % day
	t := time.Unix(0, ns).UTC()
	out := t.Format("15:04:05")
	if f := ns % int64(time.Second); f != 0 {
		out += "." + strings.TrimRight(fmt.Sprintf("%09d", f), "0")
	}
	return out + "Z", nil
}

// ColumnReadAsText reports a column type whose value a reader of the
// database (the relay) should select as text and hand to ColumnValue:
// the fixed-point types (whatever decimal.handling.mode; NaN and Infinity
// as PostgreSQL prints them), PostgreSQL money (selected as
// money::numeric, free of lc_monetary), the time-of-day and interval
// types, year, enum, set, bit (MySQL / MariaDB: selected as CAST(col AS
// UNSIGNED); PostgreSQL: the bit string), PostgreSQL xml (selected
// without a cast: xml_out, not ::text, drops the declaration as pgoutput
// does) and the PostgreSQL network types (inet::text always carries the
// mask, which ColumnValue drops where inet_out does) and PostgreSQL arrays
// (their array literal, {1,2,NULL}), PostgreSQL point ((x,y), shortest
// exact doubles), PostgreSQL oid, MariaDB UUID (its canonical text,
// which ColumnValue turns into what the binlog delivers), and the MySQL /
// MariaDB FLOAT(M,D)
// (a FLOAT64 of the stored float: the server's text, widened by
// ColumnValue).
func ColumnReadAsText(kind ConnectorKind, sqlType string) bool {
	return IsDecimalType(sqlType) || isMoney(kind, sqlType) || isMiscType(kind, sqlType) || isPgArray(kind, sqlType) || isBinlogScaledFloat(kind, sqlType) || isPgPoint(kind, sqlType) ||
		isPgOid(kind, sqlType) || isMariaDBUUID(kind, sqlType)
}

// isBinlogScaledFloat reports a MySQL / MariaDB FLOAT(M,D).
func isBinlogScaledFloat(kind ConnectorKind, sqlType string) bool {
	if kind == Postgres || kind == "" {
		return false
	}
	base, _ := parseSQLType(sqlType)
	_, ok := binlogRealScale(sqlType)
	return ok && base == "float"
}

// pgInterval is a PostgreSQL interval as the driver's PGInterval holds it:
// years, months, days, hours, minutes, whole seconds and microseconds
// (the time part's sign on each of hours to micros).
type pgInterval struct {
	years, months, days, hours, minutes, wholeSeconds, micros int64
}

// seconds is PGInterval.getSeconds: wholeSeconds + microSeconds / 1e6 in
// doubles.
func (iv pgInterval) seconds() float64 {
	return float64(iv.wholeSeconds) + float64(iv.micros)/1e6
}

// isoString is Interval.toIsoString (interval.handling.mode=string):
// "P<y>Y<m>M<d>DT<h>H<m>M<s>S", the seconds BigDecimal.valueOf(double)
// (the double's shortest decimal) with trailing zeros stripped, plain.
func (iv pgInterval) isoString() string {
	d, err := parseDecimal(strconv.FormatFloat(iv.seconds(), 'f', -1, 64))
	if err != nil {
		d = Decimal{Unscaled: new(big.Int)}
	}
	if d.Scale > 9 {
		d = d.setScaleDown(9)
	}
	return fmt.Sprintf("P%dY%dM%dDT%dH%dM%sS", iv.years, iv.months, iv.days, iv.hours, iv.minutes, d.stripTrailingZeros().plain())
}

// pgBits is a PostgreSQL bit(n) / varbit(n) value (n > 1) as
// PostgresValueConverter.convertBits delivers it: the bit string (as
// PostgreSQL prints it, "0101"; bit(n) takes exactly n bits, varbit(n) at
// most n) read with its last character as bit 0 into a BitSet, sent as
// BitSet.toByteArray: little-endian, only as many bytes as the highest set
// bit needs (none for all zeros), not the column's (n+7)/8.
func pgBits(sqlType string, n int, raw string) ([]byte, error) {
	base, _ := parseSQLType(sqlType)
	if strings.Trim(raw, "01") != "" {
		return nil, fmt.Errorf("%w: %s value %q: want a bit string such as \"0101\"", ErrInvalidEvent, sqlType, raw)
	}
	if base == "bit" && len(raw) != n {
		return nil, fmt.Errorf("%w: bit string length %d does not match type %s", ErrInvalidEvent, len(raw), sqlType)
	}
	if len(raw) > n {
		return nil, fmt.Errorf("%w: bit string too long for type %s", ErrInvalidEvent, sqlType)
	}
	v, _ := new(big.Int).SetString("0"+raw, 2)
	be := v.Bytes()
	out := make([]byte, len(be))
	for i := range be {
		out[i] = be[len(be)-1-i]
	}
	return out, nil
}

var xmlDeclRe = regexp.MustCompile(`^<\?xml(\s+version\s*=\s*(?:"([^"]*)"|'([^']*)'))?(\s+encoding\s*=\s*(?:"[^"]*"|'[^']*'))?(\s+standalone\s*=\s*(?:"(yes|no)"|'(yes|no)'))?\s*\?>`)

// pgXML is a PostgreSQL xml value as pgoutput sends it (xml_out) and
// Debezium passes it on (io.debezium.data.Xml): the text as inserted,
// except a leading XML declaration: PostgreSQL prints one only for a
// standalone attribute (<?xml version="1.0" standalone="yes"?>), else drops
// it with one newline after it; the encoding attribute is never printed.
// A version other than 1.0 is not modelled.
func pgXML(v string) (string, error) {
	m := xmlDeclRe.FindStringSubmatchIndex(v)
	if m == nil {
		if strings.HasPrefix(v, "<?xml") && (len(v) == 5 || strings.ContainsAny(v[5:6], " \t\r\n?")) {
			return "", fmt.Errorf("%w: xml %q: an XML declaration the emulator does not read", ErrInvalidEvent, v)
		}
		return v, nil
	}
	sub := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return v[m[2*i]:m[2*i+1]]
	}
	version := sub(2) + sub(3)
	if sub(1) != "" && version != "1.0" {
		return "", fmt.Errorf("%w: xml %q: XML version %q is not modelled", ErrInvalidEvent, v, version)
	}
	rest := v[m[1]:]
	if sa := sub(6) + sub(7); sa != "" {
		return `<?xml version="1.0" standalone="` + sa + `"?>` + rest, nil
	}
	return strings.TrimPrefix(rest, "\n"), nil
}
