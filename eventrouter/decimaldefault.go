package eventrouter

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	// pgNumericLiteralDefault is a quoted numeric constant as a DEFAULT
	// may be written ('1.5', ' 7 ', '1.5'::numeric) or pg_get_expr prints it
	// ('-1'::integer, '100'::numeric): numeric_in reads
	// the text between the quotes.
	pgNumericLiteralDefault = regexp.MustCompile(`(?i)^'([^']*)'(?:\s*::\s*(?:numeric|decimal|integer|bigint|smallint))?$`)
	pgNumericSpecial        = regexp.MustCompile(`(?i)^\s*[+-]?(nan|inf|infinity)\s*$`)
)

// decimalDefault is the schema default of a fixed-point column (PostgreSQL
// numeric / decimal, MySQL / MariaDB decimal) declared with DEFAULT expr,
// as the connectors derive it (seen on the stack: the
// default_numeric_* variants).
//
// PostgreSQL (PostgresDefaultValueConverter's numeric mapper): the text
// pg_get_expr prints (the constant without the column's typmod coercion:
// DEFAULT 1.555 on numeric(10,2) is 1.555, '-1' an integer '-1'::integer)
// is read with new BigDecimal; a function call is the placeholder 0.0;
// NaN or Infinity do not parse: no default. The value converter then sets
// the column's scale without rounding (withScaleAdjustedIfNeeded): a
// constant with more fraction digits than the column keeps throws, so
// there is no default. On an unconstrained numeric the default keeps the
// constant's scale under decimal.handling.mode string / double; under
// precise the VariableScaleDecimal Struct is dropped (KAFKA-12694): no
// default.
//
// MySQL / MariaDB (BinlogDefaultValueConverter.convertToDecimal): the
// literal (quotes stripped; TRUE / FALSE as 1 / 0) set to the column's
// scale rounding half up, as the database stores it.
//
// Then as decimal.handling.mode delivers it: a Decimal, its
// toPlainString, or its double. Another expression is refused.
func decimalDefault(kind ConnectorKind, sqlType string, s *Schema, expr string, catalog bool) (any, error) {
	_, scale, _ := decimalType(kind, sqlType)
	if kind != Postgres && kind != "" {
		v := expr
		switch {
		case strings.EqualFold(v, "null"):
			return nil, nil
		case len(v) >= 2 && (v[0] == '\'' && v[len(v)-1] == '\'' || v[0] == '"' && v[len(v)-1] == '"'):
			v = strings.TrimSpace(v[1 : len(v)-1])
		case strings.EqualFold(v, "true"):
			v = "1"
		case strings.EqualFold(v, "false"):
			v = "0"
		}
		if !binlogNumber.MatchString(v) {
			if v == expr {
				return nil, nil // a computed default (rand()) gives none
			}
			return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: a number literal)", ErrUnsupported, expr, sqlType)
		}
		d, err := parseDecimal(v)
		if err != nil {
			return nil, err
		}
		if scale >= 0 {
			d = d.setScale(int32(scale))
		}
		return d.inMode(s), nil
	}
	var v string
	switch {
	case pgNullDefault.MatchString(expr):
		return nil, nil
	case catalog:
		// pg_get_expr's text: the mapper reads it as it is
		t, ok := pgNumericMapperText(expr)
		if !ok || !javaBigDecimalRe.MatchString(t) {
			return nil, nil // NULL::…, or new BigDecimal throws
		}
		v = t
	case pgFunctionDefault.MatchString(expr) || pgCurrentDateTime[strings.ToLower(expr)]:
		v = "0.0"
	case binlogNumber.MatchString(expr) && !strings.HasPrefix(expr, "+"):
		v = expr
	case pgNumericLiteralDefault.MatchString(expr):
		v = strings.TrimSpace(pgNumericLiteralDefault.FindStringSubmatch(expr)[1])
		if pgNumericSpecial.MatchString(v) {
			return nil, nil // 'NaN'::numeric: new BigDecimal throws
		}
		if !binlogNumber.MatchString(v) {
			return nil, fmt.Errorf("%w: DEFAULT %s of a %s column: not a number", ErrInvalidEvent, expr, sqlType)
		}
	default:
		// another expression: as pg_get_expr prints it (pgnumexpr.go)
		printed, ok := pgNumericSQLDefault(expr)
		if !ok {
			return nil, fmt.Errorf("%w: the DEFAULT %s of a %s column (modelled: numbers, + - * /, parentheses, casts to numeric and integer types, a function call)", ErrUnsupported, expr, sqlType)
		}
		t, ok := pgNumericMapperText(printed)
		if !ok || !javaBigDecimalRe.MatchString(t) {
			return nil, nil
		}
		v = t
	}
	d, err := parseDecimal(v)
	if err != nil {
		return nil, err
	}
	if d.Scale < 0 {
		// numeric_in keeps no negative display scale: 1e2 prints 100
		d = d.setScale(0)
	}
	if scale < 0 {
		if s.Name == NameVariableScaleDecimal {
			return nil, nil
		}
		return d.inMode(s), nil
	}
	if d.Scale > int32(scale) {
		if r := d.setScale(int32(scale)); r.setScale(d.Scale).Unscaled.Cmp(d.Unscaled) != 0 {
			return nil, nil // setScale without rounding throws
		}
	}
	return d.setScale(int32(scale)).inMode(s), nil
}
