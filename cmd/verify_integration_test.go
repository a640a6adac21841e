//go:build integration

package cmd_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/provisioning"
	"github.com/outboxctl/outboxctl/spec"
	"github.com/outboxctl/outboxctl/verify"
)

// TestCLIVerify deploys a PostgreSQL (Avro payloads, timestamp column) and
// a MariaDB (JSON) outbox and runs `outboxctl verify` against the real
// stack: every stage passes and the canary row is gone; with the PostgreSQL
// connector stopped through Connect's REST API verify exits 5 naming the
// connector stage; a relay outbox without a running relay exits 5 naming
// the relay stage.
func TestCLIVerify(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.MariaDB, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_verify_" + sfx
	pg := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	ma := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: verify-pg-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, dbname: %[5]s}
    columns: {timestamp: created_at}
    routing: {topicReplacement: "verify.%[2]s.${routedByValue}"}
    connector: {profile: latency}
  - name: verify-ma-%[2]s
    database:
      kind: mariadb
      connection: {host: %[6]q, port: %[7]s, user: root, dbname: %[5]s}
    payloadFormat: json
    routing: {topicReplacement: "verify.ma.%[2]s.${routedByValue}"}
    connector: {profile: latency}
  - name: verify-relay-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, dbname: %[5]s}
    table: relayed
    payloadFormat: json
    routing: {topicReplacement: "verify.relay.%[2]s.${routedByValue}"}
    relay: {}
`, s.ConnectBootstrap(), sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, s.ConnectMariaDBHost, s.ConnectMariaDBPort)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(spec.Source{Name: specFile, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	targets, err := provisioning.Targets(sp, connectorconfig.Options{BootstrapServers: s.ConnectBootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	dbs := []*sql.DB{pg, ma, pg}
	for i := range sp.Outboxes {
		itest.CreateOutboxTable(t, dbs[i], &sp.Outboxes[i])
	}
	for _, tp := range []string{"verify." + sfx + ".outboxctl.canary", "verify.ma." + sfx + ".outboxctl.canary", "verify.relay." + sfx + ".outboxctl.canary"} {
		itest.CreateTopic(t, s.BootstrapServers, tp)
	}
	run := func(t *testing.T, want int, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out, errOut
	}
	run(t, 0, "provision", "-f", specFile, "--database")
	run(t, 0, "deploy", "-f", specFile, "--timeout", "2m")
	reports := func(out string) []verify.Report {
		t.Helper()
		var r struct{ Reports []verify.Report }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("verify -o json: %v\n%s", err, out)
		}
		return r.Reports
	}
	rows := func(db *sql.DB, table string) int {
		var n int
		if err := db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for i, name := range []string{"verify-pg-" + sfx, "verify-ma-" + sfx} {
		// The connector may still be snapshotting: the first canary can take a while.
		out, _ := run(t, 0, "verify", "-f", specFile, "--outbox", name, "-o", "json", "--timeout", "90s")
		r := reports(out)
		if len(r) != 1 || !r[0].OK || r[0].Failed != "" || !r[0].Cleaned {
			t.Fatalf("verify %s: %s", name, out)
		}
		byStage := map[string]verify.StageResult{}
		for _, st := range r[0].Stages {
			byStage[st.Stage] = st
			want := "ok"
			if st.Stage == verify.StageOffsetFlush && i == 1 {
				want = "skipped" // the slot's confirmation: PostgreSQL only
			}
			if st.Stage == verify.StageCapture && i == 0 {
				want = "skipped" // columns.timestamp: the record's timestamp is the event's, not the capture's
			}
			// capture may be 0 (the record's timestamp has millisecond precision)
			if st.Status != want || (want == "ok" && (st.LatencyMs < 0 || (st.LatencyMs == 0 && st.Stage != verify.StageCapture))) {
				t.Errorf("%s: stage %+v, want %s with a latency", name, st, want)
			}
		}
		// capture is the commit to the record's timestamp on the topic: at
		// most the time until the verifier read the record back, not
		// Connect's offset flush (offset.flush.interval.ms, seconds).
		capture, topic := byStage[verify.StageCapture], byStage[verify.StageTopic]
		if capture.Status == "ok" && capture.LatencyMs > topic.LatencyMs {
			t.Errorf("%s: capture %.1f ms > topic %.1f ms: capture must end when the record is on the topic", name, capture.LatencyMs, topic.LatencyMs)
		}
		t.Logf("%s: capture %.1f ms, topic %.1f ms, offset flush %.1f ms (%s)", name, capture.LatencyMs, topic.LatencyMs, byStage[verify.StageOffsetFlush].LatencyMs, byStage[verify.StageOffsetFlush].Status)
		if n := rows(dbs[i], "outbox"); n != 0 {
			t.Errorf("%s: %d rows left, want the canary deleted", name, n)
		}
		text, _ := run(t, 0, "verify", "-f", specFile, "--outbox", name)
		t.Logf("%s", text)
	}

	// Kafka reached as every other command reaches it: the broker's
	// SASL_SSL listener with the --kafka-* flags (before, verify read the
	// topic in plain text whatever the settings said, and reported a
	// secured pipeline broken).
	k := itest.RequireSASL(t)
	saslVars := map[string]string{"XDG_CONFIG_HOME": vars["XDG_CONFIG_HOME"], "OUTBOXCTL_CONTEXT": "", "OUTBOX_BOOTSTRAP_SERVERS": k.BootstrapServers, "KAFKA_PW": k.Password}
	code, out, errOut := runCLI(t, saslVars, "verify", "-f", specFile, "--outbox", "verify-pg-"+sfx, "-o", "json", "--timeout", "60s",
		"--kafka-security-protocol", "SASL_SSL", "--kafka-sasl-mechanism", "SCRAM-SHA-512", "--kafka-sasl-username", k.Username,
		"--kafka-sasl-password", "env:KAFKA_PW", "--kafka-ssl-ca", k.CAFile)
	if code != 0 {
		t.Fatalf("verify over SASL_SSL: exit %d\n%s\n%s", code, out, errOut)
	}
	if r := reports(out); len(r) != 1 || !r[0].OK {
		t.Errorf("verify over SASL_SSL: %s", out)
	}
	if strings.Contains(out+errOut, k.Password) {
		t.Errorf("verify over SASL_SSL: the password is in the output")
	}

	// The connector stopped (our own, through Connect's REST API): the
	// connector stage fails before anything is written.
	itest.StopConnector(t, s.ConnectURL, targets[0].Connector.Name)
	out, errOut = run(t, 5, "verify", "-f", specFile, "--outbox", "verify-pg-"+sfx, "-o", "json", "--timeout", "10s")
	if r := reports(out); len(r) != 1 || r[0].Failed != verify.StageConnector || !strings.Contains(errOut, "connector stage failed") || !strings.Contains(errOut, "STOPPED") {
		t.Errorf("stopped connector: %s\n%s", out, errOut)
	}
	if n := rows(pg, "outbox"); n != 0 {
		t.Errorf("stopped connector: %d rows written", n)
	}
	itest.ResumeConnector(t, s.ConnectURL, targets[0].Connector.Name)

	// A relay outbox with no relay running: the relay stage fails, saying so.
	out, errOut = run(t, 5, "verify", "-f", specFile, "--outbox", "verify-relay-"+sfx, "--timeout", "5s")
	if !strings.Contains(out, "FAILED at the relay stage") || !strings.Contains(errOut, "is `outboxctl relay` running") {
		t.Errorf("relay not running: %s\n%s", out, errOut)
	}
	if n := rows(pg, "relayed"); n != 0 {
		t.Errorf("relay not running: %d canary rows left", n)
	}
	_ = time.Second
}

// TestCLIVerifyInterrupted sends SIGTERM to the process while `outboxctl
// verify` waits for the canary of a relay outbox no relay publishes: it
// exits 1 (interrupted, not a failed stage) and the canary row is gone.
func TestCLIVerifyInterrupted(t *testing.T) {
	s := itest.Require(t, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_verify_sig_" + sfx
	pg := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": "", "OUTBOXCTL_BOOTSTRAP_SERVERS": s.BootstrapServers}
	specFile := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: verify-sig-%[1]s
    database:
      kind: postgres
      connection: {host: %[2]q, port: %[3]s, user: postgres, dbname: %[4]s}
    payloadFormat: json
    routing: {topicReplacement: "verify.sig.%[1]s.${routedByValue}"}
    relay: {}
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName)
	if err := os.WriteFile(specFile, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Parse(spec.Source{Name: specFile, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, pg, &sp.Outboxes[0])
	topic := "verify.sig." + sfx + ".outboxctl.canary"
	itest.CreateTopic(t, s.BootstrapServers, topic)
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	rows := func() int {
		var n int
		if err := pg.QueryRow("SELECT COUNT(*) FROM outbox").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCLI(t, vars, "verify", "-f", specFile, "--timeout", "60s")
		done <- result{code, out, errOut}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for rows() == 0 {
		select {
		case r := <-done:
			t.Fatalf("verify ended before writing the canary: exit %d\n%s\n%s", r.code, r.out, r.errOut)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the canary row was never written")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// verify is waiting: its signal handler is installed (it runs before
	// the canary is written).
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("verify does not end on SIGTERM")
	}
	if r.code != 1 || !strings.Contains(r.errOut, "verify interrupted") {
		t.Errorf("exit %d, want 1 (interrupted)\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	if n := rows(); n != 0 {
		t.Errorf("%d canary rows left after SIGTERM", n)
	}
}
