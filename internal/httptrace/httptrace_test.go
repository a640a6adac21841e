package httptrace_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/httptrace"
)

func sensitive(k string) bool { return strings.Contains(strings.ToLower(k), "password") }

func TestTraceMasksSecrets(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte("pg-s3cret")) {
			t.Errorf("the trace changed the request body: %s", body)
		}
		w.WriteHeader(400)
		_, _ = w.Write([]byte(`{"error_code":400,"message":"login failed with password pg-s3cret for jdbc:postgresql://deb:pg-s3cret@db/app"}`))
	}))
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	tr := httptrace.New(http.DefaultTransport, &out, httptrace.Options{Sensitive: sensitive})
	hc := &http.Client{Transport: tr}
	u := strings.Replace(srv.URL, "http://", "http://deployer:hunter2@", 1) + "/connectors/x/config"
	req, _ := http.NewRequest(http.MethodPut, u, strings.NewReader(`{"database.password":"pg-s3cret","database.user":"deb","connection.url":"jdbc:mysql://db/app?password=other-pw"}`))
	req.Header.Set("Authorization", "Bearer tok-123456")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(got, []byte("pg-s3cret")) {
		t.Errorf("the trace changed the answer: %s", got)
	}
	trace := out.String()
	for _, leak := range []string{"pg-s3cret", "hunter2", "tok-123456", "other-pw"} {
		if strings.Contains(trace, leak) {
			t.Errorf("trace leaks %q:\n%s", leak, trace)
		}
	}
	for _, want := range []string{
		"> PUT http://deployer:********@",
		"> Authorization: Bearer ********",
		`"database.password":"********"`,
		`"database.user":"deb"`,
		"password=********",
		"/connectors/x/config: 400 Bad Request (",
		"login failed with password ********",
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}
}

func TestTraceTruncatesBodies(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 10000)))
	}))
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	hc := &http.Client{Transport: httptrace.New(nil, &out, httptrace.Options{MaxBody: 100})}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n != 10000 {
		t.Fatalf("read %d bytes through the trace, want 10000", n)
	}
	if !strings.Contains(out.String(), strings.Repeat("x", 100)+"… (100 bytes shown of 10000)") || strings.Contains(out.String(), strings.Repeat("x", 101)) {
		t.Errorf("trace:\n%s", out.String())
	}
}

func TestTraceNoAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	var out bytes.Buffer
	hc := &http.Client{Transport: httptrace.New(nil, &out, httptrace.Options{})}
	if _, err := hc.Get(url + "/x"); err == nil {
		t.Fatal("want an error")
	}
	if !strings.Contains(out.String(), "< GET "+url+"/x: no answer after") {
		t.Errorf("trace:\n%s", out.String())
	}
}
