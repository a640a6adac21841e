package spec

import (
	"errors"
	"testing"
)

func TestSpecOutbox(t *testing.T) {
	two := &Spec{Outboxes: []Outbox{{Name: "orders"}, {Name: "payments"}}}
	one := &Spec{Outboxes: []Outbox{{Name: "orders"}}}
	tests := []struct {
		name    string
		s       *Spec
		pick    string
		want    string
		wantErr string
	}{
		{"named", two, "payments", "payments", ""},
		{"only one, no name", one, "", "orders", ""},
		{"only one, named", one, "orders", "orders", ""},
		{"unknown", two, "nope", "", `no outbox "nope" in the spec (outboxes: orders, payments)`},
		{"several, no name", two, "", "", "the spec has 2 outboxes (orders, payments) and none was named"},
		{"none, no name", &Spec{}, "", "", "the spec has no outbox"},
		{"none, named", &Spec{}, "x", "", `no outbox "x" in the spec (it has none)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := tt.s.Outbox(tt.pick)
			if tt.wantErr == "" {
				if err != nil || o == nil || o.Name != tt.want {
					t.Fatalf("Outbox(%q) = %v, %v; want %s", tt.pick, o, err, tt.want)
				}
				if o != &tt.s.Outboxes[0] && o != &tt.s.Outboxes[len(tt.s.Outboxes)-1] {
					t.Fatalf("Outbox(%q) returned a copy, want a pointer into the spec", tt.pick)
				}
				return
			}
			if o != nil || err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Outbox(%q) = %v, %v; want error %q", tt.pick, o, err, tt.wantErr)
			}
			var nf *OutboxNotFoundError
			if !errors.As(err, &nf) || !errors.Is(err, ErrNoSuchOutbox) || nf.Name != tt.pick || len(nf.Available) != len(tt.s.Outboxes) {
				t.Fatalf("Outbox(%q) error %#v: want *OutboxNotFoundError unwrapping to ErrNoSuchOutbox", tt.pick, err)
			}
		})
	}
}
