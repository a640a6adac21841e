package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// An unconstrained PostgreSQL numeric under decimal.handling.mode=precise
// is a VariableScaleDecimal struct; checked against the real connector by
// the differential test's setting_decimal_precise_variable_scale* variants.
func TestVariableScaleDecimal(t *testing.T) {
	s, err := ColumnSchemaWith(Postgres, "numeric", true, ColumnSettings{})
	if err != nil {
		t.Fatal(err)
	}
	js := Converter{Kind: JSONConverter, SchemasEnable: true}
	for _, tc := range []struct {
		in, json, header string
	}{
		{`"1.50e1"`, `{"scale":0,"value":"Dw=="}`, `{"scale":0,"value":"Dw=="}`},
		{`"-0.000000123"`, `{"scale":9,"value":"hQ=="}`, `{"scale":9,"value":"hQ=="}`},
		{`"0.000"`, `{"scale":0,"value":"AA=="}`, `{"scale":0,"value":"AA=="}`},
		{`"100"`, `{"scale":0,"value":"ZA=="}`, `{"scale":0,"value":"ZA=="}`},
		{`"-128"`, `{"scale":0,"value":"gA=="}`, `{"scale":0,"value":"gA=="}`},
		{`128`, `{"scale":0,"value":"AIA="}`, `{"scale":0,"value":"AIA="}`},
		{`"1.2300"`, `{"scale":2,"value":"ew=="}`, `{"scale":2,"value":"ew=="}`},
	} {
		v, err := ColumnValue(Postgres, "numeric", s, json.RawMessage(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		b, err := convert(Converter{Kind: JSONConverter}, s, v)
		if err != nil || string(b) != tc.json {
			t.Errorf("%s: JsonConverter %s, %v; want %s", tc.in, b, err, tc.json)
		}
		h, err := convertHeader(Converter{Kind: SimpleHeaderConverter}, s, v)
		if err != nil || string(h) != tc.header {
			t.Errorf("%s: SimpleHeaderConverter %s, %v; want %s", tc.in, h, err, tc.header)
		}
		if _, err := convert(Converter{Kind: StringConverter}, s, v); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: StringConverter: %v, want ErrUnsupported (Struct.toString prints a byte[] identity hash)", tc.in, err)
		}
	}
	b, err := convert(js, s, nil)
	if err != nil || string(b) != `{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},{"type":"bytes","optional":false,"field":"value"}],"optional":true,"name":"io.debezium.data.VariableScaleDecimal","version":1,"doc":"Variable scaled decimal"},"payload":null}` {
		t.Errorf("schema: %s, %v", b, err)
	}
	// NaN: the converter throws; NULL under warn
	if _, err := ColumnValue(Postgres, "numeric", s, json.RawMessage(`"NaN"`)); !errors.As(err, new(*ConvertError)) {
		t.Errorf("NaN: %v, want a *ConvertError", err)
	}
	// numeric[]: a list of optional VariableScaleDecimals
	as, err := ColumnSchemaWith(Postgres, "numeric[]", true, ColumnSettings{DecimalHandlingMode: "precise"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ColumnValue(Postgres, "numeric[]", as, json.RawMessage(`"{1.50,NULL}"`))
	if err != nil {
		t.Fatal(err)
	}
	b, err = convert(Converter{Kind: JSONConverter}, as, v)
	if err != nil || string(b) != `[{"scale":1,"value":"Dw=="},null]` {
		t.Errorf("numeric[]: %s, %v", b, err)
	}
}
