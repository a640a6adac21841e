package registry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/schemas/registry"
)

func TestRequestTimeoutIsErrTimeout(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	for _, tt := range []struct {
		name string
		opts []registry.Opt
		want string
		call func(*registry.Client) error
	}{
		{"srclient part, request timeout", []registry.Opt{registry.WithRequestTimeout(50 * time.Millisecond), registry.WithCallTimeout(time.Hour)}, "timed out after 50ms",
			func(c *registry.Client) error { _, err := c.Subjects(context.Background(), false); return err }},
		{"srclient part, call timeout", []registry.Opt{registry.WithCallTimeout(60 * time.Millisecond)}, "timed out after 60ms",
			func(c *registry.Client) error { _, err := c.Subjects(context.Background(), false); return err }},
		{"deprecated WithTimeout is the call timeout", []registry.Opt{registry.WithTimeout(70 * time.Millisecond)}, "timed out after 70ms", //nolint:staticcheck // the deprecated alias
			func(c *registry.Client) error { _, err := c.Subjects(context.Background(), false); return err }},
		{"net/http part", []registry.Opt{registry.WithRequestTimeout(50 * time.Millisecond)}, "timed out after 50ms",
			func(c *registry.Client) error {
				_, err := c.TestCompatibility(context.Background(), "s-value", `"string"`, 0)
				return err
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := registry.NewClient(srv.URL, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.call(c)
			var te *registry.TimeoutError
			if !errors.Is(err, registry.ErrTimeout) || !errors.As(err, &te) || errors.Is(err, registry.ErrUnreachable) {
				t.Fatalf("err = %v, want ErrTimeout and not ErrUnreachable", err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || !strings.Contains(msg, srv.URL) {
				t.Errorf("message = %q, want %q and the request URL", msg, tt.want)
			}
		})
	}
}

func TestHugeAnswerIsBounded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`["`))
		chunk := []byte(strings.Repeat("s", 64<<10))
		for i := 0; i < 1<<14; i++ { // 1 GiB unless the client hangs up
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, _ := registry.NewClient(srv.URL, registry.WithMaxAnswerSize(1<<20))
	_, err := c.Subjects(context.Background(), false)
	if !errors.Is(err, registry.ErrAnswerTooLarge) || !strings.Contains(err.Error(), srv.URL+"/subjects") {
		t.Fatalf("err = %v, want ErrAnswerTooLarge naming the request", err)
	}
	// An answer of exactly the limit is fine.
	exact := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`["` + strings.Repeat("s", 96) + `"]`))
	}))
	t.Cleanup(exact.Close)
	c2, _ := registry.NewClient(exact.URL, registry.WithMaxAnswerSize(100))
	if got, err := c2.Subjects(context.Background(), false); err != nil || len(got) != 1 {
		t.Fatalf("exact limit: %v %v", got, err)
	}
}

func TestErrorsMaskURLCredentials(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		_, _ = w.Write([]byte(`{"error_code":50001,"message":"store at postgres://reg:dbpw@db/reg failed"}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := registry.NewClient(strings.Replace(srv.URL, "http://", "http://u:hunter2@", 1))
	_, err := c.Subjects(context.Background(), false)
	if err == nil || strings.Contains(err.Error(), "dbpw") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
	if _, err := registry.NewClient("ftp://u:hunter2@x"); err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "u:********@") {
		t.Fatalf("bad url error = %v", err)
	}
}
