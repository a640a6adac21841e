package connectorconfig

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/javaregex"
	"github.com/outboxctl/outboxctl/spec"
)

func sscanInt(s string, p *int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, err
	}
	*p = v
	return 1, nil
}

// allRules is the rule catalogue, grouped by area (the order of the former
// code prefixes, kept as aliases: BL, CF, DBZ, ER, KC, KT, PG, SR). Each rule
// has testdata/rules/<ID>/{bad,good}.yaml.
var allRules = []Rule{
	{
		ID: "SERVER_ID_CLASH", Aliases: []string{"BL001_SERVER_ID_CLASH"}, Severity: SeverityError,
		Purpose: "database.server.id must be a positive number, unique among the MySQL/MariaDB connectors of one database server",
		Hint:    "drop connector.serverId to get a derived unique id, or pick another id",
		check:   checkServerIDs,
	},
	{
		ID: "SCHEMA_HISTORY", Aliases: []string{"BL002_SCHEMA_HISTORY"}, Severity: SeverityError,
		Purpose: "MySQL/MariaDB connectors need schema.history.internal.kafka.bootstrap.servers and a topic of their own",
		Hint:    "set kafka.bootstrapServers in the spec (or --bootstrap-servers) and give each connector its own schemaHistoryTopic",
		check:   checkSchemaHistory,
	},
	{
		ID: "INCLUDE_LIST_MISSES_OUTBOX", Aliases: []string{"CF001_INCLUDE_LIST_MISSES_OUTBOX"}, Severity: SeverityError,
		Purpose: "the include/exclude lists and the EventRouter predicate must select the outbox table, or no event is ever published",
		Hint:    "remove the include-list override or make its regex match <schema>.<table> of the outbox",
		check:   checkIncludeLists,
	},
	{
		ID: "PAYLOAD_CONVERTER_MISMATCH", Aliases: []string{"CF002_PAYLOAD_CONVERTER_MISMATCH"}, Severity: SeverityError,
		Purpose: "value.converter and the payload column type must match the payload format (avro bytes pass through, json stays JSON)",
		Hint:    "avro: a bytes column (bytea, longblob) with ByteArrayConverter; json: a text column (jsonb, json, text, longtext) with StringConverter",
		check:   checkPayloadConverter,
	},
	{
		ID: "TRUNCATE_NOT_SKIPPED", Aliases: []string{"CF003_TRUNCATE_NOT_SKIPPED"}, Severity: SeverityError,
		Purpose: "skipped.operations must contain t: a truncate reaching the EventRouter fails the task",
		Hint:    "set skipped.operations to t (or u,d,t); never none",
		check:   checkTruncate,
	},
	{
		ID: "TOPIC_PREFIX_INVALID", Aliases: []string{"CF004_TOPIC_PREFIX_INVALID"}, Severity: SeverityError,
		Purpose: "topic.prefix is required and must match ^[a-zA-Z0-9_.-]+$",
		Hint:    "use letters, digits, '_', '.' and '-' in connector.topicPrefix",
		check:   checkTopicPrefix,
	},
	{
		ID: "QUEUE_NOT_LARGER_THAN_BATCH", Aliases: []string{"CF005_QUEUE_NOT_LARGER_THAN_BATCH"}, Severity: SeverityError,
		Purpose: "max.queue.size must be larger than max.batch.size or the connector does not start",
		Hint:    "use a profile, or raise max.queue.size above max.batch.size",
		check:   checkQueueBatch,
	},
	{
		ID: "PASSTHROUGH_CONVERTER_NON_OUTBOX", Aliases: []string{"CF006_PASSTHROUGH_CONVERTER_NON_OUTBOX"}, Severity: SeverityError,
		Purpose: "with a bytes pass-through value converter, heartbeat and schema-change records (Structs) fail the task",
		Hint:    "turn heartbeats off, or use io.debezium.converters.BinaryDataConverter with value.converter.delegate.converter.type=org.apache.kafka.connect.json.JsonConverter",
		check:   checkPassthroughNonOutbox,
	},
	{
		ID: "KEY_RENAMED", Aliases: []string{"DBZ001_KEY_RENAMED"}, Severity: SeverityError,
		Purpose: "keys renamed or removed between Debezium 1.x and 3.6 are ignored silently",
		Hint:    "use the 3.6 key named in the message",
		check:   checkRenamedKeys,
	},
	{
		ID: "SNAPSHOT_MODE_INVALID", Aliases: []string{"DBZ002_SNAPSHOT_MODE_INVALID"}, Severity: SeverityError,
		Purpose: "snapshot.mode must be a Debezium 3.6 mode of the connector (schema_only, schema_only_recovery and never are gone)",
		Hint:    "use no_data (stream only) for an outbox",
		check:   checkSnapshotMode,
	},
	{
		ID: "SNAPSHOT_REPUBLISHES", Aliases: []string{"DBZ003_SNAPSHOT_REPUBLISHES"}, Severity: SeverityWarning,
		Purpose: "a data snapshot re-publishes every row still in the outbox table as events",
		Hint:    "use connector.snapshot: no_data, or set connector.snapshot explicitly to say re-publishing is intended",
		check:   checkSnapshotRepublishes,
	},
	{
		ID: "ROUTE_REGEX_INVALID", Aliases: []string{"ER001_ROUTE_REGEX_INVALID"}, Severity: SeverityError,
		Purpose: "route.topic.regex must compile under java.util.regex (Connect's validate endpoint does not check it)",
		Hint:    "Java group names are letters and digits only, '{' must start a repetition, and (?P<…>) is not Java syntax",
		check:   checkRouteRegex,
	},
	{
		ID: "ROUTE_REPLACEMENT_INVALID", Aliases: []string{"ER002_ROUTE_REPLACEMENT_INVALID"}, Severity: SeverityError,
		Purpose: "route.topic.replacement may only reference groups route.topic.regex defines (Java Matcher syntax)",
		Hint:    "reference ${name} of a named group or $n of an existing group; escape a literal $ as \\$",
		check:   checkRouteReplacement,
	},
	{
		ID: "PLACEMENT_INVALID", Aliases: []string{"ER003_PLACEMENT_INVALID"}, Severity: SeverityError,
		Purpose: "table.fields.additional.placement entries must be column:header|envelope|partition[:alias]",
		Hint:    "write each entry as column:placement[:alias] with placement header, envelope or partition",
		check:   checkPlacements,
	},
	{
		ID: "ENUM_INVALID", Aliases: []string{"ER004_ENUM_INVALID"}, Severity: SeverityError,
		Purpose: "EventRouter enum and boolean options must hold a valid value (only checked when the task starts)",
		Hint:    "use one of the values listed in the message",
		check:   checkEnums,
	},
	{
		ID: "CONNECTOR_NAME_INVALID", Aliases: []string{"KC001_CONNECTOR_NAME_INVALID"}, Severity: SeverityError,
		Purpose: "connector names must pass Kafka Connect's name rules and be addressable by its REST API: not empty, no control, zero-width or bidi-override characters, no '/', '\\' or '%', not \".\" or \"..\"",
		Hint:    "use letters, digits, '-', '_' and '.' in connector.name (or the outbox name it defaults to)",
		check:   checkConnectorNames,
	},
	{
		ID: "TOPIC_NAME_INVALID", Aliases: []string{"KT001_TOPIC_NAME_INVALID"}, Severity: SeverityError,
		Purpose: "every topic a connector writes to (routed, heartbeat, schema history) must be a valid Kafka topic name: [a-zA-Z0-9._-], at most 249 characters, not \".\" or \"..\"",
		Hint:    "change the aggregate (or event type) names or routing.topicReplacement so that the routed topics use only letters, digits, '.', '_' and '-'",
		check:   checkTopicNames,
	},
	{
		ID: "TOPIC_NAME_COLLISION", Aliases: []string{"KT002_TOPIC_NAME_COLLISION"}, Severity: SeverityError,
		Purpose: "two topics that differ only in '.' versus '_' collide in Kafka's metric names: Kafka refuses to create the second",
		Hint:    "use either '.' or '_' in topic names, not both, so that no two topics map to the same metric name",
		check:   checkTopicCollisions,
	},
	{
		ID: "SLOT_NAME_INVALID", Aliases: []string{"PG001_SLOT_NAME_INVALID"}, Severity: SeverityError,
		Purpose: "slot.name and publication.name must be valid PostgreSQL names: [a-z0-9_], at most 63 characters",
		Hint:    "drop connector.slotName/publicationName to get derived names, or use lower-case letters, digits and '_'",
		check:   checkSlotNames,
	},
	{
		ID: "PLUGIN_NOT_PGOUTPUT", Aliases: []string{"PG002_PLUGIN_NOT_PGOUTPUT"}, Severity: SeverityError,
		Purpose: "plugin.name must be pgoutput: the default decoderbufs needs a server extension",
		Hint:    "remove the plugin.name override",
		check:   checkPlugin,
	},
	{
		ID: "SLOT_NAME_CLASH", Aliases: []string{"PG003_SLOT_NAME_CLASH"}, Severity: SeverityError,
		Purpose: "two PostgreSQL connectors on one server must not share a replication slot, nor a publication in one database",
		Hint:    "give each connector its own slotName and publicationName (or drop them to get derived names)",
		check:   checkSlotClash,
	},
	{
		ID: "OUTBOX_TABLE_SHARED", Severity: SeverityError,
		Purpose: "two outboxes must not read the same database table: each would publish every event, so every event is published twice",
		Hint:    "declare the table once (one outbox may route several aggregate types), or give each outbox its own table",
		check:   checkOutboxTableShared,
	},
	{
		ID: "SLOT_CAN_STALL", Aliases: []string{"PG004_SLOT_CAN_STALL"}, Severity: SeverityWarning,
		Purpose: "a PostgreSQL connector needs heartbeats with a heartbeat.action.query, or a quiet outbox table lets its slot retain WAL without bound",
		Hint:    "drop connector.heartbeat (default 10s) or set a duration; keep the generated heartbeat.action.query",
		check:   checkSlotCanStall,
	},
	{
		ID: "EXACTLY_ONCE", Severity: SeverityInfo,
		Purpose: "an exactly-once connector (exactly.once.support=required) runs only on distributed Kafka Connect workers with exactly.once.source.support=enabled, and its consumers must read with isolation.level=read_committed",
		Hint:    "set exactly.once.source.support=enabled on every worker of the Connect group (Kafka 3.3+, a rolling update: preparing first, then enabled); keep consumers at read_committed (package consumer refuses read_uncommitted)",
		check:   checkExactlyOnce,
	},
	{
		ID: "TOPIC_UNDER_REPLICATED", Severity: SeverityWarning,
		Purpose: "on a cluster of 3 or more brokers (kafka.brokers), an outbox's topics need a replication factor of at least 3 and min.insync.replicas of at least 2, or one broker's loss loses or blocks events",
		Hint:    "set topics.replicationFactor: 3 and topics.minInsyncReplicas: 2 on the outbox",
		check:   checkTopicReplication,
	},
	{
		ID: "SCHEMA_FILE_INVALID", Aliases: []string{"SR001_SCHEMA_FILE_INVALID"}, Severity: SeverityError,
		Purpose: "every .avsc file the spec names must exist and parse (strictly, as the registry parses a new schema) as a record schema",
		Hint:    "fix the schema path (relative to the spec file) or the schema at the position in the message",
		check:   checkSchemaFiles,
	},
	{
		ID: "SUBJECT_NAME_INVALID", Aliases: []string{"SR002_SUBJECT_NAME_INVALID"}, Severity: SeverityError,
		Purpose: "the registry subject of each event version (from its subject strategy) must be a valid subject: no control characters, not reserved, at most 512 characters (Apicurio)",
		Hint:    "shorten the topic or the record's namespace and name, or use another subjectStrategy",
		check:   checkSubjectNames,
	},
}

func isBinlog(c *Connector) bool {
	cl := c.Config["connector.class"]
	return cl == MySQLConnectorClass || cl == MariaDBConnectorClass
}

func isPostgres(c *Connector) bool { return c.Config["connector.class"] == PostgresConnectorClass }

// eventRouterPrefixes returns "transforms.<alias>." for every EventRouter
// transform of c.
func eventRouterPrefixes(c *Connector) []string {
	var out []string
	for _, a := range eventrouter.Aliases(c.Config) {
		out = append(out, "transforms."+a+".")
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (v *validation) each(f func(c *Connector)) {
	for i := range v.connectors {
		f(&v.connectors[i])
	}
}

// ---- BL: binlog connectors ----

func dbServer(c *Connector) string {
	return c.Config["database.hostname"] + ":" + c.Config["database.port"]
}

func checkServerIDs(r *Rule, v *validation) {
	seen := map[string]*Connector{}
	v.each(func(c *Connector) {
		if !isBinlog(c) {
			return
		}
		raw, ok := c.Config["database.server.id"]
		if !ok {
			v.report(r, c, "database.server.id", "database.server.id is required for MySQL and MariaDB connectors since Debezium 2.0")
			return
		}
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 || id > 4294967295 {
			v.report(r, c, "database.server.id", fmt.Sprintf("database.server.id %q is not a number in 1..4294967295", raw))
			return
		}
		k := dbServer(c) + "/" + raw
		if prev, ok := seen[k]; ok {
			v.report(r, c, "database.server.id", fmt.Sprintf("database.server.id %s is also used by connector %s (%s) on the same server %s", raw, prev.Name, prev.Positions["database.server.id"], dbServer(c)))
			return
		}
		seen[k] = c
	})
}

func checkSchemaHistory(r *Rule, v *validation) {
	topics := map[string]*Connector{}
	v.each(func(c *Connector) {
		if !isBinlog(c) {
			return
		}
		if h := c.Config["schema.history.internal"]; h != "" && h != "io.debezium.storage.kafka.history.KafkaSchemaHistory" {
			return
		}
		for _, k := range []string{"schema.history.internal.kafka.bootstrap.servers", "schema.history.internal.kafka.topic"} {
			if strings.TrimSpace(c.Config[k]) == "" {
				v.report(r, c, k, k+" is required (the connector fails at start without it)")
			}
		}
		t := c.Config["schema.history.internal.kafka.topic"]
		if t == "" {
			return
		}
		if prev, ok := topics[t]; ok {
			v.report(r, c, "schema.history.internal.kafka.topic", fmt.Sprintf("schema history topic %q is also used by connector %s: each connector needs its own", t, prev.Name))
			return
		}
		topics[t] = c
	})
}

// ---- CF: common connector settings ----

// Excluded is an include or exclude list of a connector config that
// keeps the outbox table from being captured.
type Excluded struct {
	Key, Message string
}

// ExcludesTable returns the include and exclude lists of config
// (table.*, and schema.* on PostgreSQL or database.* on MySQL/MariaDB)
// under which the Debezium connector would not capture o's table; nil
// when it captures it. A list with a regex that cannot be checked counts
// as excluding, unless another of its regexes matches. It is the one
// implementation of the check: validate (CF rule) reports it, and cleanup
// refuses to delete rows of a table the deployed connector does not
// capture.
func ExcludesTable(config map[string]string, o *spec.Outbox) []Excluded {
	return filterTable(config, o, true)
}

// filterTable checks config's lists against o's table; strict counts a
// list whose regexes cannot be checked (and do not match) as excluding.
func filterTable(config map[string]string, o *spec.Outbox, strict bool) []Excluded {
	var out []Excluded
	check := func(key, target string, include bool) {
		list, ok := config[key]
		if !ok || strings.TrimSpace(list) == "" {
			return
		}
		m, unknown := javaListMatches(list, target)
		if unknown && !m {
			if strict && include {
				out = append(out, Excluded{key, fmt.Sprintf("%s %q has a regex that cannot be checked and none that matches the outbox table %s", key, list, target)})
			}
			return // ROUTE_REGEX_INVALID-like problems are reported elsewhere
		}
		if include && !m {
			out = append(out, Excluded{key, fmt.Sprintf("%s %q does not match the outbox table %s", key, list, target)})
		}
		if !include && m {
			out = append(out, Excluded{key, fmt.Sprintf("%s %q excludes the outbox table %s", key, list, target)})
		}
	}
	check("table.include.list", o.QualifiedTable(), true)
	check("table.exclude.list", o.QualifiedTable(), false)
	if config["connector.class"] == PostgresConnectorClass {
		check("schema.include.list", o.Schema, true)
		check("schema.exclude.list", o.Schema, false)
	} else {
		check("database.include.list", o.Schema, true)
		check("database.exclude.list", o.Schema, false)
	}
	return out
}

// javaListMatches reports whether any comma-separated anchored Java regex in
// list fully matches s. unknown is true when a regex could not be checked.
func javaListMatches(list, s string) (match, unknown bool) {
	for _, p := range eventrouter.SplitList(list) {
		res, err := javaregex.Check(p)
		if err != nil {
			unknown = true
			continue
		}
		re, err := regexp.Compile(`^(?:` + res.Go + `)$`)
		if err != nil {
			unknown = true
			continue
		}
		if re.MatchString(s) {
			return true, false
		}
	}
	return false, unknown
}

func checkIncludeLists(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		o := v.outbox(c)
		if o == nil {
			return
		}
		table := o.QualifiedTable()
		for _, f := range filterTable(c.Config, o, false) {
			v.report(r, c, f.Key, f.Message)
		}
		// The EventRouter predicate must match the outbox topic.
		topic := c.Config["topic.prefix"] + "." + table
		for _, pfx := range eventRouterPrefixes(c) {
			pred := c.Config[pfx+"predicate"]
			if pred == "" || c.Config["predicates."+pred+".type"] != TopicNameMatchesClass {
				continue
			}
			key := "predicates." + pred + ".pattern"
			m, unknown := javaListMatches(c.Config[key], topic)
			negate := c.Config[pfx+"negate"] == "true"
			if !unknown && m == negate {
				v.report(r, c, key, fmt.Sprintf("the EventRouter predicate %s (pattern %q, negate=%v) does not select the outbox topic %s: events would not be routed", pred, c.Config[key], negate, topic))
			}
		}
	})
}

var bytesTypes = []string{"bytea", "blob", "longblob", "mediumblob", "tinyblob", "varbinary", "binary"}
var textTypes = []string{"jsonb", "json", "text", "longtext", "mediumtext", "tinytext", "varchar", "character varying", "char"}

func typeIn(sqlType string, list []string) bool {
	t := strings.ToLower(strings.TrimSpace(sqlType))
	if i := strings.IndexByte(t, '('); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	for _, l := range list {
		if t == l {
			return true
		}
	}
	return false
}

func checkPayloadConverter(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		o := v.outbox(c)
		if o == nil {
			return
		}
		conv := c.Config["value.converter"]
		colType := spec.PayloadSQLType(o.Database.Kind, o.PayloadFormat)
		if o.Columns.PayloadType != "" {
			colType = o.Columns.PayloadType
		}
		expand := false
		for _, pfx := range eventRouterPrefixes(c) {
			expand = expand || c.Config[pfx+"table.expand.json.payload"] == "true"
		}
		colPos := o.Columns.PosOf("payloadType")
		switch o.PayloadFormat {
		case spec.FormatAvro:
			if !typeIn(colType, bytesTypes) {
				f := Finding{Rule: r.ID, Severity: r.Severity, File: colPos.File, Line: colPos.Line, Col: colPos.Col, Connector: c.Name, Key: "columns.payloadType",
					Message: fmt.Sprintf("payloadFormat avro needs a bytes payload column, not %s: a text column would reach Kafka as a string, not as Confluent wire-format bytes", colType), Hint: r.Hint}
				v.findings = append(v.findings, f)
			}
			if !PassesBytesThrough(conv) {
				v.report(r, c, "value.converter", fmt.Sprintf("payloadFormat avro needs %s (or %s) to pass the Avro bytes through untouched, not %q", ByteArrayConverter, BinaryDataConverter, conv))
			}
		case spec.FormatJSON:
			if !typeIn(colType, textTypes) {
				f := Finding{Rule: r.ID, Severity: r.Severity, File: colPos.File, Line: colPos.Line, Col: colPos.Col, Connector: c.Name, Key: "columns.payloadType",
					Message: fmt.Sprintf("payloadFormat json needs a text payload column (jsonb, json, text, longtext), not %s", colType), Hint: r.Hint}
				v.findings = append(v.findings, f)
			}
			switch conv {
			case StringConverterClass:
				if expand {
					v.report(r, c, "value.converter", "table.expand.json.payload turns the payload into a Struct, which StringConverter writes as Struct{...} text: drop the expansion or use JsonConverter with schemas.enable=false")
				}
			case JSONConverterClass:
				if !expand {
					v.report(r, c, "value.converter", "JsonConverter writes a JSON payload column as a JSON string literal (double-encoded); use StringConverter")
				}
			case ByteArrayConverter:
				v.report(r, c, "value.converter", "ByteArrayConverter rejects the text payload of payloadFormat json (DataException: Invalid schema type for ByteArrayConverter: STRING)")
			default:
				v.report(r, c, "value.converter", fmt.Sprintf("payloadFormat json is written as JSON text by %s; %q is not known to do that", StringConverterClass, conv))
			}
		}
	})
}

func checkPassthroughNonOutbox(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		conv := c.Config["value.converter"]
		delegate := c.Config["value.converter.delegate.converter.type"]
		if conv != ByteArrayConverter && !(conv == BinaryDataConverter && delegate == "") {
			return
		}
		if HeartbeatsOn(c.Config) {
			v.report(r, c, "heartbeat.interval.ms", fmt.Sprintf("heartbeat.interval.ms=%s emits heartbeat records with a Struct value, which %s cannot write: the task fails", c.Config["heartbeat.interval.ms"], conv))
		}
		if isBinlog(c) && c.Config["include.schema.changes"] != "false" {
			v.report(r, c, "include.schema.changes", fmt.Sprintf("schema change events (include.schema.changes defaults to true) have a Struct value, which %s cannot write: the task fails", conv))
		}
	})
}

func checkTruncate(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		raw, ok := c.Config["skipped.operations"]
		if !ok {
			return // Debezium's default is t
		}
		for _, op := range eventrouter.SplitList(raw) {
			if op == "t" {
				return
			}
		}
		v.report(r, c, "skipped.operations", fmt.Sprintf("skipped.operations %q does not skip truncates: a TRUNCATE of the outbox table fails the EventRouter task", raw))
	})
}

var topicPrefixRe = regexp.MustCompile(`^[a-zA-Z0-9_.\-]+$`)

func checkTopicPrefix(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		p, ok := c.Config["topic.prefix"]
		if !ok || p == "" {
			v.report(r, c, "topic.prefix", "topic.prefix is required")
			return
		}
		if !topicPrefixRe.MatchString(p) {
			v.report(r, c, "topic.prefix", fmt.Sprintf("topic.prefix %q must match ^[a-zA-Z0-9_.-]+$", p))
		}
	})
}

func checkQueueBatch(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		q, b := c.Config["max.queue.size"], c.Config["max.batch.size"]
		if q == "" {
			q = "8192"
		}
		if b == "" {
			b = "2048"
		}
		qi, err1 := strconv.Atoi(q)
		bi, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			key := "max.queue.size"
			if err2 != nil {
				key = "max.batch.size"
			}
			v.report(r, c, key, fmt.Sprintf("%s %q is not a number", key, c.Config[key]))
			return
		}
		if qi <= bi {
			v.report(r, c, "max.queue.size", fmt.Sprintf("max.queue.size %d must be larger than max.batch.size %d", qi, bi))
		}
	})
}

// ---- DBZ: Debezium versions ----

type rename struct {
	old, new, since string
}

var renamedConnectorKeys = []rename{
	{"database.server.name", "topic.prefix", "2.0"},
	{"database.history", "schema.history.internal", "2.0"},
	{"database.history.*", "schema.history.internal.*", "2.0"},
	{"table.whitelist", "table.include.list", "2.0"},
	{"table.blacklist", "table.exclude.list", "2.0"},
	{"database.whitelist", "database.include.list", "2.0"},
	{"database.blacklist", "database.exclude.list", "2.0"},
	{"schema.whitelist", "schema.include.list", "2.0"},
	{"schema.blacklist", "schema.exclude.list", "2.0"},
	{"column.whitelist", "column.include.list", "2.0"},
	{"column.blacklist", "column.exclude.list", "2.0"},
	{"event.deserialization.failure.handling.mode", "event.processing.failure.handling.mode", "2.0"},
	{"flush.lsn.source", "lsn.flush.mode", "3.x (deprecated)"},
}

var renamedSMTKeys = []rename{
	{"table.fields.additional.error.on.missing", "table.field.additional.missing (error|ignore)", "3.6"},
	{"debezium.op.invalid.behavior", "table.op.invalid.behavior", "2.0"},
	{"table.field.event.payload.id", "table.field.event.key", "2.0"},
	{"table.field.event.schema.version.field", "table.field.event.schema.version", "1.2"},
}

func checkRenamedKeys(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		prefixes := eventRouterPrefixes(c)
		for _, key := range sortedKeys(c.Config) {
			for _, rn := range renamedConnectorKeys {
				if key == rn.old || strings.HasSuffix(rn.old, ".*") && strings.HasPrefix(key, strings.TrimSuffix(rn.old, "*")) {
					repl := rn.new
					if strings.HasSuffix(rn.old, ".*") {
						repl = strings.TrimSuffix(rn.new, "*") + strings.TrimPrefix(key, strings.TrimSuffix(rn.old, "*"))
					}
					v.report(r, c, key, fmt.Sprintf("%s was replaced by %s in Debezium %s and is ignored by 3.6", key, repl, rn.since))
				}
			}
			for _, pfx := range prefixes {
				if !strings.HasPrefix(key, pfx) {
					continue
				}
				smtKey := strings.TrimPrefix(key, pfx)
				for _, rn := range renamedSMTKeys {
					if smtKey == rn.old {
						v.report(r, c, key, fmt.Sprintf("EventRouter option %s was replaced by %s in Debezium %s and is ignored by 3.6", smtKey, rn.new, rn.since))
					}
				}
			}
		}
	})
}

var snapshotModes = map[string][]string{
	"postgres": {"always", "initial", "initial_only", "no_data", "when_needed", "configuration_based", "custom"},
	"binlog":   {"always", "when_needed", "initial", "initial_only", "no_data", "recovery", "configuration_based", "custom"},
}

var removedSnapshotModes = map[string]string{
	"schema_only":          "no_data (schema_only was removed in Debezium 3.3)",
	"schema_only_recovery": "recovery (schema_only_recovery was removed in Debezium 3.3)",
	"never":                "no_data (never was removed in Debezium 3.3 for PostgreSQL and 3.6 for MySQL/MariaDB)",
}

func checkSnapshotMode(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		mode, ok := c.Config["snapshot.mode"]
		if !ok {
			return
		}
		kind := "binlog"
		if isPostgres(c) {
			kind = "postgres"
		} else if !isBinlog(c) {
			return
		}
		for _, m := range snapshotModes[kind] {
			if m == strings.ToLower(mode) {
				return
			}
		}
		if repl, ok := removedSnapshotModes[strings.ToLower(mode)]; ok {
			v.report(r, c, "snapshot.mode", fmt.Sprintf("snapshot.mode %q is not accepted by Debezium 3.6: use %s", mode, repl))
			return
		}
		v.report(r, c, "snapshot.mode", fmt.Sprintf("snapshot.mode %q is not a Debezium 3.6 mode; valid: %s", mode, strings.Join(snapshotModes[kind], ", ")))
	})
}

// checkSlotCanStall: Debezium's PostgreSQL heartbeat repeats the LSN of the
// last captured change, so only a heartbeat.action.query that writes to the
// connector's database moves a slot whose outbox table is quiet (verified on
// the real stack: TestIntegrationHeartbeatMovesSlot).
func checkSlotCanStall(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		if !isPostgres(c) {
			return
		}
		if !HeartbeatsOn(c.Config) {
			if o := v.outbox(c); o != nil && o.Connector.Has("heartbeat") {
				return // turned off in the spec
			}
			v.report(r, c, "heartbeat.interval.ms", "heartbeats are off: while the outbox table is quiet the slot's confirmed LSN does not move and PostgreSQL keeps all WAL that other tables and databases write")
			return
		}
		if strings.TrimSpace(c.Config["heartbeat.action.query"]) == "" {
			v.report(r, c, "heartbeat.interval.ms", "heartbeats without heartbeat.action.query repeat the LSN of the last outbox change: WAL written by other tables and databases stays retained by the slot; use "+PGHeartbeatQuery)
		}
	})
}

func checkSnapshotRepublishes(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		mode := strings.ToLower(c.Config["snapshot.mode"])
		if _, set := c.Config["snapshot.mode"]; !set {
			mode = "initial" // Debezium's default
		}
		switch mode {
		case "initial", "always", "when_needed", "initial_only":
		default:
			return
		}
		if o := v.outbox(c); o != nil && o.Connector.Has("snapshot") && o.Connector.Snapshot == mode {
			return // asked for in the spec
		}
		v.report(r, c, "snapshot.mode", fmt.Sprintf("snapshot.mode %s snapshots the outbox table: every row still in it is re-published as an event", mode))
	})
}

// ---- ER: EventRouter options ----

func checkRouteRegex(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		for _, pfx := range eventRouterPrefixes(c) {
			key := pfx + "route.topic.regex"
			p, ok := c.Config[key]
			if !ok {
				continue
			}
			if _, err := javaregex.Check(p); err != nil {
				v.report(r, c, key, fmt.Sprintf("route.topic.regex %q does not compile in Java: %v", p, err))
			}
		}
	})
}

func checkRouteReplacement(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		for _, pfx := range eventRouterPrefixes(c) {
			p, ok := c.Config[pfx+"route.topic.regex"]
			if !ok {
				p = eventrouter.DefaultRouteTopicRegex
			}
			res, err := javaregex.Check(p)
			if err != nil {
				continue // ROUTE_REGEX_INVALID
			}
			key := pfx + "route.topic.replacement"
			repl, ok := c.Config[key]
			if !ok {
				repl = eventrouter.DefaultRouteTopicReplacement
			}
			if err := javaregex.CheckReplacement(repl, res); err != nil {
				v.report(r, c, key, fmt.Sprintf("route.topic.replacement %q fails at the first record: %v", repl, err))
			}
		}
	})
}

func checkPlacements(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		for _, pfx := range eventRouterPrefixes(c) {
			key := pfx + "table.fields.additional.placement"
			raw, ok := c.Config[key]
			if !ok {
				continue
			}
			entries := eventrouter.ParsePlacements(raw)
			if raw == "" || len(entries) == 0 {
				v.report(r, c, key, "table.fields.additional.placement is empty: remove the key or add column:placement entries")
				continue
			}
			partitions := 0
			for _, e := range entries {
				item := e.Item
				if !e.Valid {
					v.report(r, c, key, fmt.Sprintf("placement entry %q must be column:placement[:alias] (Debezium rejects it at task start)", item))
					continue
				}
				if e.Field.Column == "" {
					v.report(r, c, key, fmt.Sprintf("placement entry %q has no column", item))
				}
				switch e.Field.Placement {
				case eventrouter.PlacementHeader, eventrouter.PlacementEnvelope:
				case eventrouter.PlacementPartition:
					partitions++
					if e.HasAlias {
						v.reportSev(r, SeverityWarning, c, key, fmt.Sprintf("placement entry %q: partition ignores the alias", item))
					}
				default:
					v.report(r, c, key, fmt.Sprintf("placement entry %q: unknown placement %q (header, envelope or partition); Debezium accepts it at start and fails on the first record with a NullPointerException", item, e.Field.Raw))
				}
			}
			if partitions > 1 {
				v.reportSev(r, SeverityWarning, c, key, "several partition placements: only the last one is used")
			}
		}
	})
}

func checkEnums(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		for _, pfx := range eventRouterPrefixes(c) {
			for _, e := range eventrouter.EnumOptions() {
				key := pfx + e.Key
				val, ok := c.Config[key]
				if !ok {
					continue
				}
				if _, ok := e.Lookup(val); !ok {
					v.report(r, c, key, fmt.Sprintf("%s %q is not one of %s", e.Key, val, strings.Join(e.Values, ", ")))
				}
			}
			if val, ok := c.Config[pfx+"table.json.payload.empty.array.behavior"]; ok {
				v.report(r, c, pfx+"table.json.payload.empty.array.behavior", fmt.Sprintf("table.json.payload.empty.array.behavior=%s exists only from Debezium 3.7; 3.6 ignores it", val))
			}
		}
	})
}

// ---- PG: PostgreSQL ----

var pgNameRe = regexp.MustCompile(`^[a-z0-9_]+$`)

func checkSlotNames(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		if !isPostgres(c) {
			return
		}
		for _, key := range []string{"slot.name", "publication.name"} {
			name, ok := c.Config[key]
			if !ok {
				continue
			}
			switch {
			case name == "":
				v.report(r, c, key, key+" is empty")
			case len(name) > 63:
				v.report(r, c, key, fmt.Sprintf("%s %q is %d characters long; PostgreSQL allows 63", key, name, len(name)))
			case !pgNameRe.MatchString(name):
				v.report(r, c, key, fmt.Sprintf("%s %q may only contain lower-case letters, digits and '_'", key, name))
			}
		}
	})
}

func checkPlugin(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		if !isPostgres(c) {
			return
		}
		p, ok := c.Config["plugin.name"]
		switch {
		case !ok:
			v.report(r, c, "plugin.name", "plugin.name is not set: Debezium 3.6 defaults to decoderbufs, which needs a server extension; set pgoutput")
		case p != "pgoutput":
			v.report(r, c, "plugin.name", fmt.Sprintf("plugin.name %q: use pgoutput (built into PostgreSQL 10+)", p))
		}
	})
}

// checkOutboxTableShared finds outboxes of the spec that read one table:
// the same server (host and port), for PostgreSQL the same database, and
// the same schema.table. Each connector (or relay) publishes every row.
func checkOutboxTableShared(r *Rule, v *validation) {
	seen := map[string]*Connector{}
	v.each(func(c *Connector) {
		o := v.outbox(c)
		if o == nil {
			return
		}
		conn := o.Database.Connection
		k := strings.ToLower(o.Database.Kind) + "://" + strings.ToLower(conn.Host) + ":" + strconv.Itoa(conn.Port)
		if o.Database.Kind == "postgres" {
			k += "/" + conn.DBName
		}
		k += "/" + o.QualifiedTable()
		prev, ok := seen[k]
		if !ok {
			seen[k] = c
			return
		}
		p := o.PosOf("table")
		v.findings = append(v.findings, Finding{
			Rule: r.ID, Severity: r.Severity, File: p.File, Line: p.Line, Col: p.Col, Connector: c.Name, Key: "table",
			Message: fmt.Sprintf("outbox %s reads table %s on %s:%d, as outbox %s (connector %s) does: every event would be published twice", o.Name, o.QualifiedTable(), conn.Host, conn.Port, prev.Outbox, prev.Name),
			Hint:    r.Hint,
		})
	})
}

func checkSlotClash(r *Rule, v *validation) {
	slots := map[string]*Connector{}
	pubs := map[string]*Connector{}
	v.each(func(c *Connector) {
		if !isPostgres(c) {
			return
		}
		slot := c.Config["slot.name"]
		if slot == "" {
			slot = "debezium"
		}
		k := dbServer(c) + "/" + slot
		if prev, ok := slots[k]; ok {
			v.report(r, c, "slot.name", fmt.Sprintf("replication slot %q is also used by connector %s on server %s: slots are cluster-wide and one connector each", slot, prev.Name, dbServer(c)))
		} else {
			slots[k] = c
		}
		pub := c.Config["publication.name"]
		if pub == "" {
			pub = "dbz_publication"
		}
		k = dbServer(c) + "/" + c.Config["database.dbname"] + "/" + pub
		if prev, ok := pubs[k]; ok {
			v.report(r, c, "publication.name", fmt.Sprintf("publication %q in database %s is also used by connector %s: with autocreate mode filtered each connector rewrites its table list", pub, c.Config["database.dbname"], prev.Name))
		} else {
			pubs[k] = c
		}
	})
}

// ---- KT: topics and delivery ----

func checkExactlyOnce(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		if c.Relay || !strings.EqualFold(strings.TrimSpace(c.Config["exactly.once.support"]), "required") {
			return
		}
		msg := "exactly-once delivery: Kafka Connect writes each poll's records and source offsets in one transaction; the worker must have exactly.once.source.support=enabled (distributed mode) or it refuses the connector, and consumers must read with isolation.level=read_committed to skip aborted records"
		if b := c.Config["transaction.boundary"]; b != "" && b != "poll" {
			msg += fmt.Sprintf("; transaction.boundary is %q, but Debezium supports only poll", b)
		}
		v.report(r, c, "exactly.once.support", msg)
	})
}

func checkTopicReplication(r *Rule, v *validation) {
	if v.spec == nil || v.spec.Kafka.Brokers < 3 {
		return
	}
	brokers := v.spec.Kafka.Brokers
	v.each(func(c *Connector) {
		if rf, err := strconv.Atoi(strings.TrimSpace(c.Config["topic.creation.default.replication.factor"])); err == nil && rf > 0 && rf < 3 {
			v.report(r, c, "topic.creation.default.replication.factor", fmt.Sprintf("replication factor %d on a cluster of %d brokers: losing %s loses the outbox's events or stops their publication", rf, brokers, map[bool]string{true: "the one replica", false: "a replica while the other is down"}[rf == 1]))
		}
		if isr, err := strconv.Atoi(strings.TrimSpace(c.Config["topic.creation.default.min.insync.replicas"])); err == nil && isr > 0 && isr < 2 {
			v.report(r, c, "topic.creation.default.min.insync.replicas", fmt.Sprintf("min.insync.replicas %d on a cluster of %d brokers: an acks=all write counts once the leader alone has it, and the leader's loss loses it", isr, brokers))
		}
	})
}
