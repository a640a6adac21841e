// Package httpclienttest holds the checks the Kafka Connect and Schema
// Registry clients share about their HTTP plumbing (internal/httpclient):
// TransportOptions runs one table of the options that choose how a client
// sends (WithHTTPClient, WithTransport, WithTLS, WithTransportWrapper)
// against either client, so both give them the same meaning.
package httpclienttest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/httpclient"
)

// Unreachable is a base URL no request can reach (.invalid never
// resolves): a call succeeds only through the transport of the options.
const Unreachable = "http://outboxctl-test.invalid:1"

// Recorder is a transport that answers every request itself, 200 with a
// JSON body of "[]" (an empty list of connectors or subjects), and counts
// the requests.
type Recorder struct{ n atomic.Int64 }

// RoundTrip answers req.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.n.Add(1)
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader("[]")),
		ContentLength: 2, Request: req}, nil
}

// Requests is the number of requests seen.
func (r *Recorder) Requests() int { return int(r.n.Load()) }

// hanging is a transport that answers nothing until the request ends.
type hanging struct{ Recorder }

func (h *hanging) RoundTrip(req *http.Request) (*http.Response, error) {
	h.n.Add(1)
	<-req.Context().Done()
	return nil, req.Context().Err()
}

// Options are a client's constructors of its transport options.
type Options[O any] struct {
	HTTPClient func(*http.Client) O
	Transport  func(http.RoundTripper) O
	TLS        func(httpclient.TLSFiles) O
	Wrapper    func(func(http.RoundTripper) http.RoundTripper) O
}

// TransportOptions runs the table of the transport options against a
// client: call makes a client of Unreachable with the options and makes
// one request (a list call), returning the error of either. Each row says
// which transport must have seen the request: the one of WithTransport
// (a), the one of WithHTTPClient's client (b), the wrapper's (w); the
// client given to WithHTTPClient is never changed; its Timeout bounds the
// requests.
func TransportOptions[O any](t *testing.T, o Options[O], call func(opts ...O) error) {
	t.Helper()
	wrapper := func(w *Recorder) func(http.RoundTripper) http.RoundTripper {
		return func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				w.n.Add(1)
				return next.RoundTrip(req)
			})
		}
	}
	for _, tc := range []struct {
		name    string
		opts    func(a, b, w *Recorder) []O
		a, b, w int
	}{
		{"WithTransport", func(a, b, w *Recorder) []O { return []O{o.Transport(a)} }, 1, 0, 0},
		{"WithHTTPClient", func(a, b, w *Recorder) []O { return []O{o.HTTPClient(&http.Client{Transport: b})} }, 0, 1, 0},
		{"WithTransport wins over WithHTTPClient's transport", func(a, b, w *Recorder) []O {
			return []O{o.Transport(a), o.HTTPClient(&http.Client{Transport: b})}
		}, 1, 0, 0},
		{"WithTLS ignored with WithTransport", func(a, b, w *Recorder) []O {
			return []O{o.TLS(httpclient.TLSFiles{CAFile: "/nonexistent/ca.pem"}), o.Transport(a)}
		}, 1, 0, 0},
		{"WithTLS ignored with WithHTTPClient", func(a, b, w *Recorder) []O {
			return []O{o.TLS(httpclient.TLSFiles{CAFile: "/nonexistent/ca.pem"}), o.HTTPClient(&http.Client{Transport: b})}
		}, 0, 1, 0},
		{"WithTransportWrapper wraps WithTransport", func(a, b, w *Recorder) []O {
			return []O{o.Wrapper(wrapper(w)), o.Transport(a)}
		}, 1, 0, 1},
		{"WithTransportWrapper wraps WithHTTPClient's transport", func(a, b, w *Recorder) []O {
			return []O{o.HTTPClient(&http.Client{Transport: b}), o.Wrapper(wrapper(w))}
		}, 0, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b, w := &Recorder{}, &Recorder{}, &Recorder{}
			if err := call(tc.opts(a, b, w)...); err != nil {
				t.Fatal(err)
			}
			if a.Requests() != tc.a || b.Requests() != tc.b || w.Requests() != tc.w {
				t.Errorf("requests seen by WithTransport's %d, WithHTTPClient's %d, the wrapper %d; want %d, %d, %d",
					a.Requests(), b.Requests(), w.Requests(), tc.a, tc.b, tc.w)
			}
		})
	}
	t.Run("WithHTTPClient's client unchanged, its Timeout bounds requests", func(t *testing.T) {
		h := &hanging{}
		hc := &http.Client{Transport: h, Timeout: 50 * time.Millisecond}
		start := time.Now()
		err := call(o.HTTPClient(hc), o.Wrapper(func(next http.RoundTripper) http.RoundTripper { return next }))
		if !errors.Is(err, context.DeadlineExceeded) || h.Requests() == 0 {
			t.Errorf("err = %v after %d requests, want a timeout", err, h.Requests())
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the call took %s", d)
		}
		if hc.Transport != h || hc.Timeout != 50*time.Millisecond {
			t.Errorf("the client given was changed: %+v", hc)
		}
	})
	t.Run("WithTLS loads its files without a transport given", func(t *testing.T) {
		if err := call(o.TLS(httpclient.TLSFiles{CAFile: "/nonexistent/ca.pem"})); err == nil || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
			t.Errorf("err = %v, want the CA file's error", err)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
