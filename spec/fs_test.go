package spec_test

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/outboxctl/outboxctl/spec"
)

const fsSpec = `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: h, port: 5432, user: u, password: "${env:PW}", dbname: d}
    events:
      - name: Placed
        aggregate: Order
        versions:
          - {major: 1, schema: schemas/p1.avsc}
          - {major: 2, schema: ../shared/p2.avsc}
          - {major: 3, schema: schemas/missing.avsc}
          - {major: 4, schema: schemas}
`

// TestLoadFS: a spec and its schema files read from an fs.FS only (as
// from an embed.FS): Outbox.ReadSchema resolves each version's file against
// the spec's folder in the FS; a missing file keeps fs.ErrNotExist, a
// folder is refused.
func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"svc/outbox.yaml":     {Data: []byte(fsSpec)},
		"svc/schemas/p1.avsc": {Data: []byte(`{"v": 1}`)},
		"shared/p2.avsc":      {Data: []byte(`{"v": 2}`)},
		"svc/schemas/x":       {Data: []byte(`x`)},
	}
	sp, err := spec.LoadFS(fsys, "svc/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := sp.Outbox("orders")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		major   int
		want    string
		wantErr error
	}{
		{1, `{"v": 1}`, nil},
		{2, `{"v": 2}`, nil},
		{3, "", fs.ErrNotExist},
		{4, "", spec.ErrNotRegular},
	} {
		data, err := o.ReadSchema(o.Version("Placed", tc.major))
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("v%d: err = %v, want %v", tc.major, err, tc.wantErr)
			}
			continue
		}
		if err != nil || string(data) != tc.want {
			t.Errorf("v%d: %q, %v; want %q", tc.major, data, err, tc.want)
		}
	}
	if o.Version("Placed", 9) != nil || o.Version("Nope", 1) != nil {
		t.Error("Version of an undeclared type or major is not nil")
	}
	if _, err := o.ReadSchema(nil); err == nil {
		t.Error("ReadSchema(nil): no error")
	}
	if _, err := spec.LoadFS(fsys, "svc/none.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadFS of a missing file: %v", err)
	}
	if _, err := spec.LoadFS(nil, "x"); !errors.Is(err, spec.ErrInvalidSpec) {
		t.Errorf("LoadFS(nil): %v", err)
	}
}
