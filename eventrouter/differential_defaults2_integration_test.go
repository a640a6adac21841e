//go:build integration

package eventrouter_test

import "strings"

// #31: DEFAULT expressions the model read inexactly until now: MariaDB
// enum / set labels with quotes, backslashes, commas and newlines;
// PostgreSQL numeric DEFAULTs that are expressions (pg_get_expr's text of
// them is what the connector reads); function calls on bit, varbit and
// interval; computed MariaDB BIGINT UNSIGNED DEFAULTs under
// bigint.unsigned.handling.mode=precise; MariaDB binary DEFAULTs with
// control bytes; a sample row's JSON "default" under a time.precision.mode
// that changes the column's schema.

func init() { variantSets = append(variantSets, defaults2Variants) }

var d2JSONConn = map[string]string{
	"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
	"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
	"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
}

func d2Conn(base map[string]string, extra ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(extra); i += 2 {
		out[extra[i]] = extra[i+1]
	}
	return out
}

// defaults2Row is a row of the named columns: vals by name, NULL for the
// others.
func defaults2Row(names []string, agg, id string, vals map[string]string) string {
	row := `{"id":"$ID","aggregatetype":"` + agg + `","aggregateid":"` + id + `","type":"D","payload":{"i":1}`
	for _, n := range names {
		v, ok := vals[n]
		if !ok {
			v = "null"
		}
		row += `,"` + n + `":` + v
	}
	return row + "}"
}

func headersOf(names []string) string {
	var hdr []string
	for _, n := range names {
		hdr = append(hdr, n+":header")
	}
	return strings.Join(hdr, ",")
}

func defaults2Variants() []variant {
	var out []variant

	// 1. MariaDB enum / set labels with a quote, a backslash, a comma, a
	// newline and a double quote, written canonically ('it''s', 'a\\b')
	// and not ('it\'s', "q"""); DEFAULTs naming them (one in another
	// case); row values of each
	const enumT = `enum('it''s','a\\b','d,e','x')`
	const enumT2 = `enum('it\'s','q"','l1\nl2')`
	enumNames := []string{"e_q", "e_bs", "e_c", "e_esc", "e_nl", "e_dq", "s_q"}
	out = append(out, variant{
		name: "default2_maria_enum_labels",
		cols: withCols(
			col{name: "e_q", pg: "text", maria: enumT, mariaDef: `'it''s'`},
			col{name: "e_bs", pg: "text", maria: enumT, mariaDef: `'a\\b'`},
			col{name: "e_c", pg: "text", maria: enumT, mariaDef: `'D,E'`},
			col{name: "e_esc", pg: "text", maria: enumT2, mariaDef: `'it\'s'`},
			col{name: "e_nl", pg: "text", maria: enumT2, mariaDef: `'l1\nl2'`},
			col{name: "e_dq", pg: "text", maria: `enum('q"','y')`, mariaDef: `"q"""`},
			col{name: "s_q", pg: "text", maria: `set('it''s','a\\b','x')`, mariaDef: `'x,a\\b,it''s'`},
		),
		er: map[string]string{
			"table.field.event.key":             "e_bs",
			"table.fields.additional.placement": headersOf(enumNames) + ",e_q:envelope:q,s_q:envelope:s,e_nl:envelope:nl",
			"route.topic.replacement":           "d2e$R.defaults",
		},
		conn: d2JSONConn,
		base: defaults2Row(enumNames, "Sentinel", "s", nil),
		ops: []op{
			{name: "maria_enum_labels_all_null", kind: "insert", row: defaults2Row(enumNames, "Order", "1", nil)},
			{name: "maria_enum_labels_values", kind: "insert", row: defaults2Row(enumNames, "Order", "2", map[string]string{
				"e_q": `"d,e"`, "e_bs": `"a\\b"`, "e_c": `"IT'S"`, "e_esc": `"q\""`, "e_nl": `"l1\nl2"`, "e_dq": `"y"`, "s_q": `"a\\b,it's"`,
			})},
			{name: "maria_enum_labels_values2", kind: "insert", row: defaults2Row(enumNames, "Order", "3", map[string]string{
				"e_q": `"x"`, "e_bs": `"it's"`, "e_c": `"a\\b"`, "e_esc": `"it's"`, "s_q": `""`,
			})},
		},
	})

	// 2. PostgreSQL numeric DEFAULTs that are expressions: pg_get_expr
	// prints (1 + 2), (- 1.5), ('-1'::integer + 2), ('100'::numeric + 1),
	// (+ 1.5), (2)::numeric, 1.5::numeric(10,1), '2'::numeric(10,1),
	// ('3000000000'::bigint * 2), ('-2'::integer)::numeric, (2.5 * 2),
	// ('-1.555'::numeric + 0): the connector reads the first quoted
	// constant, or the whole text. Function calls on bit, varbit and
	// interval columns: the mapper's placeholders. On MariaDB: decimal
	// columns with the MariaDB spellings of the arithmetic ones (a
	// computed DEFAULT: none) and text columns.
	numNames := []string{"x_add", "x_negcast", "x_negfold", "x_exp", "x_paren", "x_plus", "x_cast_int", "x_typmod", "x_typmod_int", "x_big", "x_neg_cast", "x_mul", "x_excess", "f_bit", "f_bit1", "f_vb", "f_iv", "f_ivh"}
	numCols := withCols(
		col{name: "x_add", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "(1+2)", mariaDef: "(1+2)"},
		col{name: "x_negcast", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "-1.5::numeric", mariaDef: "(-1.5 * 1)"},
		col{name: "x_negfold", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "(-1 + 2)", mariaDef: "(-1 + 2)"},
		col{name: "x_exp", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "(1e2 + 1)", mariaDef: "(1e2 + 1)"},
		col{name: "x_paren", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "(1.5)", mariaDef: "(1.5)"},
		col{name: "x_plus", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "+1.5", mariaDef: "+1.5"},
		col{name: "x_cast_int", pg: "numeric(10,2)", maria: "text", pgDef: "2::numeric"},
		col{name: "x_typmod", pg: "numeric(10,2)", maria: "text", pgDef: "'1.5'::numeric(10,1)"},
		col{name: "x_typmod_int", pg: "numeric(10,2)", maria: "text", pgDef: "'2'::numeric(10,1)"},
		col{name: "x_big", pg: "numeric(14,2)", maria: "decimal(14,2)", pgDef: "(3000000000 * 2)", mariaDef: "(3000000000 * 2)"},
		col{name: "x_neg_cast", pg: "numeric(10,2)", maria: "text", pgDef: "(-2)::numeric"},
		col{name: "x_mul", pg: "numeric(10,2)", maria: "decimal(10,2)", pgDef: "2.5 * 2", mariaDef: "(2.5 * 2)"},
		col{name: "x_excess", pg: "numeric(10,2)", maria: "text", pgDef: "(-1.555 + 0)"},
		col{name: "f_bit", pg: "bit(3)", maria: "text", pgDef: "repeat('1', 3)::bit(3)"},
		col{name: "f_bit1", pg: "bit(1)", maria: "text", pgDef: "repeat('1', 1)::bit(1)"},
		col{name: "f_vb", pg: "varbit(8)", maria: "text", pgDef: "repeat('1', 2)::varbit(8)"},
		col{name: "f_iv", pg: "interval", maria: "text", pgDef: "make_interval(days => 1)"},
		col{name: "f_ivh", pg: "interval hour", maria: "text", pgDef: "make_interval(hours => 5)"},
	)
	numVals := map[string]string{
		"x_add": `"1.5"`, "x_negcast": `"-0.01"`, "x_negfold": `"7"`, "x_exp": `"12345678.9"`, "x_paren": `"0"`, "x_plus": `"2.25"`,
		"x_cast_int": `"3"`, "x_typmod": `"4.5"`, "x_typmod_int": `"-5"`, "x_big": `"6000000000.5"`, "x_neg_cast": `"8"`, "x_mul": `"9.99"`, "x_excess": `"-1.55"`,
		"f_bit": `"101"`, "f_bit1": `"1"`, "f_vb": `"0110"`, "f_iv": `"1 day 02:00:00"`, "f_ivh": `"03:00:00"`,
	}
	for _, m := range []struct{ name, key string }{{"", "x_negfold"}, {"_string", "x_exp"}} {
		conn := d2JSONConn
		if m.name == "_string" {
			conn = d2Conn(map[string]string{
				"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			}, "decimal.handling.mode", "string", "interval.handling.mode", "string")
		}
		out = append(out, variant{
			name: "default2_pg_numeric_expr" + m.name,
			cols: numCols,
			er: map[string]string{
				"table.field.event.key":             m.key,
				"table.fields.additional.placement": headersOf(numNames) + ",x_negfold:envelope:nf,f_iv:envelope:iv,f_bit:envelope:b",
				"route.topic.replacement":           "d2n$R.defaults" + strings.ReplaceAll(m.name, "_", "."),
			},
			conn: conn,
			base: defaults2Row(numNames, "Sentinel", "s", nil),
			ops: []op{
				{name: "pg_numeric_expr_all_null", kind: "insert", row: defaults2Row(numNames, "Order", "1", nil)},
				{name: "pg_numeric_expr_values", kind: "insert", row: defaults2Row(numNames, "Order", "2", numVals)},
			},
		})
	}

	// 3. MariaDB: computed BIGINT UNSIGNED DEFAULTs under
	// bigint.unsigned.handling.mode=precise (the DDL parser's expression
	// alternative: none); binary DEFAULTs with control bytes (printed as
	// they are by SHOW CREATE TABLE, a newline and a carriage return as
	// \n and \r)
	miscNames := []string{"u_expr", "u_expr2", "u_lit", "x_ctl", "x_ctl2", "x_q", "x_blob"}
	out = append(out, variant{
		name: "default2_maria_unsigned_binary",
		cols: withCols(
			col{name: "u_expr", pg: "text", maria: "bigint unsigned", mariaDef: "(1+1)"},
			col{name: "u_expr2", pg: "text", maria: "bigint unsigned", mariaDef: "(18446744073709551615 - 1)"},
			col{name: "u_lit", pg: "text", maria: "bigint unsigned", mariaDef: "5"},
			col{name: "x_ctl", pg: "text", maria: "varbinary(10)", mariaDef: "X'0109410A0D7F1A'"},
			col{name: "x_ctl2", pg: "text", maria: "binary(3)", mariaDef: "X'1F'"},
			col{name: "x_q", pg: "text", maria: "varbinary(10)", mariaDef: "'x''y'"},
			col{name: "x_blob", pg: "text", maria: "blob", mariaDef: `'q\n''\Z'`},
		),
		er: map[string]string{
			"table.field.event.key":             "u_expr",
			"table.fields.additional.placement": headersOf(miscNames) + ",u_expr2:envelope:u2,x_ctl:envelope:c",
			"route.topic.replacement":           "d2u$R.defaults",
		},
		conn: d2Conn(d2JSONConn, "bigint.unsigned.handling.mode", "precise"),
		base: defaults2Row(miscNames, "Sentinel", "s", nil),
		ops: []op{
			{name: "maria_unsigned_binary_all_null", kind: "insert", row: defaults2Row(miscNames, "Order", "1", nil)},
			{name: "maria_unsigned_binary_values", kind: "insert", row: defaults2Row(miscNames, "Order", "2", map[string]string{
				"u_expr": `18446744073709551615`, "u_expr2": `0`, "u_lit": `7`, "x_ctl": `"ab"`, "x_ctl2": `"c"`, "x_q": `"q"`, "x_blob": `"b"`,
			})},
		},
	})

	// 4. a sample row's JSON "default" (the harness writes it as the
	// DEFAULT literal) under a time.precision.mode that changes the
	// column's schema
	twNames := []string{"j_ts3", "j_date", "j_t3", "j_neg", "j_ts6"}
	for _, mode := range []string{"microseconds", "connect", "isostring"} {
		out = append(out, variant{
			name: "default2_time_mode_json_" + mode,
			cols: withCols(
				col{name: "j_ts3", pg: "timestamp(3)", maria: "datetime(3)", def: `"2024-01-02 03:04:05.6789"`},
				col{name: "j_date", pg: "date", maria: "date", def: `"2024-01-02"`},
				col{name: "j_t3", pg: "time(3)", maria: "time(3)", def: `"12:00:00.12345"`},
				col{name: "j_neg", pg: "timestamp(3)", maria: "datetime(3)", def: `"1969-12-31 23:59:59.123456"`},
				col{name: "j_ts6", pg: "timestamp(6)", maria: "datetime(6)", def: `"2024-01-02 03:04:05.123456"`},
			),
			er: map[string]string{
				"table.field.event.key":             "j_date",
				"table.fields.additional.placement": headersOf(twNames) + ",j_ts3:envelope:ts3,j_t3:envelope:t3",
				"route.topic.replacement":           "d2w$R.defaults." + mode,
			},
			conn: d2Conn(d2JSONConn, "time.precision.mode", mode),
			base: defaults2Row(twNames, "Sentinel", "s", nil),
			ops: []op{
				{name: "time_mode_json_defaults_all_null", kind: "insert", row: defaults2Row(twNames, "Order", "1", nil)},
				{name: "time_mode_json_defaults_values", kind: "insert", row: defaults2Row(twNames, "Order", "2", map[string]string{
					"j_ts3": `"2020-02-29 12:00:00.5"`, "j_date": `"2020-02-29"`, "j_t3": `"01:02:03.004"`, "j_neg": `"1960-01-01 00:00:00"`, "j_ts6": `"2022-02-02 02:02:02.000001"`,
				})},
			},
		})
	}
	return out
}
