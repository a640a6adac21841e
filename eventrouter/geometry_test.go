package eventrouter

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The stored form MariaDB 10.11 gives (HEX(col) on the stack: a 4-byte
// little-endian SRID, then little-endian WKB) for sample inputs, and the
// inputs MariaDB stores NULL for or refuses, which the emulator refuses.
func TestBinlogGeometrySample(t *testing.T) {
	for _, tc := range []struct{ col, in, stored string }{
		{"geometry", "SRID=4326;hex:00000000013FF00000000000004000000000000000", "E61000000101000000000000000000F03F0000000000000040"},
		{"point", "POINT(1 2)", "000000000101000000000000000000F03F0000000000000040"},
		{"geometry", "GEOMETRYCOLLECTION EMPTY", "00000000010700000000000000"},
		{"point", "SRID=3857;POINT(-0 1e300)", "110F0000010100000000000000000000809C7500883CE4377E"},
		{"multipoint", "MULTIPOINT(1 2, 3 4)", "000000000104000000020000000101000000000000000000F03F0000000000000040010100000000000000000008400000000000001040"},
		{"polygon", "POLYGON((0 0,1 0,1 1,0 0),(0.2 0.2, 0.3 0.2, 0.3 0.3, 0.2 0.2))", "000000000103000000020000000400000000000000000000000000000000000000000000000000F03F0000000000000000000000000000F03F000000000000F03F00000000000000000000000000000000040000009A9999999999C93F9A9999999999C93F333333333333D33F9A9999999999C93F333333333333D33F333333333333D33F9A9999999999C93F9A9999999999C93F"},
		{"geometrycollection", "GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1 1))", "000000000107000000020000000101000000000000000000F03F000000000000004001020000000200000000000000000000000000000000000000000000000000F03F000000000000F03F"},
		{"geometry", "  point ( 1.50   2 ) ", "000000000101000000000000000000F83F0000000000000040"},
		{"linestring", "LINESTRING(1 2)", "00000000010200000001000000000000000000F03F0000000000000040"},
		{"multipolygon", "MULTIPOLYGON(((0 0,1 0,1 1,0 0)))", "000000000106000000010000000103000000010000000400000000000000000000000000000000000000000000000000F03F0000000000000000000000000000F03F000000000000F03F00000000000000000000000000000000"},
		{"multilinestring", "MULTILINESTRING((0 0,1 1),(2 2,3 3))", "0000000001050000000200000001020000000200000000000000000000000000000000000000000000000000F03F000000000000F03F0102000000020000000000000000000040000000000000004000000000000008400000000000000840"},
		{"geometry", "POINT(1E1 2)", "00000000010100000000000000000024400000000000000040"},
		{"geometry", "SRID=4294967295;POINT(1 2)", "FFFFFFFF0101000000000000000000F03F0000000000000040"},
		{"geometrycollection", "POINT(0 0)", "00000000010100000000000000000000000000000000000000"},
	} {
		s, err := ColumnSchema(MariaDB, tc.col, true)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ColumnValue(MariaDB, tc.col, s, json.RawMessage(fmt.Sprintf("%q", tc.in)))
		if err != nil {
			t.Errorf("%s %q: %v", tc.col, tc.in, err)
			continue
		}
		stored, _ := hex.DecodeString(tc.stored)
		want, err := BinlogGeometryValue(tc.col, s, stored)
		if err != nil {
			t.Fatal(err)
		}
		if got := javaToString(v); got != javaToString(want) || !bytesEqual(v.(*Struct).Values[s.fieldIndex("wkb")].([]byte), stored[4:]) {
			t.Errorf("%s %q: %s, want %s", tc.col, tc.in, got, tc.stored)
		}
	}
	for _, tc := range []struct{ col, in string }{
		{"geometry", "POINT EMPTY"}, {"geometry", "LINESTRING EMPTY"}, {"geometry", "MULTIPOINT((1 2),(3 4))"},
		{"geometry", "POLYGON((0 0,1 0,1 1))"}, {"geometry", "POINT(.5 +1)"}, {"geometry", "POINT Z(1 2 3)"},
		{"geometry", "GEOMETRYCOLLECTION(GEOMETRYCOLLECTION EMPTY)"}, {"point", "LINESTRING(0 0,1 1)"},
		{"multipoint", "POINT(0 0)"}, {"linestring", "MULTILINESTRING((0 0,1 1))"},
	} {
		s, _ := ColumnSchema(MariaDB, tc.col, true)
		if _, err := ColumnValue(MariaDB, tc.col, s, json.RawMessage(fmt.Sprintf("%q", tc.in))); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s %q: %v, want ErrInvalidEvent", tc.col, tc.in, err)
		}
	}
}

// The Connect schemas of BinlogValueConverters: Geometry always optional,
// Point by the column's nullability.
func TestBinlogSpatialSchema(t *testing.T) {
	for _, tc := range []struct {
		col      string
		nullable bool
		want     string
	}{
		{"geometry", false, "struct io.debezium.data.geometry.Geometry optional=true [wkb srid]"},
		{"LINESTRING", true, "struct io.debezium.data.geometry.Geometry optional=true [wkb srid]"},
		{"point", false, "struct io.debezium.data.geometry.Point optional=false [x y wkb srid]"},
	} {
		s, err := ColumnSchema(MariaDB, tc.col, tc.nullable)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range s.Fields {
			names = append(names, f.Name)
		}
		if got := fmt.Sprintf("%s %s optional=%v [%s]", s.Type, s.Name, s.Optional, strings.Join(names, " ")); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.col, got, tc.want)
		}
	}
	if _, err := ColumnSchema(Postgres, "geometry", true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("PostgreSQL geometry (PostGIS): %v, want ErrUnsupported", err)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// How the converters print a geometry (the forms maria_spatial_json and
// maria_spatial_simple_headers matched on the stack), and the
// StringConverter, whose Struct.toString prints the wkb byte[] by identity
// ([B@…), the placeholder identity hash, marked (volatile_string_maria_spatial
// matched on the stack with the digits masked).
func TestGeometryConverters(t *testing.T) {
	s, _ := ColumnSchema(MariaDB, "geometry", true)
	v, err := ColumnValue(MariaDB, "geometry", s, json.RawMessage(`"SRID=4326;POINT(1 2)"`))
	if err != nil {
		t.Fatal(err)
	}
	h, err := convertHeader(Converter{Kind: SimpleHeaderConverter}, s, v)
	if err != nil || string(h) != `{"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAABA","srid":4326}` {
		t.Errorf("SimpleHeaderConverter: %s %v", h, err)
	}
	j, err := convert(Converter{Kind: JSONConverter, SchemasEnable: true}, s, v)
	want := `{"schema":{"type":"struct","fields":[{"type":"bytes","optional":false,"field":"wkb"},{"type":"int32","optional":true,"field":"srid"}],"optional":true,"name":"io.debezium.data.geometry.Geometry","version":1,"doc":"Geometry"},"payload":{"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAABA","srid":4326}}`
	if err != nil || string(j) != want {
		t.Errorf("JsonConverter: %s %v", j, err)
	}
	str, err := convert(Converter{Kind: StringConverter}, s, v)
	if hs := identityHashes(Converter{Kind: StringConverter}, s, v); err != nil || string(str) != "Struct{wkb=[B@00000000,srid=4326}" || len(hs) != 1 || hs[0] != len("Struct{wkb=[B@") {
		t.Errorf("StringConverter of a geometry: %q %v %v", str, hs, err)
	}
	// a bytes column is a ByteBuffer: its toString is modelled
	env := &Schema{Type: StructT, Fields: []Field{{Name: "b", Schema: optional(Bytes)}}}
	if _, err := convert(Converter{Kind: StringConverter}, env, &Struct{Schema: env, Values: []any{[]byte{1}}}); err != nil {
		t.Errorf("StringConverter of a bytes field: %v", err)
	}
}

// PostgreSQL point (pg_geometric_point_* on the stack): Point.createValue
// of the stored doubles, the little-endian WKB (NaN as Java's canonical
// NaN), no SRID; line, lseg, box, path, polygon and circle are left out of
// the record (include.unknown.datatypes=false); true is refused.
func TestPgGeometric(t *testing.T) {
	s, err := ColumnSchema(Postgres, "point", false)
	if err != nil || s.Name != NamePoint || s.Optional {
		t.Fatalf("point schema %v %v", s, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"(1,2)", `{"x":1.0,"y":2.0,"wkb":"AQEAAAAAAAAAAADwPwAAAAAAAABA","srid":null}`},
		{" 1.50 , -0 ", `{"x":1.5,"y":-0.0,"wkb":"AQEAAAAAAAAAAAD4PwAAAAAAAACA","srid":null}`},
		{"(NaN,Infinity)", `{"x":NaN,"y":Infinity,"wkb":"AQEAAAAAAAAAAAD4fwAAAAAAAPB/","srid":null}`},
	} {
		v, err := ColumnValue(Postgres, "point", s, json.RawMessage(fmt.Sprintf("%q", tc.in)))
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if h, err := convertHeader(Converter{Kind: SimpleHeaderConverter}, s, v); err != nil || string(h) != tc.want {
			t.Errorf("%q: %s %v, want %s", tc.in, h, err, tc.want)
		}
	}
	for _, in := range []string{"(1,2", "1 2", "(1e400,0)", "(0x1p-2,0)"} {
		if _, err := ColumnValue(Postgres, "point", s, json.RawMessage(fmt.Sprintf("%q", in))); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%q: %v, want ErrInvalidEvent", in, err)
		}
	}
	for _, typ := range []string{"line", "lseg", "box", "path", "polygon", "circle"} {
		if _, err := ColumnSchema(Postgres, typ, true); !errors.Is(err, ErrColumnDropped) {
			t.Errorf("%s: %v, want ErrColumnDropped", typ, err)
		}
		var se *SettingError
		if _, err := ColumnSchemaWith(Postgres, typ, true, ParseColumnSettings(map[string]string{"include.unknown.datatypes": "true"})); !errors.As(err, &se) {
			t.Errorf("%s under include.unknown.datatypes=true: %v, want a *SettingError", typ, err)
		}
	}
	// a sample row's dropped column is not in the change event
	sr, err := ParseSampleRow(strings.NewReader(`{"columns":{"b":"box"},"row":{"id":"1","aggregatetype":"A","aggregateid":"1","payload":{},"b":"(1,1),(0,0)"}}`))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sr.ChangeEventFor(Config{Connector: Postgres})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ev.After {
		if c.Name == "b" {
			t.Error("the box column is in the change event")
		}
	}
}
