package connectorconfig

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/spec"
)

// Connector classes and the Kafka Connect classes the generator uses.
const (
	PostgresConnectorClass = "io.debezium.connector.postgresql.PostgresConnector"
	MySQLConnectorClass    = "io.debezium.connector.mysql.MySqlConnector"
	MariaDBConnectorClass  = "io.debezium.connector.mariadb.MariaDbConnector"
	EventRouterClass       = eventrouter.EventRouterClass
	TopicNameMatchesClass  = "org.apache.kafka.connect.transforms.predicates.TopicNameMatches"
	StringConverterClass   = "org.apache.kafka.connect.storage.StringConverter"
	ByteArrayConverter     = "org.apache.kafka.connect.converters.ByteArrayConverter"
	JSONConverterClass     = "org.apache.kafka.connect.json.JsonConverter"
	BinaryDataConverter    = "io.debezium.converters.BinaryDataConverter"
)

// TransformAlias and PredicateAlias name the EventRouter transform and its
// predicate in generated configs: the EventRouter's keys are
// "transforms.outbox.*".
const (
	TransformAlias = "outbox"
	PredicateAlias = "isOutbox"
	// SMTPrefix is the prefix of every EventRouter option.
	SMTPrefix = "transforms." + TransformAlias + "."
)

// Server ids of MySQL and MariaDB connectors are derived from the connector
// name: ServerIDBase + FNV-1a(name) mod ServerIDRange, moved to the next
// free id when two connectors of one spec would clash. The range stays clear
// of the small ids database servers usually have.
const (
	ServerIDBase  = 1_000_000_000
	ServerIDRange = 1_000_000_000
)

// profile is the settings of a connector profile: poll.interval.ms,
// max.batch.size and max.queue.size, and the measurement they were chosen
// from (the "# reason:" of each key; docs/benchmarks.md has the runs).
type profile struct {
	poll, batch, queue string
	// linger, when set, is producer.override.linger.ms: how long Connect's
	// producer waits to fill a batch (Kafka 4's default is 5 ms). The
	// override needs the worker's connector.client.config.override.policy
	// to allow it (All, Kafka's default since 3.0).
	linger string
	reason string
}

// Profiles, tuned with `outboxctl bench` on the native stack (PostgreSQL 15
// with synchronous_commit=on, Debezium 3.6.1, 2 cores that the stack, the
// writer and the consumer share, so the absolute figures are upper bounds;
// the comparisons ran back to back; docs/benchmarks.md has the runs).
var profiles = map[string]profile{
	// poll.interval.ms is how long the task waits when its queue is empty,
	// which an event at a steady rate nearly always meets: it adds up to
	// its value to every event.
	spec.ProfileLatency: {poll: "5", batch: "2048", queue: "8192", linger: "0",
		reason: "profile latency: chosen by outboxctl bench (PostgreSQL, JSON outbox, 4 partitions, 10 s runs on a 2-core machine, 2026-12-03): " +
			"poll.interval.ms 5 with producer.override.linger.ms 0 gave p99 15.3-17.1 ms at 100 events/s (p50 8.9-9.6 ms) and 36-87 ms at 1,000/s; " +
			"the former poll 10 with Kafka's default 5 ms linger 28.5-29.5 ms at 100/s (p50 17.6-18.4 ms) and 26-423 ms at 1,000/s; " +
			"poll 1 gave 8.9-15.5 ms at 100/s, but the idle Connect worker then used 50% of a core against 19% at poll 5 and 12% at poll 10. " +
			"With the PostgreSQL inbox at 1,000/s the two cores saturate and all three gave p99 77-366 ms. The batch and queue only bound bursts"},
	// Large batches drain a backlog in few polls; the poll interval adds
	// latency without adding throughput, because it only applies to an
	// empty queue.
	spec.ProfileThroughput: {poll: "100", batch: "8192", queue: "32768",
		reason: "profile throughput: chosen by outboxctl bench --rate max (no inbox, 4 partitions, 5 s steps, sustained = nothing lost, p99 <= 2 s): " +
			"poll 100 ms with batch 8192 sustained 2,400 events/s (p99 1.2 s; 1,600/s at p99 344 ms), poll 250 ms 2,200/s (p99 1.0 s), poll 1,000 ms (the former value) no rate at all, " +
			"p50 1.4-2.3 s and p99 2.5-4.0 s even at 13-200 events/s"},
}

// Options tune Generate.
type Options struct {
	// Lookup resolves ${env:…} and ${file:…} secret references. When nil the
	// references are left in the config as written (for display and local
	// validation); deploy passes a Lookup.
	Lookup *spec.Lookup
	// BootstrapServers is used for schema.history.internal.kafka.bootstrap.servers
	// when the spec sets no kafka.bootstrapServers.
	BootstrapServers string
	// ConnectBootstrapServers is Kafka as Kafka Connect sees it, a setting
	// of the deployment (kafka:9092 when Connect runs in docker compose). When
	// set it is used for schema.history.internal.kafka.bootstrap.servers over
	// the spec's kafka.bootstrapServers and BootstrapServers.
	ConnectBootstrapServers string
}

// Generate builds one Debezium 3.6 connector config, with the outbox
// EventRouter, per outbox of s. The result is deterministic: connectors in
// spec order, every value derived from the spec alone.
//
// Errors come from unresolvable secrets (they wrap spec.ErrSecretUnresolved
// and start with the spec position of the reference); a config that Debezium
// would reject is not an error here: Validate reports it as findings.
func Generate(s *spec.Spec, opts Options) ([]Connector, error) {
	var out []Connector
	var errs []error
	for i := range s.Outboxes {
		c, err := generateOne(s, &s.Outboxes[i], opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	assignServerIDs(s, out)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// GenerateOutbox is Generate for the one outbox of s named name (the only
// one when name is empty): its connector and the outbox. Every outbox is
// generated, so settings derived across the spec (MySQL server IDs) are those
// Generate gives. An unknown or missing name is a *spec.OutboxNotFoundError.
func GenerateOutbox(s *spec.Spec, name string, opts Options) (Connector, *spec.Outbox, error) {
	o, err := s.Outbox(name)
	if err != nil {
		return Connector{}, nil, err
	}
	cs, err := Generate(s, opts)
	if err != nil {
		return Connector{}, nil, err
	}
	for _, c := range cs {
		if c.Provenance.Outbox == o.Name {
			return c, o, nil
		}
	}
	return Connector{}, nil, fmt.Errorf("outbox %s: no connector generated", o.Name)
}

type builder struct {
	c   *Connector
	def spec.Pos
}

func (b *builder) set(key, value string, p spec.Pos, reason string) {
	b.c.Config[key] = value
	if p.IsZero() {
		p = b.def
	}
	b.c.Positions[key] = p
	if reason != "" {
		b.c.Reasons[key] = reason
	}
}

// generateOne builds the connector config of o, phase by phase: the
// connection, the profile and heartbeat, the topics Connect creates, the
// dialect's keys, the EventRouter, the header placements, then the spec's
// overrides (which win) and the secrets.
func generateOne(s *spec.Spec, o *spec.Outbox, opts Options) (Connector, error) {
	k := &o.Connector
	c := Connector{
		Name:   k.Name,
		Config: map[string]string{},
		State:  k.State,
		Provenance: Provenance{
			Outbox:    o.Name,
			Kind:      o.Database.Kind,
			Positions: map[string]spec.Pos{},
			Reasons:   map[string]string{},
			Relay:     o.RelayPublished(),
		},
	}
	def := o.Pos
	if o.Has("connector") {
		def = k.Pos
	}
	c.Source = def.String()
	b := &builder{c: &c, def: def}
	b.connection(o)
	b.profileAndHeartbeat(o)
	b.topicCreation(o)
	switch o.Database.Kind {
	case spec.Postgres:
		b.postgres(o)
	default:
		b.mysql(s, o, opts)
	}
	b.eventRouter(o)
	b.placements(o)
	b.overrides(k)
	if err := b.secrets(opts); err != nil {
		return Connector{}, err
	}
	return c, nil
}

// connectorPos is the position of key in the spec's connector section, or
// none when the spec does not set it.
func connectorPos(k *spec.ConnectorSpec, key string) spec.Pos {
	if k.Has(key) {
		return k.PosOf(key)
	}
	return spec.Pos{}
}

// connection sets the connector class, the database connection, the
// captured table, the snapshot and what is never published.
func (b *builder) connection(o *spec.Outbox) {
	k, cn := &o.Connector, &o.Database.Connection
	kp := func(key string) spec.Pos { return connectorPos(k, key) }
	switch o.Database.Kind {
	case spec.Postgres:
		b.set("connector.class", PostgresConnectorClass, o.Database.PosOf("kind"), "")
	case spec.MySQL:
		b.set("connector.class", MySQLConnectorClass, o.Database.PosOf("kind"), "")
	case spec.MariaDB:
		b.set("connector.class", MariaDBConnectorClass, o.Database.PosOf("kind"), "")
	}
	b.set("tasks.max", "1", spec.Pos{}, "")
	b.set("database.hostname", cn.Host, cn.PosOf("host"), "")
	b.set("database.port", strconv.Itoa(cn.Port), cn.PosOf("port"), "")
	b.set("database.user", cn.User, cn.PosOf("user"), "")
	if cn.Password != "" {
		b.set("database.password", cn.Password, cn.PosOf("password"), "")
	}
	b.set("topic.prefix", k.TopicPrefix, kp("topicPrefix"), "never change it: topic names and the offsets partition {\"server\": prefix} are derived from it")
	b.set("table.include.list", regexp.QuoteMeta(o.Schema)+`\.`+regexp.QuoteMeta(o.Table), o.PosOf("table"), "capture only the outbox table")
	b.set("snapshot.mode", k.Snapshot, kp("snapshot"), snapshotReason(k.Snapshot))
	b.set("tombstones.on.delete", "false", spec.Pos{}, "deleting published outbox rows (cleanup) must not produce records; the EventRouter would drop the tombstones anyway")
	b.set("skipped.operations", "t", spec.Pos{}, "a TRUNCATE of the outbox table reaching the EventRouter fails the task")
}

// profileAndHeartbeat sets the latency profile's polling and batching, the
// converters and the heartbeat.
func (b *builder) profileAndHeartbeat(o *spec.Outbox) {
	k := &o.Connector
	kp := func(key string) spec.Pos { return connectorPos(k, key) }
	prof := profiles[k.Profile]
	b.set("poll.interval.ms", prof.poll, kp("profile"), prof.reason)
	b.set("max.batch.size", prof.batch, kp("profile"), "profile "+k.Profile+" (see poll.interval.ms)")
	b.set("max.queue.size", prof.queue, kp("profile"), "profile "+k.Profile+" (see poll.interval.ms; max.queue.size must exceed max.batch.size)")
	if prof.linger != "" {
		b.set("producer.override.linger.ms", prof.linger, kp("profile"), "profile "+k.Profile+" (see poll.interval.ms): Connect's producer sends at once instead of waiting up to 5 ms (Kafka 4's default) to fill a batch; needs the worker's connector.client.config.override.policy to allow it (All, Kafka's default since 3.0)")
	}
	b.set("key.converter", StringConverterClass, spec.Pos{}, "the key is the aggregate id column, a string")
	hb := k.HeartbeatInterval
	switch {
	case o.PayloadFormat == spec.FormatAvro && hb > 0:
		b.set("value.converter", BinaryDataConverter, o.PosOf("payloadFormat"), "avro: the payload column holds Confluent wire-format bytes; BinaryDataConverter writes BYTES untouched and hands heartbeat records (Structs, which ByteArrayConverter cannot write) to its delegate")
		b.set("value.converter.delegate.converter.type", JSONConverterClass, kp("heartbeat"), "heartbeat records are written as JSON")
		b.set("value.converter.delegate.converter.type.schemas.enable", "false", kp("heartbeat"), "")
	case o.PayloadFormat == spec.FormatAvro:
		b.set("value.converter", ByteArrayConverter, o.PosOf("payloadFormat"), "avro: the payload column holds Confluent wire-format bytes; ByteArrayConverter writes them untouched")
	default:
		b.set("value.converter", StringConverterClass, o.PosOf("payloadFormat"), "json: StringConverter writes the JSON text as is (JsonConverter would double-encode it as a JSON string)")
	}
	if hb > 0 {
		b.set("heartbeat.interval.ms", strconv.FormatInt(hb.Milliseconds(), 10), kp("heartbeat"), "a quiet outbox table never moves the connector's position: heartbeats commit it (topic "+HeartbeatTopic(k.TopicPrefix)+")")
	}
}

// topicCreation sets how Connect creates topics, and exactly-once
// delivery.
func (b *builder) topicCreation(o *spec.Outbox) {
	b.set("topic.creation.default.partitions", "-1", spec.Pos{}, "let Connect create routed topics with the broker defaults when the worker allows topic creation")
	rf, minISR := o.TopicReplication()
	if rf > 0 {
		b.set("topic.creation.default.replication.factor", strconv.Itoa(rf), o.Topics.PosOf("replicationFactor"), "topics.replicationFactor: a topic Connect creates gets the replication of the provisioned ones")
	} else {
		b.set("topic.creation.default.replication.factor", "-1", spec.Pos{}, "")
	}
	if minISR > 0 {
		b.set("topic.creation.default.min.insync.replicas", strconv.Itoa(minISR), o.Topics.PosOf("minInsyncReplicas"), "topics.minInsyncReplicas: with acks=all a record counts as written once this many replicas have it")
	}
	if o.ExactlyOnce() {
		b.set("exactly.once.support", "required", o.PosOf("delivery"), "delivery exactly-once: the worker must run the task with exactly-once source support (exactly.once.source.support=enabled) or refuse the connector")
		b.set("transaction.boundary", "poll", o.PosOf("delivery"), "one Kafka transaction per poll carries the records and the source offsets, so a restart never re-publishes committed records (the only boundary Debezium supports)")
	}

}

// postgres sets the PostgreSQL connector's database, plugin, slot and
// publication, and the heartbeat's logical decoding message.
func (b *builder) postgres(o *spec.Outbox) {
	k, cn := &o.Connector, &o.Database.Connection
	kp := func(key string) spec.Pos { return connectorPos(k, key) }
	hb := k.HeartbeatInterval
	b.set("database.dbname", cn.DBName, cn.PosOf("dbname"), "")
	b.set("plugin.name", "pgoutput", spec.Pos{}, "the 3.6 default is still decoderbufs, which needs a server extension")
	slot := k.SlotName
	if slot == "" {
		slot = PGIdentifier(k.Name, "")
	}
	pub := k.PublicationName
	if pub == "" {
		pub = PGIdentifier(k.Name, "_pub")
	}
	b.set("slot.name", slot, kp("slotName"), "slot names are cluster-wide: one per connector, [a-z0-9_], at most 63 characters")
	b.set("publication.name", pub, kp("publicationName"), "")
	b.set("publication.autocreate.mode", "filtered", spec.Pos{}, "filtered: the publication holds only the include-listed outbox table (all_tables needs superuser and publishes everything)")
	if o.Partitioned() {
		b.set("publish.via.partition.root", "true", o.PosOf("partitioning"), "partition inserts are published as the outbox (root) table, the one table.include.list names")
	}
	if hb > 0 {
		b.set("heartbeat.action.query", PGHeartbeatQuery, kp("heartbeat"), "heartbeats alone repeat the last LSN of an outbox change; WAL written by other tables or databases would stay retained by the slot: each heartbeat writes a logical decoding message that moves the slot")
		b.set("message.prefix.exclude.list", PGHeartbeatPrefix, kp("heartbeat"), "the heartbeat messages move the position but are not published")
	}
}

// mysql sets the MySQL and MariaDB connectors' database, server id and
// schema history.
func (b *builder) mysql(s *spec.Spec, o *spec.Outbox, opts Options) {
	k := &o.Connector
	kp := func(key string) spec.Pos { return connectorPos(k, key) }
	b.set("database.include.list", regexp.QuoteMeta(o.Schema), o.PosOf("schema"), "")
	if k.ServerID > 0 {
		b.set("database.server.id", strconv.FormatInt(k.ServerID, 10), kp("serverId"), "set in the spec; must be unique among the database's replicas and clients")
	}
	bs := s.Kafka.BootstrapServers
	bsPos := s.Kafka.PosOf("bootstrapServers")
	bsReason := ""
	switch {
	case opts.ConnectBootstrapServers != "":
		bs, bsPos = opts.ConnectBootstrapServers, spec.Pos{}
		bsReason = "Kafka as Kafka Connect sees it (the deployment's setting, over the spec's kafka.bootstrapServers)"
	case bs == "":
		bs, bsPos = opts.BootstrapServers, spec.Pos{}
	}
	if bs != "" {
		b.set("schema.history.internal.kafka.bootstrap.servers", bs, bsPos, bsReason)
	}
	topic := k.SchemaHistoryTopic
	if topic == "" {
		topic = "schema-history." + k.TopicPrefix
	}
	b.set("schema.history.internal.kafka.topic", topic, kp("schemaHistoryTopic"), "a dedicated single-partition topic with infinite retention, one per connector")
	b.set("schema.history.internal.store.only.captured.tables.ddl", "true", spec.Pos{}, "keep only the outbox table's DDL in the schema history")
	b.set("include.schema.changes", "false", spec.Pos{}, "schema change events would pass the EventRouter and reach topic <prefix>")
}

// eventRouter sets the EventRouter SMT, its predicate, columns and routing.
func (b *builder) eventRouter(o *spec.Outbox) {
	k := &o.Connector
	cols := &o.Columns
	cp := func(key string) spec.Pos {
		if cols.Has(key) {
			return cols.PosOf(key)
		}
		return spec.Pos{}
	}
	b.set("transforms", TransformAlias, spec.Pos{}, "")
	b.set(SMTPrefix+"type", EventRouterClass, spec.Pos{}, "")
	b.set(SMTPrefix+"predicate", PredicateAlias, spec.Pos{}, "apply the EventRouter to the outbox table's change events only; heartbeats pass unchanged")
	b.set("predicates", PredicateAlias, spec.Pos{}, "")
	b.set("predicates."+PredicateAlias+".type", TopicNameMatchesClass, spec.Pos{}, "")
	b.set("predicates."+PredicateAlias+".pattern", regexp.QuoteMeta(k.TopicPrefix+"."+o.Schema+"."+o.Table), spec.Pos{}, "")
	b.set(SMTPrefix+"table.field.event.id", cols.ID, cp("id"), "")
	b.set(SMTPrefix+"table.field.event.key", cols.AggregateID, cp("aggregateId"), "")
	b.set(SMTPrefix+"table.field.event.payload", cols.Payload, cp("payload"), "")
	b.set(SMTPrefix+"route.by.field", o.Routing.ByField, o.Routing.PosOf("byField"), "")
	if o.Routing.TopicRegex != "" {
		b.set(SMTPrefix+"route.topic.regex", o.Routing.TopicRegex, o.Routing.PosOf("topicRegex"), "")
	}
	b.set(SMTPrefix+"route.topic.replacement", o.Routing.TopicReplacement, o.Routing.PosOf("topicReplacement"), "")
	b.set(SMTPrefix+"table.op.invalid.behavior", "warn", spec.Pos{}, "updates of outbox rows are logged and dropped")
	if cols.Timestamp != "" {
		b.set(SMTPrefix+"table.field.event.timestamp", cols.Timestamp, cp("timestamp"), "the record timestamp comes from this column (a timestamp/datetime column, not timestamptz)")
	}
	if cols.Tracing != "" {
		b.set(SMTPrefix+"tracing.span.context.field", cols.Tracing, cp("tracing"), "")
	}
}

// placements sets the EventRouter's additional placements: the event type,
// schema version and trace context headers, and the spec's placements.
func (b *builder) placements(o *spec.Outbox) {
	cols := &o.Columns
	var items []string
	placementPos := spec.Pos{}
	if h := o.Headers.EventTypeHeader(); h != "" {
		items = append(items, cols.Type+":header:"+h)
		placementPos = o.Headers.PosOf("eventType")
	}
	if h := o.Headers.SchemaVersionHeader(); h != "" && cols.SchemaVersionColumn() != "" {
		items = append(items, cols.SchemaVersionColumn()+":header:"+h)
	}
	if h := o.Headers.TraceContext; h != "" && cols.Tracing != "" {
		items = append(items, cols.Tracing+":header:"+h)
	}
	for _, p := range o.Placements {
		if strings.EqualFold(p.Placement, "partition") {
			items = append(items, p.Column+":"+p.Placement) // partition ignores aliases
		} else {
			items = append(items, p.Column+":"+p.Placement+":"+p.Alias)
		}
		if placementPos.IsZero() {
			placementPos = p.Pos
		}
	}
	if o.Has("placements") && placementPos.IsZero() {
		placementPos = o.PosOf("placements")
	}
	if len(items) > 0 {
		b.set(SMTPrefix+"table.fields.additional.placement", strings.Join(items, ","), placementPos, "the event type and schema version travel as Kafka headers")
	}
}

// overrides applies the spec's connector.overrides: they come last and
// win; an empty value removes a key.
func (b *builder) overrides(k *spec.ConnectorSpec) {
	c := b.c
	keys := make([]string, 0, len(k.Overrides))
	for key := range k.Overrides {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := k.Overrides[key]
		if v == "" {
			delete(c.Config, key)
			delete(c.Reasons, key)
			continue
		}
		b.set(key, v, k.PosOf("overrides."+key), "")
		delete(c.Reasons, key)
		c.Reasons[key] = "override"
	}
}

// secrets lists the sensitive keys and, with opts.Lookup, resolves their
// ${…} references.
func (b *builder) secrets(opts Options) error {
	c := b.c
	for key := range c.Config {
		if IsSensitiveKey(key) {
			c.Sensitive = append(c.Sensitive, key)
		}
	}
	sort.Strings(c.Sensitive)
	if opts.Lookup != nil {
		for _, key := range c.Sensitive {
			v := c.Config[key]
			if !strings.HasPrefix(v, "${") {
				continue
			}
			r, err := opts.Lookup.Resolve(v)
			if err != nil {
				return fmt.Errorf("%s: connector %s: %s: %w", c.Positions[key], c.Name, key, err)
			}
			c.Config[key] = r
		}
	}
	return nil
}

func snapshotReason(mode string) string {
	switch mode {
	case "no_data":
		return "no_data: stream changes from now on; a data snapshot would re-publish every row still in the outbox table (snapshot reads are routed like inserts). On the first start, rows committed before Debezium reads its start position are not published: deploy before the service writes"
	case "initial", "always", "when_needed", "initial_only":
		return mode + " (asked for in the spec): existing outbox rows are re-published as events"
	}
	return ""
}

// IsSensitiveKey reports whether a config key holds a secret whose value
// must be masked in output. It is spec.IsSecretKey, the one list of secret
// keys, which the spec's rule on overrides uses too.
func IsSensitiveKey(key string) bool { return spec.IsSecretKey(key) }

var pgInvalid = regexp.MustCompile(`[^a-z0-9_]`)

// PGIdentifier derives a PostgreSQL replication slot or publication name
// from a connector name: lower case, characters outside [a-z0-9_] replaced
// by '_', suffix appended, at most 63 characters (a long name is cut and
// given an 8-hex-digit hash of the full name so that names stay distinct).
func PGIdentifier(name, suffix string) string {
	id := pgInvalid.ReplaceAllString(strings.ToLower(name), "_")
	if id == "" {
		id = "outbox"
	}
	if len(id)+len(suffix) <= 63 {
		return id + suffix
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	tail := fmt.Sprintf("_%08x", h.Sum32()) + suffix
	return id[:63-len(tail)] + tail
}

// PGHeartbeatPrefix is the prefix of the logical decoding messages a
// PostgreSQL connector's heartbeat.action.query writes; every generated
// PostgreSQL connector excludes it (message.prefix.exclude.list).
const PGHeartbeatPrefix = "outboxctl-heartbeat"

// PGHeartbeatQuery is the heartbeat.action.query of PostgreSQL connectors:
// a non-transactional logical decoding message in the connector's database.
// Heartbeats alone only repeat the LSN of the last captured change, so
// without it a slot whose outbox table is quiet retains all WAL that other
// tables and databases write (checked on the real stack by
// TestIntegrationHeartbeatMovesSlot). It needs no table and no privilege
// beyond the connector user's REPLICATION.
const PGHeartbeatQuery = "SELECT pg_logical_emit_message(false, '" + PGHeartbeatPrefix + "', now()::varchar)"

// HeartbeatTopic is the topic Debezium writes the heartbeats of a connector
// with topic.prefix prefix to, heartbeat.topics.prefix left at its default.
func HeartbeatTopic(prefix string) string { return "__debezium-heartbeat." + prefix }

// HeartbeatsOn reports whether a connector config sends heartbeats
// (heartbeat.interval.ms set and not 0).
func HeartbeatsOn(config map[string]string) bool {
	hb := config["heartbeat.interval.ms"]
	return hb != "" && hb != "0"
}

// PassesBytesThrough reports whether a value converter writes BYTES
// values (the Avro outbox payload) untouched: ByteArrayConverter and
// BinaryDataConverter, which write the same bytes for them.
func PassesBytesThrough(converter string) bool {
	return converter == ByteArrayConverter || converter == BinaryDataConverter
}

// HeartbeatTopicOf is the heartbeat topic of a connector config, "" when
// its heartbeats are off.
func HeartbeatTopicOf(config map[string]string) string {
	if !HeartbeatsOn(config) {
		return ""
	}
	// topic.heartbeat.prefix since Debezium 2.0; heartbeat.topics.prefix
	// before.
	for _, k := range []string{"topic.heartbeat.prefix", "heartbeat.topics.prefix"} {
		if p := config[k]; p != "" {
			return p + "." + config["topic.prefix"]
		}
	}
	return HeartbeatTopic(config["topic.prefix"])
}

// DefaultServerID is the server id derived from a connector name (before
// clash resolution).
func DefaultServerID(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return ServerIDBase + int64(h.Sum32())%ServerIDRange
}

// assignServerIDs gives every binlog connector without an explicit server
// id its derived id, moving to the next free id on a clash with an explicit
// id or an earlier connector (in name order), so the result does not depend
// on spec order.
func assignServerIDs(s *spec.Spec, cs []Connector) {
	used := map[int64]bool{}
	var pending []*Connector
	for i := range cs {
		c := &cs[i]
		if c.Kind == spec.Postgres || c.Kind == "" {
			continue
		}
		if v, ok := c.Config["database.server.id"]; ok {
			if id, err := strconv.ParseInt(v, 10, 64); err == nil {
				used[id] = true
			}
			continue
		}
		pending = append(pending, c)
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Name < pending[j].Name })
	for _, c := range pending {
		id := DefaultServerID(c.Name)
		reason := fmt.Sprintf("FNV-1a hash of the connector name into [%d, %d); must differ from every server id of the database's replicas and clients", ServerIDBase, ServerIDBase+ServerIDRange)
		for used[id] {
			id = ServerIDBase + (id-ServerIDBase+1)%ServerIDRange
			reason += " (moved to the next free id: another connector of this spec hashed to the same id)"
		}
		used[id] = true
		c.Config["database.server.id"] = strconv.FormatInt(id, 10)
		if c.Positions["database.server.id"].IsZero() {
			for i := range s.Outboxes {
				if s.Outboxes[i].Name == c.Outbox {
					c.Positions["database.server.id"] = s.Outboxes[i].Connector.Pos
					if c.Positions["database.server.id"].IsZero() {
						c.Positions["database.server.id"] = s.Outboxes[i].Pos
					}
				}
			}
		}
		c.Reasons["database.server.id"] = reason
	}
}
