//go:build integration

package eventrouter_test

import (
	"encoding/json"
	"fmt"
	"strings"
)

// #31 (arrays of every element type whose scalar is modelled,
// multi-dimensional values, dimension decorations, DEFAULTs): PostgreSQL
// arrays in the key, headers and envelope, checked against the real
// connector; on MariaDB the columns are text (varchar) holding the same
// literals, so the variants run there too as plain strings.
func init() { variantSets = append(variantSets, pgArrayVariants) }

// arrRow builds an outbox row: the routing columns, a payload and the
// columns given as name, value pairs (a string is an array literal, nil
// NULL), in order.
func arrRow(aggID string, kv ...any) string {
	return arrRowPayload(aggID, map[string]string{"i": aggID}, kv...)
}

// arrRowPayload is arrRow with the payload column's value.
func arrRowPayload(aggID string, payload any, kv ...any) string {
	var b strings.Builder
	p, _ := json.Marshal(payload)
	fmt.Fprintf(&b, `{"id":"$ID","aggregatetype":"Order","aggregateid":%q,"type":"T","payload":%s`, aggID, p)
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := json.Marshal(kv[i+1])
		fmt.Fprintf(&b, `,%q:%s`, kv[i], v)
	}
	return b.String() + "}"
}

func arrBase(kv ...any) string {
	return strings.Replace(arrRow("s", kv...), `"aggregatetype":"Order"`, `"aggregatetype":"Sentinel"`, 1)
}

var arrJSONConv = map[string]string{
	"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
	"value.converter.schemas.enable": "true",
	"header.converter":               "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
	"errors.tolerance": "all",
}

func pgArrayVariants() []variant {
	return []variant{
		{
			// char(n)[] (blank-padded), bpchar[] (not padded), varchar[]
			// unconstrained, citext[], json[] (the text as written),
			// jsonb[] (canonical): the key under StringConverter
			// (List.toString), JsonConverter headers and envelope fields
			// with their schemas
			name:    "pg_array_text_types",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS citext", "CREATE EXTENSION IF NOT EXISTS hstore"},
			cols: withCols(
				col{name: "t_bp", pg: "char(4)[]", maria: "varchar(200)"},
				col{name: "t_bpu", pg: "bpchar[]", maria: "varchar(200)"},
				col{name: "t_vc", pg: "varchar[]", maria: "varchar(200)"},
				col{name: "t_ci", pg: "citext[]", maria: "varchar(200)"},
				col{name: "t_js", pg: "json[]", maria: "varchar(200)"},
				col{name: "t_jb", pg: "jsonb[]", maria: "varchar(200)"},
				col{name: "t_hs", pg: "hstore[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_bp",
				"table.fields.additional.placement": "t_bp:header,t_bpu:header,t_vc:header,t_ci:header,t_js:header,t_jb:header,t_hs:header,t_hs:envelope:hs,t_jb:envelope:jb,t_ci:envelope:ci,t_bpu:envelope:bpu,t_js:envelope:js",
				"route.topic.replacement":           "dt$R.atx.${routedByValue}",
			},
			conn: arrJSONConv,
			base: arrBase("t_bp", "{z}", "t_bpu", nil, "t_vc", nil, "t_ci", nil, "t_js", nil, "t_jb", nil, "t_hs", nil),
			ops: []op{
				{name: "arr_text_non_canonical", kind: "insert", row: arrRow("1", "t_bp", `{ab,"c  ",NULL,""}`, "t_bpu", `{"ab  ",x}`, "t_vc", `{"a b","c,d","NULL",NULL}`,
					"t_ci", `{AbC,"x Y"}`, "t_js", `{"{\"a\": 1}","[1, 2]",null,"\"s\""}`, "t_jb", `{"{\"b\":1, \"a\":2}","[1,2]"}`, "t_hs", `{"b=>2, a=>NULL, \"q x\"=>\"y\"","",NULL}`)},
				{name: "arr_text_quoting_bounds", kind: "insert", row: arrRow("2", "t_bp", `{"a\\b","q\"x"}`, "t_bpu", `[2:3]={p," lead"}`, "t_vc", `{"a\\\\b","c\"d"," sp ","",x,"{}"}`,
					"t_ci", `{"NULL",null}`, "t_js", `{"{}", "  {\"k\" : 1}  "}`, "t_jb", `{"{\"k\": [1, {\"z\": null}]}","\"é\""}`, "t_hs", `{}`)},
				{name: "arr_text_empty_null", kind: "insert", row: arrRow("3", "t_bp", "{}", "t_bpu", nil, "t_vc", "{}", "t_ci", "{}", "t_js", nil, "t_jb", "{}", "t_hs", nil)},
			},
		},
		{
			// timestamp(p)[], timestamptz(p)[], time(p)[] and timetz[]:
			// elements rounded to the column's precision by PostgreSQL,
			// then read by pgjdbc (time: java.sql.Time, milliseconds, 24:00
			// is 00:00; timetz: whole seconds, in UTC); the key under
			// StringConverter, JsonConverter headers and envelope fields
			name: "pg_array_temporal",
			cols: withCols(
				col{name: "t_ts3", pg: "timestamp(3)[]", maria: "varchar(200)"},
				col{name: "t_ts", pg: "timestamp[]", maria: "varchar(200)"},
				col{name: "t_tz", pg: "timestamptz[]", maria: "varchar(200)"},
				col{name: "t_tz2", pg: "timestamptz(2)[]", maria: "varchar(200)"},
				col{name: "t_t3", pg: "time(3)[]", maria: "varchar(200)"},
				col{name: "t_t", pg: "time[]", maria: "varchar(200)"},
				col{name: "t_ttz", pg: "timetz[]", maria: "varchar(200)"},
				col{name: "t_ttz0", pg: "timetz(0)[]", maria: "varchar(200)"},
				col{name: "t_tzs", pg: "timetz(3)", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_tz",
				"table.fields.additional.placement": "t_ts3:header,t_ts:header,t_tz:header,t_tz2:header,t_t3:header,t_t:header,t_ttz:header,t_ttz0:header,t_tzs:header,t_ttz0:envelope:ttz0,t_ts3:envelope:ts3,t_t:envelope:t,t_ttz:envelope:ttz,t_tz2:envelope:tz2",
				"route.topic.replacement":           "dt$R.atm.${routedByValue}",
			},
			conn: arrJSONConv,
			base: arrBase("t_ts3", nil, "t_ts", nil, "t_tz", "{2024-01-01 00:00:00+00}", "t_tz2", nil, "t_t3", nil, "t_t", nil, "t_ttz", nil, "t_ttz0", nil, "t_tzs", nil),
			ops: []op{
				{name: "arr_temporal_rounding", kind: "insert", row: arrRow("1", "t_ts3", `{"2024-01-02 03:04:05.123456","1970-01-01 00:00:00",NULL}`,
					"t_ts", `{"2024-01-02 03:04:05.1234567","1969-12-31 23:59:59.999999"}`, "t_tz", `{"2024-01-02 03:04:05.123456+02","2024-07-01 00:00:00Z"}`,
					"t_tz2", `{"2024-01-02 03:04:05.125+02",NULL}`, "t_t3", `{"03:04:05.123456","23:59:59.9999"}`, "t_t", `{"03:04:05.123456",NULL,"24:00:00"}`,
					"t_ttz", `{"03:04:05.123456+02","10:00:00-05:30","00:30:00+01"}`, "t_ttz0", `{"03:04:05.6+02","23:59:59.7+00",NULL}`, "t_tzs", "03:04:05.12345+02")},
				{name: "arr_temporal_empty_null", kind: "insert", row: arrRow("2", "t_ts3", "{}", "t_ts", nil, "t_tz", "{}", "t_tz2", "{}", "t_t3", nil, "t_t", "{}", "t_ttz", "{}", "t_ttz0", "{}", "t_tzs", nil)},
			},
		},
		{
			// inet[], cidr[], macaddr[], macaddr8[], the ranges (their
			// output form), bytea[] (hex and escape input), bit(3)[] and
			// bit[] (the schema of bit(n), not an array, and NULL: the
			// list fails Struct.put); the key under StringConverter,
			// JsonConverter headers and envelope fields
			name: "pg_array_net_ranges_bits",
			cols: withCols(
				col{name: "t_inet", pg: "inet[]", maria: "varchar(200)"},
				col{name: "t_cidr", pg: "cidr[]", maria: "varchar(200)"},
				col{name: "t_mac", pg: "macaddr[]", maria: "varchar(200)"},
				col{name: "t_mac8", pg: "macaddr8[]", maria: "varchar(200)"},
				col{name: "t_r4", pg: "int4range[]", maria: "varchar(200)"},
				col{name: "t_nr", pg: "numrange[]", maria: "varchar(200)"},
				col{name: "t_tzr", pg: "tstzrange[]", maria: "varchar(200)"},
				col{name: "t_dr", pg: "daterange[]", maria: "varchar(200)"},
				col{name: "t_r8", pg: "int8range[]", maria: "varchar(200)"},
				col{name: "t_tsr", pg: "tsrange[]", maria: "varchar(200)"},
				col{name: "t_by", pg: "bytea[]", maria: "varchar(200)"},
				col{name: "t_b3", pg: "bit(3)[]", maria: "varchar(200)"},
				col{name: "t_b1", pg: "bit[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key": "t_inet",
				"table.fields.additional.placement": "t_inet:header,t_cidr:header,t_mac:header,t_mac8:header,t_r4:header,t_nr:header,t_tzr:header,t_dr:header,t_r8:header,t_tsr:header," +
					"t_by:header,t_b3:header,t_b1:header,t_by:envelope:by,t_b3:envelope:b3,t_r4:envelope:r4,t_mac8:envelope:m8",
				"route.topic.replacement": "dt$R.anr.${routedByValue}",
			},
			conn: arrJSONConv,
			base: arrBase("t_inet", "{1.2.3.4}", "t_cidr", nil, "t_mac", nil, "t_mac8", nil, "t_r4", nil, "t_nr", nil, "t_tzr", nil, "t_dr", nil, "t_r8", nil, "t_tsr", nil, "t_by", nil, "t_b3", nil, "t_b1", nil),
			ops: []op{
				{name: "arr_net_range_values", kind: "insert", row: arrRow("1", "t_inet", `{192.168.0.1/32,10.1.2.3/8,::1}`, "t_cidr", `{10.1/16,192.168.1}`,
					"t_mac", `{08-00-2B-01-02-03,NULL}`, "t_mac8", `{08:00:2b:01:02:03}`, "t_r4", `{"(1,5]",empty}`, "t_nr", `{"(1.50,2]"}`,
					"t_tzr", `{"[2024-01-01 10:00:00+02,)"}`, "t_dr", `{"[2024-01-01,2024-02-01)"}`, "t_r8", `{"[1,2]"}`, "t_tsr", `{"[2024-01-01 10:00:00,2024-01-02)"}`,
					"t_by", `{"\\x0102ff","",NULL}`, "t_b3", `{101,010}`, "t_b1", `{1,0}`)},
				{name: "arr_bytea_escape_bounds", kind: "insert", row: arrRow("2", "t_inet", `[0:0]={"2001:DB8::1/128"}`, "t_cidr", nil, "t_mac", nil, "t_mac8", `{0800-2b01-0203-0405}`,
					"t_r4", `{"[3,3)",NULL}`, "t_nr", nil, "t_tzr", `{"(,2024-02-29 12:00:00.5-01]"}`, "t_dr", nil, "t_r8", nil, "t_tsr", nil,
					"t_by", `{abc,"\\101"}`, "t_b3", `{}`, "t_b1", nil)},
				{name: "arr_net_range_empty_null", kind: "insert", row: arrRow("3", "t_inet", "{}", "t_cidr", "{}", "t_mac", "{}", "t_mac8", nil, "t_r4", "{}", "t_nr", "{}",
					"t_tzr", nil, "t_dr", "{}", "t_r8", nil, "t_tsr", "{}", "t_by", "{}", "t_b3", nil, "t_b1", "{}")},
			},
		},
		{
			// multi-dimensional values (in int[] and int[][] columns:
			// PostgreSQL does not enforce the declared dimensions): one
			// null per top-level sub-array for integer, boolean, float,
			// date, timestamp and bytea elements; dimension decorations
			// ([0:1]=) dropped; quoting. The key under StringConverter, the
			// worker's SimpleHeaderConverter headers, envelope fields
			name: "pg_array_multidim",
			cols: withCols(
				col{name: "t_i4", pg: "int[]", maria: "varchar(200)"},
				col{name: "t_i4d", pg: "int[][]", maria: "varchar(200)"},
				col{name: "t_i8", pg: "int8[]", maria: "varchar(200)"},
				col{name: "t_i2", pg: "int2[]", maria: "varchar(200)"},
				col{name: "t_b", pg: "bool[]", maria: "varchar(200)"},
				col{name: "t_d", pg: "date[]", maria: "varchar(200)"},
				col{name: "t_f4", pg: "float4[]", maria: "varchar(200)"},
				col{name: "t_f8", pg: "float8[]", maria: "varchar(200)"},
				col{name: "t_ts", pg: "timestamp[]", maria: "varchar(200)"},
				col{name: "t_by", pg: "bytea[]", maria: "varchar(200)"},
				col{name: "t_txt", pg: "text[]", maria: "varchar(200)"},
				col{name: "t_tz", pg: "timestamptz[]", maria: "varchar(200)"},
				col{name: "t_t3", pg: "time(3)[]", maria: "varchar(200)"},
				col{name: "t_ttz", pg: "timetz[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_i4",
				"table.fields.additional.placement": "t_i4:header,t_i4d:header,t_i8:header,t_i2:header,t_b:header,t_d:header,t_f4:header,t_f8:header,t_ts:header,t_by:header,t_txt:header,t_tz:header,t_t3:header,t_ttz:envelope:ttz,t_i4d:envelope:i4d,t_by:envelope:by,t_txt:envelope:txt",
				"route.topic.replacement":           "dt$R.amd.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: arrBase("t_i4", "{0}", "t_i4d", nil, "t_i8", nil, "t_i2", nil, "t_b", nil, "t_d", nil, "t_f4", nil, "t_f8", nil, "t_ts", nil, "t_by", nil, "t_txt", nil, "t_tz", nil, "t_t3", nil, "t_ttz", nil),
			ops: []op{
				{name: "arr_multidim_two", kind: "insert", row: arrRow("1", "t_i4", `{{1,2},{3,4}}`, "t_i4d", `{{1,2},{3,4}}`, "t_i8", `{{1},{2},{3}}`, "t_i2", `{{1,2}}`,
					"t_b", `{{NULL,t}}`, "t_d", `{{2024-01-01}}`, "t_f4", `{{1.5},{2}}`, "t_f8", `{{1.5,2}}`, "t_ts", `{{"2024-01-01 00:00:00"}}`, "t_by", `{{"\\x01"}}`, "t_txt", `{a}`,
					"t_tz", `{{"2024-01-01 00:00:00+00"}}`, "t_t3", `{{"01:00:00"},{"02:00:00"}}`, "t_ttz", `{{"01:00:00+00"}}`)},
				{name: "arr_multidim_three_bounds", kind: "insert", row: arrRow("2", "t_i4", `{{{1}}}`, "t_i4d", `{1,2}`, "t_i8", `[0:1]={1,2}`, "t_i2", `[-1:0][1:1]={{1},{2}}`,
					"t_b", `[5:5]={t}`, "t_d", `{}`, "t_f4", nil, "t_f8", `[1:2]={-0,1e-300}`, "t_ts", nil, "t_by", `[0:0]={"\\x"}`, "t_txt", `[0:2]={"a b","NULL",NULL}`,
					"t_tz", `[0:0]={"2024-01-01 00:00:00+05"}`, "t_t3", nil, "t_ttz", `{}`)},
				{name: "arr_quoting", kind: "insert", row: arrRow("3", "t_i4", `{ 1 , NULL }`, "t_i4d", nil, "t_i8", nil, "t_i2", nil, "t_b", nil, "t_d", nil, "t_f4", nil, "t_f8", nil, "t_ts", nil, "t_by", nil,
					"t_txt", `{"back\\\\slash","q\"x","c,d"," sp ","{}","",null,"nUlL"}`, "t_tz", nil, "t_t3", nil, "t_ttz", nil)},
			},
		},
		{
			// new element types in the payload column (jsonb[] under a
			// JsonConverter without schemas), the key under a
			// JsonConverter with schemas (timestamp(3)[]) and headers under
			// the worker's SimpleHeaderConverter (Values.convertToString:
			// strings quoted, bytes base64)
			name: "pg_array_payload_simple_headers",
			cols: append(replaceCol(defaultCols, col{name: "payload", pg: "jsonb[]", maria: "varchar(200)"}),
				col{name: "t_ts3", pg: "timestamp(3)[]", maria: "varchar(200)"},
				col{name: "t_tz", pg: "timestamptz[]", maria: "varchar(200)"},
				col{name: "t_by", pg: "bytea[]", maria: "varchar(200)"},
				col{name: "t_bp", pg: "char(3)[]", maria: "varchar(200)"},
				col{name: "t_t", pg: "time(6)[]", maria: "varchar(200)"},
				col{name: "t_inet", pg: "inet[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_ts3",
				"table.fields.additional.placement": "t_ts3:header,t_tz:header,t_by:header,t_bp:header,t_t:header,t_inet:header",
				"route.topic.replacement":           "dt$R.aps.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
				"errors.tolerance": "all",
			},
			base: strings.Replace(arrRowPayload("s", `{"{}"}`, "t_ts3", "{}", "t_tz", nil, "t_by", nil, "t_bp", nil, "t_t", nil, "t_inet", nil), `"aggregatetype":"Order"`, `"aggregatetype":"Sentinel"`, 1),
			ops: []op{
				{name: "arr_payload_values", kind: "insert", row: arrRowPayload("1", `{"{\"b\": 2, \"a\": [1,2]}",null,"\"q\\\"\""}`,
					"t_ts3", `{"2024-05-06 07:08:09.9999",NULL}`, "t_tz", `{"2024-05-06 07:08:09.5-03:30"}`, "t_by", `{"\\x00ff",NULL}`,
					"t_bp", `{a,"b\""}`, "t_t", `{"12:00:00.000999"}`, "t_inet", `{::ffff:1.2.3.4/128}`)},
				{name: "arr_payload_empty_null", kind: "insert", row: arrRowPayload("2", "{}", "t_ts3", nil, "t_tz", "{}", "t_by", "{}", "t_bp", "{NULL}", "t_t", nil, "t_inet", "{}")},
				{name: "arr_payload_null", kind: "insert", row: arrRowPayload("3", nil, "t_ts3", `{"1970-01-01 00:00:00"}`, "t_tz", nil, "t_by", nil, "t_bp", nil, "t_t", nil, "t_inet", nil)},
			},
		},
		{
			// bytea[] in the key under StringConverter (List.toString of
			// the elements Debezium delivers: HeapByteBuffer's text) and
			// in a SimpleHeaderConverter header (base64)
			name: "pg_array_bytea_key",
			cols: withCols(col{name: "t_by", pg: "bytea[]", maria: "varchar(200)"}),
			er: map[string]string{
				"table.field.event.key":             "t_by",
				"table.fields.additional.placement": "t_by:header",
				"route.topic.replacement":           "dt$R.abk.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
				"value.converter.schemas.enable": "false", "errors.tolerance": "all",
			},
			base: arrBase("t_by", `{"\\x00"}`),
			ops: []op{
				{name: "arr_bytea_key_values", kind: "insert", row: arrRow("1", "t_by", `{"\\x0102ff","",NULL}`)},
				{name: "arr_bytea_key_empty", kind: "insert", row: arrRow("2", "t_by", `{}`)},
			},
		},
		{
			// arrays of name, interval, money, varbit and xml: the
			// connector gives them no schema and leaves the columns out of
			// the record; placements of them are missing columns
			// (table.field.additional.missing=ignore on 3.6; on MariaDB the
			// columns are text and present)
			name: "pg_array_dropped",
			cols: withCols(
				col{name: "t_i", pg: "int4[]", maria: "varchar(200)"},
				col{name: "t_x", pg: "xml[]", maria: "varchar(200)"},
				col{name: "t_nm", pg: "name[]", maria: "varchar(200)"},
				col{name: "t_iv", pg: "interval[]", maria: "varchar(200)"},
				col{name: "t_mo", pg: "money[]", maria: "varchar(200)"},
				col{name: "t_vb", pg: "varbit(5)[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_i",
				"table.fields.additional.placement": "t_i:header,t_x:header,t_nm:header,t_iv:envelope:iv,t_mo:envelope:mo,t_vb:header",
				"table.field.additional.missing":    "ignore",
				"route.topic.replacement":           "dt$R.adr.${routedByValue}",
			},
			conn: arrJSONConv,
			base: arrBase("t_i", "{0}", "t_x", nil, "t_nm", nil, "t_iv", nil, "t_mo", nil, "t_vb", nil),
			ops: []op{
				{name: "arr_dropped_values", kind: "insert", row: arrRow("1", "t_i", "{1}", "t_x", `{<a/>,"<b>x</b>"}`, "t_nm", `{n1,"N 2"}`, "t_iv", `{"1 day 02:00:00","-1 mons"}`,
					"t_mo", `{1.5,-2}`, "t_vb", `{1,10101}`)},
				{name: "arr_dropped_nulls", kind: "insert", row: arrRow("2", "t_i", nil, "t_x", nil, "t_nm", "{}", "t_iv", nil, "t_mo", "{}", "t_vb", nil)},
			},
		},
		{
			// a header placement of a dropped array column under the 3.6
			// default table.field.additional.missing=error: the task fails
			// on the first record (errors.tolerance none; the relay stops
			// the same way); on
			// MariaDB the column is text and present
			name: "pg_array_dropped_missing_error",
			cols: withCols(col{name: "t_x", pg: "xml[]", maria: "varchar(200)"}),
			er: map[string]string{
				"table.fields.additional.placement": "t_x:header",
				"route.topic.replacement":           "dt$R.ade.${routedByValue}",
			},
			// errors.tolerance none: under all the record would be
			// skipped (no warm-up record to wait for)
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
				"value.converter.schemas.enable": "true",
			},
			base: arrBase("t_x", "{<a/>}"),
			ops: []op{
				{name: "arr_dropped_placed", kind: "insert", row: arrRow("1", "t_x", `{<c/>}`)},
			},
		},
		{
			// DEFAULTs of array columns ('{1,2}', ARRAY[1,2], '{}', NOT
			// NULL): PostgresDefaultValueConverter has no mapper for an
			// array type, the schemas carry no default; the key under a
			// JsonConverter with schemas, envelope fields
			name: "pg_array_defaults",
			cols: withCols(
				col{name: "t_d1", pg: "int[]", maria: "varchar(200)", pgDef: "'{1,2}'"},
				col{name: "t_d2", pg: "int[]", maria: "varchar(200)", pgDef: "ARRAY[1,2]"},
				col{name: "t_d3", pg: "text[]", maria: "varchar(200)", pgDef: "'{}'"},
				col{name: "t_d4", pg: "varchar(3)[]", maria: "varchar(200)", notNull: true, pgDef: "'{a}'::varchar[]"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_d1",
				"table.fields.additional.placement": "t_d1:envelope:d1,t_d2:envelope:d2,t_d3:envelope:d3,t_d4:envelope:d4,t_d4:header",
				"route.topic.replacement":           "dt$R.adf.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
				"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
				"errors.tolerance": "all",
			},
			base: arrBase("t_d1", "{0}", "t_d2", nil, "t_d3", nil, "t_d4", "{s}"),
			ops: []op{
				{name: "arr_defaults_values", kind: "insert", row: arrRow("1", "t_d1", "{3}", "t_d2", "{4,5}", "t_d3", "{x}", "t_d4", "{b,NULL}")},
				{name: "arr_defaults_nulls", kind: "insert", row: arrRow("2", "t_d1", nil, "t_d2", nil, "t_d3", nil, "t_d4", "{}")},
			},
		},
	}
}
