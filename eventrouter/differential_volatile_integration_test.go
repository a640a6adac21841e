//go:build integration

package eventrouter_test

// #31: text the connector writes with a Java identity hash (arbitrary per
// JVM run): a StringConverter key, value and header writing a struct with
// a byte[] field (VariableScaleDecimal value, geometry / point wkb). The
// emulator writes PlaceholderIdentityHash and marks its offsets; the
// comparison (diffRecord, diffRelay) masks only those digits, the text
// around them must match byte for byte. And a multi-dimensional value of a
// text-like PostgreSQL array, whose element converter writes the Java
// sub-array's Object.toString ([Ljava.lang.String;@6b2c16d6).

func init() { variantSets = append(variantSets, volatileVariants) }

// stringConverters: key, value and header all via StringConverter.
func stringConverters() map[string]string {
	return map[string]string{
		"key.converter":    "org.apache.kafka.connect.storage.StringConverter",
		"value.converter":  "org.apache.kafka.connect.storage.StringConverter",
		"header.converter": "org.apache.kafka.connect.storage.StringConverter",
		"errors.tolerance": "all",
	}
}

func volatileVariants() []variant {
	return []variant{
		// unconstrained numeric (and numeric[]) under precise: key,
		// headers, envelope (Struct{…,free=Struct{scale=…,value=[B@…}})
		variableScaleVariant("volatile_string_varscale", false, stringConverters()),
		// the same with the numeric as the payload
		variableScaleVariant("volatile_string_varscale_payload", true, stringConverters()),
		// MariaDB spatial: Point key, Geometry payload and headers, a
		// Point in the envelope
		spatialVariant("volatile_string_maria_spatial", stringConverters(), map[string]string{
			"table.field.event.key":             "g_pt",
			"table.field.event.payload":         "g_geom",
			"table.fields.additional.placement": "g_pt:header,g_line:header,g_coll:header,g_nn:header,g_poly:envelope:poly",
			"route.topic.replacement":           "dt$R.vsp.${routedByValue}",
		}),
		// PostgreSQL point: key, payload, headers
		pgPointVariant("volatile_string_pg_point", stringConverters(), map[string]string{
			"table.field.event.key":             "pt",
			"table.field.event.payload":         "pt",
			"table.fields.additional.placement": "pt:header,pt_nn:header,pt_nn:envelope:nn",
			"route.topic.replacement":           "dt$R.vpp.${routedByValue}",
		}),
		// multi-dimensional values of text-like arrays: key
		// (StringConverter), headers (the worker's SimpleHeaderConverter),
		// envelope (JsonConverter with schemas); one element per top-level
		// sub-array, 2 and 3 dimensions, decorations, NULL elements inside,
		// a one-dimensional value beside them; text on MariaDB
		pgArrayNestedVariant(),
	}
}

func pgArrayNestedVariant() variant {
	a := func(n, pg string) col { return col{name: n, pg: pg, maria: "varchar(300)"} }
	return variant{
		name: "volatile_pg_array_nested",
		cols: withCols(a("t_txt", "text[]"), a("t_vc", "varchar(5)[]"), a("t_ch", "char(2)[]"), a("t_uu", "uuid[]"),
			a("t_js", "json[]"), a("t_jb", "jsonb[]"), a("t_in", "inet[]"), a("t_r4", "int4range[]"), a("t_rz", "tstzrange[]")),
		er: map[string]string{
			"table.field.event.key":             "t_txt",
			"table.fields.additional.placement": "t_txt:header,t_vc:header,t_ch:header,t_uu:header,t_js:header,t_jb:header,t_in:header,t_r4:header,t_rz:header,t_txt:envelope:txt,t_uu:envelope:uu,t_jb:envelope:jb,t_r4:envelope:r4",
			"route.topic.replacement":           "dt$R.van.${routedByValue}",
		},
		conn: stringKeyJSON(false),
		base: arrBase("t_txt", "{a}", "t_vc", nil, "t_ch", nil, "t_uu", nil, "t_js", nil, "t_jb", nil, "t_in", nil, "t_r4", nil, "t_rz", nil),
		ops: []op{
			{name: "nested_two_dims", kind: "insert", row: arrRow("1", "t_txt", `{{a,b},{c,NULL}}`, "t_vc", `{{x},{y},{z}}`, "t_ch", `{{a,bb}}`,
				"t_uu", `{{123e4567-e89b-12d3-a456-426614174000},{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}}`, "t_js", `{{"{\"a\": 1}"}}`, "t_jb", `{{"{\"b\":2, \"a\":1}","[]"}}`,
				"t_in", `{{10.0.0.1/8,::1}}`, "t_r4", `{{"[1,3)","(1,5]"}}`, "t_rz", `{{"[2024-01-01 00:00:00+00,)"}}`)},
			{name: "nested_three_dims_bounds", kind: "insert", row: arrRow("2", "t_txt", `{{{a}},{{b}}}`, "t_vc", `[0:1][1:1]={{x},{y}}`, "t_ch", `{a}`,
				"t_uu", nil, "t_js", `{"{}"}`, "t_jb", `{{NULL}}`, "t_in", `{{{1.2.3.4}}}`, "t_r4", `{empty}`, "t_rz", nil)},
			{name: "nested_nulls", kind: "insert", row: arrRow("3", "t_txt", `{{NULL,NULL}}`, "t_vc", nil, "t_ch", nil, "t_uu", nil, "t_js", nil, "t_jb", nil, "t_in", nil, "t_r4", nil, "t_rz", nil)},
		},
	}
}
