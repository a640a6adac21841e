package connectorconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/spec"
)

// Folder is a folder of desired state sorted by content (ScanFolder).
type Folder struct {
	// Connectors are the connectors files (IsConnectorsFile), with their
	// content, read once.
	Connectors []spec.Source
	// Specs are the outbox spec files (spec.IsSpec; never a .json file).
	Specs []string
	// Skipped are the hidden folders (with a trailing separator) and the
	// JSON and YAML files that are neither (accepted-breaks.yaml, CI
	// workflows), for the caller to note.
	Skipped []string
}

// ScanFolder sorts the *.json, *.yaml and *.yml files below dir into
// connectors files and outbox spec files by content, with spec's folder
// walk (spec.WalkFolder: hidden folders are skipped, files are read
// bounded). Files with other extensions are ignored. A folder with neither
// kind is an error that unwraps to ErrBadConnectorsFile.
func ScanFolder(dir string) (Folder, error) {
	var f Folder
	hidden, err := spec.WalkFolder(dir, []string{".json", ".yaml", ".yml"}, func(path string, data []byte) error {
		switch {
		case IsConnectorsFile(path, data):
			f.Connectors = append(f.Connectors, spec.Source{Name: path, Data: data})
		case !bytes.HasSuffix(bytes.ToLower([]byte(path)), []byte(".json")) && spec.IsSpec(data):
			f.Specs = append(f.Specs, path)
		default:
			f.Skipped = append(f.Skipped, path)
		}
		return nil
	})
	if err != nil {
		return Folder{}, err
	}
	f.Skipped = append(hidden, f.Skipped...)
	if len(f.Connectors) == 0 && len(f.Specs) == 0 {
		return f, badInput(fmt.Sprintf("%s: no connectors file or outbox spec in this folder", dir))
	}
	return f, nil
}

// Inputs are the inputs of the desired state (plan and deploy -f) sorted
// by content (SortInputs), connectors files and specs each in the order
// given.
type Inputs struct {
	Folder
	// SpecSources are the outbox specs read already (standard input).
	SpecSources []spec.Source
}

// SortInputs sorts the inputs of the desired state into connectors files
// and outbox specs: "-" is standard input (stdin reads it), either kind by
// content (IsConnectorsFile, IsSpecObject); a folder is sorted by
// ScanFolder; a .json file is a connectors file; a .yaml or .yml file is a
// connectors file or a spec, by content; any other file is a spec. A file
// that cannot be read (a .json file, or a path that does not exist) and a
// folder with neither kind are errors; Skipped holds the files of folders
// that are neither kind up to the error.
func SortInputs(paths []string, stdin func() (spec.Source, error)) (Inputs, error) {
	var in Inputs
	for _, p := range paths {
		if p == "-" {
			src, err := stdin()
			if err != nil {
				return in, err
			}
			if !IsConnectorsFile(src.Name, src.Data) || IsSpecObject(src.Data) {
				in.SpecSources = append(in.SpecSources, src)
			} else {
				in.Connectors = append(in.Connectors, src)
			}
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return in, err
		}
		if st.IsDir() {
			f, err := ScanFolder(p)
			in.Skipped = append(in.Skipped, f.Skipped...)
			if err != nil {
				return in, err
			}
			in.Connectors = append(in.Connectors, f.Connectors...)
			in.Specs = append(in.Specs, f.Specs...)
			continue
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext != ".json" && ext != ".yaml" && ext != ".yml" {
			in.Specs = append(in.Specs, p)
			continue
		}
		data, err := spec.ReadFileLimit(p, spec.MaxFileSize)
		if ext != ".json" && (err != nil || !IsConnectorsFile(p, data)) {
			// A YAML file that is not a connectors file is an outbox spec;
			// spec loading reports a read error.
			in.Specs = append(in.Specs, p)
			continue
		}
		if err != nil {
			return in, err
		}
		in.Connectors = append(in.Connectors, spec.Source{Name: p, Data: data})
	}
	return in, nil
}

// IsSpecObject reports whether data, which looks like a connectors file
// (IsConnectorsFile), is an outbox spec written as one JSON (or flow YAML)
// mapping instead.
func IsSpecObject(data []byte) bool {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	var n yaml.Node
	return yaml.Unmarshal(data, &n) == nil && spec.IsSpec(data)
}

// CheckUniqueNames returns an error (unwrapping to ErrBadConnectorsFile)
// naming the first connector of cs declared a second time, with the
// sources of both; nil when every name is declared once.
func CheckUniqueNames(cs []Connector) error {
	seen := map[string]string{}
	for _, c := range cs {
		if prev, ok := seen[c.Name]; ok {
			return badInput(fmt.Sprintf("%s: connector %q is declared twice (first at %s)", c.Source, c.Name, prev))
		}
		seen[c.Name] = c.Source
	}
	return nil
}

// badInput is an error with msg's text that unwraps to
// ErrBadConnectorsFile.
type badInput string

func (e badInput) Error() string { return string(e) }
func (e badInput) Unwrap() error { return ErrBadConnectorsFile }
