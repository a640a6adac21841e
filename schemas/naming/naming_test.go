package naming_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/naming"
)

func TestValidSubjectName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		subject string
		want    string // "" for valid
	}{
		{"outbox.event.Order-com.acme.order.v1.OrderCreated", ""},
		{"orders-value", ""},
		{strings.Repeat("s", 512), ""},
		{strings.Repeat("s", 513), "513 characters long; Apicurio Registry allows 512"},
		{strings.Repeat("é", 512), ""},
		{strings.Repeat("😀", 257), "514 characters long"},
		{"", "empty"},
		{"a\tb", "control character U+0009"},
		{"a\u007fb", "control character U+007F"},
		{"__GLOBAL", "reserved"},
		{"__EMPTY", "reserved"},
		{":.ctx:orders-value", ""},
		{":.ctx:__GLOBAL", "reserved"},
		{":.__GLOBAL:orders-value", ".__GLOBAL context"},
		{":.ctx:", "names a context"},
	}
	for _, tc := range tests {
		err := naming.ValidSubject(tc.subject)
		if (tc.want == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), tc.want) || !errors.Is(err, naming.ErrInvalidSubject))) {
			t.Errorf("ValidSubject(%.30q) = %v, want %q", tc.subject, err, tc.want)
		}
	}
}
