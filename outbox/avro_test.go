package outbox_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas/wire"
)

const orderSchema = `{"type":"record","name":"OrderCreated","fields":[{"name":"total","type":"long"}]}`

// NewAvroEncoderFromSchema encodes as the deprecated codec constructor does,
// and refuses a schema that does not parse with ErrAvroSchema.
func TestNewAvroEncoderFromSchema(t *testing.T) {
	enc, err := outbox.NewAvroEncoderFromSchema(7, orderSchema)
	if err != nil {
		t.Fatal(err)
	}
	if enc.SchemaID() != 7 {
		t.Errorf("SchemaID = %d, want 7", enc.SchemaID())
	}
	got, err := enc.Encode(map[string]any{"total": int64(1999)})
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(orderSchema)
	if err != nil {
		t.Fatal(err)
	}
	old, err := outbox.NewAvroEncoder(7, codec)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := old.Encode(map[string]any{"total": int64(1999)})
	if !bytes.Equal(got, want) {
		t.Errorf("Encode = %x, want %x (NewAvroEncoder's)", got, want)
	}
	if id, datum, err := wire.Parse(got); err != nil || id != 7 || len(datum) == 0 {
		t.Errorf("ParseWireFormat = %d, %x, %v", id, datum, err)
	}
	fromJSON, err := enc.EncodeJSON([]byte(`{"total":1999}`))
	if err != nil || !bytes.Equal(fromJSON, want) {
		t.Errorf("EncodeJSON = %x, %v, want %x", fromJSON, err, want)
	}

	for _, bad := range []string{"", "{", `{"type":"record","name":"X","fields":[{"name":"a","type":"strin"}]}`} {
		if _, err := outbox.NewAvroEncoderFromSchema(1, bad); !errors.Is(err, outbox.ErrAvroSchema) {
			t.Errorf("NewAvroEncoderFromSchema(%q) = %v, want ErrAvroSchema", bad, err)
		}
	}
}
