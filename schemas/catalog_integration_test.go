//go:build integration

package schemas

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// TestCatalogAgainstRegistry registers a spec's schemas in the stack's
// registry (level before the first version, idempotent), then checks a
// breaking change against the registry: the local check and the registry
// refuse it alike.
func TestCatalogAgainstRegistry(t *testing.T) {
	st := itest.Require(t, itest.Registry)
	c, err := registry.NewClient(st.SchemaRegistryURL, registry.WithCallTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	prefix := "itest.outboxctl." + itest.Suffix() + "."
	files := ckFiles()
	files["outbox.yaml"] = strings.Replace(ckSpec, `"events.${routedByValue}"`, `"`+prefix+`${routedByValue}"`, 1)
	ckWorkspace(t, files)
	_, cat := ckCatalog(t)
	ctx := context.Background()
	for _, e := range cat.Entries {
		if !strings.HasPrefix(e.Subject, prefix) && e.Registered() {
			t.Fatalf("subject %s is not unique to this test", e.Subject)
		}
		subject := e.Subject
		t.Cleanup(func() {
			if err := c.DeleteSubject(ctx, subject, false); err != nil && !errors.Is(err, registry.ErrSubjectNotFound) {
				t.Errorf("cleanup %s: %v", subject, err)
			}
			if err := c.DeleteSubject(ctx, subject, true); err != nil && !errors.Is(err, registry.ErrSubjectNotFound) {
				t.Errorf("cleanup %s: %v", subject, err)
			}
		})
	}
	v1 := prefix + "Order-acme.v1.OrderCreated"

	plan, err := RegisterCatalog(ctx, c, cat, RegisterOptions{DryRun: true})
	if err != nil || plan.Count(ActionCreate) != 2 {
		t.Fatalf("dry run = %+v, %v", plan, err)
	}
	if _, err := c.Versions(ctx, v1); !errors.Is(err, registry.ErrSubjectNotFound) {
		t.Fatalf("dry run created the subject: %v", err)
	}
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{})
	if err != nil || plan.Count(ActionCreate) != 2 || plan.Steps[0].Version != 1 || plan.Steps[0].SetLevel != "BACKWARD_TRANSITIVE" {
		t.Fatalf("register = %+v, %v", plan, err)
	}
	if l, ok, err := c.SubjectLevel(ctx, v1); err != nil || !ok || l != "BACKWARD_TRANSITIVE" {
		t.Fatalf("level = %q %v %v", l, ok, err)
	}
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{})
	if err != nil || plan.Count(ActionUnchanged) != 2 {
		t.Fatalf("re-register = %+v, %v", plan, err)
	}
	if vs, _ := c.Versions(ctx, v1); len(vs) != 1 {
		t.Fatalf("re-register created versions: %v", vs)
	}

	rep, err := CheckCatalog(ctx, cat, []Baseline{RegistryBaseline(c)}, CheckOptions{})
	if err != nil || !rep.Compatible || rep.Summary.Compatible != 2 || rep.Summary.Skipped != 1 {
		t.Fatalf("unchanged check = %+v, %v", rep, err)
	}

	if err := os.WriteFile("schemas/OrderCreated.v1.avsc", []byte(ckCreatedV1Bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cat = ckCatalog(t)
	rep, err = CheckCatalog(ctx, cat, []Baseline{RegistryBaseline(c)}, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Compatible || rep.Results[0].Status != StatusIncompatible || rep.Results[0].Level != "BACKWARD_TRANSITIVE" {
		t.Fatalf("check of the break = %+v", rep.Results[0])
	}
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{})
	if err != nil || plan.Steps[0].Action != ActionRefused || plan.Steps[1].Action != ActionUnchanged {
		t.Fatalf("register of the break = %+v, %v", plan, err)
	}
	if vs, _ := c.Versions(ctx, v1); len(vs) != 1 {
		t.Fatalf("the refused schema created a version: %v", vs)
	}
}
