package cmd

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/settings"
)

func testEnv(vars map[string]string) *Env {
	get := func(k string) string { return vars[k] }
	return &Env{Getenv: get, Settings: settings.FromEnv(get)}
}

func TestConnectClientTLSAndBasicAuth(t *testing.T) {
	var gotUser, gotPass string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotPass, _ = r.BasicAuth()
		w.Write([]byte(`{"version":"4.3.1","commit":"c","kafka_cluster_id":"k"}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(map[string]string{"XDG_CONFIG_HOME": dir, "OUTBOX_CONNECT_USER": "deployer"})

	// Without the CA the certificate is refused.
	c, err := connectClient(env, &connectFlags{connectEndpoint: connectEndpoint{URL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ServerInfo(context.Background()); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("want a certificate error, got %v", err)
	}
	// With the CA and the password file.
	c, err = connectClient(env, &connectFlags{connectEndpoint: connectEndpoint{URL: srv.URL, CAFile: ca, PasswordFile: pw}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.ServerInfo(context.Background())
	if err != nil || info.Version != "4.3.1" {
		t.Fatalf("server info = %+v, %v", info, err)
	}
	if gotUser != "deployer" || gotPass != "hunter2" {
		t.Fatalf("basic auth = %q/%q", gotUser, gotPass)
	}
	// --connect-insecure-skip-verify also connects.
	c, _ = connectClient(env, &connectFlags{connectEndpoint: connectEndpoint{URL: srv.URL, InsecureSkipVerify: true}})
	if _, err := c.ServerInfo(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestResolveEndpointPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "outboxctl")
	_ = os.MkdirAll(cfgDir, 0o755)
	_ = os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(`current-context: a
contexts:
  a: {connect: {url: "http://a:1", user: ua, token: "${env:TOK}"}}
  b: {connect: {url: "http://b:1"}}
`), 0o600)
	cases := []struct {
		name  string
		vars  map[string]string
		flags connectFlags
		want  string
	}{
		{"default context", map[string]string{}, connectFlags{}, "http://a:1"},
		{"env context", map[string]string{"OUTBOXCTL_CONTEXT": "b"}, connectFlags{}, "http://b:1"},
		{"flag context beats env context", map[string]string{"OUTBOXCTL_CONTEXT": "b"}, connectFlags{Context: "a"}, "http://a:1"},
		{"env url beats context", map[string]string{"OUTBOX_CONNECT_URL": "http://env:1"}, connectFlags{}, "http://env:1"},
		{"flag url beats env", map[string]string{"OUTBOX_CONNECT_URL": "http://env:1"}, connectFlags{connectEndpoint: connectEndpoint{URL: "http://flag:1"}}, "http://flag:1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.vars["XDG_CONFIG_HOME"] = dir
			tc.vars["TOK"] = "t0ken"
			ep, err := resolveEndpoint(testEnv(tc.vars), &tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if ep.URL != tc.want {
				t.Errorf("url = %s, want %s", ep.URL, tc.want)
			}
			if tc.want == "http://a:1" && (ep.Token != "t0ken" || ep.User != "ua") {
				t.Errorf("context a: token %q user %q", ep.Token, ep.User)
			}
		})
	}
	// No context file at all: the settings default.
	ep, err := resolveEndpoint(testEnv(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}), &connectFlags{})
	if err != nil || ep.URL != settings.DefaultConnectURL {
		t.Fatalf("default = %q, %v", ep.URL, err)
	}
}
