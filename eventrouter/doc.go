// Package eventrouter is an exact emulator of Debezium 3.6.1's outbox
// EventRouter SMT (io.debezium.transforms.outbox.EventRouter) plus the Kafka
// Connect converters that serialize its output. For a sample outbox row and
// a connector config it computes the record that lands in Kafka: topic,
// partition, key bytes, headers in order, value bytes (nil for a tombstone)
// and timestamp; or that the event is dropped; or the error the real task
// fails with. It is the one place where EventRouter semantics live: the
// route preview command, the consumer test kit and the polling relay build
// on it.
//
// Start with three things:
//
//   - ParseConfig reads a connector config map (transforms.<alias>.*,
//     key.converter, value.converter, header.converter, errors.tolerance,
//     topic.prefix, extended.headers.enabled) into a Config, with the
//     EventRouter's defaults and the validation it runs when the task starts.
//     ParseConfigWithWorker takes the worker's converter settings too.
//   - ChangeEvent is what the connector hands to the SMT: the op and the row
//     image as columns with their Connect schemas. ColumnSchema maps SQL
//     column types to the schemas the PostgreSQL, MySQL and MariaDB
//     connectors build, for exactly the types ModelledColumnTypes lists;
//     any other type is a *ColumnTypeError (ErrUnsupported), never a
//     guess. SampleRow (ParseSampleRow) is the JSON sample
//     row format of `outboxctl route preview`; ParseSampleRowFile,
//     ParseConnectorConfig and ParseProperties parse its input files
//     (sample row, connector config, worker properties) with messages
//     for people, and (*SampleRow).ApplyContract types a sample's columns
//     from a spec outbox's table contract.
//   - Route (or a Router, which keeps the per-task schema caches across
//     events) returns a Result: Dropped with a Reason, PassThrough, or a
//     Record. An error that unwraps to ErrTaskFailed is a *TaskError naming
//     the Java exception, its message and the pipeline stage.
//
// What the emulation covers (checked against the Debezium and Kafka
// sources, pinned by the golden cases of TestRoute in eventrouter_test.go,
// testdata/TestRoute, and, by the integration test in this package, against
// the real connectors): the filter stage (tombstones, non-envelope
// records, deletes, updates under table.op.invalid.behavior), the event id
// header, additional field placements (header, envelope, partition, with
// aliases, table.field.additional.missing), JSON payload expansion with
// Jackson's number rules and the schema-replaced-but-value-not quirk, the
// envelope value schema name and its caches, route.tombstone.on.empty.payload,
// the record key, route.by.field with Kafka's RegexRouter (Java regex
// translated to RE2, Java replacement syntax), the timestamp column, the
// __debezium.context.* headers, errors.tolerance, a TopicNameMatches
// predicate, the topic name the producer needs (Kafka's Topic.validate:
// an invalid routed name fails the task with InvalidTopicException, which
// errors.tolerance=all skips in the producer callback); and JsonConverter (schemas on and off, byte-exact: field order,
// Java number formatting, base64 bytes, Jackson string escaping),
// StringConverter, ByteArrayConverter, BinaryDataConverter and
// SimpleHeaderConverter.
//
// Facts the integration test (differential_integration_test.go: the same
// connector configs and rows through this package and through the real
// connectors, on PostgreSQL with Debezium 3.6.1 and on MariaDB with the
// Debezium 3.5.0 MariaDB plugin) pinned down, beyond what the sources
// say:
//
//   - The MariaDB 3.5.0 connector plugin ships its own 3.5 EventRouter:
//     table.field.additional.missing does not exist there,
//     table.fields.additional.error.on.missing (default true) decides, and
//     an envelope placement of a missing column is a NullPointerException.
//     Use ParseOptions{EventRouterVersion: Version35} for it.
//   - MariaDB JSON columns (LONGTEXT) arrive as a plain optional string,
//     text as inserted, when the connector read the table's schema from
//     SHOW CREATE TABLE (it existed when the connector started); from a
//     CREATE TABLE in the binlog they are string io.debezium.data.Json,
//     which is not modelled. MariaDB BOOLEAN (tinyint(1)) is int16 from
//     SHOW CREATE TABLE (give "tinyint(1)") and boolean from a CREATE
//     TABLE ... BOOLEAN in the binlog (give "boolean"); the relay reads
//     the catalog's tinyint(1). PostgreSQL json keeps the text, jsonb is
//     normalized (NormalizeJSONB); PostgreSQL char(n) is blank-padded,
//     MariaDB char(n) is not; column defaults are in the schema on both.
//   - A NULL in a column with a DEFAULT reaches the payload, id, key and
//     header and envelope placements as the schema default Debezium
//     derived (Connect's Struct.get); the typed getters (route.by.field,
//     schema version, partition, timestamp) see the NULL. The default is
//     not always the SQL one: PostgreSQL function defaults (now(),
//     gen_random_uuid(), nextval) become placeholders ("", "{}", 0, false,
//     the epoch, the nil UUID), a quote cuts a PostgreSQL literal short,
//     char(n) defaults are not padded, MariaDB keeps doubled quotes and
//     backslashes, bytea and computed MariaDB defaults give none, and a
//     MariaDB binary/blob DEFAULT is SHOW CREATE TABLE's escaped text as
//     UTF-8 bytes (binary(n) padding printed \0, two bytes each;
//     binlogBinaryDefault; other than printable ASCII refused)
//     (ColumnDefault; a sample row gives a column's DEFAULT in "columns").
//     A fixed-point DEFAULT is the constant set to the column's scale:
//     on PostgreSQL without rounding (DEFAULT 1.555 on numeric(10,2) and
//     'NaN' give none; a function call is 0.0; the unconstrained numeric
//     under precise gets none: its Struct is dropped), on MariaDB half up
//     as the database stores it (decimalDefault).
//   - Kafka 4 brokers reject record timestamps more than an hour in the
//     future (log.message.timestamp.after.max.ms); with errors.tolerance=all
//     the record and the records batched with it are lost silently, with
//     none the producer callback fails the task. Route has no clock and
//     does not flag it; CheckTimestamp does (the preview command uses it).
//   - errors.tolerance=all also skips the IllegalStateException of
//     table.op.invalid.behavior=fatal.
//   - table.field.event.key cannot be switched off in 3.6: an absent column
//     fails the record, a NULL value gives a null key (a Kafka null with
//     StringConverter).
//   - An explicitly empty table.field.event.timestamp names the column ""
//     (the record fails), it does not mean "unset".
//   - No tracing headers without an OpenTelemetry SDK on the worker, even
//     with a tracing span context column.
//
// What it deliberately does not do: run other transforms of the chain,
// serialize a passed-through Debezium envelope, emulate Avro or Protobuf
// converters, or produce tracing headers (they need an OpenTelemetry SDK on
// the Connect worker; without one the EventRouter adds none). The
// __debezium.context.runId header is random per task start; unless
// ChangeEvent.RunID is set it is a placeholder marked Volatile. A Java
// identity hash in the text a StringConverter writes (Struct.toString of a
// byte[] field: [B@6b2c16d6) is arbitrary per JVM run: it is written as
// PlaceholderIdentityHash, its byte offsets in Record.KeyHashes,
// Record.ValueHashes and Header.Hashes; MatchIdentityHashes compares such
// bytes with the real ones (the text around the hash exactly), and
// FillIdentityHashes is how the relay publishes them (arbitrary digits).
//
// # Column types per placement
//
// ColumnSchema and ColumnValue model the columns as the connectors' value
// converters deliver them (PostgresValueConverter, BinlogValueConverters,
// the MariaDB DDL parser's types), under the default time.precision.mode
// (and connect, below; microseconds, nanoseconds)
// (ColumnSettings.Check refuses a column another value would change),
// every bigint.unsigned.handling.mode, every binary.handling.mode and every
// decimal.handling.mode (ColumnSchemaWith):
//
//	SQL type (PostgreSQL | MySQL, MariaDB)        Connect schema                   value delivered
//	uuid | -                                      string io.debezium.data.Uuid     lower-case 8-4-4-4-12
//	json, jsonb | json                            string (Json on PG and MySQL)    json: text; jsonb, MySQL: normalized
//	text, varchar, char(n) | char, varchar, *text string                           PG char(n) blank-padded
//	"char" (OID 18) | -                           string                           one byte: "" for '', the first byte, \ooo
//	                                                                               for a byte >= 0x80 (é: \303); not padded
//	bytea | binary(n), varbinary, *blob           bytes                            binary(n): 0x00-padded to n
//	  binary.handling.mode=base64, base64-url-safe, string (plain)                 java.util.Base64 (url: - _), '=' padded;
//	  hex                                                                          hex: lower case; "" is a tombstone under
//	                                                                               route.tombstone.on.empty.payload
//	int2 | tinyint, smallint                      int16
//	int4 | mediumint, int; smallint unsigned,
//	       mediumint unsigned                     int32
//	int8 | bigint; int unsigned, bigint unsigned  int64                            bigint unsigned: signed long (wraps)
//	- | bigint unsigned [zerofill], bigint.unsigned.handling.mode=precise
//	                                              bytes Decimal scale 0, precision 20  the unsigned value (any decimal mode)
//	- | tinyint unsigned                          int16
//	bool | bool, boolean                          boolean
//	float4, float8 | float, double                float, double
//	timestamp(0-3) | datetime, datetime(0-3)      int64 io.debezium.time.Timestamp      ms; PG rounds, MySQL/MariaDB truncate
//	timestamp, timestamp(4-6) | datetime(4-6)     int64 io.debezium.time.MicroTimestamp µs; same
//	timestamptz(p) | timestamp(p)                 string io.debezium.time.ZonedTimestamp UTC ISO-8601, p fraction digits
//	date | date                                   int32 io.debezium.time.Date           days since the epoch
//	numeric(p,s) | decimal(p,s), numeric, dec,
//	               fixed (no (p,s): (10,0))
//	  decimal.handling.mode=precise (default)     bytes org.apache.kafka.connect.data.Decimal
//	                                              (parameters scale, connect.decimal.precision)
//	                                                                               Decimal: rounded half away from zero
//	                                                                               to s; JsonConverter: base64 unscaled
//	                                                                               (decimal.format=numeric: a JSON number,
//	                                                                               toString); toString (1.00E-8) elsewhere
//	  decimal.handling.mode=string                string                           toPlainString with s digits
//	  decimal.handling.mode=double                double                           doubleValue
//	numeric (unconstrained, PG) string, double    as above, the input's scale
//	  precise                                     struct io.debezium.data.         {scale int32, value bytes}: trailing
//	                                              VariableScaleDecimal (doc        zeros stripped, negative scale set to 0;
//	                                              "Variable scaled decimal")       value a byte[] (StringConverter:
//	                                                                               Struct{scale=2,value=[B@00000000}, the
//	                                                                               per-JVM identity hash as a placeholder)
//	numeric NaN, Infinity (PG; numeric(p,s): NaN)
//	  string                                      string                           NAN, POSITIVE_INFINITY, NEGATIVE_INFINITY
//	  double                                      double                           NaN, ±Infinity (JsonConverter: quoted)
//	  precise                                     (the converter throws)           NULL (event.converting.failure.handling.mode
//	                                                                               warn, skip; NOT NULL: refused); fail: the
//	                                                                               task fails (DebeziumException "Failed to
//	                                                                               properly convert data value for ...")
//	money | -                                     precise: bytes Decimal, scale    cash_in rounding (half away from zero),
//	                                              money.fraction.digits (default   2 digits, then (precise) half up to
//	                                              2; no precision parameter);      money.fraction.digits; string: plain,
//	                                              string; double                   double: doubleValue (digits unused)
//	time(0-3) | -                                 int32 io.debezium.time.Time      ms of the day, PG rounds
//	time, time(4-6) | time(p)                     int64 io.debezium.time.MicroTime µs; PG rounds (24:00:00 kept),
//	                                                                               MariaDB truncates, negative, to 838:59:59
//	timetz | -                                    string io.debezium.time.ZonedTime UTC, ISO_OFFSET_TIME (10:00:00.5Z)
//	interval, interval(p) | -                     int64 io.debezium.time.MicroDuration µs, months as 30.4375 days (doubles,
//	                                                                               truncated); input: any text PG 15's
//	                                                                               interval_in reads (ISO 8601 P1Y2M3DT4H
//	                                                                               5M6.5S, P1.5Y, P0001-02-03T04:05:06;
//	                                                                               SQL 1-2, -1-2 +3 -4:05:06; @ … ago;
//	                                                                               fractional units: 1.5 months is 1 mon
//	                                                                               15 days; millennium … us), stored as
//	                                                                               PG stores it; (p): time rounded to p
//	                                                                               digits
//	interval <fields>[(p)] | -                    int64 io.debezium.time.MicroDuration the stored value: truncated to the fields
//	(year, month, year to month, day, hour,                                        (year: whole years only; day: no time;
//	minute, second, day to hour, day to minute,                                    hour / minute: time toward zero, months
//	day to second, hour to minute, hour to                                         and days kept), seconds rounded to p;
//	second, minute to second)                                                      a bare number is the rightmost field,
//	                                                                               h:mm is mm:ss under minute to second,
//	                                                                               as a SQL literal reads them (a bound
//	                                                                               interval parameter reads them without
//	                                                                               the fields)
//	  interval.handling.mode=string               string io.debezium.time.Interval PnYnMnDTnHnMnS of PGInterval's parts;
//	                                                                               seconds: whole + µs/1e6 as a double's
//	                                                                               shortest decimal, cut to 9 digits
//	bit, bit(1), varbit(1) | -                    boolean                          the bit string "0" / "1"
//	bit(n), varbit(n), n > 1 | -                  bytes io.debezium.data.Bits      bit string, last char bit 0, minimal
//	                                                                               little-endian bytes (0: none)
//	varbit, bit varying (unbounded) | -           bytes io.debezium.data.Bits      as varbit(n), length 2147483647 (the
//	                                                                               connector's column length), one bit too
//	xml | -                                       string io.debezium.data.Xml      as inserted; a leading <?xml ...?> is
//	                                                                               dropped (with one newline) unless it
//	                                                                               has standalone, printed canonically
//	inet, cidr | -                                string                           as PostgreSQL prints it: inet without a
//	                                                                               full mask (/32, /128), cidr always with
//	                                                                               it (10.1/16: 10.1.0.0/16), IPv6 as BIND's
//	                                                                               inet_net_ntop (lower case, "::")
//	macaddr, macaddr8 | -                         string                           08:00:2b:01:02:03 (lower case, colons);
//	                                                                               a 6-byte macaddr8 gets ff:fe inserted
//	int4range, int8range, daterange | -           string                           canonical [lower,upper) as PostgreSQL
//	                                                                               prints it: (1,5] is [2,6), (4,5) empty
//	numrange, tsrange | -                         string                           brackets kept; numeric_out (input scale,
//	                                                                               1e2 is 100), "2024-01-01 10:00:00.5"
//	tstzrange | -                                 string                           as tsrange, bounds in the replication
//	                                                                               session's zone: the worker JVM's, UTC or
//	                                                                               WorkerTimeZone ("2024-01-01 08:00:00.5+00";
//	                                                                               +05:30, LMT's -00:44:30 as PG prints them)
//	int2[], int4[], int8[], bool[], float4[],     array of optional int16, int32,  a list (StringConverter: [1, null];
//	float8[], text[], varchar(n)[], uuid[],       int64, boolean, float, double,   headers: Values.convertToString [1,null]);
//	date[] | -                                    string, Uuid, Date               input a JSON array or the array text
//	                                                                               {1,NULL} ([0:1]= dropped); int[][] is int[];
//	                                                                               a multi-dimensional value: one null per
//	                                                                               top-level sub-array (int*, bool, float*,
//	                                                                               date, time*, timestamp*, bytea, hstore,
//	                                                                               oid, numeric elements); text, varchar, char,
//	                                                                               "char", json(b), uuid, inet, cidr,
//	                                                                               macaddr(8), the
//	                                                                               ranges, ltree, tsvector, enum: the Java
//	                                                                               sub-array's toString per sub-array,
//	                                                                               [Ljava.lang.String;@00000000 (per-JVM hash
//	                                                                               as a placeholder; [Ljava.lang.Object; for
//	                                                                               the network types, ranges, ltree and
//	                                                                               tsvector; [Ljava.lang.String; for an enum)
//	char(n)[], bpchar[], "char"[], citext[],      array of the scalar column's     elements as the scalar column's (char(n)
//	json[], jsonb[], bytea[], timestamp(p)[],     schema (optional), the array     padded, bpchar not; jsonb canonical),
//	timestamptz(p)[], inet[], cidr[], macaddr[],  column's typmod on the element   except time(p): pgjdbc's java.sql.Time,
//	macaddr8[], int4range[], int8range[],                                          milliseconds (24:00:00 is 0), timetz:
//	numrange[], daterange[], tsrange[],                                            whole seconds in UTC; temporal arrays need
//	tstzrange[], hstore[], time(p)[],                                              the worker in UTC (pgjdbc parses them in
//	timetz(p)[] | -                                                                the JVM's zone); DEFAULT: none (no mapper);
//	                                                                               time.precision.mode's element schema for
//	                                                                               timestamp(p)[], time(p)[] (time: ms),
//	                                                                               binary.handling.mode's for bytea[],
//	                                                                               hstore.handling.mode's for hstore[]
//	bit(n)[], bit[] | -                           the schema of bit(n): Bits or    NULL (the list fails Struct.put; warn);
//	                                              boolean, not an array            NOT NULL refused
//	name[], interval[], money[], varbit[],        none: left out of the record     a placement is a missing column
//	xml[], point[] | -                            and of its schema (DBZ-459)      (table.field.additional.missing)
//	numeric(p,s)[] | -                            array of optional decimals       decimal.handling.mode's element schema
//	                                                                               (Decimal scale s, precision p; string;
//	                                                                               double), elements at the column's scale;
//	                                                                               numeric[]: optional VariableScaleDecimal
//	                                                                               elements under precise; a
//	                                                                               NaN / Infinity element (any mode, at any
//	                                                                               depth): the column is NULL (its converter
//	                                                                               throws); multi-dimensional: one null per
//	                                                                               top-level sub-array
//	hstore | -                                    string io.debezium.data.Json     Jackson's object of the driver's HashMap:
//	                                                                               keys in java.util.HashMap order (String
//	                                                                               hashCode buckets; tree bins of 9+ keys
//	                                                                               in a table of 64+ modelled), NULL values
//	                                                                               null
//	hstore (hstore.handling.mode=map) | -         map<string, optional string>    the same HashMap in the same order
//	                                                                               (StringConverter {a=1, b=null}; headers
//	                                                                               {"a":"1","b":null}; JSON an object)
//	enum('a',…) (CREATE TYPE … AS ENUM) | -       string io.debezium.data.Enum     the label exactly (allowed: the labels in
//	                                                                               enumsortorder, comma-joined); DEFAULT
//	                                                                               'label'::type is the text between the
//	                                                                               quotes (a doubled quote kept)
//	point | -                                     struct io.debezium.data.geometry.Point {x, y double, wkb optional bytes
//	                                              (the little-endian 2D point), srid optional int32 (none)}; input
//	                                              "(x,y)" or "x,y" (NaN, Infinity; Java's canonical NaN in the wkb)
//	line, lseg, box, path, polygon, circle | -    none: left out of the record (include.unknown.datatypes=false; true
//	                                              refused); a sample's value is ignored, the relay skips the column
//	enum('a',…)[] | -                             array of Enum (elements required) the labels; a NULL element: the Struct refuses
//	                                                                               the list, the column is NULL (NOT NULL:
//	                                                                               refused; under event.converting.failure.
//	                                                                               handling.mode=fail the task fails naming
//	                                                                               the column's databaseType, _mood)
//	- | year                                      int32 io.debezium.time.Year      2-digit input widened; 0000 is 1900
//	- | enum('a',…)                               string io.debezium.data.Enum     the label (case as declared; index input)
//	                                                                               as the DDL parser's option: a comma \,, a
//	                                                                               backslash doubled (labels as COLUMN_TYPE prints them)
//	- | set('a',…)                                string io.debezium.data.EnumSet  labels in declaration order, comma-joined
//	- | bit(1)                                    boolean
//	- | bit(n), n > 1                             bytes io.debezium.data.Bits      little-endian, (n+7)/8 bytes
//	- | <int type> [unsigned] zerofill            as unsigned                      the value (no padding)
//	time.precision.mode=connect:
//	date, date[] elements | date                  int32 org.apache.kafka.connect.data.Date  java.util.Date at midnight UTC
//	time(p) | time(p)                             int32 org.apache.kafka.connect.data.Time  ms of the day (µs truncated after
//	                                                                               PG's rounding / MariaDB's truncation);
//	                                                                               MariaDB TIME < 0 or > 24:00:00: NULL
//	timestamp(p) | datetime(p)                    int64 org.apache.kafka.connect.data.Timestamp epoch ms (µs lost)
//	                                              JsonConverter: the int; StringConverter: Date.toString
//	                                              ("Fri Mar 01 12:34:56 UTC 2024"); SimpleHeaderConverter:
//	                                              Values.dateFormatFor (below one day past the epoch, negative
//	                                              too, "HH:mm:ss.SSSZ"; a whole day "yyyy-MM-dd"; else both);
//	time.precision.mode=microseconds | nanoseconds (date stays io.debezium.time.Date):
//	time(p) | time(p)                             int64 MicroTime | NanoTime      µs | ns of the day, any p (MariaDB: negative,
//	                                                                               to 838:59:59)
//	timestamp(p) | datetime(p)                    int64 MicroTimestamp | NanoTimestamp epoch µs | ns, any p; beyond a long's
//	                                                                               nanoseconds PG gives NULL (the converter
//	                                                                               throws), MariaDB wraps
//	time.precision.mode=isostring:
//	date | date                                   string io.debezium.time.IsoDate  "2024-02-29Z"
//	time(p) | time(p)                             string io.debezium.time.IsoTime  "12:34:56.79Z" (ISO_OFFSET_TIME: no trailing
//	                                                                               zeros; 24:00:00 is 00:00:00Z); MariaDB
//	                                                                               TIME < 0 or > 24:00:00: NULL
//	timestamp(p) | datetime(p)                    string io.debezium.time.IsoTimestamp "2024-03-01T12:34:56.79Z"
//	                                              (as the event timestamp: DataException, not INT64)
//	                                              timestamptz, timetz, interval, MariaDB timestamp, year unchanged
//	                                              under every mode; a DEFAULT is converted as a value under the
//	                                              mode (PostgreSQL: pg_get_expr's digits, not the column's;
//	                                              a time DEFAULT 24:00:00 under connect/isostring refused)
//	- | float, double, decimal(p,s)               as without: float, double,       the value (no padding); input or the
//	    [unsigned] [zerofill]                     decimal.handling.mode's          server's zero-padded text
//	- | float(m,d) [unsigned] [zerofill]          double                           the stored float widened (2.125:
//	                                                                               2.119999885559082); fraction rounded
//	                                                                               to d digits, ties to even
//	- | double(m,d) [unsigned] [zerofill]         double                           fraction rounded to d digits, ties even
//	oid | -                                       int64                            oidin's value: -1 is 4294967295
//	oid[] | -                                     array of optional int64          (DEFAULT refused); multi-dimensional:
//	                                                                               one null per top-level sub-array
//	ltree | -                                     string io.debezium.data.Ltree    the text (DEFAULT refused)
//	ltree[] | -                                   array of optional Ltree          a NULL element: the column is NULL
//	                                                                               (convertLtreeArray throws; warn);
//	                                                                               multi-dimensional: per top-level sub-array
//	                                                                               [Ljava.lang.Object;@00000000 (as text[])
//	tsvector | -                                  string io.debezium.data.Tsvector tsvectorout's text: lexemes sorted
//	                                                                               by bytes and merged, quoted (' and \
//	                                                                               doubled), positions sorted, clamped to
//	                                                                               16383, a repeat keeps its top weight
//	tsvector[] | -                                array of Tsvector (elements      a NULL element: the column is NULL
//	                                              NOT optional)                    (the Struct refuses the list; warn);
//	                                                                               multi-dimensional: as ltree[]
//	tsquery, pg_lsn, reg* (regclass, …),          none: left out of the record     no converter (pgjdbc's Types.OTHER);
//	txid_snapshot, pg_snapshot, xid, xid8, cid,                                    a placement is a missing column;
//	tid, the multiranges | -                                                       include.unknown.datatypes=true refused
//	jsonpath, aclitem, refcursor, composite       none: left out of the record     as above (a CREATE TYPE … AS (…) row
//	(row types) | -                                                                type is given as composite)
//	arrays of the types above (tsquery[],         none: left out of the record     no schema for the array either
//	pg_lsn[], regclass[], xid[], composite[],                                      (a composite type's array is given as
//	…) and of the geometric types | -                                              composite[])
//	int2vector[], oidvector[] | -                 array of the vector's schema     every element null (pgjdbc's PGobject):
//	                                              (elements NOT optional)          a non-empty value is NULL (Struct.put
//	                                                                               refuses the list; warn), {} is []
//	int2vector, oidvector | -                     array of int16 / int64           no element found in "1 2 3": every
//	                                              (elements NOT optional)          non-empty value is [], the empty one NULL
//	domain <base> [not null] | -                  the base type's schema           CREATE DOMAIN: the base type's value
//	(CREATE DOMAIN)                               (required if not null)           with the domain's typmod; its DEFAULT
//	                                                                               (or the column's) is not in the schema
//	- | uuid (MariaDB)                            string io.debezium.data.Uuid     streamed: the binlog's BINARY(16)
//	                                                                               without trailing zero bytes read as a
//	                                                                               BigInteger (…74000 gives 00123e45-…740);
//	                                                                               a snapshot read (op r): the canonical text
//	- | inet4, inet6 (MariaDB)                    (the connector cannot capture the table: its DDL parser fails on
//	                                              it and the task fails with ParsingException "DDL statement
//	                                              couldn't be parsed"; route preview reports that task failure,
//	                                              the relay refuses to start: NotCapturable)
//	- | point (MariaDB)                           struct io.debezium.data.geometry.Point {x, y double, wkb optional bytes,
//	                                              srid optional int32}; input "[SRID=n;]WKT" or "[SRID=n;]hex:WKB"
//	- | geometry, linestring, polygon,            struct io.debezium.data.geometry.Geometry {wkb bytes, srid optional
//	    multipoint, multilinestring,              int32}, optional even NOT NULL; wkb as MariaDB stores it
//	    multipolygon, geometrycollection          (little-endian whatever the input), srid absent for 0,
//	    (MariaDB)                                 2^32-1 is -1; JsonConverter: wkb base64; headers
//	                                              (SimpleHeaderConverter) {"wkb":"<base64>","srid":4326};
//	                                              StringConverter (key, value or header): Struct.toString,
//	                                              Struct{wkb=[B@00000000,srid=4326}, the per-JVM identity
//	                                              hash of the byte[] wkb as a placeholder (PlaceholderIdentityHash)
//
// (PG timestamptz without p has 6 digits; MySQL/MariaDB timestamp without
// p has none, and ISO-8601 drops a zero fraction.) PostgreSQL line, lseg,
// box, path, polygon and circle columns are left out of the record, as the
// connector leaves them out (no Connect schema under
// include.unknown.datatypes=false; ColumnDropped).
//
// Every other type is refused (*ColumnTypeError), and so is what the
// emulator cannot predict or has not checked (a *SettingError or
// ErrUnsupported, naming the column):
//
//   - PostgreSQL types not listed above, arrays of other element types
//     (a user-defined range's), PostGIS (not installed on the stack's PostgreSQL
//     15), MySQL spatial types; MariaDB spatial input
//     other than what MariaDB stores (2D, GEOMETRYCOLLECTION EMPTY the only
//     empty geometry, closed rings, MULTIPOINT(1 2,3 4));
//   - interval input that PostgreSQL reads but the port of interval_in
//     does not (a hexadecimal number in ISO 8601 text, non-ASCII text), a
//     time part beyond 2147483647 hours (the driver's PGInterval reads the
//     hours as an int), and IntervalStyle sql_standard on the inserting
//     session (the model reads as the default, postgres, does);
//   - combinations not checked against the connector: temporal arrays
//     when the Connect worker's zone (ColumnSettings.WorkerTimeZone) is
//     not UTC, tstzrange under a custom GMT±hh:mm zone ID, an
//     enum array with a NULL element under
//     event.converting.failure.handling.mode=fail without the column's
//     databaseType, or with one that needs quotes;
//   - a DEFAULT (other than NULL) the model does not read: MariaDB bit
//     other than b'0101', 0b0101 or a number, time other than a quoted
//     time, year other than a number, enum / set other than a quoted label
//     (binlogMiscDefault; a label's quote stays doubled and its backslash
//     too, as SHOW CREATE TABLE prints them), a literal MariaDB spatial
//     DEFAULT (a computed one gives no default: the DDL parser's
//     expression alternative), a MariaDB binary DEFAULT with a byte of
//     0x80 or more, a PostgreSQL numeric DEFAULT outside numbers, + - * /,
//     parentheses and casts to numeric and integer types (route preview
//     reads it as pg_get_expr prints it, pgnumexpr.go; the relay reads
//     pg_get_expr's text itself, CatalogColumnDefault), a PostgreSQL
//     DEFAULT on bit, time or interval other than a quoted literal or a
//     function call (on time 00:00, on bit a bit string without a set
//     bit, on interval a zero one) and on xml other than a literal or a
//     function call (money,
//     timetz, network and range types and hstore have no default value
//     mapper: no default, whatever the expression; pgMiscDefault; nor do
//     array columns: PostgresDefaultValueConverter has no mapper for
//     _int4, seen on the stack);
//   - a negative money.fraction.digits, and a NaN under precise in a NOT
//     NULL column under event.converting.failure.handling.mode warn or skip.
//
// The MySQL / MariaDB connectors reject time.precision.mode=adaptive in
// their config validation (Connect's validate answers "The 'adaptive'
// time.precision.mode is no longer supported"), and every connector
// rejects an unknown mode: ParseConfig returns a *ConfigError with
// Connector set.
//
// In the placements:
//
//   - id, key, payload, header, envelope: every modelled type, serialized
//     by the converter with its schema (a NULL with a column default gives
//     the default, Struct.get).
//   - route.by.field: string columns (getString; decimals under
//     decimal.handling.mode=string too); another type fails the task with a
//     DataException.
//   - table.field.event.timestamp: Timestamp, MicroTimestamp and
//     NanoTimestamp columns (getInt64, then the unit); a Connect Timestamp
//     (time.precision.mode=connect: a java.util.Date) fails the task with a
//     ClassCastException, as a Connect Date or Time does in the partition
//     and schema version placements; a plain int64 or
//     another int64 logical type fails the task with a ConnectException,
//     any other type (timestamptz, MySQL TIMESTAMP, date) with a
//     DataException. A timestamp more than log.message.timestamp.after.max.ms
//     ahead of the broker's clock fails the task at the producer
//     (CheckTimestamp).
//   - partition and table.field.event.schema.version: int32 columns
//     (getInt32: int4, MySQL/MariaDB int and mediumint, smallint unsigned
//     and mediumint unsigned); another type fails the task.
//
// The differential test's typed_columns_placements, typed_time_enum_bit,
// decimal_*, pg_money_bit_xml, pg_types_key_payload, numeric_special_*,
// xml_route_by_money_key, pg_net_types, pg_ranges, pg_arrays,
// pg_arrays_simple_headers, pg_array_*, pg_numeric_arrays_*, pg_hstore, pg_hstore_map*, pg_hstore_tree_*, pg_enum, pg_enum_array, pg_varbit_unbounded, pg_interval_fields, pg_tstzrange, boolean_*_from_binlog_ddl
// zerofill_integers, maria_zerofill_{json,string,double},
// maria_spatial_{json,simple_headers}, pg_geometric_point_{json,simple_headers} and time_mode_* (time.precision.mode)
// variants
// check these values against the real connectors, and the relay's against
// Debezium's records, with non-canonical input, excess precision, unsigned
// bounds and NULLs.
//
// # One place for the EventRouter's semantics
//
// Other packages ask this one instead of re-implementing the EventRouter:
//
//   - RouteTopic(regex, replacement, routedByValue) is the topic an event is
//     routed to (RoutingTopic wraps it for a spec.Routing); matched is false,
//     and the topic is the value itself, when the regex does not match.
//   - ParsePlacements splits table.fields.additional.placement as Debezium
//     does; EnumOptions lists the options with fixed values, and
//     EnumOption.Lookup compares as Java's trim and equalsIgnoreCase do.
//   - DefaultRouteTopicRegex and DefaultRouteTopicReplacement are the
//     routing defaults.
//
// Java regexes and Matcher replacements go through internal/javaregex, which
// the connector config rules use too; a pattern Java accepts but RE2 can
// only approximate is ErrUnsupported here.
package eventrouter
