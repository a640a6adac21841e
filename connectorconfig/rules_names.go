package connectorconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/naming"
	"github.com/outboxctl/outboxctl/spec"
)

// The rules on names (KC, KT, SR) and on the schema files the spec names.

// reportAt adds a finding about key of c at pos (the connector's position
// when pos is unknown).
func (v *validation) reportAt(r *Rule, c *Connector, key string, pos spec.Pos, msg string) {
	if pos.IsZero() {
		if src, ok := ParseSource(c.Source); ok {
			pos = src
		}
	}
	v.findings = append(v.findings, Finding{
		Rule: r.ID, Severity: r.Severity, File: pos.File, Line: pos.Line, Col: pos.Col,
		Connector: c.Name, Key: key, Message: msg, Hint: r.Hint,
	})
}

// connectorNamePos is where the connector's name comes from: connector.name,
// or the outbox name it is derived from.
func (v *validation) connectorNamePos(c *Connector) spec.Pos {
	if o := v.outbox(c); o != nil {
		if o.Connector.Has("name") {
			return o.Connector.PosOf("name")
		}
		return o.PosOf("name")
	}
	return spec.Pos{}
}

func checkConnectorNames(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		if err := ValidConnectorName(c.Name); err != nil {
			v.reportAt(r, c, "name", v.connectorNamePos(c), strings.TrimPrefix(err.Error(), ErrInvalidName.Error()+": "))
		}
	})
}

// topicUse is one topic a connector writes to, and why.
type topicUse struct {
	topic string
	what  string // "routed topic of event type OrderCreated", "heartbeat topic", …
	key   string
	pos   spec.Pos
	c     *Connector
	// ev is the event type of a routed topic, else nil.
	ev *spec.EventType
}

// topics lists every topic connector c writes to: the routed topic of each
// event type of its outbox (route.by.field, route.topic.regex and
// route.topic.replacement of the config, with eventrouter.RouteTopic), the
// heartbeat topic, the schema history topic, and the schema change and
// transaction topics when those are on.
func (v *validation) topics(c *Connector) []topicUse {
	var out []topicUse
	add := func(topic, what, key string, pos spec.Pos, ev *spec.EventType) {
		if pos.IsZero() {
			pos = c.Positions[key]
		}
		out = append(out, topicUse{topic: topic, what: what, key: key, pos: pos, c: c, ev: ev})
	}
	if o := v.outbox(c); o != nil {
		for _, pfx := range eventRouterPrefixes(c) {
			byField, ok := c.Config[pfx+"route.by.field"]
			if !ok {
				byField = o.Columns.AggregateType
			}
			for i := range o.Events {
				ev := &o.Events[i]
				value, ok := o.RouteValue(byField, ev)
				if !ok {
					continue
				}
				topic, _, err := eventrouter.RouteTopic(c.Config[pfx+"route.topic.regex"], routeReplacement(c, pfx), value)
				if err != nil {
					continue // ROUTE_REGEX_INVALID, ROUTE_REPLACEMENT_INVALID
				}
				add(topic, fmt.Sprintf("routed topic of event type %s, route value %q", ev.Name, value),
					pfx+"route.topic.replacement", o.RouteValuePos(byField, ev), ev)
			}
		}
	}
	prefix := c.Config["topic.prefix"]
	prefixOK := topicPrefixRe.MatchString(prefix) // else TOPIC_PREFIX_INVALID
	if h := HeartbeatTopicOf(c.Config); h != "" && prefixOK {
		add(h, "heartbeat topic", "heartbeat.interval.ms", spec.Pos{}, nil)
	}
	if isBinlog(c) {
		// The default history topic is derived from topic.prefix: TOPIC_PREFIX_INVALID
		// reports a bad prefix.
		derived := false
		if o := v.outbox(c); o != nil {
			derived = o.Connector.SchemaHistoryTopic == ""
		}
		if t := c.Config["schema.history.internal.kafka.topic"]; t != "" && (prefixOK || !derived) {
			add(t, "schema history topic", "schema.history.internal.kafka.topic", spec.Pos{}, nil)
		}
		if c.Config["include.schema.changes"] != "false" && prefixOK {
			add(prefix, "schema change topic (include.schema.changes)", "topic.prefix", spec.Pos{}, nil)
		}
	}
	if c.Config["provide.transaction.metadata"] == "true" && prefixOK {
		add(prefix+".transaction", "transaction topic (provide.transaction.metadata)", "provide.transaction.metadata", spec.Pos{}, nil)
	}
	return out
}

func routeReplacement(c *Connector, pfx string) string {
	if r, ok := c.Config[pfx+"route.topic.replacement"]; ok {
		return r
	}
	return eventrouter.DefaultRouteTopicReplacement
}

func checkTopicNames(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		seen := map[string]bool{}
		for _, t := range v.topics(c) {
			if seen[t.topic] {
				continue
			}
			seen[t.topic] = true
			if err := ValidTopicName(t.topic); err != nil {
				v.reportAt(r, c, t.key, t.pos, fmt.Sprintf("%s: %s", t.what, strings.TrimPrefix(err.Error(), ErrInvalidName.Error()+": ")))
			}
		}
	})
}

func checkTopicCollisions(r *Rule, v *validation) {
	byKey := map[string]topicUse{}
	v.each(func(c *Connector) {
		for _, t := range v.topics(c) {
			if ValidTopicName(t.topic) != nil {
				continue // TOPIC_NAME_INVALID
			}
			k := collisionKey(t.topic)
			prev, ok := byKey[k]
			if !ok {
				byKey[k] = t
				continue
			}
			if TopicsCollide(prev.topic, t.topic) {
				v.reportAt(r, c, t.key, t.pos, fmt.Sprintf("topic %q (%s) collides with topic %q (%s of connector %s, %s): '.' and '_' are the same in Kafka's metric names, and Kafka refuses to create the second (InvalidTopicException)",
					t.topic, t.what, prev.topic, prev.what, prev.c.Name, prev.pos))
			}
		}
	})
}

// ---- SR: the schema files and subjects ----

// MaxSchemaFileSize is the largest .avsc file validate reads.
const MaxSchemaFileSize = 4 << 20

// schemaFile is one schema file the spec names, read and parsed once per
// Validate call.
type schemaFile struct {
	rec *avro.Record
	// problem is why the file is not a usable record schema ("" when it
	// is).
	problem string
}

// readSchemaFile reads at most MaxSchemaFileSize bytes of path.
func readSchemaFile(path string) ([]byte, error) {
	// a regular file (a FIFO would block, /dev/zero would never end)
	data, err := spec.ReadFileLimit(path, MaxSchemaFileSize)
	if err != nil {
		if errors.Is(err, spec.ErrTooLarge) {
			return nil, fmt.Errorf("larger than %d MiB", MaxSchemaFileSize>>20)
		}
		return nil, err
	}
	return data, nil
}

func (v *validation) schemaFile(path string) *schemaFile {
	if sf, ok := v.schemaFiles[path]; ok {
		return sf
	}
	sf := &schemaFile{}
	if v.schemaFiles == nil {
		v.schemaFiles = map[string]*schemaFile{}
	}
	v.schemaFiles[path] = sf
	data, err := readSchemaFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sf.problem = fmt.Sprintf("schema file %s not found", path)
		return sf
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		sf.problem = fmt.Sprintf("schema file %s cannot be read: %v", path, err)
		return sf
	}
	// Strict, as the registry parses a new schema (schemas.BuildCatalog).
	s, err := avro.ParseWith(data, avro.Options{File: path})
	if err != nil {
		var pe *avro.ParseError
		if errors.As(err, &pe) {
			sf.problem = fmt.Sprintf("schema file %s does not parse: %s: %s", path, pe.Pos, pe.Msg)
		} else {
			sf.problem = fmt.Sprintf("schema file %s does not parse: %v", path, err)
		}
		return sf
	}
	rec, ok := s.(*avro.Record)
	if !ok {
		sf.problem = fmt.Sprintf("schema file %s holds a schema of type %s, want a record", path, s.Type())
		return sf
	}
	sf.rec = rec
	return sf
}

func checkSchemaFiles(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		o := v.outbox(c)
		if o == nil {
			return
		}
		for i := range o.Events {
			ev := &o.Events[i]
			for j := range ev.Versions {
				ver := &ev.Versions[j]
				if ver.SchemaPath == "" {
					continue // a spec load error
				}
				if sf := v.schemaFile(ver.SchemaPath); sf.problem != "" {
					v.reportAt(r, c, "", ver.PosOf("schema"), fmt.Sprintf("event type %s v%d: %s", ev.Name, ver.Major, sf.problem))
				}
			}
		}
	})
}

func checkSubjectNames(r *Rule, v *validation) {
	v.each(func(c *Connector) {
		o := v.outbox(c)
		if o == nil || o.PayloadFormat != spec.FormatAvro {
			return // only avro payloads have their schemas in the registry
		}
		for _, t := range v.topics(c) {
			if t.ev == nil {
				continue
			}
			ev := t.ev
			for j := range ev.Versions {
				ver := &ev.Versions[j]
				if ver.SchemaPath == "" {
					continue
				}
				sf := v.schemaFile(ver.SchemaPath)
				if sf.rec == nil {
					continue // SCHEMA_FILE_INVALID
				}
				subject := naming.Subject(naming.Strategy(ev.SubjectStrategy), t.topic, sf.rec.FullName())
				if err := naming.ValidSubject(subject); err != nil {
					v.reportAt(r, c, "", ver.PosOf("schema"), fmt.Sprintf("event type %s v%d (%s): %s", ev.Name, ver.Major, ev.SubjectStrategy, strings.TrimPrefix(err.Error(), naming.ErrInvalidSubject.Error()+" ")))
				}
			}
		}
	})
}
