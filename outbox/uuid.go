package outbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

var (
	uuidMu   sync.Mutex
	uuidLast int64 // last millisecond used
	uuidSeq  uint16
)

// NewUUIDv7 returns a random UUID of version 7 (RFC 9562) in canonical lower
// case form: 48 bits of Unix milliseconds, then random bits. Ids generated
// by one process are strictly increasing (a 12-bit counter orders ids of
// the same millisecond), so they sort by creation time and keep the outbox
// table's primary key index append-mostly.
func NewUUIDv7() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("uuid: %w", err)
	}
	uuidMu.Lock()
	ms := time.Now().UnixMilli()
	if ms <= uuidLast {
		uuidSeq++
		if uuidSeq > 0x0fff {
			uuidLast++
			uuidSeq = 0
		}
		ms = uuidLast
	} else {
		uuidLast = ms
		uuidSeq = uint16(b[6]&0x03)<<8 | uint16(b[7]) // random start, leaves room to count
	}
	seq := uuidSeq
	uuidMu.Unlock()
	b[0] = byte(ms >> 40)
	b[1] = byte(ms >> 32)
	b[2] = byte(ms >> 24)
	b[3] = byte(ms >> 16)
	b[4] = byte(ms >> 8)
	b[5] = byte(ms)
	b[6] = 0x70 | byte(seq>>8)&0x0f
	b[7] = byte(seq)
	b[8] = b[8]&0x3f | 0x80 // variant 10
	return formatUUID(b), nil
}

func formatUUID(b [16]byte) string {
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// IsUUID reports whether s is a UUID in canonical 8-4-4-4-12 hex form (any
// case, any version).
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
