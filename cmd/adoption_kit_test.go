package cmd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestActionYAML checks the composite GitHub Action at the repository root:
// valid YAML, the documented inputs, a composite run whose steps install
// outboxctl and run scripts/action.sh, and that the script exists.
func TestActionYAML(t *testing.T) {
	var a struct {
		Name        string
		Description string
		Inputs      map[string]struct {
			Description string
			Required    bool
			Default     *string
		}
		Outputs map[string]struct{ Value string }
		Runs    struct {
			Using string
			Steps []struct {
				ID    string
				Uses  string
				Shell string
				Run   string
				Env   map[string]string
			}
		}
	}
	readYAML(t, filepath.Join("..", "action.yml"), &a)
	if a.Name == "" || a.Description == "" {
		t.Errorf("action.yml: name and description are required, got %q, %q", a.Name, a.Description)
	}
	for _, in := range []string{"command", "spec", "schemas-dir", "against", "version", "args"} {
		i, ok := a.Inputs[in]
		if !ok {
			t.Errorf("action.yml: input %q missing", in)
			continue
		}
		if i.Description == "" || i.Default == nil {
			t.Errorf("action.yml: input %q needs a description and a default", in)
		}
	}
	if _, ok := a.Outputs["exit-code"]; !ok {
		t.Error("action.yml: output exit-code missing")
	}
	if a.Runs.Using != "composite" {
		t.Errorf("action.yml: runs.using = %q, want composite", a.Runs.Using)
	}
	var installs, runs bool
	for _, s := range a.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("action.yml: a composite run step needs shell: %q", s.Run)
		}
		if strings.Contains(s.Run, "go install") && strings.Contains(s.Run, "github.com/outboxctl/outboxctl/cmd/outboxctl@") {
			installs = true
		}
		if m := regexp.MustCompile(`github\.action_path \}\}/(\S+?)"`).FindStringSubmatch(s.Run); m != nil {
			runs = true
			if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
				t.Errorf("action.yml runs %s: %v", m[1], err)
			}
			for _, v := range []string{"INPUT_COMMAND", "INPUT_SPEC", "INPUT_SCHEMAS_DIR", "INPUT_AGAINST", "INPUT_ARGS"} {
				if s.Env[v] == "" {
					t.Errorf("action.yml: the run step does not pass %s", v)
				}
			}
		}
	}
	if !installs {
		t.Error("action.yml: no step installs github.com/outboxctl/outboxctl/cmd/outboxctl with go install")
	}
	if !runs {
		t.Error("action.yml: no step runs a script under github.action_path")
	}
	// The module path the action installs must be this module's main package.
	if _, err := os.Stat(filepath.Join("outboxctl", "main.go")); err != nil {
		t.Errorf("cmd/outboxctl/main.go: %v", err)
	}
}

// TestPreCommitHooks checks .pre-commit-hooks.yaml: valid YAML, the keys
// pre-commit requires, and entries that name real outboxctl commands.
func TestPreCommitHooks(t *testing.T) {
	var hooks []struct {
		ID            string `yaml:"id"`
		Name          string `yaml:"name"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		Files         string `yaml:"files"`
		PassFilenames *bool  `yaml:"pass_filenames"`
	}
	readYAML(t, filepath.Join("..", ".pre-commit-hooks.yaml"), &hooks)
	if len(hooks) == 0 {
		t.Fatal(".pre-commit-hooks.yaml: no hooks")
	}
	var schemaCheck bool
	for _, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language == "" {
			t.Errorf("hook %+v: id, name, entry and language are required", h)
		}
		if h.Language != "golang" {
			t.Errorf("hook %s: language %q, want golang (pre-commit builds the module)", h.ID, h.Language)
		}
		if !strings.HasPrefix(h.Entry, "outboxctl ") {
			t.Errorf("hook %s: entry %q does not run outboxctl", h.ID, h.Entry)
		}
		if h.PassFilenames == nil || *h.PassFilenames {
			t.Errorf("hook %s: outboxctl reads the spec, not file arguments: want pass_filenames: false", h.ID)
		}
		if _, err := regexp.Compile(h.Files); err != nil {
			t.Errorf("hook %s: files: %v", h.ID, err)
		}
		if strings.HasPrefix(h.Entry, "outboxctl schema check ") {
			schemaCheck = true
		}
	}
	if !schemaCheck {
		t.Error(".pre-commit-hooks.yaml: no hook runs outboxctl schema check")
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
