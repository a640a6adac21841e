package relay

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/outboxddl"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/spec"
)

// column is one column of the outbox table as the connector sees it.
type column struct {
	name     string
	sqlType  string // as eventrouter.ColumnSchema reads it
	nullable bool
	schema   *eventrouter.Schema
	// def is the DEFAULT expression as the catalog prints it ("" for none);
	// autoInc: MySQL/MariaDB AUTO_INCREMENT.
	def     string
	autoInc bool
	// text: read as text and converted by eventrouter.ColumnValue
	// (eventrouter.ColumnReadAsText)
	text bool
	// dbType: the type's catalog name, for an enum array ("_mood":
	// eventrouter.ColumnSettings.ConvertFailureAs), else ""
	dbType string
}

// table is the outbox table: where it is, its columns in table order and
// its primary key.
type table struct {
	kind   eventrouter.ConnectorKind
	schema string // PostgreSQL schema, or MySQL/MariaDB database
	name   string
	cols   []column
	pk     []string
	// cs are the connector's column settings (what a value the
	// connector's converter throws on becomes)
	cs eventrouter.ColumnSettings
}

// qualified is the table name as Debezium names it in the CDC topic.
func (t *table) qualified() string { return t.schema + "." + t.name }

func (t *table) pg() bool { return t.kind == eventrouter.Postgres }

// quote quotes an identifier for the table's dialect.
func (t *table) quote(id string) string {
	if t.pg() {
		return sqlident.Quote(spec.Postgres, id)
	}
	return sqlident.Quote(spec.MySQL, id)
}

func (t *table) from() string { return t.quote(t.schema) + "." + t.quote(t.name) }

func (t *table) placeholder(i int) string {
	if t.pg() {
		return "$" + strconv.Itoa(i)
	}
	return "?"
}

func (t *table) col(name string) *column {
	for i := range t.cols {
		if t.cols[i].name == name {
			return &t.cols[i]
		}
	}
	return nil
}

// keyColumns are the indexes of the primary key's columns among the
// table's columns, in table order.
func (t *table) keyColumns() []int {
	var idx []int
	for i, c := range t.cols {
		if slices.Contains(t.pk, c.name) {
			idx = append(idx, i)
		}
	}
	return idx
}

// tableOf reads table.include.list: the relay publishes one table, named
// literally (the generated config quotes it with regexp.QuoteMeta).
func tableOf(conf map[string]string) (schema, name string, err error) {
	list := strings.TrimSpace(conf["table.include.list"])
	if list == "" {
		return "", "", configErr(nil, "table.include.list is not set: the relay needs the outbox table")
	}
	if strings.Contains(list, ",") {
		return "", "", configErr(nil, "table.include.list=%q names several tables: the relay publishes one outbox table", list)
	}
	var b strings.Builder
	dot := -1
	for i := 0; i < len(list); i++ {
		c := list[i]
		switch {
		case c == '\\' && i+1 < len(list):
			i++
			if list[i] == '.' && dot < 0 {
				dot = b.Len()
			}
			b.WriteByte(list[i])
		case c == '.':
			if dot < 0 {
				dot = b.Len()
			}
			b.WriteByte('.')
		case strings.IndexByte("*+?()[]{}|^$", c) >= 0:
			return "", "", configErr(nil, "table.include.list=%q is a pattern: the relay needs one table named literally", list)
		default:
			b.WriteByte(c)
		}
	}
	s := b.String()
	if dot < 0 {
		return "", "", configErr(nil, "table.include.list=%q: want schema.table (PostgreSQL) or database.table", list)
	}
	return s[:dot], s[dot+1:], nil
}

// loadTable reads the table's columns and primary key from the catalog.
//
// booleans are Options.BooleanColumns: tinyint(1) columns read as the
// connector's binlog-DDL BOOLEAN (eventrouter's "boolean").
func loadTable(ctx context.Context, db *sql.DB, kind eventrouter.ConnectorKind, cs eventrouter.ColumnSettings, schema, name string, booleans, jsons []string) (*table, error) {
	t := &table{kind: kind, schema: schema, name: name}
	var raws []rawColumn
	switch kind {
	case eventrouter.Postgres:
		rows, err := db.QueryContext(ctx, `
SELECT a.attname, CASE WHEN ty.typtype = 'c' THEN 'composite'
  WHEN ty.typcategory = 'A' AND (SELECT e.typtype FROM pg_type e WHERE e.oid = ty.typelem) = 'c' THEN 'composite[]'
  ELSE ty.typname END, bt.typmod,
  NOT (a.attnotnull OR dt.typtype = 'd' AND dt.typnotnull), pg_get_expr(d.adbin, d.adrelid), format_type(bt.oid, bt.typmod),
  (SELECT array_to_json(array_agg(e.enumlabel ORDER BY e.enumsortorder))::text FROM pg_enum e
   WHERE e.enumtypid = CASE WHEN ty.typcategory = 'A' THEN ty.typelem ELSE ty.oid END),
  dt.typtype = 'd'
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type dt ON dt.oid = a.atttypid
-- a domain (CREATE DOMAIN), also over another domain: its base type and
-- typmod (pg_type.typbasetype, typtypmod), as the connector resolves it;
-- a domain's NOT NULL makes the connector's field required
JOIN LATERAL (
  WITH RECURSIVE b(oid, typmod, lvl) AS (
    SELECT a.atttypid, a.atttypmod, 0
    UNION ALL
    SELECT t.typbasetype, t.typtypmod, b.lvl + 1 FROM b JOIN pg_type t ON t.oid = b.oid WHERE t.typtype = 'd')
  SELECT oid, typmod FROM b ORDER BY lvl DESC LIMIT 1) bt ON true
JOIN pg_type ty ON ty.oid = bt.oid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r','p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`, schema, name)
		if err != nil {
			return nil, fmt.Errorf("%w: read columns of %s.%s: %v", ErrDatabase, schema, name, err)
		}
		for rows.Next() {
			var r rawColumn
			var mod int
			var def sql.NullString
			var formatted string
			var enumLabels sql.NullString
			var domain bool
			if err := rows.Scan(&r.name, &r.typ, &mod, &r.nullable, &def, &formatted, &enumLabels, &domain); err != nil {
				rows.Close()
				return nil, fmt.Errorf("%w: %v", ErrDatabase, err)
			}
			if enumLabels.Valid {
				// a CREATE TYPE … AS ENUM type: eventrouter's
				// enum('a','b'), labels in enumsortorder; an array of
				// one (pg_type's _name): enum('a','b')[]
				var labels []string
				if err := json.Unmarshal([]byte(enumLabels.String), &labels); err != nil {
					rows.Close()
					return nil, fmt.Errorf("%w: enum labels of column %s: %v", ErrDatabase, r.name, err)
				}
				array := strings.HasPrefix(r.typ, "_")
				if array && formatted == r.typ[1:]+"[]" {
					// the array type's catalog name (_mood; its enum
					// is visible on the search path, its name needs no
					// quotes), which the connector's failure message
					// names (eventrouter.ColumnSettings.ConvertFailureAs)
					r.dbType = r.typ
				}
				r.typ = eventrouter.PgEnumType(labels)
				if array {
					r.typ += "[]"
				}
			}
			switch r.typ {
			case "bpchar", "varchar":
				if mod >= 4 {
					r.typ += fmt.Sprintf("(%d)", mod-4)
				}
			case "timestamp", "timestamptz", "time", "timetz", "bit", "varbit":
				if mod >= 0 {
					r.typ += fmt.Sprintf("(%d)", mod)
				}
			case "char":
				// pg_type's char (OID 18) is the one-byte "char", not
				// character(1) (bpchar): eventrouter.PgCharType
				r.typ = eventrouter.PgCharType
			case "interval":
				// as declared: interval(3), interval day to second(3)
				// (eventrouter models the fields and the precision)
				r.typ = formatted
			default:
				if strings.HasPrefix(r.typ, "_") {
					// an array (pg_type's _int4): as format_type prints
					// it, integer[], character varying(10)[]
					r.typ = formatted
				}
			case "numeric":
				if mod >= 4 { // ((precision << 16) | scale) + 4
					r.typ += fmt.Sprintf("(%d,%d)", (mod-4)>>16&0xffff, (mod-4)&0xffff)
				}
			}
			r.def, r.hasDef = def.String, def.Valid
			if domain {
				// the connector's default value converter looks the
				// column up by its type name, the domain's, and has
				// none: a domain column's DEFAULT is not in its schema
				// (seen on the stack; eventrouter.ColumnDefault)
				r.def, r.hasDef = "", false
			}
			raws = append(raws, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDatabase, err)
		}
		krows, err := db.QueryContext(ctx, `
SELECT a.attname FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE n.nspname = $1 AND c.relname = $2 AND i.indisprimary
ORDER BY k.ord`, schema, name)
		if err != nil {
			return nil, fmt.Errorf("%w: read primary key of %s.%s: %v", ErrDatabase, schema, name, err)
		}
		for krows.Next() {
			var k string
			if err := krows.Scan(&k); err != nil {
				krows.Close()
				return nil, fmt.Errorf("%w: %v", ErrDatabase, err)
			}
			t.pk = append(t.pk, k)
		}
		krows.Close()
	default:
		rows, err := db.QueryContext(ctx, `
SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES', COLUMN_DEFAULT, COLUMN_KEY = 'PRI', EXTRA LIKE '%auto_increment%'
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
ORDER BY ORDINAL_POSITION`, schema, name)
		if err != nil {
			return nil, fmt.Errorf("%w: read columns of %s.%s: %v", ErrDatabase, schema, name, err)
		}
		for rows.Next() {
			var r rawColumn
			var def sql.NullString
			var pri bool
			if err := rows.Scan(&r.name, &r.typ, &r.nullable, &def, &pri, &r.autoInc); err != nil {
				rows.Close()
				return nil, fmt.Errorf("%w: %v", ErrDatabase, err)
			}
			r.def, r.hasDef = def.String, def.Valid
			if pri {
				t.pk = append(t.pk, r.name)
			}
			raws = append(raws, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDatabase, err)
		}
	}
	if len(raws) == 0 {
		return nil, configErr(nil, "outbox table %s.%s does not exist (or has no columns)", schema, name)
	}
	if err := booleanColumns(t, raws, booleans); err != nil {
		return nil, err
	}
	if err := jsonColumns(t, raws, jsons); err != nil {
		return nil, err
	}
	if err := t.setColumns(raws, cs); err != nil {
		return nil, err
	}
	return t, nil
}

// jsonColumns gives the MariaDB longtext columns named in jsons the type
// eventrouter.MariaDBBinlogJSON (a JSON column the connector learnt from
// the binlog's CREATE TABLE: io.debezium.data.Json, Options.JSONColumns).
func jsonColumns(t *table, raws []rawColumn, jsons []string) error {
	if len(jsons) > 0 && t.kind != eventrouter.MariaDB {
		return configErr(nil, "json columns %s: the option is for MariaDB JSON (longtext) columns the connector learnt as JSON from the binlog; PostgreSQL and MySQL have a JSON type", strings.Join(jsons, ","))
	}
	for _, j := range jsons {
		found := false
		for i := range raws {
			if !strings.EqualFold(raws[i].name, strings.TrimSpace(j)) {
				continue
			}
			found = true
			if typ := strings.ToLower(strings.TrimSpace(raws[i].typ)); typ != "longtext" {
				return configErr(nil, "json column %s of outbox table %s is %s: only a longtext column (MariaDB JSON) can be one", raws[i].name, t.qualified(), raws[i].typ)
			}
			raws[i].typ = eventrouter.MariaDBBinlogJSON
		}
		if !found {
			return configErr(nil, "json column %s: outbox table %s has no such column", j, t.qualified())
		}
	}
	return nil
}

// booleanColumns gives the tinyint(1) columns named in booleans the type
// "boolean" (the connector's binlog-DDL BOOLEAN, Options.BooleanColumns).
func booleanColumns(t *table, raws []rawColumn, booleans []string) error {
	if len(booleans) > 0 && t.pg() {
		return configErr(nil, "boolean columns %s: PostgreSQL has a boolean type; the option is for MySQL/MariaDB tinyint(1) columns the connector learnt as BOOLEAN from the binlog", strings.Join(booleans, ","))
	}
	for _, b := range booleans {
		found := false
		for i := range raws {
			if !strings.EqualFold(raws[i].name, strings.TrimSpace(b)) {
				continue
			}
			found = true
			if typ := strings.ToLower(strings.TrimSpace(raws[i].typ)); typ != "tinyint(1)" {
				return configErr(nil, "boolean column %s of outbox table %s is %s: only a tinyint(1) column (BOOLEAN) can be one", raws[i].name, t.qualified(), raws[i].typ)
			}
			raws[i].typ = "boolean"
		}
		if !found {
			return configErr(nil, "boolean column %s: outbox table %s has no such column", b, t.qualified())
		}
	}
	return nil
}

// rawColumn is a column as the catalog describes it.
type rawColumn struct {
	name, typ, def            string
	dbType                    string // the catalog's type name where the model needs it (column.dbType)
	nullable, hasDef, autoInc bool
}

// setColumns maps the catalog's columns to the schemas the connector gives
// them (eventrouter.ColumnSchema, the list route preview uses too). A column
// of a type it does not model is an ErrConfig naming the column and its
// type, and so is a column whose value a connector setting (cs) changes
// in a way the emulator does not model: the relay refuses to start rather
// than guess its value.
func (t *table) setColumns(raws []rawColumn, cs eventrouter.ColumnSettings) error {
	t.cs = cs
	for _, r := range raws {
		if eventrouter.NotCapturable(t.kind, r.typ) {
			// the connector fails on the table's DDL: nothing to relay
			// in its stead
			return configErr(&eventrouter.NotCapturableError{Column: r.name, Type: r.typ}, "outbox table %s", t.qualified())
		}
		s, dropped, err := eventrouter.ResolveColumn(t.kind, r.name, r.typ, r.nullable, cs)
		if err != nil {
			var se *eventrouter.SettingError
			if errors.As(err, &se) {
				return configErr(se, "outbox table %s", t.qualified())
			}
			return configErr(err, "column %s", r.name)
		}
		if dropped {
			// the connector leaves it out of its records (an array
			// without a schema, a PostgreSQL box, line, ...): not read,
			// not published
			continue
		}
		if r.hasDef {
			d, err := eventrouter.CatalogColumnDefault(t.kind, r.typ, s, r.def)
			if err != nil {
				return configErr(err, "column %s DEFAULT %s", r.name, r.def)
			}
			s.Default = d
		}
		t.cols = append(t.cols, column{name: r.name, sqlType: r.typ, nullable: r.nullable, schema: s, def: r.def, autoInc: r.autoInc, text: eventrouter.ColumnReadAsText(t.kind, r.typ), dbType: r.dbType})
	}
	return nil
}

// dbOrder reports whether the table has the database-assigned publish
// order (spec.RelayTxColumn, spec.RelaySeqColumn as outboxddl creates them):
// on PostgreSQL a NOT NULL bigint relay_tx defaulting to txid_current() and
// a NOT NULL bigint relay_seq from a sequence; on MySQL/MariaDB a NOT NULL
// AUTO_INCREMENT relay_seq. Else it returns the ALTER TABLE that adds them.
func (t *table) dbOrder() (bool, string) {
	isInt8 := func(c *column) bool {
		return c != nil && !c.nullable && (c.sqlType == "int8" || strings.HasPrefix(strings.ToLower(c.sqlType), "bigint"))
	}
	tx, seq := t.col(spec.RelayTxColumn), t.col(spec.RelaySeqColumn)
	if t.pg() {
		if isInt8(tx) && strings.EqualFold(strings.TrimSpace(tx.def), "txid_current()") &&
			isInt8(seq) && strings.HasPrefix(seq.def, "nextval(") {
			return true, ""
		}
		cols := outboxddl.OrderColumns(spec.Postgres)
		return false, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s, ADD COLUMN %s; CREATE INDEX ON %s (%s, %s)",
			t.from(), cols[0], cols[1], t.from(), t.quote(spec.RelayTxColumn), t.quote(spec.RelaySeqColumn))
	}
	if isInt8(seq) && seq.autoInc {
		return true, ""
	}
	return false, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s, ADD KEY (%s)", t.from(), outboxddl.OrderColumns(spec.MySQL)[0], t.quote(spec.RelaySeqColumn))
}

// selectExpr is the SELECT expression of a column: text for the types
// whose Debezium value is their text (uuid, json, jsonb, wall-clock times),
// epoch seconds for MySQL/MariaDB TIMESTAMP.
func (t *table) selectExpr(c column) string {
	q := t.quote(c.name)
	s := c.schema
	switch {
	case s.BinaryMode() != "":
		// the stored bytes, encoded as binary.handling.mode says
		// (eventrouter.EncodeBinary)
		return q
	case s.Name == eventrouter.NameZonedTimestamp && !t.pg():
		return "UNIX_TIMESTAMP(" + q + ")"
	case s.Name == eventrouter.NameZonedTimestamp:
		return "to_char(" + q + " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US')"
	case !t.pg() && c.sqlType == "boolean":
		// a tinyint(1) the connector delivers as a boolean
		// (Options.BooleanColumns): any non-zero value is true
		return "(" + q + " <> 0)"
	case !t.pg() && strings.HasPrefix(strings.ToLower(strings.TrimSpace(c.sqlType)), "bit"):
		return "CAST(" + q + " AS UNSIGNED)"
	case t.pg() && c.sqlType == "money":
		// locale-free (the text form follows lc_monetary)
		return q + "::numeric::text"
	case t.pg() && s.Name == eventrouter.NameXML:
		// xml_out drops the XML declaration as pgoutput's text does;
		// ::text would keep it
		return q
	case t.pg() && (s.Name == eventrouter.NameMicroDuration || s.Name == eventrouter.NameInterval):
		// the stored months, days and microseconds, whatever the
		// session's IntervalStyle (::text under sql_standard prints
		// -3 4:05:06 for -3 days -04:05:06, which eventrouter reads,
		// as interval_in does under the default style, as -3 days
		// +04:05:06); eventrouter reads "14 mons 3 days 14706500000
		// microseconds" as PostgreSQL would
		// (no per cent sign in it: the query is built with fmt; NULL stays NULL)
		return "((extract(year from " + q + ")*12 + extract(month from " + q + "))::text || ' mons ' || extract(day from " + q +
			")::text || ' days ' || ((extract(hour from " + q + ")*60 + extract(minute from " + q + "))*60000000 + extract(microseconds from " + q + "))::text || ' microseconds')"
	case c.text:
		// the stored value as text, whatever the connector's settings make
		// of it (eventrouter.ColumnValue)
		if t.pg() {
			return q + "::text"
		}
		return "CAST(" + q + " AS CHAR)"
	case t.pg() && (s.Type == eventrouter.String || s.Name != ""):
		if strings.HasPrefix(c.sqlType, "bpchar") {
			return q // ::text would strip the blank padding
		}
		return q + "::text"
	}
	return q
}

// scanDest returns a fresh scan destination for a column.
func scanDest(c column) any {
	if c.text {
		return new(sql.NullString)
	}
	if c.schema.BinaryMode() != "" {
		return new([]byte)
	}
	if c.schema.Name == eventrouter.NameDecimal {
		// a BIGINT UNSIGNED under bigint.unsigned.handling.mode=precise:
		// the text, eventrouter.ColumnValue gives the Decimal
		return new(sql.NullString)
	}
	switch c.schema.Type {
	case eventrouter.Bytes, eventrouter.StructT:
		// a MySQL / MariaDB spatial column: its stored form, the SRID
		// and the WKB (eventrouter.BinlogGeometryValue)
		return new([]byte)
	case eventrouter.Boolean:
		return new(sql.NullBool)
	case eventrouter.Float32, eventrouter.Float64:
		return new(sql.NullFloat64)
	case eventrouter.Int8, eventrouter.Int16, eventrouter.Int32, eventrouter.Int64:
		if c.schema.Name == "" && !unsignedBigint(c) {
			return new(sql.NullInt64)
		}
	}
	return new(sql.NullString)
}

// unsignedBigint reports a MySQL / MariaDB BIGINT UNSIGNED column: its
// values above 2^63-1 do not scan into an int64, so it is read as text and
// eventrouter.ColumnValue gives the signed long the connector delivers.
func unsignedBigint(c column) bool {
	low := strings.ToLower(c.sqlType)
	return c.schema.Type == eventrouter.Int64 && strings.HasPrefix(low, "bigint") && strings.Contains(low, "unsigned")
}

// connectValue converts a scanned column into the value the connector
// delivers (eventrouter.ColumnValue does the logical types).
func (t *table) connectValue(c column, dest any) (any, error) {
	s := c.schema
	switch d := dest.(type) {
	case *[]byte:
		if *d == nil {
			return nil, nil
		}
		if s.Type == eventrouter.StructT {
			v, err := eventrouter.BinlogGeometryValue(c.sqlType, s, *d)
			if err != nil {
				return nil, fmt.Errorf("%w: column %s: %v", ErrDatabase, c.name, err)
			}
			return v, nil
		}
		return eventrouter.EncodeBinary(s, append([]byte{}, *d...)), nil
	case *sql.NullBool:
		if !d.Valid {
			return nil, nil
		}
		return d.Bool, nil
	case *sql.NullFloat64:
		if !d.Valid {
			return nil, nil
		}
		if s.Type == eventrouter.Float32 {
			return float32(d.Float64), nil
		}
		return d.Float64, nil
	case *sql.NullInt64:
		if !d.Valid {
			return nil, nil
		}
		switch s.Type {
		case eventrouter.Int8:
			return int8(d.Int64), nil
		case eventrouter.Int16:
			return int16(d.Int64), nil
		case eventrouter.Int32:
			return int32(d.Int64), nil
		}
		return d.Int64, nil
	case *sql.NullString:
		if !d.Valid {
			return nil, nil
		}
		v := d.String
		if s.Name == eventrouter.NameZonedTimestamp {
			// the stored instant as UTC wall-clock text; ColumnValue gives
			// Debezium's form (fraction digits per the column's precision),
			// the one route preview gives
			var err error
			if v, err = zonedText(t.pg(), v); err != nil {
				return nil, err
			}
		} else if s.Type == eventrouter.String && !c.text && !eventrouter.IsModeSchema(s) {
			return v, nil
		}
		raw, _ := json.Marshal(v)
		val, err := eventrouter.ColumnValueWith(t.kind, c.sqlType, s, raw, t.cs)
		if err != nil {
			// a NaN / Infinity numeric under decimal.handling.mode=precise
			val, err = t.cs.ConvertFailureAs(t.qualified(), c.name, c.sqlType, c.dbType, s, err)
			var se *eventrouter.SettingError
			if errors.As(err, &se) {
				return nil, configErr(se, "outbox table %s", t.qualified())
			}
			var te *eventrouter.TaskError
			if errors.As(err, &te) {
				// event.converting.failure.handling.mode=fail: the task
				// fails on this row (Relay.route stops on it)
				return nil, te
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%w: column %s: %v", ErrDatabase, c.name, err)
		}
		return val, nil
	}
	return nil, fmt.Errorf("%w: column %s: unexpected scan type %T", ErrDatabase, c.name, dest)
}

// zonedText turns what selectExpr reads for a timestamptz / TIMESTAMP
// column into UTC wall-clock text: PostgreSQL gives it (to_char, UTC),
// MySQL/MariaDB give epoch seconds with the column's fraction digits.
func zonedText(pg bool, v string) (string, error) {
	if pg {
		return v, nil
	}
	sec, frac, _ := strings.Cut(v, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return "", fmt.Errorf("%w: timestamp %q: %v", ErrDatabase, v, err)
	}
	ns := int64(0)
	if frac != "" {
		f := (frac + "000000000")[:9]
		ns, _ = strconv.ParseInt(f, 10, 64)
	}
	return time.Unix(s, ns).UTC().Format("2006-01-02 15:04:05.999999999"), nil
}

// keyText renders primary key values for messages and for the DELETE.
func keyText(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case []byte:
			parts[i] = "0x" + hex.EncodeToString(x)
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return strings.Join(parts, ",")
}

// rawExpr selects a column as the database gives it back in a WHERE clause
// (PostgreSQL: its text form, which a text parameter parses back exactly;
// MySQL/MariaDB: the column).
func (t *table) rawExpr(name string) string {
	if t.pg() {
		return t.quote(name) + "::text"
	}
	return t.quote(name)
}
