package verify_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/spec"
	"github.com/outboxctl/outboxctl/verify"
)

func options(t *testing.T, extra string) verify.Options {
	t.Helper()
	doc := `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database:
      kind: postgres
      connection: {host: db, user: dbz, dbname: shop}
    payloadFormat: json
` + extra
	s, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{BootstrapServers: "kafka:9092"})
	if err != nil {
		t.Fatal(err)
	}
	return verify.Options{Outbox: &s.Outboxes[0], Config: cs[0].Config, Timeout: 2 * time.Second}
}

// TestRunOwnConnectionFailures: when the verifier's own connection fails
// (Kafka Connect does not answer, Kafka cannot be reached) the stage is an
// *OperationalError (exit 1), not a failed stage (ErrFailed, exit 5); a
// connector that Connect reports STOPPED is a failed stage.
func TestRunOwnConnectionFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		extra  string
		state  func(context.Context) (string, error)
		kafka  kafkaclient.Config
		old    bool // the deprecated BootstrapServers field
		stage  string
		failed bool
		msg    string
	}{
		{name: "connect unreachable", state: func(context.Context) (string, error) {
			return "", errors.New("kafka connect unreachable: dial tcp 127.0.0.1:1: connection refused")
		}, stage: verify.StageConnector},
		{name: "connector stopped", state: func(context.Context) (string, error) { return "connector orders is STOPPED", nil },
			stage: verify.StageConnector, failed: true},
		{name: "kafka unreachable", extra: "    relay: {}\n", stage: verify.StageTopic, msg: "kafka at 127.0.0.1:1 did not answer"},
		{name: "kafka unreachable (deprecated BootstrapServers)", extra: "    relay: {}\n", old: true, stage: verify.StageTopic, msg: "kafka at 127.0.0.1:1 did not answer"},
		{name: "kafka config invalid", extra: "    relay: {}\n", kafka: kafkaclient.Config{BootstrapServers: "127.0.0.1:1",
			Properties: map[string]string{"bootstrap.servers": "x"}}, stage: verify.StageTopic, msg: "property bootstrap.servers is also set by BootstrapServers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := options(t, tc.extra)
			opts.ConnectorState = tc.state
			switch {
			case tc.old:
				opts.BootstrapServers = "127.0.0.1:1"
			case tc.kafka.BootstrapServers != "":
				opts.Kafka = tc.kafka
			default:
				opts.Kafka = kafkaclient.Config{BootstrapServers: "127.0.0.1:1"}
			}
			rep, err := verify.Run(context.Background(), opts)
			if err == nil {
				t.Fatal("Run succeeded")
			}
			var oe *verify.OperationalError
			switch {
			case tc.failed && (!errors.Is(err, verify.ErrFailed) || errors.Is(err, verify.ErrOperational)):
				t.Errorf("err %v: want ErrFailed", err)
			case !tc.failed && (errors.Is(err, verify.ErrFailed) || !errors.As(err, &oe) || oe.Stage != tc.stage):
				t.Errorf("err %v: want an *OperationalError at stage %s, not ErrFailed", err, tc.stage)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %v: want it to say %q", err, tc.msg)
			}
			if rep.Failed != tc.stage {
				t.Errorf("report failed at %q, want %q", rep.Failed, tc.stage)
			}
			want := "error"
			if tc.failed {
				want = "failed"
			}
			for _, s := range rep.Stages {
				if s.Stage == tc.stage && s.Status != want {
					t.Errorf("stage %s status %s, want %s", s.Stage, s.Status, want)
				}
			}
		})
	}
}
