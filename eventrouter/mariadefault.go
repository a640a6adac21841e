package eventrouter

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// binlogMiscDefault is the schema default of a MySQL / MariaDB time, year,
// enum or set column declared with DEFAULT expr (not NULL), as the DDL
// parser and BinlogDefaultValueConverter derive it from SHOW CREATE TABLE
// (seen on the stack: the default_maria_types variant); ok is false for
// another type.
//
//   - time(p): a quoted time ([-]h:mm:ss[.f]) as the database stores it
//     (truncated to p digits), then MicroTime: the value of the column.
//   - year: the year as stored (1-69 and '0' are 20xx, 70-99 19xx, the
//     number 0 is 0000), printed and read with Integer.valueOf, then
//     adjustTemporal: 0000 becomes 2000 (a row's 0000 is 1900).
//   - enum, set: the stored label(s) as SHOW CREATE TABLE prints them
//     (mariaPrint: a quote and a backslash doubled, a newline \n; a set's
//     labels in the column's order), kept as printed.
//   - bit(n): b'0101', 0b0101 or a number, the value of the column.
//
// Other expressions are refused.
func binlogMiscDefault(kind ConnectorKind, sqlType string, s *Schema, expr string) (any, bool, error) {
	base, _ := parseSQLType(sqlType)
	base = strings.ToLower(base)
	switch {
	case base == "time":
		// (MicroTime, or the schema a time.precision.mode gives)
		m := binlogQuoted.FindStringSubmatch(expr)
		if m == nil || !binlogTimeDefault.MatchString(m[1]) {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: a quoted time)", ErrUnsupported, expr, sqlType)
		}
		d, err := ColumnValue(kind, sqlType, s, mustJSONString(m[1]))
		return d, true, err
	case s.Name == NameYear:
		v, quoted := expr, false
		if m := binlogQuoted.FindStringSubmatch(expr); m != nil {
			v, quoted = m[1], true
		}
		y, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of a year column (modelled: a year number)", ErrUnsupported, expr)
		}
		switch {
		case y == 0 && quoted && len(strings.TrimSpace(v)) <= 2:
			y = 2000
		case y >= 1 && y <= 69:
			y += 2000
		case y >= 70 && y <= 99:
			y += 1900
		}
		if y != 0 && (y < 1901 || y > 2155) {
			return nil, true, fmt.Errorf("%w: year DEFAULT %s: out of range", ErrInvalidEvent, expr)
		}
		if y == 0 {
			y = 2000 // adjustTemporal of the printed 0000
		}
		return int32(y), true, nil
	case base == "bit":
		// SHOW CREATE TABLE prints b'101'; the DDL parser keeps the
		// digits and convertToBits / convertToBit read them: the value of
		// the column (BitSet bytes padded to (n+7)/8, bit(1) a boolean)
		var n *big.Int
		if m := binlogBitLiteral.FindStringSubmatch(expr); m != nil {
			n, _ = new(big.Int).SetString("0"+m[1]+m[2], 2)
		} else if binlogUint.MatchString(expr) {
			n, _ = new(big.Int).SetString(expr, 10)
		}
		if n == nil {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: b'0101', 0b0101, a number)", ErrUnsupported, expr, sqlType)
		}
		d, err := ColumnValue(kind, sqlType, s, []byte(n.String()))
		return d, true, err
	case s.Name == NameEnum || s.Name == NameEnumSet:
		// SHOW CREATE TABLE prints the stored label(s) as
		// append_unescaped does (mariaPrint); the DDL parser strips the
		// outer quotes and keeps the rest, and the enum converter passes
		// that String on: a quote stays doubled, a backslash doubled, a
		// comma unescaped (seen on the stack: default_maria_types,
		// default2_maria_enum_labels)
		m := binlogAnyQuoted.FindStringSubmatch(expr)
		_, labels, ok := mariaEnumLabels(sqlType)
		if m == nil || !ok {
			return nil, true, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: a quoted label)", ErrUnsupported, expr, sqlType)
		}
		v := mariaUnescape(m[1])
		if m[2] != "" {
			v = mariaUnescapeDouble(m[2])
		}
		picked, err := mariaPicked(sqlType, s.Name == NameEnum, labels, v, true)
		if err != nil {
			return nil, true, err
		}
		var out []string
		for i, l := range labels {
			if picked[i] {
				out = append(out, l.printed)
			}
		}
		return strings.Join(out, ","), true, nil
	}
	return nil, false, nil
}

var (
	binlogQuoted = regexp.MustCompile(`^'(.*)'$`)
	// binlogAnyQuoted: a single- or double-quoted string literal
	binlogAnyQuoted   = regexp.MustCompile(`^(?:'((?:[^'\\]|''|\\.)*)'|"((?:[^"\\]|""|\\.)*)")$`)
	binlogBitLiteral  = regexp.MustCompile(`^(?:[bB]'([01]*)'|0b([01]+))$`)
	binlogUint        = regexp.MustCompile(`^\d+$`)
	binlogTimeDefault = regexp.MustCompile(`^\s*-?\d{1,3}:\d{1,2}(:\d{1,2}(\.\d*)?)?\s*$`)
)

// binlogBinaryDefault is the schema default of a MySQL / MariaDB binary,
// varbinary or blob column declared with DEFAULT expr (seen on the stack:
// the default_maria_binary and default2_maria_unsigned_binary variants).
// SHOW CREATE TABLE prints the stored bytes as a quoted string (binary(n)
// padded with zero bytes): NUL \0, newline \n, carriage return \r, a
// backslash \\; a quote doubled on binary / varbinary, \' on a blob, whose
// DEFAULT is an expression (which also prints Ctrl-Z \Z); other bytes below
// 0x80 as they are. The DDL parser keeps that text with its escapes, and
// convertBinary reads the String as its UTF-8 bytes: no padding of its own
// (a row's binary(n) value is padded), and a \0 is the two bytes '\' '0'.
// Then as binary.handling.mode encodes bytes.
//
// Modelled: a quoted string (” and \' for a quote, \\, \0, \n, \r, \t,
// \Z), X'hex' and 0xhex whose stored bytes are below 0x80. A byte of 0x80
// or more (the catalog prints it in the connection's character set, X'FF'
// as '?'; catalog: a ? in the text, which may stand for one) and other
// expressions are refused.
func binlogBinaryDefault(sqlType string, s *Schema, expr string, catalog bool) (any, error) {
	var stored []byte
	switch {
	case strings.EqualFold(expr, "null"):
		return nil, nil
	case binlogHexLiteral.MatchString(expr) && strings.HasSuffix(strings.ToLower(binlogBase(sqlType)), "blob"):
		// a blob keeps its DEFAULT as an expression: SHOW CREATE TABLE
		// prints X'00ff' back, a hexadecimal literal the DDL parser's
		// default listener ignores: no default (seen on the stack)
		return nil, nil
	case binlogHexLiteral.MatchString(expr):
		m := binlogHexLiteral.FindStringSubmatch(expr)
		h := m[1] + m[2]
		if len(h)%2 == 1 {
			h = "0" + h
		}
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("%w: DEFAULT %s: %v", ErrInvalidEvent, expr, err)
		}
		stored = b
	case catalog && len(expr) >= 2 && expr[0] == '\'' && strings.Contains(expr, "?") && !strings.HasSuffix(strings.ToLower(binlogBase(sqlType)), "blob"):
		// the catalog prints a byte of 0x80 or more that is no UTF-8 as
		// ? (X'FF' is '?', seen on the stack): it may stand for one
		return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column: a ? in the catalog's text may stand for a byte it could not print (modelled: bytes below 0x80)", ErrUnsupported, expr, sqlType)
	case len(expr) >= 2 && expr[0] == '\'' && expr[len(expr)-1] == '\'':
		in := expr[1 : len(expr)-1]
		for i := 0; i < len(in); i++ {
			c := in[i]
			switch {
			case c == '\'' && i+1 < len(in) && in[i+1] == '\'':
				stored = append(stored, '\'')
				i++
			case c == '\\' && i+1 < len(in):
				switch in[i+1] {
				case '0':
					stored = append(stored, 0)
				case '\'', '\\':
					stored = append(stored, in[i+1])
				case 'n':
					stored = append(stored, '\n')
				case 'r':
					stored = append(stored, '\r')
				case 't':
					stored = append(stored, '\t')
				case 'Z':
					stored = append(stored, 0x1a)
				default:
					return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column: escape \\%c (modelled: \\0, \\', \\\\, \\n, \\r, \\t, \\Z)", ErrUnsupported, expr, sqlType, in[i+1])
				}
				i++
			default:
				stored = append(stored, c)
			}
		}
	default:
		return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: a quoted string, X'hex', 0xhex)", ErrUnsupported, expr, sqlType)
	}
	base, n := parseSQLType(sqlType)
	if strings.EqualFold(base, "binary") {
		if n < 0 {
			n = 1
		}
		if len(stored) > n {
			return nil, fmt.Errorf("%w: DEFAULT %s: longer than %s", ErrInvalidEvent, expr, sqlType)
		}
		stored = append(stored, make([]byte, n-len(stored))...)
	}
	// a blob's DEFAULT is an expression, printed by the string item (a
	// quote \', Ctrl-Z \Z); binary and varbinary print the stored value
	// with append_unescaped (a quote doubled, Ctrl-Z as it is); both
	// print NUL \0, newline \n, carriage return \r, a backslash doubled
	// (seen on the stack's MariaDB)
	blob := strings.HasSuffix(strings.ToLower(binlogBase(sqlType)), "blob")
	var text []byte
	for _, c := range stored {
		switch {
		case c == 0:
			text = append(text, '\\', '0')
		case c == '\'' && !blob:
			text = append(text, '\'', '\'')
		case c == '\'' || c == '\\':
			text = append(text, '\\', c)
		case c == '\n':
			text = append(text, '\\', 'n')
		case c == '\r':
			text = append(text, '\\', 'r')
		case c == 0x1a && blob:
			text = append(text, '\\', 'Z')
		case c < 0x80:
			// other control bytes and DEL are printed as they are
			// (default2_maria_unsigned_binary)
			text = append(text, c)
		default:
			// printed in the connection's character set, which the
			// JDBC driver then decodes: not modelled
			return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column: byte 0x%02x (modelled: bytes below 0x80; SHOW CREATE TABLE prints a higher one in the connection's character set)", ErrUnsupported, expr, sqlType, c)
		}
	}
	return EncodeBinary(s, text), nil
}

var binlogHexLiteral = regexp.MustCompile(`^(?:[xX]'([0-9a-fA-F]*)'|0x([0-9a-fA-F]+))$`)

// binlogBase is the base name of a MySQL / MariaDB column type.
func binlogBase(sqlType string) string {
	base, _ := parseSQLType(sqlType)
	return base
}
