package resolve_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

func mustParse(t testing.TB, js string) avro.Schema {
	t.Helper()
	s, err := avro.Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse %s: %v", js, err)
	}
	return s
}

// encode writes datum (a goavro native value) with goavro's codec for the
// writer schema.
func encode(t testing.TB, writer string, datum any) []byte {
	t.Helper()
	c, err := goavro.NewCodec(writer)
	if err != nil {
		t.Fatalf("goavro codec for %s: %v", writer, err)
	}
	b, err := c.BinaryFromNative(nil, datum)
	if err != nil {
		t.Fatalf("goavro encode %v: %v", datum, err)
	}
	return b
}

func rec(fields string) string {
	return `{"type":"record","name":"R","namespace":"ns","fields":[` + fields + `]}`
}

type resolveCase struct {
	name   string
	writer string
	reader string
	datum  any    // goavro native value for the writer schema
	want   string // reader datum in Avro JSON
	// wantErr is checked with errors.Is; errMsg is a substring of the
	// message. compileErr says whether Compile (rather than decoding)
	// fails.
	wantErr    error
	errMsg     string
	compileErr bool
}

// allCases are the table cases of every rule (the Java oracle test runs
// them all).
func allCases() []resolveCase {
	var all []resolveCase
	for _, f := range []func() []resolveCase{promotionCases, defaultCases, enumCases, fixedCases, recordCases, recursiveCases, unionCases, aliasElsewhereCases, logicalCases} {
		all = append(all, f()...)
	}
	return all
}

func runCases(t *testing.T, cases []resolveCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, r := mustParse(t, tc.writer), mustParse(t, tc.reader)
			res, err := resolve.Compile(w, r)
			if tc.compileErr {
				if err == nil {
					t.Fatalf("Compile succeeded, want error %v", tc.wantErr)
				}
				checkErr(t, err, tc.wantErr, tc.errMsg)
				return
			}
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			b := encode(t, tc.writer, tc.datum)
			got, err := res.DecodeJSON(b)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("DecodeJSON = %s, want error %v", got, tc.wantErr)
				}
				checkErr(t, err, tc.wantErr, tc.errMsg)
				// Decode (native form) fails the same way.
				if _, err := res.Decode(b); !errors.Is(err, tc.wantErr) {
					t.Errorf("Decode error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeJSON: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("DecodeJSON\n got %s\nwant %s", got, tc.want)
			}
			// The native form must be a valid value of the reader schema:
			// goavro's reader codec re-encodes it.
			native, err := res.Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			rc, err := goavro.NewCodec(tc.reader)
			if err != nil {
				return // a reader goavro rejects; the JSON check above is enough
			}
			if _, err := rc.BinaryFromNative(nil, native); err != nil {
				t.Errorf("reader codec cannot encode Decode's value %#v: %v", native, err)
			}
		})
	}
}

func checkErr(t *testing.T, err, want error, msg string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %v", err, want)
	}
	var re *resolve.Error
	if !errors.As(err, &re) {
		t.Errorf("error %q is not a *resolve.Error", err)
	}
	if msg != "" && !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not contain %q", err, msg)
	}
}

func promotionCases() []resolveCase {
	return []resolveCase{
		{name: "int to long", writer: `"int"`, reader: `"long"`, datum: int32(-7), want: `-7`},
		{name: "int to float exact", writer: `"int"`, reader: `"float"`, datum: int32(3), want: `3.0`},
		{name: "int to float precision loss", writer: `"int"`, reader: `"float"`, datum: int32(16777217), want: `1.6777216E7`},
		{name: "int to double", writer: `"int"`, reader: `"double"`, datum: int32(2147483647), want: `2.147483647E9`},
		{name: "long to float", writer: `"long"`, reader: `"float"`, datum: int64(1 << 40), want: `1.0995116E12`},
		{name: "long to double precision loss", writer: `"long"`, reader: `"double"`, datum: int64(9007199254740993), want: `9.007199254740992E15`},
		{name: "float to double", writer: `"float"`, reader: `"double"`, datum: float32(0.1), want: `0.10000000149011612`},
		{name: "string to bytes non-ascii", writer: `"string"`, reader: `"bytes"`, datum: "é", want: `"Ã©"`},
		{name: "bytes to string", writer: `"bytes"`, reader: `"string"`, datum: []byte("hi\n"), want: `"hi\n"`},
		{name: "same type", writer: `"double"`, reader: `"double"`, datum: 1e-5, want: `1.0E-5`},
		{name: "nested in record", writer: rec(`{"name":"a","type":"int"},{"name":"b","type":"float"}`),
			reader: rec(`{"name":"b","type":"double"},{"name":"a","type":"long"}`),
			datum:  map[string]any{"a": int32(1), "b": float32(1.5)}, want: `{"b":1.5,"a":1}`},
		{name: "array items", writer: `{"type":"array","items":"int"}`, reader: `{"type":"array","items":"double"}`,
			datum: []any{int32(1), int32(2)}, want: `[1.0,2.0]`},
		{name: "map values", writer: `{"type":"map","values":"long"}`, reader: `{"type":"map","values":"float"}`,
			datum: map[string]any{"b": int64(2), "a": int64(1)}, want: `{"a":1.0,"b":2.0}`},
		{name: "no demotion long to int", writer: `"long"`, reader: `"int"`, compileErr: true,
			wantErr: resolve.ErrTypeMismatch, errMsg: `/: reader type: INT not compatible with writer type: LONG`},
		{name: "no double to float", writer: `"double"`, reader: `"float"`, compileErr: true, wantErr: resolve.ErrIncompatible},
		{name: "string to int", writer: rec(`{"name":"a","type":"string"}`), reader: rec(`{"name":"a","type":"int"}`),
			compileErr: true, wantErr: resolve.ErrTypeMismatch, errMsg: `/fields/0 "a": reader type: INT not compatible with writer type: STRING`},
	}
}

func TestPromotions(t *testing.T) { runCases(t, promotionCases()) }

func defaultCases() []resolveCase {
	w := rec(`{"name":"id","type":"int"}`)
	field := func(typ, def string) string {
		return rec(`{"name":"id","type":"int"},{"name":"d","type":` + typ + `,"default":` + def + `}`)
	}
	datum := map[string]any{"id": int32(1)}
	return []resolveCase{
		{name: "int", writer: w, reader: field(`"int"`, `-3`), datum: datum, want: `{"id":1,"d":-3}`},
		{name: "long beyond 2^53", writer: w, reader: field(`"long"`, `9007199254740993`), datum: datum, want: `{"id":1,"d":9007199254740993}`},
		{name: "float", writer: w, reader: field(`"float"`, `1.5`), datum: datum, want: `{"id":1,"d":1.5}`},
		{name: "double from integer literal", writer: w, reader: field(`"double"`, `2`), datum: datum, want: `{"id":1,"d":2.0}`},
		{name: "boolean", writer: w, reader: field(`"boolean"`, `true`), datum: datum, want: `{"id":1,"d":true}`},
		{name: "string", writer: w, reader: field(`"string"`, `"x\"y"`), datum: datum, want: `{"id":1,"d":"x\"y"}`},
		{name: "bytes latin-1", writer: w, reader: field(`"bytes"`, `"\u00ff\u0000A"`), datum: datum, want: `{"id":1,"d":"ÿ\u0000A"}`},
		{name: "fixed latin-1", writer: w, reader: field(`{"type":"fixed","name":"F","size":2}`, `"\u00e9\u0001"`), datum: datum, want: `{"id":1,"d":"é\u0001"}`},
		{name: "string escapes as Jackson", writer: w, reader: field(`"string"`, `"\u001f\n/\u2028"`), datum: datum, want: "{\"id\":1,\"d\":\"\\u001F\\n/\u2028\"}"},
		{name: "bytes escapes as Jackson", writer: w, reader: field(`"bytes"`, `"\u001a\u0080"`), datum: datum, want: "{\"id\":1,\"d\":\"\\u001A\u0080\"}"},
		{name: "enum", writer: w, reader: field(`{"type":"enum","name":"E","symbols":["A","B"]}`, `"B"`), datum: datum, want: `{"id":1,"d":"B"}`},
		{name: "array", writer: w, reader: field(`{"type":"array","items":"long"}`, `[1,2]`), datum: datum, want: `{"id":1,"d":[1,2]}`},
		{name: "map", writer: w, reader: field(`{"type":"map","values":"string"}`, `{"k":"v"}`), datum: datum, want: `{"id":1,"d":{"k":"v"}}`},
		{name: "null union", writer: w, reader: field(`["null","string"]`, `null`), datum: datum, want: `{"id":1,"d":null}`},
		{name: "union first branch", writer: w, reader: field(`["string","null"]`, `"x"`), datum: datum, want: `{"id":1,"d":{"string":"x"}}`},
		{name: "union of record", writer: w, reader: field(`[{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]},"null"]`, `{"x":4}`),
			datum: datum, want: `{"id":1,"d":{"ns.S":{"x":4}}}`},
		{name: "record with sub-field defaults", writer: w,
			reader: field(`{"type":"record","name":"S","fields":[{"name":"x","type":"int"},{"name":"y","type":"int","default":7},{"name":"z","type":{"type":"record","name":"T","fields":[{"name":"q","type":"string","default":"q"}]},"default":{}}]}`, `{"x":1}`),
			datum:  datum, want: `{"id":1,"d":{"x":1,"y":7,"z":{"q":"q"}}}`},
		{name: "timestamp default", writer: w, reader: field(`{"type":"long","logicalType":"timestamp-millis"}`, `1500`), datum: datum, want: `{"id":1,"d":1500}`},
		{name: "union default matching a later branch", writer: w, reader: field(`["null","int"]`, `5`), datum: datum, want: `{"id":1,"d":{"int":5}}`},
		{name: "union default of a logical branch", writer: w, reader: field(`[{"type":"long","logicalType":"timestamp-millis"},"null"]`, `7`), datum: datum, want: `{"id":1,"d":{"long":7}}`},
		{name: "array of unions default", writer: w, reader: field(`{"type":"array","items":["null","string"]}`, `[null,"a"]`), datum: datum, want: `{"id":1,"d":[null,{"string":"a"}]}`},
		{name: "missing default", writer: w, reader: rec(`{"name":"id","type":"int"},{"name":"d","type":"int"}`),
			compileErr: true, wantErr: resolve.ErrMissingDefault, errMsg: `/fields/1 "d": field missing in writer and no default`},
		{name: "enum field default not a symbol", writer: w, reader: field(`{"type":"enum","name":"E","symbols":["A"]}`, `"Z"`),
			compileErr: true, wantErr: resolve.ErrInvalidDefault, errMsg: `/fields/1 "d"`},
	}
}

func TestDefaults(t *testing.T) { runCases(t, defaultCases()) }

func enumCases() []resolveCase {
	w := `{"type":"enum","name":"E","symbols":["A","B","C"]}`
	inRec := func(e string) string { return rec(`{"name":"id","type":"int"},{"name":"status","type":` + e + `}`) }
	return []resolveCase{
		{name: "reordered", writer: w, reader: `{"type":"enum","name":"E","symbols":["C","B","A"]}`, datum: "B", want: `"B"`},
		{name: "unknown symbol takes reader default", writer: w, reader: `{"type":"enum","name":"E","symbols":["A","B","X"],"default":"X"}`, datum: "C", want: `"X"`},
		{name: "known symbol keeps its value", writer: w, reader: `{"type":"enum","name":"E","symbols":["A","B","X"],"default":"X"}`, datum: "A", want: `"A"`},
		{name: "unknown symbol without default", writer: inRec(w), reader: inRec(`{"type":"enum","name":"E","symbols":["A","B"]}`),
			datum: map[string]any{"id": int32(1), "status": "C"}, wantErr: resolve.ErrEnumSymbol,
			errMsg: `/fields/1 "status": enum symbol "C" not in reader and no default`},
		{name: "field default is no fallback", writer: inRec(w),
			reader: rec(`{"name":"id","type":"int"},{"name":"status","type":{"type":"enum","name":"E","symbols":["A","B"]},"default":"A"}`),
			datum:  map[string]any{"id": int32(1), "status": "C"}, wantErr: resolve.ErrEnumSymbol},
		{name: "namespace change by short name", writer: `{"type":"enum","name":"p.E","symbols":["A"]}`, reader: `{"type":"enum","name":"q.E","symbols":["A"]}`, datum: "A", want: `"A"`},
		{name: "rename by alias", writer: `{"type":"enum","name":"p.Old","symbols":["A"]}`, reader: `{"type":"enum","name":"p.New","aliases":["Old"],"symbols":["A"]}`, datum: "A", want: `"A"`},
		{name: "rename without alias", writer: `{"type":"enum","name":"Old","symbols":["A"]}`, reader: `{"type":"enum","name":"New","symbols":["A"]}`,
			compileErr: true, wantErr: resolve.ErrNameMismatch, errMsg: `/name: expected: Old`},
	}
}

// Outside unions Java compares enum and fixed short names after renaming
// the writer by the reader's aliases: an alias elsewhere in the reader
// schema can rename the writer away from a namesake.
func aliasElsewhereCases() []resolveCase {
	return []resolveCase{
		{name: "enum renamed by an alias elsewhere in the reader",
			writer: rec(`{"name":"e","type":{"type":"enum","name":"p.E","symbols":["A"]}}`),
			reader: rec(`{"name":"e","type":{"type":"enum","name":"q.E","symbols":["A"]}},{"name":"x","type":{"type":"enum","name":"r.X","aliases":["p.E"],"symbols":["A"]},"default":"A"}`),
			datum:  map[string]any{"e": "A"}, compileErr: true, wantErr: resolve.ErrNameMismatch},
	}
}

func TestAliasElsewhere(t *testing.T) { runCases(t, aliasElsewhereCases()) }

func TestEnums(t *testing.T) { runCases(t, enumCases()) }

func fixedCases() []resolveCase {
	return []resolveCase{
		{name: "same", writer: `{"type":"fixed","name":"F","size":3}`, reader: `{"type":"fixed","name":"F","size":3}`, datum: []byte{0, 0x7f, 0xff}, want: "\"\\u0000\x7fÿ\""},
		{name: "size change", writer: `{"type":"fixed","name":"F","size":3}`, reader: `{"type":"fixed","name":"F","size":4}`,
			compileErr: true, wantErr: resolve.ErrFixedSize, errMsg: `/size: expected: 3, found: 4`},
		{name: "alias", writer: `{"type":"fixed","name":"a.G","size":1}`, reader: `{"type":"fixed","name":"b.F","aliases":["a.G"],"size":1}`, datum: []byte{65}, want: `"A"`},
		{name: "fixed to bytes", writer: `{"type":"fixed","name":"F","size":1}`, reader: `"bytes"`, compileErr: true, wantErr: resolve.ErrTypeMismatch},
	}
}

func TestFixed(t *testing.T) { runCases(t, fixedCases()) }

func recordCases() []resolveCase {
	return []resolveCase{
		{name: "writer-only fields of every kind dropped",
			writer: rec(`{"name":"a","type":{"type":"array","items":"string"}},{"name":"m","type":{"type":"map","values":"int"}},{"name":"u","type":["null","string"]},{"name":"r","type":{"type":"record","name":"In","fields":[{"name":"x","type":"long"}]}},{"name":"keep","type":"string"}`),
			reader: rec(`{"name":"keep","type":"string"}`),
			datum: map[string]any{"a": []any{"x", "y"}, "m": map[string]any{"k": int32(1)}, "u": goavro.Union("string", "s"),
				"r": map[string]any{"x": int64(9)}, "keep": "yes"},
			want: `{"keep":"yes"}`},
		{name: "field alias rename", writer: rec(`{"name":"old","type":"int"},{"name":"x","type":"int"}`),
			reader: rec(`{"name":"x","type":"int"},{"name":"new","aliases":["old"],"type":"long"}`),
			datum:  map[string]any{"old": int32(1), "x": int32(2)}, want: `{"x":2,"new":1}`},
		{name: "field swap by aliases", writer: rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`),
			reader: rec(`{"name":"b","aliases":["a"],"type":"int"},{"name":"a","aliases":["b"],"type":"string"}`),
			datum:  map[string]any{"a": int32(1), "b": "s"}, want: `{"b":1,"a":"s"}`},
		{name: "alias wins over same name (Java applyAliases)", writer: rec(`{"name":"a","type":"int"}`),
			reader: rec(`{"name":"b","aliases":["a"],"type":"int"},{"name":"a","type":"int","default":0}`),
			datum:  map[string]any{"a": int32(5)}, want: `{"b":5,"a":0}`},
		{name: "ambiguous", writer: rec(`{"name":"a","type":"int"},{"name":"b","type":"int"}`),
			reader:     rec(`{"name":"b","aliases":["a"],"type":"int"}`),
			compileErr: true, wantErr: resolve.ErrAmbiguousField, errMsg: `/fields/0 "b"`},
		{name: "record rename outside unions is read (Java decoder)", writer: `{"type":"record","name":"a.Old","fields":[{"name":"x","type":"int"}]}`,
			reader: `{"type":"record","name":"b.New","fields":[{"name":"x","type":"int"}]}`, datum: map[string]any{"x": int32(3)}, want: `{"x":3}`},
		{name: "nested record with added field",
			writer: rec(`{"name":"in","type":{"type":"record","name":"In","fields":[{"name":"x","type":"int"}]}}`),
			reader: rec(`{"name":"in","type":{"type":"record","name":"In","fields":[{"name":"x","type":"int"},{"name":"y","type":["null","int"],"default":null}]}}`),
			datum:  map[string]any{"in": map[string]any{"x": int32(1)}}, want: `{"in":{"x":1,"y":null}}`},
		{name: "array of records with added defaulted field",
			writer: `{"type":"array","items":{"type":"record","name":"I","fields":[{"name":"x","type":"int"}]}}`,
			reader: `{"type":"array","items":{"type":"record","name":"I","fields":[{"name":"x","type":"int"},{"name":"t","type":"string","default":"t"}]}}`,
			datum:  []any{map[string]any{"x": int32(1)}, map[string]any{"x": int32(2)}}, want: `[{"x":1,"t":"t"},{"x":2,"t":"t"}]`},
		{name: "empty array with an unresolvable element type", writer: `{"type":"array","items":"string"}`, reader: `{"type":"array","items":"int"}`,
			datum: []any{}, want: `[]`},
		{name: "non-empty array with an unresolvable element type", writer: `{"type":"array","items":"string"}`, reader: `{"type":"array","items":"int"}`,
			datum: []any{"x"}, wantErr: resolve.ErrTypeMismatch, errMsg: `/items`},
	}
}

func TestRecords(t *testing.T) { runCases(t, recordCases()) }

func recursiveCases() []resolveCase {
	wl := `{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}`
	rl := `{"type":"record","name":"Node","fields":[{"name":"v","type":"long"},{"name":"next","type":["null","Node"]},{"name":"tag","type":"string","default":"t"}]}`
	wt := `{"type":"record","name":"Tree","fields":[{"name":"v","type":"int"},{"name":"kids","type":{"type":"array","items":"Tree"}}]}`
	rt := `{"type":"record","name":"Tree","fields":[{"name":"v","type":"double"},{"name":"kids","type":{"type":"array","items":"Tree"}}]}`
	list := map[string]any{"v": int32(1), "next": goavro.Union("Node", map[string]any{"v": int32(2), "next": nil})}
	tree := map[string]any{"v": int32(1), "kids": []any{map[string]any{"v": int32(2), "kids": []any{}}}}
	return []resolveCase{
		{name: "list with promotion and default", writer: wl, reader: rl, datum: list,
			want: `{"v":1,"next":{"Node":{"v":2,"next":null,"tag":"t"}},"tag":"t"}`},
		{name: "list identity", writer: wl, reader: wl, datum: list, want: `{"v":1,"next":{"Node":{"v":2,"next":null}}}`},
		{name: "tree via arrays", writer: wt, reader: rt, datum: tree, want: `{"v":1.0,"kids":[{"v":2.0,"kids":[]}]}`},
	}
}

func TestRecursive(t *testing.T) { runCases(t, recursiveCases()) }

func unionCases() []resolveCase {
	inner := func(name string, fields string) string {
		return `{"type":"record","name":"` + name + `","fields":[` + fields + `]}`
	}
	return []resolveCase{
		{name: "union to union reordered", writer: `["null","int","string"]`, reader: `["string","int","null"]`, datum: goavro.Union("int", int32(4)), want: `{"int":4}`},
		{name: "union to union null", writer: `["null","int"]`, reader: `["int","null"]`, datum: nil, want: `null`},
		{name: "union branch promotion", writer: `["null","int"]`, reader: `["null","long"]`, datum: goavro.Union("int", int32(4)), want: `{"long":4}`},
		{name: "union to plain", writer: `["null","string"]`, reader: `"string"`, datum: goavro.Union("string", "s"), want: `"s"`},
		{name: "union to plain null branch fails at runtime", writer: rec(`{"name":"u","type":["null","string"]}`), reader: rec(`{"name":"u","type":"string"}`),
			datum: map[string]any{"u": nil}, wantErr: resolve.ErrUnionBranch, errMsg: `/fields/0 "u": writer union branch 0 (null)`},
		{name: "union branch missing in reader union", writer: `["null","int","string"]`, reader: `["null","int"]`,
			datum: goavro.Union("string", "s"), wantErr: resolve.ErrUnionBranch},
		{name: "union no branch readable", writer: `["null","string"]`, reader: `"int"`, compileErr: true, wantErr: resolve.ErrTypeMismatch},
		{name: "plain to union exact before promotion", writer: `"int"`, reader: `["null","long","int"]`, datum: int32(3), want: `{"int":3}`},
		{name: "plain to union first promotion in reader order", writer: `"int"`, reader: `["null","double","long"]`, datum: int32(3), want: `{"double":3.0}`},
		{name: "plain to union string to bytes", writer: `"string"`, reader: `["null","bytes"]`, datum: "a", want: `{"bytes":"a"}`},
		{name: "plain to union null", writer: `"null"`, reader: `["null","string"]`, datum: nil, want: `null`},
		{name: "plain to union float before double", writer: `"long"`, reader: `["null","float","double"]`, datum: int64(3), want: `{"float":3.0}`},
		{name: "plain to union string exact before bytes", writer: `"string"`, reader: `["bytes","string"]`, datum: "s", want: `{"string":"s"}`},
		{name: "plain to union bytes to string", writer: `"bytes"`, reader: `["null","int","string"]`, datum: []byte("b"), want: `{"string":"b"}`},
		{name: "plain to union enum by full name", writer: `{"type":"enum","name":"a.E","symbols":["X","Y"]}`,
			reader: `["null",{"type":"enum","name":"a.E","symbols":["Y","Z"],"default":"Z"}]`, datum: "X", want: `{"a.E":"Z"}`},
		{name: "plain to union record alias", writer: inner("a.Old", `{"name":"x","type":"int"}`),
			reader: `["null",` + `{"type":"record","name":"b.New","aliases":["a.Old"],"fields":[{"name":"x","type":"long"}]}` + `]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"b.New":{"x":1}}`},
		{name: "map of unions", writer: `{"type":"map","values":["null","int"]}`, reader: `{"type":"map","values":["double","null"]}`,
			datum: map[string]any{"a": goavro.Union("int", int32(1)), "b": nil}, want: `{"a":{"double":1.0},"b":null}`},
		{name: "union to union with record promotion inside", writer: `["null",` + inner("a.R", `{"name":"x","type":"int"},{"name":"drop","type":"string"}`) + `]`,
			reader: `[` + inner("a.R", `{"name":"x","type":"double"}`) + `,"null"]`,
			datum:  goavro.Union("a.R", map[string]any{"x": int32(2), "drop": "d"}), want: `{"a.R":{"x":2.0}}`},
		{name: "writer union to single-branch reader union", writer: `["int","long"]`, reader: `["double"]`, datum: goavro.Union("long", int64(4)), want: `{"double":4.0}`},
		{name: "plain to union lacking", writer: `"string"`, reader: `["null","int"]`, compileErr: true,
			wantErr: resolve.ErrMissingUnionBranch, errMsg: `/: reader union lacking writer type: STRING`},
		{name: "record in union by full name", writer: inner("a.R", `{"name":"x","type":"int"}`),
			reader: `[` + inner("b.R", `{"name":"x","type":"int"}`) + `,` + inner("a.R", `{"name":"x","type":"long"}`) + `]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"a.R":{"x":1}}`},
		{name: "record in union by structure, same short name preferred", writer: inner("a.R", `{"name":"x","type":"int"}`),
			reader: `[` + inner("b.S", `{"name":"x","type":"int"}`) + `,` + inner("b.R", `{"name":"x","type":"int"}`) + `]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"b.R":{"x":1}}`},
		{name: "record in union by structure skips unresolvable", writer: inner("a.R", `{"name":"x","type":"int"}`),
			reader: `[` + inner("b.S", `{"name":"y","type":"int"}`) + `,` + inner("b.T", `{"name":"x","type":"int"}`) + `]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"b.T":{"x":1}}`},
		// Java picks enum and fixed branches by full name only
		// (Resolver.ReaderUnion.firstMatchingBranch): "Found p.E, expecting
		// union", although the short names agree.
		{name: "enum in union with namespace change", writer: rec(`{"name":"e","type":{"type":"enum","name":"p.E","symbols":["A"]}}`),
			reader: rec(`{"name":"e","type":["null",{"type":"enum","name":"q.E","symbols":["A"]}]}`),
			datum:  map[string]any{"e": "A"}, compileErr: true, wantErr: resolve.ErrMissingUnionBranch, errMsg: `reader union lacking writer type: ENUM`},
		{name: "fixed in union with namespace change", writer: `{"type":"fixed","name":"p.F","size":2}`,
			reader: `["null",{"type":"fixed","name":"q.F","size":2}]`,
			datum:  []byte("ab"), compileErr: true, wantErr: resolve.ErrMissingUnionBranch, errMsg: `reader union lacking writer type: FIXED`},
		{name: "fixed in union by full name after a namesake", writer: `{"type":"fixed","name":"p.F","size":2}`,
			reader: `[{"type":"fixed","name":"q.F","size":2},{"type":"fixed","name":"p.F","size":2}]`,
			datum:  []byte("ab"), want: `{"p.F":"ab"}`},
		{name: "enum in union by alias", writer: `{"type":"enum","name":"p.Old","symbols":["A","B"]}`,
			reader: `["null","string",{"type":"enum","name":"q.New","aliases":["p.Old"],"symbols":["B","A"]}]`,
			datum:  "A", want: `{"q.New":"A"}`},
		{name: "enum in union not read as string", writer: `{"type":"enum","name":"p.E","symbols":["A"]}`,
			reader: `["null","string"]`, datum: "A", compileErr: true, wantErr: resolve.ErrMissingUnionBranch},
		// Equivalent unions (Java's unionEquiv: short names) are read branch
		// by branch, by position.
		{name: "writer union enum branch with namespace change", writer: `["null",{"type":"enum","name":"p.E","symbols":["A"]}]`,
			reader: `["null",{"type":"enum","name":"q.E","symbols":["A"]}]`, datum: goavro.Union("p.E", "A"), want: `{"q.E":"A"}`},
		// Java renames nothing when the writer equals the reader (equality
		// ignores aliases).
		{name: "equal schemas: no alias renaming", writer: `[` + inner("a.W", `{"name":"x","type":"int"}`) + `,` + inner("b.N", `{"name":"x","type":"int"}`) + `]`,
			reader: `[` + inner("a.W", `{"name":"x","type":"int"}`) + `,{"type":"record","name":"b.N","aliases":["a.W"],"fields":[{"name":"x","type":"int"}]}]`,
			datum:  goavro.Union("a.W", map[string]any{"x": int32(1)}), want: `{"a.W":{"x":1}}`},
		// ... else it renames, and a writer union with two branches of one
		// name fails ("Duplicate in union").
		{name: "unequal schemas: alias renaming makes a duplicate", writer: `[` + inner("a.W", `{"name":"x","type":"int"}`) + `,` + inner("b.N", `{"name":"x","type":"int"}`) + `]`,
			reader: `[` + inner("a.W", `{"name":"x","type":"int"}`) + `,{"type":"record","name":"b.N","aliases":["a.W"],"fields":[{"name":"x","type":"long"}]}]`,
			datum:  goavro.Union("a.W", map[string]any{"x": int32(1)}), compileErr: true, wantErr: resolve.ErrNameMismatch, errMsg: "Duplicate in union"},
		{name: "unequal schemas: alias renaming", writer: `["null",` + inner("a.W", `{"name":"x","type":"int"}`) + `]`,
			reader: `[` + inner("a.W", `{"name":"x","type":"int"}`) + `,{"type":"record","name":"b.N","aliases":["a.W"],"fields":[{"name":"x","type":"long"}]},"null"]`,
			datum:  goavro.Union("a.W", map[string]any{"x": int32(1)}), want: `{"b.N":{"x":1}}`},
		{name: "equivalent unions map branches by position", writer: `[` + inner("a.R", `{"name":"x","type":"int"}`) + `,` + inner("b.R", `{"name":"x","type":"int"}`) + `]`,
			reader: `[` + inner("c.R", `{"name":"x","type":"int"}`) + `,` + inner("a.R", `{"name":"x","type":"int"}`) + `]`,
			datum:  goavro.Union("a.R", map[string]any{"x": int32(3)}), want: `{"c.R":{"x":3}}`},
		{name: "writer union not equivalent: enum branch by full name", writer: `["null",{"type":"enum","name":"p.E","symbols":["A"]},"int"]`,
			reader: `["null",{"type":"enum","name":"q.E","symbols":["A"]}]`, datum: goavro.Union("p.E", "A"), wantErr: resolve.ErrUnionBranch},
		{name: "writer union enum branch with namespace change, null datum", writer: `["null",{"type":"enum","name":"p.E","symbols":["A"]}]`,
			reader: `["null",{"type":"enum","name":"q.E","symbols":["A"]}]`, datum: nil, want: `null`},
		// Java renames the writer by every alias of the reader schema
		// first: a branch that aliases the writer's name beats an earlier
		// branch carrying that very name.
		{name: "record alias beats a branch of the same name", writer: inner("a.W", `{"name":"x","type":"int"}`),
			reader: `[` + inner("a.W", `{"name":"x","type":"int"}`) + `,{"type":"record","name":"b.N","aliases":["a.W"],"fields":[{"name":"x","type":"long"}]}]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"b.N":{"x":1}}`},
		{name: "record same short name other namespace beats first structural match", writer: inner("a.R", `{"name":"x","type":"int"}`),
			reader: `["null",` + inner("b.S", `{"name":"x","type":"long"}`) + `,` + inner("c.R", `{"name":"x","type":"int"},{"name":"y","type":"string","default":"d"}`) + `]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"c.R":{"x":1,"y":"d"}}`},
		{name: "record first of several structural matches", writer: inner("a.W", `{"name":"x","type":"int"}`),
			reader: `[` + inner("b.S", `{"name":"x","type":"long"}`) + `,` + inner("b.T", `{"name":"x","type":"int"}`) + `]`,
			datum:  map[string]any{"x": int32(1)}, want: `{"b.S":{"x":1}}`},
		// The structural match looks at the top level only: a nested record
		// whose own field fails does not disqualify the branch (Java then
		// fails on the datum) ...
		{name: "record structural match ignores errors nested deeper", writer: inner("a.W", `{"name":"n","type":`+inner("a.N", `{"name":"v","type":"int"}`)+`}`),
			reader: `[` + inner("b.S", `{"name":"n","type":`+inner("b.N1", `{"name":"v","type":"boolean"}`)+`}`) + `,` + inner("b.T", `{"name":"n","type":`+inner("b.N2", `{"name":"v","type":"int"}`)+`}`) + `]`,
			datum:  map[string]any{"n": map[string]any{"v": int32(1)}}, compileErr: true, wantErr: resolve.ErrTypeMismatch},
		// ... but a nested record lacking a required field does.
		{name: "record structural match sees nested missing field", writer: inner("a.W", `{"name":"n","type":`+inner("a.N", `{"name":"v","type":"int"}`)+`}`),
			reader: `[` + inner("b.S", `{"name":"n","type":`+inner("b.N1", `{"name":"v","type":"int"},{"name":"req","type":"int"}`)+`}`) + `,` + inner("b.T", `{"name":"n","type":`+inner("b.N2", `{"name":"v","type":"int"}`)+`}`) + `]`,
			datum:  map[string]any{"n": map[string]any{"v": int32(1)}}, want: `{"b.T":{"n":{"v":1}}}`},
		{name: "record structural match sees a field's unreadable union", writer: inner("a.W", `{"name":"e","type":{"type":"enum","name":"p.E","symbols":["A"]}}`),
			reader: `[` + inner("b.S", `{"name":"e","type":["null",{"type":"enum","name":"q.E","symbols":["A"]}]}`) + `,` + inner("b.T", `{"name":"e","type":["null",{"type":"enum","name":"p.E","symbols":["A"]}]}`) + `]`,
			datum:  map[string]any{"e": "A"}, want: `{"b.T":{"e":{"p.E":"A"}}}`},
		// Field aliases belong to the reader record of the writer's name:
		// a differently named writer record does not get them.
		{name: "field alias needs the record name", writer: inner("a.W", `{"name":"old","type":"int"}`),
			reader: `["null",{"type":"record","name":"b.R","fields":[{"name":"new","type":"int","aliases":["old"],"default":0}]}]`,
			datum:  map[string]any{"old": int32(5)}, want: `{"b.R":{"new":0}}`},
		{name: "field alias with the record name", writer: inner("b.R", `{"name":"old","type":"int"}`),
			reader: `["null",{"type":"record","name":"b.R","fields":[{"name":"new","type":"int","aliases":["old"],"default":0}]}]`,
			datum:  map[string]any{"old": int32(5)}, want: `{"b.R":{"new":5}}`},
		{name: "primitive mix exact before promotion", writer: `"long"`, reader: `["null","double","string","long","int"]`, datum: int64(7), want: `{"long":7}`},
		{name: "primitive mix null", writer: `"null"`, reader: `["string",{"type":"enum","name":"E","symbols":["A"]},"null"]`, datum: nil, want: `null`},
		{name: "primitive mix bytes after named", writer: `"string"`, reader: `[{"type":"fixed","name":"F","size":1},"bytes"]`, datum: "s", want: `{"bytes":"s"}`},
		{name: "writer union of records to reader union", writer: `["null",` + inner("a.R", `{"name":"x","type":"int"}`) + `]`,
			reader: `["null",` + inner("a.R", `{"name":"x","type":"int"},{"name":"y","type":"int","default":2}`) + `]`,
			datum:  goavro.Union("a.R", map[string]any{"x": int32(1)}), want: `{"a.R":{"x":1,"y":2}}`},
		{name: "null-namespace enum inside a namespaced record", writer: `{"type":"record","name":"a.R","fields":[{"name":"e","type":["null",{"type":"enum","name":"E","namespace":"","symbols":["X"]}]},{"name":"f","type":"E"}]}`,
			reader: `{"type":"record","name":"a.R","fields":[{"name":"e","type":["null",{"type":"enum","name":"E","namespace":"","symbols":["X"]}]},{"name":"f","type":"E"}]}`,
			datum:  map[string]any{"e": goavro.Union("a.E", "X"), "f": "X"}, want: `{"e":{"E":"X"},"f":"X"}`},
		{name: "map and array branches", writer: `["null",{"type":"array","items":"int"},{"type":"map","values":"int"}]`,
			reader: `[{"type":"map","values":"long"},{"type":"array","items":"long"},"null"]`,
			datum:  goavro.Union("map", map[string]any{"k": int32(1)}), want: `{"map":{"k":1}}`},
	}
}

func TestUnions(t *testing.T) { runCases(t, unionCases()) }

func logicalCases() []resolveCase {
	return []resolveCase{
		{name: "timestamp-millis over long", writer: `"long"`, reader: `{"type":"long","logicalType":"timestamp-millis"}`, datum: int64(1700000000123), want: `1700000000123`},
		{name: "timestamp-millis read as long", writer: `{"type":"long","logicalType":"timestamp-millis"}`, reader: `"long"`, datum: int64(5), want: `5`},
		{name: "date over int", writer: `"int"`, reader: `{"type":"int","logicalType":"date"}`, datum: int32(3), want: `3`},
		{name: "int to timestamp via long", writer: `"int"`, reader: `{"type":"long","logicalType":"timestamp-micros"}`, datum: int32(3), want: `3`},
		{name: "decimal in union", writer: `{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}`,
			reader: `["null",{"type":"bytes","logicalType":"decimal","precision":5,"scale":3}]`, datum: big.NewRat(1234, 100), want: `{"bytes":"\u0004Ò"}`},
	}
}

func TestLogicalTypes(t *testing.T) { runCases(t, logicalCases()) }

func TestDecodeErrors(t *testing.T) {
	w := mustParse(t, rec(`{"name":"a","type":"string"},{"name":"b","type":"long"}`))
	res, err := resolve.Compile(w, w)
	if err != nil {
		t.Fatal(err)
	}
	good := encode(t, rec(`{"name":"a","type":"string"},{"name":"b","type":"long"}`), map[string]any{"a": "hello", "b": int64(1 << 40)})
	for name, b := range map[string][]byte{
		"truncated": good[:len(good)-2],
		"trailing":  append(append([]byte{}, good...), 0),
		"empty":     {},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := res.Decode(b)
			checkErr(t, err, resolve.ErrDecode, "")
			if _, err := res.DecodeJSON(b); !errors.Is(err, resolve.ErrDecode) {
				t.Errorf("DecodeJSON error = %v", err)
			}
		})
	}
}
