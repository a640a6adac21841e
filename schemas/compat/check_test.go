package compat

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

func mustParse(t testing.TB, s string) avro.Schema {
	t.Helper()
	sch, err := avro.ParseWith([]byte(s), avro.Options{Names: avro.UnicodeNames})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return sch
}

// inc is an expected incompatibility: "TYPE location message".
func incs(res Result) []string {
	var out []string
	for _, i := range res.Incompatibilities {
		out = append(out, fmt.Sprintf("%s %s %s", i.Type, i.Location, i.Message))
	}
	return out
}

// TestRuleMatrix checks every cell of avro.md §1.2 where neither side is a
// union: ✓ (compatible), TM (one TYPE_MISMATCH at "/"), or N (same named
// kind: checked by the name/size/symbols/fields tests below; here the two
// representative schemas are identical, so compatible).
func TestRuleMatrix(t *testing.T) {
	schemas := []struct{ typ, json string }{
		{"NULL", `"null"`}, {"BOOLEAN", `"boolean"`}, {"INT", `"int"`}, {"LONG", `"long"`},
		{"FLOAT", `"float"`}, {"DOUBLE", `"double"`}, {"BYTES", `"bytes"`}, {"STRING", `"string"`},
		{"ARRAY", `{"type":"array","items":"int"}`}, {"MAP", `{"type":"map","values":"int"}`},
		{"FIXED", `{"type":"fixed","name":"F","size":4}`}, {"ENUM", `{"type":"enum","name":"E","symbols":["A"]}`},
		{"RECORD", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`},
	}
	// rows: reader; columns: writer, in the order above.
	table := []string{
		"✓  TM TM TM TM TM TM TM TM TM TM TM TM", // null
		"TM ✓  TM TM TM TM TM TM TM TM TM TM TM", // boolean
		"TM TM ✓  TM TM TM TM TM TM TM TM TM TM", // int
		"TM TM ✓  ✓  TM TM TM TM TM TM TM TM TM", // long
		"TM TM ✓  ✓  ✓  TM TM TM TM TM TM TM TM", // float
		"TM TM ✓  ✓  ✓  ✓  TM TM TM TM TM TM TM", // double
		"TM TM TM TM TM TM ✓  ✓  TM TM TM TM TM", // bytes
		"TM TM TM TM TM TM ✓  ✓  TM TM TM TM TM", // string
		"TM TM TM TM TM TM TM TM ✓  TM TM TM TM", // array
		"TM TM TM TM TM TM TM TM TM ✓  TM TM TM", // map
		"TM TM TM TM TM TM TM TM TM TM ✓  TM TM", // fixed
		"TM TM TM TM TM TM TM TM TM TM TM ✓  TM", // enum
		"TM TM TM TM TM TM TM TM TM TM TM TM ✓ ", // record
	}
	for ri, row := range table {
		cells := strings.Fields(row)
		if len(cells) != len(schemas) {
			t.Fatalf("row %d has %d cells", ri, len(cells))
		}
		for wi, cell := range cells {
			r, w := schemas[ri], schemas[wi]
			t.Run(r.typ+"<-"+w.typ, func(t *testing.T) {
				res := Check(mustParse(t, r.json), mustParse(t, w.json))
				var want []string
				if cell == "TM" {
					want = []string{fmt.Sprintf("TYPE_MISMATCH / reader type: %s not compatible with writer type: %s", r.typ, w.typ)}
				}
				if got := incs(res); !reflect.DeepEqual(got, want) || res.Compatible != (cell != "TM") {
					t.Errorf("got %v (compatible=%v), want %v", got, res.Compatible, want)
				}
			})
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name, reader, writer string
		want                 []string
	}{
		// names and aliases
		{"record rename", `{"type":"record","name":"B","fields":[]}`, `{"type":"record","name":"A","fields":[]}`,
			[]string{"NAME_MISMATCH /name expected: A"}},
		{"record namespace change only", `{"type":"record","name":"R","namespace":"b","fields":[]}`, `{"type":"record","name":"R","namespace":"a","fields":[]}`, nil},
		{"record rename with full alias", `{"type":"record","name":"B","namespace":"n","aliases":["m.A"],"fields":[]}`, `{"type":"record","name":"A","namespace":"m","fields":[]}`, nil},
		{"record rename with relative alias", `{"type":"record","name":"Purchase","namespace":"shop","aliases":["Order"],"fields":[]}`, `{"type":"record","name":"Order","namespace":"shop","fields":[]}`, nil},
		{"relative alias, writer in another namespace", `{"type":"record","name":"Purchase","namespace":"shop","aliases":["Order"],"fields":[]}`, `{"type":"record","name":"Order","namespace":"legacy","fields":[]}`,
			[]string{"NAME_MISMATCH /name expected: legacy.Order"}},
		{"writer aliases are ignored", `{"type":"record","name":"B","fields":[]}`, `{"type":"record","name":"A","aliases":["B"],"fields":[]}`,
			[]string{"NAME_MISMATCH /name expected: A"}},
		{"enum namespace change only", `{"type":"enum","name":"E","namespace":"ns2","symbols":["A"]}`, `{"type":"enum","name":"E","namespace":"ns1","symbols":["A"]}`, nil},

		// record fields
		{"field added without default", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
			[]string{"READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 b"}},
		{"field added with default", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, nil},
		{"field added with null default", `{"type":"record","name":"R","fields":[{"name":"b","type":["null","string"],"default":null}]}`, `{"type":"record","name":"R","fields":[]}`, nil},
		{"field removed", `{"type":"record","name":"R","fields":[]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, nil},
		{"field reordered", `{"type":"record","name":"R","fields":[{"name":"b","type":"string"},{"name":"a","type":"int"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`, nil},
		{"field type change", `{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
			[]string{"TYPE_MISMATCH /fields/0/type reader type: STRING not compatible with writer type: INT"}},
		{"field renamed with alias", `{"type":"record","name":"R","fields":[{"name":"b","aliases":["a"],"type":"long"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`, nil},
		{"field renamed without alias", `{"type":"record","name":"R","fields":[{"name":"b","type":"long"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
			[]string{"READER_FIELD_MISSING_DEFAULT_VALUE /fields/0 b"}},
		{"field alias and name both match", `{"type":"record","name":"R","fields":[{"name":"a","aliases":["b"],"type":"int"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}`,
			[]string{`UNEXPECTED_EXCEPTION  Reader record field a type:INT pos:0 matches multiple fields in writer record schema {"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}`}},
		{"new enum field with only an enum default (Java quirk)", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"s","type":{"type":"enum","name":"S","symbols":["X","Y"],"default":"X"}}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
			[]string{"TYPE_MISMATCH /fields/1/type reader type: ENUM not compatible with writer type: RECORD"}},
		{"several errors in order", `{"type":"record","name":"B","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"},{"name":"c","type":{"type":"array","items":"int"}}]}`,
			`{"type":"record","name":"A","fields":[{"name":"a","type":"int"},{"name":"c","type":{"type":"array","items":"long"}}]}`,
			[]string{"NAME_MISMATCH /name expected: A", "TYPE_MISMATCH /fields/0/type reader type: STRING not compatible with writer type: INT",
				"READER_FIELD_MISSING_DEFAULT_VALUE /fields/1 b", "TYPE_MISMATCH /fields/2/type/items reader type: INT not compatible with writer type: LONG"}},

		// enums
		{"enum symbols removed", `{"type":"enum","name":"E","symbols":["A"]}`, `{"type":"enum","name":"E","symbols":["A","HOLD","CANCELLED"]}`,
			[]string{"MISSING_ENUM_SYMBOLS /symbols [CANCELLED, HOLD]"}},
		{"enum symbol removed, reader default", `{"type":"enum","name":"E","symbols":["A","U"],"default":"U"}`, `{"type":"enum","name":"E","symbols":["A","B"]}`, nil},
		{"enum symbol removed, writer default only", `{"type":"enum","name":"E","symbols":["A","U"]}`, `{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}`,
			[]string{"MISSING_ENUM_SYMBOLS /symbols [B]"}},
		{"enum symbol added and reordered", `{"type":"enum","name":"E","symbols":["C","B","A"]}`, `{"type":"enum","name":"E","symbols":["A","B"]}`, nil},
		{"enum rename and symbols", `{"type":"enum","name":"F","symbols":["A"]}`, `{"type":"enum","name":"E","symbols":["A","B"]}`,
			[]string{"NAME_MISMATCH /name expected: E", "MISSING_ENUM_SYMBOLS /symbols [B]"}},
		{"enum vs string", `"string"`, `{"type":"enum","name":"E","symbols":["A"]}`,
			[]string{"TYPE_MISMATCH / reader type: STRING not compatible with writer type: ENUM"}},

		// fixed
		{"fixed resize", `{"type":"fixed","name":"F","size":8}`, `{"type":"fixed","name":"F","size":16}`,
			[]string{"FIXED_SIZE_MISMATCH /size expected: 16, found: 8"}},
		{"fixed rename and resize", `{"type":"fixed","name":"G","size":8}`, `{"type":"fixed","name":"F","size":16}`,
			[]string{"NAME_MISMATCH /name expected: F", "FIXED_SIZE_MISMATCH /size expected: 16, found: 8"}},
		{"fixed vs bytes", `"bytes"`, `{"type":"fixed","name":"F","size":4}`,
			[]string{"TYPE_MISMATCH / reader type: BYTES not compatible with writer type: FIXED"}},
		{"fixed decimal resize", `{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":10,"scale":2}`, `{"type":"fixed","name":"D","size":16,"logicalType":"decimal","precision":10,"scale":2}`,
			[]string{"FIXED_SIZE_MISMATCH /size expected: 16, found: 8"}},

		// unions
		{"writer union, reader plain", `"string"`, `["null","string"]`,
			[]string{"TYPE_MISMATCH /0 reader type: STRING not compatible with writer type: NULL"}},
		{"writer union, reader plain, nested", `{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}`, `{"type":"record","name":"R","fields":[{"name":"a","type":["null","string","int"]}]}`,
			[]string{"TYPE_MISMATCH /fields/0/type/0 reader type: STRING not compatible with writer type: NULL", "TYPE_MISMATCH /fields/0/type/2 reader type: STRING not compatible with writer type: INT"}},
		{"union lost a branch", `["null","int"]`, `["null","int","string"]`,
			[]string{"MISSING_UNION_BRANCH /2 reader union lacking writer type: STRING"}},
		{"union reordered", `["string","null"]`, `["null","string"]`, nil},
		{"union branch promotion", `["null","long"]`, `["null","int"]`, nil},
		{"plain to union", `["null","long"]`, `"int"`, nil},
		{"plain to union, no branch", `["null","int"]`, `"string"`,
			[]string{"MISSING_UNION_BRANCH / reader union lacking writer type: STRING"}},
		{"union branch detail dropped", `["null",{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}]`, `["null",{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}]`,
			[]string{"MISSING_UNION_BRANCH /1 reader union lacking writer type: RECORD"}},
		{"empty writer union", `"int"`, `[]`, nil},
		{"empty reader union", `[]`, `"int"`, []string{"MISSING_UNION_BRANCH / reader union lacking writer type: INT"}},
		{"single-branch unions", `["long"]`, `"int"`, nil},
		{"single-branch writer union", `"long"`, `["int"]`, nil},
		{"enum in union, namespace change", `["null",{"type":"enum","name":"E","namespace":"q","symbols":["A"]}]`, `["null",{"type":"enum","name":"E","namespace":"p","symbols":["A"]}]`, nil},

		// arrays and maps
		{"array items promotion", `{"type":"array","items":"long"}`, `{"type":"array","items":"int"}`, nil},
		{"array items mismatch", `{"type":"array","items":"int"}`, `{"type":"array","items":"long"}`,
			[]string{"TYPE_MISMATCH /items reader type: INT not compatible with writer type: LONG"}},
		{"map values mismatch", `{"type":"map","values":"int"}`, `{"type":"map","values":"string"}`,
			[]string{"TYPE_MISMATCH /values reader type: INT not compatible with writer type: STRING"}},
		{"map of records", `{"type":"map","values":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"int"}]}}`, `{"type":"map","values":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}}`,
			[]string{"READER_FIELD_MISSING_DEFAULT_VALUE /values/fields/1 y"}},

		// logical types are ignored
		{"timestamp millis to micros", `{"type":"long","logicalType":"timestamp-micros"}`, `{"type":"long","logicalType":"timestamp-millis"}`, nil},
		{"decimal scale change", `{"type":"bytes","logicalType":"decimal","precision":10,"scale":3}`, `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, nil},
		{"date to timestamp", `{"type":"long","logicalType":"timestamp-millis"}`, `{"type":"int","logicalType":"date"}`, nil},
		{"uuid to string", `"string"`, `{"type":"string","logicalType":"uuid"}`, nil},

		// recursion and memoization
		{"recursive list with promotion", `{"type":"record","name":"Node","fields":[{"name":"v","type":"long"},{"name":"next","type":["null","Node"]}]}`,
			`{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}`, nil},
		{"recursive list, incompatible value", `{"type":"record","name":"Node","fields":[{"name":"v","type":"string"},{"name":"next","type":["null","Node"]}]}`,
			`{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}`,
			[]string{"TYPE_MISMATCH /fields/0/type reader type: STRING not compatible with writer type: INT"}},
		{"recursive tree via array, new field with default", `{"type":"record","name":"T","fields":[{"name":"kids","type":{"type":"array","items":"T"}},{"name":"w","type":"double","default":1}]}`,
			`{"type":"record","name":"T","fields":[{"name":"kids","type":{"type":"array","items":"T"}}]}`, nil},
		{"shared named type reports its first location twice", `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["A"]}},{"name":"b","type":"E"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["A","B"]}},{"name":"b","type":"E"}]}`,
			[]string{"MISSING_ENUM_SYMBOLS /fields/0/type/symbols [B]", "MISSING_ENUM_SYMBOLS /fields/0/type/symbols [B]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := Check(mustParse(t, tc.reader), mustParse(t, tc.writer))
			got := incs(res)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if res.Compatible != (len(tc.want) == 0) {
				t.Errorf("compatible = %v with %d incompatibilities", res.Compatible, len(tc.want))
			}
		})
	}
}

func TestConfluentRendering(t *testing.T) {
	cases := []struct {
		inc  Incompatibility
		want string
	}{
		{Incompatibility{Type: ReaderFieldMissingDefaultValue, Location: "/fields/2", Message: "note"},
			`{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'note' at path '/fields/2' in the new schema has no default value and is missing in the old schema', additionalInfo:'note'}`},
		{Incompatibility{Type: TypeMismatch, Location: "/fields/0/type", Message: "reader type: STRING not compatible with writer type: INT"},
			`{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a field in the new schema does not match with the old schema', additionalInfo:'reader type: STRING not compatible with writer type: INT'}`},
		{Incompatibility{Type: NameMismatch, Location: "/name", Message: "expected: A"},
			`{errorType:'NAME_MISMATCH', description:'The name of the schema has changed (path '/name')', additionalInfo:'expected: A'}`},
		{Incompatibility{Type: MissingEnumSymbols, Location: "/symbols", Message: "[B]"},
			`{errorType:'MISSING_ENUM_SYMBOLS', description:'The new schema is missing enum symbols '[B]' at path '/symbols' in the old schema', additionalInfo:'[B]'}`},
		{Incompatibility{Type: MissingUnionBranch, Location: "/1", Message: "reader union lacking writer type: RECORD"},
			`{errorType:'MISSING_UNION_BRANCH', description:'The new schema is missing a type inside a union field at path '/1' in the old schema', additionalInfo:'reader union lacking writer type: RECORD'}`},
		{Incompatibility{Type: FixedSizeMismatch, Location: "/size", Message: "expected: 16, found: 8"},
			`{errorType:'FIXED_SIZE_MISMATCH', description:'The size of FIXED type field at path '/size' in the new schema does not match with the old schema', additionalInfo:'expected: 16, found: 8'}`},
	}
	for _, tc := range cases {
		if got := tc.inc.Confluent("new", "old"); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestCheckConcurrent runs Check on shared schemas from several goroutines
// (run with -race).
func TestCheckConcurrent(t *testing.T) {
	r := mustParse(t, `{"type":"record","name":"Node","fields":[{"name":"v","type":"long"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A"]}},{"name":"next","type":["null","Node"]}]}`)
	w := mustParse(t, `{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},{"name":"next","type":["null","Node"]}]}`)
	done := make(chan []string)
	for range 8 {
		go func() { done <- incs(Check(r, w)) }()
	}
	want := []string{"MISSING_ENUM_SYMBOLS /fields/1/type/symbols [B]"}
	for range 8 {
		if got := <-done; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q", got)
		}
	}
}
