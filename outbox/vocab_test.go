package outbox_test

import (
	"context"
	"testing"

	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/schemasource"
	"github.com/outboxctl/outboxctl/spec"
)

// The writer's schema source has one name, schemasource.ByEventType; the
// deprecated outbox.SchemaSource and outbox.RegistrySchemas still compile
// and behave as RegistryByEventType (issue 28 item 4).
func TestDeprecatedSchemaSourceNames(t *testing.T) {
	var old outbox.SchemaSource
	var now schemasource.ByEventType = old // same type: assignable both ways
	old = now
	_ = old
	s, err := avro.Parse([]byte(orderAvsc))
	if err != nil {
		t.Fatal(err)
	}
	cat := &schemas.Catalog{Entries: []*schemas.CatalogEntry{{Outbox: "o", EventType: "OrderCreated", Major: 2,
		Subject: "outbox.event.Order-shop.OrderCreated", PayloadFormat: spec.FormatAvro, Source: []byte(orderAvsc), Schema: s}}}
	for name, src := range map[string]schemasource.ByEventType{
		"RegistryByEventType": outbox.RegistryByEventType(&fakeLookup{id: 7}, cat, "o"),
		"RegistrySchemas":     outbox.RegistrySchemas(&fakeLookup{id: 7}, cat, "o"),
	} {
		id, schema, err := src.WriterSchema(context.Background(), "OrderCreated", 2)
		if err != nil || id != 7 || schema == nil {
			t.Errorf("%s: WriterSchema = %d, %v, %v; want id 7 and the catalog's schema", name, id, schema, err)
		}
	}
}
