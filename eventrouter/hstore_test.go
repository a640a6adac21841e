package eventrouter

import (
	"encoding/json"
	"errors"
	"testing"
)

// hstore under hstore.handling.mode=json: Jackson's JSON of the
// java.util.HashMap HStoreConverter.fromString fills, so the keys come in
// HashMap order; the differential test's pg_hstore variant checks it
// against the connector.
func TestPgHstoreValue(t *testing.T) {
	s, err := ColumnSchema(Postgres, "hstore", true)
	if err != nil || s.Type != String || s.Name != NameJSON {
		t.Fatalf("schema %+v, %v; want io.debezium.data.Json", s, err)
	}
	for _, tc := range []struct{ in, want string }{
		// "a".hashCode() 97, "b" 98, "c" 99: buckets 1, 2, 3
		{`"c=>3, b=>2, a=>1"`, `{"a":"1","b":"2","c":"3"}`},
		// "aa" 3104 (bucket 0), "z" 122 (bucket 10), "ab" 3105 (bucket 1)
		{`"\"z\"=>\"x\", \"aa\"=>NULL, ab => \"q\\\"\\\\\""`, `{"aa":null,"ab":"q\"\\","z":"x"}`},
		{`{"k":"v\n","n":null}`, `{"k":"v\n","n":null}`},
		{`""`, `{}`},
		{`"x=>\"NULL\", y=>null"`, `{"x":"NULL","y":null}`},
	} {
		v, err := ColumnValue(Postgres, "hstore", s, json.RawMessage(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if v != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, v, tc.want)
		}
	}
	for _, in := range []string{`"a=>1, a=>2"`, `"a=>"`, `"a 1"`, `{"a":1}`, `"\"a=>1"`} {
		if v, err := ColumnValue(Postgres, "hstore", s, json.RawMessage(in)); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s: %v, %v; want ErrInvalidEvent", in, v, err)
		}
	}
	var se *SettingError
	if err := (ColumnSettings{HStoreHandlingMode: "array"}).Check(Postgres, "h", "hstore", s); !errors.As(err, &se) {
		t.Errorf("hstore.handling.mode=array: %v, want a *SettingError", err)
	}
}

// java.util.HashMap's iteration order: by bucket after the table grows
// past 3/4 (16, 32, ...), insertion order within a bucket.
func TestJavaHashMapOrder(t *testing.T) {
	if h := javaStringHash("hello"); h != 99162322 {
		t.Errorf(`"hello".hashCode() = %d, want 99162322`, h)
	}
	if h := javaStringHash("polygenelubricants"); h != -2147483648 {
		t.Errorf(`"polygenelubricants".hashCode() = %d, want -2147483648`, h)
	}
	// 13 one-letter keys a..m (97..109): past 12 the table is 32 wide,
	// buckets 1..13 in key order either way; "Aa" and "BB" collide (2112)
	var pairs []hstorePair
	for _, k := range []string{"BB", "Aa"} {
		pairs = append(pairs, hstorePair{key: k})
	}
	got := javaHashMapOrder(pairs)
	if got[0].key != "BB" || got[1].key != "Aa" {
		t.Errorf("colliding keys: %v; want insertion order BB, Aa", got)
	}
	// "q" (113): bucket 113&15 = 1 before "a" (97&15 = 1)? both 1 in a
	// 16 table: insertion order; in a 32 table 113&31 = 17, 97&31 = 1
	pairs = nil
	for _, k := range []string{"q", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		pairs = append(pairs, hstorePair{key: k})
	}
	got = javaHashMapOrder(pairs)
	if got[0].key != "a" || got[len(got)-1].key != "q" {
		t.Errorf("after the resize to 32: %v, want a first and q last", got)
	}
	got = javaHashMapOrder(pairs[:2])
	if got[0].key != "q" || got[1].key != "a" {
		t.Errorf("16 buckets: %v, want q, a (bucket 1, insertion order)", got)
	}
}

// hstore.handling.mode=map: a Connect map<string, optional string> in the
// HashMap's order, as the converters print it (checked by the differential
// variants pg_hstore_map and pg_hstore_map_schemaless).
func TestPgHstoreMap(t *testing.T) {
	cs := ColumnSettings{HStoreHandlingMode: "map"}
	s, err := ColumnSchemaWith(Postgres, "hstore", true, cs)
	if err != nil || s.Type != Map || s.Keys.Type != String || s.Keys.Optional || s.Items.Type != String || !s.Items.Optional {
		t.Fatalf("schema %+v, %v; want map<string, optional string>", s, err)
	}
	if err := cs.Check(Postgres, "h", "hstore", s); err != nil {
		t.Fatal(err)
	}
	v, err := ColumnValue(Postgres, "hstore", s, json.RawMessage(`"c=>3, b=>\"x\\\"y\", a=>NULL"`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"toString", javaToString(v), `{a=null, b=x"y, c=3}`},
		{"header", func() string { h, _ := valuesConvertToString(v, false); return h }(), `{"a":null,"b":"x\"y","c":"3"}`},
		{"json", func() string {
			b, _ := convert(Converter{Kind: JSONConverter, SchemasEnable: true}, s, v)
			return string(b)
		}(), `{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":true},"optional":true},"payload":{"a":null,"b":"x\"y","c":"3"}}`},
		{"schemaless", func() string {
			b, _ := convert(Converter{Kind: JSONConverter}, nil, v)
			return string(b)
		}(), `{"a":null,"b":"x\"y","c":"3"}`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	if err := validateValue("h", s, v); err != nil {
		t.Errorf("validate: %v", err)
	}
}
