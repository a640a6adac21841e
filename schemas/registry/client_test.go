package registry_test

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
)

const (
	v1 = `{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[{"name":"id","type":"string"}]}`
	// v1 reformatted: the same schema for the registry.
	v1b = "{\n  \"type\": \"record\", \"name\": \"OrderCreated\", \"namespace\": \"com.acme\",\n  \"fields\": [ {\"name\": \"id\", \"type\": \"string\"} ]\n}"
	v2  = `{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""}]}`
	// bad adds a field without a default: not BACKWARD compatible with v1.
	bad = `{"type":"record","name":"OrderCreated","namespace":"com.acme","fields":[{"name":"id","type":"string"},{"name":"total","type":"long"}]}`
)

func newClient(t *testing.T, fake *srfake.Fake, opts ...registry.Opt) *registry.Client {
	t.Helper()
	c, err := registry.NewClient(fake.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func started(t *testing.T, opts ...srfake.Option) *srfake.Fake {
	f := srfake.New(opts...)
	t.Cleanup(f.Close)
	return f
}

func TestRegisterIsIdempotentAndReportsTheVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))

	r1, err := c.Register(ctx, "orders-value", v1)
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Created || r1.Version != 1 || r1.ID <= 0 || r1.Subject != "orders-value" || r1.Type != "AVRO" {
		t.Fatalf("first register = %+v, want created version 1 with an id", r1)
	}
	again, err := c.Register(ctx, "orders-value", v1b)
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Version != 1 || again.ID != r1.ID {
		t.Fatalf("re-register = %+v, want not created, version 1, id %d", again, r1.ID)
	}
	r2, err := c.Register(ctx, "orders-value", v2)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Created || r2.Version != 2 || r2.ID == r1.ID {
		t.Fatalf("v2 = %+v", r2)
	}
	vs, err := c.Versions(ctx, "orders-value")
	if err != nil || len(vs) != 2 || vs[0] != 1 || vs[1] != 2 {
		t.Fatalf("versions = %v, %v; want [1 2]", vs, err)
	}
	// The same schema under another subject shares its id (Confluent).
	other, err := c.Register(ctx, "other-value", v1)
	if err != nil || other.ID != r1.ID || other.Version != 1 {
		t.Fatalf("other subject = %+v, %v", other, err)
	}
}

func TestLatestIsNeverStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))
	if _, err := c.Register(ctx, "s", v1); err != nil {
		t.Fatal(err)
	}
	l1, err := c.Latest(ctx, "s")
	if err != nil || l1.Version != 1 {
		t.Fatalf("latest = %+v, %v", l1, err)
	}
	if _, err := c.Register(ctx, "s", v2); err != nil {
		t.Fatal(err)
	}
	l2, err := c.Latest(ctx, "s")
	if err != nil || l2.Version != 2 || !strings.Contains(l2.Schema, "note") {
		t.Fatalf("latest after v2 = %+v, %v (stale cache?)", l2, err)
	}
	h, err := c.History(ctx, "s")
	if err != nil || len(h) != 2 || h[0].Version != 1 || h[1].Version != 2 {
		t.Fatalf("history = %v, %v", h, err)
	}
	none, err := c.History(ctx, "missing")
	if err != nil || len(none) != 0 {
		t.Fatalf("history of a missing subject = %v, %v; want empty, nil", none, err)
	}
}

func TestErrorsUnwrapToSentinels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))
	if _, err := c.Register(ctx, "s", v1); err != nil {
		t.Fatal(err)
	}
	_, errIncompat := c.Register(ctx, "s", bad)
	_, errInvalid := c.Register(ctx, "s", `{"type":"record","name":"X","fields":[{"name":"a","type":"strin"}]}`)
	_, errSubject := c.Version(ctx, "missing", 1)
	_, errVersion := c.Version(ctx, "s", 9)
	_, errSchemaID := c.SchemaByID(ctx, 999)
	_, errLookup := c.Lookup(ctx, "s", v2)
	errLevel := c.SetLevel(ctx, "s", "SIDEWAYS")
	errHard := c.DeleteSubject(ctx, "s", true)
	_, errBadVersion := c.Version(ctx, "s", 0)

	tests := []struct {
		name   string
		err    error
		want   error
		status int
		code   int
	}{
		{"incompatible", errIncompat, registry.ErrIncompatible, 409, 409},
		{"invalid schema", errInvalid, registry.ErrInvalidSchema, 422, 42201},
		{"subject not found", errSubject, registry.ErrSubjectNotFound, 404, 40401},
		{"version not found", errVersion, registry.ErrVersionNotFound, 404, 40402},
		{"schema id not found", errSchemaID, registry.ErrSchemaNotFound, 404, 40403},
		{"lookup not found", errLookup, registry.ErrSchemaNotFound, 404, 40403},
		{"invalid level", errLevel, registry.ErrInvalidLevel, 422, 42203},
		{"hard delete first", errHard, registry.ErrSubjectNotSoftDeleted, 404, 40405},
		{"version 0", errBadVersion, registry.ErrInvalidVersion, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.want) {
				t.Fatalf("err = %v, want errors.Is %v", tt.err, tt.want)
			}
			var ae *registry.APIError
			if tt.status == 0 {
				if errors.As(tt.err, &ae) {
					t.Fatalf("client-side error is an APIError: %v", tt.err)
				}
				return
			}
			if !errors.As(tt.err, &ae) || ae.Status != tt.status || ae.Code != tt.code || ae.Message == "" {
				t.Fatalf("APIError = %+v, want status %d code %d", ae, tt.status, tt.code)
			}
		})
	}
	if !strings.Contains(errIncompat.Error(), "READER_FIELD_MISSING_DEFAULT_VALUE") {
		t.Errorf("incompatible error lost the registry's details: %v", errIncompat)
	}
}

func TestNonJSONErrorKeepsTheHTTPStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := started(t)
	c := newClient(t, fake)

	fake.FailNext(502, "text/html", "<html><body>502 Bad Gateway</body></html>")
	_, err := c.Subjects(ctx, false)
	var ae *registry.APIError
	if !errors.As(err, &ae) || ae.Status != 502 || ae.Code != 0 || !strings.Contains(ae.Message, "Bad Gateway") {
		t.Fatalf("err = %v (%+v), want APIError status 502 with the body", err, ae)
	}
	if !errors.Is(err, registry.ErrUnreachable) {
		t.Errorf("a gateway 502 should unwrap to ErrUnreachable: %v", err)
	}

	fake.FailNext(500, "text/plain", "boom")
	_, err = c.Latest(ctx, "s")
	if !errors.As(err, &ae) || ae.Status != 500 || !errors.Is(err, registry.ErrServer) {
		t.Fatalf("err = %v, want status 500, ErrServer", err)
	}

	// A registry JSON error that srclient would turn into a value type
	// without status: the status and code both survive.
	fake.FailNext(503, "application/json", `{"error_code":50003,"message":"Error while forwarding the request to the master"}`)
	_, err = c.Versions(ctx, "s")
	if !errors.As(err, &ae) || ae.Status != 503 || ae.Code != 50003 || !errors.Is(err, registry.ErrServer) {
		t.Fatalf("err = %v, want status 503 code 50003 ErrServer", err)
	}
}

func TestUnreachableAndCancelled(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, err := registry.NewClient(url, registry.WithCallTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Subjects(context.Background(), false)
	var ue *registry.UnreachableError
	if !errors.Is(err, registry.ErrUnreachable) || !errors.As(err, &ue) || ue.URL != url {
		t.Fatalf("err = %v, want ErrUnreachable naming %s", err, url)
	}

	blocked := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-blocked:
		}
	}))
	t.Cleanup(func() { close(blocked); slow.Close() })
	c2, _ := registry.NewClient(slow.URL)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = c2.Subjects(ctx, false)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, registry.ErrUnreachable) {
		t.Fatalf("err = %v, want context.Canceled and ErrUnreachable", err)
	}

	c3, _ := registry.NewClient(slow.URL, registry.WithCallTimeout(50*time.Millisecond))
	_, err = c3.Subjects(context.Background(), false)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	basic := started(t, srfake.WithBasicAuth("alice", "s3cret"))
	bearer := started(t, srfake.WithBearerToken("tok"))

	tests := []struct {
		name    string
		url     string
		opts    []registry.Opt
		wantErr error
	}{
		{"basic missing", basic.URL(), nil, registry.ErrUnauthorized},
		{"basic wrong", basic.URL(), []registry.Opt{registry.WithBasicAuth("alice", "nope")}, registry.ErrUnauthorized},
		{"basic", basic.URL(), []registry.Opt{registry.WithBasicAuth("alice", "s3cret")}, nil},
		{"basic in url", strings.Replace(basic.URL(), "http://", "http://alice:s3cret@", 1), nil, nil},
		{"bearer missing", bearer.URL(), nil, registry.ErrUnauthorized},
		{"bearer", bearer.URL(), []registry.Opt{registry.WithBearerToken("tok")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := registry.NewClient(tt.url, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(c.URL(), "s3cret") {
				t.Errorf("URL() leaks the password: %s", c.URL())
			}
			_, err = c.Register(ctx, "auth-"+strings.ReplaceAll(tt.name, " ", "-"), v1)
			if tt.wantErr == nil && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	fake := srfake.NewUnstarted()
	srv := httptest.NewTLSServer(fake)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	cert := srv.Certificate()
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	plain, _ := registry.NewClient(srv.URL)
	if _, err := plain.Subjects(ctx, false); !errors.Is(err, registry.ErrUnreachable) {
		t.Fatalf("without the CA: err = %v, want ErrUnreachable (unknown authority)", err)
	}
	withCA, err := registry.NewClient(srv.URL, registry.WithTLS(registry.TLSConfig{CAFile: ca}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withCA.Subjects(ctx, false); err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	if _, err := registry.NewClient(srv.URL, registry.WithTLS(registry.TLSConfig{CAFile: filepath.Join(dir, "missing.pem")})); err == nil {
		t.Error("a missing CA file must fail NewClient")
	}
	if _, err := registry.NewClient(srv.URL, registry.WithTLS(registry.TLSConfig{CertFile: ca})); err == nil {
		t.Error("a client certificate without key must fail NewClient")
	}
	if _, err := registry.NewClient("ftp://x"); err == nil {
		t.Error("a non-http URL must fail NewClient")
	}
}

func TestLevels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := started(t)
	c := newClient(t, fake)

	if l, ok, err := c.SubjectLevel(ctx, "new-subject"); err != nil || ok || l != "" {
		t.Fatalf("unset level = %q, %v, %v", l, ok, err)
	}
	if l, err := c.Level(ctx, "new-subject"); err != nil || l != "BACKWARD" {
		t.Fatalf("defaulted level = %q, %v; want the global BACKWARD", l, err)
	}
	// Set before the first version.
	if err := c.SetLevel(ctx, "new-subject", "FULL_TRANSITIVE"); err != nil {
		t.Fatal(err)
	}
	if l, ok, err := c.SubjectLevel(ctx, "new-subject"); err != nil || !ok || l != "FULL_TRANSITIVE" {
		t.Fatalf("level = %q, %v, %v", l, ok, err)
	}
	if l, err := c.Level(ctx, "new-subject"); err != nil || l != "FULL_TRANSITIVE" {
		t.Fatalf("level = %q, %v", l, err)
	}
	// Apicurio answers 40401 to ?defaultToGlobal=true for a subject
	// without config; Level falls back to the global level.
	fake.FailNext(404, "application/json", `{"message":"Subject 'x' not found.","error_code":40401}`)
	if l, err := c.Level(ctx, "x"); err != nil || l != "BACKWARD" {
		t.Fatalf("level after 40401 = %q, %v; want BACKWARD", l, err)
	}
}

func TestTestCompatibilityVerbose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))
	// No subject yet: compatible against all versions.
	res, err := c.TestCompatibility(ctx, "s", bad, registry.AllVersions)
	if err != nil || !res.Compatible {
		t.Fatalf("empty subject: %+v, %v", res, err)
	}
	if _, err := c.TestCompatibility(ctx, "s", bad, registry.LatestVersion); !errors.Is(err, registry.ErrSubjectNotFound) {
		t.Fatalf("latest of a missing subject: %v, want ErrSubjectNotFound", err)
	}
	if _, err := c.Register(ctx, "s", v1); err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{registry.AllVersions, registry.LatestVersion, 1} {
		res, err = c.TestCompatibility(ctx, "s", bad, v)
		if err != nil || res.Compatible || len(res.Messages) == 0 || !strings.Contains(res.Messages[0], "READER_FIELD_MISSING_DEFAULT_VALUE") {
			t.Fatalf("version %d: %+v, %v", v, res, err)
		}
	}
	res, err = c.TestCompatibility(ctx, "s", v2, registry.AllVersions)
	if err != nil || !res.Compatible || len(res.Messages) != 0 {
		t.Fatalf("compatible v2: %+v, %v", res, err)
	}
}

func TestDeleteSoftThenHard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))
	for _, s := range []string{v1, v2} {
		if _, err := c.Register(ctx, "s", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DeleteVersion(ctx, "s", 1, false); err != nil {
		t.Fatal(err)
	}
	if vs, _ := c.Versions(ctx, "s"); len(vs) != 1 || vs[0] != 2 {
		t.Fatalf("versions after deleting 1 = %v", vs)
	}
	if err := c.DeleteSubject(ctx, "s", false); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSubject(ctx, "s", false); !errors.Is(err, registry.ErrSubjectSoftDeleted) {
		t.Fatalf("second soft delete: %v", err)
	}
	if subs, _ := c.Subjects(ctx, true); len(subs) != 1 {
		t.Fatalf("subjects with deleted = %v", subs)
	}
	if err := c.DeleteSubject(ctx, "s", true); err != nil {
		t.Fatal(err)
	}
	if subs, _ := c.Subjects(ctx, true); len(subs) != 0 {
		t.Fatalf("subjects after hard delete = %v", subs)
	}
	if err := c.DeleteSubject(ctx, "s", true); !errors.Is(err, registry.ErrSubjectNotFound) {
		t.Fatalf("hard delete of a gone subject: %v", err)
	}
}

func TestReferences(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))
	money := `{"type":"record","name":"Money","namespace":"com.acme","fields":[{"name":"cents","type":"long"}]}`
	order := `{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"total","type":"com.acme.Money"}]}`
	if _, err := c.Register(ctx, "money", money); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(ctx, "order", order); !errors.Is(err, registry.ErrInvalidSchema) {
		t.Fatalf("without reference: %v, want ErrInvalidSchema", err)
	}
	ref := registry.Reference{Name: "com.acme.Money", Subject: "money", Version: 1}
	r, err := c.Register(ctx, "order", order, ref)
	if err != nil || !r.Created || r.Version != 1 {
		t.Fatalf("with reference: %+v, %v", r, err)
	}
	got, err := c.Version(ctx, "order", 1)
	if err != nil || len(got.References) != 1 || got.References[0] != ref {
		t.Fatalf("references = %+v, %v", got, err)
	}
	again, err := c.Register(ctx, "order", order, ref)
	if err != nil || again.Created {
		t.Fatalf("re-register with reference: %+v, %v", again, err)
	}
}

// TestConcurrentUse runs calls from many goroutines; with -race it checks
// that no shared srclient state (cache, Codec) is touched.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, started(t))
	if _, err := c.Register(ctx, "s", v1); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 20; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := c.Latest(ctx, "s")
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := c.Register(ctx, "s", v1)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if vs, _ := c.Versions(ctx, "s"); len(vs) != 1 {
		t.Fatalf("concurrent re-registers created versions: %v", vs)
	}
}
