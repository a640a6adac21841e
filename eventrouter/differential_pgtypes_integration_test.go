//go:build integration

package eventrouter_test

import (
	"fmt"
	"strings"
)

// #31, the PostgreSQL types refused until session 7: hstore under
// hstore.handling.mode=map, hstore values whose java.util.HashMap has a
// tree bin, and the others below. On MariaDB the columns are text.
func init() { variantSets = append(variantSets, pgTypesVariants) }

func pgTypesVariants() []variant {
	return []variant{
		{
			// hstore.handling.mode=map: a Connect map<string, optional
			// string> in the driver's HashMap order; the key through
			// StringConverter (AbstractMap.toString), a header through
			// SimpleHeaderConverter (Values.convertToString), the envelope
			// with JsonConverter schemas (keys, values)
			name:    "pg_hstore_map",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS hstore"},
			cols:    withCols(col{name: "t_h", pg: "hstore", maria: "varchar(400)"}),
			er: map[string]string{
				"table.field.event.key":             "t_h",
				"table.fields.additional.placement": "t_h:header,t_h:envelope:h",
				"route.topic.replacement":           "dt$R.hsm.${routedByValue}",
			},
			conn: stringKeyJSON(false, "hstore.handling.mode", "map"),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_h":"a=>1"}`,
			ops: []op{
				{name: "hstore_map_order", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_h":"zeta=>1, c=>3, b=>2, aa=>NULL, q=>\"x y\", longer_key=>v, k2=>\"\", Aa=>1, BB=>2, é=>accent, \"a b\"=>sp, x=>NuLL, n=>\"NULL\", m=>\"q\\\"\\\\\", \"k,=\"=>\"v, w=>z\""}`},
				{name: "hstore_map_empty", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_h":""}`},
				{name: "hstore_map_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_h":null}`},
				{name: "hstore_map_one_null_value", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_h":"k=>NULL"}`},
			},
		},
		{
			// hstore.handling.mode=map without schemas: the map as the
			// payload (table.field.event.payload) and the key under
			// JsonConverter schemas.enable=false (JSON objects), a header
			// through JsonConverter with its schema
			name:    "pg_hstore_map_schemaless",
			pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS hstore"},
			cols:    withCols(col{name: "t_h", pg: "hstore", maria: "varchar(400)"}),
			er: map[string]string{
				"table.field.event.key":             "t_h",
				"table.field.event.payload":         "t_h",
				"table.fields.additional.placement": "t_h:header",
				"route.topic.replacement":           "dt$R.hsn.${routedByValue}",
			},
			conn: map[string]string{
				"hstore.handling.mode": "map",
				"key.converter":        "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
				"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
				"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
				"errors.tolerance": "all",
			},
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_h":"a=>1"}`,
			ops: []op{
				{name: "hstore_schemaless_order", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_h":"zeta=>1, c=>3, b=>2, aa=>NULL, é=>\"\\\\\", \"a b\"=>\"tab\there\""}`},
				{name: "hstore_schemaless_empty", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_h":""}`},
				{name: "hstore_schemaless_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_h":null}`},
			},
		},
		hstoreTreeVariant("pg_hstore_tree_json", "json"),
		hstoreTreeVariant("pg_hstore_tree_map", "map"),
		{
			// a PostgreSQL enum (CREATE TYPE … AS ENUM): io.debezium.data.Enum
			// with the labels in enumsortorder joined by commas (allowed),
			// the label as the value; labels with a blank, a comma, a quote,
			// upper case; a DEFAULT 'label'::type (with a doubled quote
			// too) that a NULL becomes; NULL without a default; in the key
			// (StringConverter), headers and the envelope with schemas
			name:    "pg_enum",
			pgSetup: []string{pgEnumSetup},
			cols: withCols(
				col{name: "t_e", pg: "outboxctl_pgt_mood", pgModel: pgEnumModel, maria: "varchar(40)"},
				col{name: "t_ed", pg: "outboxctl_pgt_mood", pgModel: pgEnumModel, maria: "varchar(40)", pgDef: "'ok'::outboxctl_pgt_mood", mariaDef: "'ok'"},
				col{name: "t_eq", pg: "outboxctl_pgt_mood", pgModel: pgEnumModel, maria: "varchar(40)", pgDef: "'it''s'::outboxctl_pgt_mood", mariaDef: "'it''s'"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_e",
				"table.fields.additional.placement": "t_e:header,t_e:envelope:e,t_ed:envelope:ed,t_ed:header,t_eq:header,t_eq:envelope:eq",
				"route.topic.replacement":           "dt$R.enum.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_e":"sad","t_ed":"sad","t_eq":"sad"}`,
			ops: []op{
				{name: "enum_labels", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_e":"Happy Day","t_ed":"a,b","t_eq":"it's"}`},
				{name: "enum_defaults", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_e":"ok","t_ed":null,"t_eq":null}`},
				{name: "enum_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_e":null,"t_ed":"sad","t_eq":"ok"}`},
			},
		},
		{
			// unbounded varbit (bit varying without a length)
			name: "pg_varbit_unbounded",
			cols: withCols(col{name: "t_vb", pg: "varbit", maria: "varchar(80)"}),
			er: map[string]string{
				"table.fields.additional.placement": "t_vb:header,t_vb:envelope:vb",
				"route.topic.replacement":           "dt$R.vbu.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_vb":"1"}`,
			ops: []op{
				{name: "varbit_one", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_vb":"1"}`},
				{name: "varbit_zero", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_vb":"0"}`},
				{name: "varbit_many", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_vb":"1011000000000000000000000000000000000001"}`},
				{name: "varbit_leading_zeros", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_vb":"0000000101"}`},
				{name: "varbit_empty", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":{"i":5},"t_vb":""}`},
				{name: "varbit_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"6","type":"T","payload":{"i":6},"t_vb":null}`},
			},
		},
		{
			// interval with fields: the stored value (truncated to the
			// fields, seconds rounded to the precision) as MicroDuration;
			// inputs as interval_in reads them under the typmod (a bare
			// integer is the rightmost field, 1:30 is mm:ss under minute
			// to second, mm:ss.f always); key (StringConverter), headers
			// (SimpleHeaderConverter) and the envelope with schemas
			name: "pg_interval_fields",
			cols: withCols(
				col{name: "t_ym", pg: "interval year to month", maria: "varchar(60)"},
				col{name: "t_ds", pg: "interval day to second(3)", maria: "varchar(60)"},
				col{name: "t_h", pg: "interval hour", maria: "varchar(60)"},
				col{name: "t_ms", pg: "interval minute to second", maria: "varchar(60)"},
				col{name: "t_y", pg: "interval year", maria: "varchar(60)"},
				col{name: "t_s", pg: "interval second(1)", maria: "varchar(60)"},
			),
			er: map[string]string{
				"table.field.event.key":             "t_ds",
				"table.fields.additional.placement": "t_ym:header,t_ym:envelope:ym,t_ds:envelope:ds,t_h:header,t_h:envelope:h,t_ms:header,t_ms:envelope:ms,t_y:header,t_s:envelope:s",
				"route.topic.replacement":           "dt$R.ivf.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_ym":"1","t_ds":"1","t_h":"1","t_ms":"1","t_y":"1","t_s":"1"}`,
			ops: []op{
				{name: "interval_fields_truncated", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_ym":"1 year 14 mons 3 days 04:05:06","t_ds":"1 year 2 mons 3 days 04:05:06.7896","t_h":"2 mons 3 days -04:59:59.9","t_ms":"3 days 04:05:06.5","t_y":"-1 years -14 mons -3 days","t_s":"00:00:01.25"}`},
				{name: "interval_fields_bare_numbers", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_ym":"7","t_ds":"-7","t_h":"30","t_ms":"90","t_y":"3","t_s":"-5"}`},
				{name: "interval_fields_clock_forms", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_ym":"0","t_ds":"1:30.0625","t_h":"1:30","t_ms":"-1:30","t_y":"0","t_s":"1:30.25"}`},
				{name: "interval_fields_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_ym":null,"t_ds":"0","t_h":null,"t_ms":null,"t_y":null,"t_s":null}`},
			},
		},
		{
			// an array of a PostgreSQL enum: an array of io.debezium.data.Enum
			// (elements not optional); a NULL element, an empty array, a
			// NULL column; key (StringConverter), a header
			// (SimpleHeaderConverter) and the envelope with schemas
			name:    "pg_enum_array",
			pgSetup: []string{pgEnumSetup},
			cols:    withCols(col{name: "t_ea", pg: "outboxctl_pgt_mood[]", pgModel: pgEnumModel + "[]", maria: "varchar(80)"}),
			er: map[string]string{
				"table.field.event.key":             "t_ea",
				"table.fields.additional.placement": "t_ea:header,t_ea:envelope:ea",
				"route.topic.replacement":           "dt$R.enuma.${routedByValue}",
			},
			conn: stringKeyJSON(false),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_ea":"{sad}"}`,
			ops: []op{
				{name: "enum_array_labels", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_ea":"{\"Happy Day\",\"a,b\",it's,sad,sad}"}`},
				{name: "enum_array_empty", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_ea":"{}"}`},
				{name: "enum_array_null_element", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_ea":"{ok,NULL}"}`},
				{name: "enum_array_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_ea":null}`},
			},
		},
	}
}

// pgEnumSetup creates the enum type pg_enum uses (once: the type outlives
// the variant's table, and other runs may use it at the same time).
const pgEnumSetup = `DO $$ BEGIN CREATE TYPE outboxctl_pgt_mood AS ENUM ('sad', 'ok', 'Happy Day', 'it''s', 'a,b', 'zz'); EXCEPTION WHEN duplicate_object THEN NULL; END $$`

const pgEnumModel = `enum('sad','ok','Happy Day','it''s','a,b','zz')`

// hstoreTreeKeys are hstore values whose java.util.HashMap gets a tree
// bin (9 or more keys in one bucket once the table is 64 wide): the 16
// "Aa"/"BB" words of length 8 (one String hashCode: treeified after two
// early resizes, then ordered by compareTo), 14 three-letter keys of
// bucket 5 (64) split 7/7 when the table grows to 128 (both halves
// treeified again) among 36 others, and 12 of bucket 9 split 9/3 (the
// small half back to a list).
func hstoreTreeKeys() map[string]string {
	var collide []string
	for i := 0; i < 16; i++ {
		var b strings.Builder
		for j := 3; j >= 0; j-- {
			if i>>j&1 == 0 {
				b.WriteString("Aa")
			} else {
				b.WriteString("BB")
			}
		}
		collide = append(collide, b.String())
	}
	// others: three-letter keys outside buckets 5 and 9 of a 64 table
	// (String.hashCode spread as HashMap.hash does)
	fill := func(n int) []string {
		var out []string
		for a := 'a'; a <= 'z' && len(out) < n; a++ {
			for c := 'a'; c <= 'z' && len(out) < n; c++ {
				k := "z" + string(a) + string(c)
				h := uint32(0)
				for _, r := range k {
					h = 31*h + uint32(r)
				}
				if b := (h ^ h>>16) & 63; b != 5 && b != 9 {
					out = append(out, k)
				}
			}
		}
		return out
	}
	row := func(keys []string) string {
		var parts []string
		for i, k := range keys {
			v := fmt.Sprint(i)
			if i%5 == 4 {
				v = "NULL"
			}
			parts = append(parts, k+"=>"+v)
		}
		return strings.Join(parts, ", ")
	}
	split77 := []string{"acf", "agj", "akn", "aor", "asv", "awz", "bac", "aad", "aeh", "ail", "amp", "aqt", "aux", "bce"}
	split93 := []string{"acj", "agn", "akr", "aov", "asz", "bag", "bek", "bio", "bms", "aah", "ael", "aip"}
	return map[string]string{
		"collide16": row(collide),
		"split77":   row(append(append([]string{}, split77...), fill(36)...)),
		"split93":   row(append(append([]string{}, split93...), fill(38)...)),
	}
}

func hstoreTreeVariant(name, mode string) variant {
	keys := hstoreTreeKeys()
	var ops []op
	for i, n := range []string{"collide16", "split77", "split93"} {
		ops = append(ops, op{name: "hstore_tree_" + mode + "_" + n, kind: "insert",
			row: fmt.Sprintf(`{"id":"$ID","aggregatetype":"Order","aggregateid":"%d","type":"T","payload":{"i":%d},"t_h":%q}`, i, i, keys[n])})
	}
	return variant{
		name:    name,
		pgSetup: []string{"CREATE EXTENSION IF NOT EXISTS hstore"},
		cols:    withCols(col{name: "t_h", pg: "hstore", maria: "text"}),
		er: map[string]string{
			"table.field.event.key":             "t_h",
			"table.fields.additional.placement": "t_h:header,t_h:envelope:h",
			"route.topic.replacement":           "dt$R.hst" + mode + ".${routedByValue}",
		},
		conn: map[string]string{
			"hstore.handling.mode": mode,
			"key.converter":        "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
			"value.converter.schemas.enable": "true", "errors.tolerance": "all",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_h":"a=>1"}`,
		ops:  ops,
	}
}
