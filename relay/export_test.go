package relay

// SetTestHook sets the relay's test seam: h is called with the window a
// batch reaches ("acked": the broker acknowledged what was sent, nothing is
// deleted yet; "delete": just before the DELETE / UPDATE of the done rows).
func SetTestHook(r *Relay, h func(point string)) { r.testHook = h }
