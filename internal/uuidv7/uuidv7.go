// Package uuidv7 reads the time out of a UUIDv7: a leaf (standard library
// only), so that provisioning and cleanup need not import the writer
// (outbox, which makes the UUIDs) for it.
package uuidv7

import (
	"strconv"
	"time"
)

// Time is the creation time in a UUIDv7 such as outbox.NewUUIDv7 makes
// (its first 48 bits, Unix milliseconds), in UTC; false for any other text.
func Time(s string) (time.Time, bool) {
	if len(s) != 36 || s[14] != '7' || s[8] != '-' || s[13] != '-' {
		return time.Time{}, false
	}
	ms, err := strconv.ParseUint(s[:8]+s[9:13], 16, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(ms)).UTC(), true
}
