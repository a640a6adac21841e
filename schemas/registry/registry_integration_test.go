//go:build integration

package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

func itClient(t *testing.T) (*registry.Client, string) {
	t.Helper()
	s := itest.Require(t, itest.Registry)
	c, err := registry.NewClient(s.SchemaRegistryURL, registry.WithCallTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return c, s.SchemaRegistryURL
}

// cleanup soft- then hard-deletes subject, ignoring "not found".
func cleanup(t *testing.T, c *registry.Client, subject string) {
	t.Cleanup(func() {
		ctx := context.Background()
		if err := c.DeleteSubject(ctx, subject, false); err != nil && !errors.Is(err, registry.ErrSubjectNotFound) && !errors.Is(err, registry.ErrSubjectSoftDeleted) {
			t.Errorf("cleanup: %v", err)
		}
		if err := c.DeleteSubject(ctx, subject, true); err != nil && !errors.Is(err, registry.ErrSubjectNotFound) {
			t.Errorf("cleanup: %v", err)
		}
	})
}

// rawConfig is GET /config/{subject} with plain net/http, to verify the
// level independently of the client.
func rawConfig(t *testing.T, base, subject string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + "/config/" + url.PathEscape(subject))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		CompatibilityLevel string `json:"compatibilityLevel"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.CompatibilityLevel
}

// TestRegistryLifecycle: level set before the first version, idempotent
// re-register, an incompatible candidate refused, soft then hard delete.
func TestRegistryLifecycle(t *testing.T) {
	c, base := itClient(t)
	ctx := context.Background()
	subject := "itest.outboxctl.registry-" + itest.Suffix() + "-value"
	cleanup(t, c, subject)

	if _, ok, err := c.SubjectLevel(ctx, subject); err != nil || ok {
		t.Fatalf("level of a new subject: ok=%v err=%v", ok, err)
	}
	global, err := c.GlobalLevel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := c.Level(ctx, subject); err != nil || l != global {
		t.Fatalf("defaulted level = %q, %v; want the global %q", l, err, global)
	}
	if err := c.SetLevel(ctx, subject, "BACKWARD_TRANSITIVE"); err != nil {
		t.Fatal(err)
	}
	if st, l := rawConfig(t, base, subject); st != 200 || l != "BACKWARD_TRANSITIVE" {
		t.Fatalf("GET /config/%s before the first version = %d %q", subject, st, l)
	}
	if err := c.SetLevel(ctx, subject, "SIDEWAYS"); !errors.Is(err, registry.ErrInvalidLevel) {
		t.Fatalf("invalid level: %v", err)
	}

	r1, err := c.Register(ctx, subject, v1)
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Created || r1.Version != 1 || r1.ID <= 0 {
		t.Fatalf("register v1 = %+v", r1)
	}
	if st, l := rawConfig(t, base, subject); st != 200 || l != "BACKWARD_TRANSITIVE" {
		t.Fatalf("level after the first version = %d %q", st, l)
	}
	again, err := c.Register(ctx, subject, v1b)
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Version != 1 || again.ID != r1.ID {
		t.Fatalf("re-register = %+v, want unchanged version 1", again)
	}
	if vs, err := c.Versions(ctx, subject); err != nil || len(vs) != 1 {
		t.Fatalf("versions after re-register = %v, %v", vs, err)
	}
	r2, err := c.Register(ctx, subject, v2)
	if err != nil || !r2.Created || r2.Version != 2 {
		t.Fatalf("register v2 = %+v, %v", r2, err)
	}
	if l, err := c.Latest(ctx, subject); err != nil || l.Version != 2 {
		t.Fatalf("latest = %+v, %v", l, err)
	}

	// The incompatible candidate: refused by the registry and by the local
	// checker alike.
	_, err = c.Register(ctx, subject, bad)
	var ae *registry.APIError
	if !errors.Is(err, registry.ErrIncompatible) || !errors.As(err, &ae) || ae.Status != 409 {
		t.Fatalf("register incompatible: %v", err)
	}
	hist, err := c.History(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	var parsed []avro.Schema
	for _, h := range hist {
		s, err := avro.ParseWith([]byte(h.Schema), avro.Lenient())
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, s)
	}
	cand, _ := avro.Parse([]byte(bad))
	if rep := compat.CheckLevel(compat.BackwardTransitive, cand, parsed); rep.Compatible {
		t.Fatal("local checker says compatible, the registry refused")
	}
	if vs, _ := c.Versions(ctx, subject); len(vs) != 2 {
		t.Fatalf("a refused schema created a version: %v", vs)
	}

	// Errors by sentinel.
	if _, err := c.Version(ctx, subject, 9); !errors.Is(err, registry.ErrVersionNotFound) {
		t.Errorf("version 9: %v", err)
	}
	if _, err := c.Latest(ctx, subject+"-missing"); !errors.Is(err, registry.ErrSubjectNotFound) {
		t.Errorf("missing subject: %v", err)
	}
	if _, err := c.Lookup(ctx, subject, bad); !errors.Is(err, registry.ErrSchemaNotFound) {
		t.Errorf("lookup of an unregistered schema: %v", err)
	}
	if _, err := c.SchemaByID(ctx, 1<<30); !errors.Is(err, registry.ErrSchemaNotFound) {
		t.Errorf("schema id 2^30: %v", err)
	}
	if _, err := c.Register(ctx, subject, `{"type":"record","name":"X","fields":[{"name":"a","type":"strin"}]}`); !errors.Is(err, registry.ErrInvalidSchema) {
		t.Errorf("invalid schema: %v", err)
	}

	// Delete: a hard delete needs a soft delete first.
	if err := c.DeleteSubject(ctx, subject, true); !errors.Is(err, registry.ErrSubjectNotSoftDeleted) {
		t.Fatalf("hard delete before soft: %v", err)
	}
	if err := c.DeleteSubject(ctx, subject, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Versions(ctx, subject); !errors.Is(err, registry.ErrSubjectNotFound) {
		t.Fatalf("versions after soft delete: %v", err)
	}
	withDeleted, err := c.Subjects(ctx, true)
	if err != nil || !contains(withDeleted, subject) {
		t.Fatalf("soft-deleted subject not listed with deleted: %v", err)
	}
	live, _ := c.Subjects(ctx, false)
	if contains(live, subject) {
		t.Fatal("soft-deleted subject still listed")
	}
	if err := c.DeleteSubject(ctx, subject, true); err != nil {
		t.Fatal(err)
	}
	withDeleted, _ = c.Subjects(ctx, true)
	if contains(withDeleted, subject) {
		t.Fatal("hard-deleted subject still listed")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRegistryVerdictsMatchLocalChecker registers v1 at each level and
// asks the registry (TestCompatibility over all versions) and the local
// checker about the same candidates: the verdicts must agree.
func TestRegistryVerdictsMatchLocalChecker(t *testing.T) {
	c, _ := itClient(t)
	ctx := context.Background()
	base := `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}}]}`
	candidates := map[string]string{
		"add field with default":    `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},{"name":"x","type":"string","default":""}]}`,
		"add field without default": `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},{"name":"x","type":"string"}]}`,
		"remove a field":            `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}}]}`,
		"int to long":               `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"long"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}}]}`,
		"int to string":             `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"string"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}}]}`,
		"add enum symbol":           `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B","C"]}}]}`,
		"remove enum symbol":        `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A"]}}]}`,
		"rename record":             `{"type":"record","name":"F","namespace":"it","fields":[{"name":"id","type":"string"},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}}]}`,
		"widen to union":            `{"type":"record","name":"E","namespace":"it","fields":[{"name":"id","type":["null","string"]},{"name":"n","type":"int"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}}]}`,
	}
	prev, _ := avro.Parse([]byte(base))
	for _, level := range []string{"BACKWARD", "FORWARD", "FULL"} {
		subject := "itest.outboxctl.verdicts-" + itest.Suffix() + "-value"
		cleanup(t, c, subject)
		if err := c.SetLevel(ctx, subject, level); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Register(ctx, subject, base); err != nil {
			t.Fatal(err)
		}
		for name, cand := range candidates {
			t.Run(level+"/"+name, func(t *testing.T) {
				res, err := c.TestCompatibility(ctx, subject, cand, registry.AllVersions)
				if err != nil {
					t.Fatal(err)
				}
				cs, err := avro.Parse([]byte(cand))
				if err != nil {
					t.Fatal(err)
				}
				local := compat.CheckLevel(compat.Level(level), cs, []avro.Schema{prev})
				if local.Compatible != res.Compatible {
					t.Errorf("registry says compatible=%v, local checker %v (%v)", res.Compatible, local.Compatible, local.Findings)
				}
			})
		}
	}
}
