// Package srfake is an in-memory Confluent Schema Registry for tests: an
// httptest server that answers the REST API the registry client and
// outboxctl use with Confluent's status codes, error codes and messages.
//
// What it mimics: global schema ids shared by identical schemas across
// subjects; idempotent registration (an identical schema returns its id and
// creates no version); identity by Avro Java's Schema.toString (what
// Confluent compares); versions numbered after the highest one ever used;
// soft and hard deletes of subjects and versions with their preconditions
// (40404, 40405, 40406, 40407); subject and global compatibility levels,
// settable before a subject's first version; compatibility checks at the
// subject's level with the verbose messages Confluent returns, computed by
// package compat; Avro schema references; basic and bearer auth (401).
//
// What it does not: contexts, modes, normalize, metadata and rule sets,
// JSON Schema and Protobuf.
package srfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
)

// Reference is a schema reference as the API carries it.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

type stored struct {
	id     int
	text   string // Java toString form
	refs   []Reference
	parsed avro.Schema
}

type version struct {
	n       int
	schema  *stored
	deleted bool
}

type subject struct {
	versions []*version // ascending, including soft-deleted
	level    string     // "" when unset
}

func (s *subject) live() []*version {
	var out []*version
	for _, v := range s.versions {
		if !v.deleted {
			out = append(out, v)
		}
	}
	return out
}

// Fake is the fake registry. Its methods are safe for concurrent use.
type Fake struct {
	srv *httptest.Server

	mu       sync.Mutex
	schemas  []*stored
	subjects map[string]*subject
	global   string
	user     string
	pass     string
	token    string
	fail     []failure
	log      []string
}

type failure struct {
	status      int
	contentType string
	body        string
}

// Option configures a Fake.
type Option func(*Fake)

// WithBasicAuth requires HTTP basic credentials.
func WithBasicAuth(user, pass string) Option { return func(f *Fake) { f.user, f.pass = user, pass } }

// WithBearerToken requires "Authorization: Bearer token".
func WithBearerToken(token string) Option { return func(f *Fake) { f.token = token } }

// WithGlobalLevel sets the global compatibility level, overriding
// Confluent's default BACKWARD.
func WithGlobalLevel(level string) Option { return func(f *Fake) { f.global = level } }

// New starts a fake registry; Close it when done.
func New(opts ...Option) *Fake {
	f := NewUnstarted(opts...)
	f.srv = httptest.NewServer(f)
	return f
}

// NewUnstarted returns a fake that is only an http.Handler.
func NewUnstarted(opts ...Option) *Fake {
	f := &Fake{subjects: map[string]*subject{}, global: "BACKWARD"}
	for _, o := range opts {
		o(f)
	}
	return f
}

// URL is the base URL of the started fake.
func (f *Fake) URL() string { return f.srv.URL }

// Close stops the server.
func (f *Fake) Close() {
	if f.srv != nil {
		f.srv.Close()
	}
}

// FailNext makes the next request answer status with contentType and body
// (for example a proxy's 502 HTML page), whatever it asks.
func (f *Fake) FailNext(status int, contentType, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = append(f.fail, failure{status, contentType, body})
}

// Requests returns "METHOD /path?query" of every request served so far.
func (f *Fake) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

type apiErr struct {
	status int
	code   int
	msg    string
}

func errf(status, code int, format string, args ...any) *apiErr {
	return &apiErr{status, code, fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ServeHTTP implements the registry API.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	entry := r.Method + " " + r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		entry += "?" + r.URL.RawQuery
	}
	f.log = append(f.log, entry)
	if len(f.fail) > 0 {
		fl := f.fail[0]
		f.fail = f.fail[1:]
		w.Header().Set("Content-Type", fl.contentType)
		w.WriteHeader(fl.status)
		_, _ = w.Write([]byte(fl.body))
		return
	}
	if !f.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error_code": 401, "message": "Unauthorized"})
		return
	}
	out, e := f.route(r)
	if e != nil {
		writeJSON(w, e.status, map[string]any{"error_code": e.code, "message": e.msg})
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *Fake) authorized(r *http.Request) bool {
	switch {
	case f.token != "":
		return r.Header.Get("Authorization") == "Bearer "+f.token
	case f.user != "":
		u, p, ok := r.BasicAuth()
		return ok && u == f.user && p == f.pass
	}
	return true
}

// splitPath splits the escaped path and unescapes each segment, so that a
// subject may contain an escaped '/'.
func splitPath(p string) []string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range parts {
		if u, err := url.PathUnescape(s); err == nil {
			parts[i] = u
		}
	}
	return parts
}

func (f *Fake) route(r *http.Request) (any, *apiErr) {
	parts := splitPath(r.URL.EscapedPath())
	q := r.URL.Query()
	m := r.Method
	n := len(parts)
	switch {
	case n == 1 && parts[0] == "subjects" && m == "GET":
		return f.listSubjects(q.Get("deleted") == "true"), nil
	case n == 2 && parts[0] == "subjects" && m == "POST":
		return f.lookup(parts[1], r)
	case n == 2 && parts[0] == "subjects" && m == "DELETE":
		return f.deleteSubject(parts[1], q.Get("permanent") == "true")
	case n == 3 && parts[0] == "subjects" && parts[2] == "versions" && m == "GET":
		return f.listVersions(parts[1], q.Get("deleted") == "true")
	case n == 3 && parts[0] == "subjects" && parts[2] == "versions" && m == "POST":
		return f.register(parts[1], r)
	case n == 4 && parts[0] == "subjects" && parts[2] == "versions" && m == "GET":
		return f.getVersion(parts[1], parts[3])
	case n == 4 && parts[0] == "subjects" && parts[2] == "versions" && m == "DELETE":
		return f.deleteVersion(parts[1], parts[3], q.Get("permanent") == "true")
	case n == 3 && parts[0] == "schemas" && parts[1] == "ids" && m == "GET":
		return f.schemaByID(parts[2])
	case n == 4 && parts[0] == "schemas" && parts[1] == "ids" && parts[3] == "versions" && m == "GET":
		return f.idVersions(parts[2])
	case n == 1 && parts[0] == "config" && m == "GET":
		return map[string]string{"compatibilityLevel": f.global}, nil
	case n == 1 && parts[0] == "config" && m == "PUT":
		l, e := readLevel(r)
		if e != nil {
			return nil, e
		}
		f.global = l
		return map[string]string{"compatibility": l}, nil
	case n == 2 && parts[0] == "config" && m == "GET":
		return f.getConfig(parts[1], q.Get("defaultToGlobal") == "true")
	case n == 2 && parts[0] == "config" && m == "PUT":
		l, e := readLevel(r)
		if e != nil {
			return nil, e
		}
		f.subj(parts[1], true).level = l
		return map[string]string{"compatibility": l}, nil
	case n == 2 && parts[0] == "config" && m == "DELETE":
		s := f.subj(parts[1], false)
		if s == nil || s.level == "" {
			return nil, errf(404, 40401, "Subject '%s' not found.", parts[1])
		}
		old := s.level
		s.level = ""
		return map[string]string{"compatibilityLevel": old}, nil
	case (n == 4 || n == 5) && parts[0] == "compatibility" && parts[1] == "subjects" && parts[3] == "versions" && m == "POST":
		v := ""
		if n == 5 {
			v = parts[4]
		}
		return f.testCompat(parts[2], v, r, q.Get("verbose") == "true")
	}
	return nil, errf(404, 404, "HTTP 404 Not Found")
}

func (f *Fake) subj(name string, create bool) *subject {
	s := f.subjects[name]
	if s == nil && create {
		s = &subject{}
		f.subjects[name] = s
	}
	return s
}

func (f *Fake) listSubjects(deleted bool) []string {
	out := []string{}
	for name, s := range f.subjects {
		if len(s.live()) > 0 || (deleted && len(s.versions) > 0) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (f *Fake) liveSubject(name string) (*subject, *apiErr) {
	s := f.subj(name, false)
	if s == nil || len(s.live()) == 0 {
		return nil, errf(404, 40401, "Subject '%s' not found.", name)
	}
	return s, nil
}

func (f *Fake) listVersions(name string, deleted bool) (any, *apiErr) {
	s := f.subj(name, false)
	if s == nil || len(s.versions) == 0 || (!deleted && len(s.live()) == 0) {
		return nil, errf(404, 40401, "Subject '%s' not found.", name)
	}
	out := []int{}
	for _, v := range s.versions {
		if deleted || !v.deleted {
			out = append(out, v.n)
		}
	}
	return out, nil
}

func versionJSON(name string, v *version) map[string]any {
	m := map[string]any{"subject": name, "version": v.n, "id": v.schema.id, "schema": v.schema.text}
	if len(v.schema.refs) > 0 {
		m["references"] = v.schema.refs
	}
	return m
}

func (f *Fake) findVersion(name, ver string) (*version, *apiErr) {
	s, e := f.liveSubject(name)
	if e != nil {
		return nil, e
	}
	live := s.live()
	if ver == "latest" || ver == "-1" {
		return live[len(live)-1], nil
	}
	n, err := strconv.Atoi(ver)
	if err != nil || n < 1 {
		return nil, errf(422, 42202, "The specified version '%s' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"", ver)
	}
	for _, v := range live {
		if v.n == n {
			return v, nil
		}
	}
	return nil, errf(404, 40402, "Version %d not found.", n)
}

func (f *Fake) getVersion(name, ver string) (any, *apiErr) {
	v, e := f.findVersion(name, ver)
	if e != nil {
		return nil, e
	}
	return versionJSON(name, v), nil
}

func (f *Fake) schemaByID(idStr string) (any, *apiErr) {
	id, err := strconv.Atoi(idStr)
	if err != nil || id < 1 || id > len(f.schemas) {
		return nil, errf(404, 40403, "Schema %s not found", idStr)
	}
	s := f.schemas[id-1]
	m := map[string]any{"schema": s.text}
	if len(s.refs) > 0 {
		m["references"] = s.refs
	}
	return m, nil
}

func (f *Fake) idVersions(idStr string) (any, *apiErr) {
	id, err := strconv.Atoi(idStr)
	if err != nil || id < 1 || id > len(f.schemas) {
		return nil, errf(404, 40403, "Schema %s not found", idStr)
	}
	type sv struct {
		Subject string `json:"subject"`
		Version int    `json:"version"`
	}
	out := []sv{}
	names := make([]string, 0, len(f.subjects))
	for n := range f.subjects {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range f.subjects[n].live() {
			if v.schema.id == id {
				out = append(out, sv{n, v.n})
			}
		}
	}
	return out, nil
}

func readLevel(r *http.Request) (string, *apiErr) {
	var in struct {
		Compatibility string `json:"compatibility"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return "", errf(422, 42203, "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive")
	}
	l, err := compat.ParseLevel(in.Compatibility)
	if err != nil {
		return "", errf(422, 42203, "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive")
	}
	return string(l), nil
}

func (f *Fake) getConfig(name string, defaultToGlobal bool) (any, *apiErr) {
	s := f.subj(name, false)
	if s != nil && s.level != "" {
		return map[string]string{"compatibilityLevel": s.level}, nil
	}
	if defaultToGlobal {
		return map[string]string{"compatibilityLevel": f.global}, nil
	}
	return nil, errf(404, 40408, "Subject '%s' does not have subject-level compatibility configured", name)
}

func (f *Fake) levelOf(s *subject) compat.Level {
	if s != nil && s.level != "" {
		return compat.Level(s.level)
	}
	return compat.Level(f.global)
}

type schemaReq struct {
	Schema     string      `json:"schema"`
	SchemaType string      `json:"schemaType"`
	References []Reference `json:"references"`
}

// parseReq reads and parses a candidate schema with its references.
func (f *Fake) parseReq(r *http.Request) (*schemaReq, avro.Schema, *apiErr) {
	var in schemaReq
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		return nil, nil, errf(400, 400, "Unrecognized field or malformed JSON: %v", err)
	}
	if in.SchemaType != "" && in.SchemaType != "AVRO" {
		return nil, nil, errf(422, 42201, "Invalid schema: schema type %s is not supported by this fake", in.SchemaType)
	}
	named, e := f.resolveRefs(in.References, 0)
	if e != nil {
		return nil, nil, e
	}
	s, err := avro.ParseWith([]byte(in.Schema), avro.Options{Named: named})
	if err != nil {
		return nil, nil, errf(422, 42201, "Invalid schema %s, details: %v", in.Schema, err)
	}
	return &in, s, nil
}

func (f *Fake) resolveRefs(refs []Reference, depth int) ([]avro.NamedSchema, *apiErr) {
	if depth > 32 {
		return nil, errf(422, 42201, "Invalid schema: reference cycle")
	}
	var out []avro.NamedSchema
	for _, ref := range refs {
		v, e := f.findVersion(ref.Subject, strconv.Itoa(ref.Version))
		if e != nil {
			return nil, errf(422, 42201, "Invalid schema: reference %s (subject %s version %d): %s", ref.Name, ref.Subject, ref.Version, e.msg)
		}
		inner, e := f.resolveRefs(v.schema.refs, depth+1)
		if e != nil {
			return nil, e
		}
		out = append(out, inner...)
		out = append(out, avro.NamedTypes(v.schema.parsed)...)
	}
	return out, nil
}

func (f *Fake) lookup(name string, r *http.Request) (any, *apiErr) {
	s, e := f.liveSubject(name)
	if e != nil {
		return nil, e
	}
	in, parsed, e := f.parseReq(r)
	if e != nil {
		return nil, e
	}
	text := avro.JavaString(parsed)
	for _, v := range s.live() {
		if v.schema.text == text && slices.Equal(v.schema.refs, in.References) {
			return versionJSON(name, v), nil
		}
	}
	return nil, errf(404, 40403, "Schema not found")
}

func (f *Fake) history(s *subject) []avro.Schema {
	var out []avro.Schema
	if s == nil {
		return out
	}
	for _, v := range s.live() {
		out = append(out, v.schema.parsed)
	}
	return out
}

func (f *Fake) register(name string, r *http.Request) (any, *apiErr) {
	in, parsed, e := f.parseReq(r)
	if e != nil {
		return nil, e
	}
	text := avro.JavaString(parsed)
	s := f.subj(name, false)
	if s != nil {
		for _, v := range s.live() {
			if v.schema.text == text && slices.Equal(v.schema.refs, in.References) {
				return map[string]int{"id": v.schema.id}, nil
			}
		}
	}
	hist := f.history(s)
	rep := compat.CheckLevel(f.levelOf(s), parsed, hist)
	if !rep.Compatible {
		msgs := rep.ConfluentMessages(hist)
		return nil, errf(409, 409, "Schema being registered is incompatible with an earlier schema for subject \"%s\", details: [%s]", name, strings.Join(msgs, ", "))
	}
	var st *stored
	for _, x := range f.schemas {
		if x.text == text && slices.Equal(x.refs, in.References) {
			st = x
			break
		}
	}
	if st == nil {
		st = &stored{id: len(f.schemas) + 1, text: text, refs: in.References, parsed: parsed}
		f.schemas = append(f.schemas, st)
	}
	s = f.subj(name, true)
	next := 1
	if len(s.versions) > 0 {
		next = s.versions[len(s.versions)-1].n + 1
	}
	s.versions = append(s.versions, &version{n: next, schema: st})
	return map[string]int{"id": st.id}, nil
}

func (f *Fake) testCompat(name, ver string, r *http.Request, verbose bool) (any, *apiErr) {
	_, parsed, e := f.parseReq(r)
	if e != nil {
		return nil, e
	}
	s := f.subj(name, false)
	var hist []avro.Schema
	if ver == "" {
		hist = f.history(s)
	} else {
		v, e := f.findVersion(name, ver)
		if e != nil {
			return nil, e
		}
		hist = []avro.Schema{v.schema.parsed}
	}
	rep := compat.CheckLevel(f.levelOf(s), parsed, hist)
	out := map[string]any{"is_compatible": rep.Compatible}
	if verbose {
		out["messages"] = rep.ConfluentMessages(hist)
	}
	return out, nil
}

func (f *Fake) deleteSubject(name string, permanent bool) (any, *apiErr) {
	s := f.subj(name, false)
	if s == nil || len(s.versions) == 0 {
		return nil, errf(404, 40401, "Subject '%s' not found.", name)
	}
	out := []int{}
	if permanent {
		if len(s.live()) > 0 {
			return nil, errf(404, 40405, "Subject '%s' was not deleted first before being permanently deleted", name)
		}
		for _, v := range s.versions {
			out = append(out, v.n)
		}
		delete(f.subjects, name)
		return out, nil
	}
	live := s.live()
	if len(live) == 0 {
		return nil, errf(404, 40404, "Subject '%s' was soft deleted.Set permanent=true to delete permanently", name)
	}
	for _, v := range live {
		v.deleted = true
		out = append(out, v.n)
	}
	return out, nil
}

func (f *Fake) deleteVersion(name, ver string, permanent bool) (any, *apiErr) {
	s := f.subj(name, false)
	if s == nil || len(s.versions) == 0 {
		return nil, errf(404, 40401, "Subject '%s' not found.", name)
	}
	n, err := strconv.Atoi(ver)
	if ver == "latest" {
		live := s.live()
		if len(live) == 0 {
			return nil, errf(404, 40401, "Subject '%s' not found.", name)
		}
		n, err = live[len(live)-1].n, nil
	}
	if err != nil || n < 1 {
		return nil, errf(422, 42202, "The specified version '%s' is not a valid version id.", ver)
	}
	for i, v := range s.versions {
		if v.n != n {
			continue
		}
		if permanent {
			if !v.deleted {
				return nil, errf(404, 40407, "Subject '%s' Version %d was not deleted first before being permanently deleted", name, n)
			}
			s.versions = append(s.versions[:i], s.versions[i+1:]...)
			if len(s.versions) == 0 && s.level == "" {
				delete(f.subjects, name)
			}
			return n, nil
		}
		if v.deleted {
			return nil, errf(404, 40406, "Subject '%s' Version %d was soft deleted.Set permanent=true to delete permanently", name, n)
		}
		v.deleted = true
		return n, nil
	}
	return nil, errf(404, 40402, "Version %d not found.", n)
}
