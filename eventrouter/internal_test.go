package eventrouter

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestJavaRegexRoute(t *testing.T) {
	tests := []struct {
		re, rep, in, want, err string
	}{
		// Matcher semantics are pinned in internal/javaregex; these are
		// RegexRouter's: matches() decides, replaceFirst() rewrites.
		{`(?<routedByValue>.*)`, `outbox.event.${routedByValue}`, "Order", "outbox.event.Order", ""},
		{`a|ab`, `X`, "ab", "Xb", ""},         // matches() full, replaceFirst finds "a"
		{`[A-Z]+`, `x`, "Order", "Order", ""}, // no full match: unchanged
		{`[A-Z]+`, `$`, "Order", "Order", ""}, // the replacement is not read then
		{`.*`, `t`, "a\nb", "a\nb", ""},       // Java '.' stops at line terminators
		{`(?s).*`, `t`, "a\nb", "t", ""},      // DOTALL
		{`(a)`, `$2`, "a", "", "java.lang.IndexOutOfBoundsException: No group 2"},
		{`(a)`, `${n}`, "a", "", "java.lang.IllegalArgumentException: No group with name {n}"},
	}
	for _, tt := range tests {
		re, err := compileJavaRegex(tt.re)
		if err != nil {
			t.Fatalf("%s: %v", tt.re, err)
		}
		got, err := re.route(tt.in, tt.rep)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s / %s on %q: want error %q, got %q, %v", tt.re, tt.rep, tt.in, tt.err, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s / %s on %q: got %q, %v; want %q", tt.re, tt.rep, tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`(?=a)`, `(?<!a)b`, `(?>a)`, `a*+`, `(a)\1`, `(?<x>a)\k<x>`, `[a&&b]`, `(?x)a`, `\p{javaLowerCase}`} {
		if _, err := compileJavaRegex(bad); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported, got %v", bad, err)
		}
	}
	// Patterns java.util.regex.Pattern.compile rejects: the connector does
	// not start.
	for _, bad := range []string{`(`, `\k<x>`, `(?<routed_by>.*)`, `(?P<x>.*)`, `order{x}`, `\p{Greek}`} {
		if _, err := compileJavaRegex(bad); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: want ErrInvalidConfig, got %v", bad, err)
		}
	}
	// literal quoting and escaped quantifiers are fine
	for _, ok := range []string{`\Qa.b\E`, `a\++`, `[+*]+`, `x{2}`, `\u0041`, `\p{Alpha}`, `\e`} {
		if _, err := compileJavaRegex(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestPGNumeric(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "-1": "-1", "1.50": "1.50", "1e2": "100", "1E+2": "100", "1.5e-3": "0.0015",
		"-0": "0", "-0.0": "0.0", "100e-2": "1.00", "0.000": "0.000", "12345678901234567890": "12345678901234567890",
		"1.23e1": "12.3", "0e999999": "0", "0.00e1": "0.0", "-0e5": "0",
	} {
		if got, err := pgNumeric(in); err != nil || got != want {
			t.Errorf("pgNumeric(%s) = %s, %v, want %s", in, got, err, want)
		}
	}
	// Numeric's range, as PostgreSQL 15 answers for '<n>'::jsonb.
	if got, err := pgNumeric("1e131071"); err != nil || len(got) != 131072 {
		t.Errorf("1e131071: %d digits, %v; want 131072 digits", len(got), err)
	}
	if got, err := pgNumeric("1e-16383"); err != nil || len(got) != 16385 {
		t.Errorf("1e-16383: %d chars, %v; want 16385", len(got), err)
	}
	for _, in := range []string{"1e131072", "9.9e131072", "1e-16384", "1.5e-16383", "0.0e-20000", "1e99999999999", "1e4000000000"} {
		if got, err := pgNumeric(in); !errors.Is(err, errNumericOverflow) {
			t.Errorf("pgNumeric(%s) = %.20s…, %v; want %v", in, got, err, errNumericOverflow)
		}
	}
	if _, err := NormalizeJSONB(`{"a": [1e4000000000]}`); !errors.Is(err, errNumericOverflow) {
		t.Errorf("NormalizeJSONB with a huge exponent: %v, want %v", err, errNumericOverflow)
	}
}

func TestValuesConvertToString(t *testing.T) {
	s := &Schema{Type: StructT, Fields: []Field{{"a", optional(String)}, {"b", optional(Int32)}, {"c", &Schema{Type: Boolean, Optional: true, Default: true}}}}
	st := &Struct{Schema: s, Values: []any{`q"\`, int32(2), nil}}
	tests := []struct {
		v    any
		want string
	}{
		{"plain", "plain"}, {int64(-5), "-5"}, {1.5, "1.5"}, {true, "true"},
		{[]byte{0, 255}, "AP8="}, {[]any{"x", int32(1), nil}, `["x",1,null]`},
		{st, `{"a":"q\"\\","b":2,"c":true}`},
	}
	for _, tt := range tests {
		got, err := valuesConvertToString(tt.v, false)
		if err != nil || got != tt.want {
			t.Errorf("%#v: got %s, %v; want %s", tt.v, got, err, tt.want)
		}
	}
}

func TestJavaToString(t *testing.T) {
	s := &Schema{Type: StructT, Fields: []Field{{"payload", optional(String)}, {"n", optional(Int32)}, {"t", optional(String)}}}
	st := &Struct{Schema: s, Values: []any{"p", nil, "x"}}
	if got := javaToString(st); got != "Struct{payload=p,t=x}" {
		t.Errorf("struct: %s", got)
	}
	if got := javaToString([]any{"a", int32(1)}); got != "[a, 1]" {
		t.Errorf("list: %s", got)
	}
}

func TestAvroFieldName(t *testing.T) {
	for in, want := range map[string]string{"ok_1": "ok_1", "1a": "_1a", "a-b.c": "a_b_c", "é": "_"} {
		if got := avroFieldName(in, false); got != want {
			t.Errorf("avro(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"a_b": "a_u005fb", "a-b": "a_u002db", "é": "_u00e9", "Ā": "_u100"} {
		if got := avroFieldName(in, true); got != want {
			t.Errorf("avro_unicode(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestParseJackson(t *testing.T) {
	n, err := parseJackson(`{"i":2147483647,"l":2147483648,"b":9223372036854775808,"d":1.0,"e":1e2,"z":-0,"a":1,"a":2} tail`)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]jkind{"i": jInt, "l": jLong, "b": jBigInt, "d": jDouble, "e": jDouble, "z": jInt}
	for k, want := range kinds {
		if got := kindOf(n.Get(k)); got != want {
			t.Errorf("%s: kind %d, want %d", k, got, want)
		}
	}
	if len(n.Keys) != 7 || n.Keys[6] != "a" {
		t.Errorf("keys %v", n.Keys)
	}
	if v := nodeInt(n.Get("a")); v != 2 {
		t.Errorf("duplicate key keeps the last value: %d", v)
	}
	for text, want := range map[string]string{"z": "0", "b": "9223372036854775808", "e": "100.0", "d": "1.0"} {
		if got := asText(n.Get(text)); got != want {
			t.Errorf("asText(%s) = %s, want %s", text, got, want)
		}
	}
	for _, bad := range []string{`{"a":01}`, `{"a":1.}`, `{'a':1}`, `{"a":"x` + "\x01" + `"}`, `{"a":tru}`, `{"a":NaN}`, `[1,]`} {
		if _, err := parseJackson(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestJSONConverterNonFinite: Jackson's default generator writes NaN and the
// infinities of a DoubleNode/FloatNode as strings (WRITE_NAN_AS_STRINGS).
func TestJSONConverterNonFinite(t *testing.T) {
	cv := Converter{Kind: JSONConverter}
	for _, tc := range []struct {
		s    *Schema
		v    any
		want string
	}{
		{&Schema{Type: Float64}, math.NaN(), `"NaN"`},
		{&Schema{Type: Float64}, math.Inf(-1), `"-Infinity"`},
		{&Schema{Type: Float32}, float32(math.Inf(1)), `"Infinity"`},
		{&Schema{Type: Float64}, 1e7, `1.0E7`},
		{&Schema{Type: Float32}, float32(0.5), `0.5`},
	} {
		got, err := jsonConverterFromConnect(cv, tc.s, tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%v %v: %s, %v; want %s", tc.s.Type, tc.v, got, err, tc.want)
		}
	}
}
