package connectorconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/testfs"
	"github.com/outboxctl/outboxctl/spec"
)

// TestScanFolder: a folder's JSON and YAML files are sorted by content into
// connectors files and specs; hidden folders and other YAML
// are skipped and named; other extensions are ignored.
func TestScanFolder(t *testing.T) {
	t.Parallel()
	dir := testfs.Write(t, map[string]string{
		"a-connectors.json":         `[{"name":"orders","config":{"connector.class":"x"}}]`,
		"b-outbox.yaml":             "apiVersion: outboxctl/v1\noutboxes: []\n",
		"c-other.yml":               "foo: bar\n",
		"readme.md":                 "# not read\n",
		".github/workflows/ci.yaml": "on: push\n",
	})
	f, err := connectorconfig.ScanFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Connectors) != 1 || f.Connectors[0].Name != filepath.Join(dir, "a-connectors.json") || len(f.Connectors[0].Data) == 0 {
		t.Errorf("Connectors = %v", f.Connectors)
	}
	if want := []string{filepath.Join(dir, "b-outbox.yaml")}; !slices.Equal(f.Specs, want) {
		t.Errorf("Specs = %v, want %v", f.Specs, want)
	}
	want := []string{filepath.Join(dir, ".github") + string(filepath.Separator), filepath.Join(dir, "c-other.yml")}
	if !slices.Equal(f.Skipped, want) {
		t.Errorf("Skipped = %v, want %v", f.Skipped, want)
	}

	empty := t.TempDir()
	if _, err := connectorconfig.ScanFolder(empty); !errors.Is(err, connectorconfig.ErrBadConnectorsFile) {
		t.Errorf("empty folder: err = %v, want ErrBadConnectorsFile", err)
	}
}

func TestCheckUniqueNames(t *testing.T) {
	t.Parallel()
	cs := []connectorconfig.Connector{{Name: "a", Source: "x.json"}, {Name: "b", Source: "y.json"}}
	if err := connectorconfig.CheckUniqueNames(cs); err != nil {
		t.Fatal(err)
	}
	cs = append(cs, connectorconfig.Connector{Name: "a", Source: "z.yaml"})
	err := connectorconfig.CheckUniqueNames(cs)
	if !errors.Is(err, connectorconfig.ErrBadConnectorsFile) || err.Error() != `z.yaml: connector "a" is declared twice (first at x.json)` {
		t.Errorf("err = %v", err)
	}
}

func TestIsSpecObject(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`{"apiVersion":"outboxctl/v1","outboxes":[]}`: true,
		`{"name":"orders","config":{}}`:               false,
		`[{"name":"orders"}]`:                         false,
	} {
		if got := connectorconfig.IsSpecObject([]byte(in)); got != want {
			t.Errorf("IsSpecObject(%s) = %v, want %v", in, got, want)
		}
	}
}

// TestSortInputs: -f inputs are sorted into connectors files and specs by
// kind and content, each in the order given; standard input is read
// through the callback; a missing file, an unreadable .json file and a
// folder with neither kind are errors, the folder's skipped files kept.
func TestSortInputs(t *testing.T) {
	t.Parallel()
	const conns = `[{"name":"orders","config":{"connector.class":"x"}}]`
	const specYAML = "apiVersion: outboxctl/v1\noutboxes: []\n"
	dir := testfs.Write(t, map[string]string{
		"c.json": conns, "c.yaml": "- name: orders\n  config: {connector.class: x}\n",
		"outbox.yaml": specYAML, "outbox.spec": specYAML,
		"folder/a.json": conns, "folder/b.yaml": specYAML, "folder/c.yml": "foo: bar\n",
		"nothing/x.yml": "foo: bar\n",
	})
	at := func(name string) string { return filepath.Join(dir, name) }
	jsonFile, yamlConns, yamlSpec, other := at("c.json"), at("c.yaml"), at("outbox.yaml"), at("outbox.spec")
	folderConns, folderSpec, folderOther, emptyFolder := at("folder/a.json"), at("folder/b.yaml"), at("folder/c.yml"), at("nothing")
	stdin := func(data string) func() (spec.Source, error) {
		return func() (spec.Source, error) { return spec.Source{Name: "<stdin>", Data: []byte(data)}, nil }
	}
	names := func(srcs []spec.Source) []string {
		var n []string
		for _, s := range srcs {
			n = append(n, s.Name)
		}
		return n
	}
	for _, tc := range []struct {
		name                        string
		paths                       []string
		stdin                       func() (spec.Source, error)
		conns, specs, read, skipped []string
		err                         error
	}{
		{name: "files by extension and content", paths: []string{yamlSpec, jsonFile, other, yamlConns},
			conns: []string{jsonFile, yamlConns}, specs: []string{yamlSpec, other}},
		{name: "a folder", paths: []string{filepath.Join(dir, "folder"), jsonFile},
			conns: []string{folderConns, jsonFile}, specs: []string{folderSpec}, skipped: []string{folderOther}},
		{name: "standard input, connectors", paths: []string{"-"}, stdin: stdin(conns), conns: []string{"<stdin>"}},
		{name: "standard input, a spec", paths: []string{"-", jsonFile}, stdin: stdin(specYAML), conns: []string{jsonFile}, read: []string{"<stdin>"}},
		{name: "standard input, a spec as a JSON object", paths: []string{"-"}, stdin: stdin(`{"apiVersion":"outboxctl/v1","outboxes":[]}`), read: []string{"<stdin>"}},
		{name: "standard input fails", paths: []string{jsonFile, "-"}, stdin: func() (spec.Source, error) { return spec.Source{}, os.ErrClosed },
			conns: []string{jsonFile}, err: os.ErrClosed},
		{name: "a missing file", paths: []string{filepath.Join(dir, "none.json")}, err: os.ErrNotExist},
		{name: "a folder with neither kind", paths: []string{emptyFolder}, skipped: []string{filepath.Join(emptyFolder, "x.yml")}, err: connectorconfig.ErrBadConnectorsFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := connectorconfig.SortInputs(tc.paths, tc.stdin)
			if (tc.err == nil) != (err == nil) || (tc.err != nil && !errors.Is(err, tc.err)) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if got := names(in.Connectors); !slices.Equal(got, tc.conns) {
				t.Errorf("Connectors = %v, want %v", got, tc.conns)
			}
			if !slices.Equal(in.Specs, tc.specs) {
				t.Errorf("Specs = %v, want %v", in.Specs, tc.specs)
			}
			if got := names(in.SpecSources); !slices.Equal(got, tc.read) {
				t.Errorf("SpecSources = %v, want %v", got, tc.read)
			}
			if !slices.Equal(in.Skipped, tc.skipped) {
				t.Errorf("Skipped = %v, want %v", in.Skipped, tc.skipped)
			}
			for _, c := range in.Connectors {
				if len(c.Data) == 0 {
					t.Errorf("%s: no data", c.Name)
				}
			}
		})
	}
}
