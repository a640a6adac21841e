package eventrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"testing"
)

// PostgreSQL one-dimensional arrays: the list the connector delivers,
// from a JSON array or PostgreSQL's array text (what the relay reads); the
// differential test's pg_arrays variant checks them against the connector.
func TestPgArrayColumnValue(t *testing.T) {
	for _, tc := range []struct {
		sqlType, in string
		want        string // fmt %#v of the list
		items       string // element type/name
	}{
		{"int4[]", `[1,2,null]`, `[]interface {}{1, 2, interface {}(nil)}`, "int32/"},
		{"integer[]", `"{ 1 , -2 ,NULL}"`, `[]interface {}{1, -2, interface {}(nil)}`, "int32/"},
		{"_int8", `"{9223372036854775807}"`, `[]interface {}{9223372036854775807}`, "int64/"},
		{"smallint[]", `[]`, `[]interface {}{}`, "int16/"},
		{"bool[]", `"{t,f,NULL}"`, `[]interface {}{true, false, interface {}(nil)}`, "boolean/"},
		{"boolean[]", `[true,false]`, `[]interface {}{true, false}`, "boolean/"},
		{"text[]", `"{ a b ,\"c,\\\"d\",\"NULL\",NULL}"`, `[]interface {}{"a b", "c,\"d", "NULL", interface {}(nil)}`, "string/"},
		{"character varying(10)[]", `["x",null]`, `[]interface {}{"x", interface {}(nil)}`, "string/"},
		{"text ARRAY", `"{}"`, `[]interface {}{}`, "string/"},
		{"float4[]", `"{1.1,-0,NULL}"`, `[]interface {}{1.1, -0, interface {}(nil)}`, "float/"},
		{"double precision[]", `"{0.1,1e-300}"`, `[]interface {}{0.1, 1e-300}`, "double/"},
		{"date[]", `"{2024-02-29,1969-12-31,NULL}"`, `[]interface {}{19782, -1, interface {}(nil)}`, "int32/" + NameDate},
		{"uuid[]", `"{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}"`, `[]interface {}{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}`, "string/" + NameUUID},
	} {
		s, err := ColumnSchema(Postgres, tc.sqlType, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.sqlType, err)
		}
		if s.Type != Array || !s.Optional || s.Items == nil || !s.Items.Optional {
			t.Fatalf("%s: schema %+v, want an optional array of optional elements", tc.sqlType, s)
		}
		if got := string(s.Items.Type) + "/" + s.Items.Name; got != tc.items {
			t.Errorf("%s: items %s, want %s", tc.sqlType, got, tc.items)
		}
		v, err := ColumnValue(Postgres, tc.sqlType, s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s %s: %v", tc.sqlType, tc.in, err)
			continue
		}
		if got := fmt.Sprintf("%#v", v); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.sqlType, tc.in, got, tc.want)
		}
		for _, e := range v.([]any) {
			if e != nil && schemaTypeOf(e) != s.Items.Type {
				t.Errorf("%s %s: element %#v is a %s, want %s", tc.sqlType, tc.in, e, schemaTypeOf(e), s.Items.Type)
			}
		}
	}
}

// Element types not modelled are refused by type (*ColumnTypeError): the
// arrays the connector drops (name, interval, money, varbit, xml: they
// have no schema, ColumnDropped), types without a converter; values PostgreSQL refuses
// by value (ErrInvalidEvent).
func TestPgArrayRefused(t *testing.T) {
	for _, typ := range []string{"name[]", "interval[]", "money[]", "varbit(5)[]", "bit varying(3)[]", "xml[]", "point[]", "_money", "tsquery[]"} {
		var cte *ColumnTypeError
		if _, err := ColumnSchema(Postgres, typ, true); !errors.As(err, &cte) {
			t.Errorf("%s: %v, want a *ColumnTypeError", typ, err)
		}
	}
	for _, tc := range []struct{ typ, in string }{
		{"int4[]", `"{1,,2}"`}, {"int4[]", `"{a}"`}, {"int4[]", `{"a":1}`}, {"int4[]", `"{{}}"`},
		{"int4[]", `"{1,{2}}"`}, {"int4[]", `"[1:2]x{1,2}"`}, {"int4[]", `"{1,2} x"`},
		{"text[]", `"{{}}"`}, {"cidr[]", `"{{}}"`}, {"numeric(10,2)[]", `"{{},{}}"`},
	} {
		s, err := ColumnSchema(Postgres, tc.typ, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if v, err := ColumnValue(Postgres, tc.typ, s, json.RawMessage(tc.in)); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %s: %v, %v; want ErrInvalidEvent", tc.typ, tc.in, v, err)
		}
	}
}

// numeric(p,s)[]: the elements under decimal.handling.mode, scaled to the
// column's scale as the element column (the array column's precision and
// scale) stores them; NaN under precise fails the column's converter; an
// unconstrained numeric[] is modelled under string and double only.
func TestPgNumericArray(t *testing.T) {
	dec := func(u int64, scale int32) Decimal { return Decimal{Unscaled: big.NewInt(u), Scale: scale} }
	for _, tc := range []struct {
		sqlType, mode, in string
		items             string // element type/name/params
		want              []any
	}{
		{"numeric(10,2)[]", "", `"{1.5,-0.005,NULL,1e2}"`, "bytes/" + NameDecimal + "/[{scale 2} {connect.decimal.precision 10}]", []any{dec(150, 2), dec(-1, 2), nil, dec(10000, 2)}},
		{"numeric(10, 2)[]", "precise", `[1.5,"2"]`, "bytes/" + NameDecimal + "/[{scale 2} {connect.decimal.precision 10}]", []any{dec(150, 2), dec(200, 2)}},
		{"decimal(5)[]", "string", `"{1.5,-2.5}"`, "string//[]", []any{"2", "-3"}},
		{"numeric(10,2)[]", "string", `"{0.1,1e-2,NULL}"`, "string//[]", []any{"0.10", "0.01", nil}},
		{"numeric(10,2)[]", "double", `"{0.125,NULL}"`, "double//[]", []any{0.13, nil}},
		{"numeric[]", "string", `"{1.50,1e2,-0.000}"`, "string//[]", []any{"1.50", "100", "0.000"}},
		{"_numeric", "double", `"{1.5}"`, "double//[]", []any{1.5}},
	} {
		cs := ColumnSettings{DecimalHandlingMode: tc.mode}
		s, err := ColumnSchemaWith(Postgres, tc.sqlType, true, cs)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.sqlType, tc.mode, err)
		}
		if err := cs.Check(Postgres, "c", tc.sqlType, s); err != nil {
			t.Errorf("%s %s: Check: %v", tc.sqlType, tc.mode, err)
		}
		if got := fmt.Sprintf("%s/%s/%v", s.Items.Type, s.Items.Name, s.Items.Parameters); s.Type != Array || !s.Items.Optional || got != tc.items {
			t.Errorf("%s %s: items %s (optional %v), want %s", tc.sqlType, tc.mode, got, s.Items.Optional, tc.items)
		}
		v, err := ColumnValue(Postgres, tc.sqlType, s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s %s %s: %v", tc.sqlType, tc.mode, tc.in, err)
			continue
		}
		if got, want := fmt.Sprintf("%v", v), fmt.Sprintf("%v", tc.want); got != want {
			t.Errorf("%s %s %s: %s, want %s", tc.sqlType, tc.mode, tc.in, got, want)
		}
	}
	// a NaN or Infinity element under any mode: the column's converter
	// throws (a nullable column is NULL under the default warn)
	for _, tc := range []struct{ sqlType, mode, in string }{
		{"numeric(10,2)[]", "precise", `"{1,NaN}"`},
		{"numeric(10,2)[]", "string", `"{NaN,1}"`},
		{"numeric[]", "double", `["1","-Infinity"]`},
	} {
		cs := ColumnSettings{DecimalHandlingMode: tc.mode}
		s, _ := ColumnSchemaWith(Postgres, tc.sqlType, true, cs)
		_, err := ColumnValue(Postgres, tc.sqlType, s, json.RawMessage(tc.in))
		var ce *ConvertError
		if !errors.As(err, &ce) || ce.Type != tc.sqlType {
			t.Errorf("%s %s %s: %v, want a *ConvertError for the column", tc.sqlType, tc.mode, tc.in, err)
			continue
		}
		if v, err := cs.ConvertFailure("public.t", "c", tc.sqlType, s, err); v != nil || err != nil {
			t.Errorf("%s %s: ConvertFailure: %v, %v; want NULL", tc.sqlType, tc.mode, v, err)
		}
	}
	s, _ := ColumnSchema(Postgres, "numeric(10,2)[]", true)
	// overflow of the element's precision, as PostgreSQL refuses it
	if _, err := ColumnValue(Postgres, "numeric(3,1)[]", s, json.RawMessage(`[100]`)); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("numeric(3,1)[] 100: %v, want ErrInvalidEvent", err)
	}
	if vs, err := ColumnSchema(Postgres, "numeric[]", true); err != nil || vs.Items.Name != NameVariableScaleDecimal || !vs.Items.Optional {
		t.Errorf("numeric[] under precise: %+v, %v, want optional VariableScaleDecimal elements", vs, err)
	}
}

// TestPgArrayIdentityNested: a multi-dimensional value of a text-like
// array is one Object.toString of the Java sub-array per top-level
// sub-array: "[" per remaining dimension, the element class (seen on the
// stack, volatile_pg_array_nested) and the placeholder identity hash.
func TestPgArrayIdentityNested(t *testing.T) {
	for _, tc := range []struct{ typ, in, want string }{
		{"text[]", `"{{a,b},{c,d}}"`, `["[Ljava.lang.String;@00000000","[Ljava.lang.String;@00000000"]`},
		{"text[]", `"{{{a}},{{b}}}"`, `["[[Ljava.lang.String;@00000000","[[Ljava.lang.String;@00000000"]`},
		{"varchar(5)[]", `"[0:1][1:1]={{x},{y}}"`, `["[Ljava.lang.String;@00000000","[Ljava.lang.String;@00000000"]`},
		{"uuid[]", `[["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]]`, `["[Ljava.util.UUID;@00000000"]`},
		{"jsonb[]", `"{{\"{}\"}}"`, `["[Ljava.lang.String;@00000000"]`},
		{"char(2)[]", `"{{ab}}"`, `["[Ljava.lang.String;@00000000"]`},
		{"inet[]", `"{{{1.2.3.4}}}"`, `["[[Ljava.lang.Object;@00000000"]`},
		{"int4range[]", `"{{\"[1,2)\"}}"`, `["[Ljava.lang.Object;@00000000"]`},
		{"tstzrange[]", `"{{\"[2024-01-01 00:00:00+00,)\"}}"`, `["[Ljava.lang.Object;@00000000"]`},
	} {
		s, err := ColumnSchema(Postgres, tc.typ, true)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		v, err := ColumnValue(Postgres, tc.typ, s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s %s: %v", tc.typ, tc.in, err)
			continue
		}
		cv := Converter{Kind: JSONConverter}
		b, err := convert(cv, s, v)
		hs := allIdentityHashes(cv, s, v, b)
		if err != nil || string(b) != tc.want || len(hs) == 0 {
			t.Errorf("%s %s: %s %v %v, want %s", tc.typ, tc.in, b, hs, err, tc.want)
		}
		for _, o := range hs {
			if string(b[o:o+len(PlaceholderIdentityHash)]) != PlaceholderIdentityHash || b[o-1] != '@' {
				t.Errorf("%s: offset %d in %s", tc.typ, o, b)
			}
		}
	}
}
