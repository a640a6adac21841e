// Package bench measures an outbox pipeline end to end: events written with
// the outbox Writer in real transactions at a steady open-loop rate, routed
// by the user's Debezium connector, consumed with the consumer SDK (Router +
// Consumer, optionally with the inbox) from a fresh consumer group, and
// matched by event id.
//
// Open loop: the send time of every event is scheduled before the run
// starts (event n at start + n/rate). A writer that falls behind sends late,
// and the event's latency counts the delay from its scheduled time, so a
// slow pipeline cannot hide its stalls by slowing the load down (no
// coordinated omission). Latency is commit → handler: from the moment the
// writer's transaction committed (plus the send's lateness) to the moment
// the handler ran for the event the first time.
//
// Checks, per run: every committed event handled (lost = committed, not
// handled when the drain ended), each handled once (duplicates = effects
// beyond the first; with the inbox counted in the effects table the
// handler writes in the inbox transaction), and per aggregate in commit
// order (reordered = events handled after a later event of their
// aggregate). Report.Failed is true when any count is not zero.
//
// Run takes a Pipeline: NewPipeline builds the real one from a spec's
// outbox; tests pass fakes. The package reads no flags or environment.
package bench
