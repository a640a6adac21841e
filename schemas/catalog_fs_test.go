package schemas_test

import (
	"testing"
	"testing/fstest"

	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/spec"
)

// TestBuildCatalogFromEmbeddedSpec: BuildCatalog reads the schema files of
// a spec loaded with spec.LoadFS from that fs.FS (nothing on disk).
func TestBuildCatalogFromEmbeddedSpec(t *testing.T) {
	fsys := fstest.MapFS{
		"outbox.yaml": {Data: []byte(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: h, port: 5432, user: u, password: "${env:PW}", dbname: d}
    payloadFormat: avro
    events:
      - name: Placed
        aggregate: Order
        versions: [{major: 1, schema: schemas/p1.avsc}]
`)},
		"schemas/p1.avsc": {Data: []byte(`{"type": "record", "name": "Placed", "namespace": "shop.v1", "fields": [{"name": "id", "type": "string"}]}`)},
	}
	sp, err := spec.LoadFS(fsys, "outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Entries) != 1 || cat.Entries[0].EventType != "Placed" || cat.Entries[0].File != "schemas/p1.avsc" {
		t.Fatalf("entries = %+v", cat.Entries)
	}
	if topic, ok := cat.Topic("orders", "Placed"); !ok || topic != "outbox.event.Order" {
		t.Errorf("topic = %q, %v", topic, ok)
	}
}
