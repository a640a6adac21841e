//go:build integration

package eventrouter_test

import "fmt"

// PostgreSQL interval input in every form interval_in reads (issue #31's
// "inputs not modelled"): ISO 8601 with designators (negative and
// fractional parts) and in the alternative format, SQL-standard
// year-month and day-time, the verbose form with @ and ago, fractional
// units, millennium to microsecond units, mixed signs; in columns with
// and without fields and precision, a DEFAULT written in ISO 8601, and
// NULLs. The key (t_iv), headers, the envelope and the payload (an
// interval column) under interval.handling.mode numeric and string. On
// MariaDB the columns are text.
func init() { variantSets = append(variantSets, intervalFormVariants, enumArrayFailVariants) }

// enumArrayFailVariants: an enum array with a NULL element under
// event.converting.failure.handling.mode=fail; the task fails with the
// DebeziumException naming the array type as the catalog does
// (_outboxctl_pgt_mood, the sample's databaseType). (Only the failing
// row: a routable row just before it, in the same batch, is lost with
// the failed task, which the relay, publishing row by row, does not
// model.)
func enumArrayFailVariants() []variant {
	return []variant{{
		name:    "pg_enum_array_null_fail",
		pgSetup: []string{pgEnumSetup},
		cols:    withCols(col{name: "t_ea", pg: "outboxctl_pgt_mood[]", pgModel: pgEnumModel + "[]", pgTypeName: "_outboxctl_pgt_mood", maria: "varchar(80)"}),
		er: map[string]string{
			"table.fields.additional.placement": "t_ea:header,t_ea:envelope:ea",
			"route.topic.replacement":           "dt$R.eafail.${routedByValue}",
		},
		conn: map[string]string{
			"event.converting.failure.handling.mode": "fail", "errors.tolerance": "all",
			"key.converter": "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_ea":"{sad}"}`,
		ops: []op{
			{name: "enum_array_fail_null_element", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_ea":"{ok,NULL}"}`},
		},
	}}
}

func intervalFormVariants() []variant {
	return []variant{
		// numeric (the default): MicroDuration; key StringConverter,
		// value JsonConverter with schemas, SimpleHeaderConverter headers
		intervalFormVariant("pg_interval_forms_numeric", "", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
		// numeric with JsonConverter schemas on the key and headers
		intervalFormVariant("pg_interval_forms_numeric_json", "numeric", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		// string: io.debezium.time.Interval (P1Y2M3DT4H5M6.5S of the
		// stored value's PGInterval parts)
		intervalFormVariant("pg_interval_forms_string", "string", map[string]string{
			"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "true",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
			"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
		}),
		// string with StringConverter key and SimpleHeaderConverter
		// headers (the ISO text as is)
		intervalFormVariant("pg_interval_forms_string_plain", "string", map[string]string{
			"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
			"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		}),
	}
}

// intervalFormVariant: columns payload (interval), t_iv (interval, the
// key), t_iv3 (interval(3)), t_ds (interval day to second(2)), t_ms
// (interval minute to second), t_ym (interval year to month) and t_def
// (interval hour to second(1) DEFAULT 'P1.25DT0.05S', NULL in every row:
// the schema default).
func intervalFormVariant(name, mode string, conv map[string]string) variant {
	cols := replaceCol(withCols(
		col{name: "t_iv", pg: "interval", maria: "varchar(64)"},
		col{name: "t_iv3", pg: "interval(3)", maria: "varchar(64)"},
		col{name: "t_ds", pg: "interval day to second(2)", maria: "varchar(64)"},
		col{name: "t_ms", pg: "interval minute to second", maria: "varchar(64)"},
		col{name: "t_ym", pg: "interval year to month", maria: "varchar(64)"},
		col{name: "t_def", pg: "interval hour to second(1)", maria: "varchar(64)", pgDef: "'P1.25DT0.05S'"},
	), col{name: "payload", pg: "interval", maria: "varchar(64)"})
	// payload, t_iv, t_iv3, t_ds, t_ms, t_ym
	rows := [][6]string{
		// ISO 8601 with designators, negative parts
		{"P1Y2M3DT4H5M6.5S", "P-1Y-2M3DT-4H-5M-6.5S", "PT0.0005S", "P1DT2H3M4.555S", "PT90S", "P1Y14M"},
		// ISO 8601 fractional parts (P1.5Y: 1 year 6 mons; P1.5W: 10
		// days 12:00; P2.5M: 2 mons 15 days)
		{"P1.5Y", "PT0.5S", "P1.5W", "P0.5D", "PT1.5M", "P2.5M"},
		// ISO 8601 alternative format, extended and basic
		{"P0001-02-03T04:05:06", "P0001-02-03T04:05:06.5", "P00010203T040506", "PT040506", "PT4:05", "P0001-02"},
		// SQL standard
		{"1-2", "1-2 3 4:05:06", "-1-2 +3 -4:05:06.7891", "3 4:05:06.789", "-3 4:05", "-1-2"},
		// postgres verbose, ago
		{"@ 1 year 2 mons ago", "@ 3 days 4 hours ago", "1 day -2 hours ago", "@ 1 day 2 mins 3.5 secs ago", "2 minutes 30 seconds ago", "@ 5 mons ago"},
		// fractional units
		{"1.5 days", "1.5 months", "0.5 years", "1.5 weeks", "1.25 hours", "0.5 years"},
		// millennium to microsecond
		{"1 millennium 2 centuries 3 decades", "1.5 centuries", "3 ms 250 us", "1500 ms", "2500000 us", "2 millennia"},
		// mixed signs, abbreviations
		{"1 year -13 mons +40 days -50:00:00.5", "-1 days +25:00:00", "1 mon -31 days 1 us", "1d2h3m4.125s", "-1:30.5", "1 yr -1 mon"},
		// excess precision, seconds beyond a minute
		{"0.0000005 seconds", "PT0.0000015S", "00:00:59.9995", "1 day 23:59:59.995", "59:00.25", "P1Y0.03M"},
		{"", "", "", "", "", ""},
	}
	names := []string{"interval_iso_designators", "interval_iso_fractions", "interval_iso_alternative", "interval_sql_standard", "interval_verbose_ago",
		"interval_fractional_units", "interval_big_small_units", "interval_mixed_signs", "interval_excess_precision", "interval_nulls"}
	var ops []op
	for i, r := range rows {
		vals := ""
		for j, c := range []string{"payload", "t_iv", "t_iv3", "t_ds", "t_ms", "t_ym"} {
			v := "null"
			if r[j] != "" {
				v = fmt.Sprintf("%q", r[j])
			}
			vals += `,"` + c + `":` + v
		}
		ops = append(ops, op{name: names[i], kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"` + fmt.Sprint(i) + `","type":"T"` + vals + `,"t_def":null}`})
	}
	conn := map[string]string{"errors.tolerance": "all"}
	if mode != "" {
		conn["interval.handling.mode"] = mode
	}
	for k, v := range conv {
		conn[k] = v
	}
	return variant{
		name: name, cols: cols,
		er: map[string]string{
			"table.field.event.key":             "t_iv",
			"table.fields.additional.placement": "t_iv3:header,t_ds:header,t_ms:header,t_ym:header,t_def:header,t_iv3:envelope:iv3,t_ds:envelope:ds,t_ym:envelope:ym,t_def:envelope:def",
			"route.topic.replacement":           "dt$R.ivf2.${routedByValue}",
		},
		conn: conn,
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"P1D","t_iv":"PT1S","t_iv3":"1","t_ds":"1","t_ms":"1","t_ym":"1","t_def":null}`,
		ops:  ops,
	}
}
