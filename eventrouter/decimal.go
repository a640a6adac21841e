package eventrouter

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// NameDecimal is Kafka Connect's Decimal logical type: BYTES holding the
// unscaled value (two's complement, big-endian), the scale in the schema
// parameter "scale".
const NameDecimal = "org.apache.kafka.connect.data.Decimal"

// Decimal is a java.math.BigDecimal: Unscaled × 10^-Scale. It is the value
// of a Decimal column (decimal.handling.mode=precise); String is Java's
// BigDecimal.toString (scientific notation when the adjusted exponent is
// below -6), what StringConverter and SimpleHeaderConverter write for a
// Decimal; decimal.handling.mode=string delivers the plain form.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// parts splits d into its sign ("" or "-"), the digits of the unscaled
// value's magnitude and the scale.
func (d Decimal) parts() (sign, digits string, scale int) {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	if u.Sign() < 0 {
		sign = "-"
	}
	return sign, new(big.Int).Abs(u).String(), int(d.Scale)
}

// String is BigDecimal.toString: the plain form while the exponent it would
// need is small, else scientific notation.
func (d Decimal) String() string {
	sign, digits, scale := d.parts()
	adjusted := -scale + len(digits) - 1
	if scale >= 0 && adjusted >= -6 {
		return d.plain()
	}
	out := sign + digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	out += "E"
	if adjusted > 0 {
		out += "+"
	}
	return out + strconv.Itoa(adjusted)
}

// bytes is BigInteger.toByteArray of the unscaled value: the minimal
// two's complement, big-endian (what Connect's Decimal.fromLogical and
// JsonConverter's base64 decimal.format write).
func (d Decimal) bytes() []byte {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	if u.Sign() >= 0 {
		b := u.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 is non-negative; its bytes inverted are n's two's complement
	m := new(big.Int).Neg(u)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// float64 is BigDecimal.doubleValue (correctly rounded).
func (d Decimal) float64() float64 {
	f, _ := strconv.ParseFloat(d.plain(), 64)
	return f
}

// plain is BigDecimal.toPlainString.
func (d Decimal) plain() string {
	sign, digits, scale := d.parts()
	switch {
	case scale <= 0:
		return sign + digits + strings.Repeat("0", -scale)
	case len(digits) > scale:
		return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	return sign + "0." + strings.Repeat("0", scale-len(digits)) + digits
}

var decimalTextRe = regexp.MustCompile(`^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$`)

// parseDecimal reads a decimal number (digits, optional fraction and
// exponent) exactly; the scale is the number of fraction digits minus the
// exponent (new BigDecimal(text)).
func parseDecimal(text string) (Decimal, error) {
	t := strings.TrimSpace(text)
	m := decimalTextRe.FindStringSubmatch(t)
	if m == nil || m[2]+m[3] == "" {
		return Decimal{}, fmt.Errorf("%w: decimal %q: want a number such as -12.50 (PostgreSQL: or NaN, Infinity, -Infinity)", ErrInvalidEvent, text)
	}
	u, ok := new(big.Int).SetString(m[2]+m[3], 10)
	if !ok {
		return Decimal{}, fmt.Errorf("%w: decimal %q", ErrInvalidEvent, text)
	}
	if m[1] == "-" {
		u.Neg(u)
	}
	scale := int64(len(m[3]))
	if m[4] != "" {
		e, err := strconv.ParseInt(m[4], 10, 32)
		if err != nil {
			return Decimal{}, fmt.Errorf("%w: decimal %q: exponent out of range", ErrInvalidEvent, text)
		}
		scale -= e
	}
	if scale < -1<<20 || scale > 1<<20 {
		return Decimal{}, fmt.Errorf("%w: decimal %q: out of range", ErrInvalidEvent, text)
	}
	return Decimal{Unscaled: u, Scale: int32(scale)}, nil
}

// setScale is BigDecimal.setScale(scale, RoundingMode.HALF_UP): the
// rounding PostgreSQL's numeric and MySQL's / MariaDB's DECIMAL apply to
// a value with more fraction digits than the column's scale (half away
// from zero).
func (d Decimal) setScale(scale int32) Decimal {
	u := new(big.Int).Set(d.Unscaled)
	switch {
	case scale == d.Scale:
	case scale > d.Scale:
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-d.Scale)), nil))
	default:
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-scale)), nil)
		neg := u.Sign() < 0
		u.Abs(u)
		q, r := new(big.Int).QuoRem(u, div, new(big.Int))
		if r.Mul(r, big.NewInt(2)).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		if neg {
			q.Neg(q)
		}
		u = q
	}
	return Decimal{Unscaled: u, Scale: scale}
}

// decimalBases are the SQL spellings of the fixed-point types.
var decimalBases = map[string]bool{"numeric": true, "decimal": true, "dec": true, "fixed": true}

var decimalTypeRe = regexp.MustCompile(`^\s*([a-z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?(?:\s+unsigned)?(?:\s+zerofill)?\s*$`)

// IsDecimalType reports a fixed-point SQL type (PostgreSQL numeric,
// decimal; MySQL / MariaDB decimal, numeric, dec, fixed), whose value
// decimal.handling.mode decides.
func IsDecimalType(sqlType string) bool {
	m := decimalTypeRe.FindStringSubmatch(strings.ToLower(sqlType))
	return m != nil && decimalBases[m[1]]
}

// decimalType returns the precision and scale of a fixed-point type (-1
// when not declared: PostgreSQL's unconstrained numeric; MySQL / MariaDB
// default to (10,0)); ok is false for another type.
func decimalType(kind ConnectorKind, sqlType string) (prec, scale int, ok bool) {
	m := decimalTypeRe.FindStringSubmatch(strings.ToLower(sqlType))
	if m == nil || !decimalBases[m[1]] {
		return 0, 0, false
	}
	prec, scale = -1, -1
	if m[2] != "" {
		prec, _ = strconv.Atoi(m[2])
		scale = 0
		if m[3] != "" {
			scale, _ = strconv.Atoi(m[3])
		}
	}
	if prec < 0 && kind != Postgres && kind != "" {
		prec, scale = 10, 0
	}
	return prec, scale, true
}

// decimalSchema is the Connect schema of a fixed-point column under
// decimal.handling.mode (SpecialValueDecimal.builder): precise is a
// Decimal with parameters scale and connect.decimal.precision, string a
// string, double a float64.
func decimalSchema(mode string, prec, scale int) (Type, string, []Param) {
	switch mode {
	case "string":
		return String, "", nil
	case "double":
		return Float64, "", nil
	}
	return Bytes, NameDecimal, []Param{{"scale", strconv.Itoa(scale)}, {"connect.decimal.precision", strconv.Itoa(prec)}}
}

// decimalValue is the value a fixed-point column delivers for a sample
// value (a JSON number or a string holding one): stored as the database
// stores it (rounded half away from zero to the column's scale; an
// unconstrained PostgreSQL numeric keeps the input's scale, exponent
// applied, as numeric_in does), then as decimal.handling.mode (the
// schema) delivers it: a Decimal, its BigDecimal.toPlainString, or its
// double.
func decimalValue(kind ConnectorKind, sqlType string, s *Schema, text string) (any, error) {
	prec, scale, _ := decimalType(kind, sqlType)
	if v, ok, err := specialDecimalValue(kind, sqlType, s, text); ok {
		return v, err
	}
	d, err := parseDecimal(text)
	if err != nil {
		return nil, err
	}
	switch {
	case scale >= 0:
		d = d.setScale(int32(scale))
	case d.Scale < 0:
		d = d.setScale(0)
	}
	if prec > 0 {
		if n := len(new(big.Int).Abs(d.Unscaled).String()); d.Unscaled.Sign() != 0 && n > prec {
			return nil, fmt.Errorf("%w: %s value %s: numeric field overflow (precision %d, scale %d)", ErrInvalidEvent, sqlType, text, prec, scale)
		}
	}
	return d.inMode(s), nil
}

// inMode is d as decimal.handling.mode delivers it in a field of schema s:
// string mode as BigDecimal.toPlainString (the differential test found the
// connectors' string mode plain, "0.0000000100", never "1.00E-8"), double
// mode as a float64, precise mode as the Decimal itself.
func (d Decimal) inMode(s *Schema) any {
	if s.Name == NameVariableScaleDecimal {
		return variableScaleDecimal(s, d)
	}
	switch s.Type {
	case String:
		return d.plain()
	case Float64:
		return d.float64()
	}
	return d
}

// Special numeric values: PostgreSQL's numeric NaN, Infinity and -Infinity.
// Debezium (SpecialValueDecimal) delivers them under
// decimal.handling.mode=string as the enum's name (NAN,
// POSITIVE_INFINITY, NEGATIVE_INFINITY) and under double as the double;
// under precise its converter throws (a *ConvertError).
var specialDecimals = map[string]string{
	"nan": "NAN", "infinity": "POSITIVE_INFINITY", "+infinity": "POSITIVE_INFINITY", "inf": "POSITIVE_INFINITY", "+inf": "POSITIVE_INFINITY",
	"-infinity": "NEGATIVE_INFINITY", "-inf": "NEGATIVE_INFINITY",
}

// ConvertError is a value the connector's value converter throws on: a
// PostgreSQL numeric NaN or Infinity under decimal.handling.mode=precise
// (SpecialValueDecimal.fromLogical's ConnectException). What the connector
// then delivers depends on event.converting.failure.handling.mode
// (ColumnSettings.ConvertFailure). It unwraps to ErrInvalidEvent.
type ConvertError struct {
	Type    string // the column's SQL type
	Value   string // the value as given
	Message string // the converter's exception message
}

func (e *ConvertError) Error() string {
	return fmt.Sprintf("%s value %s: the connector's converter throws: %s", e.Type, e.Value, e.Message)
}

// Unwrap returns ErrInvalidEvent.
func (e *ConvertError) Unwrap() error { return ErrInvalidEvent }

// specialDecimalValue is a numeric NaN / Infinity as the connector
// delivers it for schema s (see specialDecimals); ok is false for another
// value.
func specialDecimalValue(kind ConnectorKind, sqlType string, s *Schema, text string) (v any, ok bool, err error) {
	name, ok := specialDecimals[strings.ToLower(strings.TrimSpace(text))]
	if !ok {
		return nil, false, nil
	}
	if kind != Postgres && kind != "" {
		return nil, true, fmt.Errorf("%w: %s value %q: MySQL / MariaDB decimals have no NaN or Infinity", ErrInvalidEvent, sqlType, text)
	}
	if prec, _, _ := decimalType(kind, sqlType); prec > 0 && name != "NAN" {
		// numeric(p,s) cannot hold an infinite value (PostgreSQL 14+)
		return nil, true, fmt.Errorf("%w: %s value %s: numeric field overflow (a field with precision %d cannot hold an infinite value)", ErrInvalidEvent, sqlType, text, prec)
	}
	switch s.Type {
	case String:
		return name, true, nil
	case Float64:
		return map[string]float64{"NAN": math.NaN(), "POSITIVE_INFINITY": math.Inf(1), "NEGATIVE_INFINITY": math.Inf(-1)}[name], true, nil
	}
	return nil, true, &ConvertError{Type: sqlType, Value: text, Message: "Got a special value (NaN/Infinity) for Decimal type but current mode does not handle it. If you need to support it then set decimal handling mode to 'string'."}
}

// MoneyFractionDigits is money.fraction.digits' default (and the fraction
// digits of PostgreSQL's money under the usual lc_monetary).
const MoneyFractionDigits = 2

// moneyFractionDigits is the money.fraction.digits value v ("" is the
// default); ok is false for a value that is not a non-negative integer
// (ColumnSettings.Check refuses it).
func moneyFractionDigits(v string) (int, bool) {
	if v == "" {
		return MoneyFractionDigits, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 32767 {
		return MoneyFractionDigits, false
	}
	return n, true
}

// isMoney reports a PostgreSQL money column.
func isMoney(kind ConnectorKind, sqlType string) bool {
	base, _ := parseSQLType(sqlType)
	return (kind == Postgres || kind == "") && base == "money"
}

// moneySchema is PostgresValueConverter.moneySchema: under
// decimal.handling.mode precise a Decimal with scale digits
// (money.fraction.digits; no precision parameter), string a string,
// double a float64.
func moneySchema(mode string, digits int) (Type, string, []Param) {
	switch mode {
	case "string":
		return String, "", nil
	case "double":
		return Float64, "", nil
	}
	return Bytes, NameDecimal, []Param{{"scale", strconv.Itoa(digits)}}
}

var moneyTextRe = regexp.MustCompile(`^\s*([+-])?\s*\$?\s*([\d,]*)(?:\.(\d*))?\s*$`)

// moneyValue is a PostgreSQL money value as PostgresValueConverter
// delivers it: the input ("-$1,234.567", "1234.5" or a JSON number) is
// stored as PostgreSQL's cash_in does, rounded half away from zero to 2
// fraction digits (the range is a signed 64-bit count of cents); pgoutput
// sends it as "$1,234.57", PostgresMoney.parse reads it back, and the
// schema's mode delivers it: a Decimal with scale 2, its toPlainString, or
// its double.
func moneyValue(sqlType string, s *Schema, text string) (any, error) {
	m := moneyTextRe.FindStringSubmatch(text)
	if m == nil || strings.ReplaceAll(m[2], ",", "")+m[3] == "" {
		return nil, fmt.Errorf("%w: money %q: want a number such as -$1,234.56 or 1234.56", ErrInvalidEvent, text)
	}
	d, err := parseDecimal(m[1] + strings.ReplaceAll(m[2], ",", "") + "." + m[3] + "0")
	if err != nil {
		return nil, err
	}
	d = d.setScale(MoneyFractionDigits)
	if !d.Unscaled.IsInt64() {
		return nil, fmt.Errorf("%w: %s value %q is out of range for type money", ErrInvalidEvent, sqlType, text)
	}
	if s.Name == NameDecimal {
		// convertMoney under precise: setScale(money.fraction.digits,
		// HALF_UP) of the value PostgresMoney.parse read (scale 2);
		// string and double take the parsed value as it is
		for _, p := range s.Parameters {
			if p.Key == "scale" {
				n, _ := strconv.Atoi(p.Value)
				d = d.setScale(int32(n))
			}
		}
	}
	return d.inMode(s), nil
}
