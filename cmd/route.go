package cmd

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/spec"
)

type routePreviewOptions struct {
	Config             string
	ConnectorConfig    string
	Files              []string
	Outbox             string
	Transform          string
	WorkerConfig       string
	EventRouterVersion string
	// WorkerTimeZone: eventrouter.ParseOptions.WorkerTimeZone.
	WorkerTimeZone string
	Output         string
	Row            string
	Now            func() time.Time
}

func newRouteCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "route <command>",
		Short: "Work with the outbox EventRouter's routing",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(newRoutePreviewCmd(env))
	return c
}

func newRoutePreviewCmd(env *Env) *cobra.Command {
	opts := &routePreviewOptions{Now: time.Now}
	c := &cobra.Command{
		Use:   "preview (--config CONNECTOR.json | --connector-config FILE | -f outbox.yaml [--outbox NAME]) ROW.json|-",
		Short: "Show the exact Kafka record the outbox EventRouter emits for a sample row",
		Long: `Preview runs a sample outbox row through an exact emulation of Debezium
3.6.1's outbox EventRouter and of the connector's key, value and header
converters, and prints the record that lands in Kafka: topic, partition,
key, headers in order, value and timestamp; or that the row is dropped (and
why); or the error the real connector task fails with.

The connector config comes from --config (a JSON file with the body of
POST /connectors, {"name":…,"config":{…}}, or a flat config map),
--connector-config (the same), or an outbox spec (-f, with --outbox when it
has several outboxes), from which the connector config is generated.
Converters the connector does not set are the worker's: pass its properties
with --worker-config, else JsonConverter with schemas.enable=true is assumed.

The sample row (a file, or - for stdin) is JSON:

  {
    "op": "c",                            c (default) | r | u | d | t
    "table": "public.outboxevent",        schema.table or database.table
    "columns": {"id": "uuid not null",    SQL types; inferred when absent
                "payload": "jsonb",       (from the spec with -f)
                "status": "text default 'new'"},
    "row": {"id": "4d47e190-…", "aggregatetype": "Order",
            "aggregateid": "1", "type": "OrderCreated",
            "payload": {"id": 1}},
    "tsMs": 1700000000000,                envelope ts_ms (optional)
    "runId": "…"                          optional
  }

A string value of a text column is the column text, an object or array its
JSON text (jsonb is normalized as PostgreSQL stores it). A bytes column takes
"base64:…", "hex:…" or plain text. Timestamps are "2006-01-02 15:04:05.999999"
(UTC) or a number in the column's unit. A PostgreSQL timestamptz takes a zone
("…05.5+02", none is UTC) and is delivered as Debezium does: rounded to the
column's precision, in UTC, with that many fraction digits
("2006-01-02T13:04:05.500000Z" for timestamptz, 6 when none is declared).
A PostgreSQL interval takes any text PostgreSQL 15 reads ("P1Y2M3DT4H5M6.5S",
"P0001-02-03T04:05:06", "1-2 3 4:05:06", "@ 1.5 days ago", "90 ms"), stored
as the column's fields and precision store it.

A column's DEFAULT (as in CREATE TABLE: "default 'new'", "default now()",
or {"type":…,"defaultExpression":…}) matters: Debezium puts it in the
column schema, and the EventRouter then reads a NULL in the payload, key,
id and header/envelope columns as that default. For a function default
(now(), gen_random_uuid()) PostgreSQL connectors use a placeholder: "",
"{}", 0, false, the epoch or the nil UUID.

Bytes are printed as text when they are valid UTF-8, else as base64:…; the
json output has both. The __debezium.context.runId header is random per task
start and shown as a placeholder.

A record timestamp more than an hour ahead of the clock is rejected by a
Kafka 4 broker (log.message.timestamp.after.max.ms): the task fails, or with
errors.tolerance=all the record is dropped.

Column types modelled (the value as the connector's value converter
delivers it, under the default time.precision.mode (and connect: Kafka
Connect's Date, Time and Timestamp, milliseconds; microseconds;
nanoseconds; isostring: ISO-8601 strings), under both
bigint.unsigned.handling.mode values (precise: BIGINT UNSIGNED is a Decimal of
scale 0, precision 20, holding the unsigned value), and under every
binary.handling.mode (base64,
base64-url-safe, hex: a binary column is a plain string, '=' padded base64,
URL-safe base64 or lower-case hex) and decimal.handling.mode; a
connector config that sets another value is refused with exit 2, naming the
column and the setting, for each column whose value it changes):
` + modelledTypesHelp() + `
Every modelled type may go in any placement (id, key, payload, headers and
envelope fields); the placements read with a typed getter (route.by.field:
string, partition and schema version: int32, timestamp: int64) fail the task
on another type, as the real EventRouter does. A column of any other type
(e.g. PostgreSQL "char"[], PostGIS; MySQL spatial types) is refused with exit 2
naming the column and its type, rather than guessed; so is it at relay
start. PostgreSQL line, lseg, box, path, polygon and circle columns are
left out of the record, as the connector leaves them out.
docs/column-types.md lists what is modelled and what is refused.
Time-of-day, year, enum, set and bit columns: PostgreSQL time(0-3) is
milliseconds of the day (io.debezium.time.Time), time and time(4-6)
microseconds (MicroTime), both rounded; timetz is UTC ISO_OFFSET_TIME
(ZonedTime, e.g. 08:00:00.5Z); interval is microseconds (MicroDuration,
months as 30.4375 days; give it as PostgreSQL prints it, e.g. "1 year 2 mons
3 days 04:05:06.5"; interval(p) rounds the time part to p digits; an
interval with fields, e.g. interval day to second(3) or interval year to
month, is the value PostgreSQL stores: truncated to its fields, seconds
rounded; besides PostgreSQL's output form it takes a bare integer, the
rightmost field, h:mm, which is mm:ss under minute to second, and mm:ss.f,
as an INSERT's literal is read: a bound parameter typed interval is read
without the fields, which gives another value for those forms;
interval.handling.mode=string gives io.debezium.time.Interval, the text
Interval.toIsoString writes from the driver's PGInterval, e.g.
P1Y2M3DT4H5M6.5S, P0Y0M-1DT2H0M0S, the seconds the double's shortest
decimal cut to 9 digits: 00:00:01.235 is 1.234999999S); PostgreSQL bit, bit(1) and
varbit(1) are booleans, bit(n), varbit(n) and an unbounded varbit (length
2147483647, a one-bit value too) io.debezium.data.Bits (give the
bit string, "0101"; the bytes are little-endian and only as many as the
highest set bit needs); xml is io.debezium.data.Xml, the text as inserted
except a leading XML declaration, dropped (kept, canonical, with
standalone) as PostgreSQL prints it; inet, cidr, macaddr and macaddr8 are
plain strings in PostgreSQL's output form (cidr 10.1/16 is 10.1.0.0/16, inet
1.2.3.4/32 is 1.2.3.4, macaddr 08-00-2B-01-02-03 is 08:00:2b:01:02:03, a
6-byte macaddr8 gets ff:fe in the middle); int4range, int8range and
daterange are plain strings in PostgreSQL's canonical form ((1,5] is [2,6),
(4,5) is empty), numrange and tsrange plain strings as PostgreSQL prints
them (brackets kept, [1e2,1.50) is [100,1.50), timestamps quoted ISO);
tstzrange bounds are printed in the replication session's time zone, the
Connect worker JVM's default, UTC unless --worker-time-zone names an IANA
zone ("2024-01-01 08:00:00.5+00"; under Asia/Kolkata "2024-01-01
13:30:00.5+05:30", with local mean time's seconds in old offsets, as
PostgreSQL prints them under SET TIME ZONE; a GMT+hh:mm custom ID is
refused); arrays of int2,
int4, int8, bool, float4, float8, text, varchar, uuid and date are Connect arrays of optional
elements (give a JSON array or PostgreSQL's array text, "{1,NULL}",
"[0:1]={1,2}"; a StringConverter writes [1, null], a header [1,null]);
arrays of char(n), bpchar, citext, json, jsonb, bytea, timestamp(p),
timestamptz(p), inet, cidr, macaddr, macaddr8, hstore and the ranges have
the scalar column's elements, time(p)[] elements are milliseconds (24:00:00
is 0) and timetz(p)[] elements whole seconds in UTC; bit(n)[] has the schema of
bit(n) and is NULL; arrays of name, interval, money, varbit, xml and point are
left out of the record (the connector gives them no schema: a placement of
one is a missing column); a multi-dimensional value of integer, boolean, float,
date, time, timetz, timestamp, timestamptz, bytea, hstore, oid or numeric
elements is one null per sub-array, of text, varchar, char, json, jsonb, uuid,
inet, cidr, macaddr, macaddr8, the ranges, ltree, tsvector or enum elements
one Java toString of the sub-array per sub-array ([Ljava.lang.String;@00000000, [Ljava.util.UUID;…,
[Ljava.lang.Object;…, one more [ per further dimension: the per-JVM
identity hash as a placeholder); an array
DEFAULT gives no schema default; numeric(p,s)[] elements
are decimals under decimal.handling.mode with the column's scale (an
unconstrained numeric[] under precise has io.debezium.data.VariableScaleDecimal
elements; a NaN or Infinity
element makes the column NULL under every mode); hstore is io.debezium.data.Json, the JSON
object Jackson writes from the driver's java.util.HashMap (keys in HashMap
order, tree bins included, not as written; give PostgreSQL's hstore text or
a JSON object of strings and nulls), under hstore.handling.mode=map that
HashMap as a Connect map<string, optional string> in the same order (a
StringConverter writes {a=1, b=null}, a header {"a":"1","b":null}); a
PostgreSQL enum (CREATE TYPE ... AS ENUM) is io.debezium.data.Enum (give its
type as enum('a','b') with the labels in declaration order, enumsortorder;
the value is the label exactly; DEFAULT 'a'::type is modelled), an enum
array (enum('a','b')[]) an array of them whose elements are not optional (a
NULL element makes the whole column NULL, as the connector's Struct refuses
it; under event.converting.failure.handling.mode=fail the task fails with a
message naming the array type: give it as {"type":"enum('a','b')[]",
"databaseType":"_mood"}); oid is an int64 (oidin's value: -1 is 4294967295), ltree
io.debezium.data.Ltree, tsvector io.debezium.data.Tsvector (PostgreSQL's
canonical text: lexemes sorted and merged, positions sorted), their arrays
arrays of them (a NULL element of an ltree[] or tsvector[] makes the column
NULL); tsquery, pg_lsn, the reg* types, txid_snapshot, xid, jsonpath,
aclitem, refcursor, composite (row) types, the multiranges and arrays of
all these (composite[] for a row type's) are left out of the record
(the connector has no converter for them); int2vector and oidvector are
arrays of int16 / int64 whose non-empty values are [] and empty ones NULL,
their arrays arrays of them whose non-empty values are NULL;
the one-byte "char" (write it with the quotes, as format_type prints it)
is a string of the byte PostgreSQL keeps, not padded ('' stays '', xyz is
x, é is \303: its first UTF-8 byte as PostgreSQL prints it), "char"[] an
array of such strings (a multi-dimensional value: one
[Ljava.lang.String;@00000000 per sub-array);
a PostgreSQL domain is given as its base type after "domain" (domain
numeric(10,2), domain text not null for a NOT NULL domain) and delivered
as the base type; MariaDB uuid is io.debezium.data.Uuid as the connector streams it
from the binlog (a UUID ending in zero bytes comes out shifted right by
them, 123e4567-e89b-12d3-a456-426614174000 as
00123e45-67e8-9b12-d3a4-564266141740; a snapshot read, op r, has the
canonical text); other element types are refused;
MySQL/MariaDB time(p) is microseconds
(MicroTime, truncated; negative allowed), year an int32 (two-digit input
widened, 0000 delivered as 1900), enum the declared label and set the
declared labels in declaration order (io.debezium.data.Enum / EnumSet with
parameter allowed), bit(1) a boolean and bit(n) io.debezium.data.Bits
(little-endian bytes); zerofill integers are the unsigned ones. Their
DEFAULTs (other than NULL) are refused. The MySQL/MariaDB connectors reject
time.precision.mode=adaptive in their config validation (exit 2).
Fixed-point columns (PostgreSQL numeric(p,s); MySQL/MariaDB decimal(p,s))
are stored rounded half away from zero to the column's scale and delivered
by decimal.handling.mode: precise (the default) as a Connect Decimal
(JsonConverter: base64 of the unscaled value, schema parameters scale and
connect.decimal.precision; StringConverter and headers: BigDecimal.toString,
e.g. 1.00E-8), string as the plain text with the column's scale
(0.0000000100), double as a float64. An unconstrained PostgreSQL numeric
under precise is io.debezium.data.VariableScaleDecimal, a struct {scale,
value} (trailing zeros stripped; JsonConverter and headers:
{"scale":9,"value":"hQ=="}); a StringConverter writes Struct.toString,
Struct{scale=9,value=[B@00000000}: the digits after [B@ are the byte[]'s
Java identity hash, different in every JVM run, shown as 00000000 and
marked per-JVM (the same for a geometry's or point's wkb). A
JsonConverter with decimal.format=numeric (key, value and header converter
each as configured) writes a Decimal as a JSON number in
BigDecimal.toString's form (12.30, 1.00E-8: trailing zeros kept,
scientific below 1E-6). Refused with exit 2: a fixed-point column's
DEFAULT other than NULL. PostgreSQL numeric NaN, Infinity and -Infinity are NAN,
POSITIVE_INFINITY and NEGATIVE_INFINITY under string, the doubles under
double, and NULL under precise (the converter throws and
event.converting.failure.handling.mode=warn, the default, leaves the
column out; a NOT NULL column is refused; under fail the task fails, exit 1,
with the connector's io.debezium.DebeziumException "Failed to properly
convert data value for '<schema>.<table>.<column>' of type numeric", even
under errors.tolerance=all). PostgreSQL money is a
fixed-point column of scale 2 (stored rounded half away from zero; precise:
a Decimal without a precision parameter); money.fraction.digits=n makes the
precise Decimal's scale n (the stored cents rounded half up to n digits:
-1234.57 is -1235 at 0, -1234.5700 at 4; string and double unchanged); a
negative money.fraction.digits and a money DEFAULT are refused.
Values are the stored ones, whatever the input's form: PostgreSQL rounds a
timestamp to the column's precision and prints a uuid in lower case;
MySQL/MariaDB truncate a datetime or timestamp to the column's precision;
unsigned integers are widened (tinyint unsigned: int16, smallint and
mediumint unsigned: int32, int unsigned: int64) and BIGINT UNSIGNED is the
signed long (above 2^63-1 it wraps), as bigint.unsigned.handling.mode=long
(precise: the unsigned value, a Decimal(20,0)).
On MySQL/MariaDB, BOOLEAN is modelled as the connector's DDL parser reads a
CREATE TABLE in the binlog (boolean); a snapshot reads SHOW CREATE TABLE's
tinyint(1) (int16): give "tinyint(1)" to preview that. A MariaDB JSON
column is the LONGTEXT a snapshot reads (json: a plain string); one the
connector learnt from a CREATE TABLE in the binlog is io.debezium.data.Json,
the text as stored: give "json from binlog ddl" (the relay: --json-columns).

Exit status: 0 when the row is routed, dropped or passed through; 1 when the
real task would fail (the error is printed); 2 for bad input, including a
column type it does not model.`,
		Example: `  $ outboxctl route preview --config connector.json row.json
  $ outboxctl route preview -f outbox.yaml --outbox orders -o json row.json
  $ echo '{"row":{"id":"1","aggregatetype":"Order","aggregateid":"1","payload":{}}}' | outboxctl route preview --connector-config cfg.json -`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Row = args[0]
			return runRoutePreview(env, opts)
		},
	}
	fs := c.Flags()
	fs.StringVar(&opts.Config, "config", "", "connector JSON file: {\"name\",\"config\"} or a flat config map")
	fs.StringVar(&opts.ConnectorConfig, "connector-config", "", "connector config file (flat JSON map, or {\"name\",\"config\"})")
	fs.StringArrayVarP(&opts.Files, "file", "f", nil, "outbox spec file or folder: preview with the generated connector config")
	fs.StringVar(&opts.Outbox, "outbox", "", "the outbox of the spec to preview (needed when the spec has several)")
	fs.StringVar(&opts.Transform, "transform", "", "alias of the EventRouter transform (default: the only one in transforms)")
	fs.StringVar(&opts.WorkerConfig, "worker-config", "", "Kafka Connect worker properties file (its key/value/header converters apply when the connector sets none)")
	fs.StringVar(&opts.EventRouterVersion, "eventrouter-version", eventrouter.Version36, "EventRouter semantics: 3.6, or 3.5 (the MariaDB 3.5.0 connector plugin ships its own 3.5 EventRouter)")
	fs.StringVar(&opts.WorkerTimeZone, "worker-time-zone", "UTC", "the Connect worker JVM's default time zone (UTC or an IANA zone name), in which a PostgreSQL tstzrange's text is printed and pgjdbc parses temporal array elements (a GMT+hh:mm custom ID refuses a tstzrange column; a zone other than UTC refuses timestamp, timestamptz, time, timetz and tstzrange arrays)")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	return c
}

func runRoutePreview(env *Env, opts *routePreviewOptions) error {
	n := 0
	for _, set := range []bool{opts.Config != "", opts.ConnectorConfig != "", len(opts.Files) > 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return UsageError(errors.New("give exactly one of --config, --connector-config or -f"))
	}
	if opts.Outbox != "" && len(opts.Files) == 0 {
		return UsageError(errors.New("--outbox needs -f"))
	}
	switch opts.EventRouterVersion {
	case eventrouter.Version36, eventrouter.Version35:
	default:
		return UsageError(fmt.Errorf("--eventrouter-version %q: want %s or %s", opts.EventRouterVersion, eventrouter.Version36, eventrouter.Version35))
	}

	var conf map[string]string
	var outbox *spec.Outbox
	var err error
	switch {
	case opts.Config != "":
		conf, err = readConnectorConfig(opts.Config)
	case opts.ConnectorConfig != "":
		conf, err = readConnectorConfig(opts.ConnectorConfig)
	default:
		conf, outbox, err = specOutboxConnectorConfig(env, opts.Files, opts.Outbox, false)
	}
	if err != nil {
		return err
	}
	popts := eventrouter.ParseOptions{EventRouterVersion: opts.EventRouterVersion, WorkerTimeZone: opts.WorkerTimeZone}
	if opts.WorkerConfig != "" {
		if popts.Worker, err = readProperties(opts.WorkerConfig); err != nil {
			return UsageError(err)
		}
	}
	cfg, err := eventrouter.ParseConfigWithOptions(conf, opts.Transform, popts)
	if err != nil {
		var ce *eventrouter.ConfigError
		if errors.As(err, &ce) && errors.Is(err, eventrouter.ErrInvalidConfig) && ce.Key != "transforms" && !strings.HasSuffix(ce.Key, ".type") && !ce.Connector {
			// the EventRouter (or Connect) rejects it when the task starts
			return WithExitCode(ExitError, fmt.Errorf("the connector task would fail to start: %w", err))
		}
		return UsageError(err)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(env.IO.ErrOut, "warning: %s\n", w)
	}

	sr, err := readSampleRow(env, opts.Row)
	if err != nil {
		return UsageError(err)
	}
	if outbox != nil {
		sr.ApplyContract(outbox)
	}
	kind := cfg.Connector
	if kind == "" {
		kind = eventrouter.Postgres
	}
	ecfg := cfg
	ecfg.Connector = kind
	ev, err := sr.ChangeEventFor(ecfg)
	if err != nil {
		return UsageError(fmt.Errorf("%s: %w", opts.Row, err))
	}
	res, rerr := eventrouter.Route(cfg, ev)
	if rerr != nil && !errors.Is(rerr, eventrouter.ErrTaskFailed) {
		return UsageError(rerr)
	}
	for _, l := range res.Logs {
		fmt.Fprintf(env.IO.ErrOut, "eventrouter log: %s\n", l)
	}
	if rerr == nil && opts.Now != nil {
		// Kafka 4 brokers reject a record timestamp more than an hour
		// ahead, and the producer callback fails the task
		res, rerr = eventrouter.CheckTimestamp(cfg, res, opts.Now(), eventrouter.DefaultTimestampAfterMax)
	}
	if isStructured(opts.Output) {
		if err := writeStructured(env.IO.Out, opts.Output, previewJSON(res, rerr, cfg)); err != nil {
			return err
		}
		if rerr != nil {
			return SilentExit(ExitError)
		}
		return nil
	}
	if rerr != nil {
		return WithExitCode(ExitError, fmt.Errorf("the connector task would fail: %w", rerr))
	}
	writePreviewText(env.IO.Out, res)
	return nil
}

// modelledTypesHelp lists eventrouter.ModelledColumnTypes per database,
// one indented line each, for the help text.
func modelledTypesHelp() string {
	var b strings.Builder
	for _, k := range []struct {
		label string
		kind  eventrouter.ConnectorKind
	}{{"PostgreSQL", eventrouter.Postgres}, {"MySQL, MariaDB", eventrouter.MariaDB}} {
		fmt.Fprintf(&b, "  %s: %s\n", k.label, strings.Join(eventrouter.ModelledColumnTypes(k.kind), ", "))
	}
	b.WriteString("  (json is io.debezium.data.Json on MySQL, a plain string on MariaDB; MariaDB's \"json from binlog ddl\" is io.debezium.data.Json)\n")
	return b.String()
}

// readConnectorConfig reads a connector config file (eventrouter's
// ParseConnectorConfig); its errors are usage errors.
func readConnectorConfig(path string) (map[string]string, error) {
	b, err := readInput(nil, path, inputConnectorConfig)
	if err != nil {
		return nil, UsageError(err)
	}
	conf, err := eventrouter.ParseConnectorConfig(path, b)
	if err != nil {
		return nil, UsageError(err)
	}
	return conf, nil
}

// readProperties reads a Java properties file (eventrouter's
// ParseProperties).
func readProperties(path string) (map[string]string, error) {
	data, err := readInput(nil, path, inputProperties)
	if err != nil {
		return nil, err
	}
	return eventrouter.ParseProperties(data), nil
}

// readSampleRow reads a sample row file, or standard input for "-"
// (eventrouter's ParseSampleRowFile).
func readSampleRow(env *Env, path string) (*eventrouter.SampleRow, error) {
	data, err := readInput(env.IO.In, path, inputSampleRow)
	if err != nil {
		return nil, err
	}
	return eventrouter.ParseSampleRowFile(path, data)
}

// ---------------------------------------------------------------- output

func showText(b []byte) string {
	if b == nil {
		return "null"
	}
	if eventrouter.IsText(b) {
		return string(b)
	}
	return "base64:" + base64.StdEncoding.EncodeToString(b)
}

func writePreviewText(w io.Writer, res eventrouter.Result) {
	switch {
	case res.Dropped:
		fmt.Fprintf(w, "dropped: %s\n", res.Reason)
		return
	case res.PassThrough:
		fmt.Fprintf(w, "passed through: %s\n", res.Reason)
		return
	}
	r := res.Record
	fmt.Fprintf(w, "topic:      %s\n", r.Topic)
	if r.Partition != nil {
		fmt.Fprintf(w, "partition:  %d\n", *r.Partition)
	} else {
		fmt.Fprintf(w, "partition:  (default partitioner on the key bytes)\n")
	}
	fmt.Fprintf(w, "key:        %s%s\n", showText(r.Key), identityHashNote(r.KeyHashes))
	switch {
	case r.Timestamp != nil:
		fmt.Fprintf(w, "timestamp:  %d (%s, %s)\n", *r.Timestamp, time.UnixMilli(*r.Timestamp).UTC().Format("2006-01-02T15:04:05.000Z"), r.TimestampSource)
	default:
		fmt.Fprintf(w, "timestamp:  %s (connector processing time)\n", r.TimestampSource)
	}
	fmt.Fprintf(w, "headers:\n")
	for _, h := range r.Headers {
		v := showText(h.Value)
		if h.Volatile {
			v = "<random per task start>"
		}
		fmt.Fprintf(w, "  %s: %s%s\n", h.Key, v, identityHashNote(h.Hashes))
	}
	if r.Value == nil {
		fmt.Fprintf(w, "value:      null (tombstone)\n")
		return
	}
	fmt.Fprintf(w, "value:%s\n%s\n", identityHashNote(r.ValueHashes), showText(r.Value))
}

// identityHashNote explains the placeholders of Java identity hashes
// (eventrouter.PlaceholderIdentityHash) in a key, value or header.
func identityHashNote(hashes []int) string {
	if len(hashes) == 0 {
		return ""
	}
	return fmt.Sprintf("  (%s at byte %s: a Java identity hash, different in every JVM run; the connector and the relay write arbitrary hex digits there)",
		eventrouter.PlaceholderIdentityHash, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(hashes)), ", "), "[]"))
}

type bytesJSON struct {
	Text   *string `json:"text,omitempty"`
	Base64 string  `json:"base64"`
}

func toBytesJSON(b []byte) *bytesJSON {
	if b == nil {
		return nil
	}
	out := &bytesJSON{Base64: base64.StdEncoding.EncodeToString(b)}
	if utf8.Valid(b) {
		s := string(b)
		out.Text = &s
	}
	return out
}

type headerJSON struct {
	Key      string     `json:"key"`
	Value    *bytesJSON `json:"value"`
	Volatile bool       `json:"volatile,omitempty"`
	// IdentityHashes: byte offsets of eventrouter.PlaceholderIdentityHash
	// (a Java identity hash, different in every JVM run)
	IdentityHashes []int `json:"identityHashes,omitempty"`
}

type recordJSON struct {
	Topic     string       `json:"topic"`
	Partition *int32       `json:"partition"`
	Key       *bytesJSON   `json:"key"`
	Headers   []headerJSON `json:"headers"`
	Value     *bytesJSON   `json:"value"`
	// KeyIdentityHashes, ValueIdentityHashes: byte offsets of
	// eventrouter.PlaceholderIdentityHash (per-JVM identity hashes)
	KeyIdentityHashes   []int  `json:"keyIdentityHashes,omitempty"`
	ValueIdentityHashes []int  `json:"valueIdentityHashes,omitempty"`
	Timestamp           *int64 `json:"timestamp"`
	TimestampSource     string `json:"timestampSource"`
}

type errorJSON struct {
	Stage     string `json:"stage"`
	Exception string `json:"exception"`
	Message   string `json:"message"`
}

type previewJSONOut struct {
	Result   string      `json:"result"` // routed | dropped | passthrough | failed
	Reason   string      `json:"reason,omitempty"`
	Error    *errorJSON  `json:"error,omitempty"`
	Record   *recordJSON `json:"record,omitempty"`
	Logs     []string    `json:"logs,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
}

func previewJSON(res eventrouter.Result, err error, cfg eventrouter.Config) previewJSONOut {
	out := previewJSONOut{Reason: res.Reason, Logs: res.Logs, Warnings: cfg.Warnings}
	var te *eventrouter.TaskError
	switch {
	case err != nil && errors.As(err, &te):
		out.Result = "failed"
		out.Error = &errorJSON{Stage: string(te.Stage), Exception: te.Exception, Message: te.Message}
	case res.Dropped:
		out.Result = "dropped"
	case res.PassThrough:
		out.Result = "passthrough"
	case res.Record != nil:
		out.Result = "routed"
		r := res.Record
		rj := &recordJSON{Topic: r.Topic, Partition: r.Partition, Key: toBytesJSON(r.Key), Value: toBytesJSON(r.Value), Timestamp: r.Timestamp, TimestampSource: r.TimestampSource,
			KeyIdentityHashes: r.KeyHashes, ValueIdentityHashes: r.ValueHashes}
		rj.Headers = []headerJSON{}
		for _, h := range r.Headers {
			rj.Headers = append(rj.Headers, headerJSON{Key: h.Key, Value: toBytesJSON(h.Value), Volatile: h.Volatile, IdentityHashes: h.Hashes})
		}
		out.Record = rj
	}
	return out
}
