//go:build integration

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/riferrei/srclient"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestRegistryRoundTrip registers an Avro schema through the
// Confluent-compatible API of the stack's registry with srclient, reads it
// back by id and by subject/version, and checks a compatible and an
// incompatible second version.
func TestRegistryRoundTrip(t *testing.T) {
	s := itest.Require(t, itest.Registry)
	client := srclient.NewSchemaRegistryClient(s.SchemaRegistryURL)
	client.CachingEnabled(false)

	subject := "outbox.event.Order-com.acme.OrderCreated-" + itest.Suffix()
	t.Cleanup(func() {
		if err := client.DeleteSubject(subject, false); err != nil {
			t.Errorf("soft delete %s: %v", subject, err)
		}
		if err := client.DeleteSubject(subject, true); err != nil {
			t.Errorf("hard delete %s: %v", subject, err)
		}
		subjects, err := client.GetSubjects()
		if err != nil {
			t.Errorf("list subjects: %v", err)
		}
		for _, sub := range subjects {
			if sub == subject {
				t.Errorf("subject %s still listed after delete", subject)
			}
		}
	})

	v1 := `{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[{"name":"orderId","type":"string"},{"name":"amount","type":"long"}]}`
	created, err := client.CreateSchema(subject, v1, srclient.Avro)
	if err != nil {
		t.Fatalf("register v1: %v", err)
	}
	if created.ID() <= 0 {
		t.Fatalf("register v1: id = %d, want > 0", created.ID())
	}

	byID, err := client.GetSchema(created.ID())
	if err != nil {
		t.Fatalf("get by id %d: %v", created.ID(), err)
	}
	if !sameFields(byID.Schema(), "orderId", "amount") {
		t.Errorf("schema by id = %s", byID.Schema())
	}

	byVersion, err := client.GetSchemaByVersion(subject, 1)
	if err != nil {
		t.Fatalf("get %s version 1: %v", subject, err)
	}
	if byVersion.ID() != created.ID() || byVersion.Version() != 1 {
		t.Errorf("version 1: id %d version %d, want id %d version 1", byVersion.ID(), byVersion.Version(), created.ID())
	}

	// Re-registering the same schema returns the same id and adds no version.
	again, err := client.CreateSchema(subject, v1, srclient.Avro)
	if err != nil {
		t.Fatalf("re-register v1: %v", err)
	}
	if again.ID() != created.ID() {
		t.Errorf("re-register: id %d, want %d", again.ID(), created.ID())
	}
	versions, err := client.GetSchemaVersions(subject)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 1 {
		t.Errorf("versions after identical re-register = %v, want [1]", versions)
	}

	// A field with a default is BACKWARD compatible (the registry's global level).
	v2 := `{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[{"name":"orderId","type":"string"},{"name":"amount","type":"long"},{"name":"currency","type":"string","default":"EUR"}]}`
	ok, err := client.IsSchemaCompatible(subject, v2, "latest", srclient.Avro)
	if err != nil {
		t.Fatalf("compatibility of v2: %v", err)
	}
	if !ok {
		t.Errorf("v2 (new field with default) reported incompatible")
	}
	// A new field without a default is not.
	bad := `{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[{"name":"orderId","type":"string"},{"name":"amount","type":"long"},{"name":"customer","type":"string"}]}`
	ok, err = client.IsSchemaCompatible(subject, bad, "latest", srclient.Avro)
	if err != nil {
		t.Fatalf("compatibility of bad: %v", err)
	}
	if ok {
		t.Errorf("new field without default reported compatible under BACKWARD")
	}
	if _, err := client.CreateSchema(subject, bad, srclient.Avro); err == nil {
		t.Errorf("registry accepted an incompatible version")
	} else if !strings.Contains(err.Error(), "409") && !strings.Contains(strings.ToLower(err.Error()), "incompatible") {
		t.Errorf("register incompatible: unexpected error %v (want HTTP %d)", err, http.StatusConflict)
	}
	v2s, err := client.CreateSchema(subject, v2, srclient.Avro)
	if err != nil {
		t.Fatalf("register v2: %v", err)
	}
	if v2s.ID() == created.ID() {
		t.Errorf("v2 got the id of v1")
	}
}

func sameFields(schema string, names ...string) bool {
	for _, n := range names {
		if !strings.Contains(schema, `"`+n+`"`) {
			return false
		}
	}
	return true
}
