package outbox

import (
	"errors"
	"fmt"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/schemas/wire"
)

// ErrWireFormat: bytes that are not in Confluent wire format.
//
// Deprecated: it is wire.ErrFormat (package schemas/wire); use that.
var ErrWireFormat = wire.ErrFormat

// WireFormat frames an Avro binary datum in Confluent wire format: the magic
// byte 0, the 4-byte big-endian schema id, then the datum. This is the
// payload of an avro outbox: the EventRouter and ByteArrayConverter pass
// it to Kafka untouched, so any Confluent-compatible deserializer reads it.
//
// Deprecated: use wire.Frame (package schemas/wire), the one framing.
func WireFormat(schemaID uint32, datum []byte) []byte { return wire.Frame(schemaID, datum) }

// ParseWireFormat splits Confluent wire-format bytes into the schema id and
// the Avro datum. Errors wrap ErrWireFormat.
//
// Deprecated: use wire.Parse (package schemas/wire), the one parser.
func ParseWireFormat(b []byte) (schemaID uint32, datum []byte, err error) { return wire.Parse(b) }

// AvroEncoder encodes event payloads of one registered schema (one event
// type and major version) into Confluent wire format. It is safe for
// concurrent use (goavro codecs are).
type AvroEncoder struct {
	id    uint32
	codec *goavro.Codec
}

// ErrAvroSchema: the schema given to NewAvroEncoderFromSchema does not
// parse as Avro.
var ErrAvroSchema = errors.New("invalid avro schema")

// NewAvroEncoderFromSchema returns an encoder for the schema registered
// under schemaID (the id the Schema Registry returned, for the subject of
// the event type and major version); schema is that same schema's Avro
// JSON text (the registered text, or the spec's .avsc). A schema that does
// not parse is an error wrapping ErrAvroSchema.
func NewAvroEncoderFromSchema(schemaID uint32, schema string) (*AvroEncoder, error) {
	codec, err := goavro.NewCodec(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: avro encoder (schema id %d): %w", ErrAvroSchema, schemaID, err)
	}
	return &AvroEncoder{id: schemaID, codec: codec}, nil
}

// NewAvroEncoder returns an encoder for the schema registered under
// schemaID and the goavro codec of that same schema.
//
// Deprecated: use NewAvroEncoderFromSchema, which takes the schema's text
// and keeps the third-party codec type out of the caller's code.
func NewAvroEncoder(schemaID uint32, codec *goavro.Codec) (*AvroEncoder, error) {
	if codec == nil {
		return nil, errors.New("avro encoder: nil codec")
	}
	return &AvroEncoder{id: schemaID, codec: codec}, nil
}

// SchemaID returns the schema id written into every payload.
func (e *AvroEncoder) SchemaID() uint32 { return e.id }

// Encode encodes a goavro native datum (map[string]any for a record).
func (e *AvroEncoder) Encode(native any) ([]byte, error) {
	out, err := e.codec.BinaryFromNative(wire.AppendHeader(make([]byte, 0, 64), e.id), native)
	if err != nil {
		return nil, fmt.Errorf("avro encode (schema id %d): %w", e.id, err)
	}
	return out, nil
}

// EncodeJSON encodes a datum given in Avro's JSON encoding.
func (e *AvroEncoder) EncodeJSON(textual []byte) ([]byte, error) {
	native, _, err := e.codec.NativeFromTextual(textual)
	if err != nil {
		return nil, fmt.Errorf("avro decode JSON (schema id %d): %w", e.id, err)
	}
	return e.Encode(native)
}
