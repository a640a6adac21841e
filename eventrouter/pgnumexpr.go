package eventrouter

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// PostgreSQL numeric DEFAULT expressions (#31).
//
// The connector does not read the DEFAULT as written: PostgreSQL stores the
// parsed expression and pgjdbc's getColumns gives pg_get_expr's text of
// it, on which PostgresDefaultValueConverter's numeric mapper runs: a
// function call is 0.0; else, without a quote, the whole text, and with
// one the text between the first pair of quotes, read by new BigDecimal
// (a text that is not a number gives no default). So what matters is the
// first constant pg_get_expr prints quoted:
//   - an integer constant prints bare, a negative one '-1'::integer;
//   - a bigint one always quoted, '3000000000'::bigint;
//   - a numeric one bare when it has a fraction (1.50), else quoted
//     ('100'::numeric for 1e2, '-1.5'::numeric);
//   - an operator in parentheses, (1 + 2), (- 1.5) (a minus before a cast
//     is not folded into the constant: -1.5::numeric);
//   - an explicit cast of another type's value (1)::numeric, a cast with a
//     typmod 1.5::numeric(10,1) (no quote: no default).
//
// pgNumericSQLDefault deparses a DEFAULT written in this small grammar
// (numbers, + - * /, unary minus and plus, parentheses, casts to numeric,
// integer, bigint, smallint, real and double precision, a quoted number
// under a cast) as pg_get_expr prints it; another expression is refused.

// pgExpr is a parsed DEFAULT expression (after PostgreSQL's parse
// analysis: literals folded into typed constants).
type pgExpr struct {
	kind   string // "const", "op", "unary", "cast"
	typ    string // const / cast: int4, int8, int2, numeric, float4, float8
	text   string // const: the output function's text (int4out, numeric_out)
	typmod string // cast: "(10,1)" for numeric(10,1), "" for none
	op     string
	args   []*pgExpr
	// literal: a number token (or a negated one), which a unary minus
	// folds into the constant (gram.y doNegate); tok is its text
	literal bool
	tok     string
}

var pgTypeNames = map[string]string{
	"numeric": "numeric", "decimal": "numeric",
	"integer": "int4", "int": "int4", "int4": "int4",
	"bigint": "int8", "int8": "int8",
	"smallint": "int2", "int2": "int2",
	"real": "float4", "float4": "float4",
	"double precision": "float8", "float8": "float8",
}

var pgFormatType = map[string]string{"numeric": "numeric", "int4": "integer", "int8": "bigint", "int2": "smallint", "float4": "real", "float8": "double precision"}

type pgExprParser struct {
	s   string
	pos int
}

var (
	pgNumTokRe  = regexp.MustCompile(`^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)`)
	pgStrTokRe  = regexp.MustCompile(`^'((?:[^']|'')*)'`)
	pgTypeTokRe = regexp.MustCompile(`(?i)^(double\s+precision|numeric|decimal|integer|int8|int4|int2|int|bigint|smallint|real|float4|float8)\b(?:\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?`)
)

func (p *pgExprParser) skip() {
	for p.pos < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.pos])) {
		p.pos++
	}
}

func (p *pgExprParser) peek(tok string) bool {
	p.skip()
	return strings.HasPrefix(strings.ToLower(p.s[p.pos:]), tok)
}

func (p *pgExprParser) eat(tok string) bool {
	if p.peek(tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

var errPgExpr = fmt.Errorf("%w: a numeric DEFAULT outside the modelled expressions", ErrUnsupported)

func (p *pgExprParser) expr() (*pgExpr, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	for {
		var op string
		switch {
		case p.eat("+"):
			op = "+"
		case p.peek("-") && !p.peek("--"):
			p.eat("-")
			op = "-"
		default:
			return l, nil
		}
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		l = &pgExpr{kind: "op", op: op, args: []*pgExpr{l, r}}
	}
}

func (p *pgExprParser) term() (*pgExpr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		var op string
		switch {
		case p.eat("*"):
			op = "*"
		case p.eat("/"):
			op = "/"
		default:
			return l, nil
		}
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &pgExpr{kind: "op", op: op, args: []*pgExpr{l, r}}
	}
}

func (p *pgExprParser) unary() (*pgExpr, error) {
	switch {
	case p.eat("-"):
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		if a.literal {
			return pgNegate(a), nil
		}
		return &pgExpr{kind: "unary", op: "-", args: []*pgExpr{a}}, nil
	case p.eat("+"):
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &pgExpr{kind: "unary", op: "+", args: []*pgExpr{a}}, nil
	}
	return p.postfix()
}

func (p *pgExprParser) postfix() (*pgExpr, error) {
	p.skip()
	var e *pgExpr
	var str *string
	switch {
	case p.eat("("):
		in, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.eat(")") {
			return nil, errPgExpr
		}
		e = in // parentheses leave the node as it is (a literal too)
	case pgStrTokRe.MatchString(p.s[p.pos:]):
		m := pgStrTokRe.FindStringSubmatch(p.s[p.pos:])
		p.pos += len(m[0])
		v := strings.ReplaceAll(m[1], "''", "'")
		str = &v
	case pgNumTokRe.MatchString(p.s[p.pos:]):
		tok := pgNumTokRe.FindString(p.s[p.pos:])
		p.pos += len(tok)
		c, err := pgNumberConst(tok)
		if err != nil {
			return nil, err
		}
		e = c
	default:
		return nil, errPgExpr
	}
	for p.eat("::") {
		p.skip()
		m := pgTypeTokRe.FindStringSubmatch(p.s[p.pos:])
		if m == nil {
			return nil, errPgExpr
		}
		p.pos += len(m[0])
		typ := pgTypeNames[strings.ToLower(strings.Join(strings.Fields(m[1]), " "))]
		typmod := ""
		if m[2] != "" {
			if typ != "numeric" {
				return nil, errPgExpr
			}
			sc := m[3]
			if sc == "" {
				sc = "0"
			}
			typmod = "(" + m[2] + "," + sc + ")"
		}
		var err error
		if str != nil {
			e, err = pgStringConst(*str, typ)
			if err != nil {
				return nil, err
			}
			str = nil
		}
		e = pgCast(e, typ, typmod)
	}
	if str != nil {
		// an untyped string in an expression: its type comes from the
		// operator (not modelled)
		return nil, errPgExpr
	}
	return e, nil
}

// pgNumberConst is the constant a number token becomes (make_const): an
// integer that fits int4, else int8, else numeric; a number with a
// fraction or an exponent numeric.
func pgNumberConst(tok string) (*pgExpr, error) {
	var e *pgExpr
	if !strings.ContainsAny(tok, ".eE") {
		c, err := pgIntegerConst(tok)
		if err != nil {
			return nil, err
		}
		e = c
	} else {
		d, err := parseDecimal(tok)
		if err != nil {
			return nil, errPgExpr
		}
		e = &pgExpr{kind: "const", typ: "numeric", text: pgNumericOut(d)}
	}
	e.literal, e.tok = true, tok
	return e, nil
}

func pgIntegerConst(tok string) (*pgExpr, error) {
	n, ok := new(big.Int).SetString(tok, 10)
	if !ok {
		return nil, errPgExpr
	}
	switch {
	case n.IsInt64() && n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32:
		return &pgExpr{kind: "const", typ: "int4", text: n.String()}, nil
	case n.IsInt64():
		return &pgExpr{kind: "const", typ: "int8", text: n.String()}, nil
	}
	return &pgExpr{kind: "const", typ: "numeric", text: n.String()}, nil
}

// pgNumericOut is numeric_out of a value: plain, with the value's display
// scale (never negative), no negative zero.
func pgNumericOut(d Decimal) string {
	if d.Scale < 0 {
		d = d.setScale(0)
	}
	if d.Unscaled.Sign() == 0 {
		d.Unscaled = new(big.Int)
	}
	return d.plain()
}

// pgNegate folds a minus into a number literal (doNegate: the token's
// text gets a minus, or loses one, and make_const reads it again).
func pgNegate(e *pgExpr) *pgExpr {
	t := e.tok
	if strings.HasPrefix(t, "-") {
		t = t[1:]
	} else {
		t = "-" + t
	}
	var c *pgExpr
	if !strings.ContainsAny(t, ".eE") {
		c, _ = pgIntegerConst(t)
	} else {
		d, _ := parseDecimal(t)
		c = &pgExpr{kind: "const", typ: "numeric", text: pgNumericOut(d)}
	}
	if c == nil {
		return e
	}
	c.literal, c.tok = true, t
	return c
}

// pgStringConst is a quoted constant cast to typ: the type's input
// function reads it (blanks around allowed).
func pgStringConst(v, typ string) (*pgExpr, error) {
	t := strings.TrimSpace(v)
	switch typ {
	case "int4", "int8", "int2":
		n, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, map[string]int{"int2": 16, "int4": 32, "int8": 64}[typ])
		if err != nil {
			return nil, errPgExpr
		}
		return &pgExpr{kind: "const", typ: typ, text: strconv.FormatInt(n, 10)}, nil
	case "numeric":
		if !binlogNumber.MatchString(t) {
			return nil, errPgExpr
		}
		d, err := parseDecimal(t)
		if err != nil {
			return nil, errPgExpr
		}
		return &pgExpr{kind: "const", typ: "numeric", text: pgNumericOut(d)}, nil
	}
	// float4 / float8: float8out's text is not modelled here
	return nil, errPgExpr
}

// pgCast is a cast of e to typ(typmod) after parse analysis: a constant
// of that type stays the constant (with a typmod: a length coercion over
// it); another value gets an explicit cast.
func pgCast(e *pgExpr, typ, typmod string) *pgExpr {
	if e.kind == "const" && e.typ == typ && typmod == "" {
		c := *e
		c.literal = false
		return &c
	}
	return &pgExpr{kind: "cast", typ: typ, typmod: typmod, args: []*pgExpr{e}}
}

// pgPrint is pg_get_expr's text of e (ruleutils.c, not pretty-printed);
// showtype -1 prints a constant's value without its ::type.
func pgPrint(e *pgExpr, showtype int) string {
	switch e.kind {
	case "const":
		var v string
		label := false
		switch e.typ {
		case "int4":
			v = e.text
			if strings.HasPrefix(v, "-") {
				v, label = "'"+v+"'", true
			}
		case "numeric":
			if e.text[0] >= '0' && e.text[0] <= '9' && strings.ContainsAny(e.text, ".eE") {
				v = e.text
			} else {
				v, label = "'"+e.text+"'", true
			}
		default:
			v, label = "'"+e.text+"'", true
		}
		if showtype < 0 || !label {
			return v
		}
		return v + "::" + pgFormatType[e.typ]
	case "op":
		return "(" + pgPrint(e.args[0], 0) + " " + e.op + " " + pgPrint(e.args[1], 0) + ")"
	case "unary":
		return "(" + e.op + " " + pgPrint(e.args[0], 0) + ")"
	case "cast":
		a := e.args[0]
		name := pgFormatType[e.typ] + e.typmod
		if a.kind == "const" && a.typ == e.typ {
			return pgPrint(a, -1) + "::" + name
		}
		return "(" + pgPrint(a, 0) + ")::" + name
	}
	return ""
}

// pgNumericSQLDefault is pg_get_expr's text of a numeric DEFAULT written
// in CREATE TABLE, for the expressions pgExprParser reads; ok is false
// for another expression.
func pgNumericSQLDefault(expr string) (string, bool) {
	p := &pgExprParser{s: expr}
	e, err := p.expr()
	if err != nil {
		return "", false
	}
	p.skip()
	if p.pos != len(p.s) {
		return "", false
	}
	return pgPrint(e, 0), true
}

// pgNumericMapperText is the text PostgresDefaultValueConverter's numeric
// mapper hands new BigDecimal for pg_get_expr's text printed ("" with ok
// false when there is no default: NULL::…), function calls given as 0.0.
func pgNumericMapperText(printed string) (string, bool) {
	v := strings.TrimSpace(printed)
	if pgFunctionDefault.MatchString(v) || pgCurrentDateTime[strings.ToLower(v)] {
		return "0.0", true
	}
	if !strings.Contains(v, "'") {
		if strings.HasPrefix(v, "NULL::") {
			return "", false
		}
		return v, true
	}
	return pgLiteralDefault.FindStringSubmatch(v)[1], true
}

// javaBigDecimalRe is what new BigDecimal(String) reads: a sign, digits
// with an optional point, an optional exponent (no blanks).
var javaBigDecimalRe = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
