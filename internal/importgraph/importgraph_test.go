package importgraph_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/outboxctl/outboxctl"

// goCmd runs the go command in the module root with extra environment
// variables and returns its standard output.
func goCmd(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// list is `go list -json` of patterns (with -deps when deps), with the
// extra environment env.
func list(t *testing.T, env []string, deps bool, patterns ...string) []pkg {
	t.Helper()
	args := []string{"list", "-json"}
	if deps {
		args = append(args, "-deps")
	}
	out := goCmd(t, env, append(args, patterns...)...)
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list %v: no packages", patterns)
	}
	return pkgs
}

// TestSpecIsALeaf: spec imports nothing from the module but the leaf
// internal/limitio (its bounded readers, which TestLeafHelpers keeps a
// leaf): nothing of the module beyond spec itself is built with it.
func TestSpecIsALeaf(t *testing.T) {
	t.Parallel()
	leaves := map[string]bool{module + "/internal/limitio": true}
	for _, p := range list(t, nil, false, "./spec") {
		for _, imp := range p.Imports {
			if (imp == module || strings.HasPrefix(imp, module+"/")) && !leaves[imp] {
				t.Errorf("%s imports %s: spec must import nothing from the module but internal/limitio", p.ImportPath, imp)
			}
		}
	}
}

func TestOutboxtestDeps(t *testing.T) {
	t.Parallel()
	for _, p := range list(t, nil, true, "./outbox/outboxtest") {
		if strings.Contains(p.ImportPath, "provisioning") || strings.Contains(p.ImportPath, "confluent-kafka-go") {
			t.Errorf("outbox/outboxtest depends on %s", p.ImportPath)
		}
	}
}

// TestSDKBuildsWithoutCgo: only the Kafka runtime of consumer needs cgo.
func TestSDKBuildsWithoutCgo(t *testing.T) {
	t.Parallel()
	pkgs := []string{
		"./consumer/", "./consumer/consumertest", "./consumer/inbox", "./consumer/inbox/inboxtest",
		"./consumer/consumerprom", "./consumer/consumerotel", "./outbox", "./outbox/outboxotel",
		"./outbox/outboxtest", "./spec",
	}
	nocgo := []string{"CGO_ENABLED=0"}
	goCmd(t, nocgo, append([]string{"build"}, pkgs...)...)
	// Without cgo none of them reaches the Kafka client.
	for _, p := range list(t, nocgo, true, pkgs...) {
		if strings.HasPrefix(p.ImportPath, module+"/kafkaclient") {
			t.Errorf("an SDK package depends on %s", p.ImportPath)
		}
	}
}

// TestLeafHelpers (issue 30 item 5): packages that need one small helper
// import a leaf package for it, not the package the helper came from:
// provisioning and cleanup read a UUIDv7's time through internal/uuidv7,
// not the writer (outbox); the Kafka Connect and Schema Registry clients
// bound their reads through internal/limitio, not spec, and share their
// HTTP plumbing through internal/httpclient (issue 30 item 6), which
// imports neither client nor anything above internal/limitio and
// internal/redact. The leaves import nothing from the module.
func TestLeafHelpers(t *testing.T) {
	t.Parallel()
	notDeps := map[string][]string{
		"./provisioning":            {module + "/outbox"},
		"./cleanup":                 {module + "/outbox"},
		"./connectorconfig/connect": {module + "/spec"},
		"./schemas/registry":        {module + "/spec"},
		"./internal/limitio":        {},
		"./internal/uuidv7":         {},
		"./internal/httpclient":     {module + "/spec", module + "/connectorconfig/connect", module + "/schemas/registry"},
	}
	for pattern, banned := range notDeps {
		for _, p := range list(t, nil, true, pattern) {
			for _, b := range banned {
				if p.ImportPath == b {
					t.Errorf("%s depends on %s", pattern, b)
				}
			}
		}
	}
	for _, p := range list(t, nil, false, "./internal/httpclient") {
		for _, imp := range p.Imports {
			if (imp == module || strings.HasPrefix(imp, module+"/")) && imp != module+"/internal/limitio" && imp != module+"/internal/redact" {
				t.Errorf("%s imports %s: the HTTP plumbing imports only internal/limitio and internal/redact from the module", p.ImportPath, imp)
			}
		}
	}
	for _, pattern := range []string{"./connectorconfig/connect", "./schemas/registry"} {
		for _, p := range list(t, nil, false, pattern) {
			if !slices.Contains(p.Imports, module+"/internal/httpclient") {
				t.Errorf("%s does not import internal/httpclient: the Connect and registry clients share one HTTP plumbing", p.ImportPath)
			}
		}
	}
	for _, leaf := range []string{"./internal/limitio", "./internal/uuidv7"} {
		for _, p := range list(t, nil, false, leaf) {
			for _, imp := range p.Imports {
				if imp == module || strings.HasPrefix(imp, module+"/") {
					t.Errorf("%s imports %s: a leaf imports nothing from the module", p.ImportPath, imp)
				}
			}
		}
	}
}

// TestRelayWithoutConnect (issue 30 item 5): the relay polls a table and
// publishes to Kafka; only its cutover to and from the Debezium connector
// talks to Kafka Connect, and that lives in relay/cutover. Package relay
// (and its Prometheus exporter) never depends on the Connect client.
func TestRelayWithoutConnect(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{"./relay", "./relay/relayprom"} {
		for _, p := range list(t, nil, true, pattern) {
			if p.ImportPath == module+"/connectorconfig/connect" {
				t.Errorf("%s depends on %s: the cutover (relay/cutover) is the relay's one Connect client", pattern, p.ImportPath)
			}
		}
	}
}

// TestExporterBuildsWithoutCgo (issue 30 item 5): the exporter and
// provisioning reach Kafka only through interfaces with their own types;
// confluent-kafka-go (librdkafka, cgo) is in provisioning/kafkaadmin and
// exporter/exporterkafka. Both build with CGO_ENABLED=0 and, with cgo,
// neither depends on confluent-kafka-go nor on the Kafka client wrapper.
func TestExporterBuildsWithoutCgo(t *testing.T) {
	t.Parallel()
	pkgs := []string{"./exporter", "./provisioning"}
	goCmd(t, []string{"CGO_ENABLED=0"}, append([]string{"build"}, pkgs...)...)
	for _, p := range list(t, nil, true, pkgs...) {
		if strings.Contains(p.ImportPath, "confluent-kafka-go") || p.ImportPath == module+"/kafkaclient" || p.ImportPath == module+"/verify" {
			t.Errorf("exporter or provisioning depends on %s", p.ImportPath)
		}
	}
}
