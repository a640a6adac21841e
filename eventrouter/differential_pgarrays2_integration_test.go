//go:build integration

package eventrouter_test

// #31 (the "still refused" PostgreSQL arrays): multi-dimensional values of
// cidr, macaddr, macaddr8, int8range, numrange, daterange and tsrange
// arrays, and of oid, ltree and tsvector arrays (one element per
// top-level sub-array: the Java sub-array's Object.toString with its
// identity hash, or null); point[] and the arrays of the types the
// connector leaves out (reg*, xid, xid8, cid, tid, txid_snapshot,
// pg_snapshot, aclitem, refcursor, a composite type): left out too;
// int2vector[] and oidvector[]. On MariaDB the columns are text (varchar)
// holding the same literals.

func init() { variantSets = append(variantSets, pgArrays2Variants) }

func pgArrays2Variants() []variant {
	a := func(n, pg string) col { return col{name: n, pg: pg, maria: "varchar(300)"} }
	netRangeCols := withCols(a("t_ci", "cidr[]"), a("t_mc", "macaddr[]"), a("t_m8", "macaddr8[]"), a("t_r8", "int8range[]"),
		a("t_nr", "numrange[]"), a("t_dr", "daterange[]"), a("t_tr", "tsrange[]"))
	netRangeBase := arrBase("t_ci", "{10.0.0.0/8}", "t_mc", nil, "t_m8", nil, "t_r8", nil, "t_nr", nil, "t_dr", nil, "t_tr", nil)
	return []variant{
		pgNestedNumericEnumVariant("pgarr2_nested_numeric_enum", ""),
		pgNestedNumericEnumVariant("pgarr2_nested_numeric_enum_string", "string"),
		{
			// snapshot reads (op r, snapshot.mode=initial) of the same
			// kinds of values, then a streamed row
			name:    "pgarr2_snapshot",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS ltree"},
			cols: withCols(a("t_ci", "cidr[]"), a("t_r8", "int8range[]"), a("t_oid", "oid[]"), a("t_lt", "ltree[]"), a("t_n", "numeric(10,2)[]"),
				a("t_i2a", "int2vector[]"), a("t_pt", "point[]")),
			er: map[string]string{
				"table.field.event.key":                    "t_ci",
				"table.fields.additional.placement":        "t_ci:header,t_r8:header,t_oid:header,t_lt:header,t_n:header,t_i2a:header,t_pt:header,t_lt:envelope:lt",
				"table.fields.additional.error.on.missing": "false",
				"table.field.additional.missing":           "ignore",
				"route.topic.replacement":                  "dt$R.pa2s.${routedByValue}",
			},
			conn: copyConn(arrJSONConv, "snapshot.mode", "initial"),
			base: arrBase("t_ci", "{10.0.0.0/8}", "t_r8", nil, "t_oid", nil, "t_lt", nil, "t_n", nil, "t_i2a", nil, "t_pt", nil),
			pre: []op{
				{name: "snapshot_nested", kind: "insert", row: arrRow("1", "t_ci", `{{10.1/16},{::1}}`, "t_r8", `{{"[1,3)"}}`, "t_oid", `{{1,2}}`, "t_lt", `{{a.b}}`,
					"t_n", `{{1.5}}`, "t_i2a", `{"1 2"}`, "t_pt", `{"(1,2)"}`)},
				{name: "snapshot_one_dim_empty", kind: "insert", row: arrRow("2", "t_ci", `{10.1/16}`, "t_r8", "{}", "t_oid", `{7}`, "t_lt", "{}", "t_n", `{{NaN}}`, "t_i2a", "{}", "t_pt", nil)},
			},
			ops: []op{
				{name: "stream_after_snapshot", kind: "insert", row: arrRow("3", "t_ci", `{{{1.2.3.4}}}`, "t_r8", `{{empty}}`, "t_oid", nil, "t_lt", `{{x},{y}}`, "t_n", nil, "t_i2a", `{{"5"}}`, "t_pt", nil)},
			},
		},
		{
			// the key (StringConverter: List.toString), JsonConverter
			// headers and envelope fields with their schemas: 2 and 3
			// dimensions, dimension decorations, NULL and empty elements
			// inside, a one-dimensional value and empty arrays beside them
			name: "pgarr2_nested_net_ranges",
			cols: netRangeCols,
			er: map[string]string{
				"table.field.event.key":             "t_ci",
				"table.fields.additional.placement": "t_ci:header,t_mc:header,t_m8:header,t_r8:header,t_nr:header,t_dr:header,t_tr:header,t_ci:envelope:ci,t_mc:envelope:mc,t_m8:envelope:m8,t_r8:envelope:r8,t_nr:envelope:nr,t_dr:envelope:dr,t_tr:envelope:tr",
				"route.topic.replacement":           "dt$R.pa2n.${routedByValue}",
			},
			conn: arrJSONConv,
			base: netRangeBase,
			ops: []op{
				{name: "nested_net_two_dims", kind: "insert", row: arrRow("1", "t_ci", `{{10.1/16,192.168.1.0/24},{NULL,::1/128}}`, "t_mc", `{{08-00-2B-01-02-03},{0800.2b01.0204}}`,
					"t_m8", `{{08:00:2b:01:02:03:04:05}}`, "t_r8", `{{"[1,3)","(1,5]"},{empty,NULL}}`, "t_nr", `{{"[1.5,2.50]"}}`,
					"t_dr", `{{"[2024-01-01,2024-02-01]"}}`, "t_tr", `{{"[2024-01-01 00:00,2024-01-02 00:00)"}}`)},
				{name: "nested_net_three_dims_bounds", kind: "insert", row: arrRow("2", "t_ci", `{{{1.2.3.0/24}},{{10.0.0.0/8}}}`, "t_mc", `[0:1][1:1]={{08:00:2b:01:02:03},{08:00:2b:01:02:04}}`,
					"t_m8", `{{NULL}}`, "t_r8", `{{{"[1,2)"}}}`, "t_nr", nil, "t_dr", `{{empty}}`, "t_tr", `[1:1][1:2]={{NULL,"[2024-01-01,)"}}`)},
				{name: "nested_net_one_dim_empty", kind: "insert", row: arrRow("3", "t_ci", `{10.1/16}`, "t_mc", "{}", "t_m8", "{}", "t_r8", "{}", "t_nr", `{"(,)"}`, "t_dr", "{}", "t_tr", nil)},
				{name: "nested_net_nulls", kind: "insert", row: arrRow("4", "t_ci", nil, "t_mc", nil, "t_m8", nil, "t_r8", nil, "t_nr", nil, "t_dr", nil, "t_tr", nil)},
			},
		},
		{
			// a multi-dimensional array as the payload (JsonConverter
			// with schemas), the key under StringConverter, headers under
			// the worker's SimpleHeaderConverter
			name: "pgarr2_nested_payload",
			cols: netRangeCols,
			er: map[string]string{
				"table.field.event.key":             "t_nr",
				"table.field.event.payload":         "t_ci",
				"table.fields.additional.placement": "t_r8:header,t_dr:header,t_mc:header,t_tr:envelope:tr",
				"route.topic.replacement":           "dt$R.pa2p.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
				"value.converter.schemas.enable": "true", "errors.tolerance": "all",
			},
			base: netRangeBase,
			ops: []op{
				{name: "nested_payload_two_dims", kind: "insert", row: arrRow("1", "t_ci", `{{10.1/16},{::1}}`, "t_mc", `{{08:00:2b:01:02:03}}`, "t_m8", nil,
					"t_r8", `{{"[5,6]"}}`, "t_nr", `{{"[0.1,1)"},{"(2,3]"}}`, "t_dr", `{{"[2024-01-01,2024-01-05)","[2024-01-01,2024-01-05)"}}`, "t_tr", `{{"(,)"}}`)},
				{name: "nested_payload_one_dim", kind: "insert", row: arrRow("2", "t_ci", `{10.1.2.0/24,NULL}`, "t_mc", `{08:00:2b:01:02:03}`, "t_m8", nil,
					"t_r8", `{"[5,6]"}`, "t_nr", `{{{"[1,2]"}}}`, "t_dr", `{empty}`, "t_tr", `{{"[2024-01-01 10:00:00.5,)"}}`)},
				{name: "nested_payload_empty", kind: "insert", row: arrRow("3", "t_ci", "{}", "t_mc", nil, "t_m8", nil, "t_r8", nil, "t_nr", "{}", "t_dr", nil, "t_tr", nil)},
				{name: "nested_payload_null", kind: "insert", row: arrRow("4", "t_ci", nil, "t_mc", nil, "t_m8", nil, "t_r8", nil, "t_nr", nil, "t_dr", nil, "t_tr", nil)},
			},
		},
		{
			// multi-dimensional oid, ltree and tsvector values: the key
			// (StringConverter), JsonConverter headers and envelope
			name:    "pgarr2_nested_oid_ltree_tsvector",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS ltree"},
			cols:    withCols(a("t_oid", "oid[]"), a("t_lt", "ltree[]"), a("t_tv", "tsvector[]")),
			er: map[string]string{
				"table.field.event.key":             "t_lt",
				"table.fields.additional.placement": "t_oid:header,t_lt:header,t_tv:header,t_oid:envelope:oid,t_lt:envelope:lt,t_tv:envelope:tv",
				"route.topic.replacement":           "dt$R.pa2o.${routedByValue}",
			},
			conn: arrJSONConv,
			base: arrBase("t_oid", nil, "t_lt", "{a}", "t_tv", nil),
			ops: []op{
				{name: "nested_oid_two_dims", kind: "insert", row: arrRow("1", "t_oid", `{{1,4294967295},{-1,NULL}}`, "t_lt", `{{a.b,c},{NULL,Top.x_y}}`, "t_tv", `{{"b:2 a:1","c"}}`)},
				{name: "nested_oid_three_dims_bounds", kind: "insert", row: arrRow("2", "t_oid", `{{{0}}}`, "t_lt", `[0:0][0:1]={{x.y,z}}`, "t_tv", `{{{x}},{{"y z"}}}`)},
				{name: "nested_oid_null_elements", kind: "insert", row: arrRow("3", "t_oid", `[2:2][1:2]={{NULL,NULL}}`, "t_lt", `{{NULL}}`, "t_tv", `{{NULL}}`)},
				{name: "nested_oid_one_dim_empty", kind: "insert", row: arrRow("4", "t_oid", `{7,NULL}`, "t_lt", "{}", "t_tv", "{}")},
				{name: "nested_oid_nulls", kind: "insert", row: arrRow("5", "t_oid", nil, "t_lt", nil, "t_tv", nil)},
			},
		},
		{
			// point[] and arrays of the types the connector leaves out:
			// left out too (a placement of one is a missing column,
			// ignored here); the text column still arrives
			name: "pgarr2_dropped_arrays",
			pgSetup: []string{
				`DO $$ BEGIN CREATE TYPE pgarr2_pair AS (a int, b text); EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
			},
			cols: withCols(a("t_pt", "point[]"), a("t_rc", "regclass[]"), a("t_rt", "regtype[]"), a("t_rp", "regproc[]"), a("t_rn", "regnamespace[]"),
				a("t_xid", "xid[]"), a("t_xid8", "xid8[]"), a("t_cid", "cid[]"), a("t_tid", "tid[]"), a("t_txs", "txid_snapshot[]"), a("t_pgs", "pg_snapshot[]"),
				a("t_acl", "aclitem[]"), a("t_rcur", "refcursor[]"), col{name: "t_row", pg: "pgarr2_pair[]", pgModel: "composite[]", maria: "varchar(300)"},
				a("t_txt", "text")),
			er: map[string]string{
				"table.fields.additional.placement":        "t_pt:header,t_pt:envelope:pt,t_rc:header,t_rt:header,t_rp:header,t_rn:header,t_xid:header,t_xid8:header,t_cid:header,t_tid:header,t_txs:header,t_pgs:header,t_acl:header,t_rcur:header,t_row:header,t_row:envelope:row,t_txt:header",
				"table.fields.additional.error.on.missing": "false",
				"table.field.additional.missing":           "ignore",
				"route.topic.replacement":                  "dt$R.pa2d.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_pt", nil, "t_rc", nil, "t_rt", nil, "t_rp", nil, "t_rn", nil, "t_xid", nil, "t_xid8", nil, "t_cid", nil, "t_tid", nil,
				"t_txs", nil, "t_pgs", nil, "t_acl", nil, "t_rcur", nil, "t_row", nil, "t_txt", "s"),
			ops: []op{
				{name: "dropped_arrays_values", kind: "insert", row: arrRow("1", "t_pt", `{"(1,2)","(3.5,-4)",NULL}`, "t_rc", `{pg_class,pg_type}`, "t_rt", `{int4,text}`,
					"t_rp", `{now}`, "t_rn", `{public}`, "t_xid", `{1,2}`, "t_xid8", `{3}`, "t_cid", `{0}`, "t_tid", `{"(0,1)"}`, "t_txs", `{"10:20:10,14,15"}`,
					"t_pgs", `{"10:20:10,14,15"}`, "t_acl", `{postgres=arwdDxt/postgres}`, "t_rcur", `{c1}`, "t_row", `{"(1,x)","(2,\"y z\")"}`, "t_txt", "kept")},
				{name: "dropped_arrays_nested_empty", kind: "insert", row: arrRow("2", "t_pt", `{{"(1,2)"},{"(0,0)"}}`, "t_rc", "{}", "t_rt", "{}", "t_rp", nil, "t_rn", nil,
					"t_xid", `{{1}}`, "t_xid8", "{}", "t_cid", nil, "t_tid", "{}", "t_txs", nil, "t_pgs", "{}", "t_acl", nil, "t_rcur", "{}", "t_row", "{}", "t_txt", "")},
				{name: "dropped_arrays_nulls", kind: "insert", row: arrRow("3", "t_pt", nil, "t_rc", nil, "t_rt", nil, "t_rp", nil, "t_rn", nil, "t_xid", nil, "t_xid8", nil,
					"t_cid", nil, "t_tid", nil, "t_txs", nil, "t_pgs", nil, "t_acl", nil, "t_rcur", nil, "t_row", nil, "t_txt", nil)},
			},
		},
		{
			// int2vector[] and oidvector[]: an array of the vector's
			// schema; the key (JsonConverter with schemas), headers,
			// envelope
			name: "pgarr2_vectors",
			cols: withCols(a("t_i2a", "int2vector[]"), a("t_ova", "oidvector[]")),
			er: map[string]string{
				"table.field.event.key":             "t_i2a",
				"table.fields.additional.placement": "t_i2a:header,t_i2a:envelope:i2a,t_ova:header,t_ova:envelope:ova",
				"route.topic.replacement":           "dt$R.pa2v.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_i2a", "{}", "t_ova", nil),
			ops: []op{
				{name: "vector_arrays_values", kind: "insert", row: arrRow("1", "t_i2a", `{"1 2","3"}`, "t_ova", `{"23 25"}`)},
				{name: "vector_arrays_empty", kind: "insert", row: arrRow("2", "t_i2a", "{}", "t_ova", "{}")},
				{name: "vector_arrays_null_element", kind: "insert", row: arrRow("3", "t_i2a", "{NULL}", "t_ova", `{NULL,"0"}`)},
				{name: "vector_arrays_nested", kind: "insert", row: arrRow("4", "t_i2a", `{{"1 2"},{"3"}}`, "t_ova", `[0:0][0:0]={{"4294967295"}}`)},
				{name: "vector_arrays_nulls", kind: "insert", row: arrRow("5", "t_i2a", nil, "t_ova", nil)},
			},
		},
	}
}

// pgNestedNumericEnumVariant: multi-dimensional numeric(p,s)[], numeric[]
// (one null per sub-array under decimal.handling.mode, "" the default
// precise; a NaN anywhere makes the column NULL) and enum arrays (the
// Java String[] sub-array's toString): the key (StringConverter),
// JsonConverter headers and envelope.
func pgNestedNumericEnumVariant(name, mode string) variant {
	a := func(n, pg string) col { return col{name: n, pg: pg, maria: "varchar(300)"} }
	conn := arrJSONConv
	if mode != "" {
		conn = copyConn(arrJSONConv, "decimal.handling.mode", mode)
	}
	return variant{
		name:    name,
		pgSetup: []string{pgEnumSetup},
		cols: withCols(a("t_n", "numeric(10,2)[]"), a("t_nu", "numeric[]"),
			col{name: "t_en", pg: "outboxctl_pgt_mood[]", pgModel: pgEnumModel + "[]", maria: "varchar(300)"}),
		er: map[string]string{
			"table.field.event.key":             "t_en",
			"table.fields.additional.placement": "t_n:header,t_nu:header,t_en:header,t_n:envelope:n,t_nu:envelope:nu,t_en:envelope:en",
			"route.topic.replacement":           "dt$R.pa2e" + mode + ".${routedByValue}",
		},
		conn: conn,
		base: arrBase("t_n", nil, "t_nu", nil, "t_en", "{sad}"),
		ops: []op{
			{name: "nested_numeric_two_dims", kind: "insert", row: arrRow("1", "t_n", `{{1.005,NULL},{-2,3e2}}`, "t_nu", `{{1.50},{NULL}}`, "t_en", `{{sad,"Happy Day"},{"a,b",ok}}`)},
			{name: "nested_numeric_three_dims_bounds", kind: "insert", row: arrRow("2", "t_n", `[0:0][1:1][1:1]={{{99999999.99}}}`, "t_nu", `{{{1}},{{2}}}`, "t_en", `{{{"it's"}}}`)},
			{name: "nested_numeric_nan", kind: "insert", row: arrRow("3", "t_n", `{{1},{NaN}}`, "t_nu", `{{Infinity}}`, "t_en", `[2:2][0:0]={{zz}}`)},
			{name: "nested_numeric_one_dim_nulls", kind: "insert", row: arrRow("4", "t_n", `{1.5,NULL}`, "t_nu", nil, "t_en", nil)},
		},
	}
}
