package eventrouter

import (
	"errors"
	"fmt"
	"strings"
)

// Op codes of Debezium change events.
const (
	OpCreate   = "c"
	OpUpdate   = "u"
	OpDelete   = "d"
	OpRead     = "r" // snapshot
	OpTruncate = "t"
)

// Column is one column of the row image: its Connect schema (as the
// connector builds it, see ColumnSchema) and its value (nil for SQL NULL).
type Column struct {
	Name   string
	Schema *Schema
	Value  any
}

// InputHeader is a header already on the change record (Connect level).
type InputHeader struct {
	Key    string
	Schema *Schema
	Value  any
	// Volatile marks a value that differs per task start (runId).
	Volatile bool
}

// ChangeEvent is what the connector hands to the SMT for one outbox row.
type ChangeEvent struct {
	// Op is c, u, d, r or t.
	Op string
	// Table is "<schema>.<table>" (PostgreSQL) or "<database>.<table>"
	// (MySQL, MariaDB); it names the CDC topic and the after schema.
	Table string
	// After is the row after the change (nil for deletes and truncates).
	After []Column
	// KeyColumns are the primary key columns (the CDC record key; it only
	// shows up in the error of table.op.invalid.behavior=fatal). Default: id.
	KeyColumns []string
	// TsMs is the envelope ts_ms (connector processing time), the record
	// timestamp unless table.field.event.timestamp is set. Nil: unknown.
	TsMs *int64
	// RunID is the __debezium.context.runId header value (a random UUID per
	// task start). Empty: a placeholder marked Volatile.
	RunID string
	// Headers, when not nil, replace the headers the connector adds
	// (by default the __debezium.context.* headers).
	Headers []InputHeader
	// Tombstone is the Kafka tombstone Debezium emits after a delete
	// (tombstones.on.delete=true).
	Tombstone bool
	// NotEnvelope names a non-change record (heartbeat, schema change,
	// transaction metadata, logical-decoding message): it passes the SMT.
	NotEnvelope string
	// ValueSchemaName overrides the after schema name (default
	// "<topic.prefix>.<Table>.Value").
	ValueSchemaName string
	// ConnectorError, when set, is the connector failing to build this
	// event (a column value converter threw under
	// event.converting.failure.handling.mode=fail, see
	// ColumnSettings.ConvertFailure): Route returns it, whatever
	// errors.tolerance says.
	ConnectorError *TaskError
}

// Header is a serialized Kafka record header. A nil Value is a null header.
type Header struct {
	Key   string
	Value []byte
	// Volatile: the real value differs per task start (runId); Value is a
	// placeholder.
	Volatile bool
	// Hashes are the offsets in Value of Java identity hashes, written as
	// PlaceholderIdentityHash (different in every JVM run; see
	// MatchIdentityHashes).
	Hashes []int
}

// Record is the Kafka record the task produces.
type Record struct {
	Topic string
	// Partition is set only by a partition placement; nil lets the producer
	// partition by the serialized key bytes.
	Partition *int32
	Key       []byte // nil: null key
	Headers   []Header
	Value     []byte // nil: tombstone
	// KeyHashes and ValueHashes are the offsets in Key and Value of Java
	// identity hashes, written as PlaceholderIdentityHash: the real bytes
	// there differ in every JVM run (see MatchIdentityHashes).
	KeyHashes, ValueHashes []int
	// Timestamp is the record timestamp when it is known: from
	// table.field.event.timestamp, or ChangeEvent.TsMs. Nil: the envelope
	// ts_ms (connector processing time), unknown to the emulator.
	Timestamp *int64
	// TimestampSource is "column <name>" or "envelope ts_ms".
	TimestampSource string
	// Connect is the record before serialization (schemas and values).
	Connect ConnectRecord
}

// ConnectRecord is the SMT's output at the Connect data level.
type ConnectRecord struct {
	KeySchema, ValueSchema *Schema
	Key, Value             any
	Headers                []InputHeader
}

// Result is what happens to one change event.
type Result struct {
	// Dropped: nothing is written (delete, update, tombstone, or a failing
	// record skipped by errors.tolerance=all). Reason says why.
	Dropped bool
	Reason  string
	// PassThrough: the SMT (or its predicate) leaves the record unchanged;
	// it goes to its CDC topic as a Debezium envelope (not emulated).
	PassThrough bool
	Record      *Record
	// Logs are the WARN/ERROR lines the SMT logs for this record.
	Logs []string
}

// Router is an EventRouter instance with its per-task state: the envelope
// value-schema caches, keyed by payload schema (or by schema version), so a
// sequence of events behaves like one task. Not safe for concurrent use.
type Router struct {
	cfg         Config
	json        *jsonSchemaData
	schemaCache []schemaCacheEntry
	verCache    map[string]*Schema
}

type schemaCacheEntry struct{ payload, value *Schema }

// NewRouter returns a Router for cfg (from ParseConfig).
func NewRouter(cfg Config) *Router {
	return &Router{cfg: cfg, json: newJSONSchemaData(&cfg), verCache: map[string]*Schema{}}
}

// Route emulates one event on a freshly started task. See Router.Route.
func Route(cfg Config, ev ChangeEvent) (Result, error) { return NewRouter(cfg).Route(ev) }

// Route runs ev through the EventRouter and the converters. An error that
// unwraps to ErrTaskFailed (a *TaskError) means the real task fails on this
// record; with errors.tolerance=all such records are reported as Dropped
// instead. ErrInvalidEvent and ErrUnsupported are errors of the input or of
// the emulator.
func (r *Router) Route(ev ChangeEvent) (Result, error) {
	res, err := r.route(ev)
	var te *TaskError
	if err != nil && errors.As(err, &te) && r.cfg.ErrorsTolerance == "all" && te.Stage != StageProducer && te.Stage != StageConnector {
		return Result{Dropped: true, Reason: "skipped by errors.tolerance=all: " + te.Error(), Logs: res.Logs}, nil
	}
	if err != nil && errors.As(err, &te) && r.cfg.ErrorsTolerance == "all" && te.Exception == excInvalidTopic {
		// the producer reports an invalid topic name through the send
		// callback, which skips the record under errors.tolerance=all
		// (KIP-779; the differential test's xml_route_by_money_key saw
		// the real task keep RUNNING on MariaDB)
		return Result{Dropped: true, Reason: "skipped by errors.tolerance=all (the producer's send callback): " + te.Error(), Logs: res.Logs}, nil
	}
	return res, err
}

func (r *Router) originalTopic(ev ChangeEvent) string {
	return r.cfg.TopicPrefix + "." + ev.Table
}

// route is the EventRouter in Debezium's own order of
// EventRouterDelegate.apply: which records it handles at all (skip), the
// after struct and its payload, the timestamp and the headers, the JSON
// expansion, the envelope, the additional placements, the key and the
// topic; then the worker's converters and the producer's checks (produce).
func (r *Router) route(ev ChangeEvent) (Result, error) {
	cfg := &r.cfg
	var res Result
	if ev.ConnectorError != nil {
		return res, ev.ConnectorError
	}
	if done, err := r.skip(ev, &res); done || err != nil {
		return res, err
	}
	if ev.After == nil {
		return res, dataException("Only Struct objects supported for [Read Outbox Event], found: null")
	}
	after, err := r.afterStruct(ev)
	if err != nil {
		return res, err
	}
	as := after.Schema

	payloadField := as.Field(cfg.FieldPayload)
	if payloadField == nil {
		return res, taskErr(excConnect, "Unable to find payload field %s in event", cfg.FieldPayload)
	}
	payloadSchema := payloadField.Schema

	rec := &Record{}
	if err := r.timestamp(after, ev, rec); err != nil {
		return res, err
	}
	eventID, err := after.Get(cfg.FieldEventID)
	if err != nil {
		return res, err
	}
	payload, _ := after.Get(cfg.FieldPayload)

	headers := r.incomingHeaders(ev)
	headers = append(headers, InputHeader{Key: "id", Schema: as.Field(cfg.FieldEventID).Schema, Value: eventID})

	if cfg.ExpandJSON {
		payload, payloadSchema = r.expandPayload(ev, payload, payloadSchema, &res)
	}

	envelope := cfg.Envelope()
	var valueSchema *Schema
	var valueStruct *Struct
	if envelope {
		if valueSchema, valueStruct, err = r.envelopeValue(after, payloadSchema, payload); err != nil {
			return res, err
		}
	}

	partition, headers, err := r.placeAdditional(after, valueStruct, headers)
	if err != nil {
		return res, err
	}

	isEmpty := payload == nil || javaTrim(javaToString(payload)) == ""
	var value any
	var vschema *Schema
	switch {
	case isEmpty && cfg.TombstoneOnEmpty:
	case !envelope:
		value, vschema = payload, payloadSchema
	default:
		value, vschema = valueStruct, valueSchema
	}

	key, err := after.Get(cfg.FieldEventKey)
	if err != nil {
		return res, err
	}
	keySchema := &Schema{Type: String}
	if f := as.Field(cfg.FieldEventKey); f != nil {
		keySchema = f.Schema
	}
	topic, err := r.topic(after)
	if err != nil {
		return res, err
	}

	rec.Topic = topic
	rec.Partition = partition
	rec.Connect = ConnectRecord{KeySchema: keySchema, Key: key, ValueSchema: vschema, Value: value, Headers: headers}

	if err := r.produce(rec, headers, keySchema, key, vschema, value); err != nil {
		return res, err
	}
	res.Record = rec
	return res, nil
}

// skip decides the records the EventRouter does not route: a predicate
// that does not apply and a record that is not a change-event envelope pass
// through; tombstones, deletes and (by table.op.invalid.behavior) updates
// are dropped. done reports that res is final.
func (r *Router) skip(ev ChangeEvent, res *Result) (done bool, err error) {
	cfg := &r.cfg
	if p := cfg.Predicate; p != nil {
		applies := true
		switch {
		case p.re != nil:
			applies = p.re.re.Matches(r.originalTopic(ev))
		case strings.HasSuffix(p.Type, "RecordIsTombstone"):
			applies = ev.Tombstone
		case strings.HasSuffix(p.Type, "HasHeaderKey"):
			return true, fmt.Errorf("%w: HasHeaderKey predicate", ErrUnsupported)
		}
		if p.Negate {
			applies = !applies
		}
		if !applies {
			res.PassThrough = true
			res.Reason = fmt.Sprintf("predicate %s does not apply to topic %s: the change event passes unchanged", p.Alias, r.originalTopic(ev))
			return true, nil
		}
	}
	if ev.Tombstone {
		res.Dropped = true
		res.Reason = "tombstone (null value) ignored by the EventRouter"
		return true, nil
	}
	if ev.NotEnvelope != "" {
		res.PassThrough = true
		res.Reason = ev.NotEnvelope + " record is not a change-event envelope: passed through unchanged"
		return true, nil
	}
	switch ev.Op {
	case OpDelete:
		res.Dropped = true
		res.Reason = "delete event ignored by the EventRouter"
		return true, nil
	case OpUpdate:
		key := r.cdcKeyString(ev)
		switch cfg.InvalidOp {
		case InvalidOpFatal:
			return true, taskErr(excIllegalState, "Unexpected update message received %s, fail.", key)
		case InvalidOpError:
			res.Logs = append(res.Logs, "ERROR Unexpected update message received "+key+" and ignored")
		default:
			res.Logs = append(res.Logs, "WARN Unexpected update message received "+key+" and ignored")
		}
		res.Dropped = true
		res.Reason = fmt.Sprintf("update event ignored (table.op.invalid.behavior=%s)", cfg.InvalidOp)
		return true, nil
	case "":
		return true, fmt.Errorf("%w: op is empty (want c, u, d, r or t)", ErrInvalidEvent)
	}
	return false, nil
}

// expandPayload is table.expand.json.payload: a string payload that parses
// as JSON becomes a struct (its schema inferred), else it stays and a
// warning is logged.
func (r *Router) expandPayload(ev ChangeEvent, payload any, payloadSchema *Schema, res *Result) (any, *Schema) {
	switch p := payload.(type) {
	case string:
		replaced, ps, pv, warn := r.expand(p)
		if replaced {
			payloadSchema = ps
		}
		if pv != nil {
			payload = pv
		}
		if warn != "" {
			res.Logs = append(res.Logs, "WARN JSON expansion failed: "+warn)
		}
	case nil:
	default:
		res.Logs = append(res.Logs, "WARN Expand JSON payload is turned on but payload is not a string in "+r.cdcKeyString(ev))
	}
	return payload, payloadSchema
}

// envelopeValue builds the envelope value (the payload and the envelope
// placements to come) with its schema, cached by schema version or by the
// payload's schema as Debezium caches it.
func (r *Router) envelopeValue(after *Struct, payloadSchema *Schema, payload any) (valueSchema *Schema, valueStruct *Struct, err error) {
	cfg := &r.cfg
	as := after.Schema
	var ver *int32
	verKey := ""
	if cfg.FieldSchemaVer != "" {
		v, err := after.getCheckType(cfg.FieldSchemaVer, Int32)
		if err != nil {
			return nil, nil, err
		}
		if v != nil {
			x, ok := v.(int32)
			if !ok {
				return nil, nil, classCastError(v, "java.lang.Integer")
			}
			ver = &x
			verKey = fmt.Sprint(x)
		} else {
			verKey = "null"
		}
	}
	rb, err := after.getCheckType(cfg.RouteByField, String)
	if err != nil {
		return nil, nil, err
	}
	routeBy, _ := rb.(string)
	if rb == nil {
		routeBy = "null" // Java string concatenation of a null reference
	}
	if cfg.FieldSchemaVer == "" {
		valueSchema, err = r.cachedBySchema(payloadSchema, as, routeBy)
	} else {
		valueSchema, err = r.cachedByVersion(verKey, ver, payloadSchema, as, routeBy)
	}
	if err != nil {
		return nil, nil, err
	}
	valueStruct = NewStruct(valueSchema)
	if err := valueStruct.Put("payload", payload); err != nil {
		return nil, nil, err
	}
	return valueSchema, valueStruct, nil
}

// placeAdditional applies table.fields.additional.placement: envelope
// fields into valueStruct, headers appended to headers, and the partition.
func (r *Router) placeAdditional(after *Struct, valueStruct *Struct, headers []InputHeader) (*int32, []InputHeader, error) {
	cfg := &r.cfg
	as := after.Schema
	var partition *int32
	for _, f := range cfg.Additional {
		if cfg.AdditionalMissing == "ignore" && as.Field(f.Column) == nil {
			continue
		}
		switch f.Placement {
		case PlacementEnvelope:
			v, err := after.Get(f.Column)
			if err != nil {
				return nil, nil, err
			}
			if err := valueStruct.Put(f.Alias, v); err != nil {
				return nil, nil, err
			}
		case PlacementHeader:
			v, err := after.Get(f.Column)
			if err != nil {
				return nil, nil, err
			}
			headers = append(headers, InputHeader{Key: f.Alias, Schema: as.Field(f.Column).Schema, Value: v})
		case PlacementPartition:
			v, err := after.getCheckType(f.Column, Int32)
			if err != nil {
				return nil, nil, err
			}
			if v == nil {
				partition = nil
			} else {
				p, ok := v.(int32)
				if !ok {
					return nil, nil, classCastError(v, "java.lang.Integer")
				}
				partition = &p
			}
		default:
			return nil, nil, taskErr(excNPE, "unknown placement %q in table.fields.additional.placement (switch on a null AdditionalFieldPlacement)", f.Raw)
		}
	}
	return partition, headers, nil
}

// topic is the routed topic: route.by.field's value through
// route.topic.regex and route.topic.replacement.
func (r *Router) topic(after *Struct) (string, error) {
	cfg := &r.cfg
	rb, err := after.getCheckType(cfg.RouteByField, String)
	if err != nil {
		return "", err
	}
	if rb == nil {
		return "", taskErr(excNPE, "route.by.field %s is null (RegexRouter matches on a null topic)", cfg.RouteByField)
	}
	return cfg.regex.route(rb.(string), cfg.RouteReplacement)
}

// produce is the worker after the transform: the header, key and value
// converters fill rec's bytes, and the producer's own checks (topic name,
// timestamp) run.
func (r *Router) produce(rec *Record, headers []InputHeader, keySchema *Schema, key any, vschema *Schema, value any) error {
	cfg := &r.cfg
	var err error
	// Worker: header converter, key converter, value converter, producer.
	for _, h := range headers {
		b, err := convertHeader(cfg.HeaderConverter, h.Schema, h.Value)
		if err != nil {
			if errors.Is(err, ErrUnsupported) {
				err = fmt.Errorf("header %s: %w", h.Key, err)
			}
			return atStage(err, StageHeaderConverter)
		}
		hh := Header{Key: h.Key, Value: b, Volatile: h.Volatile}
		hh.Hashes = allIdentityHashes(cfg.HeaderConverter, h.Schema, h.Value, b)
		rec.Headers = append(rec.Headers, hh)
	}
	if rec.Key, err = convert(cfg.KeyConverter, keySchema, key); err != nil {
		if errors.Is(err, ErrUnsupported) {
			err = fmt.Errorf("key: %w", err)
		}
		return atStage(err, StageKeyConverter)
	}
	rec.KeyHashes = allIdentityHashes(cfg.KeyConverter, keySchema, key, rec.Key)
	if rec.Value, err = convert(cfg.ValueConverter, vschema, value); err != nil {
		if errors.Is(err, ErrUnsupported) {
			err = fmt.Errorf("value: %w", err)
		}
		return atStage(err, StageValueConverter)
	}
	rec.ValueHashes = allIdentityHashes(cfg.ValueConverter, vschema, value, rec.Value)
	if msg := InvalidTopicMessage(rec.Topic); msg != "" {
		if cfg.TopicCreation {
			// Connect describes the topic before it creates it; the
			// broker refuses the name (measured on Kafka Connect 4.3.1).
			return &TaskError{Stage: StageProducer, Exception: excConnect, Message: fmt.Sprintf(
				"Error while attempting to describe topics '%s' (caused by %s: The request attempted to perform an operation on an invalid topic.)", rec.Topic, excInvalidTopic)}
		}
		// The producer refuses to send to it (Kafka's Topic.validate).
		return &TaskError{Stage: StageProducer, Exception: excInvalidTopic, Message: msg}
	}
	if rec.Timestamp != nil && *rec.Timestamp < -1 {
		return &TaskError{Stage: StageProducer, Exception: excInvalidRecord, Message: fmt.Sprintf("Invalid record timestamp %d", *rec.Timestamp)}
	}
	if rec.Timestamp != nil && *rec.Timestamp == -1 {
		rec.Timestamp = nil
		rec.TimestampSource = "none (-1): set by the producer"
	}
	return nil
}

// afterStruct builds the after struct and checks the sample values against
// their schemas.
func (r *Router) afterStruct(ev ChangeEvent) (*Struct, error) {
	name := ev.ValueSchemaName
	if name == "" {
		name = r.originalTopic(ev) + ".Value"
	}
	s := &Schema{Type: StructT, Optional: true, Name: name}
	vals := make([]any, 0, len(ev.After))
	for _, c := range ev.After {
		if c.Schema == nil {
			return nil, fmt.Errorf("%w: column %s has no schema", ErrInvalidEvent, c.Name)
		}
		if s.Field(c.Name) != nil {
			return nil, fmt.Errorf("%w: duplicate column %s", ErrInvalidEvent, c.Name)
		}
		if err := validateValue(c.Name, c.Schema, c.Value); err != nil {
			return nil, fmt.Errorf("%w: column %s: %v", ErrInvalidEvent, c.Name, err)
		}
		s.Fields = append(s.Fields, Field{Name: c.Name, Schema: c.Schema})
		vals = append(vals, c.Value)
	}
	return &Struct{Schema: s, Values: vals}, nil
}

// cdcKeyString is the CDC record key's toString (Struct{id=…}).
func (r *Router) cdcKeyString(ev ChangeEvent) string {
	cols := ev.KeyColumns
	if cols == nil {
		cols = []string{"id"}
	}
	var parts []string
	row := ev.After
	for _, k := range cols {
		for _, c := range row {
			if c.Name == k && c.Value != nil {
				parts = append(parts, k+"="+javaToString(c.Value))
			}
		}
	}
	return "Struct{" + strings.Join(parts, ",") + "}"
}

func (r *Router) incomingHeaders(ev ChangeEvent) []InputHeader {
	if ev.Headers != nil {
		return append([]InputHeader{}, ev.Headers...)
	}
	if !r.cfg.ExtendedHeaders {
		return nil
	}
	return ContextHeaders(r.cfg, ev.RunID)
}

// PlaceholderRunID stands for the random per-task-start runId.
const PlaceholderRunID = "00000000-0000-0000-0000-000000000000"

// ContextHeaders are the __debezium.context.* headers Debezium (3.4+, with
// extended.headers.enabled=true) puts on every change record, in order. An
// empty runID gives PlaceholderRunID marked Volatile.
func ContextHeaders(cfg Config, runID string) []InputHeader {
	str := &Schema{Type: String}
	name := string(cfg.Connector)
	volatile := runID == ""
	if volatile {
		runID = PlaceholderRunID
	}
	return []InputHeader{
		{Key: "__debezium.context.connectorLogicalName", Schema: str, Value: cfg.TopicPrefix},
		{Key: "__debezium.context.taskId", Schema: str, Value: "0"},
		{Key: "__debezium.context.connectorName", Schema: str, Value: name},
		{Key: "__debezium.context.runId", Schema: str, Value: runID, Volatile: volatile},
	}
}

func (r *Router) timestamp(after *Struct, ev ChangeEvent, rec *Record) error {
	col := r.cfg.FieldTimestamp
	envelopeTs := func() {
		rec.TimestampSource = "envelope ts_ms"
		if ev.TsMs != nil {
			t := *ev.TsMs
			rec.Timestamp = &t
		}
	}
	if col == "" && !r.cfg.timestampSet {
		envelopeTs()
		return nil
	}
	f := after.Schema.Field(col)
	if f == nil {
		return taskErr(excConnect, "Unable to find timestamp field %s in event", col)
	}
	v, err := after.getCheckType(col, Int64)
	if err != nil {
		return err
	}
	if v == nil {
		envelopeTs()
		return nil
	}
	t, ok := v.(int64)
	if !ok {
		// Struct.getInt64's cast of a Connect Timestamp's java.util.Date
		return classCastError(v, "java.lang.Long")
	}
	switch f.Schema.Name {
	case "":
		return taskErr(excConnect, "Unsupported field type %s (without logical schema name) for event timestamp", javaTypeName(f.Schema.Type))
	case NameTimestamp:
	case NameMicroTimestamp:
		t /= 1000
	case NameNanoTimestamp:
		t /= 1000000
	default:
		return taskErr(excConnect, "Unsupported field type %s for event timestamp", f.Schema.Name)
	}
	rec.Timestamp = &t
	rec.TimestampSource = "column " + col
	return nil
}

// expand is the table.expand.json.payload step. It reports whether the
// payload schema is replaced and by what (possibly nil: a top-level []), the
// new value (nil: unchanged; with replaced set this is the quirk where the
// schema is replaced but building the value failed) and the WARN text.
func (r *Router) expand(p string) (bool, *Schema, any, string) {
	if !strings.HasPrefix(p, "{") && !strings.HasPrefix(p, "[") {
		if p != "" {
			return false, nil, nil, "Unable to parse payload starting with '" + string([]rune(p)[:1]) + "'"
		}
		return false, nil, nil, "java.lang.StringIndexOutOfBoundsException (empty payload)"
	}
	n, err := parseJackson(p)
	if err != nil {
		return false, nil, nil, err.Error()
	}
	s, err := r.json.toConnectSchema(r.cfg.FieldPayload, true, n)
	if err != nil {
		return false, nil, nil, err.Error()
	}
	if s == nil {
		// Java assigns the null schema; building the value then fails.
		return true, nil, nil, "java.lang.NullPointerException (no schema for the payload)"
	}
	v, err := r.json.toConnectData(n, s)
	if err != nil {
		return true, s, nil, err.Error()
	}
	return true, s, v, ""
}

func (r *Router) cachedBySchema(payload, after *Schema, routeBy string) (*Schema, error) {
	for _, e := range r.schemaCache {
		if e.payload.Equal(payload) {
			return e.value, nil
		}
	}
	s, err := r.buildValueSchema(payload, after, routeBy)
	if err != nil {
		return nil, err
	}
	r.schemaCache = append(r.schemaCache, schemaCacheEntry{payload, s})
	return s, nil
}

func (r *Router) cachedByVersion(key string, ver *int32, payload, after *Schema, routeBy string) (*Schema, error) {
	if s, ok := r.verCache[key]; ok {
		return s, nil
	}
	s, err := r.buildValueSchema(payload, after, routeBy)
	if err != nil {
		return nil, err
	}
	s.Version = ver
	r.verCache[key] = s
	return s, nil
}

func (r *Router) buildValueSchema(payload, after *Schema, routeBy string) (*Schema, error) {
	name := routeBy
	if after.Name != "" {
		if i := strings.LastIndex(after.Name, "."); i >= 0 {
			name = after.Name[:i+1] + routeBy + "." + after.Name[i+1:]
		} else {
			name = routeBy + "." + after.Name
		}
	}
	if payload == nil {
		return nil, taskErr(excSchemaBuilder, "fieldSchema for field payload cannot be null.")
	}
	s := &Schema{Type: StructT, Name: name}
	s.Fields = append(s.Fields, Field{Name: "payload", Schema: payload})
	for _, f := range r.cfg.Additional {
		if f.Placement != PlacementEnvelope {
			continue
		}
		af := after.Field(f.Column)
		if af == nil {
			if r.cfg.EventRouterVersion == Version35 {
				return nil, taskErr(excNPE, "envelope placement of missing column %s (3.5 EventRouter)", f.Column)
			}
			if r.cfg.AdditionalMissing == "error" {
				return nil, taskErr(excConnect, "Unable to find field %s in event", f.Column)
			}
			continue
		}
		if s.Field(f.Alias) != nil {
			return nil, taskErr(excSchemaBuilder, "Cannot create field because of field name duplication %s", f.Alias)
		}
		s.Fields = append(s.Fields, Field{Name: f.Alias, Schema: af.Schema})
	}
	return s, nil
}

// javaTrim is String.trim(): strips chars <= U+0020 at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}
