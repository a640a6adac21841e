package consumer

import (
	"context"
	"fmt"

	"github.com/outboxctl/outboxctl/schemas/registry"
)

// RegistrySchemas adapts the schemas/registry client to a SchemaSource: it
// fetches writer schemas by id from a Confluent-compatible registry
// (Confluent Schema Registry, Apicurio's ccompat API). The Router caches what
// it returns per id.
//
// A schema of another type than AVRO, or one with schema references (not
// resolved by the consumer yet), is an error.
func RegistrySchemas(c *registry.Client) SchemaSource { return registrySource{c} }

type registrySource struct{ c *registry.Client }

func (s registrySource) SchemaByID(ctx context.Context, id int) (string, error) {
	sc, err := s.c.SchemaByID(ctx, id)
	if err != nil {
		return "", err
	}
	if sc.Type != "" && sc.Type != registry.SchemaTypeAvro {
		return "", fmt.Errorf("schema %d is %s, not %s", id, sc.Type, registry.SchemaTypeAvro)
	}
	if len(sc.References) > 0 {
		return "", fmt.Errorf("schema %d has %d schema references, which the consumer does not resolve", id, len(sc.References))
	}
	return sc.Schema, nil
}
