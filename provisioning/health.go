package provisioning

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/redact"
)

// RebalanceDelayHint is doctor's advice for a task that no worker runs (one
// UNASSIGNED, or RUNNING on a worker that does not answer): the task of a
// departed worker waits for the workers' scheduled.rebalance.max.delay.ms
// before the group leader assigns it elsewhere. The figures are the cluster crash suite's (docs/production.md).
const RebalanceDelayHint = "a task of a worker that died stays RUNNING on it in the status and runs nowhere for scheduled.rebalance.max.delay.ms: " +
	"Connect's default 300000 (5 min) kept the Debezium task down 315 s after a kill -9 of its worker; " +
	"set 10000 on every worker: it moved the task in 19-24 s (docs/production.md)"

// ConnectorMissingHint is doctor's advice for a connector that Connect does
// not know (its status answers 404). Right after the workers restarted it
// may not be missing: a worker with exactly.once.source.support=enabled
// reads its internal topics with read_committed before it joins the group,
// and answers 404 for every connector meanwhile; a transaction that a
// killed task left open in the offsets topic holds that read back until the
// transaction coordinator aborts it. The figures are the cluster crash
// suite's (docs/production.md).
const ConnectorMissingHint = "outboxctl deploy; if the Connect workers have just restarted, wait first: exactly-once workers answer 404 until they have read their offsets topic, " +
	"which a transaction left open by a killed task holds back for the workers' producer.transaction.timeout.ms (Kafka's default 60000: 68.6 s measured after both workers were killed; " +
	"30000 on the workers with the brokers' transaction.abort.timed.out.transaction.cleanup.interval.ms=2000: 30.7-31.8 s; docs/production.md)"

// workerAnswers reports whether a Connect worker's REST address
// (worker_id, host:port) accepts a TCP connection within 3 s.
func workerAnswers(ctx context.Context, workerID string) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", workerID)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// ConnectorHealth checks the connector of t on Kafka Connect through the
// project's Connect client (GET /connectors/{name}/status): missing, or
// connector or a task not in the spec's desired state (RUNNING by default),
// is a finding with the first line of the task trace. An unreachable Connect
// is an error.
func ConnectorHealth(ctx context.Context, client *connect.Client, t Target) ([]Finding, error) {
	fs := &findings{outbox: t.Outbox.Name}
	name := t.Connector.Name
	st, err := client.Status(ctx, name)
	if errors.Is(err, connect.ErrNotFound) {
		fs.add(IDConnectorNotFound, SeverityError, "connector "+name, ConnectorMissingHint, "connector is not deployed on %s", redact.URL(client.URL()))
		return fs.list, nil
	}
	if err != nil {
		return nil, fmt.Errorf("connector %s status: %w", name, err)
	}
	want := strings.ToUpper(t.Connector.State)
	if want == "" {
		want = "RUNNING"
	}
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	if st.Connector.State != want {
		fs.add(IDConnectorState, SeverityError, "connector "+name, "outboxctl status / restart", "connector is %s, want %s %s", st.Connector.State, want, firstLine(st.Connector.Trace))
	}
	if want == "RUNNING" && len(st.Tasks) == 0 {
		fs.add(IDConnectorState, SeverityError, "connector "+name, "outboxctl restart", "connector has no tasks")
	}
	for _, tk := range st.Tasks {
		if tk.State != want {
			hint := "outboxctl restart --only-failed"
			if tk.State == "UNASSIGNED" && want == "RUNNING" {
				hint = RebalanceDelayHint
			}
			fs.add(IDConnectorState, SeverityError, fmt.Sprintf("connector %s task %d", name, tk.ID), hint,
				"task is %s, want %s %s", tk.State, want, firstLine(tk.Trace))
		} else if tk.State == "RUNNING" && tk.WorkerID != "" && !workerAnswers(ctx, tk.WorkerID) {
			// A killed worker's tasks stay RUNNING in the status topic
			// (nobody writes their new state) until the group leader
			// reassigns them, scheduled.rebalance.max.delay.ms later.
			fs.add(IDConnectWorkerGone, SeverityWarning, fmt.Sprintf("connector %s task %d", name, tk.ID), RebalanceDelayHint,
				"task is RUNNING on worker %s per the status topic, but that worker does not answer", tk.WorkerID)
		}
	}
	return fs.list, nil
}

// TopicHealth reports the needed topics that do not exist, and the
// partition and schema-history config findings of EnsureTopics (nothing is
// created: it runs as a dry run without the broker-side validation).
func TopicHealth(ctx context.Context, admin TopicAdmin, specs []TopicSpec) ([]Finding, error) {
	existing, err := topicPartitions(admin)
	if err != nil {
		return nil, err
	}
	fs := &findings{}
	var present []TopicSpec
	for _, s := range specs {
		if _, ok := existing[s.Name]; !ok {
			fs.outbox = s.Outbox
			sev := SeverityWarning // Connect may create routed topics (topic.creation.*)
			if s.Purpose == TopicSchemaHistory {
				sev = SeverityInfo // Debezium creates it on first start
			}
			fs.add(IDTopicMissing, sev, "topic "+s.Name, "outboxctl provision --topics", "%s topic does not exist", s.Purpose)
			continue
		}
		present = append(present, s)
	}
	if len(present) > 0 {
		_, more, err := EnsureTopics(ctx, admin, present, true)
		if err != nil {
			return nil, err
		}
		fs.list = append(fs.list, more...)
	}
	return fs.list, nil
}

// Report is the result of Health: every finding, worst first per outbox.
type Report struct {
	Findings []Finding `json:"findings"`
	Failed   bool      `json:"failed"`
	// Errors are checks that could not run (service unreachable), by
	// subject; they make the report fail too.
	Errors []string `json:"errors,omitempty"`
	// Lag is the consumer lag of the groups doctor was asked about.
	Lag []PartitionLag `json:"consumerLag,omitempty"`
}

// HealthInput is what Health checks. A nil function or admin skips its part.
type HealthInput struct {
	Targets []Target
	// Preflight runs the database checks of one target (Inspect + Check).
	Preflight func(ctx context.Context, t Target) ([]Finding, error)
	// Connect is the Kafka Connect client (nil skips the connector checks).
	Connect *connect.Client
	// Admin checks the topics (nil skips them).
	Admin  TopicAdmin
	Topics TopicOptions
	// Lag reads the lag of Groups (nil skips it); MaxConsumerLag makes a
	// partition's lag past it an error (0: info only).
	Lag            LagAdmin
	Groups         []string
	MaxConsumerLag int64
}

// DatabasePreflight is the database part of doctor as a
// HealthInput.Preflight: for each target it opens an admin session (dsns),
// inspects the database (Inspect), runs the preflight rules (Check with
// opts) and, where the outbox table exists, the threshold rules on its
// statistics (InspectTableStats, CheckThresholds with th).
func DatabasePreflight(dsns AdminDSNs, opts Options, th Thresholds) func(context.Context, Target) ([]Finding, error) {
	return func(ctx context.Context, t Target) ([]Finding, error) {
		s, err := openDB(ctx, dsns, t.Outbox)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		f, err := Inspect(ctx, s.DB, t, s.Missing)
		if err != nil {
			return nil, err
		}
		fs := Check(t, f, opts)
		var st *TableStats
		if !s.Missing {
			if st, err = InspectTableStats(ctx, s.DB, t); err != nil {
				return fs, err
			}
		}
		return append(fs, CheckThresholds(t, f, st, th)...), nil
	}
}

// Health summarises the database preflight, the Connect connector status
// and the topics of every target. A part that cannot run is recorded in
// Report.Errors and the others still run.
func Health(ctx context.Context, in HealthInput) Report {
	var r Report
	for _, t := range in.Targets {
		if in.Preflight != nil {
			fs, err := in.Preflight(ctx, t)
			if err != nil {
				r.Errors = append(r.Errors, fmt.Sprintf("database of outbox %s: %v", t.Outbox.Name, err))
			}
			r.Findings = append(r.Findings, fs...)
		}
		if in.Connect != nil {
			fs, err := ConnectorHealth(ctx, in.Connect, t)
			if err != nil {
				r.Errors = append(r.Errors, err.Error())
			}
			r.Findings = append(r.Findings, fs...)
		}
	}
	if in.Admin != nil {
		specs, fs := TopicSpecs(in.Targets, in.Topics)
		r.Findings = append(r.Findings, fs...)
		more, err := TopicHealth(ctx, in.Admin, specs)
		if err != nil {
			r.Errors = append(r.Errors, err.Error())
		}
		r.Findings = append(r.Findings, more...)
	}
	if in.Lag != nil && len(in.Groups) > 0 {
		lags, err := ConsumerLag(ctx, in.Lag, in.Groups)
		if err != nil {
			r.Errors = append(r.Errors, err.Error())
		}
		r.Lag = lags
		r.Findings = append(r.Findings, CheckConsumerLag(lags, in.MaxConsumerLag)...)
	}
	sortFindings(r.Findings)
	r.Failed = Failed(r.Findings) || len(r.Errors) > 0
	return r
}
