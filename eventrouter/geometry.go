package eventrouter

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Logical schema names of the spatial types.
const (
	// NameGeometry is a MySQL / MariaDB spatial column other than POINT
	// (io.debezium.data.geometry.Geometry: wkb, srid).
	NameGeometry = "io.debezium.data.geometry.Geometry"
	// NamePoint is a MySQL / MariaDB POINT column and a PostgreSQL point
	// (io.debezium.data.geometry.Point: x, y, wkb, srid).
	NamePoint = "io.debezium.data.geometry.Point"
)

// wkbTypes are the OGC WKB geometry type codes of the 2D types, by the
// SQL / WKT name.
var wkbTypes = map[string]uint32{
	"point": 1, "linestring": 2, "polygon": 3, "multipoint": 4,
	"multilinestring": 5, "multipolygon": 6, "geometrycollection": 7,
}

// isBinlogSpatial reports a MariaDB spatial column type. (MySQL's are
// not modelled: its WKT reader and empty geometries differ, and no MySQL
// server was checked.)
func isBinlogSpatial(kind ConnectorKind, sqlType string) bool {
	if kind != MariaDB {
		return false
	}
	t := strings.ToLower(strings.TrimSpace(sqlType))
	_, ok := wkbTypes[t]
	return ok || t == "geometry"
}

// geometrySchema is io.debezium.data.geometry.Geometry.builder(): always
// optional, whatever the column's nullability.
func geometrySchema() *Schema {
	return &Schema{Type: StructT, Name: NameGeometry, Version: i32(1), Doc: "Geometry", Optional: true, Fields: []Field{
		{Name: "wkb", Schema: &Schema{Type: Bytes}},
		{Name: "srid", Schema: optional(Int32)},
	}}
}

// pointSchema is io.debezium.data.geometry.Point.builder() (optional when
// the column is nullable).
func pointSchema(nullable bool) *Schema {
	return &Schema{Type: StructT, Name: NamePoint, Version: i32(1), Doc: "Geometry (POINT)", Optional: nullable, Fields: []Field{
		{Name: "x", Schema: &Schema{Type: Float64}},
		{Name: "y", Schema: &Schema{Type: Float64}},
		{Name: "wkb", Schema: optional(Bytes)},
		{Name: "srid", Schema: optional(Int32)},
	}}
}

// binlogSpatialSchema is the schema BinlogValueConverters gives a spatial
// column: POINT is a Point, the others a Geometry.
func binlogSpatialSchema(sqlType string, nullable bool) *Schema {
	if strings.EqualFold(strings.TrimSpace(sqlType), "point") {
		return pointSchema(nullable)
	}
	return geometrySchema()
}

// BinlogGeometryValue is the value the binlog connector delivers for a
// MySQL / MariaDB spatial column of sqlType whose stored form (what the
// binlog and a client read: a 4-byte little-endian SRID, then the WKB) is
// stored: BinlogGeometry.fromBytes (SRID 0 is none, others read as a
// signed int32), as a Point (x and y read from the WKB, which must be a
// 2D point) or a Geometry struct of schema s.
func BinlogGeometryValue(sqlType string, s *Schema, stored []byte) (*Struct, error) {
	if len(stored) < 4+1+4 {
		return nil, fmt.Errorf("%w: %s value of %d bytes is not a stored geometry (SRID and WKB)", ErrInvalidEvent, sqlType, len(stored))
	}
	var srid any
	if n := int32(binary.LittleEndian.Uint32(stored)); n != 0 {
		srid = n
	}
	wkb := append([]byte{}, stored[4:]...)
	st := NewStruct(s)
	if err := st.Put("wkb", wkb); err != nil {
		return nil, err
	}
	if err := st.Put("srid", srid); err != nil {
		return nil, err
	}
	if s.Name == NamePoint {
		if len(wkb) != 21 || wkb[0] != 1 || binary.LittleEndian.Uint32(wkb[1:]) != 1 {
			return nil, fmt.Errorf("%w: %s value is not a 2D point WKB", ErrInvalidEvent, sqlType)
		}
		_ = st.Put("x", math.Float64frombits(binary.LittleEndian.Uint64(wkb[5:])))
		_ = st.Put("y", math.Float64frombits(binary.LittleEndian.Uint64(wkb[13:])))
	}
	return st, nil
}

// binlogGeometrySample turns a sample value of a MySQL / MariaDB spatial
// column into the delivered struct: "[SRID=n;]WKT" (as ST_GeomFromText(wkt,
// n) reads it) or "[SRID=n;]hex:WKB" (as ST_GeomFromWKB reads it: either
// byte order, stored little-endian). Only what MariaDB stores is accepted:
// 2D geometries, GEOMETRYCOLLECTION EMPTY as the only empty one, closed
// polygon rings, numbers as -d[.d][e±d]; a POINT, LINESTRING, POLYGON or
// MULTI* column takes only its own type (GEOMETRY and GEOMETRYCOLLECTION
// take any).
func binlogGeometrySample(sqlType string, s *Schema, v string) (*Struct, error) {
	srid := uint32(0)
	if rest, ok := cutPrefixFold(strings.TrimSpace(v), "SRID="); ok {
		num, tail, found := strings.Cut(rest, ";")
		if !found {
			return nil, fmt.Errorf("%w: %s value %q: SRID=n; expected", ErrInvalidEvent, sqlType, v)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: %s value %q: SRID %q", ErrInvalidEvent, sqlType, v, num)
		}
		srid, v = uint32(n), tail
	}
	var g *geom
	var err error
	if h, ok := cutPrefixFold(strings.TrimSpace(v), "hex:"); ok {
		var b []byte
		if b, err = hex.DecodeString(h); err == nil {
			g, err = parseWKB(b)
		}
	} else {
		g, err = parseWKT(v)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s value %q: %v", ErrInvalidEvent, sqlType, v, err)
	}
	col := strings.ToLower(strings.TrimSpace(sqlType))
	if want, ok := wkbTypes[col]; ok && col != "geometrycollection" && g.typ != want {
		return nil, fmt.Errorf("%w: %s value %q: MariaDB refuses another geometry type in a %s column", ErrInvalidEvent, sqlType, v, col)
	}
	stored := binary.LittleEndian.AppendUint32(nil, srid)
	return BinlogGeometryValue(sqlType, s, g.appendWKB(stored))
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// geom is a 2D geometry: a point (coords of one), a linestring (coords),
// a polygon (rings), or a multi-geometry / collection (parts).
type geom struct {
	typ    uint32
	coords [][2]float64
	rings  [][][2]float64
	parts  []*geom
}

// appendWKB appends g's little-endian WKB.
func (g *geom) appendWKB(b []byte) []byte {
	b = append(b, 1)
	b = binary.LittleEndian.AppendUint32(b, g.typ)
	pts := func(b []byte, cs [][2]float64) []byte {
		for _, c := range cs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c[0]))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c[1]))
		}
		return b
	}
	switch g.typ {
	case 1:
		return pts(b, g.coords)
	case 2:
		b = binary.LittleEndian.AppendUint32(b, uint32(len(g.coords)))
		return pts(b, g.coords)
	case 3:
		b = binary.LittleEndian.AppendUint32(b, uint32(len(g.rings)))
		for _, r := range g.rings {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(r)))
			b = pts(b, r)
		}
		return b
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(g.parts)))
	for _, p := range g.parts {
		b = p.appendWKB(b)
	}
	return b
}

// check is what MariaDB requires of a geometry it stores: a linestring of
// at least one point, closed polygon rings of at least three points.
func (g *geom) check() error {
	switch g.typ {
	case 2:
		if len(g.coords) < 1 {
			return fmt.Errorf("an empty linestring")
		}
	case 3:
		if len(g.rings) < 1 {
			return fmt.Errorf("an empty polygon")
		}
		for _, r := range g.rings {
			if len(r) < 3 || r[0] != r[len(r)-1] {
				return fmt.Errorf("a polygon ring that is not closed (MariaDB stores NULL)")
			}
		}
	}
	for _, p := range g.parts {
		if err := p.check(); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- WKT

var (
	wktTokenRe  = regexp.MustCompile(`^\s*(?:([A-Za-z]+)|(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|([(),]))`)
	wktPartType = map[uint32]uint32{4: 1, 5: 2, 6: 3}
)

type wktLexer struct {
	s   string
	tok string
	num bool
}

func (l *wktLexer) next() error {
	if strings.TrimSpace(l.s) == "" {
		l.tok, l.num = "", false
		return nil
	}
	m := wktTokenRe.FindStringSubmatch(l.s)
	if m == nil {
		return fmt.Errorf("unexpected %q (MariaDB's WKT reader stores NULL)", strings.TrimSpace(l.s))
	}
	l.s = l.s[len(m[0]):]
	l.tok, l.num = m[1]+m[2]+m[3], m[2] != ""
	return nil
}

func (l *wktLexer) expect(t string) error {
	if l.tok != t {
		return fmt.Errorf("%q expected, found %q", t, l.tok)
	}
	return l.next()
}

// parseWKT reads the 2D WKT MariaDB's ST_GeomFromText accepts.
func parseWKT(s string) (*geom, error) {
	l := &wktLexer{s: s}
	if err := l.next(); err != nil {
		return nil, err
	}
	g, err := l.geometry(0)
	if err != nil {
		return nil, err
	}
	if l.tok != "" {
		return nil, fmt.Errorf("unexpected %q after the geometry", l.tok)
	}
	return g, g.check()
}

// geometry reads "TYPE(…)"; want (0: any) is the type a multi-geometry's
// part must have.
func (l *wktLexer) geometry(depth int) (*geom, error) {
	typ, ok := wkbTypes[strings.ToLower(l.tok)]
	if !ok || l.num {
		return nil, fmt.Errorf("a 2D geometry type expected, found %q", l.tok)
	}
	if err := l.next(); err != nil {
		return nil, err
	}
	g := &geom{typ: typ}
	if strings.EqualFold(l.tok, "empty") {
		if typ != 7 || depth > 0 {
			return nil, fmt.Errorf("MariaDB stores only a top-level GEOMETRYCOLLECTION EMPTY")
		}
		return g, l.next()
	}
	if err := l.expect("("); err != nil {
		return nil, err
	}
	var err error
	switch typ {
	case 1:
		var c [2]float64
		c, err = l.coord()
		g.coords = [][2]float64{c}
	case 2:
		g.coords, err = l.coords()
	case 3:
		g.rings, err = l.rings()
	case 4, 5, 6:
		err = l.list(func() error {
			p := &geom{typ: wktPartType[typ]}
			var err error
			switch typ {
			case 4:
				// MULTIPOINT(1 2, 3 4): MariaDB refuses MULTIPOINT((1 2))
				var c [2]float64
				c, err = l.coord()
				p.coords = [][2]float64{c}
			case 5:
				if err = l.expect("("); err == nil {
					if p.coords, err = l.coords(); err == nil {
						err = l.expect(")")
					}
				}
			case 6:
				if err = l.expect("("); err == nil {
					if p.rings, err = l.rings(); err == nil {
						err = l.expect(")")
					}
				}
			}
			g.parts = append(g.parts, p)
			return err
		})
	case 7:
		err = l.list(func() error {
			p, err := l.geometry(depth + 1)
			g.parts = append(g.parts, p)
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	return g, l.expect(")")
}

func (l *wktLexer) list(item func() error) error {
	for {
		if err := item(); err != nil {
			return err
		}
		if l.tok != "," {
			return nil
		}
		if err := l.next(); err != nil {
			return err
		}
	}
}

func (l *wktLexer) number() (float64, error) {
	if !l.num {
		return 0, fmt.Errorf("a number expected, found %q", l.tok)
	}
	f, err := strconv.ParseFloat(l.tok, 64)
	if err != nil {
		return 0, err
	}
	return f, l.next()
}

func (l *wktLexer) coord() ([2]float64, error) {
	x, err := l.number()
	if err != nil {
		return [2]float64{}, err
	}
	y, err := l.number()
	return [2]float64{x, y}, err
}

func (l *wktLexer) coords() ([][2]float64, error) {
	var out [][2]float64
	err := l.list(func() error {
		c, err := l.coord()
		out = append(out, c)
		return err
	})
	return out, err
}

func (l *wktLexer) rings() ([][][2]float64, error) {
	var out [][][2]float64
	err := l.list(func() error {
		if err := l.expect("("); err != nil {
			return err
		}
		r, err := l.coords()
		if err != nil {
			return err
		}
		out = append(out, r)
		return l.expect(")")
	})
	return out, err
}

// ---------------------------------------------------------------- WKB

// parseWKB reads a 2D WKB geometry in either byte order.
func parseWKB(b []byte) (*geom, error) {
	r := &wkbReader{b: b}
	g, err := r.geometry(0)
	if err != nil {
		return nil, err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d bytes after the WKB geometry", len(r.b))
	}
	return g, g.check()
}

type wkbReader struct {
	b     []byte
	order binary.ByteOrder
}

func (r *wkbReader) u32() (uint32, error) {
	if len(r.b) < 4 {
		return 0, fmt.Errorf("WKB truncated")
	}
	v := r.order.Uint32(r.b)
	r.b = r.b[4:]
	return v, nil
}

func (r *wkbReader) coord() ([2]float64, error) {
	if len(r.b) < 16 {
		return [2]float64{}, fmt.Errorf("WKB truncated")
	}
	c := [2]float64{math.Float64frombits(r.order.Uint64(r.b)), math.Float64frombits(r.order.Uint64(r.b[8:]))}
	r.b = r.b[16:]
	return c, nil
}

func (r *wkbReader) coords() ([][2]float64, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	if uint64(n)*16 > uint64(len(r.b)) {
		return nil, fmt.Errorf("WKB truncated")
	}
	out := make([][2]float64, 0, n)
	for i := uint32(0); i < n; i++ {
		c, err := r.coord()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (r *wkbReader) geometry(depth int) (*geom, error) {
	if len(r.b) < 5 || r.b[0] > 1 {
		return nil, fmt.Errorf("WKB byte order 0 or 1 expected")
	}
	r.order = binary.ByteOrder(binary.BigEndian)
	if r.b[0] == 1 {
		r.order = binary.LittleEndian
	}
	r.b = r.b[1:]
	typ, _ := r.u32()
	if typ < 1 || typ > 7 {
		return nil, fmt.Errorf("WKB geometry type %d (only the 2D types 1-7)", typ)
	}
	g := &geom{typ: typ}
	switch typ {
	case 1:
		c, err := r.coord()
		g.coords = [][2]float64{c}
		return g, err
	case 2:
		var err error
		g.coords, err = r.coords()
		return g, err
	case 3:
		n, err := r.u32()
		if err != nil {
			return nil, err
		}
		for i := uint32(0); i < n; i++ {
			ring, err := r.coords()
			if err != nil {
				return nil, err
			}
			g.rings = append(g.rings, ring)
		}
		return g, nil
	}
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	if n == 0 && (typ != 7 || depth > 0) {
		return nil, fmt.Errorf("MariaDB stores only a top-level empty GEOMETRYCOLLECTION")
	}
	for i := uint32(0); i < n; i++ {
		p, err := r.geometry(depth + 1)
		if err != nil {
			return nil, err
		}
		if want, ok := wktPartType[typ]; ok && p.typ != want {
			return nil, fmt.Errorf("WKB part of type %d in a multi-geometry of type %d", p.typ, typ)
		}
		g.parts = append(g.parts, p)
	}
	return g, nil
}

// ---------------------------------------------------------------- PostgreSQL point

// isPgPoint reports a PostgreSQL point column.
func isPgPoint(kind ConnectorKind, sqlType string) bool {
	return (kind == Postgres || kind == "") && strings.EqualFold(strings.TrimSpace(sqlType), "point")
}

var pgPointRe = regexp.MustCompile(`^\s*(\()?\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*(\))?\s*$`)

// pgPointValue is a PostgreSQL point as PostgresValueConverter delivers it
// (Point.createValue(schema, x, y)): x and y as PostgreSQL stores them
// (float8), the little-endian WKB of the 2D point, no SRID. The input is
// point's text, "(x,y)" or "x,y" (NaN, Infinity accepted as float8in
// does).
func pgPointValue(s *Schema, v string) (*Struct, error) {
	m := pgPointRe.FindStringSubmatch(v)
	if m == nil || (m[1] == "") != (m[4] == "") {
		return nil, fmt.Errorf("%w: point value %q: \"(x,y)\" expected", ErrInvalidEvent, v)
	}
	var xy [2]float64
	for i, t := range m[2:4] {
		if strings.ContainsAny(t, "_xXpP") && !strings.EqualFold(t, "infinity") && !strings.EqualFold(t, "-infinity") {
			return nil, fmt.Errorf("%w: point value %q: %q is not a float8", ErrInvalidEvent, v, t)
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%w: point value %q: %q is not a float8", ErrInvalidEvent, v, t)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: point value %q: %q is out of range for type double precision", ErrInvalidEvent, v, t)
		}
		if math.IsNaN(f) {
			// Java's Double.NaN (Double.parseDouble), whose bits the WKB
			// carries: 0x7ff8000000000000 (Go's NaN has the low bit set)
			f = math.Float64frombits(0x7ff8000000000000)
		}
		xy[i] = f
	}
	g := &geom{typ: 1, coords: [][2]float64{xy}}
	st := NewStruct(s)
	_ = st.Put("x", xy[0])
	_ = st.Put("y", xy[1])
	if err := st.Put("wkb", g.appendWKB(nil)); err != nil {
		return nil, err
	}
	return st, nil
}

// pgUnknownGeometric are the PostgreSQL built-in geometric types
// PostgresValueConverter has no converter for (its schemaBuilder falls
// through to JdbcValueConverters, which gives Types.OTHER no schema).
var pgUnknownGeometric = map[string]bool{"line": true, "lseg": true, "box": true, "path": true, "polygon": true, "circle": true}

// ErrColumnDropped is a column the connector leaves out of its records:
// its type has no schema and include.unknown.datatypes is false (the
// default). A placement naming it finds no field.
var ErrColumnDropped = errors.New("the connector leaves the column out of its records")

// DroppedColumnError is a column of a type the connector gives no schema
// (PostgreSQL line, lseg, box, path, polygon, circle under
// include.unknown.datatypes=false): it is not in the record. It unwraps to
// ErrColumnDropped.
type DroppedColumnError struct {
	Kind ConnectorKind
	Type string
}

func (e *DroppedColumnError) Error() string {
	return fmt.Sprintf("column type %q has no Connect schema (include.unknown.datatypes=false): the connector leaves the column out of its records", e.Type)
}

// Unwrap returns ErrColumnDropped.
func (e *DroppedColumnError) Unwrap() error { return ErrColumnDropped }

// droppedColumn returns a *DroppedColumnError for a column the connector
// leaves out, a *SettingError when include.unknown.datatypes=true would
// deliver it (its bytes are not modelled), nil otherwise.
func droppedColumn(kind ConnectorKind, sqlType string, cs ColumnSettings) error {
	t := strings.ToLower(strings.TrimSpace(sqlType))
	if (kind != Postgres && kind != "") || !pgUnknownGeometric[t] && !pgUnknownOther[t] {
		return nil
	}
	if cs.IncludeUnknownDatatypes == "true" {
		return &SettingError{Type: sqlType, Setting: "include.unknown.datatypes", Value: "true", Modeled: "false (the column is left out)"}
	}
	return &DroppedColumnError{Kind: kind, Type: sqlType}
}
