package eventrouter

import (
	"encoding/json"
	"errors"
	"fmt"
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

// Multi-dimensional arrays and element types not modelled are refused:
// by type (*ColumnTypeError) or by value (ErrInvalidEvent).
func TestPgArrayRefused(t *testing.T) {
	for _, typ := range []string{"int4[][]", "numeric(10,2)[]", "_numeric", "jsonb[]", "char(3)[]"} {
		var cte *ColumnTypeError
		if _, err := ColumnSchema(Postgres, typ, true); !errors.As(err, &cte) {
			t.Errorf("%s: %v, want a *ColumnTypeError", typ, err)
		}
	}
	s, _ := ColumnSchema(Postgres, "int4[]", true)
	for _, in := range []string{`[[1,2],[3,4]]`, `"{{1,2},{3,4}}"`, `"[1:2]={1,2}"`, `"{1,,2}"`, `"{a}"`, `{"a":1}`} {
		if v, err := ColumnValue(Postgres, "int4[]", s, json.RawMessage(in)); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("int4[] %s: %v, %v; want ErrInvalidEvent", in, v, err)
		}
	}
}
