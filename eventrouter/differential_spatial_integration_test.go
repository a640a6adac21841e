//go:build integration

package eventrouter_test

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
