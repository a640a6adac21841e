//go:build integration

package eventrouter_test

// #31: PostgreSQL's one-byte internal type "char" (pg_type's char, OID 18)
// and its arrays "char"[] (_char, OID 1002): '', NULL, several
// characters (the first byte kept), a non-ASCII character (its first
// UTF-8 byte, printed \ooo), the \ooo input form, one- and
// multi-dimensional arrays; the key (StringConverter), JsonConverter
// headers and envelope fields with schemas, the payload. On MariaDB the
// columns are text holding the same literals.

func init() { variantSets = append(variantSets, pgCharVariants) }

func pgCharVariants() []variant {
	cols := withCols(col{name: "t_c", pg: `"char"`, maria: "text"}, col{name: "t_ca", pg: `"char"[]`, maria: "text"},
		col{name: "t_c2", pg: `"char"[][]`, maria: "text"})
	base := arrBase("t_c", "s", "t_ca", "{s}", "t_c2", nil)
	ops := []op{
		{name: "pgchar_ascii", kind: "insert", row: arrRow("1", "t_c", "a", "t_ca", `{a,b,NULL}`, "t_c2", `{x}`)},
		{name: "pgchar_empty", kind: "insert", row: arrRow("2", "t_c", "", "t_ca", `{"",z}`, "t_c2", "{}")},
		{name: "pgchar_first_byte", kind: "insert", row: arrRow("3", "t_c", "xyz", "t_ca", `{abc,"d e"}`, "t_c2", `{" "}`)},
		{name: "pgchar_non_ascii", kind: "insert", row: arrRow("4", "t_c", "é", "t_ca", `{é,ü,€}`, "t_c2", `{ß}`)},
		{name: "pgchar_octal", kind: "insert", row: arrRow("5", "t_c", `\101`, "t_ca", `{"\\303","\\101","\\000","\\777"}`, "t_c2", `{"\\"}`)},
		{name: "pgchar_octal_high", kind: "insert", row: arrRow("6", "t_c", `\377`, "t_ca", `{"\\12"}`, "t_c2", `{"\\1234"}`)},
		{name: "pgchar_nested", kind: "insert", row: arrRow("7", "t_c", "Z", "t_ca", `{{a,b},{c,NULL}}`, "t_c2", `{{{q}},{{r}}}`)},
		{name: "pgchar_nulls", kind: "insert", row: arrRow("8", "t_c", nil, "t_ca", nil, "t_c2", nil)},
	}
	return []variant{
		{
			// snapshot reads (op r, snapshot.mode=initial: the JDBC
			// result set's text), then a streamed row; a domain over
			// "char"
			name: "pgchar_snapshot",
			pgSetup: []string{
				`DO $$ BEGIN CREATE DOMAIN pgchar_dom AS "char"; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
			},
			cols: withCols(col{name: "t_c", pg: `"char"`, maria: "text"}, col{name: "t_ca", pg: `"char"[]`, maria: "text"},
				col{name: "t_cd", pg: "pgchar_dom", pgModel: `domain "char"`, maria: "text"}),
			er: map[string]string{
				"table.field.event.key":             "t_c",
				"table.fields.additional.placement": "t_c:header,t_ca:header,t_cd:header,t_c:envelope:c,t_ca:envelope:ca,t_cd:envelope:cd",
				"route.topic.replacement":           "dt$R.pgcs.${routedByValue}",
			},
			conn: copyConn(arrJSONConv, "snapshot.mode", "initial"),
			base: arrBase("t_c", "s", "t_ca", "{s}", "t_cd", "s"),
			pre: []op{
				{name: "pgchar_snapshot_values", kind: "insert", row: arrRow("1", "t_c", "é", "t_ca", `{é,"",NULL,ab}`, "t_cd", "ü")},
				{name: "pgchar_snapshot_nested", kind: "insert", row: arrRow("2", "t_c", "", "t_ca", `{{a},{b}}`, "t_cd", nil)},
			},
			ops: []op{
				{name: "pgchar_stream_after_snapshot", kind: "insert", row: arrRow("3", "t_c", `\101`, "t_ca", `{"\\377"}`, "t_cd", "xy")},
			},
		},
		{
			// DEFAULTs on "char" and "char"[] columns (in the envelope
			// fields' schemas, JsonConverter with schemas), written NULL
			// and left out
			name: "pgchar_defaults",
			cols: withCols(col{name: "t_cd", pg: `"char"`, maria: "varchar(10)", pgDef: `'x'`, mariaDef: `'x'`},
				col{name: "t_ce", pg: `"char"`, maria: "varchar(10)", pgDef: `'é'`, mariaDef: `'é'`},
				col{name: "t_cad", pg: `"char"[]`, maria: "varchar(10)", pgDef: `'{a,b}'`, mariaDef: `'{a,b}'`}),
			er: map[string]string{
				"table.fields.additional.placement": "t_cd:header,t_cd:envelope:cd,t_ce:envelope:ce,t_cad:envelope:cad",
				"route.topic.replacement":           "dt$R.pgcd.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: arrBase("t_cd", "s", "t_ce", "s", "t_cad", "{s}"),
			ops: []op{
				{name: "pgchar_defaults_null", kind: "insert", row: arrRow("1", "t_cd", nil, "t_ce", nil, "t_cad", nil)},
				{name: "pgchar_defaults_values", kind: "insert", row: arrRow("2", "t_cd", "yz", "t_ce", "ü", "t_cad", "{c}")},
			},
		},
		{
			name: "pgchar_placements",
			cols: cols,
			er: map[string]string{
				"table.field.event.key":             "t_c",
				"table.fields.additional.placement": "t_c:header,t_ca:header,t_c2:header,t_c:envelope:c,t_ca:envelope:ca,t_c2:envelope:c2",
				"route.topic.replacement":           "dt$R.pgch.${routedByValue}",
			},
			conn: arrJSONConv,
			base: base,
			ops:  ops,
		},
		{
			// the array as the key (StringConverter: List.toString),
			// headers under the worker's SimpleHeaderConverter, the
			// scalar as the payload (JsonConverter with schemas)
			name: "pgchar_array_key_payload",
			cols: cols,
			er: map[string]string{
				"table.field.event.key":             "t_ca",
				"table.field.event.payload":         "t_c",
				"table.fields.additional.placement": "t_c:header,t_ca:header,t_c2:header",
				"route.topic.replacement":           "dt$R.pgck.${routedByValue}",
			},
			conn: map[string]string{
				"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
				"value.converter.schemas.enable": "true", "errors.tolerance": "all",
			},
			base: base,
			ops:  ops,
		},
		{
			// the array as the payload (JsonConverter with schemas), the
			// key JsonConverter with schemas
			name: "pgchar_array_payload",
			cols: cols,
			er: map[string]string{
				"table.field.event.key":             "t_c",
				"table.field.event.payload":         "t_ca",
				"table.fields.additional.placement": "t_c2:envelope:c2",
				"route.topic.replacement":           "dt$R.pgcp.${routedByValue}",
			},
			conn: jsonConverters(true),
			base: base,
			ops:  ops,
		},
	}
}
