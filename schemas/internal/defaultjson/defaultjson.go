// Package defaultjson reads the values of Avro field defaults (Avro JSON, as
// package avro's parser keeps it) the way Java's decoder does. It is the one
// place for what package resolve (defaults as reader-shaped values) and
// package avrobind (defaults as Avro binary) both convert.
package defaultjson

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// Integer reads a JSON number exactly (no fraction, no rounding).
func Integer(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case float64:
		return int64(n), n == math.Trunc(n) && math.Abs(n) < 1<<63
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// Float reads a JSON number as a float64.
func Float(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// Latin1 maps code points 0-255 to bytes, and others to '?' as Java's
// String.getBytes(ISO_8859_1) does: the bytes of a bytes or fixed default.
func Latin1(s string) []byte {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xFF {
			b = append(b, '?')
			continue
		}
		b = append(b, byte(r))
	}
	return b
}

// Invalid is the message for a default v that is not a valid value of s.
func Invalid(s avro.Schema, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprint(v))
	}
	return fmt.Sprintf("default %s is not a valid %s", b, avro.TypeName(s))
}
