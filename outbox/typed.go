package outbox

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"

	"github.com/outboxctl/outboxctl/internal/avrofield"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
	"github.com/outboxctl/outboxctl/schemas/wire"
	"github.com/outboxctl/outboxctl/spec"
)

// ErrSchema: the writer schema of an event type and major version could
// not be found (no WithSchemas source, not in the catalog, not registered,
// the registry unreachable). Nothing is written; the error also wraps the
// registry's error (registry.ErrSchemaNotFound, registry.ErrUnreachable).
var ErrSchema = errors.New("outbox writer schema")

// SchemaSource gives the writer schema of an event type's major version
// and the registry id written into the Confluent wire header:
// schemasource.ByEventType. Implementations must be safe for concurrent
// use.
//
// Deprecated: use schemasource.ByEventType, the same type.
type SchemaSource = schemasource.ByEventType

// WithSchemas sets where typed Avro writes (Event.Value on an avro outbox)
// find their schema and id: RegistryByEventType in production. Pinned
// schemas (WithPinnedSchema) take precedence.
func WithSchemas(src schemasource.ByEventType) Option {
	return func(w *Writer) { w.schemas = src }
}

// WithPinnedSchema pins the schema and registry id of one event type and
// major version, so that no registry is asked for it (for example an id
// fixed at deploy time).
func WithPinnedSchema(eventType string, major int, id uint32, schema avro.Schema) Option {
	return func(w *Writer) {
		if w.pinned == nil {
			w.pinned = map[schemaKey]resolvedSchema{}
		}
		w.pinned[schemaKey{eventType, major}] = resolvedSchema{id, schema}
	}
}

// WithLogger sets the logger of the writer's few events worth logging
// (a schema id looked up in the registry, at Debug), overriding the
// default of no logging.
func WithLogger(l *slog.Logger) Option {
	return func(w *Writer) { w.log = l }
}

type schemaKey struct {
	eventType string
	major     int
}

type resolvedSchema struct {
	id     uint32
	schema avro.Schema
}

// SchemaLookup is the registry call RegistryByEventType makes; the project's
// *registry.Client satisfies it.
type SchemaLookup interface {
	Lookup(ctx context.Context, subject, schema string, refs ...registry.Reference) (*registry.Schema, error)
}

// Catalog is where RegistryByEventType finds an event version's subject and
// schema; *schemas.Catalog (schemas.BuildCatalog of the spec) is one.
type Catalog interface {
	WriterSchema(outboxName, eventType string, major int) (subject string, source []byte, schema avro.Schema, ok bool)
}

// RegistryByEventType is the schemasource.ByEventType of outbox
// outboxName in a spec's schema catalog (schemas.BuildCatalog): each
// (event type, major)'s schema is the catalog's (the spec's .avsc), and its
// id is looked up once in the registry under the catalog's subject,
// without registering anything (registry.Client.Lookup), then cached for
// the life of the source. A failed lookup is not cached.
func RegistryByEventType(reg SchemaLookup, cat Catalog, outboxName string) schemasource.ByEventType {
	return &registrySchemas{reg: reg, cat: cat, outbox: outboxName, ids: map[schemaKey]uint32{}}
}

// RegistrySchemas is RegistryByEventType.
//
// Deprecated: use RegistryByEventType (consumer.RegistrySchemas, the
// consumer's source by registry id, has another signature; each now has
// its own name).
func RegistrySchemas(reg SchemaLookup, cat Catalog, outboxName string) SchemaSource {
	return RegistryByEventType(reg, cat, outboxName)
}

type registrySchemas struct {
	reg    SchemaLookup
	cat    Catalog
	outbox string
	mu     sync.Mutex
	ids    map[schemaKey]uint32
}

func (r *registrySchemas) WriterSchema(ctx context.Context, eventType string, major int) (uint32, avro.Schema, error) {
	k := schemaKey{eventType, major}
	var subject string
	var source []byte
	var schema avro.Schema
	ok := r.cat != nil
	if ok {
		subject, source, schema, ok = r.cat.WriterSchema(r.outbox, eventType, major)
	}
	if !ok {
		return 0, nil, fmt.Errorf("%w: %s v%d is not an avro event of outbox %q in the spec's schema catalog", ErrSchema, eventType, major, r.outbox)
	}
	r.mu.Lock()
	id, ok := r.ids[k]
	r.mu.Unlock()
	if ok {
		return id, schema, nil
	}
	got, err := r.reg.Lookup(ctx, subject, string(source))
	if err != nil {
		return 0, nil, fmt.Errorf("%w: look up %s v%d under subject %s: %w", ErrSchema, eventType, major, subject, err)
	}
	if got.ID <= 0 {
		return 0, nil, fmt.Errorf("%w: registry answered id %d for subject %s", ErrSchema, got.ID, subject)
	}
	r.mu.Lock()
	r.ids[k] = uint32(got.ID)
	r.mu.Unlock()
	return uint32(got.ID), schema, nil
}

// writerSchema is the schema and id of (eventType, major), pinned or from
// the source; the writer logs the first resolution of each.
func (w *Writer) writerSchema(ctx context.Context, eventType string, major int) (resolvedSchema, error) {
	k := schemaKey{eventType, major}
	if p, ok := w.pinned[k]; ok {
		return p, nil
	}
	if w.schemas == nil {
		return resolvedSchema{}, fmt.Errorf("%w: %s v%d: no schema source (WithSchemas or WithPinnedSchema)", ErrSchema, eventType, major)
	}
	id, s, err := w.schemas.WriterSchema(ctx, eventType, major)
	if err != nil {
		return resolvedSchema{}, err
	}
	if _, seen := w.logged.LoadOrStore(k, true); !seen && w.log != nil {
		w.log.DebugContext(ctx, "outbox writer schema", "type", eventType, "version", major, "schema_id", id)
	}
	return resolvedSchema{id, s}, nil
}

// Preload resolves now the writer schema and registry id of every avro
// event version the Table declares (Table.Events, from the spec), so that
// the first typed Write does not depend on the registry. Call it at start
// and from a readiness probe: while it fails, the service cannot write its
// typed events. Once a version's id is resolved the schema source caches it
// (RegistryByEventType does, for its life), so later calls and Writes need no
// registry. A pinned version needs no registry; a JSON outbox, a writer
// without a schema source (raw Payload writes) or a Table without declared
// events has nothing to preload (nil). Every failing version is reported
// (errors.Join), each wrapping ErrSchema and the registry's error
// (registry.ErrUnreachable, registry.ErrSubjectNotFound, ...).
func (w *Writer) Preload(ctx context.Context) error {
	if w.table.PayloadFormat == spec.FormatJSON || w.schemas == nil {
		return nil
	}
	var errs []error
	for _, ev := range w.table.Events {
		for _, v := range ev.Versions {
			if _, err := w.writerSchema(ctx, ev.Name, v.Major); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// encodeValue is the payload of e.Value: Avro in wire format with the
// writer schema of (Type, SchemaVersion), or JSON.
func (w *Writer) encodeValue(ctx context.Context, e *Event) ([]byte, error) {
	if w.table.PayloadFormat == spec.FormatJSON {
		b, err := EncodeJSON(e.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: event %s (%s v%d): %w", ErrInvalidEvent, e.ID, e.Type, e.SchemaVersion, err)
		}
		return b, nil
	}
	if e.SchemaVersion < 1 {
		return nil, fmt.Errorf("%w: event %s (%s): a typed avro write needs the major version", ErrInvalidEvent, e.ID, e.Type)
	}
	rs, err := w.writerSchema(ctx, e.Type, e.SchemaVersion)
	if err != nil {
		return nil, err
	}
	out, err := avrobind.Encode(wire.AppendHeader(make([]byte, 0, 64), rs.id), rs.schema, e.Value)
	if err != nil {
		return nil, fmt.Errorf("%w: event %s: value does not fit %s v%d (schema id %d): %w", ErrInvalidEvent, e.ID, e.Type, e.SchemaVersion, rs.id, err)
	}
	return out, nil
}

// EncodeJSON is the JSON payload of a typed write: encoding/json's
// encoding, except that struct fields are named as the consumer reads
// them: json tag name, else avro tag name, else the Go name
// (internal/avrofield.JSONFields, with json's omitempty). Types with their
// own MarshalJSON or MarshalText encode themselves.
func EncodeJSON(v any) ([]byte, error) {
	return json.Marshal(jsonValue{reflect.ValueOf(v)})
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// jsonValue marshals a value with the JSON path's field names.
type jsonValue struct{ v reflect.Value }

func (j jsonValue) MarshalJSON() ([]byte, error) {
	v := j.v
	if !v.IsValid() {
		return []byte("null"), nil
	}
	if v.Type().Implements(jsonMarshaler) || v.Type().Implements(textMarshaler) {
		return json.Marshal(v.Interface())
	}
	if pt := reflect.PointerTo(v.Type()); v.CanAddr() && (pt.Implements(jsonMarshaler) || pt.Implements(textMarshaler)) {
		return json.Marshal(v.Addr().Interface())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return []byte("null"), nil
		}
		return jsonValue{v.Elem()}.MarshalJSON()
	case reflect.Struct:
		fields, _ := avrofield.JSONFields(v.Type())
		out := []byte{'{'}
		for _, f := range fields {
			fv, err := v.FieldByIndexErr(f.Index)
			if err != nil { // through a nil embedded pointer
				continue
			}
			if f.OmitEmpty && fv.IsZero() {
				continue
			}
			if len(out) > 1 {
				out = append(out, ',')
			}
			name, _ := json.Marshal(f.Name)
			out = append(append(out, name...), ':')
			b, err := jsonValue{fv}.MarshalJSON()
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
		return append(out, '}'), nil
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 || (v.Kind() == reflect.Slice && v.IsNil()) {
			return json.Marshal(v.Interface())
		}
		items := make([]jsonValue, v.Len())
		for i := range items {
			items[i] = jsonValue{v.Index(i)}
		}
		return json.Marshal(items)
	case reflect.Map:
		if v.IsNil() {
			return []byte("null"), nil
		}
		m := reflect.MakeMapWithSize(reflect.MapOf(v.Type().Key(), reflect.TypeFor[jsonValue]()), v.Len())
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(it.Key(), reflect.ValueOf(jsonValue{it.Value()}))
		}
		return json.Marshal(m.Interface())
	}
	return json.Marshal(v.Interface())
}
