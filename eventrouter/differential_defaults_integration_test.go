//go:build integration

package eventrouter_test

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

func defaultVariants() []variant {
	var out []variant
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
