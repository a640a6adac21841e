// Package wire is the Confluent wire format of a registry-encoded payload,
// in one place for the outbox writer, the consumer and consumertest: the
// magic byte 0, the 4-byte big-endian schema id, then the encoded datum
// (Avro binary here). It depends on nothing but the standard library.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// HeaderSize is the length of the header: magic byte and schema id.
const HeaderSize = 5

// Magic is the magic byte of the format with a 4-byte schema id. Magic
// byte 1 (a 16-byte schema GUID) is not supported.
const Magic byte = 0

// ErrFormat: bytes that are not in Confluent wire format.
var ErrFormat = errors.New("not Confluent wire format")

// AppendHeader appends the header for schemaID to buf; append the datum
// after it.
func AppendHeader(buf []byte, schemaID uint32) []byte {
	return binary.BigEndian.AppendUint32(append(buf, Magic), schemaID)
}

// Frame returns datum framed with schemaID, in a new slice.
func Frame(schemaID uint32, datum []byte) []byte {
	out := make([]byte, 0, HeaderSize+len(datum))
	return append(AppendHeader(out, schemaID), datum...)
}

// Parse splits b into the schema id and the datum (a subslice of b).
// Errors wrap ErrFormat: fewer than 5 bytes, or a magic byte other than 0.
func Parse(b []byte) (schemaID uint32, datum []byte, err error) {
	if len(b) < HeaderSize {
		return 0, nil, fmt.Errorf("%w: %d bytes, want at least 5 (magic byte 0 and a 4-byte schema id)", ErrFormat, len(b))
	}
	if b[0] != Magic {
		return 0, nil, fmt.Errorf("%w: magic byte is %d, want 0", ErrFormat, b[0])
	}
	return binary.BigEndian.Uint32(b[1:HeaderSize]), b[HeaderSize:], nil
}
