package spec

// Column roles of the outbox table contract.
const (
	RoleID            = "id"
	RoleAggregateType = "aggregateType"
	RoleAggregateID   = "aggregateId"
	RoleType          = "type"
	RolePayload       = "payload"
	RoleTimestamp     = "timestamp"
	RoleTracing       = "tracing"
	RoleSchemaVersion = "schemaVersion"
)

// Column is one column of the outbox table contract.
type Column struct {
	// Role is what the column means to the EventRouter (RoleID, …).
	Role string `json:"role"`
	// Name is the column name in the table.
	Name string `json:"name"`
	// SQLType is the column type in the outbox's SQL dialect.
	SQLType string `json:"sqlType"`
	// Nullable says whether the writer may leave it NULL.
	Nullable bool `json:"nullable"`
}

// ColumnContract is THE definition of the outbox table: the columns, in
// table order, with their SQL types for the outbox's database kind and
// payload format. Provisioning builds its DDL from it, the outbox writer
// its INSERT, and the generated connector config the EventRouter's column
// options. Optional columns that are off (timestamp, tracing, schema
// version) are left out.
//
// Types:
//
//	role           postgres        mysql / mariadb
//	id             uuid            varchar(36)
//	aggregateType  varchar(255)    varchar(255)
//	aggregateId    varchar(255)    varchar(255)
//	type           varchar(255)    varchar(255)
//	payload avro   bytea           longblob
//	payload json   jsonb           json (mysql) / longtext (mariadb)
//	timestamp      timestamp(6)    datetime(6)
//	tracing        varchar(512)    varchar(512)
//	schemaVersion  integer         int
//
// The timestamp column must map to a Debezium Timestamp/MicroTimestamp
// (timestamptz and MySQL TIMESTAMP do not work with the EventRouter). The
// payload types match the converters the generator picks: bytes for avro
// (ByteArrayConverter passes them through), text for json
// (StringConverter writes the JSON text as is).
func (o *Outbox) ColumnContract() []Column {
	pg := o.Database.Kind == Postgres
	t := func(pgType, myType string) string {
		if pg {
			return pgType
		}
		return myType
	}
	c := o.Columns
	cols := []Column{
		{Role: RoleID, Name: c.ID, SQLType: t("uuid", "varchar(36)")},
		{Role: RoleAggregateType, Name: c.AggregateType, SQLType: "varchar(255)"},
		{Role: RoleAggregateID, Name: c.AggregateID, SQLType: "varchar(255)"},
		{Role: RoleType, Name: c.Type, SQLType: "varchar(255)"},
		{Role: RolePayload, Name: c.Payload, SQLType: PayloadSQLType(o.Database.Kind, o.PayloadFormat), Nullable: true},
	}
	if c.PayloadType != "" {
		cols[4].SQLType = c.PayloadType
	}
	if c.Timestamp != "" {
		cols = append(cols, Column{Role: RoleTimestamp, Name: c.Timestamp, SQLType: t("timestamp(6)", "datetime(6)")})
	}
	if c.Tracing != "" {
		cols = append(cols, Column{Role: RoleTracing, Name: c.Tracing, SQLType: "varchar(512)", Nullable: true})
	}
	if v := c.SchemaVersionColumn(); v != "" {
		cols = append(cols, Column{Role: RoleSchemaVersion, Name: v, SQLType: t("integer", "int")})
	}
	return cols
}

// PayloadSQLType is the default payload column type for a database kind and
// payload format.
func PayloadSQLType(kind, format string) string {
	switch {
	case format == FormatJSON && kind == Postgres:
		return "jsonb"
	case format == FormatJSON && kind == MySQL:
		return "json"
	case format == FormatJSON:
		return "longtext"
	case kind == Postgres:
		return "bytea"
	default:
		return "longblob"
	}
}
