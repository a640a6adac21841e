package consumer

// CanaryEventType is the event type of the canary record `outboxctl verify`
// writes through the outbox to check a deployed pipeline end to end. A
// Router skips every record of this type before any handler, middleware
// decision or payload decode, and counts it in Stats.Canaries: a canary is
// never handed to a handler, and registering a handler for it is
// ErrInvalidConfig.
const CanaryEventType = "outboxctl.Canary"

// canary skips a canary record (counted once its batch committed, in a
// batch).
func (r *Router) canary(m *Message) error {
	if m.chain.batch {
		m.chain.outcome = outcomeCanary
		return nil
	}
	r.stats.canaries.Add(1)
	return nil
}
