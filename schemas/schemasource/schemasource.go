// Package schemasource names the SDK's two sources of Avro writer schemas,
// so that the writer (outbox) and the consumer (consumer) share one
// vocabulary:
//
//   - ByEventType, the producer's: the writer schema of an event type's
//     major version and the registry id to write into the Confluent wire
//     header. outbox.RegistryByEventType is the registry-backed one
//     (outbox.WithSchemas takes it).
//   - ByID, the consumer's: the writer schema of a record, by the registry
//     id in its wire header. consumer.RegistryByID is the registry-backed
//     one (consumer.RouterConfig.Schemas takes it);
//     consumertest.Registry is an in-memory one.
//
// outbox.SchemaSource and consumer.SchemaSource are deprecated aliases of
// ByEventType and ByID. The package imports nothing but schemas/avro.
package schemasource

import (
	"context"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// ByEventType gives the writer schema of an event type's major version and
// the registry id written into the Confluent wire header. Implementations
// must be safe for concurrent use.
type ByEventType interface {
	WriterSchema(ctx context.Context, eventType string, major int) (id uint32, schema avro.Schema, err error)
}

// ByID gives writer schemas, as Avro JSON text, by their registry id (the
// id in the Confluent wire header). Implementations must be safe for
// concurrent use. The consumer's Router caches the parsed schema per id,
// so they need not cache; see consumer.ErrSchema for how it classifies
// their errors.
type ByID interface {
	SchemaByID(ctx context.Context, id int) (string, error)
}
