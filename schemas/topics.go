package schemas

import (
	"errors"
	"fmt"
	"slices"

	"github.com/outboxctl/outboxctl/spec"
)

// Topics returns the routed topics of outbox outboxName's event types, in
// spec order, each once (nil when the catalog has no such outbox). It is
// what a consumer of the outbox subscribes to:
//
//	cat, _ := schemas.BuildCatalog(sp)
//	topics := cat.Topics("orders")
func (c *Catalog) Topics(outboxName string) []string {
	var out []string
	for _, e := range c.Entries {
		if e.Outbox == outboxName && !slices.Contains(out, e.Topic) {
			out = append(out, e.Topic)
		}
	}
	return out
}

// Topic returns the routed topic of event type eventType of outbox
// outboxName; ok is false when the catalog has no such event type.
func (c *Catalog) Topic(outboxName, eventType string) (topic string, ok bool) {
	for _, e := range c.Entries {
		if e.Outbox == outboxName && e.EventType == eventType {
			return e.Topic, true
		}
	}
	return "", false
}

// OutboxTopics is Catalog.Topics from the spec alone, without reading the
// schema files: the topics the EventRouter routes o's event types to, in
// spec order, each once. An event type whose topic cannot be derived is a
// *CatalogError (ErrBadCatalog); every such error is reported.
func OutboxTopics(o *spec.Outbox) ([]string, error) {
	var out []string
	var errs []error
	for j := range o.Events {
		ev := &o.Events[j]
		topic, err := eventTopic(o, ev)
		if err != nil {
			errs = append(errs, &CatalogError{Pos: ev.PosOf("aggregate").String(), Msg: fmt.Sprintf("event type %q: %v", ev.Name, err)})
			continue
		}
		if !slices.Contains(out, topic) {
			out = append(out, topic)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
