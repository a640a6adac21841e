package avro

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestParseParity lists what Avro Java 1.12.1 accepts and rejects when
// Confluent parses a new schema (strict names, default validation), per
// avro.md §1.11 and Schema.java.
func TestParseParity(t *testing.T) {
	rec := func(fieldType, def string) string {
		return `{"type":"record","name":"R","fields":[{"name":"a","type":` + fieldType + `,"default":` + def + `}]}`
	}
	cases := []struct {
		name   string
		schema string
		ok     bool
		errHas string
	}{
		{"int default string", rec(`"int"`, `"1"`), false, "invalid default for field a"},
		{"int default fraction", rec(`"int"`, `1.5`), false, "invalid default"},
		{"int default 1.0 is not integral", rec(`"int"`, `1.0`), false, "invalid default"},
		{"int default out of range", rec(`"int"`, `2147483648`), false, "invalid default"},
		{"int default max", rec(`"int"`, `2147483647`), true, ""},
		{"long default past 2^63", rec(`"long"`, `9223372036854775808`), false, "invalid default"},
		{"long default big", rec(`"long"`, `9007199254740993`), true, ""},
		{"long default exponent", rec(`"long"`, `1e3`), false, "invalid default"},
		{"double default int", rec(`"double"`, `1`), true, ""},
		{"float default NaN string", rec(`"float"`, `"NaN"`), true, ""},
		{"double default bad string", rec(`"double"`, `"abc"`), false, "invalid double default"},
		{"boolean default string", rec(`"boolean"`, `"true"`), false, "invalid default"},
		{"null default 0", rec(`"null"`, `0`), false, "invalid default"},
		{"null default null", rec(`"null"`, `null`), true, ""},
		{"bytes default latin1", rec(`"bytes"`, `"\u00ff"`), true, ""},
		{"fixed default", rec(`{"type":"fixed","name":"F","size":2}`, `"ab"`), true, ""},
		{"union default second branch (1.12)", rec(`["null","int"]`, `5`), true, ""},
		{"union default null second (1.12)", rec(`["int","null"]`, `null`), true, ""},
		{"union default no branch", rec(`["null","int"]`, `"x"`), false, "invalid default"},
		{"empty union with default", rec(`[]`, `null`), false, "invalid default"},
		{"enum default not a symbol of the field's enum", rec(`{"type":"enum","name":"E","symbols":["A"]}`, `"Z"`), true, ""},
		{"enum default not a string", rec(`{"type":"enum","name":"E","symbols":["A"]}`, `1`), false, "invalid default"},
		{"array default", rec(`{"type":"array","items":"int"}`, `[1,2]`), true, ""},
		{"array default bad item", rec(`{"type":"array","items":"int"}`, `[1,"a"]`), false, "invalid default"},
		{"map default", rec(`{"type":"map","values":"long"}`, `{"a":1}`), true, ""},
		{"record default missing required field", rec(`{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]}`, `{}`), false, "invalid default"},
		{"record default with sub-default", rec(`{"type":"record","name":"S","fields":[{"name":"x","type":"int","default":7}]}`, `{}`), true, ""},
		{"record default union field any branch", rec(`{"type":"record","name":"S","fields":[{"name":"x","type":["null","int"]}]}`, `{"x":3}`), true, ""},

		{"enum default in symbols", `{"type":"enum","name":"E","symbols":["A","B"],"default":"B"}`, true, ""},
		{"enum default not in symbols", `{"type":"enum","name":"E","symbols":["A","B"],"default":"C"}`, false, "enum default"},
		{"duplicate enum symbol", `{"type":"enum","name":"E","symbols":["A","A"]}`, false, "duplicate enum symbol"},
		{"bad enum symbol", `{"type":"enum","name":"E","symbols":["1A"]}`, false, "illegal initial character"},
		{"duplicate union type", `["int","int"]`, false, "duplicate in union"},
		{"duplicate union named type", `[{"type":"fixed","name":"F","size":1},"F"]`, false, "duplicate in union"},
		{"two arrays in a union", `[{"type":"array","items":"int"},{"type":"array","items":"long"}]`, false, "duplicate in union"},
		{"nested union", `["null",["int","string"]]`, false, "nested union"},
		{"empty union", `[]`, true, ""},
		{"bad name", `{"type":"record","name":"1R","fields":[]}`, false, "illegal initial character: 1R"},
		{"bad name character", `{"type":"record","name":"R-1","fields":[]}`, false, "illegal character in: R-1"},
		{"non-ascii name is not strict", `{"type":"record","name":"Ré","fields":[]}`, false, "illegal character"},
		{"bad namespace part", `{"type":"record","name":"R","namespace":"a.1b","fields":[]}`, false, "namespace part"},
		{"bad field name", `{"type":"record","name":"R","fields":[{"name":"a b","type":"int"}]}`, false, "illegal character"},
		{"duplicate field", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]}`, false, "duplicate field a"},
		{"named after a primitive", `{"type":"record","name":"int","fields":[]}`, false, "named after primitives"},
		{"primitive name in a namespace", `{"type":"record","name":"int","namespace":"a","fields":[]}`, true, ""},
		{"no type", `{"name":"x"}`, false, "no type"},
		{"type not a string", `{"type":{"type":"int"}}`, false, "no type"},
		{"number is no schema", `1`, false, "not yet supported"},
		{"record without fields", `{"type":"record","name":"R"}`, false, "has no fields"},
		{"enum without symbols", `{"type":"enum","name":"E"}`, false, "has no symbols"},
		{"fixed size as string", `{"type":"fixed","name":"F","size":"4"}`, false, "invalid or no size"},
		{"fixed negative size", `{"type":"fixed","name":"F","size":-1}`, false, "negative"},
		{"array without items", `{"type":"array"}`, false, "no items"},
		{"map without values", `{"type":"map"}`, false, "no values"},
		{"undefined name", `{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}`, false, "undefined schema: Missing"},
		{"forward reference", `{"type":"record","name":"R","fields":[{"name":"a","type":"S"},{"name":"b","type":{"type":"record","name":"S","fields":[]}}]}`, true, ""},
		{"recursive record", `{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"],"default":null}]}`, true, ""},
		{"identical redefinition", `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["A"]}},{"name":"b","type":{"type":"enum","name":"E","symbols":["A"]}}]}`, true, ""},
		{"conflicting redefinition", `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["A"]}},{"name":"b","type":{"type":"enum","name":"E","symbols":["B"]}}]}`, false, "can't redefine: E"},
		{"order case-insensitive", `{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"DESCENDING"}]}`, true, ""},
		{"bad order", `{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"sideways"}]}`, false, "no such order"},
		{"aliases not an array", `{"type":"record","name":"R","aliases":"x","fields":[]}`, false, "aliases not an array"},
		{"bad alias", `{"type":"record","name":"R","aliases":["9x"],"fields":[]}`, false, "illegal initial character"},
		{"invalid logical type is ignored", `{"type":"bytes","logicalType":"decimal","precision":2,"scale":5}`, true, ""},
		{"unknown logical type is ignored", `{"type":"string","logicalType":"color"}`, true, ""},
		{"dangling content", `"int" "long"`, false, "dangling content"},
		{"comments are allowed", "/* order */ {\"type\": // the type\n \"int\"}", true, ""},
		{"a trailing comment is dangling content", `"int" // x`, false, "dangling content"},
		{"unterminated comment", `{"type": /* "int"}`, false, "unexpected end"},
		{"bad json", `{"type":"int",}`, false, "expected a string key"},
		{"empty input", ``, false, "empty"},
		{"byte order mark", "\ufeff\"int\"", true, ""},
		{"leading zero", `{"type":"fixed","name":"F","size":015}`, false, "leading zeroes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.schema))
			if tc.ok {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted, want rejected")
			}
			if !errors.Is(err, ErrInvalidSchema) {
				t.Errorf("error %v does not wrap ErrInvalidSchema", err)
			}
			if !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("error %q does not contain %q", err, tc.errHas)
			}
		})
	}
}

func TestParseOptions(t *testing.T) {
	unionSecond := `{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":5}]}`
	if _, err := ParseWith([]byte(unionSecond), Options{UnionDefaultFirstBranch: true}); err == nil {
		t.Error("Avro 1.11 rule: a default matching the second branch must be rejected")
	}
	if _, err := ParseWith([]byte(`{"type":"record","name":"R","fields":[{"name":"a","type":["int","null"],"default":1}]}`), Options{UnionDefaultFirstBranch: true}); err != nil {
		t.Errorf("Avro 1.11 rule, first branch: %v", err)
	}
	lenient := `{"type":"record","name":"R","namespace":"1a","fields":[{"name":"a","type":"int","default":"1"}]}`
	if _, err := Parse([]byte(lenient)); err == nil {
		t.Error("strict parse accepted a bad name and default")
	}
	if _, err := ParseWith([]byte(lenient), Lenient()); err != nil {
		t.Errorf("lenient parse: %v", err)
	}
	// Confluent still checks a registered schema's own names (Unicode rule).
	if _, err := ParseWith([]byte(`{"type":"record","name":"1R","fields":[]}`), Lenient()); err == nil {
		t.Error("lenient parse accepted the name 1R")
	}
	if _, err := ParseWith([]byte(`{"type":"record","name":"Ré","fields":[{"name":"é","type":"int"}]}`), Lenient()); err != nil {
		t.Errorf("lenient parse of unicode names: %v", err)
	}
	if _, err := ParseWith([]byte(`{"type":"record","name":"Ré","fields":[]}`), Options{Names: UnicodeNames}); err != nil {
		t.Errorf("unicode names: %v", err)
	}
}

func TestErrorPosition(t *testing.T) {
	src := "{\"type\": \"record\", \"name\": \"R\", \"fields\": [\n  {\"name\": \"a\", \"type\": \"int\", \"default\": \"x\"}\n]}"
	_, err := ParseWith([]byte(src), Options{File: "order.avsc"})
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want *ParseError", err)
	}
	if pe.Pos.Line != 2 || pe.Pos.Col != 43 || pe.Pos.File != "order.avsc" {
		t.Errorf("position %+v, want order.avsc:2:43", pe.Pos)
	}
	if !strings.HasPrefix(err.Error(), "order.avsc:2:43: invalid default for field a") {
		t.Errorf("error %q", err)
	}
	_, err = Parse([]byte("{\n  \"type\": \"enum\", \"name\": \"E\",\n  \"symbols\": [\"A\", \"A\"]}"))
	if err == nil || !strings.HasPrefix(err.Error(), "<input>:3:20: duplicate enum symbol: A") {
		t.Errorf("error %v", err)
	}
}

func TestModel(t *testing.T) {
	s, err := Parse([]byte(`{"type":"record","name":"Order","namespace":"shop","aliases":["Purchase","legacy.Order"],"doc":"d",
	  "fields":[
	    {"name":"id","type":{"type":"string","logicalType":"uuid"},"aliases":["orderId"]},
	    {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2},"default":"\u0000"},
	    {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"},"order":"descending"},
	    {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"],"default":"NEW"},"default":"PAID"},
	    {"name":"inner","type":{"type":"record","name":"Inner","namespace":"","fields":[{"name":"n","type":["null","long"],"default":null}]}},
	    {"name":"again","type":"Status","custom":{"k":[1,2]}},
	    {"name":"big","type":"long","default":9007199254740993},
	    {"name":"nan","type":"double","default":"NaN"}
	  ]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := s.(*Record)
	if r.FullName() != "shop.Order" || r.Doc != "d" || !reflect.DeepEqual(r.Aliases, []string{"shop.Purchase", "legacy.Order"}) {
		t.Errorf("record names %+v", r.Named)
	}
	if lt := LogicalOf(r.Fields[0].Type); lt == nil || lt.Name != "uuid" || !reflect.DeepEqual(r.Fields[0].Aliases, []string{"orderId"}) {
		t.Errorf("field id %+v", r.Fields[0])
	}
	if lt := LogicalOf(r.Fields[1].Type); lt == nil || lt.Precision != 9 || lt.Scale != 2 || r.Fields[1].Default != "\x00" {
		t.Errorf("field amount %+v %+v", r.Fields[1], lt)
	}
	if r.Fields[2].Order != OrderDescending || r.Fields[2].HasDefault || r.Fields[2].Index != 2 {
		t.Errorf("field at %+v", r.Fields[2])
	}
	st := r.Fields[3].Type.(*Enum)
	if st.FullName() != "shop.Status" || !st.HasDefault || st.Default != "NEW" || r.Fields[3].Default != "PAID" {
		t.Errorf("status %+v", st)
	}
	if r.Fields[5].Type != st {
		t.Error("a reference must be the definition's pointer")
	}
	if v, ok := r.Fields[5].Props.Get("custom"); !ok || !reflect.DeepEqual(v, map[string]any{"k": []any{json.Number("1"), json.Number("2")}}) {
		t.Errorf("custom prop %v", v)
	}
	in := r.Fields[4].Type.(*Record)
	if in.FullName() != "Inner" || !in.Fields[0].HasDefault || in.Fields[0].Default != nil {
		t.Errorf("inner %+v", in)
	}
	if r.Fields[6].Default != json.Number("9007199254740993") {
		t.Errorf("big default %#v", r.Fields[6].Default)
	}
	if f, ok := r.Fields[7].Default.(float64); !ok || !math.IsNaN(f) {
		t.Errorf("nan default %#v", r.Fields[7].Default)
	}
	if r.Pos.Line != 1 || r.Fields[1].Pos.Line != 4 {
		t.Errorf("positions %v %v", r.Pos, r.Fields[1].Pos)
	}
}

func TestRecursionIsACycle(t *testing.T) {
	s, err := Parse([]byte(`{"type":"record","name":"Tree","fields":[{"name":"kids","type":{"type":"array","items":"Tree"}},{"name":"next","type":["null","Tree"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := s.(*Record)
	if r.Fields[0].Type.(*Array).Items != Schema(r) || r.Fields[1].Type.(*Union).Branches[1] != Schema(r) {
		t.Error("recursive references must point at the record itself")
	}
}

func TestParseWithNamed(t *testing.T) {
	money, err := Parse([]byte(`{"type":"record","name":"Money","namespace":"com.acme","fields":[{"name":"cents","type":"long"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseWithNamed([]byte(`{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"total","type":"Money"},{"name":"tax","type":"com.acme.Money"}]}`), money.(NamedSchema))
	if err != nil {
		t.Fatal(err)
	}
	r := s.(*Record)
	if r.Fields[0].Type != money || r.Fields[1].Type != money {
		t.Error("references must resolve to the given named type")
	}
	if _, err := Parse([]byte(`{"type":"record","name":"Order","fields":[{"name":"total","type":"com.acme.Money"}]}`)); err == nil {
		t.Error("without the reference the name is undefined")
	}
}

func TestCanonicalForm(t *testing.T) {
	// Vectors from the Avro specification's schema-tests and avro.md §3.5.
	cases := []struct {
		in, canonical string
		fp            int64
	}{
		{`"null"`, `"null"`, 7195948357588979594},
		{`{"type":"int"}`, `"int"`, 8247732601305521295},
		{`{"type":"long","logicalType":"timestamp-millis"}`, `"long"`, -3434872931120570953},
		{`[ "int" , {"type":"boolean"} ]`, `["int","boolean"]`, 5392556393470105090},
		{`{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}`, `{"name":"x.y.foo","type":"record","fields":[]}`, 5916914534497305771},
		{`{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}`, `{"name":"a.b.foo","type":"record","fields":[]}`, -4616218487480524110},
		{`{"fields":[], "type":"record", "name":"foo", "doc":"foo", "aliases":["foo","bar"]}`, `{"name":"foo","type":"record","fields":[]}`, -4824392279771201922},
		{`{ "fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":true},{"order":"descending","name":"f2","doc":"Hello","type":"int"}], "type":"record", "name":"foo"}`,
			`{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}`, -4860222112080293046},
		{`{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}`, `{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}`, -4448647247586288245},
		{`{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}`, `{"name":"x.y.z.foo","type":"fixed","size":32}`, -3064184465700546786},
		{`{ "items":{"type":"null"}, "type":"array"}`, `{"type":"array","items":"null"}`, -589620603366471059},
		{`{ "values":"string", "type":"map"}`, `{"type":"map","values":"string"}`, -8732877298790414990},
		{`{"name":"PigValue","type":"record","fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}`,
			`{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}`, -1759257747318642341},
	}
	for _, tc := range cases {
		s, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := CanonicalForm(s); got != tc.canonical {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.canonical)
		}
		if got := int64(Fingerprint64(s)); got != tc.fp {
			t.Errorf("%s: fingerprint %d, want %d", tc.in, got, tc.fp)
		}
	}
	// The empty namespace: a nested type with "namespace": "" is in the
	// null namespace (goavro gets this wrong).
	s, err := Parse([]byte(`{"type":"record","name":"R","namespace":"a","fields":[{"name":"e","type":{"type":"enum","name":"E","namespace":"","symbols":["X"]}},{"name":"f","type":"E"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"a.R","type":"record","fields":[{"name":"e","type":{"name":"E","type":"enum","symbols":["X"]}},{"name":"f","type":"E"}]}`
	if got := CanonicalForm(s); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if Rabin(nil) != crc64Empty {
		t.Error("the fingerprint of nothing is EMPTY")
	}
}

func TestJavaString(t *testing.T) {
	cases := []struct{ in, want string }{
		// avro.md §2.3, verified against Java
		{`{"fields":[{"type":{"type":"int"},"name":"a","order":"ascending","doc":"d","default":1}],"name":"R","type":"record","namespace":"x","doc":"top"}`,
			`{"type":"record","name":"R","namespace":"x","doc":"top","fields":[{"name":"a","type":"int","doc":"d","default":1}]}`},
		{`{"type":"record","name":"R","namespace":"a","aliases":["Old","b.Older"],"fields":[
		   {"name":"e","type":{"type":"enum","name":"E","namespace":"","symbols":["X"],"default":"X"}},
		   {"name":"f","type":"E","order":"descending","aliases":["g"]},
		   {"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}},
		   {"name":"s","type":{"type":"fixed","name":"S","size":2},"default":"ÿ\n"},
		   {"name":"d","type":"double","default":1e10},
		   {"name":"r","type":["null","R"],"default":null}]}`,
			`{"type":"record","name":"R","namespace":"a","fields":[{"name":"e","type":{"type":"enum","name":"E","namespace":"","symbols":["X"],"default":"X"}},{"name":"f","type":"E","order":"descending","aliases":["g"]},{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"s","type":{"type":"fixed","name":"S","size":2},"default":"ÿ\n"},{"name":"d","type":"double","default":1.0E10},{"name":"r","type":["null","R"],"default":null}],"aliases":["Old","b.Older"]}`},
	}
	cases = append(cases, struct{ in, want string }{
		// object keys keep their order, numbers print as Jackson's nodes
		`{"type":"record","name":"R","x-meta":{"z":1,"a":[1.50,-0]},"fields":[{"name":"m","type":{"type":"map","values":"long"},"default":{"b":1,"a":12345678901234567890}}]}`,
		`{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"long"},"default":{"b":1,"a":12345678901234567890}}],"x-meta":{"z":1,"a":[1.5,0]}}`,
	})
	for _, tc := range cases {
		s, err := ParseWith([]byte(tc.in), Options{SkipDefaultValidation: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := JavaString(s); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
		// The Java string parses back to an equal schema.
		again, err := ParseWith([]byte(JavaString(s)), Options{SkipDefaultValidation: true})
		if err != nil || !Equal(s, again) {
			t.Errorf("round trip: %v", err)
		}
	}
	money, _ := Parse([]byte(`{"type":"record","name":"Money","namespace":"com.acme","fields":[{"name":"c","type":"long"}]}`))
	order, err := ParseWithNamed([]byte(`{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"total","type":"Money"}]}`), money.(NamedSchema))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := JavaStringRefs(order, money.(NamedSchema)), `{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"total","type":"Money"}]}`; got != want {
		t.Errorf("with references: got %s", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`"int"`, `["null","string"]`, `[]`, `{"type":"int","logicalType":"date"}`,
		`{"type":"record","name":"R","namespace":"a","fields":[{"name":"a","type":"int","default":1},{"name":"n","type":["null","R"],"default":null}]}`,
		`{"type":"enum","name":"E","symbols":["A","B"],"default":"A","aliases":["F"]}`,
		`{"type":"fixed","name":"F","size":16,"logicalType":"decimal","precision":4}`,
		`{"type":"array","items":{"type":"map","values":{"type":"record","name":"X","fields":[]}}}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"S"},{"name":"b","type":{"type":"record","name":"S","fields":[{"name":"x","type":"double","default":"NaN"}]}}]}`,
		"{\"type\":\"string\",\"x\":\"\\ud83d\\ude00\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, opts := range []Options{{}, Lenient(), {UnionDefaultFirstBranch: true}} {
			s, err := ParseWith([]byte(in), opts)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Pos.Line < 1 || pe.Pos.Col < 1 {
					t.Fatalf("error without a position: %v", err)
				}
				continue
			}
			pcf := CanonicalForm(s)
			Fingerprint64(s)
			js := JavaString(s)
			// What we print must parse again to the same canonical form.
			again, err := ParseWith([]byte(js), Options{Names: NoNameValidation, SkipDefaultValidation: true})
			if err != nil {
				t.Fatalf("JavaString output %s does not parse: %v", js, err)
			}
			if got := CanonicalForm(again); got != pcf {
				t.Fatalf("canonical form changed: %s -> %s", pcf, got)
			}
		}
	})
}

func TestNodeStringEscapesAsJackson(t *testing.T) {
	n, err := parseJSON([]byte(`{"a\u001fb":["<&>\u2028",1.50]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.String(), "{\"a\\u001Fb\":[\"<&>\u2028\",1.50]}"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
