//go:build integration

package eventrouter_test

// #31: UUID text in the forms each database reads, not only its output
// form: the connector delivers the stored value, which the emulator must
// derive from the input (eventrouter's pgUUID and mariaDBUUIDValue).
func init() { variantSets = append(variantSets, uuidInputVariants) }

func uuidInputVariants() []variant {
	return []variant{
		{
			// PostgreSQL's uuid_in: upper case, braces, no hyphens, a
			// hyphen after any group of four digits; key (StringConverter),
			// header and envelope (JsonConverter with schemas); on MariaDB
			// the column is text
			name: "pg_uuid_input_forms",
			cols: withCols(col{name: "t_u", pg: "uuid", maria: "varchar(64)"}),
			er: map[string]string{
				"table.field.event.key":             "t_u",
				"table.fields.additional.placement": "t_u:header,t_u:envelope:u",
				"route.topic.replacement":           "dt$R.uuidin.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"t_u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}`,
			ops: []op{
				{name: "pg_uuid_upper", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"t_u":"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"}`},
				{name: "pg_uuid_braces", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"t_u":"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}"}`},
				{name: "pg_uuid_no_hyphens", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"t_u":"a0eebc999c0b4ef8bb6d6bb9bd380a11"}`},
				{name: "pg_uuid_groups_of_four", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"t_u":"a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"}`},
				{name: "pg_uuid_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":{"i":5},"t_u":null}`},
			},
		},
		{
			// MariaDB's UUID input: hyphens anywhere between digits, several
			// in a row, upper case; streamed (a UUID ending in zero bytes
			// shifts, see more_maria_uuid); on PostgreSQL the column is text
			name: "maria_uuid_input_forms",
			cols: withCols(col{name: "m_u", pg: "text", maria: "uuid"}),
			er: map[string]string{
				"table.field.event.key":             "m_u",
				"table.fields.additional.placement": "m_u:header,m_u:envelope:u",
				"route.topic.replacement":           "dt$R.muuidin.${routedByValue}",
			},
			conn: stringKeyJSON(true),
			base: `{"id":"$ID","aggregatetype":"Sentinel","aggregateid":"s","type":"Ping","payload":{},"m_u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}`,
			ops: []op{
				{name: "maria_uuid_odd_hyphens", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"1","type":"T","payload":{"i":1},"m_u":"a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}`},
				{name: "maria_uuid_hyphen_after_one", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"2","type":"T","payload":{"i":2},"m_u":"a-0eebc999c0b4ef8bb6d6bb9bd380a11"}`},
				{name: "maria_uuid_hyphen_runs", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"3","type":"T","payload":{"i":3},"m_u":"A0EEBC99---9C0B-4EF8-BB6D-6BB9BD380A11"}`},
				{name: "maria_uuid_trailing_zero_hyphens", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"4","type":"T","payload":{"i":4},"m_u":"123e4567e89b12d3a4564266141740-00"}`},
				{name: "maria_uuid_null", kind: "insert", row: `{"id":"$ID","aggregatetype":"Order","aggregateid":"5","type":"T","payload":{"i":5},"m_u":null}`},
			},
		},
	}
}
