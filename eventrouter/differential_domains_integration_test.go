//go:build integration

package eventrouter_test

// #31: PostgreSQL domains (the connector resolves a domain to its base
// type; the emulator is told "domain <base type>", the relay reads
// pg_type.typbasetype/typtypmod), the types the connector leaves out
// (jsonpath, int2vector, oidvector, aclitem, refcursor) and arrays of
// left-out types, and composite (row) types. On MariaDB the columns are
// text.

func init() { variantSets = append(variantSets, domainVariants) }

// pgDomain is an idempotent CREATE DOMAIN (the emulator and relay runs
// share the database).
func pgDomain(name, def string) string {
	return `DO $$ BEGIN CREATE DOMAIN ` + name + ` AS ` + def + `; EXCEPTION WHEN duplicate_object THEN NULL; END $$`
}

func domainVariants() []variant {
	return []variant{
		{
			// domains over numeric(10,2) (CHECK), varchar(20),
			// integer (CHECK), timestamp(3): the base type's schema
			// and value with the domain's typmod (rounded to scale 2,
			// to 3 fractional digits); key (JsonConverter with
			// schemas), headers, envelope
			name: "dom_pg_domains",
			pgSetup: []string{
				pgDomain("dom_num", "numeric(10,2) CHECK (VALUE >= -1000000)"),
				pgDomain("dom_vc", "varchar(20)"),
				pgDomain("dom_pos", "integer CHECK (VALUE > 0)"),
				pgDomain("dom_ts3", "timestamp(3)"),
			},
			cols: withCols(
				col{name: "t_dn", pg: "dom_num", pgModel: "domain numeric(10,2)", maria: "varchar(60)"},
				col{name: "t_dv", pg: "dom_vc", pgModel: "domain varchar(20)", maria: "varchar(60)"},
				col{name: "t_di", pg: "dom_pos", pgModel: "domain integer", maria: "varchar(60)"},
				col{name: "t_dt", pg: "dom_ts3", pgModel: "domain timestamp(3)", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_dn",
				"table.fields.additional.placement": "t_dn:header,t_dn:envelope:dn,t_dv:header,t_dv:envelope:dv,t_di:header,t_di:envelope:di,t_dt:header,t_dt:envelope:dt",
				"route.topic.replacement":           "dt$R.dom.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_dn", "1", "t_dv", "s", "t_di", "1", "t_dt", nil),
			ops: []op{
				{name: "domain_values", kind: "insert", row: arrRow("1", "t_dn", "12.345", "t_dv", " pad me ", "t_di", "42", "t_dt", "2024-01-02 03:04:05.123456")},
				{name: "domain_bounds", kind: "insert", row: arrRow("2", "t_dn", "99999999.99", "t_dv", "abcdefghijklmnopqrst", "t_di", "2147483647", "t_dt", "1969-12-31 23:59:59.9996")},
				{name: "domain_negative_noncanonical", kind: "insert", row: arrRow("3", "t_dn", " -0999999.995 ", "t_dv", "", "t_di", "+0001", "t_dt", "1900-01-01 00:00:00.5")},
				{name: "domain_nulls", kind: "insert", row: arrRow("4", "t_dn", nil, "t_dv", nil, "t_di", nil, "t_dt", nil)},
			},
		},
		{
			// jsonpath, int2vector, oidvector, aclitem, refcursor and
			// arrays of left-out types: left out of the record (a
			// placement of one is a missing column, ignored here); the
			// text column still arrives
			name: "dom_pg_dropped_more",
			cols: withCols(
				col{name: "t_jp", pg: "jsonpath", maria: "varchar(60)"},
				col{name: "t_i2v", pg: "int2vector", maria: "varchar(60)"},
				col{name: "t_oidv", pg: "oidvector", maria: "varchar(60)"},
				col{name: "t_acl", pg: "aclitem", maria: "varchar(60)"},
				col{name: "t_rcur", pg: "refcursor", maria: "varchar(60)"},
				col{name: "t_tsqa", pg: "tsquery[]", maria: "varchar(60)"},
				col{name: "t_lsna", pg: "pg_lsn[]", maria: "varchar(60)"},
				col{name: "t_i4ma", pg: "int4multirange[]", maria: "varchar(60)"},
				col{name: "t_jpa", pg: "jsonpath[]", maria: "varchar(60)"},
				col{name: "t_boxa", pg: "box[]", maria: "varchar(60)"},
				col{name: "t_txt", pg: "text", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.fields.additional.placement":        "t_jp:header,t_i2v:header,t_oidv:header,t_acl:header,t_rcur:envelope:rc,t_tsqa:header,t_lsna:header,t_i4ma:header,t_jpa:envelope:jpa,t_boxa:header,t_txt:header",
				"table.fields.additional.error.on.missing": "false",
				"table.field.additional.missing":           "ignore",
				"route.topic.replacement":                  "dt$R.drop2.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_jp", nil, "t_i2v", nil, "t_oidv", nil, "t_acl", nil, "t_rcur", nil, "t_tsqa", nil, "t_lsna", nil, "t_i4ma", nil, "t_jpa", nil, "t_boxa", nil, "t_txt", "s"),
			ops: []op{
				{name: "dropped_more_values", kind: "insert", row: arrRow("1", "t_jp", "$.a[*] ? (@ > 1)", "t_i2v", "1 2 3", "t_oidv", "23 25", "t_acl", "postgres=arwdDxt/postgres",
					"t_rcur", "c1", "t_tsqa", `{"a & b","c"}`, "t_lsna", `{16/B374D848,NULL}`, "t_i4ma", `{"{[1,3)}","{}"}`, "t_jpa", `{"$.x"}`, "t_boxa", `{(1,1),(0,0)}`, "t_txt", "kept")},
				{name: "dropped_more_nulls", kind: "insert", row: arrRow("2", "t_jp", nil, "t_i2v", nil, "t_oidv", nil, "t_acl", nil, "t_rcur", nil, "t_tsqa", nil, "t_lsna", nil, "t_i4ma", nil, "t_jpa", nil, "t_boxa", nil, "t_txt", nil)},
			},
		},
		{
			// domains with a NOT NULL constraint (given as "domain
			// text not null": the field is required though the column
			// is nullable), a DEFAULT (not in the schema), over an
			// array, over another domain (the inner domain's typmod),
			// over a left-out type (left out)
			name: "dom_pg_domain_more",
			pgSetup: []string{
				pgDomain("dom_nn", "text NOT NULL"),
				pgDomain("dom_def", "integer DEFAULT 7"),
				pgDomain("dom_ia", "int4[]"),
				pgDomain("dom_num", "numeric(10,2) CHECK (VALUE >= -1000000)"),
				pgDomain("dom_num2", "dom_num"),
				pgDomain("dom_tsq", "tsquery"),
			},
			cols: withCols(
				col{name: "t_nn", pg: "dom_nn", pgModel: "domain text not null", maria: "varchar(60)"},
				col{name: "t_dd", pg: "dom_def", pgModel: "domain integer", maria: "varchar(60)"},
				col{name: "t_ia", pg: "dom_ia", pgModel: "domain int4[]", maria: "varchar(60)"},
				col{name: "t_n2", pg: "dom_num2", pgModel: "domain numeric(10,2)", maria: "varchar(60)"},
				col{name: "t_tq", pg: "dom_tsq", pgModel: "domain tsquery", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.fields.additional.placement":        "t_nn:header,t_nn:envelope:nn,t_dd:header,t_dd:envelope:dd,t_ia:header,t_ia:envelope:ia,t_n2:header,t_n2:envelope:n2,t_tq:header",
				"table.fields.additional.error.on.missing": "false",
				"table.field.additional.missing":           "ignore",
				"route.topic.replacement":                  "dt$R.dom2.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_nn", "s", "t_dd", "1", "t_ia", nil, "t_n2", nil, "t_tq", nil),
			ops: []op{
				{name: "domain_more_values", kind: "insert", row: arrRow("1", "t_nn", "x", "t_dd", "3", "t_ia", "{1,NULL,3}", "t_n2", "1.005", "t_tq", "a & b")},
				// the domain's DEFAULT is not in the connector's schema
				// (no default in the field; the emulator's row gives the
				// value the database stores)
				{name: "domain_more_default_value", kind: "insert", row: arrRow("2", "t_nn", "", "t_dd", "7", "t_ia", "{}", "t_n2", "-5", "t_tq", nil)},
				{name: "domain_more_nulls", kind: "insert", row: arrRow("3", "t_nn", "n", "t_dd", nil, "t_ia", nil, "t_n2", nil, "t_tq", nil)},
			},
		},
		{
			// int2vector and oidvector: arrays of int16 / int64
			// (elements not optional), every non-NULL value empty; key
			// (JsonConverter with schemas), headers, envelope
			name: "dom_pg_vectors",
			cols: withCols(
				col{name: "t_i2v", pg: "int2vector", maria: "varchar(60)"},
				col{name: "t_oidv", pg: "oidvector", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_i2v",
				"table.fields.additional.placement": "t_i2v:header,t_i2v:envelope:i2v,t_oidv:header,t_oidv:envelope:oidv",
				"route.topic.replacement":           "dt$R.vec.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_i2v", "1", "t_oidv", nil),
			ops: []op{
				{name: "vector_values", kind: "insert", row: arrRow("1", "t_i2v", "1 2 3", "t_oidv", "23 25")},
				{name: "vector_single_bounds", kind: "insert", row: arrRow("2", "t_i2v", " -32768   32767 ", "t_oidv", "4294967295")},
				{name: "vector_one", kind: "insert", row: arrRow("3", "t_i2v", "5", "t_oidv", "0")},
				{name: "vector_empty", kind: "insert", row: arrRow("4", "t_i2v", "", "t_oidv", "")},
				{name: "vector_nulls", kind: "insert", row: arrRow("5", "t_i2v", nil, "t_oidv", nil)},
			},
		},
		{
			// a snapshot read (op r, snapshot.mode=initial) of a domain
			// and the vectors, then a streamed row
			name:    "dom_pg_snapshot",
			pgSetup: []string{pgDomain("dom_num", "numeric(10,2) CHECK (VALUE >= -1000000)")},
			cols: withCols(
				col{name: "t_dn", pg: "dom_num", pgModel: "domain numeric(10,2)", maria: "varchar(60)"},
				col{name: "t_i2v", pg: "int2vector", maria: "varchar(60)"},
				col{name: "t_oidv", pg: "oidvector", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.fields.additional.placement": "t_dn:header,t_i2v:header,t_oidv:header",
				"route.topic.replacement":           "dt$R.domsnap.${routedByValue}",
			},
			conn: copyConn(jsonConverters(true), "snapshot.mode", "initial"),
			base: arrBase("t_dn", nil, "t_i2v", nil, "t_oidv", nil),
			pre: []op{
				{name: "snapshot_domain_vectors", kind: "insert", row: arrRow("1", "t_dn", "12.345", "t_i2v", "1 2 3", "t_oidv", "23 25")},
				{name: "snapshot_vectors_empty", kind: "insert", row: arrRow("2", "t_dn", "-1", "t_i2v", "", "t_oidv", "")},
			},
			ops: []op{
				{name: "stream_after_snapshot", kind: "insert", row: arrRow("3", "t_dn", "7.1", "t_i2v", "4 5", "t_oidv", "26")},
			},
		},
		{
			// a column DEFAULT on domain columns (pg_get_expr prints
			// 'dflt'::dom_vc) and a domain's own DEFAULT: none is in
			// the connector's schema
			name: "dom_pg_column_default",
			pgSetup: []string{
				pgDomain("dom_num", "numeric(10,2) CHECK (VALUE >= -1000000)"),
				pgDomain("dom_vc", "varchar(20)"),
				pgDomain("dom_def", "integer DEFAULT 7"),
			},
			cols: withCols(
				col{name: "t_dn", pg: "dom_num", pgModel: "domain numeric(10,2)", pgDef: "5.5", maria: "varchar(60)"},
				col{name: "t_dv", pg: "dom_vc", pgModel: "domain varchar(20)", pgDef: "'dflt'", maria: "varchar(60)"},
				col{name: "t_dd", pg: "dom_def", pgModel: "domain integer", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.fields.additional.placement": "t_dn:header,t_dn:envelope:dn,t_dv:header,t_dv:envelope:dv,t_dd:header,t_dd:envelope:dd",
				"route.topic.replacement":           "dt$R.domdef.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_dn", "1", "t_dv", "s", "t_dd", "1"),
			ops: []op{
				{name: "domain_default_values", kind: "insert", row: arrRow("1", "t_dn", "1.005", "t_dv", "v", "t_dd", "3")},
				{name: "domain_default_nulls", kind: "insert", row: arrRow("2", "t_dn", nil, "t_dv", nil, "t_dd", nil)},
			},
		},
		{
			// a composite (row) type column
			name:    "dom_pg_composite",
			pgSetup: []string{`DO $$ BEGIN CREATE TYPE dom_pair AS (a int, b text); EXCEPTION WHEN duplicate_object THEN NULL; END $$`},
			cols: withCols(
				col{name: "t_row", pg: "dom_pair", pgModel: "composite", maria: "varchar(60)"},
				col{name: "t_txt", pg: "text", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.fields.additional.placement":        "t_row:header,t_row:envelope:r,t_txt:header",
				"table.fields.additional.error.on.missing": "false",
				"table.field.additional.missing":           "ignore",
				"route.topic.replacement":                  "dt$R.comp.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_row", nil, "t_txt", "s"),
			ops: []op{
				{name: "composite_value", kind: "insert", row: arrRow("1", "t_row", `(1,"x y")`, "t_txt", "kept")},
				{name: "composite_null", kind: "insert", row: arrRow("2", "t_row", nil, "t_txt", nil)},
			},
		},
	}
}
