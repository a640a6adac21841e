// Package naming holds the registry subject naming rules: the Confluent
// subject name strategies and what a valid subject is. It is a leaf
// package (package schemas re-exports it) so that the connector config
// rules can name subjects without importing schemas.
package naming

import (
	"errors"
	"fmt"
	"strings"
)

// Strategy is a Confluent subject name strategy: how the registry subject
// of a record schema is derived from the Kafka topic and the record's full
// name (io.confluent.kafka.serializers.subject.*Strategy, value side).
type Strategy string

// The subject name strategies.
const (
	TopicNameStrategy       Strategy = "TopicNameStrategy"
	RecordNameStrategy      Strategy = "RecordNameStrategy"
	TopicRecordNameStrategy Strategy = "TopicRecordNameStrategy"
)

// Subject is the value subject of a record schema with the full name
// recordFullName on topic under strategy (an unknown strategy is treated as
// TopicRecordNameStrategy, the default):
//
//	TopicNameStrategy        orders-value
//	RecordNameStrategy       com.acme.order.v2.OrderCreated
//	TopicRecordNameStrategy  orders-com.acme.order.v2.OrderCreated
func Subject(strategy Strategy, topic, recordFullName string) string {
	switch strategy {
	case TopicNameStrategy:
		return topic + "-value"
	case RecordNameStrategy:
		return recordFullName
	default:
		return topic + "-" + recordFullName
	}
}

// ErrInvalidSubject is what ValidSubject's errors unwrap to.
var ErrInvalidSubject = errors.New("invalid subject name")

// MaxSubjectLength is the longest subject Apicurio Registry 3.x accepts
// (its artifact id, "length 1..512"; measured on 3.3). Confluent sets no
// limit.
const MaxSubjectLength = 512

// ValidSubject checks a subject name by the registries' rules:
// Confluent's QualifiedSubject.isValidSubject (not empty, no ISO control
// character, not the reserved "__GLOBAL" or "__EMPTY", not in the
// ".__GLOBAL" context; a ":.ctx:" prefix names a context) and Apicurio's
// length limit (MaxSubjectLength UTF-16 units, as Java counts).
func ValidSubject(subject string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidSubject, subject, fmt.Sprintf(format, args...))
	}
	if subject == "" {
		return bad("empty")
	}
	for i, r := range subject {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return bad("control character %U at byte %d", r, i)
		}
	}
	if n := utf16Len(subject); n > MaxSubjectLength {
		return bad("%d characters long; Apicurio Registry allows %d", n, MaxSubjectLength)
	}
	name := subject
	if strings.HasPrefix(name, ":.") {
		ctx, rest, ok := strings.Cut(name[1:], ":")
		if ctx == ".__GLOBAL" {
			return bad("the .__GLOBAL context holds only configuration")
		}
		if !ok || rest == "" {
			return bad("names a context, not a subject")
		}
		name = rest
	}
	if name == "__GLOBAL" || name == "__EMPTY" {
		return bad("%s is reserved by Confluent Schema Registry", name)
	}
	return nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
