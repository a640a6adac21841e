package spec

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoSuchOutbox is the sentinel a failed (*Spec).Outbox unwraps to.
var ErrNoSuchOutbox = errors.New("no such outbox in the spec")

// OutboxNotFoundError is returned by (*Spec).Outbox when the spec has no
// outbox of that name, or when no name was given and the spec has several
// (or none). Available names the spec's outboxes, in load order.
type OutboxNotFoundError struct {
	// Name is the outbox asked for; empty when none was named.
	Name      string
	Available []string
}

func (e *OutboxNotFoundError) Error() string {
	have := strings.Join(e.Available, ", ")
	switch {
	case e.Name != "" && len(e.Available) == 0:
		return fmt.Sprintf("no outbox %q in the spec (it has none)", e.Name)
	case e.Name != "":
		return fmt.Sprintf("no outbox %q in the spec (outboxes: %s)", e.Name, have)
	case len(e.Available) == 0:
		return "the spec has no outbox"
	}
	return fmt.Sprintf("the spec has %d outboxes (%s) and none was named", len(e.Available), have)
}

// Unwrap returns ErrNoSuchOutbox.
func (e *OutboxNotFoundError) Unwrap() error { return ErrNoSuchOutbox }

// Outbox returns the outbox named name; with an empty name, the spec's only
// outbox. Otherwise the error is an *OutboxNotFoundError naming the
// available outboxes.
func (s *Spec) Outbox(name string) (*Outbox, error) {
	if name == "" && len(s.Outboxes) == 1 {
		return &s.Outboxes[0], nil
	}
	if name != "" {
		for i := range s.Outboxes {
			if s.Outboxes[i].Name == name {
				return &s.Outboxes[i], nil
			}
		}
	}
	return nil, &OutboxNotFoundError{Name: name, Available: s.OutboxNames()}
}

// OutboxNames are the names of the spec's outboxes, in load order.
func (s *Spec) OutboxNames() []string {
	names := make([]string, 0, len(s.Outboxes))
	for i := range s.Outboxes {
		names = append(names, s.Outboxes[i].Name)
	}
	return names
}
