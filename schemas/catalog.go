package schemas

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/spec"
)

// ErrBadCatalog is what every error of BuildCatalog unwraps to: a schema
// file that is missing or does not parse, a topic that cannot be derived,
// two major versions that map to one subject.
var ErrBadCatalog = errors.New("bad schema catalog")

// CatalogError is one problem found while building the catalog, at a
// position in the spec or in a schema file.
type CatalogError struct {
	// Pos is file:line:col.
	Pos string
	Msg string
	Err error // the underlying error, if any (*avro.ParseError, fs errors)
}

func (e *CatalogError) Error() string { return e.Pos + ": " + e.Msg }

// Unwrap returns ErrBadCatalog and the underlying error.
func (e *CatalogError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrBadCatalog}
	}
	return []error{ErrBadCatalog, e.Err}
}

// CatalogEntry is one major version of one event type: its subject in the
// registry and its schema file.
type CatalogEntry struct {
	Outbox    string `json:"outbox"`
	EventType string `json:"eventType"`
	Aggregate string `json:"aggregate"`
	Major     int    `json:"major"`
	// Topic is the routed topic the EventRouter sends the event to.
	Topic    string `json:"topic"`
	Strategy string `json:"subjectStrategy"`
	Subject  string `json:"subject"`
	// Record is the full name of the schema's top-level record.
	Record string `json:"record"`
	// File is the schema file (SchemaPath of the spec: relative to the
	// working directory when the spec path was relative).
	File string `json:"file"`
	// PayloadFormat is the outbox's payload format; only "avro" outboxes
	// have their schemas in the registry.
	PayloadFormat string `json:"payloadFormat"`
	// SpecPos is where the version is declared in the spec.
	SpecPos spec.Pos `json:"-"`
	// Source is the schema file's content and Schema its parse (strict,
	// as the registry parses a new schema), with positions in File.
	Source []byte      `json:"-"`
	Schema avro.Schema `json:"-"`
}

// Registered reports whether the entry's schema belongs in the registry
// (payloadFormat avro).
func (e *CatalogEntry) Registered() bool { return e.PayloadFormat == spec.FormatAvro }

// Catalog is every (subject, record, major version, schema file) of a
// spec, in spec order.
type Catalog struct {
	Entries []*CatalogEntry
}

// BySubject returns the entry of subject, or nil.
func (c *Catalog) BySubject(subject string) *CatalogEntry {
	for _, e := range c.Entries {
		if e.Subject == subject {
			return e
		}
	}
	return nil
}

// WriterSchema is the registered schema of an avro event's major version
// in outbox outboxName: its subject, the schema file's text and its parse;
// ok is false when the catalog has no such avro entry. It is what the
// outbox writer's typed writes look up (outbox.RegistryByEventType).
func (c *Catalog) WriterSchema(outboxName, eventType string, major int) (subject string, source []byte, schema avro.Schema, ok bool) {
	for _, e := range c.Entries {
		if e.Outbox == outboxName && e.EventType == eventType && e.Major == major && e.Registered() {
			return e.Subject, e.Source, e.Schema, true
		}
	}
	return "", nil, nil, false
}

// ReadFileFunc reads a file by path; a missing file is an error for which
// errors.Is(err, fs.ErrNotExist) holds.
type ReadFileFunc func(path string) ([]byte, error)

// BuildCatalog reads and parses every schema file of the spec's event
// types (with spec.Outbox.ReadSchema: from disk, or from the fs.FS of
// spec.LoadFS) and maps each (topic, event type, major version) to its
// subject and record. Every problem is reported (errors.Join of
// *CatalogError, unwrapping to ErrBadCatalog).
func BuildCatalog(s *spec.Spec) (*Catalog, error) {
	return BuildCatalogFrom(s, nil)
}

// BuildCatalogFrom is BuildCatalog reading schema files with read (for
// example from a git ref); nil is BuildCatalog's spec.Outbox.ReadSchema.
func BuildCatalogFrom(s *spec.Spec, read ReadFileFunc) (*Catalog, error) {
	cat := &Catalog{}
	var errs []error
	bad := func(pos spec.Pos, err error, format string, args ...any) {
		errs = append(errs, &CatalogError{Pos: pos.String(), Msg: fmt.Sprintf(format, args...), Err: err})
	}
	seen := map[string]*CatalogEntry{}
	for i := range s.Outboxes {
		o := &s.Outboxes[i]
		for j := range o.Events {
			ev := &o.Events[j]
			topic, err := eventTopic(o, ev)
			if err != nil {
				bad(ev.PosOf("aggregate"), nil, "event type %q: %v", ev.Name, err)
				continue
			}
			for k := range ev.Versions {
				v := &ev.Versions[k]
				pos := v.PosOf("schema")
				var data []byte
				if read == nil {
					data, err = o.ReadSchema(v)
				} else {
					data, err = read(v.SchemaPath)
				}
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						bad(pos, err, "event type %q v%d: schema file %s not found", ev.Name, v.Major, v.SchemaPath)
					} else {
						bad(pos, err, "event type %q v%d: %v", ev.Name, v.Major, err)
					}
					continue
				}
				sch, err := avro.ParseWith(data, avro.Options{File: v.SchemaPath})
				if err != nil {
					var pe *avro.ParseError
					if errors.As(err, &pe) {
						errs = append(errs, &CatalogError{Pos: pe.Pos.String(), Msg: pe.Msg, Err: err})
					} else {
						bad(pos, err, "%v", err)
					}
					continue
				}
				rec, ok := sch.(*avro.Record)
				if !ok {
					bad(pos, nil, "event type %q v%d: %s is a %s schema, want a record", ev.Name, v.Major, v.SchemaPath, sch.Type())
					continue
				}
				e := newEntry(o, ev, v, topic, rec, data)
				if prev, ok := seen[e.Subject]; ok {
					if prev.EventType == e.EventType {
						bad(pos, nil, "event type %q: v%d and v%d map to the same subject %q; a new major version needs its own subject (change the record's namespace or name)", e.EventType, prev.Major, e.Major, e.Subject)
					} else {
						bad(pos, nil, "event type %q v%d maps to subject %q, already used by %q v%d", e.EventType, e.Major, e.Subject, prev.EventType, prev.Major)
					}
					continue
				}
				seen[e.Subject] = e
				cat.Entries = append(cat.Entries, e)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cat, nil
}

// newEntry is the catalog entry of version v of event type ev of outbox o,
// routed to topic, with its parsed record schema rec read from data.
func newEntry(o *spec.Outbox, ev *spec.EventType, v *spec.EventVersion, topic string, rec *avro.Record, data []byte) *CatalogEntry {
	return &CatalogEntry{
		Outbox: o.Name, EventType: ev.Name, Aggregate: ev.Aggregate, Major: v.Major,
		Topic: topic, Strategy: ev.SubjectStrategy, Record: rec.FullName(),
		Subject: SubjectName(Strategy(ev.SubjectStrategy), topic, rec.FullName()),
		File:    v.SchemaPath, PayloadFormat: o.PayloadFormat, SpecPos: v.PosOf("schema"),
		Source: data, Schema: rec,
	}
}

// eventTopic is the topic the EventRouter routes the event type to: the
// route.by.field value (the aggregate type, or the event type when routing
// by the type column) through route.topic.regex and
// route.topic.replacement (Java Matcher semantics).
func eventTopic(o *spec.Outbox, ev *spec.EventType) (string, error) {
	value, ok := o.RouteValue(o.Routing.ByField, ev)
	switch {
	case !ok && o.Routing.ByField == o.Columns.AggregateType:
		return "", fmt.Errorf("aggregate is required to derive the routed topic")
	case !ok && o.Routing.ByField != o.Columns.Type:
		return "", fmt.Errorf("routing.byField %q is neither the aggregate type nor the type column: the topic cannot be derived", o.Routing.ByField)
	case !ok:
		return "", fmt.Errorf("name is required to derive the routed topic")
	}
	topic, matched, err := eventrouter.RoutingTopic(o.Routing, value)
	var ce *eventrouter.ConfigError
	switch {
	case errors.As(err, &ce):
		return "", fmt.Errorf("routing.topicRegex: %v", ce.Message)
	case err != nil:
		return "", fmt.Errorf("routing.topicReplacement: %v", err)
	case !matched:
		// The EventRouter keeps the value as the topic; the event is not routed.
		return "", fmt.Errorf("routing.topicRegex %q does not match %q", o.Routing.TopicRegex, value)
	}
	return topic, nil
}

// Subjects lists the catalog's subjects, sorted.
func (c *Catalog) Subjects() []string {
	out := make([]string, 0, len(c.Entries))
	for _, e := range c.Entries {
		out = append(out, e.Subject)
	}
	sort.Strings(out)
	return out
}
