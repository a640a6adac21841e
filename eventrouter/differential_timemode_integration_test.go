//go:build integration

package eventrouter_test

// #31: time.precision.mode values other than the defaults, on every
// modelled wall-clock column type (PostgreSQL date, time(p), timestamp(p),
// date[]; MariaDB date, time(p), datetime(p)) and the types it leaves alone
// (PostgreSQL timestamptz, timetz, interval, tsrange, daterange; MariaDB
// timestamp, year), in the key, payload, headers (JsonConverter with
// schemas, SimpleHeaderConverter), envelope fields and the typed getters
// (timestamp, partition, route.by.field).

func init() { variantSets = append(variantSets, timeModeVariants) }

// timeModeCols are the temporal columns of the time_mode_* variants; a
// type one database lacks is text on it.
func timeModeCols() []col {
	return withCols(
		col{name: "t_date", pg: "date", maria: "date"},
		col{name: "t_time3", pg: "time(3)", maria: "time(3)"},
		col{name: "t_time6", pg: "time", maria: "time(6)"},
		col{name: "t_time0", pg: "time(0)", maria: "time"},
		col{name: "t_ts3", pg: "timestamp(3)", maria: "datetime(3)"},
		col{name: "t_ts6", pg: "timestamp(6)", maria: "datetime(6)"},
		col{name: "t_ts", pg: "timestamp", maria: "datetime"},
		col{name: "t_tz", pg: "timestamptz(3)", maria: "timestamp(3)"},
		col{name: "t_ttz", pg: "timetz", maria: "varchar(64)"},
		col{name: "t_year", pg: "int4", maria: "year"},
		col{name: "t_iv", pg: "interval", maria: "varchar(40)"},
		col{name: "t_ltime", pg: "text", maria: "time(3)"},
		col{name: "t_dates", pg: "date[]", maria: "varchar(200)"},
		col{name: "t_tsr", pg: "tsrange", maria: "varchar(80)"},
		col{name: "t_dr", pg: "daterange", maria: "varchar(80)"},
	)
}

const timeModeBase = `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_date":"2024-01-01","t_time3":null,"t_time6":null,"t_time0":null,"t_ts3":"2024-01-01 00:00:00","t_ts6":null,"t_ts":null,"t_tz":null,"t_ttz":null,"t_year":null,"t_iv":null,"t_ltime":null,"t_dates":null,"t_tsr":null,"t_dr":null}`

// timeModeOps: excess precision (PostgreSQL rounds, MariaDB truncates;
// then the mode's unit), 24:00:00, the epoch and the day before it (a
// negative java.util.Date), a whole day, a large year, MariaDB TIME below
// 00:00:00 and above 24:00:00, NULLs.
func timeModeOps(ttz1, ttz2 string) []op {
	return []op{
		{name: "time_mode_excess_precision", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"a":1},"t_date":"2024-02-29","t_time3":"12:34:56.7895","t_time6":"23:59:59.9999995","t_time0":"12:34:56.5","t_ts3":"2024-03-01 12:34:56.7895","t_ts6":"2024-03-01 12:34:56.123456","t_ts":"2024-03-01 12:34:56.5","t_tz":"2024-03-01 12:34:56.98765","t_ttz":` + ttz1 + `,"t_year":1999,"t_iv":"1 day 02:03:04.5","t_ltime":"-01:02:03.456","t_dates":"{2024-02-29,1969-12-31,NULL}","t_tsr":"[2024-01-01T10:00:00.500,\"2024-01-02 00:00:00\"]","t_dr":"(2024-01-01,2024-02-01]"}`},
		{name: "time_mode_epoch_edges", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"a":2},"t_date":"1969-12-31","t_time3":"00:00:00","t_time6":"24:00:00","t_time0":"23:59:59","t_ts3":"1969-12-31 23:59:59.9995","t_ts6":"1970-01-01 00:00:00.000001","t_ts":"1970-01-02 00:00:00","t_tz":"1970-01-01 00:00:01","t_ttz":` + ttz2 + `,"t_year":70,"t_iv":"00:00:00","t_ltime":"100:00:00","t_dates":"{1970-01-01}","t_tsr":"[2024-01-01,)","t_dr":"empty"}`},
		{name: "time_mode_whole_day_large_year", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"a":3},"t_date":"1970-01-01","t_time3":"00:00:00.0005","t_time6":"00:00:00.000001","t_time0":"00:00:00","t_ts3":"9999-12-31 23:59:59.999","t_ts6":"2024-03-01 00:00:00","t_ts":"2024-03-01 00:00:00","t_tz":null,"t_ttz":null,"t_year":0,"t_iv":null,"t_ltime":"23:59:59.999","t_dates":"{}","t_tsr":null,"t_dr":null}`},
		{name: "time_mode_nulls", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":null,"t_date":null,"t_time3":null,"t_time6":null,"t_time0":null,"t_ts3":null,"t_ts6":null,"t_ts":null,"t_tz":null,"t_ttz":null,"t_year":null,"t_iv":null,"t_ltime":null,"t_dates":null,"t_tsr":null,"t_dr":null}`},
	}
}

// timeModeVariants are the variants of each modelled mode: its values in
// the key (StringConverter), JsonConverter headers and envelope with
// schemas; SimpleHeaderConverter headers and a StringConverter value; the
// timestamp and partition getters.
func timeModeVariants() []variant {
	var out []variant
	for _, mode := range []string{"connect", "microseconds", "nanoseconds", "isostring"} {
		out = append(out, timeModeJSON(mode), timeModeSimple(mode), timeModeTimestamp(mode), timeModePartition(mode))
	}
	// adaptive_time_microseconds (the binlog default) makes a PostgreSQL
	// time(0-3) a MicroTime
	return append(out, timeModeJSON("adaptive_time_microseconds"), timeModeDefaults("microseconds"), timeModeDefaults("nanoseconds"),
		timeModePayload("connect"), timeModePayload("nanoseconds"), timeModePayload("isostring"))
}

func timeModeJSON(mode string) variant {
	return variant{
		name: "time_mode_" + mode + "_json_schemas",
		cols: timeModeCols(),
		er: map[string]string{
			"table.field.event.key":             "t_ts3",
			"table.fields.additional.placement": "t_date:header,t_time3:header,t_time6:header,t_time0:header,t_ts3:header,t_ts6:header,t_ts:header,t_tz:header,t_ttz:header,t_year:header,t_iv:header,t_ltime:header,t_dates:header,t_tsr:header,t_dr:header,t_date:envelope:d,t_time6:envelope:tm6,t_ts6:envelope:ts6,t_ts:envelope:ts,t_ltime:envelope:lt,t_dates:envelope:ds",
			"route.topic.replacement":           "dt$R.tm" + mode + "j.${routedByValue}",
		},
		conn: map[string]string{
			"time.precision.mode": mode,
			"key.converter":       "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
			"value.converter.schemas.enable": "true",
			"header.converter":               "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
			"errors.tolerance": "all",
		},
		base: timeModeBase,
		ops:  timeModeOps(`"10:00:00.5+02"`, `"23:30:00-05:30"`),
	}
}

func timeModeSimple(mode string) variant {
	return variant{
		name: "time_mode_" + mode + "_simple_headers",
		cols: timeModeCols(),
		er: map[string]string{
			"table.field.event.key":             "t_date",
			"table.fields.additional.placement": "t_date:header,t_time3:header,t_time6:header,t_time0:header,t_ts3:header,t_ts6:header,t_ts:header,t_tz:header,t_ttz:header,t_year:header,t_ltime:header,t_dates:header,t_tsr:header,t_dr:header,t_ts6:envelope:ts6,t_time3:envelope:tm3,t_dates:envelope:ds",
			"route.topic.replacement":           "dt$R.tm" + mode + "s.${routedByValue}",
		},
		conn: map[string]string{
			"time.precision.mode": mode,
			"key.converter":       "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
			"errors.tolerance": "all",
		},
		base: timeModeBase,
		ops:  timeModeOps(`"00:00:00+14"`, `"12:00:00"`),
	}
}

// timeModeTimestamp: t_ts3 (a timestamp(3) / datetime(3)) as the event
// timestamp.
func timeModeTimestamp(mode string) variant {
	return variant{
		name: "time_mode_" + mode + "_event_timestamp",
		cols: withCols(col{name: "t_ts3", pg: "timestamp(3)", maria: "datetime(3)"}),
		er:   map[string]string{"table.field.event.timestamp": "t_ts3", "route.topic.replacement": "dt$R.tm" + mode + "t.${routedByValue}"},
		conn: map[string]string{
			"time.precision.mode": mode,
			"key.converter":       "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
		},
		base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_ts3":null}`,
		ops: []op{
			{name: "time_mode_" + mode + "_event_timestamp_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_ts3":null}`},
			{name: "time_mode_" + mode + "_event_timestamp", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"t_ts3":"2024-03-01 12:34:56.789"}`},
		},
	}
}

// timeModePartition: t_date (a date: int32 under every mode) as the
// partition.
func timeModePartition(mode string) variant {
	return variant{
		name: "time_mode_" + mode + "_partition", parts: 2,
		cols: withCols(col{name: "t_date", pg: "date", maria: "date"}),
		er:   map[string]string{"table.fields.additional.placement": "t_date:partition", "route.topic.replacement": "dt$R.tm" + mode + "p.${routedByValue}"},
		conn: map[string]string{
			"time.precision.mode": mode,
			"key.converter":       "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.storage.StringConverter",
		},
		base: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"t_date":null}`,
		ops: []op{
			{name: "time_mode_" + mode + "_partition_date", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"t_date":"1970-01-02"}`},
		},
	}
}

// timeModeDefaults: a NULL in columns with a DEFAULT whose schema the mode
// leaves as the default mode gives it (date: io.debezium.time.Date;
// timestamp(6) / datetime(6) under microseconds: MicroTimestamp) takes the
// schema default; a column whose schema the mode changes
// (timestamp(6) under nanoseconds) gets no DEFAULT here: the emulator
// refuses it.
func timeModeDefaults(mode string) variant {
	ts := col{name: "d_ts6", pg: "timestamp(6)", maria: "datetime(6)"}
	if mode == "microseconds" {
		ts.pgDef, ts.mariaDef = "'2024-01-02 03:04:05.123456'", "'2024-01-02 03:04:05.123456'"
	}
	return variant{
		name: "time_mode_" + mode + "_null_defaults",
		cols: withCols(col{name: "d_date", pg: "date", maria: "date", pgDef: "'2024-01-02'", mariaDef: "'2024-01-02'"}, ts),
		er: map[string]string{
			"table.field.event.key":             "d_date",
			"table.fields.additional.placement": "d_date:header,d_ts6:header,d_date:envelope:d,d_ts6:envelope:ts",
			"route.topic.replacement":           "dt$R.tm" + mode + "d.${routedByValue}",
		},
		conn: map[string]string{
			"time.precision.mode": mode,
			"key.converter":       "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
			"value.converter.schemas.enable": "true",
			"header.converter":               "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": "true",
			"errors.tolerance": "all",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"d_date":"2024-01-01","d_ts6":null}`,
		ops: []op{
			{name: "time_mode_" + mode + "_null_takes_default", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{},"d_date":null,"d_ts6":null}`},
			{name: "time_mode_" + mode + "_value_over_default", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{},"d_date":"2024-02-29","d_ts6":"2024-03-01 12:34:56.1234567"}`},
		},
	}
}

// timeModePayload: a timestamp(6) / datetime(6) column as the payload
// (JsonConverter with schemas: the value is the column's schema and
// value) and, under isostring, route.by.field on a date column (an
// io.debezium.time.IsoDate string: the topic ends in its text).
func timeModePayload(mode string) variant {
	er := map[string]string{
		"table.fields.additional.placement": "t_date:header",
		"route.topic.replacement":           "dt$R.tm" + mode + "r.${routedByValue}",
	}
	if mode == "isostring" {
		er["route.by.field"] = "t_date"
	}
	return variant{
		name: "time_mode_" + mode + "_payload_route",
		cols: append(replaceCol(defaultCols, col{name: "payload", pg: "timestamp(6)", maria: "datetime(6)"}), col{name: "t_date", pg: "date", maria: "date"}),
		er:   er,
		conn: map[string]string{
			"time.precision.mode": mode,
			"key.converter":       "org.apache.kafka.connect.storage.StringConverter", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
			"value.converter.schemas.enable": "true", "errors.tolerance": "all",
		},
		base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":"2024-01-01 00:00:00","t_date":"2024-01-01"}`,
		ops: []op{
			{name: "time_mode_" + mode + "_payload_value", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"2024-03-01 12:34:56.1234567","t_date":"2024-02-29"}`},
			{name: "time_mode_" + mode + "_payload_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":null,"t_date":"2024-02-29"}`},
		},
	}
}
