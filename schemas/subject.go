package schemas

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/naming"
)

// Strategy is a Confluent subject name strategy (see package naming, which
// holds the naming rules so that packages below schemas can use them).
type Strategy = naming.Strategy

// The subject name strategies.
const (
	// TopicNameStrategy: "<topic>-value". Every event type on the topic
	// shares one subject and one compatibility history.
	TopicNameStrategy = naming.TopicNameStrategy
	// RecordNameStrategy: "<record full name>", whatever the topic.
	RecordNameStrategy = naming.RecordNameStrategy
	// TopicRecordNameStrategy: "<topic>-<record full name>". The default:
	// several event types share a routed topic, each with its own subject.
	TopicRecordNameStrategy = naming.TopicRecordNameStrategy
)

// DefaultStrategy is TopicRecordNameStrategy.
const DefaultStrategy = TopicRecordNameStrategy

// ErrUnknownStrategy is returned by ParseStrategy.
var ErrUnknownStrategy = errors.New("unknown subject name strategy")

// ParseStrategy reads a strategy name: "TopicNameStrategy" (also "topic",
// "topic-name" or the Confluent class name
// io.confluent.kafka.serializers.subject.TopicNameStrategy), and likewise
// for RecordNameStrategy ("record") and TopicRecordNameStrategy
// ("topic-record"). Case-insensitive; "" is DefaultStrategy.
func ParseStrategy(s string) (Strategy, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.TrimPrefix(k, "io.confluent.kafka.serializers.subject.")
	k = strings.NewReplacer("-", "", "_", "").Replace(k)
	switch k {
	case "":
		return DefaultStrategy, nil
	case "topic", "topicname", "topicnamestrategy":
		return TopicNameStrategy, nil
	case "record", "recordname", "recordnamestrategy":
		return RecordNameStrategy, nil
	case "topicrecord", "topicrecordname", "topicrecordnamestrategy":
		return TopicRecordNameStrategy, nil
	}
	return "", fmt.Errorf("%w %q (want TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy)", ErrUnknownStrategy, s)
}

// SubjectName is naming.Subject: the value subject of a record schema
// with the full name recordFullName on topic under strategy.
func SubjectName(strategy Strategy, topic, recordFullName string) string {
	return naming.Subject(strategy, topic, recordFullName)
}

// ErrInvalidSubject is what ValidSubjectName's errors unwrap to.
var ErrInvalidSubject = naming.ErrInvalidSubject

// MaxSubjectLength is naming.MaxSubjectLength.
const MaxSubjectLength = naming.MaxSubjectLength

// ValidSubjectName is naming.ValidSubject.
func ValidSubjectName(subject string) error { return naming.ValidSubject(subject) }

// EventNaming is where one major version of an event type lives.
type EventNaming struct {
	// RecordNamespace is "<namespace>.v<major>", e.g. "com.acme.order.v2".
	RecordNamespace string
	// RecordName is the event type, e.g. "OrderCreated".
	RecordName string
	// RecordFullName is RecordNamespace + "." + RecordName: the "name" and
	// "namespace" the .avsc file must declare.
	RecordFullName string
	// Subject is the registry subject under the chosen strategy.
	Subject string
	// File is the schema file name in the spec's layout, e.g.
	// "OrderCreated.v2.avsc".
	File string
}

var strictName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Event maps (topic, event type, major version) to the record full name and
// the subject. It is the one place that decides the naming:
//
//   - The record of major version N of event type T in namespace NS is
//     NS.vN.T: the version is the last namespace part, so every major
//     version has its own full name (and Java classes their own package)
//     while the short name stays T. Version 1 is NS.v1.T too.
//   - An incompatible change is a new major version, hence a new full name
//     and, under RecordNameStrategy and TopicRecordNameStrategy (the
//     default), a new subject with its own compatibility history. Under
//     TopicNameStrategy the subject is "<topic>-value" whatever the version,
//     so two major versions need two topics there.
//   - Within a major version the schema evolves compatibly at the subject's
//     level (BACKWARD_TRANSITIVE by default) and keeps its full name.
//
// For example Event(TopicRecordNameStrategy, "orders", "com.acme.order",
// "OrderCreated", 2) is com.acme.order.v2.OrderCreated in subject
// "orders-com.acme.order.v2.OrderCreated", file OrderCreated.v2.avsc.
//
// namespace may be empty (then the record namespace is "vN"). Names must be
// valid strict Avro names; major must be at least 1; topic must not be
// empty.
func Event(strategy Strategy, topic, namespace, eventType string, major int) (EventNaming, error) {
	if topic == "" {
		return EventNaming{}, errors.New("event naming: empty topic")
	}
	if !strictName.MatchString(eventType) {
		return EventNaming{}, fmt.Errorf("event naming: event type %q is not a valid Avro name", eventType)
	}
	if namespace != "" {
		for _, part := range strings.Split(namespace, ".") {
			if !strictName.MatchString(part) {
				return EventNaming{}, fmt.Errorf("event naming: namespace %q: part %q is not a valid Avro name", namespace, part)
			}
		}
	}
	if major < 1 {
		return EventNaming{}, fmt.Errorf("event naming: %s: major version %d, want 1 or more", eventType, major)
	}
	switch strategy {
	case TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy:
	default:
		return EventNaming{}, fmt.Errorf("event naming: %w %q", ErrUnknownStrategy, strategy)
	}
	v := "v" + strconv.Itoa(major)
	ns := v
	if namespace != "" {
		ns = namespace + "." + v
	}
	full := ns + "." + eventType
	return EventNaming{
		RecordNamespace: ns,
		RecordName:      eventType,
		RecordFullName:  full,
		Subject:         SubjectName(strategy, topic, full),
		File:            SchemaFileName(eventType, major),
	}, nil
}

// SchemaFileName is "<eventType>.v<major>.avsc".
func SchemaFileName(eventType string, major int) string {
	return eventType + ".v" + strconv.Itoa(major) + ".avsc"
}

var schemaFileRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\.v([1-9][0-9]*)\.avsc$`)

// ParseSchemaFileName splits "OrderCreated.v2.avsc" (a base name, no
// directory) into the event type and the major version.
func ParseSchemaFileName(name string) (eventType string, major int, ok bool) {
	m := schemaFileRE.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false
	}
	major, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	return m[1], major, true
}
