package eventrouter

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// NormalizeJSONB renders JSON text the way PostgreSQL outputs a jsonb value
// (and so the way Debezium delivers a jsonb column): keys deduplicated (last
// wins) and sorted by length then bytes, ", " and ": " separators, numbers
// as PostgreSQL numerics (1e2 → 100, 1.50 stays 1.50), strings re-escaped.
func NormalizeJSONB(text string) (string, error) {
	n, rest, err := parsePGJSON(text)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("invalid input syntax for type json: trailing content %q", rest)
	}
	var b strings.Builder
	if err := writePGJSON(&b, n, ", ", ": ", sortPG); err != nil {
		return "", err
	}
	return b.String(), nil
}

// NormalizeMySQLJSON renders JSON text the way Debezium's binlog reader
// renders a MySQL JSON column: compact, keys sorted by length then bytes.
// Not verified against a real MySQL server by this package's tests.
func NormalizeMySQLJSON(text string) (string, error) {
	n, rest, err := parsePGJSON(text)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(rest) != "" {
		return "", fmt.Errorf("invalid JSON text: trailing content %q", rest)
	}
	var b strings.Builder
	if err := writePGJSON(&b, n, ",", ":", sortPG); err != nil {
		return "", err
	}
	return b.String(), nil
}

// parsePGJSON parses JSON text for the jsonb/MySQL normalizers. Numbers
// keep their source text; the nesting is not bounded by Jackson's 1000
// (PostgreSQL's own bound is its stack depth).
func parsePGJSON(text string) (*jnode, string, error) {
	n, end, err := parseJSON(text, javatext.ParseOptions{MaxDepth: -1})
	if err != nil {
		return nil, "", err
	}
	return n, text[end:], nil
}

type keySorter int

const sortPG keySorter = 1

func writePGJSON(b *strings.Builder, n *jnode, comma, colon string, sorter keySorter) error {
	switch n.Kind {
	case javatext.Null:
		b.WriteString("null")
	case javatext.Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case javatext.Number:
		num, err := pgNumeric(n.Text)
		if err != nil {
			return err
		}
		b.WriteString(num)
	case javatext.String:
		writePGString(b, n.Text)
	case javatext.Array:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteString(comma)
			}
			if err := writePGJSON(b, e, comma, colon, sorter); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case javatext.Object:
		// The parser already kept one value per key, the last, as
		// PostgreSQL does.
		order := make([]int, len(n.Keys))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool {
			ki, kj := n.Keys[order[i]], n.Keys[order[j]]
			if len(ki) != len(kj) {
				return len(ki) < len(kj)
			}
			return ki < kj
		})
		b.WriteByte('{')
		for i, k := range order {
			if i > 0 {
				b.WriteString(comma)
			}
			writePGString(b, n.Keys[k])
			b.WriteString(colon)
			if err := writePGJSON(b, n.Vals[k], comma, colon, sorter); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

// writePGString is PostgreSQL's escape_json. It is deliberately not
// javatext's Jackson escaper: PostgreSQL writes the other control
// characters as \u00xx with lower-case hex, and this output stands for what
// PostgreSQL (and so Debezium) delivers for a jsonb column.
func writePGString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// PostgreSQL numeric limits (src/include/utils/numeric.h): at most 131072
// digits before the decimal point and a display scale of at most 16383.
const (
	pgNumericMaxIntDigits = 131072
	pgNumericMaxDScale    = 16383
)

// errNumericOverflow is PostgreSQL's error for a jsonb number outside the
// numeric range (checked on PostgreSQL 15: '1e131072' and '1e-16384' fail,
// '1e131071', '1e-16383' and '0e999999' do not).
var errNumericOverflow = errors.New("value overflows numeric format")

// pgNumeric renders a JSON number as PostgreSQL's numeric_out of
// numeric_in(text): exponent applied, display scale = max(0, fraction
// digits - exponent), no negative zero. A number outside numeric's range is
// the error PostgreSQL raises, never a huge allocation.
func pgNumeric(text string) (string, error) {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	mant, expS, _ := strings.Cut(strings.ToLower(text), "e")
	exp := 0
	if expS != "" {
		var err error
		if exp, err = strconv.Atoi(expS); err != nil || exp > 1<<30 || exp < -(1<<30) {
			return "", fmt.Errorf("%s: %w", text, errNumericOverflow)
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	scale := len(frac) - exp // value = digits * 10^-scale
	dscale := scale
	if dscale < 0 {
		dscale = 0
	}
	if dscale > pgNumericMaxDScale {
		return "", fmt.Errorf("%s: %w", text, errNumericOverflow)
	}
	sig := strings.TrimLeft(digits, "0")
	if sig == "" { // zero: any exponent, only the display scale remains
		if dscale > 0 {
			return "0." + strings.Repeat("0", dscale), nil
		}
		return "0", nil
	}
	if len(sig)-scale > pgNumericMaxIntDigits {
		return "", fmt.Errorf("%s: %w", text, errNumericOverflow)
	}
	if scale < 0 {
		digits += strings.Repeat("0", -scale)
		scale = 0
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	ip := strings.TrimLeft(digits[:len(digits)-scale], "0")
	if ip == "" {
		ip = "0"
	}
	fp := digits[len(digits)-scale:]
	out := ip
	if dscale > 0 {
		out += "." + fp
	}
	if neg {
		out = "-" + out
	}
	return out, nil
}
