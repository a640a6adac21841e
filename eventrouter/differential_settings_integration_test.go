//go:build integration

package eventrouter_test

import "fmt"

// #31 (connector settings that change delivered values): variants named
// setting_<name>_..., each a connector setting ColumnSettings models
// beyond its default.
func init() { variantSets = append(variantSets, settingVariants) }

func settingVariants() []variant {
	return []variant{
		binaryVariant("setting_binary_base64", "base64", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		binaryVariant("setting_binary_base64_url_safe", "base64-url-safe", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
		}),
		binaryVariant("setting_binary_hex", "hex", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "io.debezium.converters.BinaryDataConverter",
			"value.converter.delegate.converter.type":                "org.apache.kafka.connect.json.JsonConverter",
			"value.converter.delegate.converter.type.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "false",
		}),
		variableScaleVariant("setting_decimal_precise_variable_scale", false, map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		variableScaleVariant("setting_decimal_precise_variable_scale_payload", true, map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
		}),
		unsignedPreciseVariant("setting_bigint_unsigned_precise", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		unsignedPreciseVariant("setting_bigint_unsigned_precise_string_conv", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"decimal.handling.mode": "string",
		}),
		decimalVariant("setting_decimal_format_numeric", "precise", true, map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true", "key.converter.decimal.format": "numeric",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true", "value.converter.decimal.format": "numeric",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "false", "header.converter.decimal.format": "numeric",
		}),
		decimalVariant("setting_decimal_format_numeric_value_only", "precise", false, map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false", "value.converter.decimal.format": "NUMERIC",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true", "header.converter.decimal.format": "Base64",
		}),
		withConn(specialNumericVariant("setting_decimal_format_numeric_money", "precise"), map[string]string{
			"value.converter.decimal.format":  "numeric",
			"header.converter.decimal.format": "numeric",
		}),
		withConn(numericArrayVariant("setting_decimal_format_numeric_arrays", "precise"), map[string]string{
			"value.converter.decimal.format":  "numeric",
			"header.converter.decimal.format": "numeric",
		}),
		unsignedPreciseVariant("setting_decimal_format_numeric_unsigned", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true", "key.converter.decimal.format": "numeric",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true", "value.converter.decimal.format": "numeric",
		}),
		intervalVariant("setting_interval_string", "string", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
		intervalVariant("setting_interval_string_json_headers", "string", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		moneyDigitsVariant("setting_money_fraction_digits_0", "0", "precise", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		moneyDigitsVariant("setting_money_fraction_digits_4", "4", "precise", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
		}),
		moneyDigitsVariant("setting_money_fraction_digits_4_string", "4", "string", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
		moneyDigitsVariant("setting_money_fraction_digits_0_double", "0", "double", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
		convertFailVariant("setting_event_converting_failure_fail", "precise", col{name: "t_n", pg: "numeric(10,2)", maria: "varchar(32)"}, `"NaN"`, `"12.345"`),
		convertFailVariant("setting_event_converting_failure_fail_free", "precise", col{name: "t_n", pg: "numeric", maria: "varchar(32)"}, `"-Infinity"`, `"1.50"`),
		convertFailVariant("setting_event_converting_failure_fail_array", "string", col{name: "t_n", pg: "numeric(10,2)[]", maria: "varchar(32)"}, `"{1,NaN}"`, `"{1.5}"`),
		// the same rows under numeric (the default): PGInterval's
		// seconds (whole + micros / 1e6, in doubles) in MicroDuration
		intervalVariant("setting_interval_numeric_seconds", "numeric", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
	}
}

// intervalVariant is a PostgreSQL interval and interval(3) under
// interval.handling.mode=mode (string: io.debezium.time.Interval,
// Interval.toIsoString of PGInterval's parts) in the key, headers, the
// envelope and the payload; all units, negative days, time and months,
// hours beyond a day, microseconds, seconds whose double is not the
// decimal (1.235), interval(3) rounding carried into the minutes, NULL.
// On MariaDB the columns are text.
func intervalVariant(name, mode string, conv map[string]string) variant {
	cols := replaceCol(withCols(
		col{name: "t_iv", pg: "interval", maria: "varchar(64)"},
		col{name: "t_iv3", pg: "interval(3)", maria: "varchar(64)"},
	), col{name: "payload", pg: "interval", maria: "varchar(64)"})
	rows := []string{
		`"payload":"1 year 2 mons 3 days 04:05:06.123456","t_iv":"-1 days +02:00:00","t_iv3":"1 day 00:00:01.2345"`,
		`"payload":"-00:00:06.5","t_iv":"-1 years -2 mons","t_iv3":"-00:00:59.9995"`,
		`"payload":"00:00:01.235","t_iv":"100:00:00","t_iv3":"00:00:00.0005"`,
		`"payload":"00:00:00.000001","t_iv":"00:00:00","t_iv3":"1 year 1 mon"`,
		`"payload":"3 days -00:00:00.1","t_iv":"00:00:07.1","t_iv3":"00:00:02.675"`,
		`"payload":null,"t_iv":null,"t_iv3":null`,
	}
	names := []string{"interval_all_units", "interval_negative", "interval_double_seconds", "interval_micro_zero", "interval_mixed_signs", "interval_nulls"}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T",` + r + `}`})
	}
	conn := map[string]string{"interval.handling.mode": mode, "errors.tolerance": "all"}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_iv",
			"table.fields.additional.placement": "t_iv:header,t_iv3:header,payload:header:p,t_iv3:envelope:iv3,t_iv:envelope:iv",
			"route.topic.replacement":           "dt$R.iv.${routedByValue}",
		},
		conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"00:00:01","t_iv":"00:00:01","t_iv3":"00:00:01"}`,
		ops:  ops,
	}
}

// withConn is v with more connector keys.
func withConn(v variant, conn map[string]string) variant {
	c := map[string]string{}
	for k, x := range v.conn {
		c[k] = x
	}
	for k, x := range conn {
		c[k] = x
	}
	v.conn = c
	return v
}

// unsignedPreciseVariant is bigint.unsigned.handling.mode=precise: a MariaDB
// BIGINT UNSIGNED (and BIGINT UNSIGNED ZEROFILL) is a Decimal of scale 0
// and precision 20 holding the unsigned value (decimal.handling.mode does
// not change it), in the key, headers and the envelope; 0, 2^63-1, 2^63,
// 2^64-1 and NULL; a signed bigint is unchanged; on PostgreSQL the columns
// are text and int8 (the setting does not apply).
func unsignedPreciseVariant(name string, conv map[string]string) variant {
	cols := withCols(
		col{name: "t_u64", pg: "text", maria: "bigint unsigned"},
		col{name: "t_z64", pg: "text", maria: "bigint(20) unsigned zerofill"},
		col{name: "t_s64", pg: "int8", maria: "bigint"},
	)
	rows := []string{`"t_u64":"0","t_z64":"7","t_s64":-1`, `"t_u64":"9223372036854775807","t_z64":"9223372036854775808","t_s64":9223372036854775807`,
		`"t_u64":"18446744073709551615","t_z64":"18446744073709551614","t_s64":-9223372036854775808`, `"t_u64":null,"t_z64":null,"t_s64":null`}
	names := []string{"unsigned_precise_small", "unsigned_precise_sign_bit", "unsigned_precise_max", "unsigned_precise_nulls"}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T","payload":{"i":` + fmt.Sprint(i) + `},` + r + `}`})
	}
	conn := map[string]string{"bigint.unsigned.handling.mode": "precise", "errors.tolerance": "all"}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_u64",
			"table.fields.additional.placement": "t_u64:header,t_z64:header,t_s64:header,t_z64:envelope:z,t_u64:envelope:u",
			"route.topic.replacement":           "dt$R.u64.${routedByValue}",
		},
		conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_u64":"1","t_z64":"1","t_s64":1}`,
		ops:  ops,
	}
}

// variableScaleVariant is an unconstrained PostgreSQL numeric and numeric[]
// under decimal.handling.mode=precise: io.debezium.data.VariableScaleDecimal
// (struct scale, value; trailing zeros stripped, a negative scale set to
// 0), in the key, headers (JsonConverter with schemas, or the
// SimpleHeaderConverter when payload), the envelope and (payload) the
// payload; exponents, trailing zeros, sign bytes (-128, 128), a wide value,
// zero, NaN (the converter throws: NULL under the default warn) and NULLs.
// On MariaDB the columns are text.
func variableScaleVariant(name string, payload bool, conv map[string]string) variant {
	cols := withCols(
		col{name: "t_free", pg: "numeric", maria: "varchar(64)"},
		col{name: "t_nf", pg: "numeric[]", maria: "varchar(200)"},
	)
	er := map[string]string{
		"table.field.event.key":             "t_free",
		"table.fields.additional.placement": "t_free:header,t_nf:header,t_free:envelope:free,t_nf:envelope:nf",
		"route.topic.replacement":           "dt$R.vsd.${routedByValue}",
	}
	frees := []string{`"1.50e1"`, `"-0.000000123"`, `"0.000"`, `"100"`, `"-128"`, `"12345678901234567890.123456789000"`, `"NaN"`, `null`}
	nfs := []string{`"{1.50,1e2,-0.000}"`, `"{NULL,128}"`, `"{}"`, `"{0.10}"`, `"{-128,255}"`, `"{12345678901234567890.1234567890}"`, `"{1}"`, `null`}
	names := []string{"vsd_exponent_trailing_zeros", "vsd_small_negative", "vsd_zero_scale", "vsd_integer_strip", "vsd_sign_bytes", "vsd_wide", "vsd_nan_null", "vsd_nulls"}
	base := `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_free":"7","t_nf":"{2}"}`
	if payload {
		cols = replaceCol(cols, col{name: "payload", pg: "numeric", maria: "varchar(64)"})
		er["table.fields.additional.placement"] = "t_free:header,t_nf:header,t_nf:envelope:nf"
		er["table.field.event.payload"] = "payload"
		base = `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"3","t_free":"7","t_nf":"{2}"}`
	}
	var ops []op
	for i := range frees {
		p := `{"i":` + fmt.Sprint(i) + `}`
		if payload {
			p = frees[len(frees)-1-i]
		}
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T","payload":` + p + `,"t_free":` + frees[i] + `,"t_nf":` + nfs[i] + `}`})
	}
	conn := map[string]string{"decimal.handling.mode": "precise", "errors.tolerance": "all"}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{name: name, cols: cols, er: er, conn: conn, base: base, ops: ops}
}

// binaryVariant is binary.handling.mode=mode: the payload (bytea /
// longblob), the key (bytea / binary(4), zero-padded on MariaDB), headers
// and the envelope (bytea / varbinary(8)) become strings; bytes whose
// base64 has + and / (- and _ URL-safe), padding, an empty payload
// (route.tombstone.on.empty.payload: the empty string is a tombstone), a
// PostgreSQL bit(12) column (io.debezium.data.Bits, not a binary column:
// unchanged; text on MariaDB),
// NULLs and a PostgreSQL bytea DEFAULT (none: bytea has no default
// mapper).
func binaryVariant(name, mode string, conv map[string]string) variant {
	cols := replaceCol(withCols(
		col{name: "t_bin", pg: "bytea", maria: "binary(4)"},
		col{name: "t_vb", pg: "bytea", maria: "varbinary(8)"},
		col{name: "t_bits", pg: "bit(12)", maria: "varchar(16)"},
		col{name: "t_vd", pg: "bytea", maria: "varbinary(8)", pgDef: `'\x0102'::bytea`},
	), col{name: "payload", pg: "bytea", maria: "longblob"})
	rows := []string{
		`"payload":"hex:fbff00fe3e3f","t_bin":"hex:fbef","t_vb":"hex:ffffffbe","t_bits":"100000000001","t_vd":"hex:00"`,
		`"payload":"ab","t_bin":"a","t_vb":"abcd","t_bits":"000000000000","t_vd":"hex:fbff"`,
		`"payload":"","t_bin":"","t_vb":"","t_bits":"000000000001","t_vd":""`,
		`"payload":null,"t_bin":null,"t_vb":null,"t_bits":null,"t_vd":null`,
	}
	names := []string{"bin_alphabet", "bin_padding_short", "bin_empty_payload_tombstone", "bin_nulls"}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T",` + r + `}`})
	}
	conn := map[string]string{"binary.handling.mode": mode, "errors.tolerance": "all"}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_bin",
			"table.fields.additional.placement": "t_bin:header,t_vb:header,t_vd:header,t_bits:header,t_vb:envelope:vb,t_bits:envelope:bits",
			"route.tombstone.on.empty.payload":  "true",
			"route.topic.replacement":           "dt$R.bin.${routedByValue}",
		},
		conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"p","t_bin":"s","t_vb":"s","t_bits":"000000000001","t_vd":"s"}`,
		ops:  ops,
	}
}

// moneyDigitsVariant is money.fraction.digits=digits under
// decimal.handling.mode=mode: under precise a Decimal of scale digits (the
// stored cents rounded half up), string and double unchanged; in the key,
// headers, the envelope and the payload; rounding both ways, the bounds,
// NULL. On MariaDB the columns are text.
func moneyDigitsVariant(name, digits, mode string, conv map[string]string) variant {
	cols := replaceCol(withCols(
		col{name: "t_m", pg: "money", maria: "varchar(32)"},
	), col{name: "payload", pg: "money", maria: "varchar(32)"})
	rows := []string{
		`"payload":"-$1,234.565","t_m":"12.5"`,
		`"payload":"0.005","t_m":"-0.5"`,
		`"payload":"92233720368547758.07","t_m":"-92233720368547758.08"`,
		`"payload":"1,000","t_m":"0.49"`,
		`"payload":null,"t_m":null`,
	}
	names := []string{"money_digits_round", "money_digits_half", "money_digits_bounds", "money_digits_thousands", "money_digits_nulls"}
	var ops []op
	for i, r := range rows {
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T",` + r + `}`})
	}
	conn := map[string]string{"money.fraction.digits": digits, "decimal.handling.mode": mode, "errors.tolerance": "all"}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_m",
			"table.fields.additional.placement": "t_m:header,payload:header:p,t_m:envelope:m",
			"route.topic.replacement":           "dt$R.money.${routedByValue}",
		},
		conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"1","t_m":"1"}`,
		ops:  ops,
	}
}

// convertFailVariant is event.converting.failure.handling.mode=fail where a
// value converter throws (a PostgreSQL numeric NaN or Infinity under
// decimal.handling.mode=precise, a NaN element of a numeric array under any
// mode): the warm-up row (good) converts and routes, the failing one fails
// the task with TableSchemaBuilder's DebeziumException ("Failed to properly
// convert data value for '<schema>.<table>.<column>' of type <type>"), even
// under errors.tolerance=all. (A row that converts and was queued in the
// same poll as the failing one is lost with the task: ChangeEventQueue
// throws the producer's exception before handing out its batch; seen in
// the first run of this variant, so the failing row comes alone.) On
// MariaDB the column is text: the row routes.
func convertFailVariant(name, mode string, c col, bad, good string) variant {
	return variant{
		name: name, cols: withCols(c),
		er: map[string]string{
			"table.fields.additional.placement": c.name + ":header",
			"route.topic.replacement":           "dt$R.cfail.${routedByValue}",
		},
		conn: map[string]string{
			"event.converting.failure.handling.mode": "fail", "decimal.handling.mode": mode, "errors.tolerance": "all",
			"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"` + c.name + `":` + good + `}`,
		ops: []op{
			{name: "converting_fails_task", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"` + c.name + `":` + bad + `}`},
		},
	}
}
