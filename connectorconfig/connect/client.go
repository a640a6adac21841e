package connect

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/internal/httpclient"
	"github.com/outboxctl/outboxctl/internal/limitio"
	"github.com/outboxctl/outboxctl/internal/redact"
)

// Client talks to one Kafka Connect REST endpoint. It is safe for concurrent
// use.
type Client struct {
	base      *url.URL
	baseStr   string
	hc        *http.Client      // built from send by NewClient
	send      httpclient.Sender // WithHTTPClient, WithTransport, WithTLS, WithTLSConfig, WithTransportWrapper
	userAgent string
	auth      httpclient.Auth
	retry     Retry
	sleep     func(context.Context, time.Duration) error
	now       func() time.Time
	bounds    httpclient.Bounds // Request: DefaultRequestTimeout; Call: none
	maxAnswer int64
}

// DefaultRequestTimeout bounds each HTTP request of a new Client (sending
// it and reading the whole answer). Connect's own REST timeout is 90 s, but
// a worker that answers at all answers far sooner.
const DefaultRequestTimeout = 30 * time.Second

// DefaultMaxAnswerSize is the largest answer body a new Client reads.
const DefaultMaxAnswerSize = 32 << 20

// WithRequestTimeout bounds each HTTP request (every retry attempt on its
// own, including reading the answer), overriding DefaultRequestTimeout; 0
// disables the bound. A request that exceeds it fails with a
// [*TimeoutError] (ErrTimeout). The caller's context still bounds the
// whole call.
func WithRequestTimeout(d time.Duration) Opt { return func(c *Client) { c.bounds.Request = d } }

// WithCallTimeout bounds each call (all its requests, 409 retries and
// the waits between them), overriding the default of none (the caller's
// context and WithRequestTimeout still apply). A call that exceeds it
// fails with a [*TimeoutError] (ErrTimeout). It means what the registry
// client's WithCallTimeout means.
func WithCallTimeout(d time.Duration) Opt { return func(c *Client) { c.bounds.Call = d } }

// WithMaxAnswerSize limits the answer bodies read, overriding
// DefaultMaxAnswerSize (n <= 0 keeps it). A larger answer fails with
// ErrAnswerTooLarge.
func WithMaxAnswerSize(n int64) Opt { return func(c *Client) { c.maxAnswer = n } }

// WithTransportWrapper wraps the transport (the one of WithTransport or
// WithHTTPClient, or the default with WithTLS or WithTLSConfig applied),
// overriding no wrapping. outboxctl uses it to trace requests. It means
// what the registry client's WithTransportWrapper means.
func WithTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) Opt {
	return func(c *Client) { c.send.Wrap = wrap }
}

// Retry bounds the retries of a request that Connect could not serve for
// a passing reason: a 409 (or a 500 "rebalance is expected") while the
// worker group rebalances, for every request, and, for the requests that
// can be repeated (GET, PUT, DELETE), a transient error: a 500 "IO Error
// trying to forward REST request" (the worker that got it could not reach
// the group's leader, which is gone until the group rebalances) and a
// 502, 503 or 504 (a proxy, a starting worker). A worker that does not
// answer at all (connection refused) is not retried: the URL may be
// wrong, and it fails at once with ErrUnreachable. The wait doubles from
// Initial up to Max between attempts. Budget bounds the time from the
// first attempt: no retry starts after it (the call's own bounds,
// WithCallTimeout and the context, still apply). MaxAttempts, when > 0,
// also caps the attempts.
type Retry struct {
	MaxAttempts int           // total attempts including the first; 0: no cap (Budget bounds); 1 disables retries
	Initial     time.Duration // first wait
	Max         time.Duration // cap of one wait
	Budget      time.Duration // how long to keep retrying, from the first attempt; 0: MaxAttempts bounds
}

// DefaultRetryBudget is how long a new Client keeps retrying a request
// during a rebalance or a transient error: a Connect group rebalance,
// after a worker joined, left or died, ends within the workers'
// rebalance.timeout.ms (60 s by default), and Connect's own REST calls
// time out after 90 s.
const DefaultRetryBudget = 90 * time.Second

// DefaultRetry is the retry policy of a new Client: waits of 250ms, 500ms,
// 1s, 2s, then 4s, for up to DefaultRetryBudget (90 s).
var DefaultRetry = Retry{Initial: 250 * time.Millisecond, Max: 4 * time.Second, Budget: DefaultRetryBudget}

// Opt configures a Client.
type Opt func(*Client)

// WithBasicAuth sends HTTP basic authentication, overriding the default of
// no authentication.
func WithBasicAuth(user, password string) Opt {
	return func(c *Client) { c.auth.User, c.auth.Password = user, password }
}

// WithBearerToken sends "Authorization: Bearer token", overriding basic auth.
func WithBearerToken(token string) Opt { return func(c *Client) { c.auth.Token = token } }

// WithTLSConfig sets the TLS configuration of the default transport,
// overriding WithTLS (ignored with WithTransport or WithHTTPClient).
func WithTLSConfig(cfg *tls.Config) Opt { return func(c *Client) { c.send.TLS.Config = cfg } }

// TLSConfig are the TLS files of the Connect connection (the registry
// client's TLSConfig is the same type). Empty fields keep Go's defaults.
type TLSConfig = httpclient.TLSFiles

// WithTLS loads the TLS files into the default transport's TLS
// configuration, overriding the system defaults (ignored with
// WithTLSConfig, WithTransport or WithHTTPClient). NewClient fails when a
// file cannot be loaded.
func WithTLS(t TLSConfig) Opt { return func(c *Client) { c.send.TLS.Files = &t } }

// WithHTTPClient sends the requests through a copy of hc (its Timeout,
// redirect policy, cookie jar and Transport, http.DefaultTransport when
// nil), overriding the default client (no client timeout:
// WithRequestTimeout bounds each request). WithTLS and WithTLSConfig are
// then ignored; WithTransport still sets the transport and
// WithTransportWrapper wraps it. It means what the registry client's
// WithHTTPClient means.
func WithHTTPClient(hc *http.Client) Opt { return func(c *Client) { c.send.Client = hc } }

// WithTransport sets the HTTP transport, overriding a clone of
// http.DefaultTransport and WithHTTPClient's transport (WithTLS and
// WithTLSConfig are then ignored; WithTransportWrapper wraps it). It
// means what the registry client's WithTransport means.
func WithTransport(rt http.RoundTripper) Opt { return func(c *Client) { c.send.Transport = rt } }

// WithUserAgent sets the User-Agent header, overriding "outboxctl".
func WithUserAgent(ua string) Opt { return func(c *Client) { c.userAgent = ua } }

// WithRetry sets the retry policy (rebalance 409s, transient errors),
// overriding DefaultRetry.
func WithRetry(r Retry) Opt { return func(c *Client) { c.retry = r } }

// NewClient returns a client for the Connect REST API at baseURL (for
// example http://127.0.0.1:8083). It fails when baseURL is not an
// absolute http(s) URL or a TLS file (WithTLS) cannot be loaded.
func NewClient(baseURL string, opts ...Opt) (*Client, error) {
	u, err := redact.ParseURL(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("kafka connect url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kafka connect url %q: want http(s)://host:port", redact.URL(baseURL))
	}
	c := &Client{base: u, baseStr: u.String(), userAgent: "outboxctl", retry: DefaultRetry, sleep: sleepCtx, now: time.Now,
		bounds: httpclient.Bounds{Request: DefaultRequestTimeout}, maxAnswer: DefaultMaxAnswerSize}
	for _, o := range opts {
		o(c)
	}
	if c.hc, err = c.send.Build("kafka connect tls"); err != nil {
		return nil, err
	}
	if c.maxAnswer <= 0 {
		c.maxAnswer = DefaultMaxAnswerSize
	}
	if c.retry.MaxAttempts < 1 && c.retry.Budget <= 0 {
		c.retry.MaxAttempts = 1
	}
	if c.retry.MaxAttempts < 0 {
		c.retry.MaxAttempts = 0
	}
	return c, nil
}

// URL returns the base URL of the client.
func (c *Client) URL() string { return c.baseStr }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryable409 reports an answer Connect gives while the worker group
// rebalances: a 409 other than a real conflict ("Connector x already
// exists"), or a 500 "Request cannot be completed because a rebalance is
// expected" (seen on Kafka 4.3.1 for reads right after concurrent writes).
func retryable409(e *APIError) bool {
	switch e.Status {
	case http.StatusConflict:
		return !strings.Contains(e.Message, "already exists")
	case http.StatusInternalServerError:
		return strings.Contains(e.Message, "rebalance is expected")
	}
	return false
}

// retryable reports whether err is worth another attempt of a method
// request, and why: the group rebalances, or a transient error.
func retryable(method string, err error) (why string, ok bool) {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return "", false
	}
	if retryable409(apiErr) {
		return "rebalancing", true
	}
	// The request may have been served: repeat only those that can be.
	if method != http.MethodGet && method != http.MethodPut && method != http.MethodDelete {
		return "", false
	}
	switch apiErr.Status {
	case http.StatusInternalServerError:
		if strings.Contains(apiErr.Message, "trying to forward REST request") {
			return "failing to reach the group's leader", true
		}
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return "unavailable", true
	}
	return "", false
}

// do sends one request, retrying rebalance 409s and transient errors
// (Retry), and decodes a JSON answer into out (when out is non-nil and
// there is a body). It returns the status.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		body = b
	}
	callCtx, cancel := httpclient.WithBound(ctx, c.bounds.Call)
	defer cancel()
	start := c.now()
	wait := c.retry.Initial
	for attempt := 1; ; attempt++ {
		status, err := c.once(ctx, callCtx, method, path, query, body, out)
		why, again := retryable(method, err)
		if err == nil || !again {
			return status, err
		}
		elapsed := c.now().Sub(start)
		if (c.retry.MaxAttempts > 0 && attempt >= c.retry.MaxAttempts) || (c.retry.Budget > 0 && elapsed+wait > c.retry.Budget) || (c.retry.Budget <= 0 && c.retry.MaxAttempts <= 1) {
			if attempt == 1 {
				return status, err
			}
			what := "still rebalancing"
			if why != "rebalancing" {
				what = "still " + why
			}
			return status, fmt.Errorf("%s after %d attempts in %s: %w", what, attempt, elapsed.Round(100*time.Millisecond), err)
		}
		if err := c.sleep(callCtx, wait); err != nil {
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				return status, &TimeoutError{Method: method, URL: c.baseStr + path, After: c.bounds.Call}
			}
			return status, err
		}
		wait *= 2
		if c.retry.Max > 0 && wait > c.retry.Max {
			wait = c.retry.Max
		}
	}
}

func (c *Client) once(ctx, callCtx context.Context, method, path string, query url.Values, body []byte, out any) (int, error) {
	u := c.baseStr + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	reqCtx, cancel := httpclient.WithBound(callCtx, c.bounds.Request)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, method, u, r)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, redact.URL(u), err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", c.userAgent)
	c.auth.Set(req.Header)
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, c.transportErr(ctx, callCtx, reqCtx, start, method, u, err)
	}
	defer resp.Body.Close()
	data, err := limitio.ReadAll(resp.Body, c.maxAnswer)
	if err != nil {
		if errors.Is(err, limitio.ErrTooLarge) {
			return resp.StatusCode, fmt.Errorf("%s %s: %w: more than %d bytes", method, redact.URL(u), ErrAnswerTooLarge, c.maxAnswer)
		}
		return resp.StatusCode, c.transportErr(ctx, callCtx, reqCtx, start, method, u, err)
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, httpclient.NewAPIError[service]("", method, u, resp.StatusCode, data)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return resp.StatusCode, nil
	}
	s, isShaped := out.(shaped)
	if len(bytes.TrimSpace(data)) == 0 {
		if isShaped {
			return resp.StatusCode, &BadAnswerError{Method: method, URL: u, Reason: "empty answer"}
		}
		return resp.StatusCode, nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return resp.StatusCode, &BadAnswerError{Method: method, URL: u, Reason: "decode: " + err.Error()}
	}
	if isShaped {
		if err := s.Check(); err != nil {
			return resp.StatusCode, &BadAnswerError{Method: method, URL: u, Reason: err.Error()}
		}
	}
	return resp.StatusCode, nil
}

// shaped is an answer type that can say whether it has the documented
// shape (required fields present).
type shaped interface{ Check() error }

// transportErr classifies an error without an HTTP answer: the caller's
// context ended, a bound of the client expired, or Connect is unreachable.
func (c *Client) transportErr(ctx, callCtx, reqCtx context.Context, start time.Time, method, u string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s: %w", method, redact.URL(u), ctx.Err())
	}
	if after := httpclient.Expired(ctx, callCtx, reqCtx, c.bounds, start, err); after > 0 {
		return &TimeoutError{Method: method, URL: u, After: after}
	}
	return &UnreachableError{URL: c.baseStr, Err: err}
}

func connPath(name string, rest ...string) string {
	p := "/connectors/" + url.PathEscape(name)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}
