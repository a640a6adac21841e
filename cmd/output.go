package cmd

import (
	"fmt"
	"strings"
)

// checkOutput validates an -o/--output value: the one place that turns an
// unknown format into a usage error (exit 2) naming the allowed values.
func checkOutput(o string, allowed ...string) error {
	for _, a := range allowed {
		if o == a {
			return nil
		}
	}
	return UsageError(fmt.Errorf("unknown output format %q (want %s)", o, strings.Join(allowed, "|")))
}
