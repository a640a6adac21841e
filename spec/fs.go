package spec

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// LoadFS is Load of the spec file name (a slash-separated path, as io/fs
// takes it) in fsys, for example an embed.FS: the schema files its event
// versions name are then read from fsys too (Outbox.ReadSchema), so a
// service that embeds its spec and .avsc files needs neither on disk at run
// time:
//
//	//go:embed outbox.yaml schemas/*.avsc
//	var specFS embed.FS
//
//	sp, err := spec.LoadFS(specFS, "outbox.yaml")
//
// EventVersion.SchemaPath is then a path in fsys. Errors are those of Load.
func LoadFS(fsys fs.FS, name string) (*Spec, error) {
	if fsys == nil {
		return nil, fmt.Errorf("load spec: nil fs.FS: %w", ErrInvalidSpec)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("load spec: %w", err)
	}
	defer f.Close()
	data, err := ReadAllLimit(f, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("load spec: %s: %w", name, err)
	}
	s, err := Parse(Source{Name: name, Data: data})
	if err != nil {
		return nil, err
	}
	for i := range s.Outboxes {
		s.Outboxes[i].fsys = fsys
	}
	return s, nil
}

// MaxSchemaFileSize bounds a schema file read by ReadSchema (as
// schemas/avro.MaxFileSize bounds one read from disk).
const MaxSchemaFileSize = 16 << 20

// Version returns o's declared major version major of event type
// eventType (nil when o is nil or declares no such event type or version).
func (o *Outbox) Version(eventType string, major int) *EventVersion {
	if o == nil {
		return nil
	}
	for i := range o.Events {
		if o.Events[i].Name != eventType {
			continue
		}
		for j := range o.Events[i].Versions {
			if v := &o.Events[i].Versions[j]; v.Major == major {
				return v
			}
		}
	}
	return nil
}

// ReadSchema reads the schema file of event version v of o (its
// SchemaPath): from the fs.FS the spec was loaded from with LoadFS, else
// from disk. It is the one reader of the .avsc files an SDK user's spec
// names (consumer.ReaderSchemaFromSpec and consumer.FromSpec use it). The
// file must be regular and at most MaxSchemaFileSize bytes; errors name
// the path.
func (o *Outbox) ReadSchema(v *EventVersion) ([]byte, error) {
	if v == nil || v.SchemaPath == "" {
		return nil, fmt.Errorf("outbox %q: event version declares no schema file", o.Name)
	}
	if o.fsys == nil {
		return ReadFileLimit(v.SchemaPath, MaxSchemaFileSize)
	}
	p := path.Clean(filepath.ToSlash(v.SchemaPath))
	p = strings.TrimPrefix(p, "./")
	f, err := o.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
	}
	data, err := ReadAllLimit(f, MaxSchemaFileSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return data, nil
}
