//go:build integration

package crashtest

import (
	"os"
	"strings"
	"time"
)

// inboxTimeoutMsg is the consumer's WARN line when an inbox transaction
// outlives RouterConfig.InboxTimeout (consumer.ErrInboxTimeout).
const inboxTimeoutMsg = "inbox transaction timed out"

// blackholeInbox freezes the proxy between the consumer and its inbox
// database for d: the connections stay open and nothing is forwarded, as
// when packets are dropped (no refusal, no reset). The consumer must
// report the stall (a WARN line once its inbox transaction passes the
// default InboxTimeout of 30 s, so d must exceed it) and, once the proxy
// forwards again, handle every event exactly once and in order (settle
// checks the counts).
func (s *suite) blackholeInbox(d time.Duration) {
	t := s.t
	t.Helper()
	before := s.logCount(inboxTimeoutMsg)
	s.proxy.Freeze()
	thawed := false
	defer func() {
		if !thawed {
			s.proxy.Thaw()
		}
	}()
	time.Sleep(d)
	s.proxy.Thaw()
	thawed = true
	if n := s.logCount(inboxTimeoutMsg) - before; n == 0 {
		t.Errorf("inbox blackholed %s: the consumer logged no %q line (consumer log: %s)", d, inboxTimeoutMsg, s.logFile)
	} else {
		t.Logf("inbox blackholed %s: the consumer reported %d inbox transaction timeouts", d, n)
	}
}

// logCount counts the lines of the consumer's log that contain msg.
func (s *suite) logCount(msg string) int {
	b, _ := os.ReadFile(s.logFile)
	return strings.Count(string(b), msg)
}

// selected reports whether the fault named name runs: every fault, or
// with OUTBOX_CRASH_ONLY set only those whose name contains it (to run
// one row while developing; the warm-up always runs).
func selected(name string) bool {
	only := os.Getenv("OUTBOX_CRASH_ONLY")
	return only == "" || strings.Contains(name, only)
}
