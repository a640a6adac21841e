package connectorconfig

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// ErrInvalidName is what the errors of ValidConnectorName and
// ValidTopicName unwrap to.
var ErrInvalidName = errors.New("invalid name")

// ValidConnectorName checks a Kafka Connect connector name. Connect itself
// (ConnectorConfig's name validator and POST /connectors) rejects an empty
// name and ISO control characters, and trims the name it is given. Its REST
// server (Jetty 12, measured on Kafka Connect 4.3) also cannot address a
// connector whose name holds '/' ("Ambiguous URI path separator"), '\'
// ("Suspicious Path Character") or '%' ("Ambiguous URI path encoding"), or
// is "." or ".." ("Ambiguous URI path segment"): every later request about
// it (PUT …/config, GET …/status, DELETE) fails with 400. Such a name is
// also never a safe file name, which generate --out-dir relies on. Unicode
// format characters (category Cf: zero-width spaces and joiners, bidi
// overrides, the BOM) are refused too: Connect accepts them, but the name
// then reads as another one.
func ValidConnectorName(name string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: connector name %q %s", ErrInvalidName, name, fmt.Sprintf(format, args...))
	}
	switch {
	case strings.TrimSpace(name) == "":
		return bad("is empty (Connect: \"String may not be empty\")")
	case strings.TrimSpace(name) != name:
		return bad("has leading or trailing whitespace: Connect trims the name of POST /connectors but not of PUT /connectors/{name}/config, so the connector's name would depend on the client")
	case name == "." || name == "..":
		return bad("is a path segment Connect's REST API cannot address (400 Ambiguous URI path segment)")
	}
	for _, r := range name {
		switch {
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return bad("contains the control character %U (Connect: \"String may not contain control sequences\")", r)
		case unicode.Is(unicode.Cf, r):
			return bad("contains the invisible or bidirectional formatting character %U (zero-width, bidi override, BOM): the name would look like another one in logs, the REST API and the UI", r)
		case r == '/':
			return bad("contains '/': Connect's REST API cannot address it (400 Ambiguous URI path separator)")
		case r == '\\':
			return bad("contains '\\': Connect's REST API cannot address it (400 Suspicious Path Character)")
		case r == '%':
			return bad("contains '%%': Connect's REST API cannot address it (400 Ambiguous URI path encoding)")
		}
	}
	return nil
}

// MaxTopicLength is the longest Kafka topic name.
const MaxTopicLength = 249

// ValidTopicName checks a Kafka topic name by Kafka's Topic.validate: not
// empty, not "." or "..", at most MaxTopicLength characters, only ASCII
// letters, digits, '.', '_' and '-'.
func ValidTopicName(topic string) error {
	bad := func(reason string) error {
		return fmt.Errorf("%w: topic %q is invalid: %s", ErrInvalidName, topic, reason)
	}
	switch {
	case topic == "":
		return bad("the empty string is not allowed")
	case topic == "." || topic == "..":
		return bad("'" + topic + "' is not allowed")
	}
	if n := javaLen(topic); n > MaxTopicLength {
		return bad(fmt.Sprintf("%d characters, longer than the max allowed length %d", n, MaxTopicLength))
	}
	for _, r := range topic {
		if !(r < unicode.MaxASCII && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')) {
			return bad(fmt.Sprintf("it contains %q; only ASCII alphanumerics, '.', '_' and '-' are allowed", r))
		}
	}
	return nil
}

// TopicsCollide reports whether two different topic names collide in
// Kafka's metric names, where '.' and '_' are the same: Kafka refuses to
// create a topic that collides with an existing one (InvalidTopicException
// "Topic 'a_b' collides with existing topic: a.b").
func TopicsCollide(a, b string) bool {
	return a != b && collisionKey(a) == collisionKey(b)
}

// javaLen is the length of s as Java counts it (UTF-16 units).
func javaLen(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

func collisionKey(topic string) string { return strings.ReplaceAll(topic, ".", "_") }
