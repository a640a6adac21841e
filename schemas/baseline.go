package schemas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

// ErrBadRef is returned by GitBaseline for a ref git cannot resolve.
var ErrBadRef = errors.New("unknown git ref")

// fileBaseline is a git ref or a folder: the previous version of a subject
// is the schema that the spec at the baseline maps to the same subject, or,
// when the spec cannot be read there, the file at the same path.
type fileBaseline struct {
	name      string
	label     string // prefix of Previous.Source
	read      ReadFileFunc
	specFiles []string

	loaded bool
	old    *Catalog // nil when the spec is missing or broken at the baseline
}

func (b *fileBaseline) Name() string { return b.name }

func (b *fileBaseline) load() {
	if b.loaded {
		return
	}
	b.loaded = true
	var srcs []spec.Source
	for _, f := range b.specFiles {
		data, err := b.read(f)
		if err != nil {
			return
		}
		srcs = append(srcs, spec.Source{Name: f, Data: data})
	}
	if len(srcs) == 0 {
		return
	}
	s, err := spec.Parse(srcs...)
	if err != nil {
		return
	}
	// Old schemas are parsed leniently, as the registry loads stored ones.
	cat, err := buildLenient(s, b.read)
	if err != nil {
		return
	}
	b.old = cat
}

// buildLenient builds a catalog whose schemas are parsed as stored schemas
// (no name or default validation); files that are missing are skipped.
func buildLenient(s *spec.Spec, read ReadFileFunc) (*Catalog, error) {
	cat := &Catalog{}
	for i := range s.Outboxes {
		o := &s.Outboxes[i]
		for j := range o.Events {
			ev := &o.Events[j]
			topic, err := eventTopic(o, ev)
			if err != nil {
				return nil, err
			}
			for k := range ev.Versions {
				v := &ev.Versions[k]
				data, err := read(v.SchemaPath)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					return nil, err
				}
				opts := avro.Lenient()
				opts.File = v.SchemaPath
				sch, err := avro.ParseWith(data, opts)
				if err != nil {
					return nil, err
				}
				rec, ok := sch.(*avro.Record)
				if !ok {
					continue
				}
				cat.Entries = append(cat.Entries, newEntry(o, ev, v, topic, rec, data))
			}
		}
	}
	return cat, nil
}

func (b *fileBaseline) Previous(ctx context.Context, e *CatalogEntry) (*Previous, error) {
	b.load()
	if b.old != nil {
		if o := b.old.BySubject(e.Subject); o != nil {
			return &Previous{Schemas: []avro.Schema{o.Schema}, Source: b.label + o.File}, nil
		}
		return &Previous{}, nil
	}
	// No spec at the baseline: the same path.
	data, err := b.read(e.File)
	if errors.Is(err, fs.ErrNotExist) {
		return &Previous{}, nil
	}
	if err != nil {
		return nil, err
	}
	opts := avro.Lenient()
	opts.File = b.label + e.File
	s, err := avro.ParseWith(data, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: previous version %s%s: %v", ErrBadBaseline, b.label, e.File, err)
	}
	if rec, ok := s.(*avro.Record); !ok || SubjectName(Strategy(e.Strategy), e.Topic, rec.FullName()) != e.Subject {
		// Another record in the same file: the subject is new.
		return &Previous{}, nil
	}
	return &Previous{Schemas: []avro.Schema{s}, Source: b.label + e.File}, nil
}

// DirBaseline checks against a folder that mirrors the working directory
// (for example a checkout of the main branch): the previous version of
// ./schemas/order/OrderCreated.v2.avsc is DIR/schemas/order/OrderCreated.v2.avsc,
// and the spec files are read from DIR too to map subjects to files.
// specFiles are the spec's files as given to spec.Load.
func DirBaseline(dir string, specFiles []string) (Baseline, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadBaseline, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a folder", ErrBadBaseline, dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	read := func(p string) ([]byte, error) {
		rel, err := relTo(wd, p)
		if err != nil {
			return nil, err
		}
		return spec.ReadFileLimit(filepath.Join(dir, rel), spec.MaxFileSize)
	}
	return &fileBaseline{name: "dir:" + dir, label: filepath.ToSlash(dir) + "/", read: read, specFiles: specFiles}, nil
}

func relTo(base, p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Rel(base, abs)
}

// GitBaseline checks against a git ref (a branch, tag or commit, e.g.
// origin/main), reading files with `git ls-tree` and `git show REF:path`:
// no checkout, the working tree is untouched. The repository is the one
// holding the first spec file. An unknown ref is ErrBadRef.
func GitBaseline(ctx context.Context, ref string, specFiles []string) (Baseline, error) {
	if len(specFiles) == 0 {
		return nil, fmt.Errorf("git baseline: no spec file")
	}
	if strings.HasPrefix(ref, "-") {
		return nil, fmt.Errorf("%w %q", ErrBadRef, ref)
	}
	dir := filepath.Dir(specFiles[0])
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("git baseline: %s is not in a git repository: %w", dir, err)
	}
	root := strings.TrimSpace(string(top))
	if _, err := git(ctx, root, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%w %q (fetch it first, e.g. git fetch origin main)", ErrBadRef, ref)
	}
	read := func(p string) ([]byte, error) {
		rel, err := relTo(root, p)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("%s is outside the git repository %s", p, root)
		}
		ls, err := git(ctx, root, "ls-tree", "--name-only", ref, "--", rel)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(string(ls)) == "" {
			return nil, &fs.PathError{Op: "git show", Path: ref + ":" + rel, Err: fs.ErrNotExist}
		}
		return git(ctx, root, "show", ref+":"+rel)
	}
	return &fileBaseline{name: "git:" + ref, label: ref + ":", read: read, specFiles: specFiles}, nil
}

// git runs git in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

const registryBaselineName = "registry"

type registryBaseline struct {
	c *registry.Client
}

// RegistryBaseline checks against the subjects' live versions in the
// registry, at each subject's level there (its own, else the global one).
func RegistryBaseline(c *registry.Client) Baseline { return &registryBaseline{c: c} }

func (b *registryBaseline) Name() string { return registryBaselineName }

func (b *registryBaseline) Previous(ctx context.Context, e *CatalogEntry) (*Previous, error) {
	hist, err := b.c.History(ctx, e.Subject)
	if err != nil {
		return nil, err
	}
	prev := &Previous{Source: b.c.URL() + " subject " + e.Subject}
	if len(hist) == 0 {
		return prev, nil
	}
	lvl, err := b.c.Level(ctx, e.Subject)
	if err != nil {
		return nil, err
	}
	l, err := compat.ParseLevel(lvl)
	if err != nil {
		return nil, fmt.Errorf("subject %s: registry level: %w", e.Subject, err)
	}
	prev.Level = l
	var named []avro.NamedSchema
	for _, h := range hist {
		if len(h.References) > 0 {
			refs, err := b.referenced(ctx, h.References, 0)
			if err != nil {
				return nil, err
			}
			named = refs
		}
		opts := avro.Lenient()
		opts.File = fmt.Sprintf("registry:%s/versions/%d", e.Subject, h.Version)
		opts.Named = named
		s, err := avro.ParseWith([]byte(h.Schema), opts)
		if err != nil {
			return nil, fmt.Errorf("%w: %s version %d: %v", ErrBadBaseline, e.Subject, h.Version, err)
		}
		prev.Schemas = append(prev.Schemas, s)
		prev.Versions = append(prev.Versions, h.Version)
		named = nil
	}
	return prev, nil
}

// referenced parses the schemas named by refs (recursively) and returns
// their named types.
func (b *registryBaseline) referenced(ctx context.Context, refs []registry.Reference, depth int) ([]avro.NamedSchema, error) {
	if depth > 16 {
		return nil, fmt.Errorf("%w: schema references nest too deep", ErrBadBaseline)
	}
	var out []avro.NamedSchema
	for _, r := range refs {
		s, err := b.c.Version(ctx, r.Subject, r.Version)
		if err != nil {
			return nil, err
		}
		inner, err := b.referenced(ctx, s.References, depth+1)
		if err != nil {
			return nil, err
		}
		opts := avro.Lenient()
		opts.Named = append(out, inner...)
		p, err := avro.ParseWith([]byte(s.Schema), opts)
		if err != nil {
			return nil, fmt.Errorf("%w: reference %s: %v", ErrBadBaseline, r.Name, err)
		}
		out = append(out, inner...)
		out = append(out, avro.NamedTypes(p)...)
	}
	return out, nil
}
