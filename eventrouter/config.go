package eventrouter

import (
	"fmt"
	"sort"
	"strings"
)

// EventRouterClass is the class name of Debezium's outbox EventRouter SMT.
const EventRouterClass = "io.debezium.transforms.outbox.EventRouter"

// Placement is where table.fields.additional.placement puts a column.
type Placement string

// Placements. An unknown keyword passes Debezium's validator and makes the
// first routed record fail with a NullPointerException; it is kept as
// PlacementUnknown so that Route can reproduce that.
const (
	PlacementHeader    Placement = "header"
	PlacementEnvelope  Placement = "envelope"
	PlacementPartition Placement = "partition"
	PlacementUnknown   Placement = ""
)

// AdditionalField is one entry of table.fields.additional.placement.
type AdditionalField struct {
	Column    string
	Placement Placement
	Alias     string // the column name when no alias is given
	Raw       string // the placement keyword as written
}

// InvalidOpBehavior is table.op.invalid.behavior.
type InvalidOpBehavior string

// Behaviours for an update reaching the SMT.
const (
	InvalidOpWarn  InvalidOpBehavior = "warn"
	InvalidOpError InvalidOpBehavior = "error"
	InvalidOpFatal InvalidOpBehavior = "fatal"
)

// ConverterKind names an emulated Kafka Connect converter.
type ConverterKind string

// Emulated converters.
const (
	JSONConverter         ConverterKind = "org.apache.kafka.connect.json.JsonConverter"
	StringConverter       ConverterKind = "org.apache.kafka.connect.storage.StringConverter"
	ByteArrayConverter    ConverterKind = "org.apache.kafka.connect.converters.ByteArrayConverter"
	SimpleHeaderConverter ConverterKind = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
	BinaryDataConverter   ConverterKind = "io.debezium.converters.BinaryDataConverter"
)

// Converter is a configured key, value or header converter.
type Converter struct {
	Kind ConverterKind
	// JsonConverter: schemas.enable (default true) and
	// replace.null.with.default (default true).
	SchemasEnable          bool
	ReplaceNullWithDefault bool
	// DecimalNumeric: JsonConverter decimal.format=NUMERIC (case
	// insensitive; BASE64 is the default): a Decimal is written as a
	// JSON number, BigDecimal.toString (Jackson's DecimalNode without
	// WRITE_BIGDECIMAL_AS_PLAIN), not as base64 bytes.
	DecimalNumeric bool
	// BinaryDataConverter: the delegate used for non-BYTES data (nil: none
	// configured, which makes such data fail).
	Delegate *Converter
	// Source is where the converter was configured: "connector" or "worker".
	Source string
}

// Predicate is the transform's predicate (transforms.<alias>.predicate).
type Predicate struct {
	Alias   string
	Type    string
	Pattern string // TopicNameMatches
	Negate  bool
	re      *javaRegex
}

// ConnectorKind is the Debezium source connector behind the config.
type ConnectorKind string

// Connector kinds the emulator knows the column mapping of.
const (
	Postgres ConnectorKind = "postgresql"
	MySQL    ConnectorKind = "mysql"
	MariaDB  ConnectorKind = "mariadb"
)

// ConnectorKindOf is the kind of the Debezium connector class (its simple
// name, any package): Postgres, MySQL, MariaDB, or "" for any other class.
// The one place that maps a connector.class to a kind.
func ConnectorKindOf(class string) ConnectorKind {
	switch {
	case strings.HasSuffix(class, "PostgresConnector"):
		return Postgres
	case strings.HasSuffix(class, "MySqlConnector"):
		return MySQL
	case strings.HasSuffix(class, "MariaDbConnector"):
		return MariaDB
	}
	return ""
}

// Config is everything that decides what the EventRouter and the converters
// emit for a change event: the SMT options (with Debezium 3.6.1 defaults),
// the converters, errors.tolerance, the predicate and the connector facts
// that show up in the output (topic.prefix, extended headers).
type Config struct {
	Alias          string
	ConnectorClass string
	Connector      ConnectorKind
	// EventRouterVersion is Version36 or Version35 (see ParseOptions).
	EventRouterVersion string
	TopicPrefix        string
	// TopicCreation: Connect creates the routed topics (the worker's
	// topic.creation.enable, default true, and the connector's
	// topic.creation.default.partitions and .replication.factor): a
	// routed topic is described before the first record is sent.
	TopicCreation bool
	// ExtendedHeaders is extended.headers.enabled (default true): the four
	// __debezium.context.* headers on every record.
	ExtendedHeaders bool

	FieldEventID      string // table.field.event.id (id)
	FieldEventKey     string // table.field.event.key (aggregateid)
	FieldEventType    string // table.field.event.type (type; inert)
	FieldPayload      string // table.field.event.payload (payload)
	FieldTimestamp    string // table.field.event.timestamp ("" = envelope ts_ms)
	FieldSchemaVer    string // table.field.event.schema.version
	RouteByField      string // route.by.field (aggregatetype)
	RouteTopicRegex   string // route.topic.regex
	RouteReplacement  string // route.topic.replacement
	TombstoneOnEmpty  bool   // route.tombstone.on.empty.payload
	InvalidOp         InvalidOpBehavior
	ExpandJSON        bool   // table.expand.json.payload
	JSONNullBehavior  string // table.json.payload.null.behavior: ignore | optional_bytes
	FieldNameAdjust   string // field.name.adjustment.mode: none | avro | avro_unicode
	Additional        []AdditionalField
	AdditionalMissing string // table.field.additional.missing: error | ignore

	TracingContextField string // tracing.span.context.field
	TracingOperation    string // tracing.operation.name
	TracingContextOnly  bool   // tracing.with.context.field.only (forced true when absent)

	Predicate *Predicate
	// ColumnSettings are the connector settings that change column values
	// (time.precision.mode, binary.handling.mode,
	// bigint.unsigned.handling.mode).
	ColumnSettings ColumnSettings
	// ErrorsTolerance is errors.tolerance: "none" (a failing record fails the
	// task) or "all" (it is skipped).
	ErrorsTolerance string

	KeyConverter, ValueConverter, HeaderConverter Converter

	// Warnings are things in the config the emulator ignores (other
	// transforms in the chain, keys removed in 3.6).
	Warnings []string

	regex        *javaRegex
	timestampSet bool // table.field.event.timestamp is set (even to "")
}

// Envelope reports whether any placement is envelope (the value is then a
// struct {payload, aliases…} instead of the bare payload).
func (c *Config) Envelope() bool {
	for _, f := range c.Additional {
		if f.Placement == PlacementEnvelope {
			return true
		}
	}
	return false
}

// DefaultWorkerConfig is the worker config assumed by ParseConfig: no worker
// converter settings, so JsonConverter with schemas.enable=true (the
// converter's own default) for keys and values and SimpleHeaderConverter for
// headers (the worker default). Most deployments set the worker converters;
// pass them to ParseConfigWithWorker.
var DefaultWorkerConfig = map[string]string{
	"key.converter":   string(JSONConverter),
	"value.converter": string(JSONConverter),
}

// ParseConfig reads a connector config map (the "config" object of a Kafka
// Connect connector) for the transform alias (for example "outbox"; empty
// picks the only EventRouter in transforms). Converters not set on the
// connector come from DefaultWorkerConfig.
func ParseConfig(m map[string]string, transformAlias string) (Config, error) {
	return ParseConfigWithWorker(m, transformAlias, DefaultWorkerConfig)
}

// ParseConfigWithWorker is ParseConfig with the worker's properties, from
// which key.converter, value.converter, header.converter and their settings
// are taken when the connector does not set them.
//
// Errors: *ConfigError for what the real task rejects when it starts
// (EventRouter configure(): enum values, the placement grammar, a regex that
// does not compile; Connect: a non-boolean boolean), and for what the
// emulator cannot model (ErrUnsupported).
func ParseConfigWithWorker(m map[string]string, transformAlias string, worker map[string]string) (Config, error) {
	return ParseConfigWithOptions(m, transformAlias, ParseOptions{Worker: worker})
}

// EventRouter versions with different semantics.
const (
	// Version36 is Debezium 3.6.x (the default): table.field.additional.missing.
	Version36 = "3.6"
	// Version35 is Debezium 3.5.x, as shipped in the MariaDB 3.5.0 connector
	// plugin (its own debezium-connect-plugins jar): the boolean
	// table.fields.additional.error.on.missing (default true), and an
	// envelope placement of a missing column fails with a
	// NullPointerException whatever that flag says.
	Version35 = "3.5"
)

// ParseOptions are the facts about the deployment that a connector config
// does not carry.
type ParseOptions struct {
	// Worker is the worker's properties (converters); nil means
	// DefaultWorkerConfig.
	Worker map[string]string
	// EventRouterVersion is the Debezium version of the EventRouter the
	// connector's plugin directory ships: Version36 (default) or Version35.
	EventRouterVersion string
	// WorkerTimeZone is the Connect worker JVM's default time zone
	// (ColumnSettings.WorkerTimeZone): "" is UTC.
	WorkerTimeZone string
}

// ParseConfigWithOptions is ParseConfig with deployment facts (worker
// converters, EventRouter version).
func ParseConfigWithOptions(m map[string]string, transformAlias string, opts ParseOptions) (Config, error) {
	worker := opts.Worker
	if worker == nil {
		worker = DefaultWorkerConfig
	}
	c := Config{ConnectorClass: m["connector.class"], TopicPrefix: m["topic.prefix"], EventRouterVersion: opts.EventRouterVersion}
	switch c.EventRouterVersion {
	case "":
		c.EventRouterVersion = Version36
	case Version36, Version35:
	default:
		return c, &ConfigError{Key: "EventRouterVersion", Value: c.EventRouterVersion, Message: "want 3.6 or 3.5", Unsupported: true}
	}
	c.Connector = ConnectorKindOf(c.ConnectorClass)
	c.ColumnSettings = ParseColumnSettings(m)
	c.ColumnSettings.WorkerTimeZone = opts.WorkerTimeZone
	if (c.Connector == MySQL || c.Connector == MariaDB) && c.ColumnSettings.TimePrecisionMode == "adaptive" {
		// BinlogConnectorConfig.validateTimePrecisionMode (3.5, 3.6)
		return c, &ConfigError{Key: "time.precision.mode", Value: m["time.precision.mode"], Connector: true,
			Message: "The 'adaptive' time.precision.mode is no longer supported (the MySQL / MariaDB connector's config validation, as Connect's validate answers it: the connector is not created; adaptive_time_microseconds is the default)"}
	}
	if c.Connector == Postgres || c.Connector == MySQL || c.Connector == MariaDB {
		if !timeModes[c.ColumnSettings.TimePrecisionMode] {
			// the connectors' config validation (Connect's validate
			// answers it on 3.6.1 PostgreSQL and 3.5.0 MariaDB)
			return c, &ConfigError{Key: "time.precision.mode", Value: m["time.precision.mode"], Connector: true,
				Message: "The 'time.precision.mode' value is invalid: Value must be one of adaptive, adaptive_time_microseconds, isostring, microseconds, nanoseconds, connect"}
		}
	}
	_, parts := m["topic.creation.default.partitions"]
	_, rf := m["topic.creation.default.replication.factor"]
	c.TopicCreation = parts && rf && !strings.EqualFold(strings.TrimSpace(worker["topic.creation.enable"]), "false")
	var err error
	if c.ExtendedHeaders, err = boolKey(m, "extended.headers.enabled", true); err != nil {
		return c, err
	}

	aliases := SplitList(m["transforms"])
	if transformAlias == "" {
		switch routers := Aliases(m); len(routers) {
		case 0:
			return c, &ConfigError{Key: "transforms", Value: m["transforms"], Message: "no transform of type " + EventRouterClass}
		case 1:
			transformAlias = routers[0]
		default:
			return c, &ConfigError{Key: "transforms", Value: m["transforms"], Message: "several EventRouter transforms; pass the alias"}
		}
	}
	c.Alias = transformAlias
	found := false
	for _, a := range aliases {
		if a == transformAlias {
			found = true
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("transform %q (%s) is not emulated; only %q is", a, m["transforms."+a+".type"], transformAlias))
		}
	}
	if !found {
		return c, &ConfigError{Key: "transforms", Value: m["transforms"], Message: fmt.Sprintf("transform %q is not listed", transformAlias)}
	}
	p := "transforms." + transformAlias + "."
	if t := strings.TrimSpace(m[p+"type"]); t != EventRouterClass {
		return c, &ConfigError{Key: p + "type", Value: t, Message: "not the outbox EventRouter (" + EventRouterClass + ")"}
	}
	get := func(k, def string) string {
		if v, ok := m[p+k]; ok {
			return v
		}
		return def
	}
	c.FieldEventID = get("table.field.event.id", "id")
	c.FieldEventKey = get("table.field.event.key", "aggregateid")
	c.FieldEventType = get("table.field.event.type", "type")
	c.FieldPayload = get("table.field.event.payload", "payload")
	c.FieldTimestamp = get("table.field.event.timestamp", "")
	_, c.timestampSet = m[p+"table.field.event.timestamp"]
	c.FieldSchemaVer = get("table.field.event.schema.version", "")
	c.RouteByField = get("route.by.field", "aggregatetype")
	c.RouteTopicRegex = get("route.topic.regex", DefaultRouteTopicRegex)
	c.RouteReplacement = get("route.topic.replacement", DefaultRouteTopicReplacement)
	c.TracingContextField = get("tracing.span.context.field", "tracingspancontext")
	c.TracingOperation = get("tracing.operation.name", "debezium-read")
	if c.TombstoneOnEmpty, err = boolKey(m, p+OptionTombstoneOnEmpty.Key, false); err != nil {
		return c, err
	}
	if c.ExpandJSON, err = boolKey(m, p+OptionExpandJSONPayload.Key, false); err != nil {
		return c, err
	}
	if c.TracingContextOnly, err = boolKey(m, p+OptionTracingContextOnly.Key, true); err != nil {
		return c, err
	}
	op, err := enumOpt(m, p, OptionOpInvalidBehavior)
	if err != nil {
		return c, err
	}
	c.InvalidOp = InvalidOpBehavior(op)
	if c.JSONNullBehavior, err = enumOpt(m, p, OptionJSONNullBehavior); err != nil {
		return c, err
	}
	if c.EventRouterVersion == Version35 {
		errOnMissing, err := boolKey(m, p+"table.fields.additional.error.on.missing", true)
		if err != nil {
			return c, err
		}
		c.AdditionalMissing = "error"
		if !errOnMissing {
			c.AdditionalMissing = "ignore"
		}
		if _, ok := m[p+"table.field.additional.missing"]; ok {
			c.Warnings = append(c.Warnings, p+"table.field.additional.missing does not exist in the 3.5 EventRouter (use table.fields.additional.error.on.missing)")
		}
	} else if c.AdditionalMissing, err = enumOpt(m, p, OptionAdditionalMissing); err != nil {
		return c, err
	}
	if c.FieldNameAdjust, err = enumOpt(m, p, OptionFieldNameAdjustment); err != nil {
		return c, err
	}
	if _, ok := m[p+"table.fields.additional.error.on.missing"]; ok && c.EventRouterVersion != Version35 {
		c.Warnings = append(c.Warnings, p+"table.fields.additional.error.on.missing is ignored by Debezium 3.6 (use table.field.additional.missing)")
	}
	if v, ok := m[p+"table.fields.additional.placement"]; ok {
		if c.Additional, err = parsePlacements(p+"table.fields.additional.placement", v); err != nil {
			return c, err
		}
	}
	if c.regex, err = compileJavaRegex(c.RouteTopicRegex); err != nil {
		return c, &ConfigError{Key: p + "route.topic.regex", Value: c.RouteTopicRegex, Message: err.Error(), Unsupported: isUnsupported(err)}
	}

	if pa := m[p+"predicate"]; pa != "" {
		pr := &Predicate{Alias: pa, Type: strings.TrimSpace(m["predicates."+pa+".type"]), Pattern: m["predicates."+pa+".pattern"]}
		if pr.Negate, err = boolKey(m, p+"negate", false); err != nil {
			return c, err
		}
		switch pr.Type {
		case "org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "TopicNameMatches":
			if pr.re, err = compileJavaRegex(pr.Pattern); err != nil {
				return c, &ConfigError{Key: "predicates." + pa + ".pattern", Value: pr.Pattern, Message: err.Error(), Unsupported: isUnsupported(err)}
			}
		case "org.apache.kafka.connect.transforms.predicates.HasHeaderKey", "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone":
		default:
			return c, &ConfigError{Key: "predicates." + pa + ".type", Value: pr.Type, Message: "predicate type not emulated", Unsupported: true}
		}
		c.Predicate = pr
	}

	c.ErrorsTolerance = "none"
	if v, ok := m["errors.tolerance"]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "none":
		case "all":
			c.ErrorsTolerance = "all"
		default:
			return c, &ConfigError{Key: "errors.tolerance", Value: v, Message: "must be one of none, all"}
		}
	}

	if c.KeyConverter, err = parseConverter(m, worker, "key.converter", JSONConverter); err != nil {
		return c, err
	}
	if c.ValueConverter, err = parseConverter(m, worker, "value.converter", JSONConverter); err != nil {
		return c, err
	}
	if c.HeaderConverter, err = parseConverter(m, worker, "header.converter", SimpleHeaderConverter); err != nil {
		return c, err
	}
	return c, nil
}

func isUnsupported(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrUnsupported.Error())
}

// parsePlacements follows EventRouterConfigDefinition.parseAdditionalFieldsConfig
// and AdditionalFieldsValidator: Java String.split semantics (trailing empty
// items dropped), 2 or 3 colon-separated parts, trimmed.
func parsePlacements(key, v string) ([]AdditionalField, error) {
	var out []AdditionalField
	for _, e := range ParsePlacements(v) {
		if !e.Valid {
			return nil, &ConfigError{Key: key, Value: v, Message: "A comma-separated list of valid String pairs or trios is expected but got: [" + strings.Join(javaSplit(v, ","), ", ") + "]"}
		}
		out = append(out, e.Field)
	}
	return out, nil
}

// javaSplit is Java's String.split(literal): trailing empty strings are
// removed (but "" splits to [""]).
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	if s == "" {
		return parts
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// Aliases returns the aliases of the EventRouter transforms of a connector
// config, in "transforms" order (Connect trims class names).
func Aliases(config map[string]string) []string {
	var out []string
	for _, a := range SplitList(config["transforms"]) {
		if strings.TrimSpace(config["transforms."+a+".type"]) == EventRouterClass {
			out = append(out, a)
		}
	}
	return out
}

// SplitList splits a Kafka Connect list value ("transforms",
// "table.include.list", "skipped.operations", ...) at commas, trimming each
// item and dropping empty ones.
func SplitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// boolKey parses a Kafka ConfigDef BOOLEAN (trimmed, case-insensitive).
func boolKey(m map[string]string, k string, def bool) (bool, error) {
	v, ok := m[k]
	if !ok {
		return def, nil
	}
	// Kafka's ConfigDef: trim, then equalsIgnoreCase.
	switch t := javaTrim(v); {
	case javaEqualsIgnoreCase(t, "true"):
		return true, nil
	case javaEqualsIgnoreCase(t, "false"):
		return false, nil
	}
	return def, &ConfigError{Key: k, Value: v, Message: "Expected value to be either true or false"}
}

// enumOpt reads an enum option: trimmed, case-insensitive.
func enumOpt(m map[string]string, prefix string, o EnumOption) (string, error) {
	v, ok := m[prefix+o.Key]
	if !ok {
		return o.Default, nil
	}
	if a, ok := o.Lookup(v); ok {
		return a, nil
	}
	return o.Default, &ConfigError{Key: prefix + o.Key, Value: v, Message: "Value must be one of " + strings.Join(o.Values, ", ")}
}

var converterAliases = map[string]ConverterKind{
	"JsonConverter":         JSONConverter,
	"StringConverter":       StringConverter,
	"ByteArrayConverter":    ByteArrayConverter,
	"SimpleHeaderConverter": SimpleHeaderConverter,
	"BinaryDataConverter":   BinaryDataConverter,
}

func converterKind(class string) (ConverterKind, bool) {
	class = strings.TrimSpace(class)
	if k, ok := converterAliases[class]; ok {
		return k, true
	}
	for _, k := range converterAliases {
		if string(k) == class {
			return k, true
		}
	}
	return "", false
}

// parseConverter resolves prop (key.converter, value.converter,
// header.converter) the way the worker does: the connector's setting with
// the connector's prop.* options, else the worker's with the worker's options.
func parseConverter(conn, worker map[string]string, prop string, def ConverterKind) (Converter, error) {
	src, where := conn, "connector"
	if _, ok := conn[prop]; !ok {
		src, where = worker, "worker"
	}
	class, ok := src[prop]
	if !ok {
		if prop != "header.converter" {
			return Converter{}, &ConfigError{Key: prop, Message: "not set on the connector nor on the worker"}
		}
		class = string(def)
	}
	k, ok := converterKind(class)
	if !ok {
		return Converter{}, &ConfigError{Key: prop, Value: class, Message: "converter not emulated (JsonConverter, StringConverter, ByteArrayConverter, BinaryDataConverter, SimpleHeaderConverter are)", Unsupported: true}
	}
	cv := Converter{Kind: k, Source: where}
	opts := map[string]string{}
	for key, v := range src {
		if strings.HasPrefix(key, prop+".") {
			opts[strings.TrimPrefix(key, prop+".")] = v
		}
	}
	var err error
	switch k {
	case JSONConverter:
		if cv.SchemasEnable, err = boolKey(opts, "schemas.enable", true); err != nil {
			return cv, prefixKey(err, prop+".")
		}
		if cv.ReplaceNullWithDefault, err = boolKey(opts, "replace.null.with.default", true); err != nil {
			return cv, prefixKey(err, prop+".")
		}
		if f, ok := opts["decimal.format"]; ok {
			// JsonConverterConfig: CaseInsensitiveValidString.in(BASE64, NUMERIC)
			switch {
			case javaEqualsIgnoreCase(f, "numeric"):
				cv.DecimalNumeric = true
			case javaEqualsIgnoreCase(f, "base64"):
			default:
				return cv, &ConfigError{Key: prop + ".decimal.format", Value: f, Message: "String must be one of (case insensitive): BASE64, NUMERIC"}
			}
		}
	case StringConverter:
		if e, ok := opts["converter.encoding"]; ok && !strings.EqualFold(strings.ReplaceAll(e, "-", ""), "utf8") {
			return cv, &ConfigError{Key: prop + ".converter.encoding", Value: e, Message: "only UTF-8 is emulated", Unsupported: true}
		}
	case BinaryDataConverter:
		if d, ok := opts["delegate.converter.type"]; ok {
			sub := map[string]string{"x": d}
			for key, v := range opts {
				if strings.HasPrefix(key, "delegate.converter.type.") {
					sub["x."+strings.TrimPrefix(key, "delegate.converter.type.")] = v
				}
			}
			dc, err := parseConverter(sub, nil, "x", JSONConverter)
			if err != nil {
				return cv, err
			}
			cv.Delegate = &dc
		}
	}
	return cv, nil
}

func prefixKey(err error, p string) error {
	if ce, ok := err.(*ConfigError); ok {
		c := *ce
		c.Key = p + c.Key
		return &c
	}
	return err
}

// SortedKeys returns the keys of m in order (a helper for deterministic output).
func SortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
