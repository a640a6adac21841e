package connectorconfig_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
)

func TestValidConnectorName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
		want string // part of the error
	}{
		{"orders-outbox", true, ""},
		{"orders.outbox_v2", true, ""},
		{"a..b", true, ""},
		{"a b", true, ""}, // Connect addresses it as a%20b
		{"", false, "is empty"},
		{"   ", false, "is empty"},
		{" orders", false, "leading or trailing whitespace"},
		{"orders\n", false, "leading or trailing whitespace"},
		{"or\x00ders", false, "control character U+0000"},
		{"or\u0085ders", false, "control character U+0085"},
		{"../../x", false, "contains '/'"},
		{"a\\b", false, "contains '\\'"},
		{"a%2Fb", false, "contains '%'"},
		{".", false, "path segment"},
		{"..", false, "path segment"},
		{"or\u200bders", false, "invisible or bidirectional formatting character U+200B"},
		{"orders\u202e", false, "invisible or bidirectional formatting character U+202E"},
		{"\ufefforders", false, "U+FEFF"},
		{"bestellungen-größe", true, ""},
	}
	for _, tc := range tests {
		err := connectorconfig.ValidConnectorName(tc.name)
		if tc.ok != (err == nil) || (err != nil && (!strings.Contains(err.Error(), tc.want) || !errors.Is(err, connectorconfig.ErrInvalidName))) {
			t.Errorf("ValidConnectorName(%q) = %v, want ok=%v %q", tc.name, err, tc.ok, tc.want)
		}
	}
}

func TestValidTopicName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		topic string
		want  string // "" for valid
	}{
		{"outbox.event.Order", ""},
		{"__debezium-heartbeat.orders", ""},
		{strings.Repeat("a", 249), ""},
		{strings.Repeat("a", 250), "250 characters, longer than the max allowed length 249"},
		{"", "the empty string is not allowed"},
		{".", "'.' is not allowed"},
		{"..", "'..' is not allowed"},
		{"...", ""},
		{"outbox.event.Order Line", "contains ' '"},
		{"outbox.event.Ordér", "contains 'é'"},
		{"a/b", "contains '/'"},
		{"a:b", "contains ':'"},
	}
	for _, tc := range tests {
		err := connectorconfig.ValidTopicName(tc.topic)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ValidTopicName(%.30q) = %v, want %q", tc.topic, err, tc.want)
		}
	}
}

func TestTopicsCollide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"a.b", "a_b", true},
		{"a.b_c", "a_b.c", true},
		{"a.b", "a.b", false}, // the same topic
		{"a.b", "a-b", false},
		{"ab", "a_b", false},
	}
	for _, tc := range tests {
		if got := connectorconfig.TopicsCollide(tc.a, tc.b); got != tc.want {
			t.Errorf("TopicsCollide(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
