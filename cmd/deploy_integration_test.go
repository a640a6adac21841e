//go:build integration

package cmd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cmd"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// runCLI runs outboxctl in-process and returns its exit code and output.
func runCLI(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	env := &cmd.Env{IO: cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: getenv, Settings: settings.FromEnv(getenv)}
	code := cmd.Run(context.Background(), env, args)
	return code, out.String(), errOut.String()
}

// TestCLIDeployRealStack drives `outboxctl deploy` from an outbox spec against
// the real stack and checks exit codes, no-op redeploys and that the
// database password appears in no output format.
func TestCLIDeployRealStack(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.MariaDB, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_cli_" + sfx
	pg := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	ma := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
	const password = "Pg-s3cret-" + "7f3a9c" // PostgreSQL trusts local users: any password connects
	vars := map[string]string{"IT_PG_PASSWORD": password, "XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}

	writeSpec := func(prefixPG, poll string) string {
		p := filepath.Join(t.TempDir(), "outbox.yaml")
		data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %[1]s
outboxes:
  - name: cli-pg-%[2]s
    database:
      kind: postgres
      connection: {host: %[3]q, port: %[4]s, user: postgres, password: "${env:IT_PG_PASSWORD}", dbname: %[5]s}
    payloadFormat: json
    connector:
      topicPrefix: %[8]s
      overrides:
        poll.interval.ms: %[9]q
  - name: cli-maria-%[2]s
    database:
      kind: mariadb
      connection: {host: %[6]q, port: %[7]s, user: root, dbname: %[5]s}
    payloadFormat: json
`, s.ConnectBootstrap(), sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, s.ConnectMariaDBHost, s.ConnectMariaDBPort, prefixPG, poll)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	specV1 := writeSpec("cli-pg-"+sfx, "100")
	sp, err := spec.Load(specV1)
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, pg, &sp.Outboxes[0])
	itest.CreateOutboxTable(t, ma, &sp.Outboxes[1])
	client, _ := connect.NewClient(s.ConnectURL)
	// Connectors and topics of this run (schema-history.cli-maria-<sfx>,
	// __debezium-heartbeat.cli-pg-<sfx>, ...).
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)

	var outputs []string
	check := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		outputs = append(outputs, out, errOut)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out
	}

	check(0, "deploy", "-f", specV1, "--timeout", "2m")
	out := check(0, "deploy", "-f", specV1)
	if !strings.Contains(out, "No changes.") || !strings.Contains(out, "no change; RUNNING") {
		t.Errorf("redeploy:\n%s", out)
	}
	check(0, "plan", "-f", specV1, "--detailed-exitcode")
	check(0, "plan", "-f", specV1, "-o", "json")
	check(0, "plan", "-f", specV1, "-o", "github-actions")
	check(0, "deploy", "-f", specV1, "-o", "json")
	check(0, "connectors", "get")
	check(0, "connectors", "get", "-o", "json")
	check(0, "connectors", "get", "-o", "yaml")
	pgConn := "cli-pg-" + sfx + "-outbox"
	desc := check(0, "connectors", "describe", pgConn)
	if !strings.Contains(desc, "database.password") || !strings.Contains(desc, "********") {
		t.Errorf("describe does not show the masked password key:\n%s", desc)
	}
	check(0, "connectors", "describe", pgConn, "-o", "json")
	check(0, "connectors", "describe", pgConn, "-o", "yaml")
	check(0, "connectors", "status", pgConn, "-o", "json")
	check(0, "connectors", "status", pgConn)

	// A setting changed in the spec: plan exit 4, deploy applies it.
	specV2 := writeSpec("cli-pg-"+sfx, "250")
	out = check(4, "plan", "-f", specV2, "--detailed-exitcode")
	if !strings.Contains(out, `~ poll.interval.ms = "100" -> "250"`) {
		t.Errorf("plan of the change:\n%s", out)
	}
	check(0, "deploy", "-f", specV2)
	// A changed password is a change, masked.
	vars["IT_PG_PASSWORD"] = password + "-rotated"
	out = check(4, "plan", "-f", specV2, "--detailed-exitcode", "-o", "json")
	if !strings.Contains(out, `"key": "database.password"`) {
		t.Errorf("password change not planned:\n%s", out)
	}
	check(0, "deploy", "-f", specV2, "-o", "json")

	// generate -> deploy on the real Connect: the masked output is refused
	// before any write (the stored password stays), the --no-resolve output
	// deploys as a no-op, and a prune that would delete every managed
	// connector is blocked.
	masked := filepath.Join(t.TempDir(), "masked.json")
	if err := os.WriteFile(masked, []byte(check(0, "generate", "-f", specV2, "-o", "json")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, vars, "deploy", "-f", masked)
	outputs = append(outputs, out, errOut)
	if code != 2 || !strings.Contains(errOut, `config key "database.password" holds the masked value`) || !strings.Contains(errOut, "--no-resolve") {
		t.Fatalf("deploy of masked generate output: exit %d\n%s\n%s", code, out, errOut)
	}
	if cfg, err := client.GetConfig(context.Background(), pgConn); err != nil || cfg["database.password"] != password+"-rotated" {
		t.Fatalf("stored password changed by a refused deploy (err %v)", err)
	}
	refs := filepath.Join(t.TempDir(), "connectors.json")
	if err := os.WriteFile(refs, []byte(check(0, "generate", "-f", specV2, "-o", "json", "--no-resolve")), 0o644); err != nil {
		t.Fatal(err)
	}
	out = check(0, "deploy", "-f", refs)
	if !strings.Contains(out, "No changes.") {
		t.Errorf("deploy of --no-resolve output is not a no-op:\n%s", out)
	}
	check(0, "plan", "-f", refs, "--detailed-exitcode")
	other := filepath.Join(t.TempDir(), "other.json")
	_ = os.WriteFile(other, []byte(`[{"name": "cli-other-`+sfx+`", "config": {"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "cli-other-`+sfx+`"}}]`), 0o644)
	// Only a plan: the stack is shared, so other runs' connectors carry the
	// default owner too, and every one of them would be a deletion.
	code, out, errOut = runCLI(t, vars, "plan", "-f", other, "--prune")
	if code != 3 || !strings.Contains(out, `# connector "`+pgConn+`" will be deleted`) || !strings.Contains(out, "blocked PRUNE_") {
		t.Errorf("prune of (nearly) everything: exit %d, want 3 with each deletion listed\n%s\n%s", code, out, errOut)
	}

	// A dangerous change is refused with exit 3 and the rule id.
	specV3 := writeSpec("cli-pg2-"+sfx, "250")
	code, out, errOut = runCLI(t, vars, "deploy", "-f", specV3)
	outputs = append(outputs, out, errOut)
	if code != 3 || !strings.Contains(errOut, "TOPIC_PREFIX_CHANGE") {
		t.Fatalf("dangerous deploy: exit %d\n%s\n%s", code, out, errOut)
	}

	// status: exit 3 when paused.
	check(0, "connectors", "pause", pgConn)
	// Connect applies a pause asynchronously: poll until status says so.
	for deadline := time.Now().Add(60 * time.Second); ; {
		code, out, errOut := runCLI(t, vars, "connectors", "status", pgConn)
		if code == 3 {
			outputs = append(outputs, out, errOut)
			break
		}
		if code != 0 || time.Now().After(deadline) {
			t.Fatalf("connectors status of the paused connector: exit %d, want 3 within 60s\n%s\n%s", code, out, errOut)
		}
		time.Sleep(500 * time.Millisecond)
	}
	check(0, "connectors", "resume", pgConn)

	// Offsets (KIP-875): get, then reset around a stop; the connector comes
	// back RUNNING (PostgreSQL resumes from its slot).
	out = check(0, "connectors", "offsets", "get", pgConn)
	// Debezium commits an offset only after records (or heartbeats) were
	// flushed, so a fresh connector may have none yet.
	if !strings.Contains(out, `"offsets": [`) || (!strings.Contains(out, `"offsets": []`) && !strings.Contains(out, `"server": "cli-pg-`+sfx+`"`)) {
		t.Errorf("offsets get:\n%s", out)
	}
	out = check(0, "connectors", "offsets", "reset", pgConn)
	if !strings.Contains(out, "reset successfully") {
		t.Errorf("offsets reset:\n%s", out)
	}
	check(0, "deploy", "-f", specV2, "--timeout", "1m")
	check(0, "connectors", "status", pgConn)

	// A wrong MariaDB password: Connect's validation rejects it before any
	// write (exit 3), the password is not echoed.
	vars["IT_MA_BAD"] = "wr0ng-Maria-pw"
	badSpec := filepath.Join(t.TempDir(), "bad.yaml")
	_ = os.WriteFile(badSpec, []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: %s
outboxes:
  - name: cli-badpw-%s
    database:
      kind: mariadb
      connection: {host: %q, port: %s, user: root, password: "${env:IT_MA_BAD}", dbname: %s}
    payloadFormat: json
`, s.ConnectBootstrap(), sfx, s.ConnectMariaDBHost, s.ConnectMariaDBPort, dbName)), 0o644)
	code, out, errOut = runCLI(t, vars, "deploy", "-f", badSpec)
	outputs = append(outputs, out, errOut)
	if code != 3 || !strings.Contains(errOut, "CONNECT_VALIDATE") || !strings.Contains(errOut, "Access denied") || strings.Contains(out+errOut, "wr0ng-Maria-pw") {
		t.Errorf("wrong password: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := client.GetConnector(context.Background(), "cli-badpw-"+sfx+"-outbox"); err == nil {
		t.Errorf("connector with a wrong password was created")
	}

	// Connect down: exit 1 and the URL in one line.
	_, _, errOut = runCLI(t, vars, "plan", "-f", specV1, "--connect-url", "http://127.0.0.1:1")
	if !strings.Contains(errOut, "kafka connect at http://127.0.0.1:1 is unreachable") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("connect down: %q", errOut)
	}

	for _, o := range outputs {
		for _, secret := range []string{password, password + "-rotated", "wr0ng-Maria-pw"} {
			if strings.Contains(o, secret) {
				t.Fatalf("password found in output:\n%s", o)
			}
		}
	}
	t.Logf("scanned %d outputs: no password", len(outputs))
}

// TestCLIDeployExactlyOnceRefusedByWorker: an outbox with delivery:
// exactly-once deployed to the main stack's single worker, which does not
// enable exactly.once.source.support, is refused before any write (exit 3)
// with Connect's own answer and the worker setting named; the same outbox
// at-least-once deploys.
func TestCLIDeployExactlyOnceRefusedByWorker(t *testing.T) {
	s := itest.Require(t, itest.Connect, itest.Postgres, itest.Kafka)
	sfx := itest.Suffix()
	dbName := "outbox_eos_" + sfx
	pg := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	itest.CleanupRun(t, s.ConnectURL, s.BootstrapServers, sfx)
	writeSpec := func(delivery string) string {
		p := filepath.Join(t.TempDir(), "outbox.yaml")
		data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: eos-%[1]s
    database:
      kind: postgres
      connection: {host: %[2]q, port: %[3]s, user: postgres, dbname: %[4]s}
    payloadFormat: json
    delivery: %[5]s
`, sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, dbName, delivery)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eos := writeSpec("exactly-once")
	sp, err := spec.Load(eos)
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, pg, &sp.Outboxes[0])
	name := "eos-" + sfx + "-outbox"

	code, out, errOut := runCLI(t, vars, "deploy", "-f", eos, "--timeout", "1m")
	if code != cmd.ExitCheckFailed {
		t.Fatalf("deploy exactly-once: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, cmd.ExitCheckFailed, out, errOut)
	}
	for _, want := range []string{
		"outbox.yaml:8:15: " + name + ": CONNECT_VALIDATE Connect: exactly.once.support: This worker does not have exactly-once source support enabled.",
		"exactly.once.source.support=enabled",
		"nothing was applied",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, ok, err := itest.Status(context.Background(), s.ConnectURL, name); err != nil || ok {
		t.Errorf("connector %s exists after the refused deploy (err %v)", name, err)
	}
	if code, out, errOut := runCLI(t, vars, "deploy", "-f", writeSpec("at-least-once"), "--timeout", "2m"); code != 0 {
		t.Fatalf("deploy at-least-once: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestCLIDeployClusterEitherWorker deploys an exactly-once outbox to the
// cluster instance's 2 workers (exactly.once.source.support=enabled):
// through the second worker it converges to RUNNING (Connect forwards
// writes to the leader), a redeploy through the first worker finds no
// change, and `connectors status` names the worker running the task.
func TestCLIDeployClusterEitherWorker(t *testing.T) {
	c := itest.RequireCluster(t)
	sfx := itest.Suffix()
	dbName := "outbox_eosc_" + sfx
	pg := itest.PostgresDatabase(t, c.PostgresDSN, dbName)
	vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "OUTBOXCTL_CONTEXT": ""}
	itest.CleanupRun(t, c.ConnectURLs[0], c.BootstrapServers, sfx)
	p := filepath.Join(t.TempDir(), "outbox.yaml")
	data := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
kafka: {brokers: 3}
outboxes:
  - name: eosc-%[1]s
    database:
      kind: postgres
      connection: {host: 127.0.0.1, port: %[2]d, user: postgres, dbname: %[3]s}
    payloadFormat: json
    delivery: exactly-once
    topics: {replicationFactor: 3, minInsyncReplicas: 2}
`, sfx, 15432+c.Offset, dbName)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := spec.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, pg, &sp.Outboxes[0])
	name := "eosc-" + sfx + "-outbox"
	check := func(want int, args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, vars, args...)
		if code != want {
			t.Fatalf("outboxctl %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out
	}
	check(0, "deploy", "-f", p, "--connect-url", c.ConnectURLs[1], "--timeout", "3m")
	if out := check(0, "deploy", "-f", p, "--connect-url", c.ConnectURLs[0]); !strings.Contains(out, "No changes.") {
		t.Errorf("redeploy through the other worker:\n%s", out)
	}
	out := check(0, "connectors", "status", name, "--connect-url", c.ConnectURLs[0])
	var workers []string
	for _, u := range c.ConnectURLs {
		workers = append(workers, strings.TrimPrefix(u, "http://"))
	}
	if !strings.Contains(out, "0="+workers[0]) && !strings.Contains(out, "0="+workers[1]) {
		t.Errorf("status does not name the task's worker (%v):\n%s", workers, out)
	}
	cfg := check(0, "connectors", "describe", name, "--connect-url", c.ConnectURLs[1], "-o", "json")
	for _, want := range []string{`"exactly.once.support": "required"`, `"transaction.boundary": "poll"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("deployed config lacks %s", want)
		}
	}
}
