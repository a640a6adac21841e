package examples_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoInternalImports keeps every program under examples/ copyable into
// another module: none of its packages (nor their unit tests) may import
// a package under github.com/outboxctl/outboxctl/internal/. Integration
// tests (build tag integration) are the project's own harness and may.
func TestNoInternalImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`,
		"./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, out)
	}
	const internal = "github.com/outboxctl/outboxctl/internal"
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkgs++
		for _, imp := range fields[1:] {
			if imp == internal || strings.HasPrefix(imp, internal+"/") {
				t.Errorf("%s imports %s: examples must use only the public API", fields[0], imp)
			}
		}
	}
	if pkgs < 2 {
		t.Fatalf("go list found %d packages under examples/, want the demo app and more:\n%s", pkgs, out)
	}
}
