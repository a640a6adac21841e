package registry

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/riferrei/srclient"

	"github.com/outboxctl/outboxctl/internal/httpclient"
	"github.com/outboxctl/outboxctl/internal/redact"
)

// DefaultTimeout bounds every call (all its HTTP requests together) unless
// WithCallTimeout says otherwise.
const DefaultTimeout = 15 * time.Second

// Client talks to a Confluent-compatible Schema Registry (Confluent, or
// Apicurio's ccompat API). It is safe for concurrent use. It caches nothing:
// every call asks the registry, so "latest" is never stale.
type Client struct {
	base      string // without trailing slash and without userinfo
	auth      httpclient.Auth
	bounds    httpclient.Bounds // Call: DefaultTimeout; Request: none
	hc        *http.Client      // built from send by NewClient; each call copies it
	send      httpclient.Sender // WithHTTPClient, WithTransport, WithTLS, WithTLSConfig, WithTransportWrapper
	userAgent string
	maxAnswer int64
}

// WithTransportWrapper wraps the transport (the one of WithTransport or
// WithHTTPClient, or the default with WithTLS or WithTLSConfig applied),
// overriding no wrapping. outboxctl uses it to trace requests. It means
// what the Connect client's WithTransportWrapper means.
func WithTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) Opt {
	return func(c *Client) { c.send.Wrap = wrap }
}

// DefaultMaxAnswerSize is the largest answer body a client reads.
const DefaultMaxAnswerSize = 32 << 20

// WithRequestTimeout bounds each HTTP request of a call (sending it and
// reading its whole answer), overriding the default of no per-request
// bound (the call's WithCallTimeout still applies). A request that exceeds
// either bound fails with a [*TimeoutError] (ErrTimeout). It means what
// the Connect client's WithRequestTimeout means.
func WithRequestTimeout(d time.Duration) Opt { return func(c *Client) { c.bounds.Request = d } }

// WithMaxAnswerSize limits the answer bodies read, overriding
// DefaultMaxAnswerSize (n <= 0 keeps it). A larger answer fails with
// ErrAnswerTooLarge.
func WithMaxAnswerSize(n int64) Opt { return func(c *Client) { c.maxAnswer = n } }

// Opt configures a Client.
type Opt func(*Client)

// WithBasicAuth sends HTTP basic credentials, overriding credentials given
// in the URL.
func WithBasicAuth(user, password string) Opt {
	return func(c *Client) { c.auth.User, c.auth.Password = user, password }
}

// WithBearerToken sends "Authorization: Bearer token", overriding basic
// credentials.
func WithBearerToken(token string) Opt { return func(c *Client) { c.auth.Token = token } }

// WithCallTimeout bounds each call (all its HTTP requests together),
// overriding DefaultTimeout; 0 disables the bound. It means what the
// Connect client's WithCallTimeout means.
func WithCallTimeout(d time.Duration) Opt { return func(c *Client) { c.bounds.Call = d } }

// WithTimeout is WithCallTimeout.
//
// Deprecated: use WithCallTimeout; "timeout" alone did not say whether it
// bounds a call or a request.
func WithTimeout(d time.Duration) Opt { return WithCallTimeout(d) }

// WithTransport sets the HTTP transport, overriding a clone of
// http.DefaultTransport and WithHTTPClient's transport (WithTLS and
// WithTLSConfig are then ignored; WithTransportWrapper wraps it). It
// means what the Connect client's WithTransport means.
func WithTransport(rt http.RoundTripper) Opt { return func(c *Client) { c.send.Transport = rt } }

// WithHTTPClient sends the requests through a copy of hc (its Timeout,
// redirect policy, cookie jar and Transport, http.DefaultTransport when
// nil), overriding the default client (no client timeout: WithCallTimeout
// and WithRequestTimeout bound the calls). WithTLS and WithTLSConfig are
// then ignored; WithTransport still sets the transport and
// WithTransportWrapper wraps it. It means what the Connect client's
// WithHTTPClient means.
func WithHTTPClient(hc *http.Client) Opt { return func(c *Client) { c.send.Client = hc } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Opt { return func(c *Client) { c.userAgent = ua } }

// TLSConfig are the TLS files of the registry connection (the Connect
// client's TLSConfig is the same type). Empty fields keep Go's defaults
// (system roots, no client certificate).
type TLSConfig = httpclient.TLSFiles

// WithTLS loads the TLS files into the default transport's TLS
// configuration, overriding the system defaults (ignored with
// WithTLSConfig, WithTransport or WithHTTPClient). NewClient fails when a
// file cannot be loaded.
func WithTLS(t TLSConfig) Opt { return func(c *Client) { c.send.TLS.Files = &t } }

// WithTLSConfig sets a ready TLS configuration of the default transport,
// overriding WithTLS (ignored with WithTransport or WithHTTPClient), as in
// the Connect client.
func WithTLSConfig(cfg *tls.Config) Opt { return func(c *Client) { c.send.TLS.Config = cfg } }

// NewClient returns a client of the registry at baseURL (for Apicurio, the
// ccompat root, e.g. http://host:8080/apis/ccompat/v7). Credentials in the
// URL (https://user:pass@host) are taken as basic auth and removed from the
// URL, so they never appear in messages. It fails when the URL is invalid
// or a TLS file cannot be loaded.
func NewClient(baseURL string, opts ...Opt) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("schema registry url %q: want http(s)://host[:port][/path]", redact.URL(baseURL))
	}
	c := &Client{bounds: httpclient.Bounds{Call: DefaultTimeout}, maxAnswer: DefaultMaxAnswerSize}
	if u.User != nil {
		c.auth.User = u.User.Username()
		c.auth.Password, _ = u.User.Password()
		u.User = nil
	}
	c.base = strings.TrimRight(u.String(), "/")
	for _, o := range opts {
		o(c)
	}
	if c.hc, err = c.send.Build("schema registry tls"); err != nil {
		return nil, err
	}
	if c.maxAnswer <= 0 {
		c.maxAnswer = DefaultMaxAnswerSize
	}
	return c, nil
}

// URL is the registry's base URL, without credentials.
func (c *Client) URL() string { return c.base }

// call is the state of one client call: its context and the last error
// answer seen by the transport (srclient drops the status of non-JSON
// bodies, and hides it for JSON ones).
type call struct {
	caller context.Context // the caller's context
	ctx    context.Context // the caller's, bounded by the call timeout
	status int
	body   []byte
	netErr error
	// the last request, and how it ended without an answer
	method, url string
	start       time.Time
	timedOut    time.Duration // the bound that expired, or 0
	tooLarge    bool
}

type callTransport struct {
	c    *Client
	call *call
}

func (t *callTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := httpclient.WithBound(t.call.ctx, t.c.bounds.Request)
	if dl, ok := req.Context().Deadline(); ok {
		// srclient's request carries the deadline of the HTTP client's
		// Timeout (WithHTTPClient) and no other context: keep it.
		dctx, dcancel := context.WithDeadline(ctx, dl)
		bound := cancel
		ctx, cancel = dctx, func() { dcancel(); bound() }
	}
	r := req.Clone(ctx)
	t.c.auth.Set(r.Header)
	if t.c.userAgent != "" {
		r.Header.Set("User-Agent", t.c.userAgent)
	}
	if r.Header.Get("Accept") == "" {
		r.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	}
	t.call.method, t.call.url = r.Method, r.URL.String()
	t.call.start = time.Now()
	resp, err := t.c.hc.Transport.RoundTrip(r)
	if err != nil {
		t.noAnswer(ctx, err)
		cancel()
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		cancel()
		t.call.status, t.call.body = resp.StatusCode, data
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	}
	resp.Body = &answerBody{rc: resp.Body, left: t.c.maxAnswer, t: t, ctx: ctx, cancel: cancel}
	return resp, nil
}

// noAnswer records why a request got no (complete) answer.
func (t *callTransport) noAnswer(ctx context.Context, err error) {
	t.call.netErr = err
	t.call.timedOut = httpclient.Expired(t.call.caller, t.call.ctx, ctx, t.c.bounds, t.call.start, err)
}

// answerBody bounds the answer size and records read errors; Close ends
// the request's timeout.
type answerBody struct {
	rc     io.ReadCloser
	left   int64
	t      *callTransport
	ctx    context.Context
	cancel context.CancelFunc
}

func (b *answerBody) Read(p []byte) (int, error) {
	// Reading one byte past the limit tells a body of exactly the limit
	// from a larger one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.t.call.tooLarge = true
		return 0, ErrAnswerTooLarge
	}
	if err != nil && err != io.EOF {
		b.t.noAnswer(b.ctx, err)
	}
	return n, err
}

func (b *answerBody) Close() error {
	defer b.cancel()
	return b.rc.Close()
}

// begin starts a call: a context bounded by the client's timeout and an
// http.Client whose transport records the call's answers.
func (c *Client) begin(ctx context.Context) (*call, *http.Client, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	callCtx, cancel := httpclient.WithBound(ctx, c.bounds.Call)
	cl := &call{caller: ctx, ctx: callCtx}
	hc := *c.hc
	hc.Transport = &callTransport{c: c, call: cl}
	return cl, &hc, cancel
}

// sr runs fn with a fresh srclient client for this call only: caching and
// codec creation are off, so no stale "latest", no shared *srclient.Schema
// and no Codec() race can reach callers; the call's answers are recorded
// to recover the HTTP status and the registry's error code.
func (c *Client) sr(ctx context.Context, op string, fn func(*srclient.SchemaRegistryClient) error) error {
	cl, hc, cancel := c.begin(ctx)
	defer cancel()
	s := srclient.NewSchemaRegistryClient(c.base, srclient.WithClient(hc), srclient.WithSemaphoreWeight(1))
	s.CachingEnabled(false)
	s.CodecCreationEnabled(false)
	err := fn(s)
	return c.mapErr(op, cl, err)
}

func (c *Client) mapErr(op string, cl *call, err error) error {
	if err == nil {
		return nil
	}
	if cl.status != 0 {
		return newAPIError(op, cl)
	}
	if cl.tooLarge {
		return fmt.Errorf("%s: %s %s: %w: more than %d bytes", op, cl.method, redact.URL(cl.url), ErrAnswerTooLarge, c.maxAnswer)
	}
	if cl.timedOut > 0 {
		return fmt.Errorf("%s: %w", op, &TimeoutError{Method: cl.method, URL: cl.url, After: cl.timedOut})
	}
	if cl.netErr != nil {
		return fmt.Errorf("%s: %w", op, &UnreachableError{URL: c.base, Err: cl.netErr})
	}
	return fmt.Errorf("%s: %w: %v", op, ErrServer, err)
}

// rest is the net/http helper for what srclient cannot do. in is sent as
// JSON when non-nil; out is decoded from a 2xx JSON answer when non-nil.
func (c *Client) rest(ctx context.Context, op, method, path string, in, out any) error {
	cl, hc, cancel := c.begin(ctx)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(cl.ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return c.mapErr(op, cl, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newAPIError(op, cl)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return c.mapErr(op, cl, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s: %w: decode answer: %v", op, ErrServer, err)
		}
	}
	return nil
}
