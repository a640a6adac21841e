// Package verify is the deploy smoke test of an outbox: Run writes one
// canary event (type consumer.CanaryEventType) through the outbox writer in
// a transaction, waits for it on the topic the EventRouter routes it to,
// with the key and headers the eventrouter package computes from the
// generated connector config, decodes it with the consumer SDK (whose
// Router skips and counts canaries), and deletes the canary row where the
// outbox keeps rows. Each stage is timed; the first that fails is named in
// the Report and in the error (a *StageError).
//
// Stages, in order: StageConnector (the connector and its tasks RUNNING on
// Kafka Connect, checked before anything is written; for a relay-published
// outbox StageRelay, which can only be told by the record arriving: the
// relay must be running), StageDatabase (the write transaction),
// StageCapture (connector outboxes: from the commit to the record's
// timestamp on the topic, the time the connector took to capture and
// produce it), StageTopic (the record read back from its topic, as
// expected, from the commit) and StageDecode; then StageOffsetFlush
// (PostgreSQL connector outboxes, informational: the slot confirmed the
// canary's commit, which waits for Connect's offset flush,
// offset.flush.interval.ms; it never fails the run).
//
// A stage the verifier could not check because its own connection failed
// (Kafka Connect did not answer, Kafka or the database cannot be reached)
// or because ctx was cancelled (SIGINT, SIGTERM) is an *OperationalError
// (ErrOperational; ErrInterrupted when cancelled), not a failed stage. The
// canary row is deleted whenever Run returns after writing it, interrupted
// included (where the outbox keeps rows).
package verify

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/spec"
)

// Stage names.
const (
	StageConnector = "connector"
	StageRelay     = "relay"
	StageDatabase  = "database write"
	StageCapture   = "capture"
	StageTopic     = "topic"
	StageDecode    = "decode"
	// StageOffsetFlush is informational: the time until the slot confirmed
	// the canary's commit (Connect's offset flush), not a latency of the
	// event. It is "ok" or "skipped", never failed.
	StageOffsetFlush = "offset flush"
)

// ErrFailed: a stage of the canary failed; errors.As a *StageError for
// which.
var ErrFailed = errors.New("verify failed")

// ErrUnreachable: Kafka Connect (Options.ConnectorState's error) or Kafka
// did not answer, so the stage could not be checked: an operational
// error, not a failed stage. The *StageError names the stage.
var ErrUnreachable = errors.New("verify could not reach a server")

// StageError is a failed stage, or (Unreachable) a stage whose server did
// not answer.
type StageError struct {
	Stage       string
	Err         error
	Unreachable bool
}

func (e *StageError) Error() string {
	if e.Unreachable {
		return fmt.Sprintf("verify: %s stage not checked: %v", e.Stage, e.Err)
	}
	return fmt.Sprintf("verify: %s stage failed: %v", e.Stage, e.Err)
}

// Unwrap returns ErrFailed (ErrUnreachable when Unreachable) and the cause.
func (e *StageError) Unwrap() []error {
	if e.Unreachable {
		return []error{ErrUnreachable, e.Err}
	}
	return []error{ErrFailed, e.Err}
}

// ErrOperational: the verifier could not do its own part (reach Kafka
// Connect, Kafka or the database, or it was interrupted), so the stage
// says nothing about the pipeline; errors.As an *OperationalError for the
// stage. It never wraps ErrFailed.
var ErrOperational = errors.New("verify could not run")

// ErrInterrupted: Run's context was cancelled (SIGINT, SIGTERM) before it
// ended; the canary row was deleted. It comes wrapped in an
// *OperationalError.
var ErrInterrupted = errors.New("verify interrupted")

// OperationalError is a stage the verifier could not check.
type OperationalError struct {
	Stage string
	Err   error
}

func (e *OperationalError) Error() string {
	return fmt.Sprintf("verify: %s stage not verified: %v", e.Stage, e.Err)
}

// Unwrap returns ErrOperational and the cause.
func (e *OperationalError) Unwrap() []error { return []error{ErrOperational, e.Err} }

// errConnect marks the verifier's own database connection failing.
var errConnect = errors.New("cannot connect to the database")

// errTopicMissing: the routed topic does not exist (a pipeline failure).
var errTopicMissing = errors.New("topic does not exist")

// DefaultTimeout bounds a whole Run.
const DefaultTimeout = 60 * time.Second

// Options say what Run verifies.
type Options struct {
	Outbox *spec.Outbox
	// Config is the outbox's generated connector config: the expected
	// record is computed from it.
	Config map[string]string
	// DB is the outbox's database (the application's side of the writer).
	DB *sql.DB
	// Kafka is the connection to Kafka as this process reaches it (bootstrap
	// servers, security, further properties), like every other client of
	// the module takes it.
	Kafka kafkaclient.Config
	// BootstrapServers and KafkaConfig are used when Kafka.BootstrapServers
	// is empty: the consumer's config is KafkaConfig with bootstrap.servers
	// set to BootstrapServers.
	//
	// Deprecated: set Kafka.
	BootstrapServers string
	// Deprecated: set Kafka (its Security and Properties).
	KafkaConfig kafka.ConfigMap
	// ConnectorState returns "" when the connector and all its tasks are
	// RUNNING, else what is not (ignored for relay outboxes).
	ConnectorState func(ctx context.Context) (string, error)
	// Timeout bounds the run (default DefaultTimeout).
	Timeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logf receives librdkafka's log lines of the consumer (nil: dropped;
	// never librdkafka's own lines on stderr).
	Logf func(format string, args ...any)
}

// StageResult is one stage of a Report.
type StageResult struct {
	Stage string `json:"stage"`
	// Status is ok, failed, error (the verifier could not check it: its
	// own connection failed or its server did not answer — Run's error is
	// an *OperationalError, unwrapping to ErrUnreachable too when a server
	// did not answer — or it was interrupted) or skipped (not reached, or
	// not applicable).
	Status    string  `json:"status"`
	LatencyMs float64 `json:"latencyMs"`
	Message   string  `json:"message,omitempty"`
}

// Report is what Run found.
type Report struct {
	Outbox  string        `json:"outbox"`
	EventID string        `json:"eventId"`
	Topic   string        `json:"topic"`
	Key     string        `json:"key"`
	OK      bool          `json:"ok"`
	Failed  string        `json:"failedStage,omitempty"`
	Stages  []StageResult `json:"stages"`
	Cleaned bool          `json:"cleanedUp"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run verifies the outbox end to end (see the package doc). The report is
// returned also on failure; the error is a *StageError then.
func Run(ctx context.Context, opts Options) (rep Report, err error) {
	o := opts.Outbox
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	r := newRun(parent, opts, &rep)

	id, ev, want, err := r.canary()
	if err != nil {
		return rep, err
	}
	// The connector first: nothing is written for a stopped pipeline.
	if err := r.connectorStage(ctx); err != nil {
		return rep, err
	}

	reader, err := newReader(ctx, opts, want.Topic)
	if errors.Is(err, errTopicMissing) {
		return rep, r.fail(StageTopic, 0, err)
	}
	if err != nil { // the verifier's own Kafka connection
		return rep, r.opFail(StageTopic, 0, err)
	}
	defer reader.Close()

	w, err := outbox.NewWriter(outbox.TableFor(o), outbox.AllowUndeclaredEvents())
	if err != nil {
		return rep, err
	}
	start := time.Now()
	lsn, wrote, err := write(ctx, opts.DB, w, o, ev)
	committed := time.Now()
	if wrote { // the row exists from here on, whatever happens next (an interrupt included)
		defer r.cleanUp(id)
	}
	if errors.Is(err, errConnect) || (err != nil && parent.Err() != nil) {
		return rep, r.opFail(StageDatabase, committed.Sub(start), err)
	}
	if err != nil {
		return rep, r.fail(StageDatabase, committed.Sub(start), err)
	}
	r.set(StageDatabase, "ok", committed.Sub(start), "canary committed")

	// Capture (PostgreSQL) is watched while waiting for the record.
	captured := make(chan time.Duration, 1)
	if o.Database.Kind == spec.Postgres && !r.relay && opts.Config["slot.name"] != "" {
		go watchSlot(ctx, opts.DB, opts.Config["slot.name"], lsn, committed, captured)
	}
	m, err := r.topicStage(ctx, reader, want, id, lsn, committed)
	if err != nil {
		return rep, err
	}
	r.captureStage(committed, m)
	start = time.Now()
	if err := decode(o, m, id); err != nil {
		return rep, r.fail(StageDecode, time.Since(start), err)
	}
	r.set(StageDecode, "ok", time.Since(start), "decoded by the consumer Router and skipped as a canary")
	r.offsetFlushStage(ctx, lsn, captured)
	rep.OK = true
	return rep, nil
}

// run is one Run: its options and the report it fills, stage by stage.
type run struct {
	opts   Options
	o      *spec.Outbox
	parent context.Context // Run's context: its end is an interrupt
	relay  bool            // the relay publishes the outbox
	rep    *Report
}

// newRun starts rep with every stage skipped.
func newRun(parent context.Context, opts Options, rep *Report) *run {
	r := &run{opts: opts, o: opts.Outbox, parent: parent, relay: opts.Outbox.RelayPublished(), rep: rep}
	first := StageConnector
	if r.relay {
		first = StageRelay
	}
	*rep = Report{Outbox: r.o.Name}
	for _, s := range []string{first, StageDatabase, StageCapture, StageTopic, StageDecode, StageOffsetFlush} {
		rep.Stages = append(rep.Stages, StageResult{Stage: s, Status: "skipped"})
	}
	return r
}

func (r *run) set(stage, status string, d time.Duration, msg string) {
	for i := range r.rep.Stages {
		if r.rep.Stages[i].Stage == stage {
			r.rep.Stages[i] = StageResult{Stage: stage, Status: status, LatencyMs: ms(d), Message: msg}
		}
	}
}

// fail ends the run at stage: failed, or an error when a server did not
// answer (ErrUnreachable).
func (r *run) fail(stage string, d time.Duration, cause error) error {
	if errors.Is(cause, ErrUnreachable) {
		r.set(stage, "error", d, cause.Error())
		return &StageError{Stage: stage, Err: cause, Unreachable: true}
	}
	r.set(stage, "failed", d, cause.Error())
	r.rep.Failed = stage
	return &StageError{Stage: stage, Err: cause}
}

// opFail: the verifier's own connection failed, or it was interrupted
// (parent cancelled): exit 1, not a failed stage.
func (r *run) opFail(stage string, d time.Duration, cause error) error {
	if r.parent.Err() != nil {
		cause = fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(r.parent))
	}
	r.set(stage, "error", d, cause.Error())
	r.rep.Failed = stage
	return &OperationalError{Stage: stage, Err: cause}
}

// canary makes the canary event and the record it must become.
func (r *run) canary() (string, outbox.Event, *eventrouter.Record, error) {
	id, err := outbox.NewUUIDv7()
	if err != nil {
		return "", outbox.Event{}, nil, err
	}
	ev := canaryEvent(r.o, id, r.opts.Now())
	r.rep.EventID, r.rep.Key = id, ev.AggregateID
	want, err := expected(r.o, r.opts.Config, ev)
	if err != nil {
		return "", outbox.Event{}, nil, fmt.Errorf("verify: expected record: %w", err)
	}
	r.rep.Topic = want.Topic
	return id, ev, want, nil
}

// connectorStage checks that the connector and its tasks run (connector
// outboxes with Options.ConnectorState).
func (r *run) connectorStage(ctx context.Context) error {
	if r.relay || r.opts.ConnectorState == nil {
		return nil
	}
	start := time.Now()
	state, err := r.opts.ConnectorState(ctx)
	if err != nil { // Kafka Connect did not answer: nothing known about the connector
		return r.opFail(StageConnector, time.Since(start), fmt.Errorf("%w: %w", ErrUnreachable, err))
	}
	if state != "" {
		return r.fail(StageConnector, time.Since(start), errors.New(state))
	}
	r.set(StageConnector, "ok", time.Since(start), "connector and tasks RUNNING")
	return nil
}

// cleanUp deletes the canary row, unless the writer's transaction or the
// relay removed it.
func (r *run) cleanUp(id string) {
	if !r.o.DeletesAfterInsert() && (!r.relay || r.rep.Failed != "") {
		r.rep.Cleaned = deleteRow(r.opts.DB, r.o, id) == nil
	} else {
		r.rep.Cleaned = true // the writer's transaction or the relay removed it
	}
}

// topicStage waits for the canary's record and compares it with want; a
// record that does not come is blamed on the stage that explains it (the
// relay, the connector's state or its slot, else the topic).
func (r *run) topicStage(ctx context.Context, reader *reader, want *eventrouter.Record, id, lsn string, committed time.Time) (*kafka.Message, error) {
	m, err := reader.await(ctx, want.Topic, id)
	arrived := time.Now()
	if err != nil && r.parent.Err() != nil {
		stage := StageTopic
		if r.relay {
			stage = StageRelay
		}
		return nil, r.opFail(stage, arrived.Sub(committed), err)
	}
	if err != nil {
		stage, why := StageTopic, err
		if r.relay {
			stage = StageRelay
			why = fmt.Errorf("%w: the relay publishes this outbox: is `outboxctl relay` running for it?", err)
		} else if r.opts.ConnectorState != nil {
			state, serr := r.opts.ConnectorState(context.Background())
			switch {
			case serr != nil:
				stage, why = StageConnector, fmt.Errorf("%w; connector status: %w", err, serr)
			case state != "":
				stage, why = StageConnector, fmt.Errorf("%w; %s", err, state)
			case lsn != "" && !slotPassed(r.opts.DB, r.opts.Config["slot.name"], lsn):
				stage, why = StageConnector, fmt.Errorf("%w; the connector is RUNNING but its slot has not confirmed the canary's commit %s", err, lsn)
			}
		}
		return nil, r.fail(stage, arrived.Sub(committed), why)
	}
	if err := compare(want, m); err != nil {
		return nil, r.fail(StageTopic, arrived.Sub(committed), err)
	}
	r.set(StageTopic, "ok", arrived.Sub(committed), fmt.Sprintf("on %s partition %d offset %d", *m.TopicPartition.Topic, m.TopicPartition.Partition, m.TopicPartition.Offset))
	if r.relay {
		r.set(StageRelay, "ok", arrived.Sub(committed), "the relay published the canary")
	}
	return m, nil
}

// captureStage measures commit to record on connector outboxes whose
// record timestamp is the capture's.
func (r *run) captureStage(committed time.Time, m *kafka.Message) {
	switch {
	case r.relay:
		r.set(StageCapture, "skipped", 0, "measured on connector outboxes only (the relay stage is the relay's latency)")
	case r.o.Columns.Timestamp != "":
		// table.field.event.timestamp: the record's timestamp is the
		// event's own, written before the commit, not the capture's.
		r.set(StageCapture, "skipped", 0, "the record's timestamp is the outbox's timestamp column "+r.o.Columns.Timestamp+", not the capture time")
	default:
		d, msg := captureLatency(committed, m)
		r.set(StageCapture, "ok", d, msg)
	}
}

// offsetFlushStage reports when the slot confirmed the canary's commit
// (PostgreSQL connector outboxes; informational).
func (r *run) offsetFlushStage(ctx context.Context, lsn string, captured <-chan time.Duration) {
	if r.o.Database.Kind != spec.Postgres || r.relay || lsn == "" {
		r.set(StageOffsetFlush, "skipped", 0, "measured on PostgreSQL connector outboxes only")
		return
	}
	select {
	case d := <-captured:
		r.set(StageOffsetFlush, "ok", d, "slot confirmed the canary's commit "+lsn+" (Connect's offset flush; informational)")
	case <-ctx.Done():
		r.set(StageOffsetFlush, "skipped", 0, "the slot did not confirm within the timeout (the record was published; Connect flushes offsets every offset.flush.interval.ms)")
	}
}

// captureLatency is the capture stage: from the canary's commit to the
// record's timestamp (CreateTime: the EventRouter's envelope ts_ms, when the
// connector processed the change; LogAppendTime: when the broker appended
// it), with millisecond precision. The clocks of the verifier
// and of Connect or the broker differ by their skew: a timestamp before the
// commit counts as 0 and says so.
func captureLatency(committed time.Time, m *kafka.Message) (time.Duration, string) {
	if m.TimestampType == kafka.TimestampNotAvailable || m.Timestamp.IsZero() {
		return 0, "the record has no timestamp; capture not measured"
	}
	d := m.Timestamp.Sub(committed.Truncate(time.Millisecond)) // the timestamp has millisecond precision
	if d < 0 && d > -time.Second {
		// Produced while the commit's answer travelled back to the verifier.
		return 0, "the record's timestamp is at the commit (" + m.TimestampType.String() + ")"
	}
	if d < 0 {
		return 0, fmt.Sprintf("the record's timestamp is %s before the commit (clock skew with Connect or the broker): counted as 0", (-d).Round(time.Millisecond))
	}
	return d, "from the commit to the record's timestamp (" + m.TimestampType.String() + ")"
}

// canaryEvent is the canary: routed like the outbox's first declared event
// (so it travels the path the application's events take), keyed
// "outboxctl-canary".
func canaryEvent(o *spec.Outbox, id string, now time.Time) outbox.Event {
	agg := "outboxctl.canary"
	for i := range o.Events {
		if o.Events[i].Aggregate != "" {
			agg = o.Events[i].Aggregate
			break
		}
	}
	ev := outbox.Event{ID: id, AggregateType: agg, AggregateID: "outboxctl-canary", Type: consumer.CanaryEventType, SchemaVersion: 1,
		Timestamp: now.UTC().Truncate(time.Microsecond)}
	if o.PayloadFormat == spec.FormatJSON {
		ev.Payload = []byte(`{"canary":"` + id + `"}`)
	}
	return ev
}

// expected is the record the EventRouter makes of the canary row under the
// connector config (eventrouter.Route).
func expected(o *spec.Outbox, conf map[string]string, ev outbox.Event) (*eventrouter.Record, error) {
	var popts eventrouter.ParseOptions
	if o.Database.Kind == spec.MariaDB {
		popts.EventRouterVersion = eventrouter.Version35
	}
	cfg, err := eventrouter.ParseConfigWithOptions(conf, "", popts)
	if err != nil {
		return nil, err
	}
	sr := &eventrouter.SampleRow{Op: eventrouter.OpCreate, Table: o.QualifiedTable(), Columns: map[string]eventrouter.ColumnSpec{}}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	for _, c := range o.ColumnContract() {
		var v json.RawMessage
		switch c.Role {
		case spec.RoleID:
			v = str(ev.ID)
		case spec.RoleAggregateType:
			v = str(ev.AggregateType)
		case spec.RoleAggregateID:
			v = str(ev.AggregateID)
		case spec.RoleType:
			v = str(ev.Type)
		case spec.RolePayload:
			switch {
			case ev.Payload == nil:
				v = json.RawMessage("null")
			case o.PayloadFormat == spec.FormatJSON:
				v = str(string(ev.Payload))
			default:
				v = str("base64:" + base64.StdEncoding.EncodeToString(ev.Payload))
			}
		case spec.RoleTimestamp:
			v = str(ev.Timestamp.Format("2006-01-02 15:04:05.999999"))
		case spec.RoleTracing:
			v = json.RawMessage("null")
		case spec.RoleSchemaVersion:
			v = json.RawMessage(fmt.Sprint(ev.SchemaVersion))
		}
		nullable := c.Nullable
		sr.Columns[c.Name] = eventrouter.ColumnSpec{Type: c.SQLType, Nullable: &nullable}
		sr.Row = append(sr.Row, eventrouter.SampleValue{Name: c.Name, Value: v})
	}
	kind := cfg.Connector
	if kind == "" {
		kind = eventrouter.Postgres
	}
	ce, err := sr.ChangeEvent(kind)
	if err != nil {
		return nil, err
	}
	res, err := eventrouter.Route(cfg, ce)
	if err != nil {
		return nil, err
	}
	if res.Record == nil {
		return nil, fmt.Errorf("the EventRouter would not publish the canary (%s)", res.Reason)
	}
	return res.Record, nil
}

// testHookAfterCommit, when set (tests), runs right after the canary's
// transaction committed.
var testHookAfterCommit func()

// write inserts the canary in one transaction (and deletes it there when
// the writer deletes after insert); on PostgreSQL it returns the WAL
// insert position after the commit. committed: the transaction committed
// (the row may exist even when err is set).
func write(ctx context.Context, db *sql.DB, w *outbox.Writer, o *spec.Outbox, ev outbox.Event) (lsn string, committed bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return "", false, fmt.Errorf("%w: %w", errConnect, err)
	}
	defer tx.Rollback()
	if _, err := w.Write(ctx, tx, ev); err != nil {
		return "", false, err
	}
	if o.DeletesAfterInsert() {
		if _, err := tx.ExecContext(ctx, deleteSQL(o), ev.ID); err != nil {
			return "", false, err
		}
	}
	if err := tx.Commit(); err != nil {
		// A commit whose answer was lost may still have committed:
		// deleting a row that is not there is harmless.
		return "", true, err
	}
	if testHookAfterCommit != nil {
		testHookAfterCommit()
	}
	if o.Database.Kind != spec.Postgres {
		return "", true, nil
	}
	if err := db.QueryRowContext(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
		return "", true, err
	}
	return lsn, true, nil
}

func deleteSQL(o *spec.Outbox) string {
	q := func(s string) string { return sqlident.Quote(o.Database.Kind, s) }
	t := q(o.Table)
	if o.Schema != "" {
		t = q(o.Schema) + "." + t
	}
	ph := "?"
	if o.Database.Kind == spec.Postgres {
		ph = "$1"
	}
	return "DELETE FROM " + t + " WHERE " + q(o.Columns.ID) + " = " + ph
}

func deleteRow(db *sql.DB, o *spec.Outbox, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := db.ExecContext(ctx, deleteSQL(o), id)
	return err
}

func slotPassed(db *sql.DB, slot, lsn string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var ok sql.NullBool
	_ = db.QueryRowContext(ctx, `SELECT confirmed_flush_lsn >= $1::pg_lsn FROM pg_replication_slots WHERE slot_name = $2`, lsn, slot).Scan(&ok)
	return ok.Valid && ok.Bool
}

func watchSlot(ctx context.Context, db *sql.DB, slot, lsn string, committed time.Time, out chan<- time.Duration) {
	for ctx.Err() == nil {
		if slotPassed(db, slot, lsn) {
			out <- time.Since(committed)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// compare checks the record against the expected one: topic, key bytes
// and every header the EventRouter adds (the __debezium.context.* headers,
// which carry per-task values, by name only).
func compare(want *eventrouter.Record, m *kafka.Message) error {
	var diffs []string
	if got := *m.TopicPartition.Topic; got != want.Topic {
		diffs = append(diffs, fmt.Sprintf("topic %s, want %s", got, want.Topic))
	}
	if !bytes.Equal(m.Key, want.Key) {
		diffs = append(diffs, fmt.Sprintf("key %q, want %q", m.Key, want.Key))
	}
	for _, h := range want.Headers {
		var got []byte
		found := false
		for _, g := range m.Headers {
			if g.Key == h.Key {
				got, found = g.Value, true
			}
		}
		switch {
		case !found:
			diffs = append(diffs, "header "+h.Key+" missing")
		case !strings.HasPrefix(h.Key, "__debezium.context.") && !bytes.Equal(got, h.Value):
			diffs = append(diffs, fmt.Sprintf("header %s = %q, want %q", h.Key, got, h.Value))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("the record differs from what the EventRouter makes of the canary under the generated config: %s", strings.Join(diffs, "; "))
	}
	return nil
}

// decode runs the record through a consumer Router configured for the
// outbox: it must parse the metadata, skip it as a canary and count it.
func decode(o *spec.Outbox, km *kafka.Message, id string) error {
	r, err := consumer.NewRouter(consumer.RouterConfig{}.ForOutbox(o))
	if err != nil {
		return err
	}
	m := &consumer.Message{Topic: *km.TopicPartition.Topic, Partition: km.TopicPartition.Partition, Offset: int64(km.TopicPartition.Offset),
		Key: km.Key, Value: km.Value, Timestamp: km.Timestamp}
	for _, h := range km.Headers {
		m.Headers = append(m.Headers, consumer.Header{Key: h.Key, Value: h.Value})
	}
	if err := r.Process(context.Background(), m); err != nil {
		return err
	}
	if m.Meta.EventID != id || m.Meta.EventType != consumer.CanaryEventType || r.Stats().Canaries != 1 {
		return fmt.Errorf("the consumer read event %q of type %q (canaries skipped: %d), want canary %s", m.Meta.EventID, m.Meta.EventType, r.Stats().Canaries, id)
	}
	if o.PayloadFormat == spec.FormatJSON && !bytes.Contains(km.Value, []byte(id)) {
		return fmt.Errorf("the value %q does not carry the canary payload", km.Value)
	}
	return nil
}
