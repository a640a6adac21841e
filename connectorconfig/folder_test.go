package connectorconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
)

// TestScanFolder: a folder's JSON and YAML files are sorted by content into
// connectors files and specs; hidden folders and other YAML
// are skipped and named; other extensions are ignored.
func TestScanFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a-connectors.json", `[{"name":"orders","config":{"connector.class":"x"}}]`)
	write("b-outbox.yaml", "apiVersion: outboxctl/v1\noutboxes: []\n")
	write("c-other.yml", "foo: bar\n")
	write("readme.md", "# not read\n")
	write(".github/workflows/ci.yaml", "on: push\n")
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
