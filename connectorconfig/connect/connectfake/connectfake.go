// Package connectfake is an in-memory Kafka Connect REST server for tests.
//
// It implements the endpoints the connect package uses with Connect's status
// codes and bodies: create-or-update (201/200, "name" added to the stored
// config), POST with initial_state, status with the state machine
// RUNNING/PAUSED/STOPPED/FAILED, pause/resume/stop, restart with
// includeTasks/onlyFailed, delete, offsets GET/PATCH/DELETE (STOPPED only),
// validate and connector-plugins. Like the real worker it restarts the
// connector instance on every config PUT, identical or not (Kafka 4.3 logs
// "Handling connector-only config update by restarting connector" and keeps
// the tasks when their configs are unchanged), and it counts PUTs, connector
// restarts and task restarts so that tests can assert that a no-op deploy
// wrote nothing.
//
// It is built like the registry's fake (srfake): New takes options,
// connectfake.New(connectfake.WithVersion("3.6.0")) as
// srfake.New(srfake.WithBasicAuth(…)); an Options value is an Option too
// (its set fields), so connectfake.New(connectfake.Options{…}) keeps
// working.
//
// Faults are injected with [Server.InjectConflicts] (rebalance 409s),
// [Server.FailConnector] (a task FAILED with a trace), [WithStartDelay]
// (tasks UNASSIGNED for a while) and [WithMaskKeys] (config values
// returned as "[hidden]").
package connectfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
)

// Options configure a Server; an Options value is an Option (New applies
// its set fields). The With functions set one field each.
type Options struct {
	// Version is what GET / reports; default "4.3.1".
	Version string
	// StartDelay keeps a (re)started connector's tasks UNASSIGNED this long.
	StartDelay time.Duration
	// MaskKeys are config keys whose values GET returns as "[hidden]".
	MaskKeys []string
	// Plugins are the connector classes GET /connector-plugins lists; default
	// the Debezium PostgreSQL, MySQL and MariaDB connectors.
	Plugins []string
}

type conn struct {
	config            map[string]string
	target            string // RUNNING, PAUSED, STOPPED
	started           time.Time
	puts              int
	taskRestarts      int
	connectorRestarts int
	failTrace         string // latched when the task starts while a failure is injected
	offsets           []connect.Offset
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	opts Options

	mu        sync.Mutex
	conns     map[string]*conn
	fail      map[string]string // connector name → task trace
	conflicts int
	requests  []string
	now       func() time.Time
	hang      map[string]bool     // "METHOD /path" → never answer
	answers   map[string]override // "METHOD /path" → fixed answer
	stop      chan struct{}
}

type override struct {
	status int
	body   string
}

// Option configures a Server: a With function, or an Options value.
type Option interface{ apply(*Options) }

type optionFunc func(*Options)

func (f optionFunc) apply(o *Options) { f(o) }

// apply sets the fields of o that are set (non-zero) in dst: an Options
// value is an Option, for New(Options{…}).
func (o Options) apply(dst *Options) {
	if o.Version != "" {
		dst.Version = o.Version
	}
	if o.StartDelay != 0 {
		dst.StartDelay = o.StartDelay
	}
	if o.MaskKeys != nil {
		dst.MaskKeys = o.MaskKeys
	}
	if o.Plugins != nil {
		dst.Plugins = o.Plugins
	}
}

// WithVersion sets what GET / reports, overriding "4.3.1".
func WithVersion(v string) Option { return optionFunc(func(o *Options) { o.Version = v }) }

// WithStartDelay keeps a (re)started connector's tasks UNASSIGNED for d,
// overriding no delay.
func WithStartDelay(d time.Duration) Option {
	return optionFunc(func(o *Options) { o.StartDelay = d })
}

// WithMaskKeys makes GET return the values of these config keys as
// "[hidden]", overriding none.
func WithMaskKeys(keys ...string) Option { return optionFunc(func(o *Options) { o.MaskKeys = keys }) }

// WithPlugins sets the connector classes GET /connector-plugins lists,
// overriding the Debezium PostgreSQL, MySQL and MariaDB connectors.
func WithPlugins(classes ...string) Option {
	return optionFunc(func(o *Options) { o.Plugins = classes })
}

// New starts a fake Connect server; close it with Close. Later options
// override earlier ones.
func New(options ...Option) *Server {
	var opts Options
	for _, o := range options {
		o.apply(&opts)
	}
	if opts.Version == "" {
		opts.Version = "4.3.1"
	}
	if opts.Plugins == nil {
		opts.Plugins = []string{
			"io.debezium.connector.postgresql.PostgresConnector",
			"io.debezium.connector.mysql.MySqlConnector",
			"io.debezium.connector.mariadb.MariaDbConnector",
		}
	}
	s := &Server{opts: opts, conns: map[string]*conn{}, fail: map[string]string{}, now: time.Now,
		hang: map[string]bool{}, answers: map[string]override{}, stop: make(chan struct{})}
	s.Server = httptest.NewServer(s.routes())
	return s
}

// Close ends hanging requests and shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.mu.Unlock()
	s.Server.Close()
}

// Hang makes requests "METHOD /path" (the path without query) get no answer
// until the client gives up, like a worker that hangs; on false they are
// answered again.
func (s *Server) Hang(request string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.hang[request] = true
	} else {
		delete(s.hang, request)
	}
}

// Answer makes requests "METHOD /path" get status and body instead of the
// fake's answer (for answers of the wrong shape); status 0 clears it.
func (s *Server) Answer(request string, status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == 0 {
		delete(s.answers, request)
	} else {
		s.answers[request] = override{status, body}
	}
}

// InjectConflicts makes the next n write requests (PUT, POST, PATCH, DELETE)
// answer 409 as Connect does during a rebalance.
func (s *Server) InjectConflicts(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conflicts = n
}

// FailConnector makes the task of connector name FAILED with trace: at once
// if it exists, and whenever it (re)starts until cleared with an empty
// trace. Like a real task, a FAILED task stays FAILED after the cause is
// cleared until it is restarted.
func (s *Server) FailConnector(name, trace string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if trace == "" {
		delete(s.fail, name)
		return
	}
	s.fail[name] = trace
	if c := s.conns[name]; c != nil && c.target != connect.StateStopped {
		c.failTrace = trace
	}
}

// Seed creates a connector directly, without counting a PUT.
func (s *Server) Seed(name string, config map[string]string, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &conn{config: copyMap(config), target: strings.ToUpper(state), started: time.Time{}}
	if c.target == "" {
		c.target = connect.StateRunning
	}
	c.config["name"] = name
	c.offsets = defaultOffsets(c.config)
	s.conns[name] = c
}

// Puts returns how many config PUTs (and POST creates) connector name got.
func (s *Server) Puts(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conns[name]; c != nil {
		return c.puts
	}
	return 0
}

// ConnectorRestarts returns how many times the connector instance (not its
// tasks) was restarted: every config PUT does that, even an identical one.
func (s *Server) ConnectorRestarts(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conns[name]; c != nil {
		return c.connectorRestarts
	}
	return 0
}

// TaskRestarts returns how many times the tasks of connector name were
// (re)started: by config PUTs that change the config (as Connect, which skips
// the task restart when the task configs are unchanged), restarts with
// includeTasks and resumes from STOPPED.
func (s *Server) TaskRestarts(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.conns[name]; c != nil {
		return c.taskRestarts
	}
	return 0
}

// Requests returns "METHOD path" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Writes returns the requests so far that are not GETs.
func (s *Server) Writes() []string {
	var out []string
	for _, r := range s.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			out = append(out, r)
		}
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func defaultOffsets(cfg map[string]string) []connect.Offset {
	if p := cfg["topic.prefix"]; p != "" {
		return []connect.Offset{{Partition: map[string]any{"server": p}, Offset: map[string]any{"lsn": float64(24023128), "txId": float64(755)}}}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

func writeErr(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]any{"error_code": status, "message": fmt.Sprintf(format, args...)})
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, connect.ServerInfo{Version: s.opts.Version, Commit: "fakecommit", KafkaClusterID: "fake-cluster"})
	})
	mux.HandleFunc("GET /connectors", s.list)
	mux.HandleFunc("POST /connectors", s.create)
	mux.HandleFunc("GET /connectors/{name}", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		writeJSON(w, 200, s.info(name, c))
	}))
	mux.HandleFunc("GET /connectors/{name}/config", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		writeJSON(w, 200, s.masked(c.config))
	}))
	mux.HandleFunc("PUT /connectors/{name}/config", s.put)
	mux.HandleFunc("GET /connectors/{name}/status", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		writeJSON(w, 200, s.status(name, c))
	}))
	mux.HandleFunc("GET /connectors/{name}/tasks/{task}/status", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		st := s.status(name, c)
		id, _ := strconv.Atoi(r.PathValue("task"))
		for _, t := range st.Tasks {
			if t.ID == id {
				writeJSON(w, 200, t)
				return
			}
		}
		writeErr(w, 404, "No status found for task %s-%d", name, id)
	}))
	mux.HandleFunc("PUT /connectors/{name}/pause", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		c.target = connect.StatePaused
		w.WriteHeader(http.StatusAccepted)
	}))
	mux.HandleFunc("PUT /connectors/{name}/resume", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		if c.target == connect.StateStopped {
			s.restart(c)
		}
		c.target = connect.StateRunning
		w.WriteHeader(http.StatusAccepted)
	}))
	mux.HandleFunc("PUT /connectors/{name}/stop", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		c.target = connect.StateStopped
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("POST /connectors/{name}/restart", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		includeTasks := r.URL.Query().Get("includeTasks") == "true"
		onlyFailed := r.URL.Query().Get("onlyFailed") == "true"
		if !includeTasks && !onlyFailed {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		st := s.status(name, c)
		if includeTasks {
			for i, t := range st.Tasks {
				if !onlyFailed || t.State == connect.StateFailed {
					st.Tasks[i].State = connect.StateRestarting
					st.Tasks[i].Trace = ""
				}
			}
			if !onlyFailed || c.failTrace != "" {
				s.restart(c)
			}
		}
		writeJSON(w, http.StatusAccepted, st)
	}))
	mux.HandleFunc("DELETE /connectors/{name}", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		delete(s.conns, name)
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("GET /connectors/{name}/offsets", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		writeJSON(w, 200, connect.Offsets{Offsets: append([]connect.Offset{}, c.offsets...)})
	}))
	mux.HandleFunc("PATCH /connectors/{name}/offsets", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		if c.target != connect.StateStopped {
			writeErr(w, 400, "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint", name)
			return
		}
		var o connect.Offsets
		if err := json.NewDecoder(r.Body).Decode(&o); err != nil || len(o.Offsets) == 0 {
			writeErr(w, 400, "Offsets to be modified may not be null or empty")
			return
		}
		c.offsets = o.Offsets
		writeJSON(w, 200, map[string]string{"message": "The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses."})
	}))
	mux.HandleFunc("DELETE /connectors/{name}/offsets", s.withConn(func(w http.ResponseWriter, r *http.Request, name string, c *conn) {
		if c.target != connect.StateStopped {
			writeErr(w, 400, "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/%s/stop' endpoint", name)
			return
		}
		c.offsets = nil
		writeJSON(w, 200, map[string]string{"message": "The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses."})
	}))
	mux.HandleFunc("GET /connector-plugins", func(w http.ResponseWriter, r *http.Request) {
		var out []connect.Plugin
		for _, p := range s.opts.Plugins {
			out = append(out, connect.Plugin{Class: p, Type: "source", Version: "3.6.1.Final"})
		}
		writeJSON(w, 200, out)
	})
	mux.HandleFunc("PUT /connector-plugins/{plugin}/config/validate", s.validate)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		req := r.Method + " " + r.URL.Path
		s.requests = append(s.requests, req)
		if s.hang[req] {
			s.mu.Unlock()
			select {
			case <-r.Context().Done():
			case <-s.stop:
			}
			return
		}
		if o, ok := s.answers[req]; ok {
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(o.status)
			_, _ = io.WriteString(w, o.body)
			return
		}
		if r.Method != http.MethodGet && s.conflicts > 0 {
			s.conflicts--
			s.mu.Unlock()
			writeErr(w, 409, "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)")
			return
		}
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) withConn(h func(http.ResponseWriter, *http.Request, string, *conn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		s.mu.Lock()
		defer s.mu.Unlock()
		c := s.conns[name]
		if c == nil {
			writeErr(w, 404, "Connector %s not found", name)
			return
		}
		h(w, r, name, c)
	}
}

func (s *Server) restart(c *conn) {
	c.started = s.now()
	c.taskRestarts++
	c.failTrace = s.fail[c.config["name"]]
}

func (s *Server) masked(cfg map[string]string) map[string]string {
	out := copyMap(cfg)
	for _, k := range s.opts.MaskKeys {
		if _, ok := out[k]; ok {
			out[k] = "[hidden]"
		}
	}
	return out
}

func taskCount(cfg map[string]string) int {
	n, err := strconv.Atoi(cfg["tasks.max"])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func (s *Server) info(name string, c *conn) connect.Info {
	in := connect.Info{Name: name, Config: s.masked(c.config), Type: "source", Tasks: []connect.TaskID{}}
	if c.target != connect.StateStopped {
		for i := 0; i < taskCount(c.config); i++ {
			in.Tasks = append(in.Tasks, connect.TaskID{Connector: name, Task: i})
		}
	}
	return in
}

func (s *Server) status(name string, c *conn) connect.Status {
	st := connect.Status{Name: name, Type: "source", Connector: connect.ConnectorState{State: c.target, WorkerID: "127.0.0.1:8083"}, Tasks: []connect.TaskState{}}
	if c.target == connect.StateStopped {
		return st
	}
	for i := 0; i < taskCount(c.config); i++ {
		t := connect.TaskState{ID: i, State: c.target, WorkerID: "127.0.0.1:8083"}
		switch {
		case c.target == connect.StatePaused:
		case s.opts.StartDelay > 0 && s.now().Sub(c.started) < s.opts.StartDelay:
			t.State = connect.StateUnassigned
			t.WorkerID = ""
		case c.failTrace != "":
			t.State = connect.StateFailed
			t.Trace = c.failTrace
		}
		st.Tasks = append(st.Tasks, t)
	}
	return st
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	expand := r.URL.Query()["expand"]
	names := make([]string, 0, len(s.conns))
	for n := range s.conns {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(expand) == 0 {
		writeJSON(w, 200, names)
		return
	}
	out := map[string]connect.Expanded{}
	for _, n := range names {
		var e connect.Expanded
		for _, x := range expand {
			switch x {
			case "info":
				in := s.info(n, s.conns[n])
				e.Info = &in
			case "status":
				st := s.status(n, s.conns[n])
				e.Status = &st
			}
		}
		out[n] = e
	}
	writeJSON(w, 200, out)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name         string            `json:"name"`
		Config       map[string]string `json:"config"`
		InitialState string            `json:"initial_state"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeErr(w, 400, "Unrecognized request body: %v", err)
		return
	}
	if body.InitialState != "" && !(connect.ServerInfo{Version: s.opts.Version}).AtLeast(3, 7) {
		writeErr(w, 400, "Unrecognized field \"initial_state\"")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[body.Name]; ok {
		writeErr(w, 409, "Connector %s already exists", body.Name)
		return
	}
	if msg := invalid(body.Config); msg != "" {
		writeErr(w, 400, "%s", msg)
		return
	}
	c := &conn{config: copyMap(body.Config), target: connect.StateRunning}
	if body.InitialState != "" {
		c.target = strings.ToUpper(body.InitialState)
	}
	c.config["name"] = body.Name
	c.offsets = defaultOffsets(c.config)
	c.puts++
	if c.target != connect.StateStopped {
		s.restart(c)
	}
	s.conns[body.Name] = c
	writeJSON(w, 201, s.info(body.Name, c))
}

func invalid(cfg map[string]string) string {
	if cfg["connector.class"] == "" {
		return "Connector config " + fmt.Sprint(len(cfg)) + " keys contains no connector type"
	}
	if v, ok := cfg["connectfake.invalid"]; ok {
		return "Connector configuration is invalid and contains the following 1 error(s):\n" + v + "\nYou can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`"
	}
	return ""
}

func (s *Server) put(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var cfg map[string]string
	if err := json.NewDecoder(r.Body).Decode(&cfg); err != nil {
		writeErr(w, 500, "Cannot deserialize value: %v", err)
		return
	}
	if n, ok := cfg["name"]; ok && n != name {
		writeErr(w, 400, "Connector name configuration (%s) doesn't match connector name in the URL (%s)", n, name)
		return
	}
	if msg := invalid(cfg); msg != "" {
		writeErr(w, 400, "%s", msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, exists := s.conns[name]
	if !exists {
		c = &conn{target: connect.StateRunning}
		s.conns[name] = c
	}
	newCfg := copyMap(cfg)
	newCfg["name"] = name
	same := exists && equalMaps(c.config, newCfg)
	c.config = newCfg
	if !exists {
		c.offsets = defaultOffsets(c.config)
	}
	c.puts++
	c.connectorRestarts++ // "Handling connector-only config update by restarting connector"
	if c.target != connect.StateStopped && !same {
		s.restart(c)
	}
	status := 200
	if !exists {
		status = 201
	}
	writeJSON(w, status, s.info(name, c))
}

func (s *Server) validate(w http.ResponseWriter, r *http.Request) {
	var cfg map[string]string
	if err := json.NewDecoder(r.Body).Decode(&cfg); err != nil {
		writeErr(w, 500, "Cannot deserialize value: %v", err)
		return
	}
	cls := cfg["connector.class"]
	if cls == "" {
		writeErr(w, 400, "Connector config %v contains no connector type", cfg)
		return
	}
	plugin := strings.TrimSuffix(r.PathValue("plugin"), "Connector")
	short := cls[strings.LastIndex(cls, ".")+1:]
	if !strings.HasPrefix(short, plugin) {
		writeErr(w, 400, "Connector type %s does not match plugin %s", cls, r.PathValue("plugin"))
		return
	}
	ci := connect.ConfigInfos{Name: cls, Groups: []string{"Common"}}
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := cfg[k]
		info := connect.ConfigInfo{Definition: connect.ConfigDefinition{Name: k, Type: "STRING"}, Value: connect.ConfigValue{Name: k, Value: &v, Visible: true, Errors: []string{}}}
		if k == "connectfake.invalid" {
			info.Value.Errors = []string{v}
			ci.ErrorCount++
		}
		ci.Configs = append(ci.Configs, info)
	}
	writeJSON(w, 200, ci)
}
