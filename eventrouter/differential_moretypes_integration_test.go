//go:build integration

package eventrouter_test

import "strings"

// #31: the column types left: PostgreSQL oid, ltree, the types the
// connector leaves out (tsquery, pg_lsn, the reg* types, txid_snapshot,
// xid, the multiranges); MariaDB UUID; and settings with array types. On
// the other database the columns are text.

func init() { variantSets = append(variantSets, moreTypesVariants, moreSettingsVariants) }

// moreSettingsVariants: array columns under the settings that change
// their elements.
func moreSettingsVariants() []variant {
	vs := []variant{}
	for _, m := range []string{"base64", "base64-url-safe", "hex"} {
		vs = append(vs, moreByteaArrayVariant("more_bytea_array_"+strings.ReplaceAll(m, "-", "_"), m))
	}
	for _, m := range []string{"connect", "microseconds", "nanoseconds", "isostring", "adaptive_time_microseconds"} {
		vs = append(vs, moreTimeArrayVariant("more_time_array_"+m, m))
	}
	hs := variant{
		// hstore[] under hstore.handling.mode=map: an array of optional
		// maps (keys in HashMap order); key (StringConverter), headers
		// and envelope (JsonConverter with schemas)
		name:    "more_hstore_array_map",
		pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS hstore"},
		cols:    withCols(col{name: "t_hs", pg: "hstore[]", maria: "varchar(200)"}),
		er: map[string]string{
			"table.field.event.key":             "t_hs",
			"table.fields.additional.placement": "t_hs:header,t_hs:envelope:hs",
			"route.topic.replacement":           "dt$R.hsa.${routedByValue}",
		},
		conn: arrJSONConv,
		base: arrBase("t_hs", nil),
		ops: []op{
			{name: "hstore_array_map", kind: "insert", row: arrRow("1", "t_hs", `{"zeta=>1, c=>3, b=>NULL","\"a b\"=>\"x,y\"",NULL,""}`)},
			{name: "hstore_array_map_empty", kind: "insert", row: arrRow("2", "t_hs", "{}")},
			{name: "hstore_array_map_null", kind: "insert", row: arrRow("3", "t_hs", nil)},
		},
	}
	hs.conn = copyConn(arrJSONConv, "hstore.handling.mode", "map")
	vs = append(vs, hs)
	vs = append(vs, convertFailVariant("more_fail_bit_array", "precise", col{name: "t_b", pg: "bit(3)[]", maria: "varchar(32)"}, `"{101,010}"`, `null`))
	return vs
}

// copyConn is conv with more keys.
func copyConn(conv map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range conv {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// moreByteaArrayVariant: bytea[] under binary.handling.mode=mode (elements
// as the mode's strings): hex and escape input, an empty element, a NULL
// element, an empty array, NULL; key (StringConverter: List.toString),
// headers and envelope (JsonConverter with schemas).
func moreByteaArrayVariant(name, mode string) variant {
	return variant{
		name: name,
		cols: withCols(col{name: "t_ba", pg: "bytea[]", maria: "varchar(200)"}),
		er: map[string]string{
			"table.field.event.key":             "t_ba",
			"table.fields.additional.placement": "t_ba:header,t_ba:envelope:ba",
			"route.topic.replacement":           "dt$R.bam.${routedByValue}",
		},
		conn: copyConn(arrJSONConv, "binary.handling.mode", mode),
		base: arrBase("t_ba", nil),
		ops: []op{
			{name: "bytea_array_mode_values", kind: "insert", row: arrRow("1", "t_ba", `{"\\xfbff00","ab\\\\c",NULL,"","\\x3e3f"}`)},
			{name: "bytea_array_mode_empty", kind: "insert", row: arrRow("2", "t_ba", "{}")},
			{name: "bytea_array_mode_null", kind: "insert", row: arrRow("3", "t_ba", nil)},
		},
	}
}

// moreTimeArrayVariant: timestamp(p)[] and time(p)[] under
// time.precision.mode=mode: the elements in the mode's schema (time
// elements as pgjdbc's java.sql.Time: milliseconds, 24:00:00 is 0);
// rounding to p, before 1970, NULL elements, empty, NULL; key
// (StringConverter), headers and envelope (JsonConverter with schemas).
func moreTimeArrayVariant(name, mode string) variant {
	return variant{
		name: name,
		cols: withCols(
			col{name: "t_ts3", pg: "timestamp(3)[]", maria: "varchar(200)"},
			col{name: "t_ts", pg: "timestamp[]", maria: "varchar(200)"},
			col{name: "t_t3", pg: "time(3)[]", maria: "varchar(200)"},
			col{name: "t_t", pg: "time[]", maria: "varchar(200)"},
			col{name: "t_t0", pg: "time(0)[]", maria: "varchar(200)"},
		),
		er: map[string]string{
			"table.field.event.key":             "t_ts3",
			"table.fields.additional.placement": "t_ts3:header,t_ts:header,t_t3:header,t_t:header,t_t0:header,t_ts:envelope:ts,t_t:envelope:t,t_t0:envelope:t0",
			"route.topic.replacement":           "dt$R.tam.${routedByValue}",
		},
		conn: copyConn(arrJSONConv, "time.precision.mode", mode),
		base: arrBase("t_ts3", nil, "t_ts", nil, "t_t3", nil, "t_t", nil, "t_t0", nil),
		ops: []op{
			{name: "time_array_mode_values", kind: "insert", row: arrRow("1", "t_ts3", `{"2024-01-02 03:04:05.123456","1969-12-31 23:59:59.9996",NULL}`,
				"t_ts", `{"2024-01-02 03:04:05.1234567","1969-12-31 23:59:59.999999","1900-01-01 00:00:00.5"}`,
				"t_t3", `{"03:04:05.123456","23:59:59.9999"}`, "t_t", `{"03:04:05.123456",NULL,"24:00:00","00:00:00.000001"}`, "t_t0", `{"12:00:00.5","00:00:01"}`)},
			{name: "time_array_mode_empty_null", kind: "insert", row: arrRow("2", "t_ts3", "{}", "t_ts", nil, "t_t3", "{}", "t_t", nil, "t_t0", "{}")},
		},
	}
}

func moreTypesVariants() []variant {
	return []variant{
		{
			// oid (int64; 4294967295, a negative input wrapping as oidin
			// does, blanks), oid[] (optional int64 elements), ltree
			// (io.debezium.data.Ltree), ltree[]; key under JsonConverter
			// with schemas, headers, envelope
			name:    "more_pg_oid_ltree",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS ltree"},
			cols: withCols(
				col{name: "t_oid", pg: "oid", maria: "varchar(60)"},
				col{name: "t_oida", pg: "oid[]", maria: "varchar(60)"},
				col{name: "t_lt", pg: "ltree", maria: "varchar(60)"},
				col{name: "t_lta", pg: "ltree[]", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_oid",
				"table.fields.additional.placement": "t_oid:header,t_oid:envelope:o,t_oida:header,t_oida:envelope:oa,t_lt:header,t_lt:envelope:lt,t_lta:header",
				"route.topic.replacement":           "dt$R.oidlt.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_oid":"1","t_oida":null,"t_lt":null,"t_lta":null}`,
			ops: []op{
				{name: "oid_max_ltree", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_oid":"4294967295","t_oida":"{1,NULL,4294967295}","t_lt":"Top.Science.Astronomy","t_lta":"{a.b,c,NULL}"}`},
				{name: "ltree_array_two", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":{"i":5},"t_oid":"00042","t_oida":null,"t_lt":"A.b_2.C","t_lta":"{Top.x,y_z}"}`},
				{name: "oid_negative_wraps", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_oid":" -1 ","t_oida":"{-2147483648, 0}","t_lt":"","t_lta":"{}"}`},
				{name: "oid_ltree_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_oid":null,"t_oida":null,"t_lt":null,"t_lta":null}`},
				{name: "oid_zero_ltree_one", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_oid":"0","t_oida":"{7}","t_lt":"a_B_9","t_lta":"{x}"}`},
			},
		},
		{
			// types pgjdbc reports as OTHER without a converter: the
			// connector leaves the columns out of the record (a
			// placement of one is a missing column, ignored here); the
			// others still arrive
			name: "more_pg_dropped_other",
			cols: withCols(
				col{name: "t_tsq", pg: "tsquery", maria: "varchar(60)"},
				col{name: "t_lsn", pg: "pg_lsn", maria: "varchar(60)"},
				col{name: "t_rc", pg: "regclass", maria: "varchar(60)"},
				col{name: "t_rt", pg: "regtype", maria: "varchar(60)"},
				col{name: "t_rp", pg: "regproc", maria: "varchar(60)"},
				col{name: "t_rn", pg: "regnamespace", maria: "varchar(60)"},
				col{name: "t_xs", pg: "txid_snapshot", maria: "varchar(60)"},
				col{name: "t_ps", pg: "pg_snapshot", maria: "varchar(60)"},
				col{name: "t_xid", pg: "xid", maria: "varchar(60)"},
				col{name: "t_xid8", pg: "xid8", maria: "varchar(60)"},
				col{name: "t_i4m", pg: "int4multirange", maria: "varchar(60)"},
				col{name: "t_i8m", pg: "int8multirange", maria: "varchar(60)"},
				col{name: "t_nm", pg: "nummultirange", maria: "varchar(60)"},
				col{name: "t_dm", pg: "datemultirange", maria: "varchar(60)"},
				col{name: "t_tsm", pg: "tsmultirange", maria: "varchar(60)"},
				col{name: "t_tzm", pg: "tstzmultirange", maria: "varchar(60)"},
				col{name: "t_txt", pg: "text", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.fields.additional.placement":        "t_tsq:header,t_lsn:header,t_rc:header,t_rt:envelope:rt,t_rp:header,t_rn:header,t_xs:header,t_ps:header,t_xid:header,t_xid8:header,t_i4m:header,t_i8m:header,t_nm:header,t_dm:header,t_tsm:header,t_tzm:envelope:tzm,t_txt:header",
				"table.fields.additional.error.on.missing": "false",
				"table.field.additional.missing":           "ignore",
				"route.topic.replacement":                  "dt$R.drop.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_tsq":null,"t_lsn":null,"t_rc":null,"t_rt":null,"t_rp":null,"t_rn":null,"t_xs":null,"t_ps":null,"t_xid":null,"t_xid8":null,"t_i4m":null,"t_i8m":null,"t_nm":null,"t_dm":null,"t_tsm":null,"t_tzm":null,"t_txt":"s"}`,
			ops: []op{
				{name: "dropped_values", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_tsq":"fat & (rat|cat)","t_lsn":"16/B374D848","t_rc":"pg_class","t_rt":"integer","t_rp":"now","t_rn":"public","t_xs":"10:20:10,14,15","t_ps":"10:20:10,14,15","t_xid":"42","t_xid8":"42","t_i4m":"{[3,7), [8,9)}","t_i8m":"{}","t_nm":"{[1.50,2]}","t_dm":"{[2024-01-01,2024-02-01)}","t_tsm":"{[2024-01-01 00:00,2024-01-02 00:00)}","t_tzm":"{[2024-01-01 00:00+00,)}","t_txt":"kept"}`},
				{name: "dropped_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_tsq":null,"t_lsn":null,"t_rc":null,"t_rt":null,"t_rp":null,"t_rn":null,"t_xs":null,"t_ps":null,"t_xid":null,"t_xid8":null,"t_i4m":null,"t_i8m":null,"t_nm":null,"t_dm":null,"t_tsm":null,"t_tzm":null,"t_txt":null}`},
			},
		},
		{
			// tsvector (io.debezium.data.Tsvector: tsvectorout's text:
			// lexemes sorted and merged, positions sorted, weights),
			// tsvector[] (elements NOT optional: a NULL element leaves
			// the column NULL); key (StringConverter), headers and
			// envelope (JsonConverter with schemas)
			name: "more_pg_tsvector",
			cols: withCols(
				col{name: "t_tv", pg: "tsvector", maria: "varchar(200)"},
				col{name: "t_tva", pg: "tsvector[]", maria: "varchar(200)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_tv",
				"table.fields.additional.placement": "t_tv:header,t_tv:envelope:tv,t_tva:header,t_tva:envelope:tva",
				"route.topic.replacement":           "dt$R.tsv.${routedByValue}",
			},
			conn: arrJSONConv,
			base: arrBase("t_tv", "a", "t_tva", nil),
			ops: []op{
				{name: "tsvector_sort_merge", kind: "insert", row: arrRow("1", "t_tv", "the quick  brown:3A fox the w:3,1 w:2B,1a", "t_tva", `{"b a:2,1","x:3D,3,2c"}`)},
				{name: "tsvector_quotes_weights", kind: "insert", row: arrRow("2", "t_tv", `'it''s' 'x y':2,1 café:1 cafe:2 Zeta z a:20000 'b:1'`, "t_tva", `{"'q''x'"}`)},
				{name: "tsvector_empty", kind: "insert", row: arrRow("3", "t_tv", "", "t_tva", "{}")},
				{name: "tsvector_array_null_element", kind: "insert", row: arrRow("4", "t_tv", "a:1A,1B,1C", "t_tva", `{"a",NULL}`)},
				{name: "tsvector_null", kind: "insert", row: arrRow("5", "t_tv", nil, "t_tva", nil)},
			},
		},
		{
			// MariaDB UUID read by the snapshot (snapshot.mode=initial)
			name: "more_maria_uuid_snapshot",
			cols: withCols(col{name: "m_u", pg: "text", maria: "uuid"}),
			er: map[string]string{
				"table.fields.additional.placement": "m_u:header",
				"route.topic.replacement":           "dt$R.muuids.${routedByValue}",
			},
			conn: copyConn(jsonConverters(true), "snapshot.mode", "initial"),
			// the relay publishes every row as the connector streams it
			// (shifted), never as a snapshot read
			relaySkip: map[string]string{"uuid_snapshot_trailing_zero": "a snapshot read: the connector's JDBC UUID; the relay publishes the streamed value"},
			base:      `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"m_u":null}`,
			pre: []op{
				{name: "uuid_snapshot_trailing_zero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"m_u":"123e4567-e89b-12d3-a456-426614174000"}`},
				{name: "uuid_snapshot_v4", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"m_u":"6ccd780c-baba-4026-9564-5b8c656024db"}`},
			},
			ops: []op{
				{name: "uuid_stream_after_snapshot", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"m_u":"123e4567-e89b-12d3-a456-426614174000"}`},
			},
		},
		{
			// MariaDB UUID streamed from the binlog: io.debezium.data.Uuid,
			// the stored BINARY(16) without its trailing zero bytes read as
			// a BigInteger (a UUID ending in zero bytes shifts); key
			// (JsonConverter with schemas), header, envelope
			name: "more_maria_uuid",
			cols: withCols(col{name: "m_u", pg: "text", maria: "uuid"}),
			er: map[string]string{
				"table.field.event.key":             "m_u",
				"table.fields.additional.placement": "m_u:header,m_u:envelope:u",
				"route.topic.replacement":           "dt$R.muuid.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"m_u":null}`,
			ops: []op{
				{name: "uuid_v4", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"m_u":"6CCD780C-BABA-4026-9564-5B8C656024DB"}`},
				{name: "uuid_trailing_zero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"m_u":"123e4567-e89b-12d3-a456-426614174000"}`},
				{name: "uuid_no_hyphens_trailing_zeros", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"m_u":"0102030405060708090a0b0c0d000000"}`},
				{name: "uuid_v1_no_zero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"m_u":"e0a1b2c3-1d2e-11ef-8f00-0242ac120002"}`},
				{name: "uuid_nil", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":{"i":5},"m_u":"00000000-0000-0000-0000-000000000000"}`},
				{name: "uuid_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"6","type":"T","payload":{"i":6},"m_u":null}`},
			},
		},
	}
}
