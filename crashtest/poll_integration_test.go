//go:build integration

package crashtest

import "time"

// pollLoop runs body in a goroutine, every interval (0: back to back, for
// a body that waits itself, such as a consumer's Poll), until the returned
// stop is called; stop waits for the goroutine to end.
func pollLoop(every time.Duration, body func()) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if every > 0 {
				select {
				case <-done:
					return
				case <-time.After(every):
				}
			} else {
				select {
				case <-done:
					return
				default:
				}
			}
			body()
		}
	}()
	return func() { close(done); <-stopped }
}
