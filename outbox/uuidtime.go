package outbox

import (
	"time"

	"github.com/outboxctl/outboxctl/internal/uuidv7"
)

// UUIDv7Time is the creation time in a UUIDv7 such as NewUUIDv7 makes (its
// first 48 bits, Unix milliseconds), in UTC; false for any other text.
func UUIDv7Time(s string) (time.Time, bool) { return uuidv7.Time(s) }
