//go:build integration

package exporter_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/exporter/exporterkafka"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
	"github.com/outboxctl/outboxctl/verify"
)

// TestExporterCanaryProbe runs the exporter's canary prober (verify's
// canary on a schedule) against a real PostgreSQL connector on the stack:
// while it streams, outbox_canary_success is 1 with the latency of every
// stage; once the connector is stopped through Connect's REST API, the
// next canary fails at the connector stage: success 0, a failed run
// counted, the connector stage's latency exported.
func TestExporterCanaryProbe(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "expc_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	connName := "expc-" + sfx
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: expc%[1]s
    database:
      kind: postgres
      connection: {host: %[2]q, port: %[3]s, user: postgres, dbname: %[4]s}
    payloadFormat: json
    routing: {topicReplacement: "expc.%[1]s.${routedByValue}"}
    connector: {name: %[5]s, profile: latency}
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, connName)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, db, o)
	topic := "expc." + sfx + ".outboxctl.canary"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.ConnectBootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	itest.PutConnector(t, s.ConnectURL, connName, cs[0].Config)
	itest.WaitRunning(t, s.ConnectURL, connName, 90*time.Second)

	opts := verify.Options{Outbox: o, Config: cs[0].Config, DB: db, BootstrapServers: s.BootstrapServers, Timeout: 60 * time.Second,
		ConnectorState: func(ctx context.Context) (string, error) {
			st, ok, err := itest.Status(ctx, s.ConnectURL, connName)
			switch {
			case err != nil:
				return "", err
			case !ok:
				return "connector " + connName + " is not deployed", nil
			case st.Connector.State != "RUNNING":
				return "connector " + connName + " is " + st.Connector.State, nil
			}
			for _, tk := range st.Tasks {
				if tk.State != "RUNNING" {
					return fmt.Sprintf("task %d is %s", tk.ID, tk.State), nil
				}
			}
			return "", nil
		}}
	c := newCollector(t, exporter.Config{Probes: []exporter.Probe{exporterkafka.Probe(opts)}, ProbeInterval: 500 * time.Millisecond})
	got, _ := scrape(t, c)
	for k := range got {
		if strings.HasPrefix(k, "outbox_canary_") {
			t.Errorf("canary series before any canary ran: %s", k)
		}
	}
	// start runs the prober until the returned stop; a canary in flight
	// when it stops is interrupted (its row deleted) and not recorded.
	start := func() (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); c.RunProbes(ctx) }()
		var once bool
		stop = func() {
			if !once {
				once = true
				cancel()
				<-done
			}
		}
		t.Cleanup(stop)
		return stop
	}
	stop := start()

	success := "outbox_canary_success{outbox=" + o.Name + "}"
	waitFor := func(what string, ok func(map[string]float64) bool) map[string]float64 {
		t.Helper()
		deadline := time.Now().Add(120 * time.Second)
		for {
			got, _ := scrape(t, c)
			if ok(got) {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 120s; series: %v", what, canarySeries(got))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	got = waitFor("a passing canary", func(m map[string]float64) bool { v, ok := m[success]; return ok && v == 1 })
	// No timestamp column: the record's timestamp is then the capture's, so
	// the capture stage (commit to record) is measured, not skipped.
	for _, stage := range []string{verify.StageConnector, verify.StageDatabase, verify.StageCapture, verify.StageTopic, verify.StageDecode} {
		k := "outbox_canary_stage_seconds{outbox=" + o.Name + ",stage=" + stage + "}"
		if v, ok := got[k]; !ok || v < 0 || v > 60 {
			t.Errorf("%s = %v (present %v), want the stage's latency", k, v, ok)
		}
	}
	if v := got["outbox_canary_runs_total{outbox="+o.Name+",result=ok}"]; v < 1 {
		t.Errorf("ok runs %v, want at least 1", v)
	}
	if v := got["outbox_canary_last_run_timestamp_seconds{outbox="+o.Name+"}"]; time.Since(time.Unix(int64(v), 0)) > time.Minute {
		t.Errorf("last run at %v, want within the last minute", v)
	}

	// Stop the prober first, so that no canary written while the
	// connector streamed waits out its timeout for the capture.
	stop()
	itest.StopConnector(t, s.ConnectURL, connName)
	start()
	got = waitFor("a failing canary", func(m map[string]float64) bool { v, ok := m[success]; return ok && v == 0 })
	if v := got["outbox_canary_runs_total{outbox="+o.Name+",result=failed}"]; v < 1 {
		t.Errorf("failed runs %v, want at least 1 (series %v)", v, canarySeries(got))
	}
	if _, ok := got["outbox_canary_stage_seconds{outbox="+o.Name+",stage="+verify.StageConnector+"}"]; !ok {
		t.Errorf("no latency of the failed connector stage: %v", canarySeries(got))
	}
	if _, ok := got["outbox_canary_stage_seconds{outbox="+o.Name+",stage="+verify.StageTopic+"}"]; ok {
		t.Errorf("a topic stage latency from a canary that stopped at the connector stage: %v", canarySeries(got))
	}
}

func canarySeries(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if strings.HasPrefix(k, "outbox_canary_") {
			out[k] = v
		}
	}
	return out
}
