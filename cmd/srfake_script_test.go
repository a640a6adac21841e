package cmd_test

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
)

// setupSchemaRegistryFake starts an in-memory Confluent Schema Registry
// (srfake) for every script and points OUTBOX_SCHEMA_REGISTRY_URL at it, so
// that `outboxctl schema register|check --against-registry|list|get|diff`
// run hermetically. A script seeds it with `exec outboxctl schema register`.
func setupSchemaRegistryFake(e *testscript.Env) error {
	f := srfake.New()
	e.Defer(f.Close)
	e.Setenv("OUTBOX_SCHEMA_REGISTRY_URL", f.URL())
	return nil
}
