package cmd

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/outboxctl/outboxctl/internal/testfs"
)

// TestConnectAndRegistryPrecedence (#30 item 2): the Connect and registry
// resolvers follow the one table of settings, as the Kafka one does
// (TestKafkaConfigPrecedence): flag > OUTBOXCTL_* > OUTBOX_* > context >
// default, and for secrets the flag's file > the variable > the
// variable's file > the context; every reference form in the context.
func TestConnectAndRegistryPrecedence(t *testing.T) {
	secrets := testfs.Write(t, map[string]string{"flag-pw": "flag-file\n", "env-pw": "env-file\n", "ctx-pw": "ctx-file\n"})
	flagPW, envPW, ctxPW := filepath.Join(secrets, "flag-pw"), filepath.Join(secrets, "env-pw"), filepath.Join(secrets, "ctx-pw")
	dir := testfs.Write(t, map[string]string{"outboxctl/config.yaml": `current-context: c
contexts:
  c:
    connect: {url: "http://ctx:8083", user: ctx-user, password: "file:` + ctxPW + `", token: "${env:CTX_TOKEN}"}
    registry: {url: "http://ctx:8081", user: ctx-user, password: "env:CTX_PW", token: "${file:` + ctxPW + `}"}
`})
	base := map[string]string{"XDG_CONFIG_HOME": dir, "CTX_PW": "ctx-env", "CTX_TOKEN": "ctx-token"}
	type want struct{ url, user, password, token string }
	for _, tc := range []struct {
		name     string
		vars     map[string]string
		connect  connectFlags
		registry registryFlags
		wantC    want
		wantR    want
	}{
		{"context, every reference form", nil, connectFlags{}, registryFlags{},
			want{"http://ctx:8083", "ctx-user", "ctx-file", "ctx-token"}, want{"http://ctx:8081", "ctx-user", "ctx-env", "ctx-file"}},
		{"alias over context", map[string]string{"OUTBOX_CONNECT_URL": "http://alias:1", "OUTBOX_SCHEMA_REGISTRY_URL": "http://alias:2", "OUTBOX_CONNECT_PASSWORD_FILE": envPW, "OUTBOX_SCHEMA_REGISTRY_PASSWORD_FILE": envPW},
			connectFlags{}, registryFlags{},
			want{"http://alias:1", "ctx-user", "env-file", "ctx-token"}, want{"http://alias:2", "ctx-user", "env-file", "ctx-file"}},
		{"canonical over alias; the variable over its file", map[string]string{
			"OUTBOX_CONNECT_URL": "http://alias:1", "OUTBOXCTL_CONNECT_URL": "http://canon:1", "OUTBOXCTL_CONNECT_PASSWORD": "env-value", "OUTBOXCTL_CONNECT_PASSWORD_FILE": envPW,
			"OUTBOXCTL_SCHEMA_REGISTRY_URL": "http://canon:2", "OUTBOXCTL_SCHEMA_REGISTRY_PASSWORD": "env-value", "OUTBOXCTL_SCHEMA_REGISTRY_PASSWORD_FILE": envPW,
			"OUTBOXCTL_CONNECT_TOKEN": "env-token", "OUTBOXCTL_SCHEMA_REGISTRY_TOKEN": "env-token"},
			connectFlags{}, registryFlags{},
			want{"http://canon:1", "ctx-user", "env-value", "env-token"}, want{"http://canon:2", "ctx-user", "env-value", "env-token"}},
		{"flags over all", map[string]string{"OUTBOXCTL_CONNECT_URL": "http://canon:1", "OUTBOXCTL_CONNECT_PASSWORD": "env-value", "OUTBOXCTL_SCHEMA_REGISTRY_PASSWORD": "env-value"},
			connectFlags{connectEndpoint: connectEndpoint{URL: "http://flag:1", User: "flag-user", PasswordFile: flagPW, TokenFile: flagPW}},
			registryFlags{URL: "http://flag:2", User: "flag-user", PasswordFile: flagPW, TokenFile: flagPW},
			want{"http://flag:1", "flag-user", "flag-file", "flag-file"}, want{"http://flag:2", "flag-user", "flag-file", "flag-file"}},
		{"the registry's context password only with its user", map[string]string{"OUTBOXCTL_SCHEMA_REGISTRY_USER": "env-user"},
			connectFlags{}, registryFlags{},
			want{"http://ctx:8083", "ctx-user", "ctx-file", "ctx-token"}, want{"http://ctx:8081", "env-user", "", "ctx-file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := maps.Clone(base)
			maps.Copy(vars, tc.vars)
			env := testEnv(vars)
			ep, err := resolveEndpoint(env, &tc.connect)
			if err != nil {
				t.Fatal(err)
			}
			if got := (want{ep.URL, ep.User, ep.Password, ep.Token}); got != tc.wantC {
				t.Errorf("connect = %+v, want %+v", got, tc.wantC)
			}
			r, err := tc.registry.resolve(env)
			if err != nil {
				t.Fatal(err)
			}
			if got := (want{r.URL, r.User, r.Password, r.Token}); got != tc.wantR {
				t.Errorf("registry = %+v, want %+v", got, tc.wantR)
			}
		})
	}
	// No context, no settings: the native stack.
	env := testEnv(map[string]string{"XDG_CONFIG_HOME": t.TempDir()})
	if ep, err := resolveEndpoint(env, &connectFlags{}); err != nil || ep.URL != "http://127.0.0.1:18083" || ep.Password != "" {
		t.Errorf("default connect = %+v, %v", ep, err)
	}
	if r, err := (&registryFlags{}).resolve(env); err != nil || r.URL != "http://127.0.0.1:18081/apis/ccompat/v7" || r.User != "" {
		t.Errorf("default registry = %+v, %v", r, err)
	}
}
