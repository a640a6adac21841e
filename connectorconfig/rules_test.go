package connectorconfig_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/spec"
)

// validateFile loads one spec file, generates its connectors and validates
// them.
func validateFile(t *testing.T, path string) []connectorconfig.Finding {
	t.Helper()
	s, err := spec.Load(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{})
	if err != nil {
		t.Fatalf("generate %s: %v", path, err)
	}
	return connectorconfig.Validate(s, cs)
}

// wantLines returns the lines of path marked with a "# want" comment.
func wantLines(t *testing.T, path string) []int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []int
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(strings.TrimSpace(sc.Text()), "# want") {
			lines = append(lines, n)
		}
	}
	return lines
}

// TestRules runs each rule's fixture pair: bad.yaml yields findings of the
// rule exactly on the lines marked "# want"; good.yaml yields no finding
// at all.
func TestRules(t *testing.T) {
	for _, r := range connectorconfig.Rules() {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", "rules", r.ID)
			var got []int
			for _, f := range validateFile(t, filepath.Join(dir, "bad.yaml")) {
				if f.Rule == r.ID {
					got = append(got, f.Line)
				}
			}
			sort.Ints(got)
			want := wantLines(t, filepath.Join(dir, "bad.yaml"))
			if len(want) == 0 {
				t.Fatal("bad.yaml marks no line with # want")
			}
			if !slices.Equal(got, want) {
				t.Errorf("bad.yaml: %s findings on lines %v, want %v", r.ID, got, want)
			}
			if fs := validateFile(t, filepath.Join(dir, "good.yaml")); len(fs) != 0 {
				t.Errorf("good.yaml: %d findings, want none: %+v", len(fs), fs)
			}
		})
	}
}

// TestRulesDocumented checks that every rule has an ID, a one-line purpose,
// a hint, and a fixture folder, and that no fixture folder is orphaned.
func TestRulesDocumented(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range connectorconfig.Rules() {
		if r.ID == "" || r.Purpose == "" || r.Hint == "" || strings.Contains(r.Purpose, "\n") {
			t.Errorf("rule %q: needs an ID, a one-line Purpose and a Hint", r.ID)
		}
		ids[r.ID] = true
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !ids[e.Name()] {
			t.Errorf("testdata/rules/%s has no rule", e.Name())
		}
		delete(ids, e.Name())
	}
	for id := range ids {
		t.Errorf("rule %s has no testdata/rules/%s fixtures", id, id)
	}
}
