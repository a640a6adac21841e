//go:build integration

package eventrouter_test

import "strings"

// #31: column DEFAULTs the connectors' default value converters turn into
// the schema default (PostgresDefaultValueConverter, the binlog
// connectors' BinlogDefaultValueConverter on the DDL parser's default):
// printed in the schemas by JsonConverter with schemas.enable=true, and
// substituted for a NULL in the key, payload, header and envelope
// placements.

func init() { variantSets = append(variantSets, defaultVariants) }

// numericDefaultCols are fixed-point columns with DEFAULTs: an integer
// literal, a quoted literal, a negative one, more fraction digits than
// the column keeps (PostgreSQL: no default; MariaDB stores it rounded),
// blanks inside the quotes, an exponent, NaN (PostgreSQL), a function
// call, scale 0, the unconstrained numeric (MariaDB's decimal(10,0)),
// a tiny negative value and a wide one.
func numericDefaultCols() []col {
	return withCols(
		col{name: "n_zero", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "0", mariaDef: "0"},
		col{name: "n_str", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "'1.5'", mariaDef: "'1.5'"},
		col{name: "n_neg", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "-1", mariaDef: "-1"},
		col{name: "n_excess", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "1.555", mariaDef: "1.555"},
		col{name: "n_excess0", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "'1.500'", mariaDef: "'1.500'"},
		col{name: "n_pad", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "'  7 '", mariaDef: "' 7 '"},
		col{name: "n_exp", pg: "numeric(10,3)", maria: "decimal(10,3)", pgDef: "1e2", mariaDef: "1e2"},
		col{name: "n_nan", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "'NaN'", mariaDef: "TRUE"},
		col{name: "n_fn", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "random()", mariaDef: "rand()"},
		col{name: "n_s0", pg: "numeric(5)", maria: "decimal(5)", pgDef: "12.5", mariaDef: "12.5"},
		col{name: "n_s0ok", pg: "numeric(5)", maria: "decimal(5)", pgDef: "'12.0'", mariaDef: "'12.0'"},
		col{name: "n_var", pg: "numeric", maria: "decimal", pgDef: "1.50", mariaDef: "1.50"},
		col{name: "n_var_exp", pg: "numeric", maria: "decimal(20,6)", pgDef: "'-1.0e-3'", mariaDef: "'-0.000001'"},
		col{name: "n_big", pg: "numeric(38,10)", maria: "decimal(38,10)", pgDef: "12345678901234567890.123", mariaDef: "12345678901234567890.123"},
	)
}

const numericDefaultBase = `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"n_zero":1,"n_str":1,"n_neg":1,"n_excess":1,"n_excess0":1,"n_pad":1,"n_exp":1,"n_nan":1,"n_fn":1,"n_s0":1,"n_s0ok":1,"n_var":1,"n_var_exp":1,"n_big":1}`

func numericDefaultOps() []op {
	return []op{
		{name: "numeric_defaults_all_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"N","payload":{"a":1},"n_zero":null,"n_str":null,"n_neg":null,"n_excess":null,"n_excess0":null,"n_pad":null,"n_exp":null,"n_nan":null,"n_fn":null,"n_s0":null,"n_s0ok":null,"n_var":null,"n_var_exp":null,"n_big":null}`},
		{name: "numeric_defaults_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"N","payload":{"a":2},"n_zero":"1.500","n_str":"-2.345","n_neg":0,"n_excess":"99999999.994","n_excess0":"0.001","n_pad":"1e3","n_exp":"-0.0005","n_nan":"12","n_fn":"3.14159","n_s0":"-12.5","n_s0ok":"99999","n_var":"1.2300","n_var_exp":"-1.5e-2","n_big":"-0.00000000005"}`},
	}
}

// pgDefaultCols are PostgreSQL columns of the types whose DEFAULT the
// model refused until now: no mapper (money, timetz, network types,
// ranges, hstore: no default), xml (the quoted text, cut at a doubled
// quote), bit / varbit, time (the constant without the column's
// precision; 24:00:00 is LocalTime.MAX), interval with and without fields
// (the constant without the fields). On MariaDB they are text columns
// without a DEFAULT.
func pgDefaultCols() []col {
	return withCols(
		col{name: "m_money", pg: "money", maria: "varchar(64)", pgDef: "1.5"},
		col{name: "m_ttz", pg: "timetz", maria: "varchar(64)", pgDef: "'12:34:56+02'"},
		col{name: "m_inet", pg: "inet", maria: "varchar(64)", pgDef: "'10.0.0.1'"},
		col{name: "m_cidr", pg: "cidr", maria: "varchar(64)", pgDef: "'10.0.0.0/8'"},
		col{name: "m_mac", pg: "macaddr", maria: "varchar(64)", pgDef: "'08:00:2b:01:02:03'"},
		col{name: "m_mac8", pg: "macaddr8", maria: "varchar(64)", pgDef: "'08:00:2b:01:02:03:04:05'"},
		col{name: "m_ir", pg: "int4range", maria: "varchar(64)", pgDef: "'[1,5)'"},
		col{name: "m_tsr", pg: "tsrange", maria: "varchar(64)", pgDef: "'[2024-01-01,2024-02-01)'"},
		col{name: "m_hs", pg: "hstore", maria: "varchar(64)", pgDef: "'a=>1'"},
		col{name: "m_xml", pg: "xml", maria: "varchar(64)", pgDef: "'<a>b</a>'"},
		col{name: "m_xml2", pg: "xml", maria: "varchar(64)", pgDef: "'it''s <b/>'"},
		col{name: "m_bit", pg: "bit(3)", maria: "varchar(64)", pgDef: "B'101'"},
		col{name: "m_bit1", pg: "bit(1)", maria: "varchar(64)", pgDef: "B'1'"},
		col{name: "m_vb", pg: "varbit(16)", maria: "varchar(64)", pgDef: "B'0011'"},
		col{name: "m_vb0", pg: "varbit", maria: "varchar(64)", pgDef: "''"},
		col{name: "m_t3", pg: "time(3)", maria: "varchar(64)", pgDef: "'12:34:56.7895'"},
		col{name: "m_t6", pg: "time", maria: "varchar(64)", pgDef: "'24:00:00'"},
		col{name: "m_t0", pg: "time(0)", maria: "varchar(64)", pgDef: "'1:2:3.5'"},
		col{name: "m_tfn", pg: "time(6)", maria: "varchar(64)", pgDef: "LOCALTIME"},
		col{name: "m_iv", pg: "interval", maria: "varchar(64)", pgDef: "'1 day 02:03:04.5'"},
		col{name: "m_ivh", pg: "interval hour", maria: "varchar(64)", pgDef: "'1 day 2:03:04'"},
		col{name: "m_iv5", pg: "interval minute to second", maria: "varchar(64)", pgDef: "'5'"},
		col{name: "m_ivc", pg: "interval hour", maria: "varchar(64)", pgDef: "'1 day 2:03:04'::interval"},
		col{name: "m_iv1", pg: "interval(1)", maria: "varchar(64)", pgDef: "'00:00:01.26'"},
	)
}

const pgDefaultNames = "m_money,m_ttz,m_inet,m_cidr,m_mac,m_mac8,m_ir,m_tsr,m_hs,m_xml,m_xml2,m_bit,m_bit1,m_vb,m_vb0,m_t3,m_t6,m_t0,m_tfn,m_iv,m_ivh,m_iv5,m_ivc,m_iv1"

// pgDefaultRow is a row of pgDefaultCols: vals for the m_* columns by
// name, NULL for the others.
func pgDefaultRow(agg, id string, vals map[string]string) string {
	row := `{"id":"$ID","aggregatetype":"` + agg + `","aggregateid":"` + id + `","type":"D","payload":{"i":1}`
	for _, n := range strings.Split(pgDefaultNames, ",") {
		v, ok := vals[n]
		if !ok {
			v = "null"
		}
		row += `,"` + n + `":` + v
	}
	return row + "}"
}

func pgDefaultVariant(name string, conn map[string]string) variant {
	var hdr []string
	for _, n := range strings.Split(pgDefaultNames, ",") {
		hdr = append(hdr, n+":header")
	}
	return variant{
		name:    name,
		pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS hstore"},
		cols:    pgDefaultCols(),
		er: map[string]string{
			"table.field.event.key":             "m_t3",
			"table.fields.additional.placement": strings.Join(hdr, ",") + ",m_t6:envelope:t6,m_bit:envelope:bits,m_iv:envelope:iv,m_xml2:envelope:x",
			"route.topic.replacement":           "dp$R.defaults",
		},
		conn: conn,
		base: pgDefaultRow("Sentinel", "s", nil),
		ops: []op{
			{name: "pg_defaults_all_null", kind: "insert", row: pgDefaultRow("Order", "1", nil)},
			{name: "pg_defaults_values", kind: "insert", row: pgDefaultRow("Order", "2", map[string]string{
				"m_money": `"-2.5"`, "m_ttz": `"01:02:03.5-05"`, "m_inet": `"192.168.0.1/24"`, "m_cidr": `"192.168/16"`, "m_mac": `"08-00-2B-01-02-04"`,
				"m_mac8": `"08002b0102030406"`, "m_ir": `"(1,3]"`, "m_tsr": `"empty"`, "m_hs": `"b=>2"`, "m_xml": `"<c/>"`, "m_xml2": `"x"`,
				"m_bit": `"010"`, "m_bit1": `"0"`, "m_vb": `"1"`, "m_vb0": `"1010101010"`, "m_t3": `"01:02:03.4567"`, "m_t6": `"00:00:00.000001"`,
				"m_t0": `"23:59:59.5"`, "m_tfn": `"12:00:00"`, "m_iv": `"-1 mons"`, "m_ivh": `"3 days 04:05:06"`, "m_iv5": `"00:01:02.5"`, "m_ivc": `"2 days 01:02:03"`, "m_iv1": `"00:00:00.04"`,
			})},
		},
	}
}

// mariaDefaultCols are MariaDB time, year, enum and set columns with
// DEFAULTs (excess precision, negative and beyond 24 h, two-digit and zero
// years, a label in another case, a set out of order and empty); on
// PostgreSQL they are text columns without a DEFAULT.
func mariaDefaultCols() []col {
	return withCols(
		col{name: "y_time3", pg: "text", maria: "time(3)", mariaDef: "'12:34:56.7895'"},
		col{name: "y_time_neg", pg: "text", maria: "time", mariaDef: "'-838:59:59'"},
		col{name: "y_time6", pg: "text", maria: "time(6)", mariaDef: "'100:00:00.5'"},
		col{name: "y_year", pg: "text", maria: "year", mariaDef: "2024"},
		col{name: "y_year2", pg: "text", maria: "year", mariaDef: "24"},
		col{name: "y_year0", pg: "text", maria: "year", mariaDef: "0"},
		col{name: "y_year00", pg: "text", maria: "year", mariaDef: "'00'"},
		col{name: "y_year70", pg: "text", maria: "year", mariaDef: "'70'"},
		col{name: "y_enum", pg: "text", maria: "enum('a','B c','d,e')", mariaDef: "'b C'"},
		col{name: "y_enum2", pg: "text", maria: "enum('a','B c','d,e')", mariaDef: "'d,e'"},
		col{name: "y_set", pg: "text", maria: "set('a','b','c')", mariaDef: "'c,a'"},
		col{name: "y_set0", pg: "text", maria: "set('a','b')", mariaDef: "''"},
	)
}

const mariaDefaultNames = "y_time3,y_time_neg,y_time6,y_year,y_year2,y_year0,y_year00,y_year70,y_enum,y_enum2,y_set,y_set0"

func mariaDefaultRow(agg, id string, vals map[string]string) string {
	row := `{"id":"$ID","aggregatetype":"` + agg + `","aggregateid":"` + id + `","type":"D","payload":{"i":1}`
	for _, n := range strings.Split(mariaDefaultNames, ",") {
		v, ok := vals[n]
		if !ok {
			v = "null"
		}
		row += `,"` + n + `":` + v
	}
	return row + "}"
}

func mariaDefaultVariant() variant {
	var hdr []string
	for _, n := range strings.Split(mariaDefaultNames, ",") {
		hdr = append(hdr, n+":header")
	}
	return variant{
		name: "default_maria_types",
		cols: mariaDefaultCols(),
		er: map[string]string{
			"table.field.event.key":             "y_time3",
			"table.fields.additional.placement": strings.Join(hdr, ",") + ",y_year0:envelope:y0,y_enum:envelope:e,y_set:envelope:s,y_time6:envelope:t6",
			"route.topic.replacement":           "dm$R.defaults",
		},
		conn: map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		},
		base: mariaDefaultRow("Sentinel", "s", nil),
		ops: []op{
			{name: "maria_defaults_all_null", kind: "insert", row: mariaDefaultRow("Order", "1", nil)},
			{name: "maria_defaults_values", kind: "insert", row: mariaDefaultRow("Order", "2", map[string]string{
				"y_time3": `"-01:02:03.4567"`, "y_time_neg": `"838:59:59"`, "y_time6": `"00:00:00.000001"`, "y_year": `1999`, "y_year2": `"05"`,
				"y_year0": `2155`, "y_year00": `1901`, "y_year70": `69`, "y_enum": `"a"`, "y_enum2": `"B C"`, "y_set": `"b,a"`, "y_set0": `"b"`,
			})},
		},
	}
}

func defaultVariants() []variant {
	var out []variant
	for _, mode := range []string{"adaptive", "adaptive_time_microseconds", "connect", "microseconds", "nanoseconds", "isostring"} {
		out = append(out, timeModeDefaultVariant(mode))
	}
	out = append(out, variant{
		// computed MariaDB spatial DEFAULTs: the DDL parser's expression
		// alternative, no schema default
		name: "default_maria_spatial",
		cols: withCols(
			col{name: "g_pt", pg: "text", maria: "point", mariaDef: "(ST_GeomFromText('POINT(1 1)'))"},
			col{name: "g_geo", pg: "text", maria: "geometry", mariaDef: "(point(1,2))"},
		),
		er: map[string]string{
			"table.fields.additional.placement": "g_pt:header,g_geo:header,g_pt:envelope:pt",
			"route.topic.replacement":           "dg$R.defaults",
		},
		conn: map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"g_pt":null,"g_geo":null}`,
		ops: []op{
			{name: "maria_spatial_defaults_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"G","payload":{"i":1},"g_pt":null,"g_geo":null}`},
			{name: "maria_spatial_defaults_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"G","payload":{"i":2},"g_pt":"POINT(3 4)","g_geo":"SRID=4326;LINESTRING(0 0,1 1)"}`},
		},
	})
	out = append(out, variant{
		// bigint.unsigned.handling.mode=precise: BIGINT UNSIGNED DEFAULTs
		// as Decimals of scale 0
		name: "default_maria_unsigned_precise",
		cols: withCols(
			col{name: "u_max", pg: "text", maria: "bigint unsigned", mariaDef: "18446744073709551615"},
			col{name: "u_big", pg: "text", maria: "bigint unsigned", mariaDef: "'9223372036854775808'"},
			col{name: "u_zero", pg: "text", maria: "bigint unsigned zerofill", mariaDef: "0"},
		),
		er: map[string]string{
			"table.field.event.key":             "u_max",
			"table.fields.additional.placement": "u_max:header,u_big:header,u_zero:header,u_big:envelope:big",
			"route.topic.replacement":           "du$R.defaults",
		},
		conn: map[string]string{
			"bigint.unsigned.handling.mode": "precise",
			"key.converter":                 "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"u_max":null,"u_big":null,"u_zero":null}`,
		ops: []op{
			{name: "maria_unsigned_defaults_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"U","payload":{"i":1},"u_max":null,"u_big":null,"u_zero":null}`},
			{name: "maria_unsigned_defaults_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"U","payload":{"i":2},"u_max":1,"u_big":2,"u_zero":3}`},
		},
	})
	for _, mode := range []string{"bytes", "hex", "base64"} {
		out = append(out, mariaBinaryDefaultVariant(mode))
	}
	out = append(out, mariaDefaultVariant(), variant{
		// MariaDB bit DEFAULTs: SHOW CREATE TABLE's b'101', the DDL
		// parser's digits, convertToBits
		name: "default_maria_bits",
		cols: withCols(
			col{name: "b3", pg: "text", maria: "bit(3)", mariaDef: "b'101'"},
			col{name: "b10", pg: "text", maria: "bit(10)", mariaDef: "5"},
			col{name: "b1", pg: "text", maria: "bit(1)", mariaDef: "b'1'"},
			col{name: "b1z", pg: "text", maria: "bit(1)", mariaDef: "0"},
			col{name: "b64", pg: "text", maria: "bit(64)", mariaDef: "b'1000000000000000000000000000000000000000000000000000000000000001'"},
			col{name: "b16", pg: "text", maria: "bit(16)", mariaDef: "0b0000000100000000"},
		),
		er: map[string]string{
			"table.field.event.key":             "b10",
			"table.fields.additional.placement": "b3:header,b10:header,b1:header,b1z:header,b64:header,b16:header,b3:envelope:b3,b64:envelope:b64,b1:envelope:b1",
			"route.topic.replacement":           "db$R.defaults",
		},
		conn: map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"b3":null,"b10":null,"b1":null,"b1z":null,"b64":null,"b16":null}`,
		ops: []op{
			{name: "maria_bits_all_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"B","payload":{"i":1},"b3":null,"b10":null,"b1":null,"b1z":null,"b64":null,"b16":null}`},
			{name: "maria_bits_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"B","payload":{"i":2},"b3":7,"b10":1023,"b1":0,"b1z":1,"b64":4294967297,"b16":256}`},
		},
	})
	out = append(out,
		pgDefaultVariant("default_pg_types", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		pgDefaultVariant("default_pg_types_modes", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"time.precision.mode": "adaptive_time_microseconds", "interval.handling.mode": "string", "decimal.handling.mode": "string",
		}),
	)
	for _, mode := range []string{"precise", "string", "double"} {
		out = append(out, variant{
			name: "default_numeric_" + mode,
			cols: numericDefaultCols(),
			er: map[string]string{
				"table.field.event.key":             "n_str",
				"table.fields.additional.placement": "n_zero:header,n_neg:header,n_excess:header,n_excess0:header,n_pad:header,n_exp:header,n_nan:header,n_fn:header,n_s0:header,n_s0ok:header,n_var:header,n_var_exp:header,n_big:header,n_zero:envelope:envZero,n_var:envelope:envVar,n_excess:envelope:envExcess",
				"route.topic.replacement":           "dn$R.defaults." + mode,
			},
			conn: map[string]string{
				"decimal.handling.mode": mode,
				"key.converter":         "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
				"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
			},
			base: numericDefaultBase,
			ops:  numericDefaultOps(),
		})
	}
	// the payload column itself a numeric with a DEFAULT (a NULL payload
	// is the default, not a tombstone), headers by the worker's
	// SimpleHeaderConverter, a StringConverter key
	out = append(out, variant{
		name: "default_numeric_payload",
		cols: replaceCol(numericDefaultCols(), col{name: "payload", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "'-1.5'", mariaDef: "'-1.5'"}),
		er: map[string]string{
			"table.field.event.key":             "n_neg",
			"table.fields.additional.placement": "n_zero:header,n_str:header,n_excess:header,n_var:header,n_big:header",
			"route.tombstone.on.empty.payload":  "true",
			"route.topic.replacement":           "dn$R.defaults.payload",
		},
		conn: map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":1,"n_zero":1,"n_str":1,"n_neg":1,"n_excess":1,"n_excess0":1,"n_pad":1,"n_exp":1,"n_nan":1,"n_fn":1,"n_s0":1,"n_s0ok":1,"n_var":1,"n_var_exp":1,"n_big":1}`,
		ops: []op{
			{name: "numeric_payload_null_takes_default", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"N","payload":null,"n_zero":null,"n_str":null,"n_neg":null,"n_excess":null,"n_excess0":null,"n_pad":null,"n_exp":null,"n_nan":null,"n_fn":null,"n_s0":null,"n_s0ok":null,"n_var":null,"n_var_exp":null,"n_big":null}`},
			{name: "numeric_payload_value", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"N","payload":"12.345","n_zero":"0.1","n_str":null,"n_neg":"-7","n_excess":null,"n_excess0":null,"n_pad":null,"n_exp":null,"n_nan":null,"n_fn":null,"n_s0":null,"n_s0ok":null,"n_var":"100","n_var_exp":null,"n_big":null}`},
		},
	})
	return out
}

// mariaBinaryDefaultVariant: MariaDB binary, varbinary and blob DEFAULTs
// (SHOW CREATE TABLE's escaped text as UTF-8 bytes, binary(n) padding
// printed \0) under a binary.handling.mode.
func mariaBinaryDefaultVariant(mode string) variant {
	names := []string{"x_vb", "x_b5", "x_blob", "x_tiny", "x_hex", "x_b3", "x_bs", "x_bhex"}
	var hdr []string
	for _, n := range names {
		hdr = append(hdr, n+":header")
	}
	row := func(agg, id string, vals string) string {
		if vals == "" {
			vals = `"x_vb":null,"x_b5":null,"x_blob":null,"x_tiny":null,"x_hex":null,"x_b3":null,"x_bs":null,"x_bhex":null`
		}
		return `{"id":"$ID","aggregatetype":"` + agg + `","aggregateid":"` + id + `","type":"X","payload":{"i":1},` + vals + `}`
	}
	return variant{
		name: "default_maria_binary_" + mode,
		cols: withCols(
			col{name: "x_vb", pg: "text", maria: "varbinary(10)", mariaDef: "'abc'"},
			col{name: "x_b5", pg: "text", maria: "binary(5)", mariaDef: "'ab'"},
			col{name: "x_blob", pg: "text", maria: "blob", mariaDef: "'x''y'"},
			col{name: "x_tiny", pg: "text", maria: "tinyblob", mariaDef: "''"},
			col{name: "x_hex", pg: "text", maria: "varbinary(10)", mariaDef: "X'4142'"},
			col{name: "x_b3", pg: "text", maria: "binary(3)", mariaDef: "0x41"},
			col{name: "x_bs", pg: "text", maria: "varbinary(20)", mariaDef: `'a\\b'`},
			col{name: "x_bhex", pg: "text", maria: "blob", mariaDef: "X'4142'"},
		),
		er: map[string]string{
			"table.field.event.key":             "x_b5",
			"table.fields.additional.placement": strings.Join(hdr, ",") + ",x_b5:envelope:b5,x_blob:envelope:bl",
			"route.topic.replacement":           "dx$R.defaults." + mode,
		},
		conn: map[string]string{
			"binary.handling.mode": mode,
			"key.converter":        "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		},
		base: row("Sentinel", "s", ""),
		ops: []op{
			{name: "maria_binary_defaults_all_null", kind: "insert", row: row("Order", "1", "")},
			{name: "maria_binary_defaults_values", kind: "insert", row: row("Order", "2", `"x_vb":"z","x_b5":"q","x_blob":"","x_tiny":"t","x_hex":"AB","x_b3":"abc","x_bs":"s","x_bhex":"b"`)},
		},
	}
}

// timeModeDefaultVariant: DEFAULTs of the wall-clock columns under a
// time.precision.mode: a literal with more fraction digits than the
// column (PostgreSQL keeps them in pg_get_expr, MariaDB stores the
// column's), a function call (the epoch placeholder), a date written
// loosely, a time, a timestamp before the epoch.
func timeModeDefaultVariant(mode string) variant {
	names := []string{"w_ts3", "w_tsfn", "w_date", "w_t3", "w_neg", "w_ts6"}
	var hdr []string
	for _, n := range names {
		hdr = append(hdr, n+":header")
	}
	nulls := `"w_ts3":null,"w_tsfn":null,"w_date":null,"w_t3":null,"w_neg":null,"w_ts6":null`
	row := func(agg, id, vals string) string {
		return `{"id":"$ID","aggregatetype":"` + agg + `","aggregateid":"` + id + `","type":"W","payload":{"i":1},` + vals + `}`
	}
	conn := map[string]string{
		"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
	}
	if mode != "adaptive" {
		conn["time.precision.mode"] = mode
	}
	return variant{
		name: "default_time_mode_" + mode,
		cols: withCols(
			col{name: "w_ts3", pg: "timestamp(3)", maria: "datetime(3)", pgDef: "'2024-01-02 03:04:05.6789'", mariaDef: "'2024-01-02 03:04:05.6789'"},
			col{name: "w_tsfn", pg: "timestamp", maria: "datetime(6)", pgDef: "now()", mariaDef: "now(6)"},
			col{name: "w_date", pg: "date", maria: "date", pgDef: "'2024-1-2'", mariaDef: "'2024-1-2'"},
			col{name: "w_t3", pg: "time(3)", maria: "time(3)", pgDef: "'12:00:00.12345'", mariaDef: "'12:00:00.12345'"},
			col{name: "w_neg", pg: "timestamp(3)", maria: "datetime(3)", pgDef: "'1969-12-31 23:59:59.123456'", mariaDef: "'1969-12-31 23:59:59.123456'"},
			col{name: "w_ts6", pg: "timestamp(6)", maria: "datetime(6)", pgDef: "'2024-01-02 03:04:05.123456'", mariaDef: "'2024-01-02 03:04:05.123456'"},
		),
		er: map[string]string{
			"table.field.event.key":             "w_date",
			"table.fields.additional.placement": strings.Join(hdr, ",") + ",w_ts3:envelope:ts3,w_t3:envelope:t3",
			"route.topic.replacement":           "dw$R.defaults." + strings.ReplaceAll(mode, "_", "-"),
		},
		conn: conn,
		base: row("Sentinel", "s", nulls),
		ops: []op{
			{name: "time_mode_defaults_all_null", kind: "insert", row: row("Order", "1", nulls)},
			{name: "time_mode_defaults_values", kind: "insert", row: row("Order", "2", `"w_ts3":"2020-02-29 12:00:00.5","w_tsfn":"2021-01-01 00:00:00","w_date":"2020-02-29","w_t3":"01:02:03.004","w_neg":"1960-01-01 00:00:00","w_ts6":"2022-02-02 02:02:02.000001"`)},
		},
	}
}
