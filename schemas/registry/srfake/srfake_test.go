package srfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
)

type answer struct {
	status int
	body   map[string]any
	raw    string
}

func call(t *testing.T, f *srfake.Fake, method, path string, in any) answer {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, f.URL()+path, body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, raw: strings.TrimSpace(string(raw))}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

func schema(s string) map[string]any { return map[string]any{"schema": s} }

const (
	v1  = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`
	v2  = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":0}]}`
	bad = `{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}`
)

func code(a answer) int {
	c, _ := a.body["error_code"].(float64)
	return int(c)
}

func TestConfluentErrorCodes(t *testing.T) {
	f := srfake.New()
	defer f.Close()
	if a := call(t, f, "GET", "/subjects/s/versions", nil); a.status != 404 || code(a) != 40401 {
		t.Fatalf("missing subject: %+v", a)
	}
	if a := call(t, f, "GET", "/config/s", nil); a.status != 404 || code(a) != 40408 {
		t.Fatalf("unset level: %+v", a)
	}
	if a := call(t, f, "GET", "/config/s?defaultToGlobal=true", nil); a.body["compatibilityLevel"] != "BACKWARD" {
		t.Fatalf("defaulted level: %+v", a)
	}
	if a := call(t, f, "PUT", "/config/s", map[string]string{"compatibility": "nope"}); a.status != 422 || code(a) != 42203 {
		t.Fatalf("bad level: %+v", a)
	}
	if a := call(t, f, "POST", "/subjects/s/versions", schema(`{"type":"recrd"}`)); a.status != 422 || code(a) != 42201 {
		t.Fatalf("invalid schema: %+v", a)
	}
	if a := call(t, f, "POST", "/subjects/s/versions", schema(v1)); a.status != 200 || a.body["id"] != 1.0 {
		t.Fatalf("register: %+v", a)
	}
	a := call(t, f, "POST", "/subjects/s/versions", schema(bad))
	if a.status != 409 || code(a) != 409 || !strings.HasPrefix(a.body["message"].(string), `Schema being registered is incompatible with an earlier schema for subject "s", details: [{errorType:'TYPE_MISMATCH'`) || !strings.Contains(a.raw, "{oldSchemaVersion: 1}") {
		t.Fatalf("incompatible: %+v", a)
	}
	if a := call(t, f, "GET", "/subjects/s/versions/2", nil); a.status != 404 || code(a) != 40402 {
		t.Fatalf("missing version: %+v", a)
	}
	if a := call(t, f, "GET", "/subjects/s/versions/x", nil); a.status != 422 || code(a) != 42202 {
		t.Fatalf("bad version: %+v", a)
	}
	if a := call(t, f, "POST", "/subjects/s", schema(v2)); a.status != 404 || code(a) != 40403 {
		t.Fatalf("lookup miss: %+v", a)
	}
	if a := call(t, f, "GET", "/schemas/ids/7", nil); a.status != 404 || code(a) != 40403 {
		t.Fatalf("missing id: %+v", a)
	}
	if a := call(t, f, "DELETE", "/subjects/s/versions/1?permanent=true", nil); a.status != 404 || code(a) != 40407 {
		t.Fatalf("hard delete of a live version: %+v", a)
	}
	if a := call(t, f, "DELETE", "/subjects/s?permanent=true", nil); a.status != 404 || code(a) != 40405 {
		t.Fatalf("hard delete of a live subject: %+v", a)
	}
	call(t, f, "DELETE", "/subjects/s", nil)
	if a := call(t, f, "DELETE", "/subjects/s", nil); a.status != 404 || code(a) != 40404 {
		t.Fatalf("second soft delete: %+v", a)
	}
}

func TestVersionsAndIDs(t *testing.T) {
	f := srfake.New()
	defer f.Close()
	call(t, f, "POST", "/subjects/s/versions", schema(v1))
	call(t, f, "POST", "/subjects/s/versions", schema(v2))
	// Soft-deleting the latest keeps its number used: the next is 3.
	call(t, f, "DELETE", "/subjects/s/versions/2", nil)
	if a := call(t, f, "DELETE", "/subjects/s/versions/2", nil); code(a) != 40406 {
		t.Fatalf("second soft delete of a version: %+v", a)
	}
	// Re-registering v2 creates version 3 with the same id.
	if a := call(t, f, "POST", "/subjects/s/versions", schema(v2)); a.body["id"] != 2.0 {
		t.Fatalf("re-register deleted: %+v", a)
	}
	if a := call(t, f, "GET", "/subjects/s/versions/latest", nil); a.body["version"] != 3.0 || a.body["id"] != 2.0 {
		t.Fatalf("latest: %+v", a)
	}
	if a := call(t, f, "GET", "/subjects/s/versions?deleted=true", nil); a.raw != "[1,2,3]" {
		t.Fatalf("versions with deleted: %s", a.raw)
	}
	// A subject with a '/' in its name, escaped in the path; same id.
	sub := "team/a-value"
	if a := call(t, f, "POST", "/subjects/"+url.PathEscape(sub)+"/versions", schema(v1)); a.body["id"] != 1.0 {
		t.Fatalf("register %s: %+v", sub, a)
	}
	if a := call(t, f, "GET", "/schemas/ids/1/versions", nil); a.raw != `[{"subject":"s","version":1},{"subject":"team/a-value","version":1}]` {
		t.Fatalf("id versions: %s", a.raw)
	}
	// The stored schema is Avro Java's Schema.toString.
	if a := call(t, f, "GET", "/schemas/ids/1", nil); a.body["schema"] != `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}` {
		t.Fatalf("by id: %+v", a)
	}
}

func TestFailNextAndAuth(t *testing.T) {
	f := srfake.New(srfake.WithBearerToken("t"))
	defer f.Close()
	f.FailNext(502, "text/html", "<h1>bad gateway</h1>")
	if a := call(t, f, "GET", "/subjects", nil); a.status != 502 || a.raw != "<h1>bad gateway</h1>" {
		t.Fatalf("failure: %+v", a)
	}
	if a := call(t, f, "GET", "/subjects", nil); a.status != 401 || code(a) != 401 {
		t.Fatalf("no token: %+v", a)
	}
	if got := f.Requests(); len(got) != 2 || got[0] != "GET /subjects" {
		t.Fatalf("requests = %v", got)
	}
}
