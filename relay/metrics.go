package relay

import (
	"fmt"
	"io"
	"strconv"
)

// WriteMetrics writes the relay's Stats in the Prometheus text exposition
// format (version 0.0.4), labelled with the outbox table, for a /metrics
// endpoint:
//
//	outboxctl_relay_published_total        rows published and deleted
//	outboxctl_relay_dropped_total          rows the EventRouter drops
//	outboxctl_relay_failed_total           failed publish attempts (rows kept)
//	outboxctl_relay_batches_total          batches run
//	outboxctl_relay_batch_duration_seconds the last batch's duration
//	outboxctl_relay_oldest_pending_seconds age of the oldest unpublished row
//	outboxctl_relay_leader                 1 when this relay holds the lock
func (r *Relay) WriteMetrics(w io.Writer) error {
	st := r.Stats()
	label := `{table="` + escapeLabel(r.t.qualified()) + `"}`
	leader := 0
	if st.Leader {
		leader = 1
	}
	for _, m := range []struct {
		name, typ, help string
		v               string
	}{
		{"outboxctl_relay_published_total", "counter", "Outbox rows published (acknowledged by the broker) and deleted or marked.", strconv.FormatInt(st.Published, 10)},
		{"outboxctl_relay_dropped_total", "counter", "Outbox rows the EventRouter drops (errors.tolerance=all), deleted unpublished.", strconv.FormatInt(st.Dropped, 10)},
		{"outboxctl_relay_failed_total", "counter", "Failed publish attempts; their rows stay and are retried.", strconv.FormatInt(st.Failed, 10)},
		{"outboxctl_relay_batches_total", "counter", "Batches (polls) run.", strconv.FormatInt(st.Batches, 10)},
		{"outboxctl_relay_batch_duration_seconds", "gauge", "Duration of the last batch.", strconv.FormatFloat(st.LastBatch.Seconds(), 'g', -1, 64)},
		{"outboxctl_relay_oldest_pending_seconds", "gauge", "Age of the oldest unpublished row read by the last batch (from its UUIDv7 id).", strconv.FormatFloat(st.OldestPending.Seconds(), 'g', -1, 64)},
		{"outboxctl_relay_leader", "gauge", "1 when this relay holds the outbox lock and publishes.", strconv.Itoa(leader)},
	} {
		if _, err := fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s%s %s\n", m.name, m.help, m.name, m.typ, m.name, label, m.v); err != nil {
			return err
		}
	}
	return nil
}

func escapeLabel(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '"':
			out = append(out, '\\', s[i])
		case '\n':
			out = append(out, '\\', 'n')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}
