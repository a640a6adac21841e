package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
)

// ErrBlocked is returned by Apply when the plan has findings that are not
// allowed. Nothing was written.
var ErrBlocked = errors.New("plan has blocked dangerous changes")

// BlockedError lists the findings that block a plan; it unwraps to ErrBlocked.
type BlockedError struct{ Findings []Finding }

func (e *BlockedError) Error() string {
	ids := map[string]bool{}
	var list []string
	for _, f := range e.Findings {
		if !ids[f.Rule] {
			ids[f.Rule] = true
			list = append(list, f.Rule)
		}
	}
	for _, f := range e.Findings {
		if f.Rule == RulePruneAll || f.Rule == RulePruneLimit {
			return fmt.Sprintf("%d delete(s) blocked (%s): nothing was applied; %s", len(e.Findings), f.Rule, f.Message)
		}
	}
	return fmt.Sprintf("%d dangerous change(s) blocked (%s): nothing was applied; review the plan and allow each rule with --allow RULE_ID", len(e.Findings), strings.Join(list, ", "))
}

func (e *BlockedError) Unwrap() error { return ErrBlocked }

// ApplyOptions configure Apply.
type ApplyOptions struct {
	// Timeout bounds the wait for convergence of all connectors (default 2m).
	Timeout time.Duration
	// PollInterval is the status polling interval (default 1s).
	PollInterval time.Duration
	// Settle is how long after a write a FAILED status is not believed yet
	// (it may be the state before the restart), default 3s; it is also the
	// minimum time a written connector must be seen converged.
	Settle time.Duration
	// RestartFailed restarts the FAILED connector and tasks of connectors
	// that get no config write (POST …/restart?includeTasks&onlyFailed).
	RestartFailed bool
	// NoWait skips waiting: the report says "not checked".
	NoWait bool
	// Progress receives one line per event (writes, state transitions);
	// nil discards.
	Progress io.Writer
	// Server is the worker's version info; Apply fetches it when empty.
	Server *connect.ServerInfo
}

// Result is the outcome for one connector.
type Result struct {
	Name   string `json:"name"`
	Action Action `json:"action"`
	// Written lists the write requests made ("PUT config", "POST create
	// (initial_state=PAUSED)", "pause", "resume", "stop", "delete").
	Written []string `json:"written"`
	// WriteFailed is true when Connect refused a write (Reason says why).
	WriteFailed bool `json:"write_failed,omitempty"`
	// Converged is true when the connector reached its declared state with
	// every task (or, for a delete, is gone).
	Converged bool `json:"converged"`
	// Wanted is the declared state: running, paused, stopped or deleted.
	Wanted string `json:"wanted"`
	// State is the last observed connector state and task states.
	State string              `json:"state,omitempty"`
	Tasks []connect.TaskState `json:"tasks,omitempty"`
	// Reason says why the connector did not converge.
	Reason string `json:"reason,omitempty"`
	// Trace is the first failed task's (or connector's) stack trace.
	Trace string `json:"trace,omitempty"`
	// Elapsed is the time until convergence (or the end of the wait).
	Elapsed time.Duration `json:"elapsed_ns"`
	// Interrupted is set when Apply's context was cancelled (the CLI: on
	// SIGINT or SIGTERM) before this connector was done: "in flight" (its
	// request was abandoned; Connect may or may not have applied it) or
	// "not written".
	Interrupted string `json:"interrupted,omitempty"`
}

// Interrupted values of a Result.
const (
	InterruptedInFlight   = "in flight"
	InterruptedNotWritten = "not written"
)

// ErrInterrupted: Apply's context was cancelled (the CLI: SIGINT or
// SIGTERM); the Report says what was written and what was not.
var ErrInterrupted = errors.New("deploy interrupted")

// Report is the outcome of Apply.
type Report struct {
	Server  connect.ServerInfo `json:"server"`
	Results []Result           `json:"results"`
	// Interrupted: the context was cancelled before Apply was done.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Written counts the connectors with at least one write made.
func (r Report) Written() int {
	n := 0
	for _, res := range r.Results {
		if len(res.Written) > 0 {
			n++
		}
	}
	return n
}

// Converged reports whether every connector converged.
func (r Report) Converged() bool {
	for _, res := range r.Results {
		if !res.Converged {
			return false
		}
	}
	return true
}

// Failed returns the results that did not converge.
func (r Report) Failed() []Result {
	var out []Result
	for _, res := range r.Results {
		if !res.Converged {
			out = append(out, res)
		}
	}
	return out
}

// notChecked is the State of a result when Apply did not wait.
const notChecked = "not checked"

// Apply executes the plan: for each change it writes only what is needed,
// then waits until every connector reaches its declared state. A blocked plan
// returns a *BlockedError before any write. A failed write stops neither the
// other connectors nor the wait: its result says why. The returned error is
// non-nil only when nothing could be done (blocked plan, worker unreachable).
func Apply(ctx context.Context, c *connect.Client, p Plan, opts ApplyOptions) (Report, error) {
	if opts.Progress != nil {
		opts.Progress = &maskingWriter{w: opts.Progress, p: p}
	}
	rep, err := apply(ctx, c, p, opts)
	maskResults(&rep, p)
	return rep, err
}

// maskingWriter masks secret values of the plan's desired configs in
// progress lines.
type maskingWriter struct {
	w io.Writer
	p Plan
}

func (m *maskingWriter) Write(b []byte) (int, error) {
	s := string(b)
	for _, ch := range m.p.Changes {
		if ch.Desired != nil {
			s = MaskSecrets(s, ch.Desired.Config, ch.Desired.Sensitive)
		}
	}
	if _, err := io.WriteString(m.w, s); err != nil {
		return 0, err
	}
	return len(b), nil
}

func apply(ctx context.Context, c *connect.Client, p Plan, opts ApplyOptions) (Report, error) {
	if b := p.Blocked(); len(b) > 0 {
		return Report{}, &BlockedError{Findings: b}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.Settle <= 0 {
		opts.Settle = 3 * time.Second
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	var server connect.ServerInfo
	if opts.Server != nil {
		server = *opts.Server
	} else {
		s, err := c.ServerInfo(ctx)
		if err != nil {
			return Report{}, fmt.Errorf("read kafka connect version: %w", err)
		}
		server = s
	}
	caps := server.Capabilities()
	rep := Report{Server: server}
	start := time.Now()
	wrote := map[string]time.Time{}

	// interrupted lists the changes from i on as not done, the one in
	// flight first, and ends Apply with ErrInterrupted.
	interrupted := func(i int, inFlight *Result) (Report, error) {
		rep.Interrupted = true
		for j := range rep.Results {
			if r := &rep.Results[j]; r.Reason == "" && len(r.Written) > 0 {
				r.Reason = "written; not waited for (interrupted)"
			}
		}
		if inFlight != nil {
			inFlight.Interrupted = InterruptedInFlight
			inFlight.Reason = "interrupted: the request in flight was abandoned (Connect may or may not have applied it)"
			rep.Results = append(rep.Results, *inFlight)
			fmt.Fprintf(progress, "%s: %s\n", inFlight.Name, inFlight.Reason)
			i++
		}
		for _, ch := range p.Changes[i:] {
			res := Result{Name: ch.Name, Action: ch.Action, Written: []string{}, Wanted: wanted(ch), Interrupted: InterruptedNotWritten}
			if ch.Action == NoOp {
				res.Interrupted, res.Reason = "", "no change to write; not checked (interrupted)"
			}
			rep.Results = append(rep.Results, res)
		}
		return rep, fmt.Errorf("%w: %d of %d connector(s) written, the rest not", ErrInterrupted, rep.Written(), len(rep.Results))
	}
	for i, ch := range p.Changes {
		if ctx.Err() != nil {
			return interrupted(i, nil)
		}
		res := Result{Name: ch.Name, Action: ch.Action, Written: []string{}, Wanted: wanted(ch)}
		err := applyOne(ctx, c, ch, caps, &res, progress)
		if err != nil && ctx.Err() != nil {
			return interrupted(i, &res)
		}
		if err == nil && opts.RestartFailed && len(ch.Failed) > 0 && !ch.ConfigChanged && ch.Action != Delete {
			if _, rerr := c.Restart(ctx, ch.Name, connect.RestartOptions{IncludeTasks: true, OnlyFailed: true}); rerr != nil {
				err = fmt.Errorf("restart failed instances: %w", rerr)
			} else {
				res.Written = append(res.Written, "restarted "+strings.Join(ch.Failed, ", "))
				fmt.Fprintf(progress, "%s: restarted %s\n", ch.Name, strings.Join(ch.Failed, ", "))
			}
		}
		if err != nil {
			res.Reason, res.WriteFailed = err.Error(), true
			fmt.Fprintf(progress, "%s: %s\n", ch.Name, err)
			// Connect unreachable or hanging: the next writes would fare
			// no better (each waiting the request timeout).
			var u *connect.UnreachableError
			if errors.As(err, &u) || errors.Is(err, connect.ErrTimeout) {
				rep.Results = append(rep.Results, res)
				return rep, err
			}
		} else if len(res.Written) > 0 {
			wrote[ch.Name] = time.Now()
		}
		if ch.Action == Delete && err == nil {
			res.Converged = true
		}
		rep.Results = append(rep.Results, res)
	}
	if opts.NoWait {
		for i := range rep.Results {
			if rep.Results[i].Reason == "" && rep.Results[i].Wanted != "deleted" {
				rep.Results[i].Converged = true
				rep.Results[i].State = notChecked
			}
		}
		return rep, nil
	}
	err := wait(ctx, c, &rep, wrote, start, opts, progress)
	sort.SliceStable(rep.Results, func(i, j int) bool { return rep.Results[i].Name < rep.Results[j].Name })
	if ctx.Err() != nil {
		// Every write was made; the wait for the states was cut short.
		rep.Interrupted = true
		return rep, fmt.Errorf("%w while waiting for the connectors to converge: every write was made", ErrInterrupted)
	}
	return rep, err
}

// wanted is the declared state of a change: running, paused, stopped or
// deleted.
func wanted(ch Change) string {
	if ch.Action == Delete {
		return "deleted"
	}
	if ch.Desired != nil {
		return normState(ch.Desired.State)
	}
	return ""
}

func applyOne(ctx context.Context, c *connect.Client, ch Change, caps connect.Capabilities, res *Result, progress io.Writer) error {
	name := ch.Name
	did := func(what string) {
		res.Written = append(res.Written, what)
		fmt.Fprintf(progress, "%s: %s\n", name, what)
	}
	switch ch.Action {
	case NoOp:
		return nil
	case Delete:
		if err := c.Delete(ctx, name); err != nil && !errors.Is(err, connect.ErrNotFound) {
			return fmt.Errorf("delete: %w", err)
		}
		did("deleted")
		return nil
	case Replace:
		if err := c.Delete(ctx, name); err != nil && !errors.Is(err, connect.ErrNotFound) {
			return fmt.Errorf("replace: delete: %w", err)
		}
		did("deleted (replace)")
		return create(ctx, c, ch, caps, did)
	case Create:
		return create(ctx, c, ch, caps, did)
	}
	// Update: leave running before the config write (so new tasks do not
	// start only to be paused), enter running after it.
	want := normState(ch.Desired.State)
	if ch.State != nil && want != "running" {
		if err := setState(ctx, c, name, want, caps); err != nil {
			return err
		}
		did(want)
	}
	if ch.ConfigChanged {
		if _, _, err := c.PutConfig(ctx, name, ch.Desired.Config); err != nil {
			return fmt.Errorf("update config: %w", err)
		}
		did("config updated (PUT)")
	}
	if ch.State != nil && want == "running" {
		if err := c.Resume(ctx, name); err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		did("resumed")
	}
	return nil
}

func create(ctx context.Context, c *connect.Client, ch Change, caps connect.Capabilities, did func(string)) error {
	want := normState(ch.Desired.State)
	if want != "running" && caps.InitialState {
		if _, err := c.CreateConnector(ctx, ch.Name, ch.Desired.Config, want); err != nil {
			return fmt.Errorf("create: %w", err)
		}
		did("created (initial_state=" + strings.ToUpper(want) + ")")
		return nil
	}
	if _, _, err := c.PutConfig(ctx, ch.Name, ch.Desired.Config); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	did("created (PUT)")
	if want != "running" {
		// Connect < 3.7 has no initial_state: the connector starts, then
		// is paused or stopped.
		if err := setState(ctx, c, ch.Name, want, caps); err != nil {
			return err
		}
		did(want + " (connect < 3.7: created running first)")
	}
	return nil
}

func setState(ctx context.Context, c *connect.Client, name, state string, caps connect.Capabilities) error {
	switch state {
	case "paused":
		if err := c.Pause(ctx, name); err != nil {
			return fmt.Errorf("pause: %w", err)
		}
	case "stopped":
		if !caps.Stop {
			return fmt.Errorf("stop: %w (needs Kafka Connect 3.5+)", connect.ErrUnsupported)
		}
		if err := c.Stop(ctx, name); err != nil {
			return fmt.Errorf("stop: %w", err)
		}
	case "running":
		if err := c.Resume(ctx, name); err != nil {
			return fmt.Errorf("resume: %w", err)
		}
	default:
		return fmt.Errorf("unknown state %q (want running, paused or stopped)", state)
	}
	return nil
}

// describe renders a status as "connector RUNNING, tasks 0:RUNNING 1:FAILED".
func describe(s *connect.Status) string {
	if s == nil {
		return "no status yet"
	}
	var b strings.Builder
	b.WriteString("connector " + s.Connector.State)
	if len(s.Tasks) == 0 {
		b.WriteString(", no tasks")
	} else {
		b.WriteString(", tasks")
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, " %d:%s", t.ID, t.State)
		}
	}
	return b.String()
}

type verdict int

const (
	pending verdict = iota
	done
	failed
)

func judge(want string, s *connect.Status) (verdict, string) {
	if s == nil {
		return pending, "no status yet"
	}
	if s.Connector.State == connect.StateFailed {
		return failed, "connector FAILED"
	}
	for _, t := range s.Tasks {
		if t.State == connect.StateFailed {
			return failed, fmt.Sprintf("task %d FAILED", t.ID)
		}
	}
	switch want {
	case "stopped":
		if s.Connector.State == connect.StateStopped {
			return done, ""
		}
	case "paused":
		if s.Connector.State == connect.StatePaused && allTasks(s, connect.StatePaused) {
			return done, ""
		}
	default:
		if s.Connector.State == connect.StateRunning && len(s.Tasks) > 0 && allTasks(s, connect.StateRunning) {
			return done, ""
		}
		if s.Connector.State == connect.StateRunning && len(s.Tasks) == 0 {
			return pending, "connector RUNNING but no task assigned yet"
		}
	}
	return pending, describe(s)
}

func allTasks(s *connect.Status, state string) bool {
	for _, t := range s.Tasks {
		if t.State != state {
			return false
		}
	}
	return true
}

func trace(s *connect.Status) string {
	if s == nil {
		return ""
	}
	for _, t := range s.Tasks {
		if t.State == connect.StateFailed && t.Trace != "" {
			return t.Trace
		}
	}
	return s.Connector.Trace
}

// wait polls the statuses of all connectors until each pending one
// converged, failed, or the timeout passed.
func wait(ctx context.Context, c *connect.Client, rep *Report, wrote map[string]time.Time, start time.Time, opts ApplyOptions, progress io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	type track struct {
		idx       int
		last      string
		seenOK    int
		seenFail  int
		firstSeen time.Time
	}
	var open []*track
	for i, r := range rep.Results {
		if r.Wanted == "deleted" || r.Reason != "" {
			continue
		}
		open = append(open, &track{idx: i})
	}
	for len(open) > 0 {
		all, err := c.ListConnectorsExpanded(ctx)
		if err != nil && ctx.Err() == nil {
			var u *connect.UnreachableError
			if errors.As(err, &u) {
				return err
			}
		}
		now := time.Now()
		var still []*track
		if err != nil {
			still = open // keep the last known states; the timeout below reports them
			if errors.Is(err, connect.ErrTimeout) {
				for _, t := range open {
					rep.Results[t.idx].Reason = "status request: " + err.Error()
				}
			}
		}
		for _, t := range open {
			if err != nil {
				break
			}
			r := &rep.Results[t.idx]
			var s *connect.Status
			if e, ok := all[r.Name]; ok {
				s = e.Status
			}
			v, why := judge(r.Wanted, s)
			if s != nil {
				r.State, r.Tasks = s.Connector.State, s.Tasks
			}
			fresh := false
			if w, ok := wrote[r.Name]; ok && now.Sub(w) < opts.Settle {
				fresh = true
			}
			switch v {
			case done:
				t.seenOK++
				t.seenFail = 0
				if !fresh || t.seenOK >= 3 {
					r.Converged, r.Reason, r.Elapsed = true, "", now.Sub(start)
					fmt.Fprintf(progress, "%s: %s (%s) after %s\n", r.Name, strings.ToUpper(r.Wanted), describe(s), r.Elapsed.Round(100*time.Millisecond))
					continue
				}
			case failed:
				t.seenOK = 0
				t.seenFail++
				if !fresh && t.seenFail >= 2 {
					r.Reason, r.Trace, r.Elapsed = why, trace(s), now.Sub(start)
					fmt.Fprintf(progress, "%s: %s (%s)\n", r.Name, why, describe(s))
					continue
				}
			default:
				t.seenOK, t.seenFail = 0, 0
			}
			if why != t.last && why != "" {
				fmt.Fprintf(progress, "%s: waiting for %s: %s\n", r.Name, strings.ToUpper(r.Wanted), why)
				t.last = why
			}
			r.Reason = why
			still = append(still, t)
		}
		open = still
		if len(open) == 0 {
			break
		}
		select {
		case <-ctx.Done():
			for _, t := range open {
				r := &rep.Results[t.idx]
				r.Elapsed = time.Since(start)
				r.Reason = fmt.Sprintf("timed out after %s waiting for %s (%s)", opts.Timeout, strings.ToUpper(r.Wanted), r.Reason)
				if r.Trace == "" {
					r.Trace = trace(statusOf(r))
				}
				fmt.Fprintf(progress, "%s: %s\n", r.Name, r.Reason)
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil
			}
			return ctx.Err()
		case <-time.After(opts.PollInterval):
		}
	}
	return nil
}

// maskResults removes secret values of the desired configs from reasons and
// traces.
func maskResults(rep *Report, p Plan) {
	cfg := map[string]Change{}
	for _, ch := range p.Changes {
		cfg[ch.Name] = ch
	}
	for i := range rep.Results {
		ch, ok := cfg[rep.Results[i].Name]
		if !ok || ch.Desired == nil {
			continue
		}
		r := &rep.Results[i]
		r.Reason = MaskSecrets(r.Reason, ch.Desired.Config, ch.Desired.Sensitive)
		r.Trace = MaskSecrets(r.Trace, ch.Desired.Config, ch.Desired.Sensitive)
		for j := range r.Tasks {
			r.Tasks[j].Trace = MaskSecrets(r.Tasks[j].Trace, ch.Desired.Config, ch.Desired.Sensitive)
		}
	}
}

func statusOf(r *Result) *connect.Status {
	if r.State == "" {
		return nil
	}
	return &connect.Status{Connector: connect.ConnectorState{State: r.State}, Tasks: r.Tasks}
}
