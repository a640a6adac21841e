package consumer

import (
	"context"
	"errors"
	"fmt"

	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
)

// RegistryByID adapts the schemas/registry client to a schemasource.ByID: it
// fetches writer schemas by id from a Confluent-compatible registry
// (Confluent Schema Registry, Apicurio's ccompat API). The Router caches what
// it returns per id.
//
// Errors: a schema id the registry does not know (error code 40403,
// registry.ErrSchemaNotFound), a schema of another type than AVRO
// (PROTOBUF, JSON) and a schema with references (not resolved by the
// consumer) are permanent (IsPermanent: the DLQ middleware dead-letters the
// record with the reason); a registry that cannot be reached or answers 5xx
// (registry.ErrUnreachable, registry.ErrServer) is transient (IsTransient:
// the record's partition waits and retries, nothing is dead-lettered).
func RegistryByID(c *registry.Client) schemasource.ByID { return registrySource{c} }

// RegistrySchemas is RegistryByID.
//
// Deprecated: use RegistryByID (outbox.RegistrySchemas, the writer's
// source, has another signature; each now has its own name).
func RegistrySchemas(c *registry.Client) SchemaSource { return RegistryByID(c) }

type registrySource struct{ c *registry.Client }

func (s registrySource) SchemaByID(ctx context.Context, id int) (string, error) {
	sc, err := s.c.SchemaByID(ctx, id)
	if err != nil {
		if errors.Is(err, registry.ErrSchemaNotFound) {
			return "", Permanent(err)
		}
		return "", Transient(err)
	}
	if sc.Type != "" && sc.Type != registry.SchemaTypeAvro {
		return "", Permanent(fmt.Errorf("schema %d is %s, not %s", id, sc.Type, registry.SchemaTypeAvro))
	}
	if len(sc.References) > 0 {
		return "", Permanent(fmt.Errorf("schema %d has %d schema references, which the consumer does not resolve", id, len(sc.References)))
	}
	return sc.Schema, nil
}
