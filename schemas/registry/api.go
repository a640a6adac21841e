package registry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"

	"github.com/riferrei/srclient"
)

// SchemaTypeAvro is the schema type of Avro schemas. The registry omits it
// in its answers (srclient then hands out a nil pointer); Schema.Type is
// always filled.
const SchemaTypeAvro = "AVRO"

// Reference is a Confluent schema reference: the schema refers to Name (for
// Avro, the full name of a named type) defined by Subject at Version.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is one registered schema.
type Schema struct {
	// Subject and Version are empty/0 for a schema fetched by id only.
	Subject string `json:"subject,omitempty"`
	Version int    `json:"version,omitempty"`
	ID      int    `json:"id"`
	// Type is "AVRO", "JSON" or "PROTOBUF" (never empty).
	Type       string      `json:"schemaType"`
	Schema     string      `json:"schema"`
	References []Reference `json:"references,omitempty"`
}

func fromSR(subject string, s *srclient.Schema) *Schema {
	out := &Schema{Subject: subject, Version: s.Version(), ID: s.ID(), Schema: s.Schema(), Type: SchemaTypeAvro}
	if t := s.SchemaType(); t != nil && *t != "" {
		out.Type = string(*t)
	}
	for _, r := range s.References() {
		out.References = append(out.References, Reference(r))
	}
	return out
}

func toSR(refs []Reference) []srclient.Reference {
	out := make([]srclient.Reference, len(refs))
	for i, r := range refs {
		out[i] = srclient.Reference(r)
	}
	return out
}

func subjectPath(subject string) string { return url.PathEscape(subject) }

// Subjects lists the subjects, sorted; with deleted, soft-deleted subjects
// too.
func (c *Client) Subjects(ctx context.Context, deleted bool) ([]string, error) {
	var out []string
	err := c.sr(ctx, "list subjects", func(s *srclient.SchemaRegistryClient) (err error) {
		if deleted {
			out, err = s.GetSubjectsIncludingDeleted()
		} else {
			out, err = s.GetSubjects()
		}
		return err
	})
	if out == nil {
		out = []string{}
	}
	sort.Strings(out)
	return out, err
}

// Versions lists the live versions of subject, ascending. A missing
// subject is ErrSubjectNotFound.
func (c *Client) Versions(ctx context.Context, subject string) ([]int, error) {
	var out []int
	err := c.sr(ctx, fmt.Sprintf("list versions of %q", subject), func(s *srclient.SchemaRegistryClient) (err error) {
		out, err = s.GetSchemaVersions(subject)
		return err
	})
	sort.Ints(out)
	return out, err
}

// Version returns version n (>= 1) of subject: ErrSubjectNotFound,
// ErrVersionNotFound.
func (c *Client) Version(ctx context.Context, subject string, n int) (*Schema, error) {
	op := fmt.Sprintf("get %q version %d", subject, n)
	if n < 1 {
		return nil, fmt.Errorf("%s: %w: versions start at 1", op, ErrInvalidVersion)
	}
	var out *Schema
	err := c.sr(ctx, op, func(s *srclient.SchemaRegistryClient) error {
		got, err := s.GetSchemaByVersion(subject, n)
		if err == nil {
			out = fromSR(subject, got)
		}
		return err
	})
	return out, err
}

// Latest returns the latest live version of subject, asked from the
// registry on every call (srclient's cache would keep the first answer
// forever).
func (c *Client) Latest(ctx context.Context, subject string) (*Schema, error) {
	var out *Schema
	err := c.sr(ctx, fmt.Sprintf("get %q latest version", subject), func(s *srclient.SchemaRegistryClient) error {
		got, err := s.GetLatestSchema(subject)
		if err == nil {
			out = fromSR(subject, got)
		}
		return err
	})
	return out, err
}

// SchemaByID returns the schema with the global id (Subject and Version
// are empty): ErrSchemaNotFound.
func (c *Client) SchemaByID(ctx context.Context, id int) (*Schema, error) {
	var out *Schema
	err := c.sr(ctx, fmt.Sprintf("get schema id %d", id), func(s *srclient.SchemaRegistryClient) error {
		got, err := s.GetSchema(id)
		if err == nil {
			out = fromSR("", got)
			out.Version = 0
		}
		return err
	})
	return out, err
}

// History returns every live version of subject, oldest first. A subject
// that does not exist has an empty history (no error).
func (c *Client) History(ctx context.Context, subject string) ([]*Schema, error) {
	vs, err := c.Versions(ctx, subject)
	if errors.Is(err, ErrSubjectNotFound) {
		return []*Schema{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]*Schema, 0, len(vs))
	for _, v := range vs {
		s, err := c.Version(ctx, subject, v)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Lookup finds schema under subject without registering it (POST
// /subjects/{subject}): the registered version with its id, or
// ErrSchemaNotFound (the subject exists, the schema is not one of its
// versions) or ErrSubjectNotFound.
func (c *Client) Lookup(ctx context.Context, subject, schema string, refs ...Reference) (*Schema, error) {
	var out *Schema
	err := c.sr(ctx, fmt.Sprintf("look up schema in %q", subject), func(s *srclient.SchemaRegistryClient) error {
		got, err := s.LookupSchema(subject, schema, srclient.Avro, toSR(refs)...)
		if err == nil {
			out = fromSR(subject, got)
		}
		return err
	})
	return out, err
}

// Registered is the outcome of Register.
type Registered struct {
	Schema
	// Created is false when the schema was already registered under the
	// subject (no version was created).
	Created bool `json:"created"`
}

// Register registers an Avro schema under subject and returns its version
// and id. It looks the schema up first, so registering an identical schema
// again creates no version and reports Created false; after a creation it
// looks the schema up again for the version (srclient returns version 0).
// Refused schemas are ErrIncompatible or ErrInvalidSchema (*APIError).
func (c *Client) Register(ctx context.Context, subject, schema string, refs ...Reference) (*Registered, error) {
	found, err := c.Lookup(ctx, subject, schema, refs...)
	if err == nil {
		return &Registered{Schema: *found}, nil
	}
	if !errors.Is(err, ErrSchemaNotFound) && !errors.Is(err, ErrSubjectNotFound) {
		return nil, err
	}
	var id int
	err = c.sr(ctx, fmt.Sprintf("register schema in %q", subject), func(s *srclient.SchemaRegistryClient) error {
		got, err := s.CreateSchema(subject, schema, srclient.Avro, toSR(refs)...)
		if err == nil {
			id = got.ID()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	found, err = c.Lookup(ctx, subject, schema, refs...)
	if err != nil {
		return nil, fmt.Errorf("registered schema id %d in %q but cannot read its version: %w", id, subject, err)
	}
	return &Registered{Schema: *found, Created: true}, nil
}

// GlobalLevel returns the registry's default compatibility level.
func (c *Client) GlobalLevel(ctx context.Context) (string, error) {
	var out string
	err := c.sr(ctx, "get global compatibility level", func(s *srclient.SchemaRegistryClient) error {
		l, err := s.GetGlobalCompatibilityLevel()
		if err == nil && l != nil {
			out = string(*l)
		}
		return err
	})
	return out, err
}

// SubjectLevel returns the level set on subject itself; ok is false when
// none is set (Confluent's 40408, or 40401 for a subject without config).
// Apicurio answers the global level for an existing subject without its
// own level, so there ok is true.
func (c *Client) SubjectLevel(ctx context.Context, subject string) (level string, ok bool, err error) {
	err = c.sr(ctx, fmt.Sprintf("get compatibility level of %q", subject), func(s *srclient.SchemaRegistryClient) error {
		l, err := s.GetCompatibilityLevel(subject, false)
		if err == nil && l != nil {
			level = string(*l)
		}
		return err
	})
	var ae *APIError
	if errors.As(err, &ae) && (ae.Code == CodeSubjectLevelNotSet || ae.Code == CodeSubjectNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return level, level != "", nil
}

// Level returns the level that applies to subject: its own, else the
// global one (GET /config/{subject}?defaultToGlobal=true). Apicurio
// answers 40401 for a subject without config instead of the global level;
// Level then asks for the global level itself.
func (c *Client) Level(ctx context.Context, subject string) (string, error) {
	var out string
	err := c.sr(ctx, fmt.Sprintf("get compatibility level of %q", subject), func(s *srclient.SchemaRegistryClient) error {
		l, err := s.GetCompatibilityLevel(subject, true)
		if err == nil && l != nil {
			out = string(*l)
		}
		return err
	})
	var ae *APIError
	if (errors.As(err, &ae) && (ae.Code == CodeSubjectLevelNotSet || ae.Code == CodeSubjectNotFound)) || (err == nil && out == "") {
		return c.GlobalLevel(ctx)
	}
	return out, err
}

// SetLevel sets subject's compatibility level (PUT /config/{subject}). It
// works before the subject's first version. An unknown level is
// ErrInvalidLevel.
func (c *Client) SetLevel(ctx context.Context, subject, level string) error {
	return c.sr(ctx, fmt.Sprintf("set compatibility level of %q to %s", subject, level), func(s *srclient.SchemaRegistryClient) error {
		_, err := s.ChangeSubjectCompatibilityLevel(subject, srclient.CompatibilityLevel(level))
		return err
	})
}

// Compatibility is the registry's verdict on a candidate schema.
type Compatibility struct {
	Compatible bool `json:"compatible"`
	// Messages are the registry's explanations (Confluent with
	// verbose=true); Apicurio sends none.
	Messages []string `json:"messages"`
}

// Which versions TestCompatibility checks against.
const (
	// AllVersions: the subject's policy, as registering would (POST
	// /compatibility/subjects/{s}/versions). A subject without versions is
	// compatible.
	AllVersions = 0
	// LatestVersion: the latest version only.
	LatestVersion = -1
)

// TestCompatibility asks the registry whether schema could be registered
// under subject, with verbose messages. version is AllVersions,
// LatestVersion or a version number. srclient has no such call (its
// IsSchemaCompatible drops the messages and has no all-versions form).
func (c *Client) TestCompatibility(ctx context.Context, subject, schema string, version int, refs ...Reference) (*Compatibility, error) {
	path := "/compatibility/subjects/" + subjectPath(subject) + "/versions"
	switch {
	case version == LatestVersion:
		path += "/latest"
	case version > 0:
		path += "/" + strconv.Itoa(version)
	}
	in := map[string]any{"schema": schema}
	if len(refs) > 0 {
		in["references"] = refs
	}
	var out struct {
		IsCompatible bool     `json:"is_compatible"`
		Messages     []string `json:"messages"`
	}
	err := c.rest(ctx, fmt.Sprintf("test compatibility with %q", subject), "POST", path+"?verbose=true", in, &out)
	if err != nil {
		return nil, err
	}
	if out.Messages == nil {
		out.Messages = []string{}
	}
	return &Compatibility{Compatible: out.IsCompatible, Messages: out.Messages}, nil
}

// DeleteSubject deletes subject: a soft delete, or with permanent a hard
// delete (which needs a soft delete first: ErrSubjectNotSoftDeleted).
func (c *Client) DeleteSubject(ctx context.Context, subject string, permanent bool) error {
	kind := "soft"
	if permanent {
		kind = "hard"
	}
	return c.sr(ctx, fmt.Sprintf("%s-delete subject %q", kind, subject), func(s *srclient.SchemaRegistryClient) error {
		return s.DeleteSubject(subject, permanent)
	})
}

// DeleteVersion soft-deletes version n of subject, and with permanent then
// hard-deletes it.
func (c *Client) DeleteVersion(ctx context.Context, subject string, n int, permanent bool) error {
	return c.sr(ctx, fmt.Sprintf("delete %q version %d", subject, n), func(s *srclient.SchemaRegistryClient) error {
		return s.DeleteSubjectByVersion(subject, n, permanent)
	})
}
