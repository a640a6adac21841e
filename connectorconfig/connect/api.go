package connect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Connector and task states as Connect reports them (AbstractStatus.State).
const (
	StateRunning    = "RUNNING"
	StatePaused     = "PAUSED"
	StateStopped    = "STOPPED" // connectors only, Connect 3.5+
	StateFailed     = "FAILED"
	StateUnassigned = "UNASSIGNED"
	StateRestarting = "RESTARTING"
)

// ServerInfo is the answer of GET /.
type ServerInfo struct {
	Version        string `json:"version"`
	Commit         string `json:"commit"`
	KafkaClusterID string `json:"kafka_cluster_id"`
}

// Check reports a server info without a version (the answer of something
// that is not Kafka Connect).
func (s ServerInfo) Check() error {
	if s.Version == "" {
		return errors.New("no version in the answer of GET /")
	}
	return nil
}

// AtLeast reports whether the worker's version is major.minor or newer. An
// unparsable version counts as new (vendor builds such as "7.6.0-ccs" parse).
func (s ServerInfo) AtLeast(major, minor int) bool {
	parts := strings.FieldsFunc(s.Version, func(r rune) bool { return r == '.' || r == '-' })
	if len(parts) < 2 {
		return true
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return true
	}
	return ma > major || (ma == major && mi >= minor)
}

// Capabilities of a worker, derived from its version (see eventrouter.md §6.3).
type Capabilities struct {
	RestartFiltered bool // POST …/restart?includeTasks&onlyFailed (3.0)
	Stop            bool // PUT …/stop, GET …/offsets (3.5)
	AlterOffsets    bool // PATCH/DELETE …/offsets (3.6)
	InitialState    bool // POST /connectors with initial_state (3.7)
	PatchConfig     bool // PATCH …/config (3.8)
}

// Capabilities returns what the worker supports.
func (s ServerInfo) Capabilities() Capabilities {
	return Capabilities{
		RestartFiltered: s.AtLeast(3, 0),
		Stop:            s.AtLeast(3, 5),
		AlterOffsets:    s.AtLeast(3, 6),
		InitialState:    s.AtLeast(3, 7),
		PatchConfig:     s.AtLeast(3, 8),
	}
}

// TaskID identifies a task.
type TaskID struct {
	Connector string `json:"connector"`
	Task      int    `json:"task"`
}

// Info is a connector's ConnectorInfo: name, config, tasks and type.
type Info struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config"`
	Tasks  []TaskID          `json:"tasks"`
	Type   string            `json:"type"`
}

// ConnectorState is the connector part of a status.
type ConnectorState struct {
	State    string `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// TaskState is one task of a status.
type TaskState struct {
	ID       int    `json:"id"`
	State    string `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// Status is GET /connectors/{name}/status.
type Status struct {
	Name      string         `json:"name"`
	Connector ConnectorState `json:"connector"`
	Tasks     []TaskState    `json:"tasks"`
	Type      string         `json:"type"`
}

// Check reports a status without the fields Connect always sends: the
// connector's state, and each task's state.
func (s Status) Check() error {
	if s.Connector.State == "" {
		return fmt.Errorf("status of connector %q has no connector.state", s.Name)
	}
	for i, t := range s.Tasks {
		if t.State == "" {
			return fmt.Errorf("status of connector %q: task #%d has no state", s.Name, i)
		}
	}
	return nil
}

// Check reports a task status without a state.
func (t TaskState) Check() error {
	if t.State == "" {
		return fmt.Errorf("status of task %d has no state", t.ID)
	}
	return nil
}

// Expanded is one entry of GET /connectors?expand=status&expand=info.
type Expanded struct {
	Info   *Info   `json:"info,omitempty"`
	Status *Status `json:"status,omitempty"`
}

// ServerInfo returns the worker's version, commit and Kafka cluster id
// (GET /).
func (c *Client) ServerInfo(ctx context.Context) (ServerInfo, error) {
	var s ServerInfo
	_, err := c.do(ctx, http.MethodGet, "/", nil, nil, &s)
	return s, err
}

// ListConnectors returns the names of all connectors, unsorted.
func (c *Client) ListConnectors(ctx context.Context) ([]string, error) {
	var names nameList
	_, err := c.do(ctx, http.MethodGet, "/connectors", nil, nil, &names)
	return names, err
}

// nameList is the answer of GET /connectors.
type nameList []string

// Check reports a JSON null instead of a list.
func (l nameList) Check() error {
	if l == nil {
		return errors.New("no connector list (null)")
	}
	return nil
}

// ListConnectorsExpanded returns every connector with its info (config) and
// status in one call (GET /connectors?expand=status&expand=info).
func (c *Client) ListConnectorsExpanded(ctx context.Context) (map[string]Expanded, error) {
	out := expandedAnswer{}
	q := url.Values{"expand": {"status", "info"}}
	_, err := c.do(ctx, http.MethodGet, "/connectors", q, nil, &out)
	return out, err
}

// expandedAnswer is the answer of GET /connectors?expand=status&expand=info.
type expandedAnswer map[string]Expanded

// Check reports entries without the info or status asked for, or with a
// status of the wrong shape.
func (a expandedAnswer) Check() error {
	if a == nil {
		return errors.New("no connector map (null)")
	}
	for name, e := range a {
		if e.Info == nil || e.Status == nil {
			return fmt.Errorf("connector %q has no info or status (want expand=status&expand=info)", name)
		}
		if e.Info.Config == nil {
			return fmt.Errorf("connector %q: info has no config", name)
		}
		if err := e.Status.Check(); err != nil {
			return err
		}
	}
	return nil
}

// GetConnector returns a connector's info.
func (c *Client) GetConnector(ctx context.Context, name string) (Info, error) {
	var in Info
	_, err := c.do(ctx, http.MethodGet, connPath(name), nil, nil, &in)
	return in, err
}

// GetConfig returns a connector's stored config. Connect adds the "name" key.
func (c *Client) GetConfig(ctx context.Context, name string) (map[string]string, error) {
	var cfg map[string]string
	_, err := c.do(ctx, http.MethodGet, connPath(name, "config"), nil, nil, &cfg)
	return cfg, err
}

// PutConfig creates the connector or replaces its whole config
// (PUT /connectors/{name}/config). created is true when Connect answered 201.
// Note: Connect restarts the connector and its tasks on every PUT, even one
// with an identical config; callers diff first.
func (c *Client) PutConfig(ctx context.Context, name string, config map[string]string) (created bool, info Info, err error) {
	status, err := c.do(ctx, http.MethodPut, connPath(name, "config"), nil, config, &info)
	return status == http.StatusCreated, info, err
}

// CreateConnector creates a connector with POST /connectors. initialState is
// "" (Connect's default, RUNNING), RUNNING, PAUSED or STOPPED; a non-empty
// state needs Connect 3.7+ (KIP-980), which the caller checks with
// [ServerInfo.Capabilities]. A connector that exists gives ErrConflict
// without retries.
func (c *Client) CreateConnector(ctx context.Context, name string, config map[string]string, initialState string) (Info, error) {
	body := map[string]any{"name": name, "config": config}
	if initialState != "" {
		body["initial_state"] = strings.ToUpper(initialState)
	}
	var info Info
	_, err := c.do(ctx, http.MethodPost, "/connectors", nil, body, &info)
	return info, err
}

// Status returns the state of a connector and its tasks. Right after
// creation Connect may answer 404 (ErrNotFound) for a short while.
func (c *Client) Status(ctx context.Context, name string) (Status, error) {
	var s Status
	_, err := c.do(ctx, http.MethodGet, connPath(name, "status"), nil, nil, &s)
	return s, err
}

// TaskStatus returns the state of one task, with its stack trace when FAILED.
func (c *Client) TaskStatus(ctx context.Context, name string, task int) (TaskState, error) {
	var s TaskState
	_, err := c.do(ctx, http.MethodGet, connPath(name, "tasks", strconv.Itoa(task), "status"), nil, nil, &s)
	return s, err
}

// Pause pauses a connector and its tasks (idempotent).
func (c *Client) Pause(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPut, connPath(name, "pause"), nil, nil, nil)
	return err
}

// Resume resumes a paused or stopped connector (idempotent).
func (c *Client) Resume(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPut, connPath(name, "resume"), nil, nil, nil)
	return err
}

// Stop stops a connector and shuts its tasks down, keeping its config
// (Connect 3.5+, KIP-875). Offsets can be changed only while STOPPED.
func (c *Client) Stop(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodPut, connPath(name, "stop"), nil, nil, nil)
	return err
}

// RestartOptions select what POST …/restart restarts (KIP-745).
type RestartOptions struct {
	IncludeTasks bool // restart the tasks too
	OnlyFailed   bool // only instances that are FAILED
}

// Restart restarts a connector. With IncludeTasks or OnlyFailed Connect
// answers 202 with the status in which the instances being restarted show
// RESTARTING; otherwise 204 and status is nil.
func (c *Client) Restart(ctx context.Context, name string, opts RestartOptions) (*Status, error) {
	q := url.Values{}
	if opts.IncludeTasks {
		q.Set("includeTasks", "true")
	}
	if opts.OnlyFailed {
		q.Set("onlyFailed", "true")
	}
	var s Status
	code, err := c.do(ctx, http.MethodPost, connPath(name, "restart"), q, nil, &s)
	if err != nil || code == http.StatusNoContent {
		return nil, err
	}
	return &s, nil
}

// RestartTask restarts one task.
func (c *Client) RestartTask(ctx context.Context, name string, task int) error {
	_, err := c.do(ctx, http.MethodPost, connPath(name, "tasks", strconv.Itoa(task), "restart"), nil, nil, nil)
	return err
}

// Delete deletes a connector. Its offsets stay in the offsets topic, keyed by
// its name.
func (c *Client) Delete(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, connPath(name), nil, nil, nil)
	return err
}

// ActiveTopics returns the topics the connector has written to since it was
// created or its topics were last reset (GET /connectors/{name}/topics,
// KIP-558, Connect 2.5+).
func (c *Client) ActiveTopics(ctx context.Context, name string) ([]string, error) {
	var out map[string]struct {
		Topics []string `json:"topics"`
	}
	if _, err := c.do(ctx, http.MethodGet, connPath(name, "topics"), nil, nil, &out); err != nil {
		return nil, err
	}
	return out[name].Topics, nil
}

// Offset is one source partition and its offset.
type Offset struct {
	Partition map[string]any `json:"partition"`
	Offset    map[string]any `json:"offset"`
}

// Offsets is the body of GET/PATCH …/offsets.
type Offsets struct {
	Offsets []Offset `json:"offsets"`
}

// Offsets returns a connector's offsets (Connect 3.5+). For Debezium the
// partition is {"server": topic.prefix}.
func (c *Client) Offsets(ctx context.Context, name string) (Offsets, error) {
	var o Offsets
	_, err := c.do(ctx, http.MethodGet, connPath(name, "offsets"), nil, nil, &o)
	return o, err
}

// AlterOffsets changes offsets (PATCH, Connect 3.6+). The connector must be
// STOPPED, else ErrBadRequest. It returns Connect's message.
func (c *Client) AlterOffsets(ctx context.Context, name string, o Offsets) (string, error) {
	var m struct {
		Message string `json:"message"`
	}
	_, err := c.do(ctx, http.MethodPatch, connPath(name, "offsets"), nil, o, &m)
	return m.Message, err
}

// ResetOffsets deletes a connector's offsets (DELETE, Connect 3.6+). The
// connector must be STOPPED, else ErrBadRequest. It returns Connect's message.
func (c *Client) ResetOffsets(ctx context.Context, name string) (string, error) {
	var m struct {
		Message string `json:"message"`
	}
	_, err := c.do(ctx, http.MethodDelete, connPath(name, "offsets"), nil, nil, &m)
	return m.Message, err
}

// Plugin is one entry of GET /connector-plugins.
type Plugin struct {
	Class   string `json:"class"`
	Type    string `json:"type"`
	Version string `json:"version"`
}

// ConnectorPlugins lists the installed connector plugins.
func (c *Client) ConnectorPlugins(ctx context.Context) ([]Plugin, error) {
	var p []Plugin
	_, err := c.do(ctx, http.MethodGet, "/connector-plugins", nil, nil, &p)
	return p, err
}

// ConfigValue is the value part of one validated key.
type ConfigValue struct {
	Name              string   `json:"name"`
	Value             *string  `json:"value"`
	RecommendedValues []string `json:"recommended_values"`
	Errors            []string `json:"errors"`
	Visible           bool     `json:"visible"`
}

// ConfigDefinition is the definition part of one validated key.
type ConfigDefinition struct {
	Name          string  `json:"name"`
	Type          string  `json:"type"`
	Required      bool    `json:"required"`
	DefaultValue  *string `json:"default_value"`
	Importance    string  `json:"importance"`
	Documentation string  `json:"documentation"`
	Group         string  `json:"group"`
}

// ConfigInfo is one key of a validation answer.
type ConfigInfo struct {
	Definition ConfigDefinition `json:"definition"`
	Value      ConfigValue      `json:"value"`
}

// ConfigInfos is the answer of the validate endpoint.
type ConfigInfos struct {
	Name       string       `json:"name"`
	ErrorCount int          `json:"error_count"`
	Groups     []string     `json:"groups"`
	Configs    []ConfigInfo `json:"configs"`
}

// Check reports a validation answer of the wrong shape: no name, no
// configs list, a key without its name, or an error_count that the keys'
// errors do not account for (it would hide findings).
func (ci ConfigInfos) Check() error {
	if ci.Name == "" {
		return errors.New("validation answer has no name")
	}
	if ci.Configs == nil {
		return errors.New("validation answer has no configs")
	}
	n := 0
	for i, c := range ci.Configs {
		if c.Value.Name == "" && c.Definition.Name == "" {
			return fmt.Errorf("validation answer: config #%d has no name", i)
		}
		n += len(c.Value.Errors)
	}
	if ci.ErrorCount < 0 || (ci.ErrorCount > 0 && n == 0) {
		return fmt.Errorf("validation answer has error_count %d but no key has errors", ci.ErrorCount)
	}
	return nil
}

// Errors returns key → messages for every key with errors.
func (ci ConfigInfos) Errors() map[string][]string {
	out := map[string][]string{}
	for _, c := range ci.Configs {
		if len(c.Value.Errors) > 0 {
			out[c.Value.Name] = append(out[c.Value.Name], c.Value.Errors...)
		}
	}
	return out
}

// ValidateConfig validates config with the plugin class (PUT
// /connector-plugins/{class}/config/validate). Connect answers 200 even for
// an invalid config: look at ErrorCount. config must contain connector.class.
func (c *Client) ValidateConfig(ctx context.Context, class string, config map[string]string) (ConfigInfos, error) {
	if config["connector.class"] == "" {
		return ConfigInfos{}, fmt.Errorf("validate: config has no connector.class")
	}
	short := class
	if i := strings.LastIndex(short, "."); i >= 0 {
		short = short[i+1:]
	}
	var ci ConfigInfos
	_, err := c.do(ctx, http.MethodPut, "/connector-plugins/"+url.PathEscape(short)+"/config/validate", nil, config, &ci)
	return ci, err
}
