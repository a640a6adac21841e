package spec

import (
	"fmt"
	"time"
)

// RetentionPeriod is the outbox's declared retention (Outbox.Retention),
// 0 when the spec declares none (or it is invalid: Load reports that). It
// is the one source of the "oldest kept row" threshold of an outbox that
// keeps rows: provisioning.OldestRowLimit reads it for doctor and the
// exporter (outbox_retention_seconds, the OutboxKeptRowTooOld alert).
func (o *Outbox) RetentionPeriod() time.Duration {
	if o.Retention == "" {
		return 0
	}
	d, err := time.ParseDuration(o.Retention)
	if err != nil || d <= 0 {
		return 0
	}
	return d
}

// checkRetention checks o's retention: a positive duration, on an outbox
// that keeps rows after publishing (the relay and a writer that deletes
// after insert keep none).
func checkRetention(o *Outbox, errs *ErrorList) {
	if o.Retention == "" {
		return
	}
	if d, err := time.ParseDuration(o.Retention); err != nil || d <= 0 {
		errs.add(o.PosOf("retention"), fmt.Sprintf("outbox %q: retention %q: want a positive duration such as 24h or 72h", o.Name, o.Retention))
		return
	}
	switch {
	case o.RelayPublished():
		errs.add(o.PosOf("retention"), fmt.Sprintf("outbox %q: retention: the relay deletes the rows it publishes, there are no kept rows (drop retention)", o.Name))
	case o.DeletesAfterInsert():
		errs.add(o.PosOf("retention"), fmt.Sprintf("outbox %q: retention: writer.deleteAfterInsert keeps no rows (drop retention)", o.Name))
	}
}
