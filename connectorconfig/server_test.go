package connectorconfig_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/spec"
)

// fakeValidator answers like Connect: per-key errors, one of which echoes
// the password.
type fakeValidator struct{ got map[string]string }

func (f *fakeValidator) ValidateConfig(_ context.Context, class string, cfg map[string]string) (connect.ConfigInfos, error) {
	f.got = cfg
	pw := cfg["database.password"]
	return connect.ConfigInfos{Name: class, ErrorCount: 2, Configs: []connect.ConfigInfo{
		{Value: connect.ConfigValue{Name: "database.hostname", Errors: []string{"Unable to connect: FATAL: password authentication failed (password " + pw + ")"}}},
		{Value: connect.ConfigValue{Name: "snapshot.mode", Errors: []string{"Invalid value never"}}},
		{Value: connect.ConfigValue{Name: "tasks.max", Errors: []string{}}},
	}}, nil
}

func TestValidateServerMapsKeysToSpecLines(t *testing.T) {
	s, err := spec.Load("testdata/generate/postgres_latency.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lookup := &spec.Lookup{Env: func(string) (string, bool) { return "pg-s3cret", true }}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{Lookup: lookup})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeValidator{}
	fs, err := connectorconfig.ValidateServer(context.Background(), f, cs)
	if err != nil {
		t.Fatal(err)
	}
	if f.got["name"] != "orders-outbox" || f.got["database.password"] != "pg-s3cret" {
		t.Errorf("sent name %q, password resolved %v", f.got["name"], f.got["database.password"] == "pg-s3cret")
	}
	if len(fs) != 2 {
		t.Fatalf("findings = %+v, want 2", fs)
	}
	// database.hostname comes from line 6; snapshot.mode is defaulted, so it
	// points at the connector block (line 13).
	if fs[0].Key != "database.hostname" || fs[0].Line != 6 || fs[1].Key != "snapshot.mode" || fs[1].Line != 13 {
		t.Errorf("positions: %+v", fs)
	}
	for _, f := range fs {
		if strings.Contains(f.Message, "pg-s3cret") || f.Rule != connectorconfig.ServerRuleID {
			t.Errorf("finding leaks the secret or has the wrong rule: %+v", f)
		}
	}
}

type shapelessValidator struct{}

func (shapelessValidator) ValidateConfig(context.Context, string, map[string]string) (connect.ConfigInfos, error) {
	return connect.ConfigInfos{}, nil // what {"foo": 1} decodes to
}

func TestValidateServerWrongShapeIsAnError(t *testing.T) {
	cs := []connectorconfig.Connector{{Name: "c", Config: map[string]string{"connector.class": "x"}}}
	fs, err := connectorconfig.ValidateServer(context.Background(), shapelessValidator{}, cs)
	if !errors.Is(err, connect.ErrBadAnswer) || len(fs) != 0 {
		t.Fatalf("findings %v, err %v: want ErrBadAnswer, not \"no findings\"", fs, err)
	}
}

// eosRefusingValidator answers as a worker without exactly-once source
// support (Kafka 4.1's wording).
type eosRefusingValidator struct{}

func (eosRefusingValidator) ValidateConfig(_ context.Context, class string, _ map[string]string) (connect.ConfigInfos, error) {
	return connect.ConfigInfos{Name: class, ErrorCount: 1, Configs: []connect.ConfigInfo{
		{Value: connect.ConfigValue{Name: "exactly.once.support", Errors: []string{"This worker does not have exactly-once source support enabled."}}},
	}}, nil
}

// TestValidateServerNamesExactlyOnceWorkerSetting: Connect's refusal of
// exactly.once.support is reported at the spec's delivery line and names
// the worker setting that enables it.
func TestValidateServerNamesExactlyOnceWorkerSetting(t *testing.T) {
	s, err := spec.Load("testdata/generate/postgres_exactly_once.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := connectorconfig.Generate(s, connectorconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := connectorconfig.ValidateServer(context.Background(), eosRefusingValidator{}, cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Key != "exactly.once.support" || fs[0].Line != 8 ||
		!strings.Contains(fs[0].Message, "does not have exactly-once source support enabled") ||
		!strings.Contains(fs[0].Message, "exactly.once.source.support=enabled") {
		t.Errorf("findings = %+v, want one at line 8 naming exactly.once.source.support=enabled", fs)
	}
}
