//go:build integration

package eventrouter_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// #31: MariaDB ZEROFILL (and UNSIGNED) floats and decimals, MariaDB
// spatial types, PostgreSQL built-in geometric types. On the other
// database the columns have a plain type of the same family.

func init() { variantSets = append(variantSets, spatialVariants) }

func spatialVariants() []variant {
	return []variant{
		zerofillVariant("maria_zerofill_json", "precise", jsonConverters(true)),
		zerofillVariant("maria_zerofill_string", "string", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"errors.tolerance": "all",
		}),
		zerofillVariant("maria_zerofill_double", "double", jsonConverters(false)),
		// JsonConverter with schemas: the Point key, Geometry headers and
		// envelope fields (Geometry optional even NOT NULL)
		spatialVariant("maria_spatial_json", jsonConverters(true), map[string]string{
			"table.field.event.key":             "g_pt",
			"table.fields.additional.placement": "g_geom:header,g_pt:header,g_coll:header,g_line:envelope:line,g_poly:envelope:poly,g_mpt:envelope:mpt,g_mline:envelope:mline,g_mpoly:envelope:mpoly,g_nn:envelope:nn",
			"route.topic.replacement":           "dt$R.spj.${routedByValue}",
		}),
		// a geometry payload under JsonConverter without schemas, headers
		// under the worker's SimpleHeaderConverter (Values.convertToString
		// of the struct: base64 wkb), a string key
		spatialVariant("maria_spatial_simple_headers", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"errors.tolerance": "all",
		}, map[string]string{
			"table.field.event.payload":         "g_geom",
			"table.fields.additional.placement": "g_pt:header,g_line:header,g_poly:header,g_mpt:header,g_mline:header,g_mpoly:header,g_coll:header,g_nn:header,g_pt:envelope:pt",
			"route.topic.replacement":           "dt$R.sps.${routedByValue}",
		}),
		pgPointVariant("pg_geometric_point_json", jsonConverters(true), map[string]string{
			"table.field.event.key":             "pt",
			"table.fields.additional.placement": "pt:header,pt_nn:header,pt_nn:envelope:nn",
			"route.topic.replacement":           "dt$R.pgp.${routedByValue}",
		}),
		pgPointVariant("pg_geometric_point_simple_headers", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"errors.tolerance": "all",
		}, map[string]string{
			"table.field.event.payload":         "pt",
			"table.fields.additional.placement": "pt:header,pt_nn:header,pt_nn:envelope:nn",
			"route.topic.replacement":           "dt$R.pgs.${routedByValue}",
		}),
	}
}

// zerofillVariant: FLOAT / DOUBLE / DECIMAL [UNSIGNED] ZEROFILL and
// FLOAT(M,D) / DOUBLE(M,D) under decimal.handling.mode mode: the value, not
// the padded text; a declared scale rounds the fraction (ties to even) and
// a FLOAT(M,D) is a FLOAT64 of the stored float. Key: the decimal;
// headers: every column; envelope: the scaled float and the decimal.
func zerofillVariant(name, mode string, conv map[string]string) variant {
	conn := map[string]string{"decimal.handling.mode": mode}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{
		name: name,
		cols: withCols(
			col{name: "z_f", pg: "float4", maria: "float unsigned zerofill"},
			col{name: "z_d", pg: "float8", maria: "double zerofill"},
			col{name: "z_fs", pg: "float8", maria: "float(7,2) zerofill"},
			col{name: "z_ds", pg: "float8", maria: "double(10,3) unsigned zerofill"},
			col{name: "z_g", pg: "float8", maria: "float(7,2)"},
			col{name: "z_dec", pg: "numeric(5,2)", maria: "decimal(5,2) unsigned zerofill"},
			col{name: "z_dec0", pg: "numeric(10,0)", maria: "decimal(10,0) zerofill"},
		),
		er: map[string]string{
			"table.field.event.key":             "z_dec",
			"table.fields.additional.placement": "z_f:header,z_d:header,z_fs:header,z_ds:header,z_g:header,z_dec:header,z_dec0:header,z_fs:envelope:fs,z_dec:envelope:dec,z_dec0:envelope:dec0",
			"route.topic.replacement":           "dt$R.zff.${routedByValue}",
		},
		conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"z_f":1,"z_d":1,"z_fs":1,"z_ds":1,"z_g":1,"z_dec":"1","z_dec0":"1"}`,
		ops: []op{
			{name: "zerofill_real_small", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"z_f":1.5,"z_d":2.25,"z_fs":2.125,"z_ds":1.0005,"z_g":2.135,"z_dec":"1.5","z_dec0":42}`},
			{name: "zerofill_real_excess", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"z_f":0.1,"z_d":0.1,"z_fs":"3.14159","z_ds":"12345.6785","z_g":2.145,"z_dec":"0.005","z_dec0":"0009"}`},
			{name: "zerofill_real_bounds", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"a":3},"z_f":3.4e38,"z_d":1.7976931348623157e308,"z_fs":"99999.99","z_ds":"1.2345","z_g":-2.125,"z_dec":"999.99","z_dec0":9999999999}`},
			{name: "zerofill_real_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":null,"z_f":null,"z_d":null,"z_fs":null,"z_ds":null,"z_g":null,"z_dec":null,"z_dec0":null}`},
		},
	}
}

// spatialLiteral is the SQL of a MariaDB spatial column's sample value
// "[SRID=n;]WKT" (ST_GeomFromText) or "[SRID=n;]hex:WKB" (ST_GeomFromWKB);
// ok is false for another column.
func spatialLiteral(kind eventrouter.ConnectorKind, typ string, raw json.RawMessage) (string, bool) {
	base := strings.TrimSuffix(typ, " not null")
	switch base {
	case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection":
	default:
		return "", false
	}
	if kind == eventrouter.Postgres {
		return "", false
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	srid := "0"
	if strings.HasPrefix(strings.ToUpper(v), "SRID=") {
		srid, v, _ = strings.Cut(v[len("SRID="):], ";")
	}
	if h, ok := strings.CutPrefix(v, "hex:"); ok {
		return fmt.Sprintf("ST_GeomFromWKB(X'%s', %s)", h, srid), true
	}
	return fmt.Sprintf("ST_GeomFromText('%s', %s)", strings.ReplaceAll(v, "'", "''"), srid), true
}

// spatialVariant: the MariaDB spatial types (POINT a
// io.debezium.data.geometry.Point, the others a Geometry, always optional)
// in the key, headers, envelope and payload; WKT with SRID, big-endian
// hex WKB, GEOMETRYCOLLECTION EMPTY, -0, SRID 2^32-1 (read as -1), NULL.
// On PostgreSQL the columns are text holding the sample strings.
func spatialVariant(name string, conn map[string]string, er map[string]string) variant {
	sp := func(n, maria string) col { return col{name: n, pg: "text", maria: maria} }
	cols := withCols(
		sp("g_geom", "geometry"), sp("g_pt", "point"), sp("g_line", "linestring"), sp("g_poly", "polygon"),
		sp("g_mpt", "multipoint"), sp("g_mline", "multilinestring"), sp("g_mpoly", "multipolygon"),
		sp("g_coll", "geometrycollection"),
		col{name: "g_nn", pg: "text", maria: "geometry", notNull: true},
	)
	row := func(id string, vals string) string {
		return `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + id + `","type":"T","payload":{"a":` + id + `},` + vals + `}`
	}
	return variant{
		name: name, cols: cols, er: er, conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"g_geom":"POINT(0 0)","g_pt":"POINT(0 0)","g_line":null,"g_poly":null,"g_mpt":null,"g_mline":null,"g_mpoly":null,"g_coll":null,"g_nn":"POINT(0 0)"}`,
		ops: []op{
			{name: "spatial_typical_srid", kind: "insert", row: row("1", `"g_geom":"SRID=4326;POINT(1 2)","g_pt":"SRID=4326;POINT(13.4 52.5)","g_line":"LINESTRING(0 0,1 1,2 0.5)","g_poly":"SRID=3857;POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,3 2,3 3,2 2))","g_mpt":"MULTIPOINT(1 2,3 4)","g_mline":"MULTILINESTRING((0 0,1 1),(2 2,3 3))","g_mpoly":"MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5)))","g_coll":"GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1 1))","g_nn":"LINESTRING(1 2)"`)},
			{name: "spatial_noncanonical", kind: "insert", row: row("2", `"g_geom":"SRID=4326;hex:00000000013FF00000000000004000000000000000","g_pt":"  point ( 1.50   -0 ) ","g_line":"linestring(1E1 2, 3. 4)","g_poly":"hex:0103000000010000000400000000000000000000000000000000000000000000000000F03F0000000000000000000000000000F03F000000000000F03F00000000000000000000000000000000","g_mpt":"multipoint(1e300 -1e-300)","g_mline":"MULTILINESTRING((0 0,1 1))","g_mpoly":"MULTIPOLYGON(((0 0,1 0,1 1,0 0)))","g_coll":"POINT(7 8)","g_nn":"GEOMETRYCOLLECTION EMPTY"`)},
			{name: "spatial_srid_bounds_empty", kind: "insert", row: row("3", `"g_geom":"GEOMETRYCOLLECTION EMPTY","g_pt":"SRID=4294967295;POINT(-180 -90)","g_line":"SRID=2147483647;LINESTRING(0 0,0 0)","g_poly":null,"g_mpt":null,"g_mline":null,"g_mpoly":null,"g_coll":"GEOMETRYCOLLECTION EMPTY","g_nn":"SRID=1;POINT(1 1)"`)},
			{name: "spatial_nulls", kind: "insert", row: row("4", `"g_geom":null,"g_pt":null,"g_line":null,"g_poly":null,"g_mpt":null,"g_mline":null,"g_mpoly":null,"g_coll":null,"g_nn":"POINT(0 0)"`)},
		},
	}
}

// pgPointVariant: PostgreSQL point (io.debezium.data.geometry.Point: x, y,
// the little-endian WKB, no SRID) in the key, headers, envelope and
// payload; non-canonical text, -0, 1e±300, NaN and ±Infinity, NULL. The
// table also has line, lseg, box, path, polygon and circle columns with
// DEFAULTs: the connector (include.unknown.datatypes=false) gives them no
// schema and leaves them out; placed nowhere, the records are unaffected
// and the relay skips them. On MariaDB the
// columns are text.
func pgPointVariant(name string, conn, er map[string]string) variant {
	unknown := func(n, pgType, def string) col { return col{name: n, pg: pgType, maria: "text", pgDef: def} }
	cols := withCols(
		col{name: "pt", pg: "point", maria: "text"},
		col{name: "pt_nn", pg: "point", maria: "text", notNull: true},
		unknown("g_line", "line", "'{1,-1,0}'"), unknown("g_lseg", "lseg", "'[(0,0),(1,1)]'"),
		unknown("g_box", "box", "'(1,1),(0,0)'"), unknown("g_path", "path", "'[(0,0),(1,1),(2,0)]'"),
		unknown("g_polygon", "polygon", "'((0,0),(1,1),(1,0))'"), unknown("g_circle", "circle", "'<(0,0),1>'"),
	)
	row := func(id, vals string) string {
		return `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + id + `","type":"T","payload":{"a":` + id + `},` + vals + `}`
	}
	return variant{
		name: name, cols: cols, er: er, conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"pt":"(0,0)","pt_nn":"(0,0)","g_box":"(1,1),(0,0)","g_circle":null}`,
		ops: []op{
			{name: "pg_point_typical", kind: "insert", row: row("1", `"pt":"(1,2)","pt_nn":"(13.4,52.5)","g_box":"(1,1),(0,0)","g_circle":"<(0,0),1>"`)},
			{name: "pg_point_noncanonical", kind: "insert", row: row("2", `"pt":" 1.50 , -0 ","pt_nn":"( -1e300 , 1e-300 )","g_box":null,"g_circle":null`)},
			{name: "pg_point_special", kind: "insert", row: row("3", `"pt":"(NaN,Infinity)","pt_nn":"(-Infinity,0.1)","g_box":"(2,2),(1,1)","g_circle":null`)},
			{name: "pg_point_null", kind: "insert", row: row("4", `"pt":null,"pt_nn":"(0,0)","g_box":null,"g_circle":null`)},
		},
	}
}
